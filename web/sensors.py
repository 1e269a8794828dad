"""Wires the castle's sensors into the table: break-beam gates, the camera and, in simulation, a marble
roller and a simulated castle camera.

Every marble a gate sees goes through `Table.submit` with source "sensor", exactly like a tap, to the Diego
Drachenzahn session that holds the castle (companion.castle) while its round is running; otherwise it is
only shown (published on the "sensors" topic). The camera's readings become "camera" events that confirm or
flag the round (rulings D3, D4). With the table's consent (photo keeping, off by default), the frame of every
round a person accepts by revealing the token (the camera agreed, or a tap corrected it) is kept with its
empty reference and the scored counts in DATA/photos/.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from flask import Flask

from companion.castle import Castle
from companion.games.diego import MARBLES
from companion.table import Table
from hardware.camera.keeping import PhotoKeeper

from .stream import SENSORS_TOPIC

log = logging.getLogger(__name__)

PI_MODEL = Path("/proc/device-tree/model")
IDLE_AFTER_S = 3.0


def detect_mode(model_file: Path = PI_MODEL) -> str:
    """"hardware" on a Raspberry Pi, else "simulation"."""
    try:
        return "hardware" if "Raspberry Pi" in model_file.read_text(errors="replace") else "simulation"
    except OSError:
        return "simulation"


class Sensors:
    """The running sensors and what the kiosk and /api/health show about them."""

    def __init__(self, mode: str, table: Table, castle: Castle, keeper: PhotoKeeper) -> None:
        self.mode = mode
        self.table = table
        self.castle_owner = castle
        self.gates: Any = None
        self.simulator: Any = None
        self.castle: Any = None
        self.camera: Any = None
        self.gates_error: str | None = None
        self.camera_error: str | None = None
        self.last_marble: dict[str, Any] | None = None
        self.last_marble_at = 0.0
        self.photos: dict[int, bytes] = {}
        self.keeper = keeper  # with or without a camera: photos kept before can be downloaded and deleted
        self._readings: dict[int, Any] = {}  # session -> the ReadingFrame of its last camera reading
        self._round_seen: tuple[Any, dict[str, Any]] | None = None  # (key, round) as seen before its reveal
        self._photo_seen: tuple[Any, dict[str, Any]] | None = None  # (key, camera reading) its marbles are judged by
        self._kept: set[tuple[int, int]] = set()  # rounds whose photo was handed to the keeper
        # rounds in which the beams or the camera found more marbles than a round holds: its photo shows marbles
        # the table's counts leave out (a fourth rolled in), so no label of it would be true
        self._crowded: set[tuple[int, int]] = set()
        self._round: tuple[int, int] | None = None  # (session, round number) of the running Diego round
        self._round_gates: tuple[int | None, ...] = ()  # the gates of that round's marbles (None: missed every gate)
        self._round_start_counts: list[int] = []  # each gate's marble total when that round began

    # what is shown
    def status(self) -> dict[str, Any]:
        if self.gates is not None:
            gates = self._with_round_counts(self.gates.status())
        else:
            gates = {"ok": False, "error": self.gates_error or "the gates are not started", "gates": []}
        if self.camera is not None:
            camera = self.camera.status()
            camera = {"ok": camera["camera"]["ok"], **camera}
        else:
            camera = {"ok": False, "error": self.camera_error or "the camera is off"}
        # the round the gates' `round_marbles` count for ([session, round number]): a page showing a later round
        # knows they are the round before's until the next marble
        return {"gates": gates, "camera": camera, "last_marble": self.last_marble,
                "round": list(self._round) if self._round else None}

    def _with_round_counts(self, gates: dict[str, Any]) -> dict[str, Any]:
        """Each gate's `round_marbles`: the marbles it has seen since the round that holds the castle began."""
        start = self._round_start_counts
        for index, gate in enumerate(gates["gates"]):
            gate["round_marbles"] = gate["marbles"] - (start[index] if index < len(start) else 0)
        return gates

    def publish_status(self) -> None:
        self.table.bus.publish(SENSORS_TOPIC, "sensors", self.status())

    # the round, followed through the table's watch hook
    def follow_holder(self) -> None:
        """The round of the game that holds the castle, as the table stands at the start: after a restart in the
        middle of a round, its marbles are still in the gates, and neither the camera (its empty reference) nor the
        gates' panel (this round's counts) may take the castle for an empty round until the table next changes."""
        holder = self.castle_owner.holder
        if holder is None:
            return
        try:
            view = self.table.view(holder)
        except Exception:  # a game that cannot be shown is not followed: the next change will be
            log.exception("the game holding the castle (%s) could not be followed at the start", holder)
            return
        self.on_view(view)

    def on_view(self, view: dict[str, Any]) -> None:
        if view["id"] != self.castle_owner.holder:
            return
        current = view["state"].get("current")
        key = (view["id"], current["number"]) if current else None
        if current is not None and key is not None and _crowded(current):
            self._crowded.add(key)
        try:
            self._keep_if_revealed(view, key)
        except Exception:  # keeping a photo never stands in the way of following the round
            log.exception("photo keeping could not follow game %s", view["id"])
        if key != self._round:
            if self._round is not None and self.castle is not None:
                self.castle.clear()  # a new round or game: the active player takes the marbles back
            # the panel counts this round's marbles from here
            self._round_start_counts = [g["marbles"] for g in self.gates.status()["gates"]] if self.gates else []
        marbles = len(current["marbles"]) if current else 0
        # the camera's reading undone, the camera alone: an undo took the camera's marbles, some or all, out of the
        # round (it reports each marble as it comes to rest: undone, the round falls back to the reading before, or
        # none). It reads the marbles at rest anew, as they lie now.
        undone = (view.get("change") or {}).get("action") == "undo" and marbles < len(self._round_gates) \
            and all(source == "camera" for source in (current or {}).get("sources", ()))
        if key == self._round and undone and self.camera is not None and self.camera.camera_only:
            self.camera.read_again()
        self._round, self._round_gates = key, tuple(current["marbles"]) if current else ()

    def _keep_if_revealed(self, view: dict[str, Any], key: tuple[int, int] | None) -> None:
        """Photo keeping: a round the table accepted (the token revealed, so its marbles were confirmed by the
        camera's agreement or corrected by tap) is a labelled photo; its frame goes to the keeper."""
        current = view["state"].get("current")
        seen, previous = self._round_seen, self._round
        photo = self._photo_seen[1] if self._photo_seen is not None and self._photo_seen[0] == previous else None
        if current is not None and current.get("token") is not None and key == previous:
            self._keep(view["id"], current, photo)  # revealed, waiting for the guesses turned over
        elif key != previous and previous is not None and seen is not None and seen[0] == previous \
                and (last := view["state"].get("last_round")) and (view["id"], last["number"]) == previous:
            self._keep(view["id"], {**seen[1], "marbles": last["marbles"]}, photo)  # revealed and scored at once
        if current is not None and current.get("token") is None:
            self._round_seen = (key, current)  # what the camera read and what stands, until the reveal
            standing = self._photo_standing(key, current)
            self._photo_seen = None if standing is None else (key, standing)
            self._kept.discard((view["id"], current["number"]))  # an undone reveal is kept again once redone

    def _photo_standing(self, key: tuple[int, int] | None, current: dict[str, Any]) -> dict[str, Any] | None:
        """The camera reading a round's marbles are judged by: the round's own; or, once a person confirmed the
        round and enters its marbles by tap ("Clear, enter by tap"; a tap drops the round's reading), the reading
        they are correcting, while no beam has seen a marble since (one rolled after the photo: it shows no longer
        what the table confirms). None when there is none."""
        if current.get("camera") is not None:
            return {**current["camera"], "by_person": all(s == "tap" for s in current.get("sources", ()))}
        seen = self._photo_seen
        if seen is not None and seen[0] == key and seen[1]["by_person"] \
                and all(s == "tap" for s in current.get("sources", ())):
            return seen[1]
        return None

    def _keep(self, session_id: int, accepted: dict[str, Any], photo: dict[str, Any] | None = None) -> None:
        """Hand the accepted round to the keeper with the frame of its camera reading: the round's own, else
        ``photo``, the reading a person corrected by tap (``_photo_standing``)."""
        keeper, reading = self.keeper, self._readings.get(session_id)
        camera = accepted.get("camera") or photo
        round_key = (session_id, accepted["number"])
        if not keeper.enabled or reading is None or camera is None or round_key in self._kept \
                or round_key in self._crowded:
            return
        if list(reading.detection.counts) != camera["counts"]:
            return  # the reading in the round is not the last frame seen (another session's): no label for it
        from hardware.camera.hub import held_gates
        from hardware.camera.keeping import Sample

        self._kept.add(round_key)
        gates = accepted["marbles"]
        unsure = camera.get("unsure")  # the gates the camera was unsure of, by number
        flags = tuple(gate in unsure for gate in range(1, 7)) if isinstance(unsure, list) else None
        try:
            keeper.keep(Sample(
                frame=reading.frame, reference=reading.reference, gates=reading.regions.to_json(),
                counts=tuple(sum(1 for g in gates if g == gate) for gate in range(1, 7)),
                camera_counts=tuple(camera["counts"]), marble_radius=reading.marble_radius,
                session=session_id, round=accepted["number"], confirmed_at=time.time(),
                camera_unsure=flags,
                reference_holds=tuple(sorted({*held_gates(reading.detection.left), *reading.held}))))
        except Exception:  # keeping a photo never breaks the tap that revealed the round
            log.exception("photo keeping failed for game %s round %s", *round_key)

    def beams_idle(self) -> bool:
        blocked = self.gates is not None and any(g.get("blocked") for g in self.gates.status()["gates"])
        return not blocked and time.monotonic() - self.last_marble_at > IDLE_AFTER_S

    def round_empty(self) -> bool:
        return not self._round_gates

    def round_gates(self) -> tuple[int | None, ...]:
        """The gates of the running round's marbles so far."""
        return self._round_gates

    # readings
    def on_marble(self, reading: Any) -> None:
        """A marble recognised by a gate: score it in the running Diego round, or only show it."""
        self.last_marble_at = time.monotonic()
        session_id, why_not = self.castle_owner.submit({"type": "marble", "gate": reading.gate}, "sensor")
        self.last_marble = {"gate": reading.gate, "width_ms": round(reading.width_ms, 2), "at": reading.at,
                            "scored": why_not is None, "session": session_id, "note": why_not}
        self.table.bus.publish(SENSORS_TOPIC, "marble", self.last_marble)
        self.publish_status()
        if why_not is None and self.camera is not None and not self.camera.camera_only:
            self.camera.marble_seen(len(self._round_gates))

    def on_camera_reading(self, detection: Any, photo: bytes) -> None:
        """Where the camera sees the marbles rest: a "camera" event in the running round (rulings D3, D4).

        A picture gone wrong (a camera knocked aside, against its empty reference) can show far more "marbles" than
        a camera event may hold: each number is given as the most it may hold, its gate unsure, so that the round is
        flagged for a tap (more than 3 marbles, D4) instead of the reading being refused and lost."""
        from companion.games.diego import MAX_CAMERA_COUNT

        counts = [min(c, MAX_CAMERA_COUNT) for c in detection.counts]
        unsure = [bool(u) or c > MAX_CAMERA_COUNT for u, c in zip(detection.unsure, detection.counts)]
        event = {"type": "camera", "counts": counts, "outside": min(detection.outside, MAX_CAMERA_COUNT),
                 "unsure": unsure}
        session_id = self.castle_owner.holder
        if session_id is not None and photo:
            self.photos[session_id] = photo  # before the event, so the page finds it when it asks
        if session_id is not None and self.camera is not None and self.camera.last_reading is not None:
            self._readings[session_id] = self.camera.last_reading  # the frame, should the round be kept
        session_id, why_not = self.castle_owner.submit(event, "camera")
        self.table.bus.publish(SENSORS_TOPIC, "camera", {**event, "session": session_id, "note": why_not})

    # simulation
    def roll(self, gate: int | None, width_ms: float, chatter: bool) -> None:
        """Simulation only: a marble through gate `gate` (a beam pulse), or past every gate (None)."""
        if self.castle is not None:  # at rest in the castle before the beam's photo timer starts
            self.castle.add_marble(gate)
        if gate is not None and self.gates is not None:
            self.simulator.roll(gate, width_ms=width_ms, chatter=chatter)
            if not self.gates.flush(timeout=5.0):
                log.warning("simulated marble through gate %d not judged within 5 s", gate)
        if self.castle is not None:
            if gate is None and self.camera is not None and not self.camera.camera_only:
                self.camera.marble_seen(len(self._round_gates) + 1)

    def close(self) -> None:
        if self.camera is not None:
            self.camera.close()
        self.keeper.close()
        if self.gates is not None:
            self.gates.close()


def _crowded(current: dict[str, Any]) -> bool:
    """Whether a Diego round's view reports more marbles than a round holds, by the beams or the camera."""
    camera = current.get("camera") or {}
    seen = sum(camera.get("counts") or ()) + (camera.get("outside") or 0)
    return max(len(current.get("marbles") or ()), seen) > MARBLES


def start_sensors(app: Flask, table: Table, castle: Castle) -> Sensors:
    """Start the gates and the camera per app.config.

    SENSORS is auto | simulation | hardware | off; CAMERA is a frame source spec, "simulation" or "off"
    (default: the simulated castle in simulation, picamera2 on a Pi); BEAMS False means no beams are fitted
    and the camera alone fills in the rounds. A wrong pin configuration (a pin used twice, not a GPIO pin) or
    camera spec raises ValueError, which stops the start with one line; a device that fails to open is
    reported on the page, never fatal.
    """
    setting = app.config["SENSORS"]
    mode = detect_mode() if setting == "auto" else setting  # "off": nothing simulated, nothing opened
    sensors = Sensors(mode, table, castle, _photo_keeper(app))
    table.watch(sensors.on_view)
    sensors.follow_holder()  # before the gates and the camera start: a round left with marbles in it is not empty
    if setting == "off":
        sensors.gates_error = "sensors are switched off"
        sensors.camera_error = ("the sensors are switched off (companion serve --sensors off): start the companion "
                                "without --sensors off to set the camera up")
        return sensors
    beams = bool(app.config.get("BEAMS", True))
    if beams:
        _start_gates(app, sensors)
    else:
        sensors.gates_error = "no beams fitted: the camera alone fills in the rounds"
    # On the Pi the vision stream is a 640x480 lores stream: the marble detector is markedly surer at
    # 640x480 than at 320x240 and costs the same per frame (see bench/bench_vision.py).
    camera = app.config.get("CAMERA") or ("simulation" if mode == "simulation" else "picamera2:640x480")
    if camera != "off":
        try:
            _start_camera(app, sensors, camera, camera_only=sensors.gates is None)
        except ValueError:
            sensors.close()  # a configuration mistake: stop what started, then say so
            raise
    else:
        sensors.camera_error = ("the camera is switched off (companion serve --camera off, or source = \"off\" under "
                                "[camera] in the config file): to set it up, start the companion with a camera: "
                                "--camera picamera2 on a Pi, usb:0 for a webcam")
    return sensors


def _start_gates(app: Flask, sensors: Sensors) -> None:
    from hardware.gates import GateArray, GateConfig  # imported only when sensors run

    config = GateConfig(**app.config.get("GATES", {}))
    factory = None
    if sensors.mode == "simulation":
        from gpiozero.pins.mock import MockFactory

        from hardware.simulator import MarbleSimulator

        factory = MockFactory()
        sensors.simulator = MarbleSimulator(factory, config.pins)
    gates = GateArray(config, sensors.on_marble, pin_factory=factory, on_change=sensors.publish_status)
    try:
        gates.start()
    except Exception as err:  # a missing pin library or a busy line must not stop the kiosk
        if isinstance(err, ValueError):
            raise
        sensors.gates_error = f"the gates could not start: {err}"
        log.error("%s", sensors.gates_error)
        return
    sensors.gates = gates
    log.info("gates on pins %s (%s)", ", ".join(map(str, config.pins)), sensors.mode)


def _photo_keeper(app: Flask) -> PhotoKeeper:
    """The keeper of the confirmed rounds' photos, made whether or not a camera runs: photos kept before can be
    downloaded and deleted with the camera off or unplugged, and keeping switched off."""
    from hardware.camera.keeping import DEFAULT_LIMIT

    data = Path(app.config["DATA_DIR"])
    return PhotoKeeper(data / "photos", data / "camera" / "photo-keeping.json",
                       enabled=bool(app.config.get("CAMERA_KEEP_PHOTOS", False)),
                       limit=int(app.config.get("CAMERA_KEEP_MAX", DEFAULT_LIMIT)))


def _start_camera(app: Flask, sensors: Sensors, spec: str, camera_only: bool) -> None:
    from hardware.camera.hub import CameraHub
    from hardware.camera.marble_size import DEFAULT_MARBLE_MM
    from hardware.camera.markers import DEFAULT_MARKER_MM
    from hardware.camera.service import CameraService
    from hardware.camera.sources import MAINS_HZ, open_source

    default_regions = default_marble = None
    if spec == "simulation":
        from hardware.camera.simulated import SimulatedCameraSource, SimulatedCastle

        sensors.castle = SimulatedCastle()
        source: Any = SimulatedCameraSource(sensors.castle)
        default_regions, default_marble = sensors.castle.regions(), sensors.castle.marble_size()
    else:
        source = open_source(spec, mains_hz=int(app.config.get("CAMERA_MAINS_HZ", MAINS_HZ)))  # ValueError: bad spec
    data_dir = Path(app.config["DATA_DIR"]) / "camera"
    data_dir.mkdir(parents=True, exist_ok=True)
    service = CameraService(source, fps=float(app.config.get("CAMERA_FPS", 5.0)), on_change=sensors.publish_status)
    hub = CameraHub(service, data_dir, on_reading=sensors.on_camera_reading, default_regions=default_regions,
                    default_marble=default_marble,
                    camera_only=camera_only, beams_idle=sensors.beams_idle, round_empty=sensors.round_empty,
                    round_gates=sensors.round_gates,
                    settle_s=float(app.config.get("CAMERA_SETTLE_S", 1.5)),
                    last_marble_settle_s=float(app.config.get("CAMERA_LAST_MARBLE_SETTLE_S", 0.6)),
                    marker_mm=float(app.config.get("CAMERA_MARKER_MM", DEFAULT_MARKER_MM)),
                    marble_mm=float(app.config.get("CAMERA_MARBLE_MM", DEFAULT_MARBLE_MM)),
                    on_change=sensors.publish_status)
    hub.start()
    sensors.camera = hub
    log.info("camera %s set up (%s); whether it gives pictures: the Camera page, /api/health", source.name,
             "alone" if camera_only else "confirming the beams")

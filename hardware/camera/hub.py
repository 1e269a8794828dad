"""The camera hub: preview with overlay, calibration, the empty reference and the confirmation frames
that confirm or correct the beams (rulings D3, D4).

Beams fitted: a marble seen by a gate schedules a confirmation frame once the marbles have settled
(sooner after the third); a marble the confirmation frames still see rolling is waited for, a moment at a
time, and its gate left unsure if it does not rest. No beams: a watcher reports the marbles once they rest, a
gate whose picture still changed meanwhile unsure. Either way the reading goes to `on_reading`, which the
composition root turns into a Diego "camera" event.

Importing this module loads neither cv2 nor numpy (the web layer imports it for its error types); they
load with the first hub.
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from hardware.camera.focus import soft_message
from hardware.camera.marble_size import (
    DEFAULT_MARBLE_MM,
    MarbleSize,
    MarbleSizeError,
    measure_radius_at,
    size_from_markers,
)
from hardware.camera.markers import DEFAULT_MARKER_MM, MarkerAnchor, MarkerError
from hardware.vision.consensus import CONFIRM_FRAMES, consensus
from hardware.vision.regions import GateRegion, GateRegions, RegionsError, load_regions, save_regions
from hardware.vision.rest import RestWatcher

if TYPE_CHECKING:
    import numpy as np

    from hardware.camera.service import CameraService
    from hardware.vision.detect import Detection, Marble, MarbleDetector

log = logging.getLogger(__name__)

Reading = Callable[["Detection", bytes], None]


class NoPicture(RuntimeError):
    """The camera has not delivered a picture yet (starting, or down)."""


class NotEmpty(RuntimeError):
    """The empty reference was asked for while marbles lie in the gates: the round's, or those the camera sees."""


class NoMarble(RuntimeError):
    """A tap meant to measure a marble found none there."""


UNSURE_WITHOUT_REFERENCE = (
    "No empty reference yet: the counts are unsure, any object resting on the table may count as marbles. "
    "It is taken by itself once the gates are empty and no marble rolls; or clear the gates and tap "
    "\u201cGates empty: take reference\u201d.")

WAITING_FOR_REST = "marbles seen: the camera scores them once they come to rest"

MISSED_WHILE_DOWN = ("the camera was down when the marbles came to rest: it reads them once it gives pictures "
                     "again (until then the gates' count stands)")

HOLDS_MARBLES = (
    "The empty reference shows {marbles} no longer there: it was taken with marbles in the gates. {waiting} until it "
    "is taken again: with the gates empty, tap \u201cGates empty: take reference\u201d, or the camera takes it by "
    "itself once the empty castle has held still for {minutes:g} minutes.")

NOISY_PICTURE = (
    "The picture is far noisier than the empty reference (a room gone dim, the camera's gain turned up): {waiting}. "
    "More light on the castle helps.")

OVEREXPOSED_PICTURE = (
    "The picture is over-exposed over much of the castle where the empty reference was not (the light on it grew "
    "brighter): {waiting}. Less light on the castle helps, or a new reference: with the gates empty, tap \u201cGates "
    "empty: take reference\u201d, or the camera takes it by itself once the empty castle has held still for "
    "{minutes:g} minutes.")


def gates_named(gates: list[int]) -> str:
    """Gates by number as a sentence names them: "gate 6", "gates 1, 6"."""
    return f"gate{'' if len(gates) == 1 else 's'} {', '.join(map(str, gates))}"


def waiting(gates: list[int] | None, camera_only: bool) -> str:
    """What the gates the camera is unsure of come to (``gates``, None for every gate), in words: with the camera
    alone each waits for a tap (ruling D4); with beams the beams' count stands there (the camera's doubt flags a round
    only where its counts disagree with them)."""
    one = gates is None or len(gates) == 1
    some = "every gate" if gates is None else gates_named(gates)
    if camera_only:
        return f"{some} wait{'s' if one else ''} for a tap"
    return f"{some} {'is' if one else 'are'} left to the beams"


@dataclass(frozen=True)
class ReadingFrame:
    """What a reading was made from: the frame, the empty reference, the regions and radius used; ``held``: the gates
    that held the round's marbles when that reference was taken (taken "anyway" in the running round)."""

    frame: np.ndarray
    reference: np.ndarray | None
    regions: GateRegions
    marble_radius: float | None
    detection: Detection
    held: tuple[int, ...] = ()


def _agreed(readings: list[ReadingFrame]) -> ReadingFrame:
    """One reading of a few frames of the same resting marbles (``hardware.vision.consensus``), with the
    picture of the frame whose marbles it lists."""
    detection, best = consensus([r.detection for r in readings])
    return replace(readings[best], detection=detection)


STILL_TRIES = 3
"""Confirmations read, ``still_wait_s`` apart, while a marble still rolls, before its gate is left unsure (see
``bench.bench_real_sequence.confirmations``)."""

NOTHING_MOVED: tuple[bool, ...] = (False,) * 6

TAP_SLACK_PX = 2.0
"""How far (pixels) a gate tapped on the picture may reach past its edge before it is refused as not tapped on it."""


def _flag_gates(reading: ReadingFrame, doubted: tuple[bool, ...]) -> ReadingFrame:
    """``reading`` with the gates of ``doubted`` (gate 1 first) unsure: where the picture still changed, where the empty
    reference may hold a marble."""
    if not any(doubted):
        return reading
    d = reading.detection
    unsure = tuple(u or m for u, m in zip(d.unsure, doubted))
    return replace(reading, detection=replace(d, unsure=unsure))  # type: ignore[arg-type]


MARKER_CHECK_S = 5.0  # how often the preview looks for the markers again
CAMERA_MOVED_PX = 3.0  # a shift (|dx| + |dy|) of the picture beyond this makes the empty reference stale

UNSURE_EMPTY_HOLD_S = 120.0
"""A picture that reads no marble but leaves a gate unsure refreshes the empty reference only once it has held
still this long (the gates' picture the same from check to check, ``_same_picture``). Between rounds a hand or a
sleeve over the castle reads as no marble with its gates unsure (the simulated castle: a sleeve over its front
gates did so), and taken as the reference it would blind those gates until the next refresh; a hand moves on,
while a lamp switched on stays and is followed."""


STILL_LEVELS = 12
"""Grey levels (of 255) a pixel of the gates' picture, shrunk four times, changes by between two checks of a still
picture at most: the sensor's noise, shrunk, and a slow change of light stay well under it."""

STILL_SHARE = 0.01
"""The share of those pixels that may change by more: a hand moving over the castle changes far more."""


def _same_picture(a: np.ndarray, b: np.ndarray, bounds: tuple[float, float, float, float]) -> bool:
    """True when the picture within ``bounds`` (x0, y0, x1, y1) is the same in ``a`` and ``b`` but for noise."""
    import cv2
    import numpy as np

    if a.shape != b.shape:
        return False
    h, w = a.shape[:2]
    x0, y0 = max(0, int(bounds[0])), max(0, int(bounds[1]))
    x1, y1 = min(w, int(math.ceil(bounds[2])) + 1), min(h, int(math.ceil(bounds[3])) + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return True
    small = [cv2.resize(cv2.cvtColor(f[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), ((x1 - x0) // 4, (y1 - y0) // 4),
                        interpolation=cv2.INTER_AREA) for f in (a, b)]
    return float(np.mean(cv2.absdiff(*small) > STILL_LEVELS)) <= STILL_SHARE


def _fewer_doubts(unsure: tuple[bool, ...], before: tuple[bool, ...]) -> bool:
    """The gates in doubt are some of those ``before``, not all of them."""
    return unsure != before and not any(u and not b for u, b in zip(unsure, before))


def held_gates(left: tuple[Marble, ...]) -> list[int]:
    """The gates, in order, where the empty reference holds a marble the picture no longer does (``left``)."""
    return sorted({m.gate for m in left if m.gate is not None})


def _holds_marbles(left: tuple[Marble, ...], camera_only: bool) -> str:
    """``HOLDS_MARBLES`` for the marbles the empty reference holds that the picture no longer does, some in a gate."""
    those = waiting(held_gates(left), camera_only)
    return HOLDS_MARBLES.format(marbles="a marble" if len(left) == 1 else f"{len(left)} marbles",
                                waiting=those[0].upper() + those[1:], minutes=UNSURE_EMPTY_HOLD_S / 60.0)


def _shift_px(a: GateRegions, b: GateRegions) -> float:
    """The largest displacement (|dx| + |dy|, pixels) between corresponding corners of two region sets."""
    return max((abs(p[0] - q[0]) + abs(p[1] - q[1]) for ra, rb in zip(a.gates, b.gates)
                for p, q in zip(ra.polygon, rb.polygon)), default=0.0)


def _overlay_jpeg(reading: ReadingFrame) -> bytes:
    """JPEG of a reading's frame with its gate regions and counts drawn on it (b"" if it cannot be encoded)."""
    import cv2

    from hardware.vision.overlay import draw_overlay

    overlay = draw_overlay(reading.frame, reading.regions, reading.detection)
    ok, jpeg = cv2.imencode(".jpg", overlay, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return jpeg.tobytes() if ok else b""


class CameraHub:
    """Runs the vision loop beside a CameraService and keeps the calibration and the empty reference."""

    def __init__(self, service: CameraService, data_dir: Path, *, on_reading: Reading,
                 default_regions: GateRegions | None = None, default_marble: MarbleSize | None = None,
                 camera_only: bool = False,
                 settle_s: float = 1.5, last_marble_settle_s: float = 0.6, vision_fps: float = 3.0,
                 confirm_gap_s: float = 0.15, still_wait_s: float = 0.5, still_tries: int = STILL_TRIES,
                 beams_idle: Callable[[], bool] = lambda: True,
                 round_empty: Callable[[], bool] = lambda: True,
                 round_gates: Callable[[], Sequence[int | None]] = tuple,
                 marker_mm: float = DEFAULT_MARKER_MM, marble_mm: float = DEFAULT_MARBLE_MM,
                 on_change: Callable[[], None] | None = None) -> None:
        self.service = service
        self.camera_only = camera_only
        self.settle_s = settle_s
        self.last_marble_settle_s = last_marble_settle_s
        self.confirm_gap_s = confirm_gap_s
        self.still_wait_s = still_wait_s
        self.still_tries = still_tries
        self._on_reading = on_reading
        self._on_change = on_change
        self._beams_idle = beams_idle
        self._round_empty = round_empty
        self._round_gates = round_gates
        from hardware.camera.reference import ReferenceStore

        self._interval = 1.0 / vision_fps
        self.regions_path = data_dir / "gates.json"
        self.anchor_path = data_dir / "markers.json"
        self.marble_path = data_dir / "marble.json"
        self.marker_mm = marker_mm
        self.marble_mm = marble_mm
        # Refreshed at most every 5 minutes: light drifts slowly, and the SD card is spared.
        self.reference = ReferenceStore(data_dir / "empty-reference.png", min_interval=300.0)
        self._lock = threading.RLock()
        # the simulated castle's gates and marble size, used until a calibration is saved
        self._default_regions = default_regions
        self._default_marble = default_marble
        self._regions: GateRegions | None = None
        self._regions_source = "none"
        self._anchor: MarkerAnchor | None = None
        self._marker_check: dict[str, Any] | None = None
        self._moved: GateRegions | None = None  # the regions moved by the last marker check
        # a move dropped the empty reference: with the camera alone, marbles may rest unseen in the gates, so the
        # new one is taken only from a picture that reads empty (the first one, at set-up, as early as it may be)
        self._retake_when_empty = False
        self._reference_regions: GateRegions | None = None  # where they were when the reference was taken
        self._unsure_empty: tuple[np.ndarray, float] | None = None  # a still, unsure, empty run: last picture, start
        self._detector: MarbleDetector | None = None
        self._detector_inputs: tuple[Any, Any, Any] = (None, None, None)  # regions, reference, radius
        self._marble: MarbleSize | None = None
        self._marble_error: str | None = None
        self._moved_note: str | None = None  # the camera moved without markers: until the reference is taken again
        self._guess_warned = False
        self.last_reading: ReadingFrame | None = None  # the frame of the last reading sent to `on_reading`
        self._last: Detection | None = None
        #: What the preview draws (the frame, its regions, its detection), and the preview once drawn: the
        #: overlay and its JPEG are made when a page asks for them, not for every frame the vision reads.
        self._seen: ReadingFrame | None = None
        self._preview: bytes | None = None
        self._error: str | None = None
        self._timer: threading.Timer | None = None
        self._marbles_seen = 0  # marbles the gates saw: a confirmation reads for the last of them only
        self._missed = False  # the last confirmation found the camera down
        #: the empty reference taken "anyway" while the running round held marbles: the gates they were in (None
        #: when it was not), until that round is over
        self._held_in_round: tuple[int, ...] | None = None
        #: the empty reference was taken by itself before any gate was calibrated: nothing could check that the
        #: gates were empty (a marble lying in one then stays unseen, the refreshes keep it); a person's word ends it
        self._reference_unchecked = False
        self._rest = RestWatcher()
        self._run: list[ReadingFrame] = []  # camera alone: the last frames of the same counts, for their flags
        self._rest_reported: tuple[tuple[tuple[int, ...], int], tuple[bool, ...]] | None = None  # (seen, flags)
        self._read_again = threading.Event()  # the round's reading was undone: report the marbles at rest anew
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._load_calibration()

    # lifecycle
    def start(self) -> None:
        self.service.start()
        self._thread = threading.Thread(target=self._loop, name="camera-vision", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.service.close()

    # calibration
    def _load_calibration(self) -> None:
        try:
            if self.regions_path.exists():
                self._regions, self._regions_source = load_regions(self.regions_path), "tap"
            elif self._default_regions is not None:
                self._regions, self._regions_source = self._default_regions, "simulation"
            if self.anchor_path.exists():
                self._anchor = MarkerAnchor.load(self.anchor_path)
                self._regions_source = "markers"
        except (RegionsError, MarkerError, OSError) as err:
            self._error = f"calibration could not be read: {err}; calibrate again on the camera page"
            log.error("%s", self._error)
        try:
            if self.marble_path.exists():
                self._marble = MarbleSize.load(self.marble_path)
            elif self._anchor is not None:  # anchored before the marble's size was kept: measure it now
                self._save_marble(self._size_from_anchor(self._anchor))
            else:
                self._marble = self._default_marble
        except (MarbleSizeError, OSError) as err:
            self._marble_error = f"{err}; anchor to the markers or tap a marble again"
            log.error("%s", self._marble_error)

    def _changed(self) -> None:
        """Tell the pages that what they show changed (the empty reference, the marble's size)."""
        if self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                log.exception("camera on_change callback failed")

    def _size_from_anchor(self, anchor: MarkerAnchor) -> MarbleSize:
        return size_from_markers(anchor.markers, marker_mm=self.marker_mm, marble_mm=self.marble_mm)

    def _save_marble(self, size: MarbleSize) -> None:
        size.save(self.marble_path)
        with self._lock:
            self._marble, self._marble_error = size, None
        log.info("marble radius %.1f px (from the %s)", size.radius_px, size.source)
        self._changed()

    @property
    def marble_radius(self) -> float | None:
        """The saved marble radius in frame pixels, None when it was never measured."""
        size = self._marble
        return None if size is None else size.radius_px

    def set_regions(self, data: Any) -> GateRegions:
        """Save gate polygons tapped on a snapshot; RegionsError names what is wrong: the data, two gates that
        overlap, or a gate beyond the camera's picture (nothing is saved then)."""
        regions = GateRegions.from_json(data)
        if overlaps := regions.overlapping():
            a, b, share = overlaps[0]
            raise RegionsError(f"gates {a} and {b} overlap ({share:.0%} of the smaller one): a marble there would "
                               f"count in gate {a} only. Tap them again so that they meet only at their border")
        radius = self.marble_radius  # a gate that could not hold one marble: a slip of the finger, not its corners
        if radius and (small := [g.gate for g in regions.gates if g.area() < math.pi * radius * radius]):
            raise RegionsError(f"{gates_named(small)} {'is' if len(small) == 1 else 'are'} smaller than one marble "
                               f"(radius {radius:.0f} px): a marble in it would count outside. Tap its four corners "
                               "again")
        frame = self.service.latest()
        # a corner more than TAP_SLACK_PX beyond the picture: not tapped on it
        if frame is not None and (beyond := regions.near_picture_edge(frame.shape[1], frame.shape[0], -TAP_SLACK_PX)):
            raise RegionsError(f"{gates_named(beyond)} reach{'es' if len(beyond) == 1 else ''} beyond the camera's "
                               f"{frame.shape[1]}x{frame.shape[0]} picture: tap every gate on the picture")
        save_regions(regions, self.regions_path)
        with self._lock:
            self._regions, self._regions_source = regions, "tap"
            self._anchor = self._moved = self._moved_note = None
        self.anchor_path.unlink(missing_ok=True)
        return regions

    def anchor_to_markers(self) -> dict[str, Any]:
        """Anchor the saved regions to the four ArUco markers seen now (the regions then follow the camera)."""
        frame = self._picture_now()
        if self._regions is None:
            raise MarkerError("tap the gate regions first, then anchor them to the markers")
        try:
            anchor = MarkerAnchor.from_frame(frame)
        except MarkerError as err:
            if self._default_regions is None:  # only the simulated castle brings gates of its own
                raise
            raise MarkerError(f"{err}: the simulated castle has no printed markers. With a camera, stick the four "
                              "printed markers (companion markers) on the castle first") from err
        anchor.save(self.anchor_path)
        with self._lock:
            self._anchor, self._regions_source, self._moved = anchor, "markers", None
        try:  # the markers' printed size gives the scale: the marble's size follows from its diameter
            self._save_marble(self._size_from_anchor(anchor))
        except MarbleSizeError as err:
            self._marble_error = str(err)
        except OSError as err:  # the anchor is saved and in use: say what was not, rather than that nothing was
            self._marble_error = f"the anchor is saved, but not the marble's size: {err.strerror or err}"
        self.current_regions(frame)
        return {**(self._marker_check or {}), "marble": self.marble_status()}

    def measure_marble(self, x: float, y: float) -> dict[str, Any]:
        """Measure the marble under a tap at (x, y) (frame pixels) in the current picture and save its radius.

        NoPicture without a picture, MarbleSizeError without an empty reference, NoMarble when the tap hit
        nothing marble-sized, ValueError for a point outside the picture."""
        frame = self._picture_now()
        size = measure_radius_at(frame, x, y, self.reference.get())
        if size is None:
            raise NoMarble("no marble found where the picture was tapped: tap the middle of one marble resting in a "
                           "gate (the marble must not be in the empty reference)")
        self._save_marble(size)
        return self.marble_status()

    def _picture_now(self) -> np.ndarray:
        """The camera's picture for a person's action (the empty reference, the anchor, a marble's size): never
        the last picture of a camera that is down or hangs, which may show the table as it was long ago."""
        frame = self.service.latest()
        if frame is None:
            raise NoPicture("the camera has no picture yet")
        camera = self.service.status()
        if not camera.get("ok"):
            raise NoPicture(f"the camera gives no picture now ({camera.get('error') or camera.get('state')}); "
                            "nothing was changed: try again once it is back")
        return frame

    def marble_status(self) -> dict[str, Any]:
        """The marble's size as the page shows it: radius, how it was measured, or the guess in use."""
        size = self._marble
        if size is not None:
            return {**size.to_dict(), "error": self._marble_error}
        return {"radius_px": None, "source": "guess", "measured_at": None, "px_per_mm": None,
                "error": self._marble_error}

    def capture_reference(self, *, anyway: bool = False) -> dict[str, Any]:
        """Take the current picture as the empty reference (a person says the gates are empty). Unless ``anyway``,
        refused (``NotEmpty``) while the running round holds marbles, or the camera sees marbles in the gates against
        the reference it has: taken with marbles in it, they would vanish from the readings, and once taken out read
        as marbles where there are none (ruling D4). ``anyway``: the person has looked, the gates are empty (the
        camera's old reference is what is wrong)."""
        frame = self._picture_now()
        if not anyway:
            with self._lock:
                last = self._last  # what the vision loop read of the latest picture: the Camera page shows it too
            # in the gates: a marble beside the castle (or a marker stuck on after) is no marble of a round
            seen = sum(last.counts) if last is not None and last.with_reference else 0
            if not self._round_empty():
                now = f", and the camera sees {seen} in the gates now" if seen else ""
                raise NotEmpty(f"The running round holds marbles{now}: take the empty reference between rounds, once "
                               "the marbles are out of the castle (or, if its gates are empty now, take it anyway).")
            if seen:
                raise NotEmpty(f"The camera sees {seen} marble{'s' if seen > 1 else ''} in the gates: take "
                               f"{'them' if seen > 1 else 'it'} out of the castle first (or, if the gates are empty "
                               "and the camera is wrong, take it anyway).")
        held = tuple(sorted({g for g in self._round_gates() if g is not None})) if not self._round_empty() else None
        self.reference.clear()  # a person's word replaces the old reference at once
        self.reference.offer(frame, beams_idle=True, regions_empty=True, now=time.time())
        self._reference_regions, self._moved_note = self._moved, None
        self._held_in_round = held  # the page says it, and those gates are unsure, until the round is over
        self._reference_unchecked = False
        self._changed()
        return self.reference.status()

    def current_regions(self, frame: np.ndarray | None = None, *, recheck: bool = True) -> GateRegions | None:
        """The gate regions in the current frame: moved by the markers when anchored.

        The markers are looked for again when `recheck` (a confirmation frame, or every few seconds for
        the preview), so a bumped camera is followed; in between the last homography is reused.
        """
        with self._lock:
            regions, anchor, moved = self._regions, self._anchor, self._moved
        if regions is None or frame is None:
            return regions
        if anchor is None:
            return self._follow_the_picture(frame, regions) if recheck else regions
        if recheck or moved is None:
            check = anchor.check(frame)
            self._marker_check = check.to_dict()
            polygons = anchor.project([r.polygon for r in regions.gates], check)
            moved = regions if polygons is None else GateRegions(tuple(
                GateRegion(r.gate, tuple((float(x), float(y)) for x, y in p))
                for r, p in zip(regions.gates, polygons)))
            with self._lock:
                self._moved = moved
        return moved

    def _follow_the_picture(self, frame: np.ndarray, regions: GateRegions) -> GateRegions:
        """Without markers (gates tapped, or the simulated castle's): when the picture moved against the empty
        reference by more than ``CAMERA_MOVED_PX`` (a nudged camera), the gates are moved with it and saved, and the
        reference is taken again (``hardware.camera.drift``)."""
        from hardware.camera.drift import picture_shift
        from hardware.vision.detect import estimate_marble_radius

        reference = self.reference.get()
        if reference is None or self._regions_source not in ("tap", "simulation"):  # the simulated castle's gates
            return regions  # stand for tapped ones
        shift = picture_shift(reference, frame, regions.bounds(), self.marble_radius or estimate_marble_radius(regions))
        if shift is None:
            return regions
        moved = regions.shifted(*shift)
        if _shift_px(moved, regions) <= CAMERA_MOVED_PX:  # measured as the markers' moves are
            return regions
        with self._lock:
            if self._regions is not regions:  # another thread followed the same nudge first
                return self._regions or moved
            self._regions = moved
        save_regions(moved, self.regions_path)
        self.reference.clear()
        self._retake_when_empty = True
        self._moved_note = (f"The camera moved by {shift[0]:+.0f}, {shift[1]:+.0f} px (right, down) at "
                            f"{time.strftime('%H:%M')}: the gates were moved with it; the empty reference is taken "
                            "again once the gates are empty. Check the gates on the picture.")
        log.info("the camera moved by %+.1f, %+.1f px: the gates follow, the empty reference is taken again", *shift)
        self._changed()
        return moved

    # detection
    def _detector_for(self, regions: GateRegions) -> tuple[MarbleDetector, np.ndarray | None, float | None]:
        """A detector for these regions, the current reference and the saved marble radius, rebuilt only when
        one of them changes; with the reference and the radius it uses."""
        from hardware.vision.detect import MarbleDetector

        reference = self.reference.get()
        radius = self.marble_radius
        with self._lock:
            inputs = (regions, reference, radius)
            built_for = self._detector_inputs
            if self._detector is None or any(a is not b for a, b in zip(inputs, built_for)):
                if radius is None and not self._guess_warned:
                    self._guess_warned = True
                    log.warning("the marble's size is not measured: guessed from the gate regions, which is often "
                                "far off; anchor to the markers or tap a resting marble on the Camera page")
                self._detector = MarbleDetector(regions, reference, marble_radius_px=radius)
                self._detector_inputs = inputs
            return self._detector, reference, radius

    def detect(self, frame: np.ndarray, *, recheck_markers: bool = True) -> ReadingFrame | None:
        """Count the marbles in `frame`: the detection with what it was made from; None when not calibrated."""
        regions = self.current_regions(frame, recheck=recheck_markers)
        if regions is None:
            return None
        detector, reference, radius = self._detector_for(regions)
        held = self._held_in_round or ()
        reading = ReadingFrame(frame, reference, regions, radius, detector.detect(frame), held)
        # a marble the reference was taken with reads as no marble while it stays: its gate waits for a person (D4)
        return _flag_gates(reading, tuple(gate in held for gate in range(1, 7)))

    def _report(self, reading: ReadingFrame) -> None:
        """Send a reading, with its photo (the frame with the overlay), to `on_reading`."""
        self.last_reading = reading  # before the callback, which may keep the frame of a confirmed round
        self._on_reading(reading.detection, _overlay_jpeg(reading))

    def marble_seen(self, marbles_in_round: int) -> None:
        """A gate saw a marble: take a confirmation frame once the marbles have settled."""
        with self._lock:
            self._marbles_seen += 1  # a confirmation under way now reads too early: the new one will read
            self._confirm_in(self.last_marble_settle_s if marbles_in_round >= 3 else self.settle_s)

    def _confirm_in(self, delay: float) -> None:
        """Read a confirmation ``delay`` seconds from now, instead of any due before (caller holds the lock)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(delay, self.confirm_now)
        self._timer.daemon = True
        self._timer.start()

    def read_again(self) -> None:
        """Camera alone: the round's reading was undone; the marbles at rest are read and reported anew (the same
        reading, or a better one once a marble moved)."""
        self._read_again.set()  # the vision loop forgets what it reported at its next frame

    def confirm_now(self) -> Detection | None:
        """Take ``CONFIRM_FRAMES`` settled frames ``confirm_gap_s`` apart, count the marbles in each and report
        their consensus (``hardware.vision.consensus``); None if the camera is down. Where the picture changed
        from the first frame to the last (a marble still rolling), wait ``still_wait_s`` and read again, at most
        ``still_tries`` times in all; a gate still moving then is unsure (ruling D4). A camera that stops after
        the first frame leaves the reading to the frames it gave. A marble seen by a gate meanwhile ends it with
        None: the confirmation that marble schedules reads instead. A camera down gives None too, and once it is
        back, while the round still holds marbles, it reads where they rest (ruling D3: where both are available,
        the camera decides)."""
        seen_before = self._marbles_seen
        readings: list[ReadingFrame] = []
        moving = NOTHING_MOVED
        for attempt in range(self.still_tries):
            if attempt and self._stop.wait(self.still_wait_s):
                return None
            fresh = self._confirmation_frames()
            if fresh is None:
                return None
            if not fresh:
                break  # the camera stopped: the frames read before, if any
            readings, moving = fresh, self._moving(fresh)
            if not any(moving):
                break
        if not readings or self._marbles_seen != seen_before:
            if not readings and self._marbles_seen == seen_before:  # the camera is down: it reads the round once back
                self._set_missed(True)
            return None  # the beams stay the live signal (ruling D3)
        self._set_missed(False)
        reading = _flag_gates(_agreed(readings), moving)
        self._report(reading)
        return reading.detection

    def _set_missed(self, missed: bool) -> None:
        """Note whether the round's marbles wait for the camera to be back (the pages are told)."""
        if missed != self._missed:
            self._missed = missed
            self._changed()

    def _confirmation_frames(self) -> list[ReadingFrame] | None:
        """Up to ``CONFIRM_FRAMES`` settled frames ``confirm_gap_s`` apart, read; fewer if the camera stops;
        None when not calibrated or closed meanwhile (the table may be gone)."""
        readings: list[ReadingFrame] = []
        for i in range(CONFIRM_FRAMES):
            if i and self._stop.wait(self.confirm_gap_s):
                return None
            frame = self.service.settled_frame(timeout=3.0)
            if frame is None:
                break
            result = self.detect(frame)
            if result is None or self._stop.is_set():
                return None
            readings.append(result)
        return readings

    def _moving(self, readings: list[ReadingFrame]) -> tuple[bool, ...]:
        """Per gate: the picture changed there from the first of ``readings`` to the last
        (``MarbleDetector.moved``); nothing when there is one, or their frames or gates differ."""
        if len(readings) < 2:
            return NOTHING_MOVED
        first, last = readings[0], readings[-1]
        if first.frame.shape != last.frame.shape or first.regions != last.regions:
            return NOTHING_MOVED
        try:
            return self._detector_for(last.regions)[0].moved(first.frame, last.frame)
        except ValueError as err:  # gates outside the picture: nothing to compare
            log.info("no check for moving marbles: %s", err)
            return NOTHING_MOVED

    def _loop(self) -> None:
        reference_checked = markers_checked = 0.0
        working = True
        while not self._stop.wait(self._interval):
            if self._missed and self._round_empty():
                self._set_missed(False)  # the round was scored by its gates meanwhile
            if self._held_in_round is not None and self._round_empty():  # that round is over: what the reference
                self._held_in_round = None  # holds shows in `reference_holds` once the marbles are out
                self._changed()
            # The last picture of a camera that is down or hangs is not read again: it would look like marbles at
            # rest, or like empty gates. The pages are told when the camera stops or starts giving pictures (a
            # camera that hangs says nothing itself).
            if self.service.status()["ok"] != working:
                working = not working
                self._changed()
                if working and self._missed and not self._round_empty():
                    with self._lock:  # the marbles the gates saw while it was down: the camera reads where they rest
                        self._confirm_in(self.settle_s)
            frame = self.service.latest()
            if frame is None or not working:
                continue
            recheck = time.monotonic() - markers_checked > MARKER_CHECK_S
            if recheck:
                markers_checked = time.monotonic()
            try:
                result = self.detect(frame, recheck_markers=recheck)
            except Exception as err:  # a bad frame must not end the loop
                self._error = f"vision failed on a frame: {err}"
                log.exception("vision failed")
                continue
            if result is None:  # not calibrated yet: the empty reference may be taken all the same
                if now_checked := self._refresh_reference(frame, None, reference_checked):
                    reference_checked = now_checked
                continue
            detection = result.detection
            with self._lock:
                note = self._unsure_note(), self._reference_holds()
                self._last, self._error = detection, None
                self._seen, self._preview = result, None
                note_changed = (self._unsure_note(), self._reference_holds()) != note
            if note_changed:  # the pages show it (and the Diego flag why its gates wait): tell them now, not later
                self._changed()
            if now_checked := self._refresh_reference(frame, detection, reference_checked):
                reference_checked = now_checked
            if self.camera_only:
                was_waiting = self._rest.waiting
                rested = self._follow_rest(result, time.monotonic())
                if rested is not None:
                    self._report(rested)
                if self._rest.waiting != was_waiting:
                    self._changed()

    def _follow_rest(self, result: ReadingFrame, now: float) -> ReadingFrame | None:
        """Camera alone: the reading to report when the marbles have just come to rest (``RestWatcher``; a frame
        whose picture changed since the one before, a marble still rolling, starts the wait again), else None.
        Its counts are those every frame of the rest read; its flags those most of its last ``CONFIRM_FRAMES``
        frames raised (``hardware.vision.consensus``), and the gates whose picture changed over them. The marbles
        reported still resting, their reading is reported again once fewer of its gates are in doubt (a marble
        reported while it crept on is sure once it stops, and the round's flag goes)."""

        def seen(r: ReadingFrame) -> tuple[tuple[int, ...], int]:
            return tuple(r.detection.counts), r.detection.outside

        if self._read_again.is_set():  # the round's reading was undone
            self._read_again.clear()
            self._rest.reset()
            self._rest_reported = None
        moving = bool(self._run) and any(self._moving([self._run[-1], result]))
        run = self._run if self._run and not moving and seen(self._run[-1]) == seen(result) else []
        self._run = [*run, result][-CONFIRM_FRAMES:]
        rested = self._rest.update(*seen(result), now, moving=moving) is not None
        doubted = self._rest_reported[1] if self._rest_reported and self._rest_reported[0] == seen(result) else None
        again = not rested and doubted is not None and any(doubted) and seen(result) == self._rest.resting \
            and len(self._run) == CONFIRM_FRAMES and not self._round_empty()  # (not into the next round)
        if not (rested or again):
            return None
        # the same counts in each: the newest frame's picture; a gate whose picture changed meanwhile is unsure, and
        # one where a die lies (no beam contradicts a die counted as a marble); the marbles reported still resting,
        # read again only once a gate in doubt is sure (the die check, which only adds doubt, not before)
        reading = _flag_gates(_agreed(self._run[::-1]), self._moving(self._run))
        if again and not _fewer_doubts(reading.detection.unsure, doubted or ()):
            return None
        reading = replace(reading, detection=self._detector_for(reading.regions)[0].flag_squares(reading.frame,
                                                                                                 reading.detection))
        if again and not _fewer_doubts(reading.detection.unsure, doubted or ()):
            return None
        self._rest_reported = (seen(result), reading.detection.unsure)
        return reading

    def _refresh_reference(self, frame: np.ndarray, detection: Detection | None, last_check: float) -> float | None:
        """Take or refresh the empty reference; returns the time of this check, None if not due.

        Taken as early as it may be: the first moment the beams are idle and the round has no marbles, from
        the first picture on, before the gates are calibrated too (`detection` None); refreshed only when the
        picture agrees it is empty: every gate sure, or, with a gate unsure (a hand over the gates reads no marble),
        held still for ``UNSURE_EMPTY_HOLD_S``. Without one the game state alone decides, since detection without a
        reference is less sure. When the markers show that the camera moved, the old reference no longer
        lines up with the picture: it is dropped and taken again.
        """
        now = time.time()
        moved = self._moved
        if moved is not None and self._reference_regions is not None \
                and _shift_px(moved, self._reference_regions) > CAMERA_MOVED_PX:
            log.info("the camera moved: the empty reference will be taken again")
            self.reference.clear()
            self._retake_when_empty = True
            self._reference_regions = None
            self._changed()
        has_reference = self.reference.get() is not None
        looks_empty = detection is not None and detection.total == 0 and detection.outside == 0
        if not (looks_empty or not has_reference) or now - last_check <= (5 if has_reference else 0.5):
            return None
        if self.camera_only and self._retake_when_empty and not looks_empty:
            # The camera alone: the round holds no marble until the camera has read it at rest, so marbles that
            # rest in a picture read without a reference (a nudge dropped it as they landed) would vanish into
            # the new one. Taken again only once the gates are seen empty.
            return None
        if has_reference and detection is not None and detection.is_unsure:
            if not self._held_still(frame, now):
                return now  # a hand over the gates, maybe: not the empty castle yet
        else:
            self._unsure_empty = None
        stale = detection is not None and bool(detection.left)  # it holds marbles gone now: no least age to wait
        if self.reference.offer(frame, self._beams_idle(), self._round_empty(), now, stale=stale):
            self._reference_regions = moved
            self._retake_when_empty = False
            if detection is None:  # no gates yet: none of them could be seen empty
                self._reference_unchecked = True
            log.info("empty reference %s", "refreshed" if has_reference else "taken")
            self._moved_note = None
            if not has_reference:
                self._changed()  # the counts are no longer unsure
        return now

    def _held_still(self, frame: np.ndarray, now: float) -> bool:
        """The gates' picture has not changed from one check to the next (``_same_picture``) since the first of
        this run of empty, unsure pictures, and that one is ``UNSURE_EMPTY_HOLD_S`` or more old."""
        held, regions = self._unsure_empty, self.current_regions(frame, recheck=False)
        if held is None or regions is None or not _same_picture(held[0], frame, regions.bounds()):
            self._unsure_empty = (frame, now)
            return False
        self._unsure_empty = (frame, held[1])
        return now - held[1] >= UNSURE_EMPTY_HOLD_S

    # what the page shows
    def preview_jpeg(self) -> bytes | None:
        """The last frame the vision read, with its regions and counts drawn on it (drawn once per frame). Before
        the gates are calibrated (the vision reads nothing: no regions to draw), the camera's plain picture, so that
        a person can aim and focus it before tapping the corners; None while the camera gives none (starting, down
        or hanging), or nothing is read yet."""
        with self._lock:
            if self._preview is None and self._seen is not None:
                self._preview = _overlay_jpeg(self._seen)
            if self._preview is not None or self._regions is not None:
                return self._preview
        if not self.service.status()["ok"]:
            return None
        try:
            return self.service.latest_jpeg()
        except ValueError:  # a frame that cannot be encoded: no picture, as the route says
            return None

    def _edge_warning(self) -> str | None:
        """A plain warning when a gate comes within a marble's radius of the picture's edge: a marble there is
        cut by it, not counted, and its gate in doubt (``detect.PICTURE_EDGE_RADII``; ``waiting``)."""
        regions, frame, radius = self._moved or self._regions, self.service.latest(), self.marble_radius
        if regions is None or frame is None or radius is None:
            return None
        gates = regions.near_picture_edge(frame.shape[1], frame.shape[0], radius)
        if not gates:
            return None
        return (f"{gates_named(gates).capitalize()} reach{'es' if len(gates) == 1 else ''} the edge of the "
                f"picture: the camera does not count a marble the edge cuts ({waiting(gates, self.camera_only)} "
                "then). Move or widen the camera so that every gate is wholly in view.")

    def _focus_warning(self) -> str | None:
        """A plain warning when the markers' edges show the picture too blurred for the marbles' size
        (``hardware.camera.focus``)."""
        check = self._marker_check
        return soft_message(check.get("blur_px") if check else None, self.marble_radius)

    def _unsure_cause(self) -> str | None:
        """Why every gate waits for a tap whatever the marbles do, as a word a page can act on: ``"no_reference"``
        (no empty reference yet), ``"noisy"`` (the picture far noisier than it), ``"overexposed"`` (over-exposed
        where it was not); None when the picture itself leaves no gate in doubt."""
        last = self._last
        if self.reference.get() is None:
            return "no_reference"
        if last is not None and last.noisy:
            return "noisy"
        if last is not None and last.overexposed:
            return "overexposed"
        return None

    def _unsure_note(self) -> str | None:
        """Why every count, or some gates', wait for a tap whatever the marbles do, in plain words: the picture-wide
        cause (``_unsure_cause``), else a reference holding marbles gone now (``HOLDS_MARBLES``); None otherwise."""
        cause, last = self._unsure_cause(), self._last
        if cause is not None:
            every = waiting(None, self.camera_only)
            return {"no_reference": UNSURE_WITHOUT_REFERENCE, "noisy": NOISY_PICTURE.format(waiting=every),
                    "overexposed": OVEREXPOSED_PICTURE.format(waiting=every,
                                                              minutes=UNSURE_EMPTY_HOLD_S / 60.0)}[cause]
        return _holds_marbles(last.left, self.camera_only) if last is not None and any(m.gate for m in last.left) \
            else None

    def _reference_holds(self) -> list[int]:
        """The gates where the empty reference shows a marble the latest picture no longer does (it was taken with
        marbles in them): those gates are unsure for that reason (ruling D4), until the reference is taken again."""
        last = self._last
        return held_gates(last.left) if last is not None and self.reference.get() is not None else []

    def status(self) -> dict[str, Any]:
        with self._lock:
            last = self._last.to_json() if self._last is not None else None
            regions = self._regions.to_json() if self._regions is not None else None
            return {
                "camera": self.service.status(),
                "calibrated": regions is not None,
                "calibration": self._regions_source,
                "regions": regions,
                "markers": self._marker_check,
                "reference": self.reference.status(),
                "unsure": self._unsure_note(),
                "unsure_cause": self._unsure_cause(),
                "reference_holds": self._reference_holds(),
                "reference_in_round": self._held_in_round is not None,
                "reference_unchecked": self._reference_unchecked,
                "edge": self._edge_warning(),
                "focus": self._focus_warning(),
                "moved": self._moved_note,
                "waiting": WAITING_FOR_REST if self.camera_only and self._rest.waiting
                else MISSED_WHILE_DOWN if self._missed else None,
                "marble": self.marble_status(),
                "camera_only": self.camera_only,
                "last_detection": last,
                "error": self._error,
            }

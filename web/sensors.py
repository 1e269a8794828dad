"""Wires the castle's sensors into the table: break-beam gates (and, in simulation, a marble roller).

Every marble a gate sees goes through `Table.submit` with source "sensor", exactly like a tap, while a
Diego Drachenzahn round is running; otherwise it is only shown (published on the "sensors" topic).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Flask

from companion.games import RuleError
from companion.games.diego import GAME_ID as DIEGO
from companion.table import Table, TableError

from .stream import SENSORS_TOPIC

log = logging.getLogger(__name__)

PI_MODEL = Path("/proc/device-tree/model")


def detect_mode(model_file: Path = PI_MODEL) -> str:
    """"hardware" on a Raspberry Pi, else "simulation"."""
    try:
        return "hardware" if "Raspberry Pi" in model_file.read_text(errors="replace") else "simulation"
    except OSError:
        return "simulation"


class Sensors:
    """The running sensors and what the kiosk and /api/health show about them."""

    def __init__(self, mode: str, table: Table) -> None:
        self.mode = mode
        self.table = table
        self.gates: Any = None
        self.simulator: Any = None
        self.gates_error: str | None = None
        self.last_marble: dict[str, Any] | None = None

    def status(self) -> dict[str, Any]:
        if self.gates is not None:
            gates = self.gates.status()
        else:
            gates = {"ok": False, "error": self.gates_error or "the gates are not started", "gates": []}
        return {"gates": gates, "last_marble": self.last_marble}

    def publish_status(self) -> None:
        self.table.bus.publish(SENSORS_TOPIC, "sensors", self.status())

    def on_marble(self, reading: Any) -> None:
        """A marble recognised by a gate: score it in the running Diego round, or only show it."""
        marble = {"gate": reading.gate, "width_ms": round(reading.width_ms, 2), "at": reading.at,
                  "scored": False, "session": None, "note": "no Diego Drachenzahn round is running"}
        session_id = self.table.running(DIEGO)
        if session_id is not None:
            marble["session"] = session_id
            try:
                self.table.submit(session_id, {"type": "marble", "gate": reading.gate}, source="sensor")
                marble.update(scored=True, note=None)
            except (RuleError, TableError) as err:
                marble["note"] = str(err)
        self.last_marble = marble
        self.table.bus.publish(SENSORS_TOPIC, "marble", marble)
        self.publish_status()

    def roll(self, gate: int, width_ms: float, chatter: bool) -> None:
        """Simulation only: roll a marble through gate `gate` with a realistic pulse."""
        self.simulator.roll(gate, width_ms=width_ms, chatter=chatter)
        self.gates.flush()

    def close(self) -> None:
        if self.gates is not None:
            self.gates.close()
        if self.simulator is not None and hasattr(self.simulator, "close"):
            self.simulator.close()


def start_sensors(app: Flask, table: Table) -> Sensors:
    """Start the gates per app.config: SENSORS is auto | simulation | hardware | off.

    A wrong pin configuration (a pin used twice, not a GPIO pin) raises GateConfigError, which stops the
    start with one line. A gate that fails to open on real hardware is reported, not fatal.
    """
    setting = app.config["SENSORS"]
    mode = detect_mode() if setting in ("auto", "off") else setting
    sensors = Sensors(mode, table)
    if setting == "off":
        sensors.gates_error = "sensors are switched off"
        return sensors
    from hardware.gates import GateArray, GateConfig  # imported only when sensors run

    config = GateConfig(**app.config.get("GATES", {}))
    factory = None
    if mode == "simulation":
        from gpiozero.pins.mock import MockFactory
        from hardware.simulator import MarbleSimulator

        factory = MockFactory()
        sensors.simulator = MarbleSimulator(factory, config.pins)
    gates = GateArray(config, sensors.on_marble, pin_factory=factory, on_change=sensors.publish_status)
    try:
        gates.start()
    except Exception as err:  # a missing pin library or a busy line must not stop the kiosk
        if type(err).__name__ == "GateConfigError":
            raise
        sensors.gates_error = f"the gates could not start: {err}"
        log.error("%s", sensors.gates_error)
        return sensors
    sensors.gates = gates
    log.info("gates on pins %s (%s)", ", ".join(map(str, config.pins)), mode)
    return sensors



"""What /api/health reports: each part of the companion (database, disk, gates, camera) and which of them fail.

``ok`` is False while a part that should work does not: the database does not answer, the data folder is
nearly full, or gates or a camera that are configured could not start or are stuck. Parts switched off on
purpose (``SENSORS`` "off", ``BEAMS`` False, ``CAMERA`` "off") are reported as off, never as failing.
"""
from __future__ import annotations

import shutil
from typing import Any

from flask import Flask

MIN_FREE_MB = 200


def health_report(app: Flask) -> dict[str, Any]:
    """The body of GET /api/health: ok, the failing parts, each part's state, the mode and the sensors."""
    sensors = app.extensions["sensors"]
    status = sensors.status()
    parts = {"database": _database(app), "disk": _disk(app.config["DATA_DIR"]),
             "gates": _sensor(status["gates"], wanted=_wanted(app, "gates")),
             "camera": _sensor(status["camera"], wanted=_wanted(app, "camera"))}
    failing = [name for name, part in parts.items() if part["state"] == "failing"]
    return {"ok": not failing, "failing": failing, "parts": parts, "mode": sensors.mode, "sensors": status,
            "notices": app.extensions.get("notices", [])}


def _wanted(app: Flask, part: str) -> bool:
    if app.config.get("SENSORS") == "off":
        return False
    if part == "gates":
        return bool(app.config.get("BEAMS", True))
    return app.config.get("CAMERA") != "off"


def _database(app: Flask) -> dict[str, Any]:
    try:
        app.extensions["table"].log.count_sessions("running")
    except Exception as err:  # any failure of the log is what this part reports
        return {"state": "failing", "error": f"the session log does not answer: {type(err).__name__}: {err}"}
    return {"state": "ok"}


def _disk(data_dir: str) -> dict[str, Any]:
    try:
        free_mb = shutil.disk_usage(data_dir).free // 2**20
    except OSError as err:
        return {"state": "failing", "error": f"{data_dir}: {err.strerror}"}
    if free_mb < MIN_FREE_MB:
        return {"state": "failing", "free_mb": free_mb, "error": f"only {free_mb} MB free in {data_dir}"}
    return {"state": "ok", "free_mb": free_mb}


def _sensor(status: dict[str, Any], wanted: bool) -> dict[str, Any]:
    if not wanted:
        return {"state": "off"}
    if status.get("ok"):
        return {"state": "ok"}
    error = status.get("error") or (status.get("camera") or {}).get("error")
    if not error and status.get("gates"):
        bad = [f"gate {g['gate']} {'stuck' if g.get('stuck') else 'flaky'}" for g in status["gates"]
               if g.get("stuck") or g.get("flaky")]
        error = ", ".join(bad) or "not ok"
    return {"state": "failing", "error": error or "not ok"}

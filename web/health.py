"""What /api/health reports: each part of the companion (table, database, disk, gates, camera) and which of them
fail.

``ok`` is False while a part that should work does not: the table does not answer, the database does not
answer, the data folder is nearly full, or gates or a camera that are configured could not start or are stuck.
Parts switched off on purpose (``SENSORS`` "off", ``BEAMS`` False, ``CAMERA`` "off") are reported as off, never
as failing.

The table answers when its lock (held by every change, see ``Table.lock``) and then the session log's can be
taken within ``TABLE_WAIT_S``: a change stuck holding either would leave every tap waiting for ever. Then
/api/health answers 503 (``table_not_answering``), and the systemd watchdog, fed only while it answers 2xx
(web/notify.py), is not fed: the companion is restarted rather than kept alive frozen.
"""
from __future__ import annotations

import shutil
import time
from typing import Any

from flask import Flask

MIN_FREE_MB = 200
#: Seconds the health check waits for the table's lock (and then the log's): far longer than any change holds
#: them, well within the watchdog probe's 5 s (web/notify.py). ``app.config["HEALTH_TABLE_WAIT_S"]`` overrides it.
TABLE_WAIT_S = 3.0


def health_report(app: Flask) -> dict[str, Any]:
    """The body of GET /api/health: ok, the failing parts, each part's state, the mode and the sensors (the running
    gates' pins, and their wiring as the config file's ``[gates] wiring`` names it)."""
    sensors = app.extensions["sensors"]
    status = sensors.status()
    table, database = _table_and_database(app)
    parts = {"table": table, "database": database, "disk": _disk(app.config["DATA_DIR"]),
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


def table_stuck(report: dict[str, Any]) -> bool:
    """Whether ``report`` (a health report) says the table itself does not answer: the companion is frozen."""
    return report["parts"]["table"]["state"] == "failing"


def _table_and_database(app: Flask) -> tuple[dict[str, Any], dict[str, Any]]:
    """The table's part (its lock and the log's, each taken within the wait) and the database's (one cheap read)."""
    table = app.extensions["table"]
    wait = float(app.config.get("HEALTH_TABLE_WAIT_S", TABLE_WAIT_S))
    deadline = time.monotonic() + wait
    unchecked = {"state": "unknown", "error": "not checked: the table does not answer"}
    if not table.lock.acquire(timeout=wait):
        return {"state": "failing", "error": f"the table has not answered for {wait:g} s: a change is stuck holding "
                                             "it; the companion must be restarted"}, unchecked
    try:
        table.log.ping(deadline - time.monotonic())
    except TimeoutError:
        return {"state": "failing", "error": f"the session log has not answered for {wait:g} s: a write is stuck "
                                             "in it; the companion must be restarted"}, unchecked
    except Exception as err:  # any failure of the log is what the database part reports
        return {"state": "ok"}, {"state": "failing",
                                 "error": f"the session log does not answer: {type(err).__name__}: {err}"}
    finally:
        table.lock.release()
    return {"state": "ok"}, {"state": "ok"}


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

"""A full disk: a write SQLite or a file refuses for want of space answers 507 with what to do, and changes
nothing; other database errors stay a 500."""
from __future__ import annotations

import errno
import sqlite3
from typing import Any, Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.log import storage_full
from tests.conftest import new_diego

FULL = "The Pi's storage is full; nothing was changed. Free some space ("


class _Refusing:
    """The log's SQLite connection, refusing every statement that starts with `statement` with `error`."""

    def __init__(self, db: sqlite3.Connection, statement: str, error: Exception) -> None:
        self._db, self._statement, self._error = db, statement, error

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.lstrip().startswith(self._statement):
            raise self._error
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


def _refuse(app: Flask, monkeypatch: pytest.MonkeyPatch, statement: str, error: Exception) -> None:
    log = app.extensions["table"].log
    monkeypatch.setattr(log, "_db", _Refusing(log._db, statement, error))


def test_a_tap_on_a_full_disk_answers_507_and_changes_nothing(app: Flask, client: FlaskClient,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    session = new_diego(client)
    url = f"/api/sessions/{session['id']}"
    client.post(f"{url}/events", json={"type": "marble", "gate": 2})
    client.post(f"{url}/events", json={"type": "marble", "gate": 3})
    client.post(f"{url}/undo")  # a redo the next tap would drop, in the same transaction
    before = client.get(url).get_json()
    events = client.get(f"{url}/events").get_json()
    with monkeypatch.context() as patch:
        _refuse(app, patch, "INSERT INTO events", sqlite3.OperationalError("database or disk is full"))
        response = client.post(f"{url}/events", json={"type": "marble", "gate": 5})
    assert response.status_code == 507
    error = response.get_json()["error"]
    assert error["code"] == "storage_full" and error["message"].startswith(FULL)
    assert f"{app.config['DATA_DIR']}/backups" in error["message"]
    after = client.get(url).get_json()
    assert after == before and after["can_redo"]  # the redo stack was not dropped either
    assert client.get(f"{url}/events").get_json() == events
    assert client.post(f"{url}/redo").get_json()["state"]["current"]["marbles"] == [2, 3]


def test_a_new_game_on_a_full_disk_answers_507(app: Flask, client: FlaskClient,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _refuse(app, monkeypatch, "INSERT INTO sessions", sqlite3.OperationalError("database or disk is full"))
    response = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
    assert response.status_code == 507 and response.get_json()["error"]["message"].startswith(FULL)
    monkeypatch.undo()
    assert client.get("/api/sessions").get_json()["sessions"] == []


def test_another_database_error_is_still_a_500(app: Flask, client: FlaskClient,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    session = new_diego(client)
    _refuse(app, monkeypatch, "INSERT INTO events", sqlite3.OperationalError("database is locked"))
    response = client.post(f"/api/sessions/{session['id']}/events", json={"type": "marble", "gate": 2})
    assert response.status_code == 500 and response.get_json()["error"]["code"] == "internal"


def test_a_calibration_saved_on_a_full_disk_answers_507_and_keeps_the_old_one(
        make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch) -> None:
    import hardware.camera.hub as hub

    app = make_app()
    client = app.test_client()
    before = client.get("/api/camera").get_json()

    def full(*_args: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(hub, "save_regions", full)
    gates = [{"gate": g, "polygon": [[x, 100], [x + 80, 100], [x + 80, 180], [x, 180]]}
             for g, x in zip(range(1, 7), range(40, 640, 100))]  # side by side, within the 640x480 picture
    response = client.post("/api/camera/regions", json={"gates": gates})
    assert response.status_code == 507 and response.get_json()["error"]["message"].startswith(FULL)
    after = client.get("/api/camera").get_json()
    assert (after["calibration"], after["regions"]) == (before["calibration"], before["regions"])


def test_storage_full_is_found_in_what_an_error_was_raised_from() -> None:
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as err:
            raise RuntimeError("could not save") from err
    except RuntimeError as wrapped:
        assert storage_full(wrapped)
    assert not storage_full(OSError(errno.EACCES, "Permission denied"))
    assert not storage_full(sqlite3.OperationalError("no such table: events"))


def test_a_marble_the_beams_see_on_a_full_disk_is_shown_as_not_recorded(
        make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading from the sensors cannot answer 507: the page is told on the sensors' stream that the marble was
    not recorded and why (the disk is full), instead of the marble vanishing with a line in the log."""
    app = make_app(CAMERA="off")
    client = app.test_client()
    session = new_diego(client)
    sensors = app.extensions["sensors"]
    with app.extensions["table"].bus.subscribe("sensors") as heard:
        _refuse(app, monkeypatch, "INSERT INTO events", sqlite3.OperationalError("database or disk is full"))
        assert client.post("/api/simulation/marble", json={"gate": 3}).status_code == 202
        marble = sensors.last_marble
        assert marble is not None and marble["gate"] == 3 and marble["scored"] is False
        assert "storage is full" in marble["note"] and "by tap" in marble["note"]
        told = [data for name, data in iter(lambda: heard.get(timeout=0), None) if name == "marble"]
        assert told and told[-1]["note"] == marble["note"]
    monkeypatch.undo()
    view = client.get(f"/api/sessions/{session['id']}").get_json()
    assert view["seq"] == 0 and view["state"]["current"]["marbles"] == []  # nothing half-recorded


def test_a_reading_refused_for_another_reason_does_not_blame_the_disk(
        make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a full disk is called one: a database error that merely has "full" in its words says what it is."""
    app = make_app(CAMERA="off")
    client = app.test_client()
    new_diego(client)
    error = sqlite3.OperationalError("table events has no column named fullness")
    _refuse(app, monkeypatch, "INSERT INTO events", error)
    assert client.post("/api/simulation/marble", json={"gate": 3}).status_code == 202
    marble = app.extensions["sensors"].last_marble
    assert marble is not None and marble["scored"] is False
    assert marble["note"] == f"not recorded: the session log could not be written ({error}); enter it by tap"

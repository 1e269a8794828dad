"""Shared fixtures: an app with a temporary database per test, its client, a fresh table, and apps with
the simulated castle."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.log import EventLog
from companion.table import Table
from tests.browser import base, browser, open_page  # noqa: F401  (fixtures for the browser tests)
from tests.waiting import wait_for
from web.app import create_app, shutdown


@pytest.fixture
def app_config(tmp_path: Path) -> dict[str, Any]:
    return {"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SENSORS": "off", "SSE_KEEPALIVE": 0.5}


@pytest.fixture
def app(app_config: dict[str, Any]) -> Iterator[Flask]:
    application = create_app(app_config)
    yield application
    shutdown(application)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    log = EventLog(tmp_path / "table.sqlite3")
    yield Table(log)
    log.close()


def new_diego(client: FlaskClient, players: list[str] | None = None, **options: Any) -> dict[str, Any]:
    response = client.post("/api/sessions", json={"game": "diego-drachenzahn",
                                                  "players": players or ["Ada", "Ben", "Cleo"],
                                                  "options": options})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


@pytest.fixture
def make_app(app_config: dict[str, Any]) -> Iterator[Callable[..., Flask]]:
    """Build apps with the simulated castle (settings on top of ``app_config``); each is ready once its
    simulated camera has seen the empty gates, and all are shut down after the test. Its marbles land at rest: with
    the beams the camera reads a round 0.3 s after a marble, the round's last one too (not after the 1.5 s and
    0.6 s a real castle's rolling marbles need)."""
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        application = create_app({**app_config, "SENSORS": "simulation", "CAMERA_SETTLE_S": 0.3,
                                  "CAMERA_LAST_MARBLE_SETTLE_S": 0.3, **config})
        made.append(application)
        camera = application.extensions["sensors"].camera
        if camera is not None and camera.service.status()["source"] == "simulation":
            wait_for(lambda: camera.reference.get() is not None)  # set up: the empty gates were seen
        return application

    yield make
    for application in made:
        shutdown(application)


@pytest.fixture
def beams() -> bool:
    """Whether the simulated castle has its break-beams (``castle_app``; a test module says False for the camera
    alone)."""
    return True


@pytest.fixture
def castle_app(make_app: Callable[..., Flask], beams: bool) -> Flask:
    """The app with the simulated castle and its camera, with or without ``beams``."""
    return make_app(BEAMS=beams)


@pytest.fixture
def camera_app(app_config: dict[str, Any]) -> Iterator[Flask]:
    """The app with the simulated gates and camera, once the camera gives a preview and has its empty reference."""
    application = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "simulation"})
    try:
        camera = application.extensions["sensors"].camera
        wait_for(lambda: camera.preview_jpeg() is not None and camera.reference.get() is not None)
        yield application
    finally:
        shutdown(application)

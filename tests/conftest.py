"""Shared fixtures: an app with a temporary database per test, its client, and a fresh table."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.log import EventLog
from companion.table import Table
from tests.browser import base, browser, open_page  # noqa: F401  (fixtures for the browser tests)
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

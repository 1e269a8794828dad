"""The Flask app factory: the composition root that wires the log, the table and the sensors."""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Mapping

from flask import Flask

from companion.castle import Castle
from companion.hero_store import HeroCardStore
from companion.log import open_log
from companion.table import Table

from . import api, camera, errors, heroes, kiosk, pairing, stream, trust

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": None,           # default: $COMPANION_DATA or ./data
    "DATABASE": None,           # default: DATA_DIR/companion.sqlite3
    "SENSORS": "auto",          # auto | simulation | hardware | off
    "SSE_KEEPALIVE": 15.0,      # seconds between "alive" events on idle streams
    "PAIRING_POLL_S": 1.5,      # seconds between a pairing page's looks at its requests and devices
    "MAX_CONTENT_LENGTH": 64 * 1024,
}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """A configured app. Opens the database in DATA_DIR; starts sensors unless SENSORS is "off"."""
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    if config:
        app.config.update(config)
    data_dir = Path(app.config["DATA_DIR"] or os.environ.get("COMPANION_DATA") or "data")
    app.config["DATA_DIR"] = str(data_dir)
    database = app.config["DATABASE"] or str(data_dir / "companion.sqlite3")
    event_log, note = open_log(database)
    app.extensions["notices"] = [note] if note else []
    if note:
        log.error("%s", note)
    table = Table(event_log)
    rebuilt = table.rebuild()
    log.info("session log %s: %d unfinished sessions rebuilt", database, rebuilt)
    app.extensions["table"] = table
    app.extensions["castle"] = Castle(table)
    hero_cards = app.extensions["hero_cards"] = HeroCardStore(event_log)
    hero_cards.attach(table)  # new Dračí hrad games take the kept hero cards (ruling H2)

    from .sensors import start_sensors  # the hardware side is optional and imported only here
    try:
        app.extensions["sensors"] = start_sensors(app, table, app.extensions["castle"])
    except ValueError:  # a wrong pin or camera setting: the caller reports it and stops
        event_log.close()
        raise

    app.url_map.merge_slashes = False  # /api//sessions is no path of the API: a JSON 404, not an HTML redirect
    errors.register(app)
    trust.init_app(app)  # who may write: kiosk, paired devices, spectators
    app.register_blueprint(api.bp)
    app.register_blueprint(kiosk.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(pairing.bp)
    app.register_blueprint(heroes.bp)
    return app


def shutdown(app: Flask) -> None:
    """Stop the sensors, end the streams and close the log."""
    sensors = app.extensions.get("sensors")
    if sensors is not None:
        sensors.close()
    stream.stop_streams(app)
    trust.close(app)
    app.extensions["table"].log.close()

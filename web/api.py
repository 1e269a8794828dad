"""The JSON API under /api: games, sessions, events, undo/redo, players, health, simulation."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from companion.games import GAMES
from companion.table import Table

from .errors import ApiError
from .openapi import openapi_document

bp = Blueprint("api", __name__, url_prefix="/api")


def table() -> Table:
    return current_app.extensions["table"]


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 that says what is wrong with it."""
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError(400, "malformed", "the body must be JSON (Content-Type: application/json)")
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "the body must be a JSON object")
    return data


def expected_seq(data: dict[str, Any]) -> int | None:
    value = data.get("expected_seq")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ApiError(400, "malformed", "'expected_seq' must be a whole number")
    return value


@bp.get("/health")
def health():
    sensors = current_app.extensions["sensors"]
    return jsonify({"ok": True, "mode": sensors.mode, "sensors": sensors.status()})


@bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


@bp.get("/games")
def games():
    return jsonify({"games": [g.to_json() for g in GAMES.values()]})


@bp.get("/players")
def players():
    return jsonify({"players": table().log.players()})


@bp.post("/players")
def add_player():
    name = json_body().get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 24:
        raise ApiError(400, "malformed", "'name' must be a name of 1 to 24 characters")
    table().log.add_player(" ".join(name.split()))
    return jsonify({"players": table().log.players()}), 201


@bp.get("/sessions")
def sessions():
    return jsonify({"sessions": table().sessions()})


@bp.post("/sessions")
def create_session():
    data = json_body()
    view = table().create(data.get("game"), data.get("players"), data.get("options"))
    return jsonify(view), 201


@bp.get("/sessions/<int:session_id>")
def session(session_id: int):
    return jsonify(table().view(session_id))


@bp.post("/sessions/<int:session_id>/events")
def post_event(session_id: int):
    data = json_body()
    return jsonify(table().submit(session_id, data, source="tap", expected_seq=expected_seq(data)))


@bp.post("/sessions/<int:session_id>/<any(undo, redo):action>")
def undo_or_redo(session_id: int, action: str):
    data = request.get_json(silent=True) if request.data else {}
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "the body must be a JSON object or empty")
    step = table().undo if action == "undo" else table().redo
    return jsonify(step(session_id, expected_seq(data)))


@bp.get("/sessions/<int:session_id>/events")
def events(session_id: int):
    return jsonify({"events": table().events(session_id)})


@bp.post("/simulation/marble")
def simulate_marble():
    sensors = current_app.extensions["sensors"]
    if sensors.mode != "simulation" or sensors.gates is None or sensors.simulator is None:
        raise ApiError(404, "not_found", "marble simulation exists only in simulation mode")
    data = json_body()
    gate = data.get("gate")
    width = data.get("width_ms", 15)
    chatter = data.get("chatter", False)
    if "gate" not in data or (gate is not None and (isinstance(gate, bool) or not isinstance(gate, int)
                                                    or not 1 <= gate <= 6)):
        raise ApiError(400, "malformed", "'gate' must be a gate number from 1 to 6, or null for a miss")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not 0.1 <= width <= 3000:
        raise ApiError(400, "malformed", "'width_ms' must be a pulse width from 0.1 to 3000 ms")
    if not isinstance(chatter, bool):
        raise ApiError(400, "malformed", "'chatter' must be true or false")
    sensors.roll(gate, float(width), chatter)
    return jsonify({"rolled": {"gate": gate, "width_ms": width, "chatter": chatter},
                    "gates": sensors.status().get("gates")}), 202



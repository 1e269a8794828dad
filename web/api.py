"""The JSON API under /api: games, sessions, events, undo/redo, players, health, simulation."""
from __future__ import annotations

import json
import threading
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from companion.castle import Castle
from companion.games import GAMES, MalformedEventError
from companion.games.schema import validate_fields
from companion.table import Table

from .errors import ApiError
from .health import health_report, table_stuck
from .openapi import openapi_document

bp = Blueprint("api", __name__, url_prefix="/api")


def table() -> Table:
    return current_app.extensions["table"]


def castle() -> Castle:
    return current_app.extensions["castle"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def json_body(empty_ok: bool = False) -> dict[str, Any]:
    """The request's JSON object (strict: no NaN or infinities), or a 400 that says what is wrong with it.
    With `empty_ok`, an empty body is an empty object."""
    raw = request.get_data(cache=True)
    if not raw and empty_ok:
        return {}
    if not request.is_json:
        raise ApiError(400, "malformed", "the body must be JSON (Content-Type: application/json)")
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as err:
        raise ApiError(400, "malformed", f"the body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "the body must be a JSON object")
    return data


#: Request bodies other than events, in the schema subset events use (the OpenAPI document shows the same).
SEQ_BODY = {"expected_seq": {"type": "integer"}}
CASTLE_BODY = {"session": {"type": "integer", "minimum": 1, "nullable": True}}
SIMULATED_MARBLE = {"gate": {"type": "integer", "minimum": 1, "maximum": 6, "nullable": True},
                    "width_ms": {"type": "number", "minimum": 0.1, "maximum": 3000},
                    "chatter": {"type": "boolean"}}


def checked_body(properties: dict[str, dict[str, Any]], required: tuple[str, ...] = (),
                 empty_ok: bool = False) -> dict[str, Any]:
    """The request's JSON object checked against `properties`, or a 400 naming the field."""
    try:
        return validate_fields(properties, required, json_body(empty_ok), "request", "the request")
    except MalformedEventError as err:
        raise ApiError(400, "malformed", err.message) from None


@bp.get("/health")
def health():
    report = health_report(current_app)
    if table_stuck(report):  # frozen: a 503 the watchdog and the kiosk launcher see, with the report and why
        report["error"] = {"code": "table_not_answering", "message": report["parts"]["table"]["error"]}
        return jsonify(report), 503
    return jsonify(report)


@bp.get("/")
@bp.get("/openapi.json")
def openapi():
    """The API's description, also at the API's own address (/api sends on to /api/)."""
    return jsonify(openapi_document())


@bp.get("/games")
def games():
    return jsonify({"games": [{**g.to_json(), "last_options": table().log.last_options(g.id)}
                              for g in GAMES.values()]})


@bp.get("/players")
def players():
    return jsonify({"players": table().players()})


@bp.post("/players")
def add_player():
    data = json_body()
    return jsonify({"players": table().remember_player(data.get("name"), data.get("colour"))}), 201


@bp.post("/players/<path:name>")  # a name may hold a "/" ("AC/DC")
def update_player(name: str):
    data = json_body()
    if "colour" not in data:
        raise ApiError(400, "malformed", "send the player's 'colour', like #0072b2")
    if not any(p["name"] == name for p in table().players()):
        raise ApiError(404, "not_found", f"no player {name!r}")
    return jsonify({"players": table().remember_player(name, data["colour"])})


@bp.get("/sessions")
def sessions():
    return jsonify({"sessions": table().sessions()})


_AGAIN = threading.Lock()  # two devices tapping "Play again" on the same finished game start one game


@bp.post("/sessions")
def create_session():
    data = json_body()
    again = data.get("again")  # "Play again" on this game's final screen
    if again is None:
        return jsonify(table().create(data.get("game"), data.get("players"), data.get("options"))), 201
    if isinstance(again, bool) or not isinstance(again, int):
        raise ApiError(400, "malformed", "'again' must be the number of the game played again")
    with _AGAIN:
        table().view(again)  # a game that exists (404 otherwise)
        # the game another device's "Play again" started from this one, while it runs: joined, not started twice;
        # never a game started otherwise, though of the same players (it may hold other options, a round begun)
        started = current_app.extensions.setdefault("played_again", {})  # finished game: the game it started
        if started.get(again) in {view["id"] for view in table().sessions(status="running")}:
            return jsonify(table().view(started[again])), 200
        view = table().create(data.get("game"), data.get("players"), data.get("options"))
        started[again] = view["id"]
        return jsonify(view), 201


@bp.get("/sessions/<int:session_id>")
def session(session_id: int):
    return jsonify(table().view(session_id))


@bp.post("/sessions/<int:session_id>/events")
def post_event(session_id: int):
    data = json_body()
    return jsonify(table().submit(session_id, data, source="tap", expected_seq=data.get("expected_seq")))


@bp.post("/sessions/<int:session_id>/<any(undo, redo, abandon):action>")
def session_action(session_id: int, action: str):
    data = checked_body(SEQ_BODY, empty_ok=True)
    step = {"undo": table().undo, "redo": table().redo, "abandon": table().abandon}[action]
    return jsonify(step(session_id, data.get("expected_seq")))


@bp.get("/castle")
def castle_status():
    return jsonify(castle().status())


@bp.post("/castle")
def castle_attach():
    session_id = checked_body(CASTLE_BODY, ("session",))["session"]  # a game number, or null to release
    return jsonify(castle().release() if session_id is None else castle().attach(session_id))


@bp.get("/sessions/<int:session_id>/events")
def events(session_id: int):
    return jsonify({"events": table().events(session_id)})


@bp.post("/simulation/marble")
def simulate_marble():
    """A marble through simulated beams, or, without beams (the camera alone), into the simulated castle for the
    camera to find once it rests (ruling D3). 404 only where there is nothing simulated to roll it into."""
    sensors = current_app.extensions["sensors"]
    if sensors.mode != "simulation":
        raise ApiError(404, "not_found", "marble simulation exists only in simulation mode")
    beams = sensors.gates is not None and sensors.simulator is not None
    if not beams and sensors.castle is None:
        raise ApiError(404, "not_found", "no simulated beams and no simulated castle to roll a marble into: this "
                                         "server runs without beams and without the simulated camera")
    data = checked_body(SIMULATED_MARBLE, ("gate",))  # gate null: a marble that misses every gate
    gate, width, chatter = data["gate"], data.get("width_ms", 15), bool(data.get("chatter", False))
    sensors.roll(gate, float(width), chatter)
    return jsonify({"rolled": {"gate": gate, "width_ms": width, "chatter": chatter if beams else False,
                               "into": "beams" if beams else "castle"},
                    "gates": sensors.status().get("gates")}), 202



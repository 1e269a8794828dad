"""The OpenAPI 3.0 document of the JSON API, with every game's event types and an example each."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from companion.games import GAMES


def _error(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/Error"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _json(schema_ref: str, description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}}}}


SESSION_ID = {"name": "session_id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
SEQ_BODY = {"required": False, "content": {"application/json": {"schema": {
    "type": "object", "additionalProperties": False, "properties": {"expected_seq": {"type": "integer"}}}}}}
COLOUR = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
WRITE_ERRORS = {"400": _error("malformed: bad JSON, an unknown field, a wrong type or range (names the field)"),
                "403": _error("this device is not paired; the message says how to pair"),
                "404": _error("unknown session"),
                "409": _error("conflict with the session as it is now (stale write, read-only game, nothing to "
                              "undo); the body holds the fresh session"),
                "413": _error("the body is too large"),
                "422": _error("refused by the rules; `rule` names the ruling"),
                "429": _error("too many writes from this device; wait a moment"),
                "507": _error("the Pi's storage is full; nothing was changed")}


def _event_schemas() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    schemas: dict[str, Any] = {}
    refs: list[dict[str, Any]] = []
    examples: dict[str, Any] = {}
    for game in GAMES.values():
        for event in game.event_types:
            name = f"{_camel(game.id)}{_camel(event.type)}Event"
            only = "" if event.made_by("tap") else (
                f" Made only by the table ({' or '.join(event.sources or ())}): a writer of the API is refused "
                "with 403 `not_from_tap`.")
            schemas[name] = {
                "type": "object",
                "description": f"{game.name}: {event.summary}{only}",
                "required": ["type", *event.required],
                "additionalProperties": False,
                "properties": {"type": {"type": "string", "enum": [event.type]},
                               "expected_seq": {"type": "integer"}, **event.properties},
                "example": dict(event.example),
            }
            refs.append({"$ref": f"#/components/schemas/{name}"})
            examples[f"{game.id}.{event.type}"] = {"summary": f"{game.name}: {event.type}",
                                                   "value": dict(event.example)}
    return schemas, refs, examples


def _camel(text: str) -> str:
    return "".join(part.capitalize() for part in text.replace("_", "-").split("-"))


@lru_cache(maxsize=1)
def openapi_document() -> dict[str, Any]:
    # The blueprints' own paths, read when the document is first built: heroes imports api, which imports this module.
    from .heroes import OPENAPI_PATHS as HERO_CARD_PATHS
    from .pairing import OPENAPI_PATHS as PAIRING_PATHS

    event_schemas, event_refs, event_examples = _event_schemas()
    return {
        "openapi": "3.0.3",
        "info": {"title": "Dragon table companion", "version": "0.1.0",
                 "description": "Scores and rounds for the dragon games, live from taps and sensors."},
        "paths": {
            "/api/health": {"get": {"summary": "Mode and sensor status",
                                    "responses": {"200": _json("Health", "the companion is up"),
                                                  "503": _error("the table does not answer (a change is stuck): "
                                                                "the body is the health report with its error")}}},
            "/api/openapi.json": {"get": {"summary": "This document",
                                          "responses": {"200": {"description": "OpenAPI"}}}},
            "/api/": {"get": {"summary": "This document, at the API's own address (/api sends on here)",
                              "responses": {"200": {"description": "OpenAPI"}}}},
            "/api/games": {"get": {"summary": "The game registry", "responses": {"200": {"description": "games"}}}},
            "/api/players": {
                "get": {"summary": "Remembered players with their colours, most recently played first",
                        "responses": {"200": {"description": "players"}}},
                "post": {"summary": "Remember a player, with a colour if given",
                         "requestBody": {"required": True, "content": {"application/json": {"schema": {
                             "type": "object", "required": ["name"], "additionalProperties": False,
                             "properties": {"name": {"type": "string", "maxLength": 24}, "colour": COLOUR}},
                             "example": {"name": "Ada", "colour": "#0072b2"}}}},
                         "responses": {"201": {"description": "players"}, "400": _error("malformed"),
                                       "409": _error("too many players remembered")}}},
            "/api/players/{name}": {"post": {
                "summary": "Change a remembered player's colour",
                "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["colour"], "additionalProperties": False,
                    "properties": {"colour": COLOUR}}, "example": {"colour": "#d55e00"}}}},
                "responses": {"200": {"description": "players"}, "400": _error("malformed"),
                              "404": _error("no such player")}}},
            "/api/castle": {
                "get": {"summary": "Which session holds the castle (beams and camera)",
                        "responses": {"200": _json("Castle", "the holder")}},
                "post": {"summary": "Attach the castle to a running Diego Drachenzahn session, or release it (null)",
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": {"$ref": "#/components/schemas/Castle"}, "example": {"session": 1}}}},
                         "responses": {"200": _json("Castle", "the new holder"), "400": _error("malformed"),
                                       "404": _error("unknown session"),
                                       "409": _error("not a running Diego Drachenzahn session")}}},
            "/api/sessions": {
                "get": {"summary": "Sessions, most recent first",
                        "responses": {"200": {"description": "sessions"}}},
                "post": {"summary": "Start a game",
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": {"$ref": "#/components/schemas/NewSession"},
                             "example": {"game": "diego-drachenzahn", "players": ["Ada", "Ben", "Cleo"],
                                         "options": {}}}}},
                         "responses": {"201": _json("Session", "the new session"),
                                       "200": _json("Session", "with 'again': the next game another device started"),
                                       "400": _error("malformed"), "422": _error("refused by the rules")}}},
            "/api/sessions/{session_id}": {"get": {
                "summary": "One session's view", "parameters": [SESSION_ID],
                "responses": {"200": _json("Session", "the session"), "404": _error("unknown session")}}},
            "/api/sessions/{session_id}/events": {
                "get": {"summary": "The session's log, undone events marked", "parameters": [SESSION_ID],
                        "responses": {"200": {"description": "events"}, "404": _error("unknown session")}},
                "post": {"summary": "Append one event (a tap); its type decides the fields",
                         "parameters": [SESSION_ID],
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": {"oneOf": event_refs}, "examples": event_examples}}},
                         "responses": {"200": _json("Session", "the new view"), **WRITE_ERRORS,
                                       "403": _error("this device is not paired (the message says how to pair); "
                                                     "or `not_from_tap`: an event only the table's hardware makes, "
                                                     "such as a camera reading (nothing changed)")}}},
            "/api/sessions/{session_id}/undo": {"post": {
                "summary": "Mark the last live event undone", "parameters": [SESSION_ID],
                "requestBody": SEQ_BODY, "responses": {"200": _json("Session", "the new view"), **WRITE_ERRORS}}},
            "/api/sessions/{session_id}/redo": {"post": {
                "summary": "Bring back the last undone event", "parameters": [SESSION_ID],
                "requestBody": SEQ_BODY, "responses": {"200": _json("Session", "the new view"), **WRITE_ERRORS}}},
            "/api/sessions/{session_id}/abandon": {"post": {
                "summary": "Abandon an unfinished game; it stays in the log, read-only", "parameters": [SESSION_ID],
                "requestBody": SEQ_BODY, "responses": {
                    "200": _json("Session", "the new view"), **WRITE_ERRORS,
                    "409": _error("`already_finished`: the game is already finished and keeps its result (whatever "
                                  "seq the request saw); or stale, or read-only; the body holds the fresh session")}}},
            "/api/sessions/{session_id}/stream": {"get": {
                "summary": "Server-Sent Events: `session` (full view) on connect and after every change; "
                           "`sensors`, `marble` and `camera` for the sensor panel; `alive` ({\"every\": seconds}) "
                           "when quiet that long, so that a page hearing none for a few knows its network stalled; "
                           "`pairing` ({\"paired\": false}) as the last message of a paired device's stream when "
                           "the kiosk revokes it",
                "parameters": [SESSION_ID],
                "responses": {"200": {"description": "an event stream",
                                      "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                              "404": _error("unknown session")}}},
            "/api/camera": {"get": {
                "summary": "Camera state: source, calibration (regions, markers), empty reference, last detection",
                "responses": {"200": {"description": "camera status; its `reference_holds`: the gates where the "
                                                     "empty reference shows a marble the picture no longer does (it "
                                                     "was taken with marbles in them), unsure until it is taken "
                                                     "again; its `unsure_cause`: why every gate is unsure whatever "
                                                     "the marbles do, `no_reference`, `noisy` (a picture far noisier "
                                                     "than the reference) or `overexposed` (over-exposed where it "
                                                     "was not), else null"}}}},
            "/api/camera/regions": {"post": {
                "summary": "Save the six gate regions tapped on a snapshot (polygons in image pixels)",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["gates"], "properties": {"gates": {
                        "type": "array", "minItems": 6, "maxItems": 6, "items": {
                            "type": "object", "required": ["gate", "polygon"],
                            "properties": {"gate": {"type": "integer", "minimum": 1, "maximum": 6},
                                           "polygon": {"type": "array", "minItems": 3, "items": {
                                               "type": "array", "minItems": 2, "maxItems": 2,
                                               "items": {"type": "number"}}}}}}}},
                    "example": {"gates": [{"gate": g, "polygon": [[g * 100, 200], [g * 100 + 80, 200],
                                                                  [g * 100 + 80, 280], [g * 100, 280]]}
                                          for g in range(1, 7)]}}}},
                "responses": {"200": {"description": "saved"}, "400": _error("malformed regions"),
                              "503": _error("the camera is off")}}},
            "/api/camera/reference": {"post": {
                "summary": "Take the current picture as the empty reference (the gates are empty)",
                "responses": {"200": {"description": "reference status"}, "409": _error("no picture yet"),
                              "503": _error("the camera is off")}}},
            "/api/camera/anchor": {"post": {
                "summary": "Anchor the regions to the four ArUco markers seen now",
                "responses": {"200": {"description": "marker check"}, "422": _error("markers not found"),
                              "503": _error("the camera is off")}}},
            "/api/camera/marble": {"post": {
                "summary": "A tap on one resting marble in the picture: its radius is measured there and saved",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["x", "y"], "additionalProperties": False,
                    "properties": {"x": {"type": "number", "minimum": 0, "maximum": 10000},
                                   "y": {"type": "number", "minimum": 0, "maximum": 10000}}},
                    "example": {"x": 220, "y": 240}}}},
                "responses": {"200": {"description": "the marble's size, saved"},
                              "400": _error("malformed: not a point of the picture"),
                              "409": _error("no picture, or no empty reference yet to measure against"),
                              "422": _error("no marble at that point"),
                              "503": _error("the camera is off")}}},
            "/api/camera/keeping": {"post": {
                "summary": "Photo keeping (the table's consent): keep each confirmed round's photo in DATA/photos",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["enabled"], "additionalProperties": False,
                    "properties": {"enabled": {"type": "boolean"}}}, "example": {"enabled": True}}}},
                "responses": {"200": {"description": "photo keeping status: on or off, how many kept (count), "
                                                     "the bytes they take (bytes), where"},
                              "400": _error("malformed body"), "503": _error("the camera is off")}}},
            "/api/camera/photos": {"delete": {
                "summary": "Delete every kept photo from DATA/photos (photo keeping stays on or off as it was)",
                "responses": {"200": {"description": "photo keeping status: none kept, or the error naming one "
                                                     "that could not be deleted"},
                              "409": _error("the kept photos are being downloaded; try again once that ends"),
                              "503": _error("the camera is off")}}},
            "/api/simulation/marble": {"post": {
                "summary": "Simulation only: roll a marble into the simulated castle, through its gate's beam (a "
                           "realistic pulse) when beams are fitted; without beams the castle's camera finds it",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["gate"],
                    "properties": {"gate": {"type": "integer", "minimum": 1, "maximum": 6, "nullable": True,
                                            "description": "null: a marble that misses every gate"},
                                   "width_ms": {"type": "number", "minimum": 0.1, "maximum": 3000, "default": 15},
                                   "chatter": {"type": "boolean", "default": False}}},
                    "example": {"gate": 3, "width_ms": 15, "chatter": True}}}},
                "responses": {"202": {"description": "rolled"}, "400": _error("malformed"),
                              "404": _error("not in simulation, or no simulated beams nor castle")}}},
            **HERO_CARD_PATHS,
            **PAIRING_PATHS,
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                "type": "object", "required": ["code", "message"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}}},
                "rule": {"type": "string"}, "session": {"$ref": "#/components/schemas/Session"}}},
            "Health": {"type": "object", "properties": {
                "ok": {"type": "boolean"}, "mode": {"type": "string", "enum": ["simulation", "hardware"]},
                "sensors": {"type": "object"}}},
            "NewSession": {"type": "object", "required": ["game", "players"], "properties": {
                "game": {"type": "string", "enum": sorted(GAMES)},
                "players": {"type": "array", "items": {"type": "string", "maxLength": 24}},
                "options": {"type": "object"},
                "again": {"type": "integer", "description": "Play again: the finished game's number; when another "
                          "device already started the next game of the same players, that game is answered (200)"}}},
            "Castle": {"type": "object", "required": ["session"], "properties": {
                "session": {"type": "integer", "nullable": True, "minimum": 1}}},
            "Session": {"type": "object", "properties": {
                "id": {"type": "integer"}, "game": {"type": "string"}, "game_name": {"type": "string"},
                "players": {"type": "array", "items": {"type": "string"}},
                "colours": {"type": "object", "additionalProperties": {"type": "string", "nullable": True}},
                "options": {"type": "object"}, "rules_version": {"type": "integer"},
                "seq": {"type": "integer", "description": "revision; send it back as expected_seq"},
                "created": {"type": "number"}, "updated": {"type": "number"},
                "status": {"type": "string", "enum": ["running", "finished", "abandoned", "set_aside"]},
                "reason": {"type": "string", "nullable": True, "description": "why a session is set aside"},
                "read_only": {"type": "boolean"},
                "finished": {"type": "boolean"}, "winners": {"type": "array", "items": {"type": "string"}},
                "round": {"type": "integer", "nullable": True},
                "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
                "turn": {"type": "string", "nullable": True},
                "breakdown": {"type": "array", "items": {"type": "object", "properties": {
                    "round": {"type": "integer"}, "label": {"type": "string"},
                    "points": {"type": "object", "additionalProperties": {"type": "integer"}}}}},
                "breakdown_heading": {"type": "string", "description": "the breakdown's first column (Round)"},
                "can_undo": {"type": "boolean"}, "can_redo": {"type": "boolean"},
                "castle": {"type": "boolean", "description": "this session holds the castle"},
                "change": {"type": "object", "description": "after an undo or redo: what it changed",
                           "properties": {"action": {"type": "string"}, "seq": {"type": "integer"},
                                          "text": {"type": "string"}}},
                "state": {"type": "object", "nullable": True, "description": "the game's own view"}}},
            **event_schemas,
        }},
    }

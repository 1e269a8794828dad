"""The JSON API: every endpoint, every error class, and the state unchanged after any error."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games import GAMES
from tests.conftest import new_diego


def events_url(session: dict) -> str:
    return f"/api/sessions/{session['id']}/events"


def test_health_reports_mode_and_sensors(client: FlaskClient) -> None:
    body = client.get("/api/health").get_json()
    assert body["ok"] is True
    assert body["mode"] == "off"  # the sensors switched off (as the tests run): neither simulated nor opened
    assert "gates" in body["sensors"]
    assert 'id="sim-badge"' not in client.get("/").get_data(as_text=True)  # no "Simulation" where nothing is


def test_games_lists_the_registry(client: FlaskClient) -> None:
    games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    diego = games["diego-drachenzahn"]
    assert (diego["min_players"], diego["max_players"]) == (2, 4)  # ruling D1
    assert {o["id"]: o["default"] for o in diego["options"]}["rounds_per_player"] == 3  # ruling D6


def test_create_and_get_session(client: FlaskClient) -> None:
    created = new_diego(client)
    assert created["players"] == ["Ada", "Ben", "Cleo"]
    assert created["seq"] == 0 and created["round"] == 1 and not created["finished"]
    assert created["scores"] == {"Ada": 0, "Ben": 0, "Cleo": 0}
    fetched = client.get(f"/api/sessions/{created['id']}").get_json()
    assert fetched == created
    assert client.get("/api/sessions").get_json()["sessions"][0]["id"] == created["id"]


def test_sessions_are_listed_recent_first(client: FlaskClient) -> None:
    first, second = new_diego(client), new_diego(client, ["X", "Y"])
    ids = [s["id"] for s in client.get("/api/sessions").get_json()["sessions"]]
    assert ids[:2] == [second["id"], first["id"]]


def test_players_are_remembered(client: FlaskClient) -> None:
    new_diego(client, ["Zoe", "Yann"])
    assert client.post("/api/players", json={"name": "  Xavier  "}).status_code == 201
    players = [p["name"] for p in client.get("/api/players").get_json()["players"]]
    assert {"Zoe", "Yann", "Xavier"} <= set(players)
    assert client.post("/api/players", json={"name": ""}).status_code == 400
    assert client.post("/api/players", json={"name": "x" * 25}).status_code == 400


def test_a_name_with_a_slash_or_a_combining_accent_is_one_player(client: FlaskClient) -> None:
    """A name may hold a "/" and still have its colour saved; "Zoë" typed with a combining accent is the same
    player as "Zoë" typed as one letter (names are kept composed, NFC)."""
    assert client.post("/api/players", json={"name": "AC/DC"}).status_code == 201
    saved = client.post("/api/players/AC%2FDC", json={"colour": "#0072b2"})
    assert saved.status_code == 200, saved.get_json()
    assert [p["colour"] for p in saved.get_json()["players"] if p["name"] == "AC/DC"] == ["#0072b2"]
    client.post("/api/players", json={"name": "Zo\u00eb"})
    client.post("/api/players", json={"name": "Zoe\u0308"})
    names = [p["name"] for p in client.get("/api/players").get_json()["players"]]
    assert names.count("Zo\u00eb") == 1 and "Zoe\u0308" not in names


def test_a_known_name_typed_in_other_capitals_is_that_player(client: FlaskClient) -> None:
    client.post("/api/players", json={"name": "Anna"})
    assert client.post("/api/players", json={"name": "anna", "colour": "#0072b2"}).status_code == 201
    known = {p["name"]: p["colour"] for p in client.get("/api/players").get_json()["players"]}
    assert "anna" not in known and known["Anna"] == "#0072b2"
    session = new_diego(client, ["ANNA", "Ben"])
    assert session["players"] == ["Anna", "Ben"]
    twice = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ben", "ben"]})
    assert twice.status_code == 400 and "seated twice" in twice.get_json()["error"]["message"]


@pytest.mark.parametrize("twin", ["\u200bAda", "Ada\u200d", "\uff21\uff44\uff41", "A\u00adda", "\ufeffADA"])
def test_names_that_look_alike_are_seated_once(client: FlaskClient, twin: str) -> None:
    """A zero-width character, full-width letters or a soft hyphen do not make a second "Ada" at the table: two
    players the page would show alike are refused, and nothing is created."""
    refused = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", twin, "Ben"]})
    assert refused.status_code == 400 and "seated twice" in refused.get_json()["error"]["message"]
    assert client.get("/api/sessions").get_json()["sessions"] == []


def test_invisible_characters_and_direction_controls_leave_names(client: FlaskClient) -> None:
    """Invisible characters and the controls that turn the page's text around are not kept in a name; a name that
    is nothing else is no name. Emoji keep their joiners."""
    session = new_diego(client, ["\u202eadA", "Ben\u200b", "\U0001f469\u200d\U0001f52c Cleo"])
    assert session["players"] == ["adA", "Ben", "\U0001f469\u200d\U0001f52c Cleo"]
    empty = client.post("/api/players", json={"name": "\u200b\u2066\u2069"})
    assert empty.status_code == 400 and "needs a name" in empty.get_json()["error"]["message"]


def test_a_round_by_tap_scores_points(client: FlaskClient) -> None:
    session = new_diego(client)
    for event in ({"type": "marble", "gate": 4}, {"type": "marble", "gate": 4}, {"type": "marble", "gate": None},
                  {"type": "guess", "player": "Ben", "gate": 4}, {"type": "guess", "player": "Cleo", "gate": 1},
                  {"type": "reveal", "gate": 4}):
        response = client.post(events_url(session), json=event)
        assert response.status_code == 200, response.get_json()
    view = response.get_json()
    assert view["scores"] == {"Ada": 2, "Ben": 1, "Cleo": 0}  # rulings D3, D5
    assert view["round"] == 2 and view["state"]["active"] == "Ben"  # ruling D6: clockwise
    log = client.get(events_url(session)).get_json()["events"]
    assert [e["type"] for e in log] == ["marble", "marble", "marble", "guess", "guess", "reveal"]


def test_undo_and_redo(client: FlaskClient) -> None:
    session = new_diego(client)
    client.post(events_url(session), json={"type": "marble", "gate": 2})
    undone = client.post(f"/api/sessions/{session['id']}/undo").get_json()
    assert undone["state"]["current"]["marbles"] == [] and undone["can_redo"]
    redone = client.post(f"/api/sessions/{session['id']}/redo", json={}).get_json()
    assert redone["state"]["current"]["marbles"] == [2] and not redone["can_redo"]
    log = client.get(events_url(session)).get_json()["events"]
    assert [e["undone"] for e in log] == [False]
    nothing = client.post(f"/api/sessions/{session['id']}/redo")
    assert nothing.status_code == 409 and "nothing to redo" in nothing.get_json()["error"]["message"]
    assert nothing.get_json()["session"]["seq"] == redone["seq"]


def test_stale_write_gets_409_with_fresh_state(client: FlaskClient) -> None:
    session = new_diego(client)
    seen = session["seq"]
    client.post(events_url(session), json={"type": "marble", "gate": 1, "expected_seq": seen})
    stale = client.post(events_url(session), json={"type": "marble", "gate": 6, "expected_seq": seen})
    assert stale.status_code == 409
    body = stale.get_json()
    assert body["error"]["code"] == "stale"
    assert body["session"]["state"]["current"]["marbles"] == [1]
    assert client.post(f"/api/sessions/{session['id']}/undo", json={"expected_seq": seen}).status_code == 409
    assert client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]["marbles"] == [1]


@pytest.mark.parametrize("event, status, rule", [
    ({"type": "guess", "player": "Ada", "gate": 2}, 422, "D5"),           # the active player does not guess
    ({"type": "turned", "player": "Ben", "gate": 2}, 422, "D5"),          # turned over before the reveal
    ({"type": "marble", "gate": 7}, 400, "D2"),                           # no seventh gate: malformed
    ({"type": "turned", "player": "Ben", "correct": "yes"}, 400, "D5"),
])
def test_refusals_name_the_rule(client: FlaskClient, event: dict, status: int, rule: str) -> None:
    session = new_diego(client)
    response = client.post(events_url(session), json=event)
    assert response.status_code == status
    body = response.get_json()
    assert body["rule"] == rule and body["error"]["code"] == ("rule" if status == 422 else "malformed")
    assert "(rule" not in body["error"]["message"]  # the page shows the id as a tag of its own
    assert client.get(f"/api/sessions/{session['id']}").get_json() == session


def test_fourth_marble_and_second_guess_are_refused(client: FlaskClient) -> None:
    session = new_diego(client)
    for _ in range(3):
        client.post(events_url(session), json={"type": "marble", "gate": 1})
    fourth = client.post(events_url(session), json={"type": "marble", "gate": 1})
    assert fourth.status_code == 422 and fourth.get_json()["rule"] == "D4"
    spoofed = client.post(events_url(session), json={"type": "marble", "gate": 1, "source": "sensor"})
    assert spoofed.status_code == 400  # a page cannot pass for a sensor: 'source' is no field of an event
    client.post(events_url(session), json={"type": "guess", "player": "Ben", "gate": 1})
    again = client.post(events_url(session), json={"type": "guess", "player": "Ben", "gate": 2})
    assert again.status_code == 422 and again.get_json()["rule"] == "D5"


def test_nothing_after_the_end(client: FlaskClient) -> None:
    session = new_diego(client, ["A", "B"], rounds_per_player=1)
    for other in ("B", "A"):  # A is active first, then B
        client.post(events_url(session), json={"type": "guess", "player": other, "gate": 3})
        view = client.post(events_url(session), json={"type": "reveal", "gate": 3}).get_json()
    assert view["finished"] and view["winners"] == ["A", "B"]  # ruling D6: ties share
    late = client.post(events_url(session), json={"type": "marble", "gate": 3})
    assert late.status_code == 422 and late.get_json()["rule"] == "D6"


@pytest.mark.parametrize("body", [
    "{not json", "[1, 2]", "null", '"text"', "42", "\x00\xff",
])
def test_malformed_bodies_are_400(client: FlaskClient, body: str) -> None:
    session = new_diego(client)
    for path in (events_url(session), "/api/sessions", f"/api/sessions/{session['id']}/undo"):
        response = client.post(path, data=body, content_type="application/json")
        assert response.status_code == 400, (path, body)
        assert response.get_json()["error"]["code"] == "malformed"
    assert client.get(f"/api/sessions/{session['id']}").get_json() == session


@pytest.mark.parametrize("payload", [
    {}, {"type": 5}, {"type": ""}, {"type": "teleport"}, {"type": "marble"}, {"type": "marble", "gate": "3"},
    {"type": "marble", "gate": 2.5}, {"type": "marble", "gate": True}, {"type": "guess", "player": "Nobody", "gate": 1},
    {"type": "guess", "player": ["Ben"], "gate": 1}, {"type": "confirm", "marbles": [1, 1, 1, 1]},
    {"type": "marble", "gate": 1, "expected_seq": "zero"}, {"type": "marble", "gate": 10**30},
])
def test_bad_events_change_nothing(client: FlaskClient, payload: dict) -> None:
    session = new_diego(client)
    response = client.post(events_url(session), json=payload)
    assert response.status_code in (400, 422), payload
    assert set(response.get_json()["error"]) == {"code", "message"}
    assert client.get(f"/api/sessions/{session['id']}").get_json() == session


@pytest.mark.parametrize("payload", [
    {"type": "camera", "counts": [0, 0, 2, 0, 0, 0], "outside": 1},
    {"type": "camera", "counts": [0, 0, 1, 0, 0, 0], "unsure": [False, False, True, False, False, False]},
    {"type": "camera", "counts": [1, 2]}, {"type": "camera", "counts": [0, 0, 0, 0, 0, -1]},
    {"type": "camera", "counts": [0, 0, 1, 0, 0, 0], "source": "camera"},
])
def test_a_camera_reading_through_the_api_is_refused_and_records_nothing(client: FlaskClient, payload: dict) -> None:
    """Rulings D3, D4: the camera's reading decides where the marbles rest, so only the table's camera makes one; a
    writer of the API (the kiosk's own screen included) gets 403 not_from_tap, and the game and its log stay."""
    session = new_diego(client)
    client.post(events_url(session), json={"type": "marble", "gate": 3})
    before = client.get(f"/api/sessions/{session['id']}").get_json()
    response = client.post(events_url(session), json={**payload, "expected_seq": before["seq"]})
    assert response.status_code == 403, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == "not_from_tap"
    assert error["message"].startswith("camera readings come from the table's camera; tap the marbles instead")
    assert client.get(f"/api/sessions/{session['id']}").get_json() == before
    assert [e["type"] for e in client.get(events_url(session)).get_json()["events"]] == ["marble"]


def test_the_tables_camera_still_records_its_reading(app: Flask, client: FlaskClient) -> None:
    """The camera hub's reading (source "camera") goes in as before (rulings D3, D4)."""
    session = new_diego(client)
    assert client.get("/api/castle").get_json()["session"] == session["id"]  # a new game takes the free castle
    reading = SimpleNamespace(counts=(0, 0, 1, 0, 0, 0), unsure=(False,) * 6, outside=0)
    app.extensions["sensors"].on_camera_reading(reading, b"")
    current = client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]
    assert current["camera"]["counts"] == [0, 0, 1, 0, 0, 0]
    assert current["marbles"] == [3] and current["sources"] == ["camera"]
    events = client.get(events_url(session)).get_json()["events"]
    assert [(e["type"], e["source"]) for e in events] == [("camera", "camera")]


def test_what_a_diego_round_expects_is_what_a_tap_may_send(app: Flask, client: FlaskClient) -> None:
    """The view's `expects` names what a writer at the table may send now: never the camera's reading, which only the
    table's camera makes (rulings D3, D4), in a round still open or flagged by the camera; every type it names, sent by
    tap, is judged by the rules, never refused as not_from_tap."""
    game = GAMES["diego-drachenzahn"]
    session = new_diego(client, ["Ada", "Ben"])
    view = client.get(f"/api/sessions/{session['id']}").get_json()
    assert view["state"]["phase"] == "marbles" and view["state"]["expects"] == ["marble", "confirm", "guess", "reveal"]
    app.extensions["table"].submit(session["id"], {"type": "camera", "counts": [0, 1, 0, 0, 0, 0],
                                                   "unsure": [False, True] + [False] * 4}, source="camera")
    view = client.get(f"/api/sessions/{session['id']}").get_json()
    assert view["state"]["phase"] == "flagged" and view["state"]["expects"] == ["marble", "confirm", "guess"]
    for kind in view["state"]["expects"]:
        declared = game.event_type(kind)
        assert declared is not None and declared.made_by("tap")
        example = {**declared.example, **({"player": "Ben"} if kind == "guess" else {})}
        response = client.post(events_url(session), json=example)
        assert response.status_code in (200, 422), (kind, response.get_json())


@pytest.mark.parametrize("options, flag", [
    ({"gate_names": ["Sun", "Moon", "Star", "Crown", "Key", "Flame"]}, "the camera is unsure of Moon and Star"),
    ({}, "the camera is unsure of gates 2, 3"),
], ids=["named", "default"])
def test_the_rounds_flag_names_the_gates_as_the_table_does(app: Flask, client: FlaskClient, options: dict,
                                                           flag: str) -> None:
    """Rulings D2, D4: the round's flag, and the refusal of a reveal it causes, name a gate by the table's name (the
    page's and an undone event's), a gate at its default name as "gate N"."""
    session = new_diego(client, ["Ada", "Ben"], **options)
    app.extensions["table"].submit(session["id"], {"type": "camera", "counts": [0, 1, 0, 0, 1, 0],
                                                   "unsure": [False, True, True, False, False, False]}, source="camera")
    assert client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]["flag"] == flag
    refused = client.post(events_url(session), json={"type": "reveal", "gate": 2})
    assert refused.status_code == 422
    assert refused.get_json()["error"]["message"].startswith(f"the round is flagged ({flag})")


@pytest.mark.parametrize("body, status", [
    ({"game": "chess", "players": ["A", "B"]}, 400),
    ({"game": "diego-drachenzahn", "players": ["A"]}, 422),            # ruling D1
    ({"game": "diego-drachenzahn", "players": ["A", "B", "C", "D", "E"]}, 422),
    ({"game": "diego-drachenzahn", "players": ["A", "A"]}, 400),
    ({"game": "diego-drachenzahn", "players": "AB"}, 400),
    ({"game": "diego-drachenzahn", "players": ["A", 3]}, 400),
    ({"game": "diego-drachenzahn", "players": ["A", "B"], "options": {"rounds_per_player": 0}}, 400),
    ({"game": "diego-drachenzahn", "players": ["A", "B"], "options": {"colour": "red"}}, 400),
    ({"game": "diego-drachenzahn", "players": ["A", "B"], "options": []}, 400),
    ({"game": "diego-drachenzahn", "players": ["A", "B"], "options": {"gate_names": ["x"]}}, 400),
    ({"game": "diego-drachenzahn", "players": ["A", "B"],
      "options": {"gate_names": ["Moon", "Sun", "Star", "Cloud", "Tree", "moon "]}}, 400),
    ({"game": "drachen-wurf", "players": ["A", "B"],
      "options": {"colour_names": ["Rot", "Blau", "Grün", "Gelb", "Lila", "Rot"]}}, 400),
    ({"players": ["A", "B"]}, 400),
])
def test_bad_new_sessions(client: FlaskClient, body: dict, status: int) -> None:
    before = client.get("/api/sessions").get_json()
    response = client.post("/api/sessions", json=body)
    assert response.status_code == status, response.get_json()
    assert response.get_json()["error"]["message"]
    assert client.get("/api/sessions").get_json() == before


@pytest.mark.parametrize("path", [
    "/api/sessions/999", "/api/sessions/0", "/api/sessions/abc", "/api/sessions/99999999999999999999999",
    "/api/sessions/999/events", "/api/sessions/999/stream", "/api/nothing-here",
])
def test_unknown_is_404_json(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("path", ["/api//sessions", "/api/sessions//1", "/api/sessions/1//events"])
def test_doubled_slashes_are_no_api_path(client: FlaskClient, path: str) -> None:
    """A doubled slash is not merged into a redirect (an HTML page under /api): a JSON 404."""
    for method in ("GET", "POST"):
        response = client.open(path, method=method, json={})
        assert response.status_code == 404, (method, path)
        assert response.get_json()["error"]["code"] == "not_found"


def test_options_under_the_api_is_204_with_allow(client: FlaskClient) -> None:
    """OPTIONS on an API path says which methods it takes, with no body (not Flask's empty 200 page)."""
    response = client.options("/api/sessions")
    assert response.status_code == 204 and response.data == b""
    assert {"GET", "POST"} <= {m.strip() for m in response.headers["Allow"].split(",")}
    assert client.options("/api/nothing-here").get_json()["error"]["code"] == "not_found"


def test_unknown_session_writes_are_404(client: FlaskClient) -> None:
    assert client.post("/api/sessions/999/events", json={"type": "marble", "gate": 1}).status_code == 404
    for path in ("/api/sessions/999/undo", "/api/sessions/999/redo", "/api/sessions/999/abandon"):
        assert client.post(path, json={}).status_code == 404


def test_wrong_method_is_json(client: FlaskClient) -> None:
    response = client.delete("/api/sessions")
    assert response.status_code == 405 and "error" in response.get_json()


def test_huge_body_is_refused(client: FlaskClient) -> None:
    session = new_diego(client)
    response = client.post(events_url(session), data=json.dumps({"type": "marble", "x": "y" * 200_000}),
                           content_type="application/json")
    assert response.status_code == 413 and "error" in response.get_json()


def test_simulation_endpoint_is_404_without_simulated_sensors(client: FlaskClient) -> None:
    response = client.post("/api/simulation/marble", json={"gate": 1})
    assert response.status_code == 404


def test_openapi_documents_every_event_type_with_an_example(client: FlaskClient) -> None:
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    for path in ("/api/health", "/api/games", "/api/sessions", "/api/sessions/{session_id}",
                 "/api/sessions/{session_id}/events", "/api/sessions/{session_id}/undo",
                 "/api/sessions/{session_id}/redo", "/api/sessions/{session_id}/stream",
                 "/api/simulation/marble"):
        assert path in doc["paths"], path
    examples = doc["paths"]["/api/sessions/{session_id}/events"]["post"]["requestBody"]["content"][
        "application/json"]["examples"]
    schemas = doc["components"]["schemas"]
    for game in GAMES.values():
        for event in game.event_types:
            example = examples[f"{game.id}.{event.type}"]["value"]
            assert example["type"] == event.type
            assert any(s.get("example", {}).get("type") == event.type for s in schemas.values())


def test_documented_examples_are_accepted_by_the_rules(client: FlaskClient) -> None:
    """Each example, sent at a moment when it is legal, is accepted: the document does not lie (the camera's reading,
    which the document says only the table's camera makes, is refused from the API and taken from the camera)."""
    session = new_diego(client, ["Ada", "Ben"])
    url = events_url(session)
    doc = client.get("/api/openapi.json").get_json()
    examples = doc["paths"]["/api/sessions/{session_id}/events"]["post"]["requestBody"]["content"][
        "application/json"]["examples"]
    schemas = doc["components"]["schemas"]
    order = ["marble", "camera", "confirm", "guess", "reveal", "reveal", "turned"]  # round 2: Ben is active
    for kind in order:
        example = dict(examples[f"diego-drachenzahn.{kind}"]["value"])
        if kind in ("guess", "turned"):
            example["player"] = "Ben" if kind == "guess" else "Ada"
        response = client.post(url, json=example)
        if kind == "camera":  # only the table's camera makes a reading, as its schema says: the table takes it so
            assert response.status_code == 403 and "not_from_tap" in schemas["DiegoDrachenzahnCameraEvent"][
                "description"], response.get_json()
            client.application.extensions["table"].submit(session["id"], example, source="camera")
            continue
        assert response.status_code == 200, (kind, response.get_json())


def test_kiosk_pages(client: FlaskClient) -> None:
    session = new_diego(client)
    home = client.get("/")
    assert home.status_code == 200 and b"Diego Drachenzahn" in home.data and b"Carry on" in home.data
    page = client.get(f"/play/{session['id']}")
    assert page.status_code == 200 and b"session-data" in page.data
    missing = client.get("/play/12345")
    assert missing.status_code == 404 and b"no game number 12345" in missing.data
    assert b"Traceback" not in missing.data
    for odd in ("/play/abc", "/play/-1", f"/play/{session['id']}/", "/play", "/nowhere"):  # the framework's words
        page = client.get(odd)  # ("If you entered the URL manually please check your spelling") are not the table's
        assert page.status_code == 404 and b"There is no page at this address" in page.data, odd
        assert b"requested URL" not in page.data and b"Back to the games" in page.data, odd


def test_the_api_answers_an_odd_address_in_its_own_words(client: FlaskClient) -> None:
    """Under /api the web framework's words ("The requested URL was not found on the server. If you entered the URL
    manually...") said neither what was asked nor where the API is described; the API's own address led nowhere."""
    assert client.get("/api/", follow_redirects=True).get_json()["info"]["title"]  # its description
    assert client.get("/api", follow_redirects=True).get_json()["paths"]
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.get_json()["error"] == {
        "code": "not_found", "message": "there is no GET /api/nothing in the companion's API; it is described at "
                                        "/api/openapi.json"}
    wrong = client.delete("/api/games")
    assert wrong.status_code == 405 and wrong.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert wrong.get_json()["error"]["message"] == "/api/games is not called with DELETE: it answers GET, HEAD, OPTIONS"


def test_pages_load_no_remote_assets(client: FlaskClient) -> None:
    session = new_diego(client)
    for path in ("/", f"/play/{session['id']}"):
        html = client.get(path).data.decode()
        assert "http://" not in html and "https://" not in html


def test_the_log_keeps_guesses_face_down_until_the_reveal(client: FlaskClient) -> None:
    session = new_diego(client, ["Ada", "Ben"])
    client.post(events_url(session), json={"type": "guess", "player": "Ben", "gate": 5})
    guess = client.get(events_url(session)).get_json()["events"][0]
    assert guess["payload"]["gate"] is None and guess["hidden"]
    client.post(events_url(session), json={"type": "reveal", "gate": 5})
    guess = client.get(events_url(session)).get_json()["events"][0]
    assert guess["payload"]["gate"] == 5 and "hidden" not in guess


def test_abandoning_a_finished_game_says_it_is_already_finished(client: FlaskClient) -> None:
    created = client.post("/api/sessions", json={"game": "draci-hrad", "players": ["Ada", "Ben"]}).get_json()
    url = f"/api/sessions/{created['id']}"
    for event in ({"type": "treasure", "player": "Ada", "value": 35}, {"type": "sceptre", "player": "Ben"}):
        assert client.post(f"{url}/events", json=event).status_code == 200
    finished = client.get(url).get_json()
    assert finished["status"] == "finished"
    for seq in (finished["seq"], created["seq"], None):  # as seen now, by a page that missed the end, or unguarded
        refused = client.post(f"{url}/abandon", json={} if seq is None else {"expected_seq": seq})
        assert refused.status_code == 409, seq
        body = refused.get_json()
        assert body["error"]["code"] == "already_finished", body
        assert body["error"]["message"] == ("this game of Dračí hrad is already finished and keeps its result; "
                                            "only an unfinished game is abandoned")
        assert body["session"]["status"] == "finished" and body["session"]["seq"] == finished["seq"]
    assert client.get(url).get_json() == finished  # nothing changed


def test_play_again_joins_only_the_game_play_again_started(client: FlaskClient) -> None:
    """"Play again" on a finished game starts its next game once: a second device's tap joins that one. A game of the
    same players started otherwise (other options, a round begun) was joined instead, without a word."""
    finished = new_diego(client, ["Ada", "Ben"], rounds_per_player=1)
    for event in ({"type": "marble", "gate": 6}, {"type": "reveal", "gate": 6}, {"type": "turned", "player": "Ben",
                  "gate": 1}, {"type": "reveal", "gate": 1}, {"type": "turned", "player": "Ada", "correct": True}):
        assert client.post(events_url(finished), json=event).status_code == 200
    assert client.get(f"/api/sessions/{finished['id']}").get_json()["finished"]
    other = new_diego(client, ["Ada", "Ben"], face_down=True)  # the same players, by hand, a marble rolled
    assert client.post(events_url(other), json={"type": "marble", "gate": 4}).status_code == 200
    again = {"game": "diego-drachenzahn", "players": ["Ada", "Ben"], "options": {"rounds_per_player": 1},
             "again": finished["id"]}
    first = client.post("/api/sessions", json=again)
    assert first.status_code == 201
    started = first.get_json()
    assert started["id"] != other["id"] and started["seq"] == 0 and started["options"]["rounds_per_player"] == 1
    second = client.post("/api/sessions", json=again)  # the other device's tap
    assert (second.status_code, second.get_json()["id"]) == (200, started["id"])
    assert client.post(f"/api/sessions/{started['id']}/abandon", json={}).status_code == 200
    third = client.post("/api/sessions", json=again)  # the game it started put away: a fresh one
    assert third.status_code == 201 and third.get_json()["id"] not in (started["id"], other["id"])
    assert client.post("/api/sessions", json={**again, "again": 999}).status_code == 404

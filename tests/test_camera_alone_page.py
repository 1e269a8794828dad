"""The castle's camera alone (no beams fitted), in simulation: rolling a marble into the simulated castle through the
API, the clear answers to bad input, and what the pages say about the simulated set-up (ruling D3: the camera alone
fills in the round once the marbles rest)."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask

from tests.waiting import wait_for

ROLL = "/api/simulation/marble"


@pytest.fixture
def camera_alone(make_app: Callable[..., Flask]) -> Flask:
    return make_app(BEAMS=False)


def _current(client: Any, session: dict[str, Any]) -> dict[str, Any]:
    return client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]


def test_a_simulated_roll_without_beams_puts_the_marble_into_the_castle(camera_alone: Flask) -> None:
    client = camera_alone.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    response = client.post(ROLL, json={"gate": 3})
    assert response.status_code == 202, response.get_json()
    assert response.get_json()["rolled"]["into"] == "castle"
    assert [m.gate for m in camera_alone.extensions["sensors"].castle.resting()] == [3]
    # the camera finds it once it rests and fills in the round (ruling D3)
    current = wait_for(lambda: (c := _current(client, session))["marbles"] == [3] and c)
    assert current["sources"] == ["camera"]
    assert client.post(ROLL, json={"gate": None}).status_code == 202  # a marble that misses every gate
    wait_for(lambda: _current(client, session)["marbles"] == [3, None])


@pytest.mark.parametrize(("body", "says"), [
    ('{"gate": 3', "the body is not valid JSON"),
    ('{"gate": 9}', "'gate' must be from 1 to 6, not 9"),
    ("{}", "gate"),
    ("[3]", "the body must be a JSON object"),
    ('{"gate": 2, "width_ms": -1}', "width_ms"),
])
def test_bad_input_without_beams_is_a_clear_400(camera_alone: Flask, body: str, says: str) -> None:
    response = camera_alone.test_client().post(ROLL, data=body, content_type="application/json")
    assert response.status_code == 400, response.get_json()
    error = response.get_json()["error"]
    assert error["code"] == "malformed" and says in error["message"]
    assert camera_alone.extensions["sensors"].castle.resting() == []


def test_a_form_body_without_beams_is_refused_as_not_json(camera_alone: Flask) -> None:
    response = camera_alone.test_client().post(ROLL, data={"gate": "3"})
    assert response.status_code == 415


def test_bad_input_gets_the_same_answer_with_and_without_beams(make_app: Callable[..., Flask]) -> None:
    answers = []
    for beams in (True, False):
        client = make_app(BEAMS=beams).test_client()
        answers.append([(r.status_code, r.get_json()["error"]["message"]) for r in (
            client.post(ROLL, data=body, content_type="application/json")
            for body in ('{"gate": 3', '{"gate": 9}', "{}", '{"gate": "2"}'))])
    assert answers[0] == answers[1]
    assert {status for status, _ in answers[0]} == {400}


def test_without_beams_and_without_the_simulated_castle_a_roll_is_404_saying_why(
        make_app: Callable[..., Flask]) -> None:
    response = make_app(BEAMS=False, CAMERA="off").test_client().post(ROLL, json={"gate": 3})
    assert response.status_code == 404
    message = response.get_json()["error"]["message"]
    assert "only in simulation mode" not in message  # the server is in simulation mode
    assert "no simulated castle" in message


def test_the_pages_speak_of_the_simulated_castle_not_of_beams(camera_alone: Flask) -> None:
    client = camera_alone.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    page = client.get(f"/play/{session['id']}").get_data(as_text=True)
    assert "into the simulated castle" in page and "simulated beam" not in page
    assert 'id="sim-chatter"' not in page  # chatter is a beam's bouncing signal
    assert 'data-beams="none"' in page
    home = client.get("/").get_data(as_text=True)
    assert "no beams are fitted" in home and "the camera alone fills in the rounds" in home  # the badge's note
    assert "the gates are simulated" not in home


def test_with_beams_the_pages_keep_the_simulated_beams(make_app: Callable[..., Flask]) -> None:
    client = make_app().test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    page = client.get(f"/play/{session['id']}").get_data(as_text=True)
    assert "simulated beam" in page and 'id="sim-chatter"' in page and 'data-beams="fitted"' in page
    assert "the gates are simulated, and the camera shows a drawn castle" in page  # the badge's note
    assert "no beams are fitted" not in page


def test_without_a_simulated_castle_the_page_offers_no_roll(make_app: Callable[..., Flask]) -> None:
    client = make_app(BEAMS=False, CAMERA="off").test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    page = client.get(f"/play/{session['id']}").get_data(as_text=True)
    assert 'id="sim-pad"' not in page
    assert "no beams are fitted. Enter the marbles by tap" in page  # the Simulation badge's note


@pytest.mark.parametrize("beams", [False, True], ids=["camera alone", "with beams"])
def test_a_restart_in_the_middle_of_a_round_does_not_take_it_for_an_empty_one(app_config: dict[str, Any],
                                                                              beams: bool) -> None:
    """The companion restarts while a round holds marbles, its empty reference gone with the old picture: the round
    still holds them, so the camera takes no reference of the castle as it is now (its marbles would be the
    reference's), and asked to, answers 409 as before the restart; with beams, the first marble a beam sees after the
    restart counts in the gates' panel for this round."""
    from pathlib import Path

    from web.app import create_app, shutdown

    config = {**app_config, "SENSORS": "simulation", "BEAMS": beams, "CAMERA_SETTLE_S": 0.3}
    first = create_app(config)
    try:
        wait_for(lambda: first.extensions["sensors"].camera.reference.get() is not None)
        client = first.test_client()
        session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
        assert client.post(ROLL, json={"gate": 2}).status_code == 202
        wait_for(lambda: _current(client, session)["marbles"] == [2])
    finally:
        shutdown(first)
    (Path(config["DATA_DIR"]) / "camera" / "empty-reference.png").unlink()  # taken again after the restart

    second = create_app(config)
    try:
        sensors, client = second.extensions["sensors"], second.test_client()
        assert not sensors.round_empty()
        wait_for(lambda: sensors.camera.preview_jpeg() is not None)  # it gives pictures again
        answer = client.post("/api/camera/reference", json={})
        assert answer.status_code == 409 and answer.get_json()["error"]["code"] == "not_empty", answer.get_json()
        assert sensors.camera.reference.get() is None
        if beams:
            assert client.post(ROLL, json={"gate": 4}).status_code == 202
            wait_for(lambda: _current(client, session)["marbles"] == [2, 4])
            assert sensors.status()["gates"]["gates"][3]["round_marbles"] == 1
    finally:
        shutdown(second)

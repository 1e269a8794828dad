"""Every event is validated once, strictly, against its declared schema before the rules see it."""
from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.games import GAMES, MalformedEventError
from companion.games.schema import MAX_DEPTH, validate_event
from tests.conftest import new_diego

DIEGO = GAMES["diego-drachenzahn"]


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("event, words", [
    ({"type": "marble", "gate": 1, "note": "x"}, "no field 'note'"),                 # unknown field
    ({"type": "marble", "gate": 1, "deep": nested(978)}, "no field 'deep'"),
    ({"type": "marble"}, "needs 'gate'"),
    ({"type": "marble", "gate": "1"}, "whole number"),
    ({"type": "marble", "gate": 1.0}, "whole number"),
    ({"type": "marble", "gate": True}, "whole number"),
    ({"type": "marble", "gate": 9}, "from 1 to 6"),
    ({"type": "reveal", "gate": None}, "must not be null"),                          # null where a number is
    ({"type": "camera", "counts": None}, "must not be null"),
    ({"type": "camera", "counts": [0, 0, 0, 0, 0]}, "must list exactly 6 items"),
    ({"type": "camera", "counts": [0, 0, 0, 0, 0, float("nan")]}, "whole number"),
    ({"type": "guess", "player": "x" * 25, "gate": 1}, "at most 24"),
    ({"type": "guess", "player": "Ben\ud800", "gate": 1}, "plain text"),            # a lone surrogate
    ({"type": "guess", "player": "Ben\x00", "gate": 1}, "plain text"),
    ({"type": "turned", "player": "Ben", "correct": "yes"}, "true or false"),
    ({"type": "confirm", "marbles": nested(MAX_DEPTH + 2)}, "whole number"),
    ({"type": "dance"}, "no event 'dance'"),
])
def test_malformed_events_are_refused_naming_the_field(event: dict[str, Any], words: str) -> None:
    with pytest.raises(MalformedEventError) as info:
        validate_event(DIEGO, event)
    assert words in info.value.message


def test_a_valid_event_keeps_only_its_own_fields() -> None:
    assert validate_event(DIEGO, {"type": "marble", "gate": None, "expected_seq": 3}) == {"gate": None}
    assert validate_event(DIEGO, {"type": "turned", "player": "Ben", "gate": 2}) == {"player": "Ben", "gate": 2}


@pytest.mark.parametrize("body", [
    '{"type": "marble", "gate": NaN}', '{"type": "marble", "gate": Infinity}',
    '{"type": "marble", "gate": -Infinity}', '{"type": "marble", "gate": 1, "x": ' + "[" * 978 + "]" * 978 + "}",
])
def test_bodies_json_does_not_allow_are_400_and_change_nothing(client: FlaskClient, body: str) -> None:
    session = new_diego(client)
    response = client.post(f"/api/sessions/{session['id']}/events", data=body, content_type="application/json")
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "malformed"
    assert client.get(f"/api/sessions/{session['id']}").get_json() == session
    listing = client.get(f"/api/sessions/{session['id']}/events")
    assert listing.status_code == 200 and listing.get_json() == {"events": []}


def test_a_lone_surrogate_in_a_player_name_is_400(client: FlaskClient) -> None:
    for body in ('{"game": "diego-drachenzahn", "players": ["A\\ud800", "B"]}', '{"name": "Z\\udfff"}'):
        path = "/api/sessions" if "game" in body else "/api/players"
        response = client.post(path, data=body, content_type="application/json")
        assert response.status_code == 400, response.get_json()
    assert client.get("/api/sessions").get_json()["sessions"] == []


def test_every_answer_is_strict_json(client: FlaskClient) -> None:
    session = new_diego(client)
    for event in ({"type": "marble", "gate": 2}, {"type": "reveal", "gate": 2}):
        client.post(f"/api/sessions/{session['id']}/events", json=event)
    for path in (f"/api/sessions/{session['id']}", f"/api/sessions/{session['id']}/events", "/api/sessions"):
        text = client.get(path).get_data(as_text=True)
        json.loads(text, parse_constant=lambda name, path=path: pytest.fail(f"{path} sent {name}"))

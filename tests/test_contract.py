"""The typed game contract, for every registered game: random legal play, the common view fields, JSON, what the view
expects being what a tap may send, and hidden information never in the view or the log listing before it is
revealed."""
from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any, Iterator

import pytest

from companion.games import GAMES, Game
from companion.games.base import RuleError, contract_problems
from companion.games.schema import validate_event
from companion.log import EventLog
from companion.table import Table

GAME_IDS = sorted(GAMES)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    log = EventLog(tmp_path / "contract.sqlite3")
    yield Table(log)
    log.close()


def players_for(game: Game, rng: random.Random) -> list[str]:
    return [f"P{i}" for i in range(rng.randint(game.min_players, game.max_players))]


def alternatives(game: Game, event: dict[str, Any], field: str) -> list[Any]:
    """Every value the schema allows for an integer or boolean field (to swap a hidden value)."""
    declared = game.event_type(event["type"])
    assert declared is not None
    schema = declared.properties[field]
    if schema.get("type") == "integer":
        return list(range(schema["minimum"], schema["maximum"] + 1))
    if schema.get("type") == "boolean":
        return [True, False]
    if "enum" in schema:
        return list(schema["enum"])
    raise AssertionError(f"{game.id}: a hidden field {field!r} needs a bounded schema")


def views_with(table: Table, game: Game, session: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    """The JSON of the view after `events` from setup, or None when the rules refuse them."""
    state = game.setup(tuple(session["players"]), session["options"])
    try:
        for event in events:
            state = game.apply(state, {**event, "source": "tap"})
    except RuleError:
        return None
    return json.dumps(game.view(state), sort_keys=True)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_legal_play_meets_the_contract(table: Table, game_id: str) -> None:
    game = GAMES[game_id]
    assert game.sample is not None, f"{game_id} declares no random legal event for the contract test"
    rng = random.Random(game_id)
    tapped = {declared.type for declared in game.event_types if declared.made_by("tap")}
    finished = 0
    for _ in range(12):
        session = table.create(game.id, players_for(game, rng))
        players = tuple(session["players"])
        events: list[dict[str, Any]] = []
        for _step in range(2000):
            view = table.view(session["id"])
            assert contract_problems(view["state"], players) == [], view["state"]
            assert contract_problems(view, players) == []
            assert json.loads(json.dumps(view, allow_nan=False)) == view
            # what the view expects is what a writer at the table (a tap) may send: never a type refused it
            assert set(view["state"].get("expects", [])) <= tapped, view["state"]["expects"]
            if view["finished"]:
                finished += 1
                break
            state = table._load(session["id"]).state
            event = game.sample(state, rng)
            assert event is not None, "a running game has a legal event"
            validate_event(game, event)  # the sample is well formed by the declared schema
            table.submit(session["id"], event)  # and legal: the table accepts it
            events.append(dict(event))
            check_hidden(table, game, session, events)
        else:
            raise AssertionError(f"{game_id}: a random game did not finish in 2000 events")
    assert finished == 12


def check_hidden(table: Table, game: Game, session: dict[str, Any], events: list[dict[str, Any]]) -> None:
    """A value the log listing hides must not change the view: swap it, and the view stays the same."""
    listing = table.events(session["id"])
    live = [e for e in listing if e["status"] == "live"]
    assert len(live) == len(events)
    seen = views_with(table, game, session, events)
    for index, entry in enumerate(live):
        if not entry.get("hidden"):
            continue
        hidden = [k for k, v in entry["payload"].items() if v is None and events[index].get(k) is not None]
        assert hidden, "a hidden event hides at least one field"
        for field in hidden:
            for value in itertools.islice(alternatives(game, events[index], field), 8):
                swapped = [*events[:index], {**events[index], field: value}, *events[index + 1:]]
                other = views_with(table, game, session, swapped)
                assert other is None or other == seen, f"the view shows the hidden {field!r} of {entry}"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_event_type_has_an_example_and_a_bounded_schema(game_id: str) -> None:
    game = GAMES[game_id]
    for declared in game.event_types:
        assert declared.example["type"] == declared.type
        validate_event(game, dict(declared.example))
        for name, schema in declared.properties.items():
            assert "type" in schema, f"{declared.type}.{name} has no type"
        assert set(declared.required) <= set(declared.properties)
        assert game.describe(dict(declared.example))

"""Dračí hrad's hero cards kept across games (ruling H2): the store, its API, its refusals, and new games taking
the stored cards into their options."""
from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games import MalformedEventError
from companion.games.draci_hrad.catalogue import DEFAULT_CARDS, HEROES, card_json
from companion.hero_store import HeroCardStore
from companion.log import EventLog
from companion.table import Table
from tests.test_trust import TABLET, pair, tablet
from web.app import create_app, shutdown

GAME = "draci-hrad"
RULEBOOK = {hero: card_json(DEFAULT_CARDS[hero]) for hero in HEROES}


def cards(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/api/hero-cards")
    assert response.status_code == 200
    return response.get_json()


def new_game(client: FlaskClient, players: list[str], **options: Any) -> dict[str, Any]:
    response = client.post("/api/sessions", json={"game": GAME, "players": players, "options": options})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def hero_view(view: dict[str, Any], player: str) -> dict[str, Any]:
    return next(h for h in view["state"]["heroes"] if h["player"] == player)


class Apps:
    """Apps over the same data folder, one after the other: a restart of the companion."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.running: list[Flask] = []

    def start(self) -> Flask:
        self.running.append(create_app(self.config))
        return self.running[-1]

    def stop(self, application: Flask) -> None:
        self.running.remove(application)
        shutdown(application)


@pytest.fixture
def apps(app_config: dict[str, Any]) -> Iterator[Apps]:
    made = Apps(app_config)
    yield made
    for application in list(made.running):
        made.stop(application)


def test_the_starting_values_until_someone_edits_them(client: FlaskClient) -> None:
    body = cards(client)
    assert body["cards"] == body["defaults"] == RULEBOOK and body["edited"] == []
    assert body["from_rulebook"]["arcana"] == ["attack", "defence", "bow"] and body["from_rulebook"]["argilos"] == []
    assert body["cards"]["arcana"]["attack"] == 11 and body["cards"]["arcana"]["defence"] == 11  # ruling H2
    assert body["cards"]["fist"]["defence"] == 13 and body["cards"]["parbat"]["magic"] is False
    assert body["order"] == list(HEROES) and set(body["names"]) == set(HEROES) and body["rule"] == "H2"


def home_note(client: FlaskClient) -> str | None:
    """What Home says, where Dračí hrad is chosen, of the hero cards not copied yet."""
    page = client.get("/").get_data(as_text=True)
    data = page.split('<script id="option-pages-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    return json.loads(data)[GAME]["hero_cards"]["note"]


def test_home_names_the_heroes_whose_cards_are_not_copied(client: FlaskClient) -> None:
    """A game started before the cards are copied plays with placeholder numbers (ruling H2): Home says so where the
    game is chosen, naming the heroes left, until all six are copied."""
    assert home_note(client) == ("No hero card is copied from the physical cards yet: the heroes play with placeholder "
                                 "numbers.")
    assert client.put("/api/hero-cards/arcana", json={"lives": 14}).status_code == 200
    assert home_note(client) == ("Not copied from the physical cards yet: Argilos, Fist, Parbat, Neira and Arspel, who "
                                 "play with placeholder numbers.")
    for hero in ("argilos", "fist", "parbat", "neira"):
        assert client.put(f"/api/hero-cards/{hero}", json={"lives": 12}).status_code == 200
    assert "Arspel, who play" in home_note(client)
    assert client.put("/api/hero-cards/arspel", json={}).status_code == 200  # copied as the rulebook's values stand
    assert home_note(client) is None


def test_a_saved_card_is_kept_across_a_restart(apps: Apps) -> None:
    first = apps.start()
    answer = first.test_client().put("/api/hero-cards/arcana", json={"lives": 14, "red": 4, "weapons": ["bow"]})
    assert answer.status_code == 200, answer.get_json()
    saved = answer.get_json()
    assert saved["cards"]["arcana"] == {**RULEBOOK["arcana"], "lives": 14, "red": 4, "weapons": ["bow"]}
    assert saved["edited"] == ["arcana"] and saved["cards"]["fist"] == RULEBOOK["fist"]
    # fields left out keep the stored values
    again = first.test_client().put("/api/hero-cards/arcana", json={"attack": 12}).get_json()
    assert again["cards"]["arcana"] == {**RULEBOOK["arcana"], "attack": 12, "lives": 14, "red": 4, "weapons": ["bow"]}
    apps.stop(first)
    second = apps.start()
    assert cards(second.test_client())["cards"]["arcana"] == again["cards"]["arcana"]


@pytest.mark.parametrize("hero, body, status, words", [
    ("arcana", {"attack": 31}, 400, "attack must be a whole number 0-30"),
    ("arcana", {"attack": -1}, 400, "attack"),
    ("arcana", {"defence": 2.5}, 400, "defence"),
    ("arcana", {"lives": 0}, 400, "lives"),
    ("arcana", {"lives": True}, 400, "lives"),
    ("arcana", {"red": 10}, 400, "red threshold must be below the lives"),  # Arcana has 10 lives
    ("arcana", {"lives": 3}, 400, "red threshold must be below the lives"),  # her red threshold is 3
    ("arcana", {"weapons": ["sword"]}, 400, "weapons lists some of"),
    ("arcana", {"weapons": "bow"}, 400, "weapons"),
    ("arcana", {"magic": "yes"}, 400, "magic must be true or false"),
    ("arcana", {"speed": 3}, 400, "no field 'speed'"),
    ("bilbo", {"attack": 10}, 404, "no hero 'bilbo'"),
])
def test_a_card_that_does_not_hold_is_refused_and_changes_nothing(client: FlaskClient, hero: str, body: Any,
                                                                   status: int, words: str) -> None:
    before = cards(client)
    response = client.put(f"/api/hero-cards/{hero}", json=body)
    assert response.status_code == status
    error = response.get_json()
    assert words in error["error"]["message"]
    assert error.get("rule") == "H2" or "H2" in error["error"]["message"]
    assert cards(client) == before


def test_bodies_that_are_not_a_card_are_refused(client: FlaskClient) -> None:
    before = cards(client)
    for data, content_type in (("[1]", "application/json"), ("nope", "application/json"),
                               ('{"attack": NaN}', "application/json"), ('{"attack": 3}', "text/plain")):
        response = client.put("/api/hero-cards/fist", data=data, content_type=content_type)
        assert response.status_code in (400, 415), (data, response.status_code)
        assert response.get_json()["error"]["message"]
    assert client.post("/api/hero-cards/fist", json={"attack": 3}).status_code == 405
    assert cards(client) == before


def test_only_the_kiosk_and_paired_devices_edit_cards(app: Flask) -> None:
    before = cards(app.test_client())
    stranger = tablet(app, TABLET)
    refused = stranger.put("/api/hero-cards/fist", json={"attack": 20})
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "pairing_required"
    assert cards(app.test_client()) == before
    device = tablet(app, "192.168.1.51")
    pair(app, device)
    assert device.put("/api/hero-cards/fist", json={"attack": 20}).status_code == 200
    assert cards(app.test_client())["cards"]["fist"]["attack"] == 20


def test_a_new_game_takes_the_stored_cards_and_keeps_them(client: FlaskClient) -> None:
    client.put("/api/hero-cards/fist", json={"attack": 15, "lives": 16, "red": 5})
    game = new_game(client, ["Ada", "Ben"], heroes=["fist", "arcana"])
    assert game["options"]["hero_cards"]["fist"] == {**RULEBOOK["fist"], "attack": 15, "lives": 16, "red": 5}
    ada = hero_view(game, "Ada")
    assert (ada["attack"], ada["lives"], ada["max_lives"], ada["red"]) == (15, 16, 16, 5)
    # a later edit changes the next game, never one already started (its options hold the cards)
    client.put("/api/hero-cards/fist", json={"lives": 8, "red": 2})
    client.post(f"/api/sessions/{game['id']}/events", json={"type": "buy", "player": "Ada", "item": "sword"})
    kept = client.get(f"/api/sessions/{game['id']}").get_json()
    assert hero_view(kept, "Ada")["max_lives"] == 16 and kept["options"]["hero_cards"]["fist"]["lives"] == 16
    assert hero_view(new_game(client, ["Cleo"], heroes=["fist"]), "Cleo")["max_lives"] == 8


def test_a_replay_after_a_restart_uses_the_session_s_own_cards(apps: Apps) -> None:
    first = apps.start()
    kiosk = first.test_client()
    kiosk.put("/api/hero-cards/argilos", json={"lives": 20})
    game = new_game(kiosk, ["Ada"])
    kiosk.post(f"/api/sessions/{game['id']}/events", json={"type": "buy", "player": "Ada", "item": "sword"})
    kiosk.put("/api/hero-cards/argilos", json={"lives": 9})
    apps.stop(first)
    replayed = apps.start().test_client().get(f"/api/sessions/{game['id']}").get_json()
    assert replayed["status"] == "running" and hero_view(replayed, "Ada")["max_lives"] == 20


def test_cards_given_explicitly_win_over_the_store(client: FlaskClient) -> None:
    client.put("/api/hero-cards/argilos", json={"attack": 20})
    game = new_game(client, ["Ada"], hero_cards={"argilos": {"attack": 5}})
    assert hero_view(game, "Ada")["attack"] == 5
    assert game["options"]["hero_cards"]["argilos"]["attack"] == 5
    refused = client.post("/api/sessions", json={"game": GAME, "players": ["Ada"],
                                                 "options": {"hero_cards": {"argilos": {"red": 99}}}})
    assert refused.status_code == 400 and refused.get_json()["rule"] == "H2"


def test_other_games_and_bare_tables_are_untouched(tmp_path: Any) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    try:
        store = HeroCardStore(log)
        store.save("neira", {"attack": 17})
        table = Table(log)
        assert table.create(GAME, ["Ada"], {"heroes": ["neira"]})["options"]["hero_cards"]["neira"]["attack"] == 11
        store.attach(table)
        assert table.create(GAME, ["Ada"], {"heroes": ["neira"]})["options"]["hero_cards"]["neira"]["attack"] == 17
        diego = table.create("diego-drachenzahn", ["Ada", "Ben"])
        assert "hero_cards" not in diego["options"]
        with pytest.raises(MalformedEventError) as refused:
            table.create(GAME, ["Ada"], ["not", "an", "object"])
        assert "options must be an object" in str(refused.value)
    finally:
        log.close()


def test_a_stored_card_that_no_longer_holds_falls_back_to_the_rulebook(tmp_path: Any) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    try:
        log.set_hero_card("fist", {"attack": 99, "defence": 13, "lives": 12, "red": 3, "weapons": [], "magic": True})
        assert HeroCardStore(log).cards()["fist"] == RULEBOOK["fist"]
    finally:
        log.close()


def test_the_registry_shows_each_hero_by_name_for_the_new_game_form(client: FlaskClient) -> None:
    games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    options = {o["id"]: o for o in games[GAME]["options"]}
    assert options["heroes"]["kind"] == "symbols" and options["heroes"]["choices"] == list(HEROES)
    assert options["heroes"]["labels"]["parbat"] == "Parbat the Barbarian" and "length" not in options["heroes"]
    assert options["hero_cards"]["kind"] == "object" and options["hero_cards"]["ruling"] == "H2"

"""Dračí hrad's pure rules ruling by ruling (H1-H17), the rulebook's combat examples to the number, bad input
refused with the rule named, the command step's dice, and the log round trip through a Table."""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.base import RULES_VERSION, contract_problems
from companion.games.draci_hrad import HradState
from companion.games.schema import validate_event
from companion.log import EventLog
from companion.table import Table
from tests.rules import expect_refused

GAME = GAMES["draci-hrad"]
TWO = ("Ada", "Ben")


def new(players: Iterable[str] = TWO, **options: Any) -> HradState:
    return GAME.setup(tuple(players), GAME.resolve_options(options))


def play(state: HradState, *events: Mapping[str, Any]) -> HradState:
    for event in events:
        validate_event(GAME, event)
        state = GAME.apply(state, event)
    return state


def refused(state: HradState, event: Mapping[str, Any], cls: type[RuleError], rule: str) -> RuleError:
    """Apply `event`, expect `cls` naming `rule`, and check the state is untouched."""
    return expect_refused(GAME, state, event, cls, rule)


def hero(state: HradState, player: str) -> dict[str, Any]:
    return next(h for h in GAME.view(state)["heroes"] if h["player"] == player)


def buy(player: str, *items: str) -> list[dict[str, Any]]:
    return [{"type": "buy", "player": player, "item": i} for i in items]


def end(player: str | None = None) -> dict[str, Any]:
    return {"type": "end_turn", "player": player}


def fight(players: list[str], enemy: str, weapons: list[str | None]) -> dict[str, Any]:
    return {"type": "fight", "players": players, "enemy": enemy, "weapons": weapons}


def initiative(hero_die: int, enemy_die: int) -> dict[str, Any]:
    return {"type": "initiative", "hero_die": hero_die, "enemy_die": enemy_die}


def heroes_strike(*dice: int, enemy_die: int, attackers: list[str] | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "strike", "hero_dice": list(dice), "enemy_defence_die": enemy_die}
    if attackers is not None:
        event["attackers"] = attackers
    return event


def enemy_strike(enemy_dice: list[int], defence_dice: list[int], **more: Any) -> dict[str, Any]:
    return {"type": "strike", "enemy_dice": enemy_dice, "defence_dice": defence_dice, **more}


def arcana_and_fist() -> HradState:
    return new(TWO, heroes=["arcana", "fist"])


def last_exchange(state: HradState) -> dict[str, Any]:
    shown = GAME.view(state)
    running = shown["fight"] or shown["last_fight"]
    return running["exchanges"][-1]


# the rulebook's combat examples ----------------------------------------------------------------------------


def test_rulebook_example_arcana_with_the_bow_against_the_black_knight() -> None:
    # ruling H5: 6 + 11 + 4 = 21 against 12 + 4 = 16 deals 5; then 15 + 5 = 20 against 11 + 5 + 4 = 20 deals 0
    state = play(arcana_and_fist(), *buy("Ada", "bow", "chain_mail", "shield"),
                 fight(["Ada"], "black_knight", ["bow"]), initiative(5, 2))
    assert GAME.view(state)["fight"]["strikes_next"] == "heroes"
    state = play(state, heroes_strike(4, enemy_die=4))
    hit = last_exchange(state)["strikes"][0]
    assert [p["value"] for p in hit["attack"]] == [11, 6, 4] and hit["attack_total"] == 21
    assert [p["value"] for p in hit["defence"]] == [12, 4] and hit["defence_total"] == 16
    assert hit["damage"] == 5 and hit["sum"] == "11 + 6 + 4 = 21 vs 12 + 4 = 16: 5 damage"
    assert GAME.view(state)["fight"]["enemy_lives"] == 20 - 5
    state = play(state, enemy_strike([5], [4]))
    hit = last_exchange(state)["strikes"][0]
    assert hit["attack_total"] == 20
    # the bow is held in both hands: the shield she owns does not count (ruling H5)
    assert [p["value"] for p in hit["defence"]] == [11, 5, 0, 4] and hit["defence_total"] == 20
    assert hit["damage"] == 0 and hero(state, "Ada")["lives"] == hero(state, "Ada")["max_lives"]


def test_rulebook_example_fist_defends_with_leather_armour() -> None:
    # ruling H5: 13 + 3 + 2 = 18 against the Black Knight's 15 + 3 = 18
    state = play(arcana_and_fist(), end("Ada"), *buy("Ben", "leather"), fight(["Ben"], "black_knight", [None]),
                 initiative(1, 6), enemy_strike([3], [2]))
    hit = last_exchange(state)["strikes"][0]
    assert hit["attack_total"] == 18 and hit["defence_total"] == 18 and hit["damage"] == 0
    assert [p["value"] for p in hit["defence"]] == [13, 3, 0, 2]


# H1 ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 7])
def test_h1_one_to_six_heroes(count: int) -> None:
    # ruling H1
    with pytest.raises(IllegalEventError) as info:
        new([f"P{i}" for i in range(count)])
    assert info.value.rule == "H1"


def test_h1_each_player_is_one_hero_in_seat_order() -> None:
    # ruling H1: the heroes option picks the hero of each seat; by default the rulebook's order
    assert [h["hero"] for h in GAME.view(new(("A", "B", "C")))["heroes"]] == ["argilos", "arcana", "fist"]
    state = new(("A", "B"), heroes=["neira", "parbat"])
    assert [h["hero"] for h in GAME.view(state)["heroes"]] == ["neira", "parbat"]
    for bad in (["neira"], ["neira", "neira"]):
        with pytest.raises(MalformedEventError) as info:
            new(("A", "B"), heroes=bad)
        assert info.value.rule == "H1"


@pytest.mark.parametrize("field,value", [("gold", 17), ("lives", 3), ("attack", 14), ("defence", 2),
                                         ("treasure", 45), ("sword", 2), ("cloak", 1), ("chain_mail", 1),
                                         ("red", 5), ("max_lives", 20), ("waiting", 2), ("poisoned", 1)])
def test_h1_any_hero_number_is_set_by_hand_and_logged(field: str, value: int) -> None:
    # ruling H1: the override is logged with what the rules had and why
    state = new()
    before = hero(state, "Ben")
    state = play(state, {"type": "override", "player": "Ben", "field": field, "value": value, "reason": "card"})
    entry = GAME.view(state)["overrides"][-1]
    assert entry["player"] == "Ben" and entry["field"] == field and entry["now"] == value
    assert entry["reason"] == "card" and entry["round"] == 1
    shown = hero(state, "Ben")
    key = {"max_lives": "max_lives", "poisoned": "poisoned"}.get(field, field)
    if field in ("sword", "cloak", "chain_mail"):
        assert shown["equipment" if field != "cloak" else "cards"][field] == value and entry["was"] == 0
    else:
        assert shown[key] == (bool(value) if field == "poisoned" else value)
        assert entry["was"] == (int(before[key]) if field == "poisoned" else before[key])


def test_h1_override_refuses_numbers_that_break_the_card() -> None:
    # ruling H1: lives stay within 0..max, the red threshold below the lives
    state = new()
    refused(state, {"type": "override", "player": "Ada", "field": "lives", "value": 30, "reason": ""},
            IllegalEventError, "H1")
    refused(state, {"type": "override", "player": "Ada", "field": "red", "value": 12, "reason": ""},
            IllegalEventError, "H1")
    refused(state, {"type": "override", "player": "Zed", "field": "gold", "value": 1, "reason": ""},
            MalformedEventError, "H1")
    refused(state, {"type": "override", "field": "enemy_lives", "value": 3, "reason": ""}, IllegalEventError, "H1")


def test_h1_enemy_lives_set_by_hand_in_a_fight() -> None:
    # ruling H1
    state = play(new(), fight(["Ada"], "skeleton", [None]),
                 {"type": "override", "field": "enemy_lives", "value": 3, "reason": "miscounted"})
    assert GAME.view(state)["fight"]["enemy_lives"] == 3
    assert GAME.view(state)["overrides"][-1] == {"player": None, "field": "enemy_lives", "was": 12, "now": 3,
                                                 "reason": "miscounted", "round": 1, "enemy": "skeleton",
                                                 "heroes": [], "words": "the Skeleton's lives"}


# H2 ---------------------------------------------------------------------------------------------------------


def test_h2_known_hero_card_values_are_the_defaults() -> None:
    # ruling H2: Arcana attack 11 and defence 11, Fist defence 13, the Barbarian no magic
    state = new(("A", "F", "P"), heroes=["arcana", "fist", "parbat"])
    a, f, p = hero(state, "A"), hero(state, "F"), hero(state, "P")
    assert (a["attack"], a["defence"]) == (11, 11) and f["defence"] == 13 and p["magic"] is False
    assert "bow" in a["weapons_allowed"]


def test_h2_hero_cards_option_keeps_the_physical_cards() -> None:
    # ruling H2: entered once, kept in the options; missing values keep the defaults
    resolved = GAME.resolve_options({"hero_cards": {"fist": {"lives": 15, "red": 5, "weapons": ["axe", "bow"]}}})
    assert resolved["hero_cards"]["fist"] == {"attack": 12, "defence": 13, "lives": 15, "red": 5,
                                              "weapons": ["axe", "bow"], "magic": True}
    assert resolved["hero_cards"]["arcana"]["attack"] == 11
    state = GAME.setup(("A",), {**resolved, "heroes": ["fist"]})
    assert (hero(state, "A")["lives"], hero(state, "A")["red"]) == (15, 5)
    option = next(o for o in GAME.options if o.id == "hero_cards")
    assert option.to_json()["kind"] == "object"
    assert GAME.resolve_options(resolved) == resolved  # the stored options read back the same


@pytest.mark.parametrize("cards", [{"smaug": {}}, {"fist": {"lives": 0}}, {"fist": {"red": 20}},
                                   {"fist": {"weapons": ["sword"]}}, {"fist": {"magic": 1}},
                                   {"fist": {"speed": 3}}, {"fist": 3}, [1, 2]])
def test_h2_bad_hero_cards_are_refused(cards: Any) -> None:
    # ruling H2
    with pytest.raises(MalformedEventError) as info:
        GAME.resolve_options({"hero_cards": cards})
    assert info.value.rule == "H2"


@pytest.mark.parametrize("hero_id,item", [("parbat", "cloak"), ("parbat", "opening_spell"), ("fist", "bow"),
                                          ("neira", "two_hand_sword"), ("arspel", "axe")])
def test_h2_a_hero_cannot_buy_what_the_card_forbids(hero_id: str, item: str) -> None:
    # ruling H2: the Barbarian and magic; two-hand weapons and the bow by the hero card
    state = new(("A",), heroes=[hero_id])
    error = refused(state, buy("A", item)[0], IllegalEventError, "H2")
    assert "magic" in error.message or "may not use" in error.message


def test_h2_the_barbarian_buys_the_skunk_and_potion() -> None:
    # ruling H2: only the opening spell and the cloak are magic objects
    state = play(new(("A",), heroes=["parbat"]), *buy("A", "skunk", "potion", "antidote", "darren_back"))
    assert hero(state, "A")["cards"] == {"darren_back": 1, "skunk": 1, "antidote": 1, "potion": 1}


# H3, H4 -------------------------------------------------------------------------------------------------------


def test_h3_two_hundred_gold_each_and_no_spending_beyond_the_purse() -> None:
    # ruling H3
    state = new()
    assert [h["gold"] for h in GAME.view(state)["heroes"]] == [200, 200]
    assert GAME.view(state)["scores"] == {"Ada": 200, "Ben": 200}
    state = play(state, *buy("Ada", "chain_mail"))
    assert hero(state, "Ada")["gold"] == 100
    state = play(state, *buy("Ada", "two_hand_sword") * 6)
    assert hero(state, "Ada")["gold"] == 4
    error = refused(state, buy("Ada", "sword")[0], IllegalEventError, "H3")
    assert "12" in error.message and "4" in error.message


def test_h4_chips_are_unlimited_and_cards_sold_cheapest_first() -> None:
    # ruling H4: one torch at each of 2, 4 and 6, cheapest first, then sold out
    state = play(new(), *buy("Ada", "sword", "sword", "sword"))
    assert hero(state, "Ada")["equipment"] == {"sword": 3} and hero(state, "Ada")["gold"] == 200 - 36
    torch = lambda s: next(i for sq in GAME.view(s)["shop"] for i in sq["items"] if i["item"] == "torch")  # noqa: E731
    assert torch(state)["price"] == 2 and torch(state)["stock"] == [2, 4, 6]
    state = play(state, *buy("Ada", "torch"), end("Ada"), *buy("Ben", "torch"))
    assert hero(state, "Ada")["gold"] == 164 - 2 and hero(state, "Ben")["gold"] == 200 - 4
    state = play(state, *buy("Ben", "torch"))
    assert torch(state)["price"] is None
    refused(state, buy("Ben", "torch")[0], IllegalEventError, "H4")


def test_h4_shop_lists_the_four_squares_with_the_rulebooks_prices() -> None:
    # ruling H4 (rulebook: List of Goods)
    shop = {sq["square"]: {i["item"]: i for i in sq["items"]} for sq in GAME.view(new())["shop"]}
    assert list(shop) == ["weapon_maker", "armourer", "merchant", "magician"]
    assert {k: (v["price"], v["attack"]) for k, v in shop["weapon_maker"].items()} == {
        "sword": (12, 5), "two_hand_sword": (16, 7), "axe": (14, 6), "bow": (16, 6), "hammer": (10, 4)}
    assert {k: (v["price"], v["defence"]) for k, v in shop["armourer"].items()} == {
        "shield": (6, 1), "leather": (20, 3), "chain_mail": (100, 5)}
    assert {k: v["stock"] for k, v in shop["merchant"].items()} == {"food": [2, 4, 6], "torch": [2, 4, 6]}
    assert {k: v["stock"] for k, v in shop["magician"].items()} == {
        "darren_back": [5, 10, 15], "skunk": [3, 6, 9], "antidote": [5, 10, 15], "potion": [5, 10, 15],
        "opening_spell": [5, 10, 15], "cloak": [7, 14, 21]}


def test_h4_the_manager_edits_the_stock() -> None:
    # ruling H4: logged like an override
    state = play(new(), {"type": "stock", "item": "cloak", "prices": [30, 7], "reason": "one more"})
    assert GAME.view(state)["overrides"][-1]["was"] == [7, 14, 21]
    state = play(state, *buy("Ada", "cloak", "cloak"))
    assert hero(state, "Ada")["gold"] == 200 - 37
    refused(state, buy("Ada", "cloak")[0], IllegalEventError, "H4")


# H5 ---------------------------------------------------------------------------------------------------------


def test_h5_initiative_decides_who_attacks_first_then_they_alternate() -> None:
    # ruling H5
    state = play(new(), *buy("Ada", "sword"), fight(["Ada"], "geeants", ["sword"]))
    assert GAME.view(state)["fight"]["next"] == "initiative"
    refused(state, heroes_strike(3, enemy_die=3), IllegalEventError, "H5")
    after = play(state, initiative(2, 5))
    assert GAME.view(after)["fight"]["strikes_next"] == "enemy"
    after = play(after, enemy_strike([1], [1]))
    assert GAME.view(after)["fight"]["strikes_next"] == "heroes"
    refused(after, enemy_strike([1], [1]), MalformedEventError, "H5")  # it is the heroes' attack
    after = play(after, heroes_strike(1, enemy_die=6))
    assert GAME.view(after)["fight"]["strikes_next"] == "enemy"


def test_h5_equal_initiative_makes_that_exchange_simultaneous() -> None:
    # ruling H5: both strike, the slain enemy still finishes its attack
    state = play(new(), *buy("Ada", "two_hand_sword"), fight(["Ada"], "skeleton", ["two_hand_sword"]),
                 {"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"}, initiative(4, 4))
    assert GAME.view(state)["fight"]["dice_needed"] == {"hero_dice": 1, "enemy_defence_die": 1, "enemy_dice": 1,
                                                        "defence_dice": 1}
    state = play(state, {"type": "strike", "hero_dice": [6], "enemy_defence_die": 1, "enemy_dice": [6],
                         "defence_dice": [1]})
    done = GAME.view(state)["last_fight"]
    assert done["outcome"] == "won" and done["exchanges"][0]["kind"] == "simultaneous"
    assert hero(state, "Ada")["lives"] == 12 - (15 + 6 - (12 + 1))  # 8 damage though the Skeleton fell
    assert hero(state, "Ada")["treasure"] == 10


def test_h5_option_initiative_after_every_exchange() -> None:
    # ruling H5 option
    state = play(new(reinitiative=True), fight(["Ada"], "geeants", [None]), initiative(6, 1),
                 heroes_strike(1, enemy_die=1))
    assert GAME.view(state)["fight"]["next"] == "initiative"


def test_h5_the_weapon_must_be_owned() -> None:
    # ruling H5: an item not owned
    refused(new(), fight(["Ada"], "geeants", ["sword"]), IllegalEventError, "H5")


def test_h5_dice_are_required_and_within_one_to_six() -> None:
    # ruling H5: apply requires the dice (the command step fills them); the schema bounds them
    state = play(new(), fight(["Ada"], "geeants", [None]))
    refused(state, {"type": "initiative"}, MalformedEventError, "H5")
    refused(state, initiative(7, 1), MalformedEventError, "H5")
    for bad in (0, 7, True, "3"):
        with pytest.raises(MalformedEventError) as info:
            validate_event(GAME, {"type": "initiative", "hero_die": bad, "enemy_die": 2})
        assert info.value.rule == "H5"


def test_h5_the_command_step_rolls_only_the_missing_dice() -> None:
    # ruling H5: prepare fills what the request left out, deterministically from the table's rng
    state = play(new(), fight(["Ada"], "harpies", [None]))
    first = GAME.prepare(state, {"type": "initiative", "hero_die": 2}, random.Random(3))
    assert first["hero_die"] == 2 and 1 <= first["enemy_die"] <= 6
    assert first == GAME.prepare(state, {"type": "initiative", "hero_die": 2}, random.Random(3))
    state = play(state, initiative(1, 6))
    charge = GAME.prepare(state, {"type": "strike"}, random.Random(4))
    assert len(charge["enemy_dice"]) == 2 and len(charge["defence_dice"]) == 2 and "hero_dice" not in charge
    play(state, charge)


# H6, H7 ----------------------------------------------------------------------------------------------------------


def test_h6_harpies_attack_twice_at_one_hero() -> None:
    # ruling H6
    state = play(new(), fight(["Ada", "Ben"], "harpies", [None, None]), initiative(1, 2))
    state2 = play(state, enemy_strike([1, 2], [1, 1], targets=["Ben", "Ben"]))
    strikes = last_exchange(state2)["strikes"]
    assert [s["attack_total"] for s in strikes] == [16, 17] and {s["target"] for s in strikes} == {"Ben"}
    assert hero(state2, "Ben")["lives"] == 10 - (16 - 12) - (17 - 12)  # both talons; Arcana's default 10 lives
    refused(state, enemy_strike([6, 6], [1, 1], targets=["Ada", "Ben"]), IllegalEventError, "H6")


def test_h6_the_dragon_chooses_up_to_three_attacks_at_up_to_three_heroes() -> None:
    # ruling H6: claws 16, 16, teeth 18; always first (H7)
    state = play(new(("A", "B", "C")), fight(["A", "B", "C"], "dragon", [None, None, None]))
    assert GAME.view(state)["fight"]["strikes_next"] == "enemy"
    refused(state, initiative(6, 1), IllegalEventError, "H7")
    after = play(state, enemy_strike([1, 1, 1], [1, 1, 1], targets=["A", "B", "C"]))
    assert [(s["target"], s["attack_total"]) for s in last_exchange(after)["strikes"]] == [
        ("A", 17), ("B", 17), ("C", 19)]
    after = play(state, enemy_strike([2], [1], attacks=[2], targets=["B"]))
    assert [(s["target"], s["attack_total"]) for s in last_exchange(after)["strikes"]] == [("B", 20)]


def test_h6_option_one_die_for_the_whole_charge() -> None:
    # ruling H6 option
    state = play(new(one_die_per_charge=True), fight(["Ada"], "dragon", [None]))
    assert GAME.view(state)["fight"]["dice_needed"] == {"enemy_dice": 1, "defence_dice": 1}
    state = play(state, enemy_strike([3], [2], targets=["Ada"] * 3))
    assert [s["attack_total"] for s in last_exchange(state)["strikes"]] == [19, 19, 21]
    assert [s["defence_total"] for s in last_exchange(state)["strikes"]] == [14, 14, 14]


def test_h7_the_spider_always_attacks_first() -> None:
    # ruling H7
    state = play(new(), fight(["Ada"], "spider", [None]))
    assert GAME.view(state)["fight"]["next"] == "enemy"
    refused(state, initiative(6, 1), IllegalEventError, "H7")


@pytest.mark.parametrize("hero_id", ["neira", "arspel"])
def test_h7_neira_or_arspel_with_the_bow_fight_the_dragon_simultaneously(hero_id: str) -> None:
    # ruling H7
    state = play(new(("A",), heroes=[hero_id]), *buy("A", "bow"), fight(["A"], "dragon", ["bow"]))
    assert GAME.view(state)["fight"]["next"] == "simultaneous"
    state = play(state, {"type": "strike", "hero_dice": [6], "enemy_defence_die": 1, "enemy_dice": [1, 1, 1],
                         "defence_dice": [6, 6, 6]})
    assert last_exchange(state)["kind"] == "simultaneous"
    assert GAME.view(state)["fight"]["next"] == "simultaneous"
    other = play(new(("A",), heroes=["arcana"]), *buy("A", "bow"), fight(["A"], "dragon", ["bow"]))
    assert GAME.view(other)["fight"]["next"] == "enemy"


def archer_arcana_and_fist_at_the_dragon(rules: int | None = None) -> HradState:
    """A (Arspel, with the bow), B (Arcana) and C (Fist), 4 lives each, fight the Dragon together (a game recorded
    under rules version `rules`, today's if None)."""
    options = GAME.resolve_options({"heroes": ["arspel", "arcana", "fist"],
                                    "hero_cards": {h: {"lives": 4, "red": 1} for h in ("arspel", "arcana", "fist")}})
    if rules is not None:
        options = {**options, RULES_VERSION: rules}
    return play(GAME.setup(("A", "B", "C"), options), *buy("A", "bow"),
                fight(["A", "B", "C"], "dragon", ["bow", None, None]))


def both_strike(hero_dice: list[int], enemy_die: int, teeth_and_claws: dict[str, int]) -> dict[str, Any]:
    """An exchange on equal footing: the heroes' dice, the Dragon's defence die, and its attacks (0, 1 the claws, 2
    the teeth) at the heroes named, each rolled 6 against a defence die of 1."""
    return {"type": "strike", "hero_dice": hero_dice, "enemy_defence_die": enemy_die,
            "attacks": sorted(teeth_and_claws.values()), "enemy_dice": [6] * len(teeth_and_claws),
            "targets": [p for p, _ in sorted(teeth_and_claws.items(), key=lambda kv: kv[1])],
            "defence_dice": [1] * len(teeth_and_claws)}


def test_h7_the_dragon_strikes_first_again_once_the_archer_has_fallen() -> None:
    # ruling H7: "Neira or Arspel armed with a bow fight the Dragon simultaneously"; with the archer out, the rest
    # of the group fights the Dragon as anyone does: it strikes first
    state = archer_arcana_and_fist_at_the_dragon()
    assert GAME.view(state)["fight"]["next"] == "simultaneous"
    fist_fell = play(state, both_strike([1, 1, 1], 6, {"C": 2}))
    assert hero(fist_fell, "C")["lives"] == 0
    assert GAME.view(fist_fell)["fight"]["next"] == "simultaneous"  # the archer still stands
    archer_fell = play(state, both_strike([1, 1, 1], 6, {"A": 2}))
    assert hero(archer_fell, "A")["lives"] == 0 and last_exchange(archer_fell)["kind"] == "simultaneous"
    assert GAME.view(archer_fell)["fight"]["next"] == "enemy"
    after = play(archer_fell, enemy_strike([1], [6], attacks=[0], targets=["B"]))
    assert last_exchange(after)["kind"] == "enemy" and GAME.view(after)["fight"]["next"] == "heroes"
    recorded = play(archer_arcana_and_fist_at_the_dragon(rules=3), both_strike([1, 1, 1], 6, {"A": 2}))
    assert GAME.view(recorded)["fight"]["next"] == "simultaneous"  # a game recorded before goes on as it was


# H8 ---------------------------------------------------------------------------------------------------------


def test_h8_a_damaging_rust_worm_hit_ruins_the_weapon_in_hand() -> None:
    # ruling H8
    state = play(new(), *buy("Ada", "sword", "chain_mail"), fight(["Ada"], "rust_worm", ["sword"]),
                 initiative(1, 6))
    missed = play(state, enemy_strike([1], [6]))
    assert hero(missed, "Ada")["equipment"] == {"sword": 1, "chain_mail": 1}
    hit = play(state, enemy_strike([6], [1]))
    assert last_exchange(hit)["strikes"][0]["ruined"] == "sword"
    assert hero(hit, "Ada")["equipment"] == {"chain_mail": 1}
    assert GAME.view(hit)["fight"]["members"][0]["weapon"] is None
    chosen = play(state, enemy_strike([6], [1], ruin="chain_mail"))
    assert hero(chosen, "Ada")["equipment"] == {"sword": 1} and hero(chosen, "Ada")["armour"] == 0
    refused(state, enemy_strike([6], [1], ruin="bow"), IllegalEventError, "H8")
    other = play(new(), fight(["Ada"], "skeleton", [None]), initiative(1, 6))
    refused(other, enemy_strike([6], [1], ruin="bow"), MalformedEventError, "H8")


# H9 ---------------------------------------------------------------------------------------------------------


def test_h9_the_dart_pierces_takes_a_life_and_poisons_every_round_until_an_antidote() -> None:
    # ruling H9: 15 + die against defence + armour + die, no shield
    state = play(new(), *buy("Ada", "shield"), {"type": "dart", "player": "Ada", "attack_die": 6, "defence_die": 1})
    dart = GAME.view(state)["last_dart"]
    assert dart["attack_total"] == 21 and dart["defence_total"] == 13 and dart["pierced"]
    assert hero(state, "Ada")["lives"] == 11 and hero(state, "Ada")["poisoned"]
    assert GAME.view(state)["turn"] == "Ben"  # the trap ends the move: no antidote held, nothing to choose
    state = play(state, end("Ben"))  # a new round: the poison takes a life
    assert GAME.view(state)["round"] == 2 and hero(state, "Ada")["lives"] == 10
    state = play(state, *buy("Ada", "antidote"), end("Ada"), end("Ben"))
    assert GAME.view(state)["round"] == 3 and hero(state, "Ada")["lives"] == 9
    # an antidote bought later is used whenever its holder likes, also in another hero's move
    state = play(state, end("Ada"), {"type": "use", "player": "Ada", "item": "antidote"}, end("Ben"))
    assert hero(state, "Ada")["lives"] == 9 and not hero(state, "Ada")["poisoned"]
    refused(state, {"type": "use", "player": "Ada", "item": "antidote"}, IllegalEventError, "H15")


def dart_at_ben_holding_an_antidote() -> HradState:
    """Ben, the last seat, holds an antidote when the dart pierces him (21 against 11 + 1)."""
    return play(new(), end("Ada"), *buy("Ben", "antidote"),
                {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})


def test_h9_an_antidote_held_is_used_at_once_before_any_round_s_poison() -> None:
    # ruling H9: "an antidote held beforehand may be used at once"; rulebook: the poison takes a life each round
    # "unless you are carrying an antidote". The last seat's dart used to start the next round at once, poison
    # and all, before the antidote could be tapped.
    state = dart_at_ben_holding_an_antidote()
    shown = GAME.view(state)
    assert hero(state, "Ben")["lives"] == 9 and hero(state, "Ben")["poisoned"]  # the dart's own life
    assert shown["turn"] == "Ben" and shown["round"] == 1 and shown["antidote_choice"]
    assert shown["expects"] == ["end_turn", "use", "exchange", "override", "stock"]
    # the dart ended the move: nothing else of Ben's move, and the next hero waits for the choice
    error = refused(state, {"type": "buy", "player": "Ben", "item": "food"}, IllegalEventError, "H9")
    assert "antidote" in str(error)
    refused(state, {"type": "treasure", "player": "Ben", "value": 10}, IllegalEventError, "H9")
    state = play(state, {"type": "use", "player": "Ben", "item": "antidote"})
    shown = GAME.view(state)
    assert shown["turn"] == "Ada" and shown["round"] == 2 and not shown["antidote_choice"]  # the move is over
    assert hero(state, "Ben")["lives"] == 9 and not hero(state, "Ben")["poisoned"] and hero(state, "Ben")["cards"] == {}
    state = play(state, end("Ada"), end("Ben"))
    assert hero(state, "Ben")["lives"] == 9  # cured: no round takes a life


def test_h9_an_antidote_kept_leaves_the_poison_to_the_rounds() -> None:
    # ruling H9: the antidote "may" be used; Next keeps it, and the round's poison follows
    state = play(dart_at_ben_holding_an_antidote(), end("Ben"))
    assert GAME.view(state)["round"] == 2 and not GAME.view(state)["antidote_choice"]
    assert hero(state, "Ben")["lives"] == 8 and hero(state, "Ben")["poisoned"] and hero(state, "Ben")["cards"]
    refused(state, end("Ben"), IllegalEventError, "turn-order")


@pytest.mark.parametrize("action", [
    buy("Ada", "sword")[0], end("Ada"), fight(["Ada"], "skeleton", [None]),
    {"type": "treasure", "player": "Ada", "value": 10}])
def test_h9_the_next_hero_playing_on_keeps_the_antidote_as_next_does(action: dict[str, Any]) -> None:
    # ruling H9: the next hero's move while the choice is asked is play going on: Ben keeps the antidote, his move
    # ends as Next ends it (a new round, whose poison takes a life), then Ada's move applies. A log kept from before
    # the choice was asked (dart, then Ada's move) folds as it did then.
    kept = play(dart_at_ben_holding_an_antidote(), action)
    assert kept == play(dart_at_ben_holding_an_antidote(), end("Ben"), action)
    shown = GAME.view(kept)
    assert shown["round"] == 2 and not shown["antidote_choice"]
    assert (hero(kept, "Ben")["lives"], hero(kept, "Ben")["poisoned"], hero(kept, "Ben")["cards"]) == \
        (8, True, {"antidote": 1})


def test_h9_an_old_log_folds_to_the_numbers_it_had() -> None:
    # ruling H9: the dart's log as kept before the choice was asked, to the numbers it had then: Ben, the last seat,
    # pierced (9 lives), the new round's poison (8), the antidote still in hand; Ada buys a sword (12 gold)
    state = play(dart_at_ben_holding_an_antidote(), buy("Ada", "sword")[0])
    shown = GAME.view(state)
    assert (shown["round"], shown["turn"]) == (2, "Ada")
    assert (hero(state, "Ada")["gold"], hero(state, "Ada")["equipment"]) == (188, {"sword": 1})
    assert (hero(state, "Ben")["lives"], hero(state, "Ben")["gold"]) == (8, 195)
    # in the middle of the round no poison falls: Cleo moves next and Ben keeps his 9 lives
    state = play(new(("Ada", "Ben", "Cleo")), end("Ada"), *buy("Ben", "antidote"),
                 {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1}, buy("Cleo", "sword")[0])
    assert GAME.view(state)["round"] == 1 and GAME.view(state)["turn"] == "Cleo"
    assert hero(state, "Ben")["lives"] == 9 and hero(state, "Ben")["cards"] == {"antidote": 1}
    assert hero(state, "Cleo")["gold"] == 188


def test_h9_a_game_recorded_under_rules_version_1_ends_the_darts_move_at_once() -> None:
    # ruling H9 as version 1 played it: the dart ended the move there and then, the new round's poison with it; a
    # game recorded so folds by those rules (the table gives setup its version), and today's asks first
    old = GAME.setup(TWO, {**GAME.resolve_options({}), RULES_VERSION: 1})
    state = play(old, end("Ada"), *buy("Ben", "antidote"),
                 {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})
    shown = GAME.view(state)
    assert not shown["antidote_choice"] and (shown["round"], shown["turn"]) == (2, "Ada")
    assert hero(state, "Ben")["lives"] == 8 and hero(state, "Ben")["cards"] == {"antidote": 1}
    assert GAME.view(dart_at_ben_holding_an_antidote())["antidote_choice"]


def test_h9_a_lone_hero_playing_on_keeps_the_antidote() -> None:
    # ruling H9: alone at the table, the darted hero moves next: their next move is Next first (poison included)
    state = play(new(("Ada",)), *buy("Ada", "antidote"), {"type": "dart", "player": "Ada", "attack_die": 6,
                                                          "defence_die": 1})
    assert GAME.view(state)["antidote_choice"] and hero(state, "Ada")["lives"] == 11
    state = play(state, *buy("Ada", "food"))
    assert GAME.view(state)["round"] == 2 and not GAME.view(state)["antidote_choice"]
    assert hero(state, "Ada")["lives"] == 10 and hero(state, "Ada")["cards"] == {"antidote": 1, "food": 1}


def test_h9_what_the_choice_allows_leaves_it_asked() -> None:
    # ruling H9: the manager's numbers, the stock and another hero's cards do not answer the choice; a hero who
    # does not move next is refused as before, with the choice named
    state = play(new(("Ada", "Ben", "Cleo")), end("Ada"), *buy("Ben", "antidote"),
                 {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})
    state = play(state, {"type": "stock", "item": "torch", "prices": [3], "reason": "t"},
                 {"type": "override", "player": "Ada", "field": "gold", "value": 150, "reason": "t"})
    assert GAME.view(state)["antidote_choice"] and GAME.view(state)["turn"] == "Ben"
    error = refused(state, buy("Ada", "sword")[0], IllegalEventError, "H9")  # Cleo moves next, not Ada
    assert "use the antidote now or tap Next" in str(error)
    refused(state, end("Ada"), IllegalEventError, "turn-order")
    state = play(state, end("Ben"))
    assert GAME.view(state)["turn"] == "Cleo" and hero(state, "Ben")["cards"] == {"antidote": 1}


def test_h9_a_dart_that_takes_the_last_life_asks_nothing() -> None:
    # rulings H9, H10: a defeated hero uses no antidote
    state = play(new(), end("Ada"), *buy("Ben", "antidote"),
                 {"type": "override", "player": "Ben", "field": "lives", "value": 1, "reason": "t"},
                 {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})
    assert hero(state, "Ben")["out"] and not GAME.view(state)["antidote_choice"]
    assert GAME.view(state)["turn"] == "Ada"


def test_h9_a_dart_that_does_not_pierce_does_nothing() -> None:
    # ruling H9: armour counts
    state = play(new(), *buy("Ada", "leather"), {"type": "dart", "player": "Ada", "attack_die": 1,
                                                 "defence_die": 1})
    assert GAME.view(state)["last_dart"]["defence_total"] == 12 + 3 + 1
    assert hero(state, "Ada")["lives"] == 12 and not hero(state, "Ada")["poisoned"]


def test_h9_an_antidote_needs_poison() -> None:
    # ruling H9
    refused(play(new(), *buy("Ada", "antidote")), {"type": "use", "player": "Ada", "item": "antidote"},
            IllegalEventError, "H9")


# H10 --------------------------------------------------------------------------------------------------------


def at_red(state: HradState, player: str) -> HradState:
    red = hero(state, player)["red"]
    return play(state, {"type": "override", "player": player, "field": "lives", "value": red, "reason": "test"})


def test_h10_at_the_red_threshold_no_attack_only_the_cloak() -> None:
    # ruling H10
    state = play(at_red(new(), "Ada"), *buy("Ada", "cloak", "skunk"), fight(["Ada"], "geeants", [None]),
                 initiative(6, 1))
    assert GAME.view(state)["fight"]["strikes_next"] == "enemy" and not hero(state, "Ada")["can_attack"]
    refused(state, heroes_strike(3, enemy_die=3, attackers=["Ada"]), IllegalEventError, "H10")
    refused(state, {"type": "use", "player": "Ada", "item": "skunk"}, IllegalEventError, "H10")
    state = play(state, enemy_strike([1], [6]))
    state = play(state, {"type": "use", "player": "Ada", "item": "cloak"})
    assert GAME.view(state)["last_fight"]["outcome"] == "escaped"


def test_h10_at_zero_lives_the_hero_is_out_and_the_points_still_count() -> None:
    # ruling H10
    state = play(new(), *buy("Ada", "sword"), {"type": "treasure", "player": "Ada", "value": 35}, end("Ben"),
                 fight(["Ada"], "dragon", ["sword"]))
    state = play(state, {"type": "override", "player": "Ada", "field": "lives", "value": 1, "reason": "test"},
                 enemy_strike([6, 6, 6], [1, 1, 1]))
    assert hero(state, "Ada")["out"] and GAME.view(state)["last_fight"]["outcome"] == "lost"
    assert GAME.view(state)["scores"]["Ada"] == 188 + 35
    assert GAME.view(state)["turn"] == "Ben"
    refused(state, end("Ada"), IllegalEventError, "turn-order")
    state = play(state, end("Ben"))
    assert GAME.view(state)["turn"] == "Ben"  # the defeated hero is passed over


# H11, H12 -----------------------------------------------------------------------------------------------------


def test_h11_skunk_with_initiative_leaves_at_once() -> None:
    # ruling H11
    state = play(new(), *buy("Ada", "skunk"), fight(["Ada"], "black_knight", [None]),
                 {"type": "use", "player": "Ada", "item": "skunk", "hero_die": 5, "enemy_die": 2})
    done = GAME.view(state)["last_fight"]
    assert done["outcome"] == "escaped" and done["exchanges"] == [] and hero(state, "Ada")["cards"] == {}
    assert hero(state, "Ada")["treasure"] == 0 and GAME.view(state)["fight"] is None


def test_h11_skunk_without_initiative_the_enemy_strikes_once_then_the_hero_leaves() -> None:
    # ruling H11
    state = play(new(), *buy("Ada", "skunk"), fight(["Ada"], "black_knight", [None]),
                 {"type": "use", "player": "Ada", "item": "skunk", "hero_die": 2, "enemy_die": 5})
    assert GAME.view(state)["fight"]["skunk_pending"]
    refused(state, heroes_strike(3, enemy_die=3), MalformedEventError, "H5")
    state = play(state, enemy_strike([6], [1]))
    assert GAME.view(state)["last_fight"]["outcome"] == "escaped"
    assert hero(state, "Ada")["lives"] == 12 - (21 - 13)


def test_h11_the_skunk_is_no_use_against_the_dragon() -> None:
    # ruling H11
    state = play(new(), *buy("Ada", "skunk"), fight(["Ada"], "dragon", [None]))
    refused(state, {"type": "use", "player": "Ada", "item": "skunk"}, IllegalEventError, "H11")


def test_h12_the_cloak_after_a_defence_turns_the_card_face_down() -> None:
    # ruling H12
    state = play(new(), *buy("Ada", "cloak"), fight(["Ada"], "skeleton", [None]), initiative(6, 1))
    refused(state, {"type": "use", "player": "Ada", "item": "cloak"}, IllegalEventError, "H12")
    state = play(state, heroes_strike(1, enemy_die=6))
    refused(state, {"type": "use", "player": "Ada", "item": "cloak"}, IllegalEventError, "H12")
    state = play(state, enemy_strike([1], [1]), {"type": "use", "player": "Ada", "item": "cloak"})
    done = GAME.view(state)["last_fight"]
    assert done["outcome"] == "escaped" and done["shares"] == {} and hero(state, "Ada")["cards"] == {}


def test_h12_with_initiative_after_every_exchange_the_cloak_waits_for_the_heroes_turn_to_attack() -> None:
    # ruling H12 with the reinitiative option: right after the hero's own attack it is not "instead of attacking"
    state = play(new(reinitiative=True), *buy("Ada", "cloak"), fight(["Ada"], "black_knight", [None]),
                 initiative(1, 6), enemy_strike([1], [6]))
    assert GAME.view(state)["fight"]["next"] == "initiative"
    defended = state
    state = play(state, initiative(6, 1), heroes_strike(1, enemy_die=6))
    assert GAME.view(state)["fight"]["next"] == "initiative"
    refused(state, {"type": "use", "player": "Ada", "item": "cloak"}, IllegalEventError, "H12")
    assert not GAME.view(state)["fight"]["members"][0]["may_cloak"]  # the page offers no cloak then
    for ready in (defended, play(state, initiative(6, 1))):  # after the defence; at the heroes' turn to attack
        assert GAME.view(ready)["fight"]["members"][0]["may_cloak"]
        gone = play(ready, {"type": "use", "player": "Ada", "item": "cloak"})
        assert GAME.view(gone)["last_fight"]["outcome"] == "escaped"


def test_h12_the_barbarian_cannot_use_a_cloak_given_by_hand() -> None:
    # ruling H12 with H2
    state = play(new(("A",), heroes=["parbat"]),
                 {"type": "override", "player": "A", "field": "cloak", "value": 1, "reason": "gift"},
                 fight(["A"], "spider", [None]), enemy_strike([1], [1]))
    refused(state, {"type": "use", "player": "A", "item": "cloak"}, IllegalEventError, "H2")


# H13 --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [10, 15, 20, 35])
def test_h13_treasures_by_tap(value: int) -> None:
    # ruling H13
    state = play(new(), {"type": "treasure", "player": "Ada", "value": value})
    assert hero(state, "Ada")["treasure"] == value and GAME.view(state)["turn"] == "Ben"


def test_h13_treasure_values_outside_the_four_are_refused() -> None:
    # ruling H13
    with pytest.raises(MalformedEventError) as info:
        validate_event(GAME, {"type": "treasure", "player": "Ada", "value": 25})
    assert info.value.rule == "H13"


def test_h13_a_group_shares_equally_and_the_remainder_is_assigned() -> None:
    # ruling H13
    state = play(new(("A", "B", "C")), {"type": "treasure", "player": "A", "value": 35, "group": ["B"]})
    assert (hero(state, "A")["treasure"], hero(state, "B")["treasure"]) == (18, 17)
    state = play(new(("A", "B", "C")), {"type": "treasure", "player": "A", "value": 20, "group": ["B", "C"],
                                         "remainder_to": "C"})
    assert [hero(state, p)["treasure"] for p in "ABC"] == [6, 6, 8]
    refused(new(("A", "B", "C")), {"type": "treasure", "player": "A", "value": 20, "remainder_to": "B"},
            IllegalEventError, "H13")


def test_h13_the_dragon_slain_as_its_slayers_fall_is_shared_by_them_alone() -> None:
    # ruling H13 (a group shares the treasure) and H10 (a defeated hero is out, their points still count): the
    # Dragon's 250 go to the heroes who struck in the exchange that slew it, though it took them down with it;
    # never to a hero who fell before (a game recorded under rules version 3 gave the fallen a share too)
    def slain(rules: int | None = None) -> HradState:
        state = play(archer_arcana_and_fist_at_the_dragon(rules), both_strike([1, 1, 1], 6, {"C": 2}),
                     {"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"})
        return play(state, both_strike([6, 6], 1, {"A": 0, "B": 2}))
    state = slain()
    assert GAME.view(state)["last_fight"]["outcome"] == "won"
    assert [hero(state, p)["lives"] for p in "ABC"] == [0, 0, 0]
    assert [hero(state, p)["treasure"] for p in "ABC"] == [125, 125, 0]
    assert [hero(slain(rules=3), p)["treasure"] for p in "ABC"] == [84, 83, 83]


def test_h13_the_view_keeps_how_the_last_treasure_was_shared() -> None:
    # ruling H13: each hero's share and the remainder's keeper, shown after the treasure is paid
    state = play(new(("A", "B", "C")), {"type": "treasure", "player": "A", "value": 35, "group": ["B", "C"],
                                         "remainder_to": "B"})
    assert GAME.view(state)["last_treasure"] == {"player": "A", "value": 35, "shares": {"A": 11, "B": 13, "C": 11},
                                                 "remainder": 2, "remainder_to": "B"}
    state = play(state, {"type": "dart", "player": "B", "attack_die": 1, "defence_die": 6})
    assert GAME.view(state)["last_treasure"] is None and GAME.view(state)["last_dart"] is not None
    state = play(state, {"type": "treasure", "player": "C", "value": 10})
    shown = GAME.view(state)
    assert shown["last_treasure"]["shares"] == {"C": 10} and shown["last_treasure"]["remainder"] == 0
    assert shown["last_dart"] is None and shown["last_fight"] is None
    state = play(state, fight(["A"], "skeleton", [None]))
    assert GAME.view(state)["last_treasure"] is None


def test_h13_a_group_victory_gives_the_remainder_to_the_hero_named_at_the_fight() -> None:
    # ruling H13: the Harpies' 25 shared by two; the indivisible 1 is assigned at the table
    won = ({"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"}, initiative(6, 1),
           heroes_strike(6, 6, enemy_die=1))
    state = play(new(("A", "B", "C")), {**fight(["A", "B"], "harpies", [None, None]), "remainder_to": "B"}, *won)
    assert GAME.view(state)["last_fight"]["shares"] == {"A": 12, "B": 13}
    assert GAME.view(state)["last_fight"]["remainder_to"] == "B"
    state = play(new(("A", "B", "C")), fight(["A", "B"], "harpies", [None, None]), *won)
    assert GAME.view(state)["last_fight"]["shares"] == {"A": 13, "B": 12}  # by default, the mover
    refused(new(("A", "B", "C")), {**fight(["A", "B"], "harpies", [None, None]), "remainder_to": "C"},
            IllegalEventError, "H13")


def keeper_fell(rules: int | None = None) -> HradState:
    """A, B and C fight the Harpies (25 treasure), the 1 left over named for A; the Harpies defeat A, then B and C
    win: 12 each, and A can no longer keep the 1 (a game recorded under rules version `rules`, today's if None)."""
    players = ("A", "B", "C", "D")
    start = new(players) if rules is None else GAME.setup(players, {**GAME.resolve_options({}), RULES_VERSION: rules})
    return play(start, {**fight(["A", "B", "C"], "harpies", [None] * 3), "remainder_to": "A"},
                initiative(1, 6), enemy_strike([6, 6], [1, 1], targets=["A", "A"]),
                {"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"},
                heroes_strike(6, 6, enemy_die=1))


def test_h13_a_remainder_whose_keeper_fell_is_assigned_at_the_table_again() -> None:
    # ruling H13: "an indivisible remainder is assigned at the table"; the keeper named before the fight fell
    state = keeper_fell()
    shown = GAME.view(state)
    assert hero(state, "A")["out"] and shown["last_fight"]["outcome"] == "won"
    assert shown["last_fight"]["shares"] == {"B": 12, "C": 12}  # not the 1 to B without asking
    assert shown["last_fight"]["left_over"] == 1 and shown["last_fight"]["keeper_named"] == "A"
    assert shown["expects"] == ["remainder", "use", "exchange", "override", "stock"]
    assert shown["turn"] == "B"  # the fight ended A's move; B's waits for the keeper
    error = refused(state, buy("C", "sword")[0], IllegalEventError, "H13")  # not C's move either way
    assert "1 left over of the Harpies' treasure" in str(error) and "A no longer shares it" in str(error)
    refused(state, {"type": "remainder", "player": "D"}, IllegalEventError, "H13")  # D was not in the fight
    refused(state, {"type": "remainder", "player": "A"}, IllegalEventError, "H13")  # A shared nothing
    refused(state, {"type": "remainder", "player": "Zed"}, MalformedEventError, "H13")
    # the manager's numbers, the stock and a small exchange leave the question asked
    state = play(state, {"type": "exchange", "player": "B", "amount": 2},
                 {"type": "stock", "item": "torch", "prices": [3], "reason": "t"})
    assert GAME.view(state)["last_fight"]["left_over"] == 1
    state = play(state, {"type": "remainder", "player": "C"})
    shown = GAME.view(state)
    assert shown["last_fight"]["shares"] == {"B": 12, "C": 13} and shown["last_fight"]["left_over"] == 0
    assert shown["last_fight"]["remainder_to"] == "C" and hero(state, "C")["treasure"] == 13
    refused(state, {"type": "remainder", "player": "B"}, IllegalEventError, "H13")  # assigned once
    state = play(state, buy("B", "sword")[0])
    assert hero(state, "B")["gold"] == 190


@pytest.mark.parametrize("action", [buy("B", "sword")[0], end("B"), {"type": "exchange", "player": "B", "amount": 13},
                                    {"type": "sceptre", "player": "B"}])
def test_h13_play_going_on_without_a_keeper_gives_the_left_over_to_the_first_sharer(action: dict[str, Any]) -> None:
    # ruling H13: the next move (or an exchange of the treasure with the left-over) without naming a keeper gives
    # it to the first hero sharing, B, as the companion did before it asked: a log kept from then folds as it did
    state = play(keeper_fell(), action)
    assert hero(state, "B")["treasure"] + hero(state, "B")["gold"] == 213 - 12 * (action["type"] == "buy")
    assert hero(state, "C")["treasure"] == 12
    fought = GAME.view(state)["last_fight"]
    if action["type"] == "exchange":  # the manager's bookkeeping: the fight is still what happened last
        assert fought["shares"] == {"B": 13, "C": 12} and fought["left_over"] == 0
        assert fought["remainder_to"] == "A"  # the keeper named at the fight, as then
    else:  # a later move: what happened last is that move, no more the fight
        assert fought is None
    refused(state, {"type": "remainder", "player": "C"}, IllegalEventError, "H17" if GAME.view(state)["finished"]
            else "H13")


def test_h13_a_game_recorded_under_rules_version_2_gives_the_left_over_to_the_first_sharer_at_once() -> None:
    # ruling H13 as version 2 played it: nothing asked, the first hero sharing keeps the 1
    shown = GAME.view(keeper_fell(rules=2))
    assert shown["last_fight"]["shares"] == {"B": 13, "C": 12} and shown["last_fight"]["left_over"] == 0
    assert "remainder" not in shown["expects"]


def test_h13_a_game_over_asks_no_keeper() -> None:
    # rulings H13, H17: every hero falls while the keeper is asked: nobody plays on, the first sharer keeps it
    state = play(keeper_fell(), *({"type": "override", "player": p, "field": "lives", "value": 0, "reason": "t"}
                                  for p in "BCD"))
    shown = GAME.view(state)
    assert shown["finished"] and shown["no_winner"]
    assert shown["last_fight"]["shares"] == {"B": 13, "C": 12} and shown["scores"]["B"] == 213


def test_h13_a_remainder_whose_keeper_still_shares_is_paid_at_once() -> None:
    # ruling H13: the keeper named stands, or the share comes out even without the fallen: nothing to ask
    state = play(new(("A", "B", "C", "D")), {**fight(["A", "B", "C"], "harpies", [None] * 3), "remainder_to": "B"},
                 initiative(1, 6), enemy_strike([6, 6], [1, 1], targets=["A", "A"]),
                 {"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"},
                 heroes_strike(6, 6, enemy_die=1))
    assert GAME.view(state)["last_fight"]["shares"] == {"B": 13, "C": 12}
    assert GAME.view(state)["last_fight"]["left_over"] == 0 and GAME.view(state)["expects"][0] == "buy"
    # the Geeants' 20 do not split among three, but do between the two left when A, named to keep the 2, falls
    state = play(new(("A", "B", "C", "D")), {**fight(["A", "B", "C"], "geeants", [None] * 3), "remainder_to": "A"},
                 {"type": "override", "player": "A", "field": "lives", "value": 0, "reason": "test"},
                 {"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"},
                 initiative(6, 1), heroes_strike(6, 6, enemy_die=1))
    fought = GAME.view(state)["last_fight"]
    assert hero(state, "A")["out"] and fought["outcome"] == "won"
    assert fought["shares"] == {"B": 10, "C": 10} and fought["left_over"] == 0
    assert GAME.view(state)["expects"][0] == "buy"


def test_h13_victory_pays_the_enemys_treasure_and_the_exchange_keeps_the_score() -> None:
    # ruling H13
    state = play(new(), fight(["Ada"], "black_knight", [None]),
                 {"type": "override", "field": "enemy_lives", "value": 1, "reason": "test"},
                 initiative(6, 1), heroes_strike(6, enemy_die=1))
    assert hero(state, "Ada")["treasure"] == 30 and GAME.view(state)["last_fight"]["shares"] == {"Ada": 30}
    state = play(state, {"type": "exchange", "player": "Ada", "amount": 20})
    assert (hero(state, "Ada")["treasure"], hero(state, "Ada")["gold"]) == (10, 220)
    assert GAME.view(state)["scores"]["Ada"] == 230
    refused(state, {"type": "exchange", "player": "Ada", "amount": 11}, IllegalEventError, "H13")


# H14 --------------------------------------------------------------------------------------------------------


def test_h14_tavern_and_oracle_charge_and_cost_a_round() -> None:
    # ruling H14: the waiting hero is shown and skipped
    state = play(new(("A", "B")), {"type": "stop", "player": "A", "square": "tavern"})
    assert hero(state, "A")["gold"] == 195 and hero(state, "A")["waiting"] == 1
    assert hero(state, "A")["wait_reason"] == "tavern" and GAME.view(state)["turn"] == "B"
    refused(state, buy("A", "sword")[0], IllegalEventError, "H14")
    state = play(state, end("B"))
    assert GAME.view(state)["turn"] == "B"
    assert GAME.view(state)["missed_at"] == {"A": "tavern"}  # who was kept and where, for the page to say
    assert GAME.view(state)["round"] == 2
    state = play(state, end("B"))
    assert GAME.view(state)["turn"] == "A" and hero(state, "A")["waiting"] == 0
    state = play(state, {"type": "stop", "player": "A", "square": "oracle"})
    assert hero(state, "A")["gold"] == 192


def test_h14_the_tavern_needs_the_gold() -> None:
    # ruling H14 with H3
    state = play(new(), {"type": "override", "player": "Ada", "field": "gold", "value": 4, "reason": "test"})
    refused(state, {"type": "stop", "player": "Ada", "square": "tavern"}, IllegalEventError, "H3")


def test_h14_dark_corridor_waits_unless_a_torch_is_spent() -> None:
    # ruling H14
    state = play(new(), *buy("Ada", "torch"), {"type": "obstacle", "player": "Ada", "obstacle": "dark_corridor"})
    assert hero(state, "Ada")["waiting"] == 1
    freed = play(state, {"type": "use", "player": "Ada", "item": "torch"}, end("Ben"))
    assert GAME.view(freed)["turn"] == "Ada" and hero(freed, "Ada")["cards"] == {}
    waited = play(state, end("Ben"))
    assert GAME.view(waited)["turn"] == "Ben"
    refused(play(new(), *buy("Ada", "torch")), {"type": "use", "player": "Ada", "item": "torch"},
            IllegalEventError, "H14")


def test_h14_a_hero_alone_spends_the_torch_at_the_corridor() -> None:
    # ruling H14 (with H1: one hero): no other hero moves while the hero waits, so the wait is over before a tap could
    # spend the torch; it is spent as the hero meets the corridor, and no round is missed
    alone = play(new(("Ada",)), *buy("Ada", "torch"))
    waited = play(alone, {"type": "obstacle", "player": "Ada", "obstacle": "dark_corridor"})
    assert GAME.view(waited)["round"] == GAME.view(alone)["round"] + 2 and hero(waited, "Ada")["cards"] == {"torch": 1}
    lit = play(alone, {"type": "obstacle", "player": "Ada", "obstacle": "dark_corridor", "spend": True})
    assert GAME.view(lit)["round"] == GAME.view(alone)["round"] + 1 and hero(lit, "Ada")["cards"] == {}
    assert not lit.missed and hero(lit, "Ada")["waiting"] == 0
    refused(play(new(("Ada",))), {"type": "obstacle", "player": "Ada", "obstacle": "dark_corridor", "spend": True},
            IllegalEventError, "H14")  # no torch to spend
    refused(alone, {"type": "obstacle", "player": "Ada", "obstacle": "thick_fog", "spend": True},
            IllegalEventError, "H14")  # nothing lights the fog
    refused(alone, {"type": "obstacle", "player": "Ada", "obstacle": "locked_door", "spend": True},
            IllegalEventError, "H14")  # a torch opens no door


def test_h14_an_opening_spell_spent_at_the_door_opens_it_for_the_group_a_torch_lights_its_holder() -> None:
    # ruling H14, and the rulebook's groups: "one opening spell is enough to open the door"; its locked door: with
    # the key the hero "can continue in any direction", its dark corridor: with a torch "in the next move"
    state = play(new(("A", "B", "C")), *buy("A", "opening_spell", "torch"))
    opened = play(state, {"type": "obstacle", "player": "A", "obstacle": "locked_door", "group": ["B"], "spend": True})
    assert [hero(opened, p)["wait_reason"] for p in "AB"] == [None, None] and hero(opened, "A")["cards"] == {"torch": 1}
    assert GAME.view(opened)["turn"] == "A"  # through the door: the move goes on ("can continue in any direction")
    assert GAME.view(play(opened, {"type": "treasure", "player": "A", "value": 10}))["turn"] == "B"
    lit = play(state, {"type": "obstacle", "player": "A", "obstacle": "dark_corridor", "group": ["B"], "spend": True})
    assert GAME.view(lit)["turn"] == "C" and lit.missed == (("B", "dark_corridor"),)  # no torch of B's was spent


def test_h14_thick_fog_costs_two_rounds() -> None:
    # ruling H14
    state = play(new(), {"type": "obstacle", "player": "Ada", "obstacle": "thick_fog"}, end("Ben"), end("Ben"))
    assert GAME.view(state)["turn"] == "Ben" and hero(state, "Ada")["waiting"] == 0
    state = play(state, end("Ben"))
    assert GAME.view(state)["turn"] == "Ada"


def test_h14_a_locked_door_holds_the_move_and_a_spell_opens_it_for_the_group() -> None:
    # ruling H14: stay the round, go back next move (no round missed by default)
    state = play(new(("A", "B", "C")), *buy("A", "opening_spell"),
                 {"type": "obstacle", "player": "A", "obstacle": "locked_door", "group": ["B"]})
    assert hero(state, "A")["wait_reason"] == "locked_door" and hero(state, "A")["waiting"] == 0
    opened = play(state, {"type": "use", "player": "A", "item": "opening_spell", "group": ["B"]})
    assert hero(opened, "A")["wait_reason"] is None and hero(opened, "B")["wait_reason"] is None
    held = play(state, end("B"), end("C"))
    assert GAME.view(held)["turn"] == "A" and hero(held, "A")["wait_reason"] is None
    strict = play(new(locked_door_rounds=1), {"type": "obstacle", "player": "Ada", "obstacle": "locked_door"},
                  end("Ben"))
    assert GAME.view(strict)["turn"] == "Ben"


# H15 --------------------------------------------------------------------------------------------------------


def test_h15_food_and_potion_return_lives_never_above_the_card_and_are_the_move() -> None:
    # ruling H15
    state = play(new(), *buy("Ada", "food", "potion", "potion"),
                 {"type": "override", "player": "Ada", "field": "lives", "value": 9, "reason": "test"})
    refused(state, {"type": "use", "player": "Ben", "item": "food"}, IllegalEventError, "H15")
    state = play(state, {"type": "use", "player": "Ada", "item": "food"})
    assert hero(state, "Ada")["lives"] == 10 and GAME.view(state)["turn"] == "Ben"
    state = play(state, end("Ben"), {"type": "use", "player": "Ada", "item": "potion"}, end("Ben"))
    assert hero(state, "Ada")["lives"] == 12
    refused(state, {"type": "use", "player": "Ada", "item": "potion"}, IllegalEventError, "H15")
    state = play(state, {"type": "override", "player": "Ada", "field": "lives", "value": 11, "reason": "t"},
                 {"type": "use", "player": "Ada", "item": "potion"})
    assert hero(state, "Ada")["lives"] == 12


def test_h15_darren_back_is_spent_without_ending_the_move() -> None:
    # ruling H15
    state = play(new(), *buy("Ada", "darren_back"), {"type": "use", "player": "Ada", "item": "darren_back"})
    assert hero(state, "Ada")["cards"] == {} and GAME.view(state)["turn"] == "Ada"


# H16 --------------------------------------------------------------------------------------------------------


def test_h16_a_group_adds_its_attacks_against_one_defence_and_the_enemy_strikes_one() -> None:
    # ruling H16
    state = play(arcana_and_fist(), *buy("Ada", "bow"), end("Ada"), *buy("Ben", "axe"), end("Ben"),
                 fight(["Ada", "Ben"], "black_knight", ["bow", "axe"]), initiative(6, 1),
                 heroes_strike(4, 2, enemy_die=4))
    hit = last_exchange(state)["strikes"][0]
    assert hit["attack_total"] == (11 + 6 + 4) + (12 + 6 + 2) and hit["damage"] == 41 - 16
    assert GAME.view(state)["fight"] is None and GAME.view(state)["last_fight"]["outcome"] == "won"
    done = GAME.view(state)["last_fight"]
    assert done["shares"] == {"Ada": 15, "Ben": 15}
    state = play(arcana_and_fist(), fight(["Ada", "Ben"], "geeants", [None, None]), initiative(1, 6))
    refused(state, enemy_strike([1], [1], targets=["Ada", "Ben"]), MalformedEventError, "H16")
    hit_ben = play(state, enemy_strike([6], [1], targets=["Ben"]))
    assert last_exchange(hit_ben)["strikes"][0]["target"] == "Ben"
    assert hero(hit_ben, "Ben")["lives"] == 12 - (20 - 14)


def test_h16_only_the_mover_starts_a_fight_and_waiting_heroes_cannot_join() -> None:
    # ruling H16 with H14
    state = new(("A", "B", "C"))
    refused(state, fight(["B"], "geeants", [None]), IllegalEventError, "turn-order")
    state = play(state, end("A"), {"type": "stop", "player": "B", "square": "tavern"})
    refused(state, fight(["C", "B"], "geeants", [None, None]), IllegalEventError, "H14")


# H17 --------------------------------------------------------------------------------------------------------


def test_h17_the_sceptre_ends_the_game_and_the_evaluation_counts_treasure_and_gold() -> None:
    # ruling H17
    state = play(new(("A", "B", "C")), {"type": "treasure", "player": "A", "value": 35}, *buy("B", "sword"),
                 {"type": "sceptre", "player": "B"})
    shown = GAME.view(state)
    assert shown["finished"] and shown["winners"] == ["B"] and shown["turn"] is None
    assert shown["scores"] == {"A": 235, "B": 238, "C": 200}
    assert shown["evaluation"][0] == {"player": "B", "hero": "Arcana the Warrioress", "treasure": 0, "gold": 188,
                                      "sceptre": 50, "total": 238, "out": False, "rank": 1}
    assert {r["label"]: r["points"]["B"] for r in shown["breakdown"]} == {"Treasure": 0, "Gold": 188, "Sceptre": 50}
    assert contract_problems(shown, ("A", "B", "C")) == []
    for event in (end("C"), buy("C", "sword")[0], {"type": "override", "player": "C", "field": "gold",
                                                    "value": 1, "reason": ""}):
        refused(state, event, IllegalEventError, "H17")


def test_h17_ties_share_the_win() -> None:
    # ruling H17
    state = play(new(("A", "B")), {"type": "treasure", "player": "A", "value": 10}, *buy("B", "hammer")[:0],
                 {"type": "override", "player": "B", "field": "treasure", "value": 60, "reason": "t"},
                 {"type": "sceptre", "player": "B"})
    assert GAME.view(state)["scores"] == {"A": 210, "B": 310}
    state = play(new(("A", "B")), {"type": "override", "player": "B", "field": "gold", "value": 150, "reason": "t"},
                 {"type": "sceptre", "player": "A"})
    assert GAME.view(state)["winners"] == ["A"]
    state = play(new(("A", "B")), {"type": "override", "player": "B", "field": "gold", "value": 250, "reason": "t"},
                 {"type": "sceptre", "player": "A"})
    assert GAME.view(state)["winners"] == ["A", "B"]


def test_h17_all_heroes_fallen_no_winner() -> None:
    # ruling H17
    state = play(new(("A",)), fight(["A"], "dragon", [None]),
                 {"type": "override", "player": "A", "field": "lives", "value": 1, "reason": "t"},
                 enemy_strike([6, 6, 6], [1, 1, 1]))
    shown = GAME.view(state)
    assert shown["finished"] and shown["winners"] == [] and shown["no_winner"] is True
    assert contract_problems(shown, ("A",)) == []
    refused(state, {"type": "treasure", "player": "A", "value": 10}, IllegalEventError, "H17")


# bad input, purity, declarations -----------------------------------------------------------------------------


def test_bad_input_is_refused_with_the_rule_named() -> None:
    state = new()
    refused(state, buy("Ben", "sword")[0], IllegalEventError, "turn-order")
    refused(state, {"type": "use", "player": "Ada", "item": "cloak"}, IllegalEventError, "H15")
    refused(state, {"type": "strike", "hero_dice": [1], "enemy_defence_die": 1}, IllegalEventError, "H5")
    refused(state, {"type": "nonsense"}, MalformedEventError, "events")
    running = play(state, fight(["Ada"], "geeants", [None]))
    refused(running, buy("Ada", "sword")[0], IllegalEventError, "H5")
    refused(running, end("Ada"), IllegalEventError, "H5")


def test_apply_never_mutates_the_state_or_the_event() -> None:
    state = play(new(), *buy("Ada", "sword"))
    snapshot = copy.deepcopy(state)
    event = {"type": "fight", "players": ["Ada"], "enemy": "geeants", "weapons": ["sword"]}
    frozen = copy.deepcopy(event)
    GAME.apply(state, event)
    assert state == snapshot and event == frozen


def test_every_example_is_accepted_in_a_scripted_game() -> None:
    """Each declared example applies at some point of one game (Ada is Argilos, Ben Arcana)."""
    examples = {e.type: dict(e.example) for e in GAME.event_types}
    state = play(new(), examples["buy"], examples["stock"], examples["override"], *buy("Ada", "torch"),
                 examples["obstacle"], examples["use"], end("Ben"))
    assert GAME.view(state)["turn"] == "Ada"
    state = play(state, examples["treasure"], *buy("Ben", "bow"), examples["fight"], examples["initiative"],
                 examples["strike"], {"type": "override", "field": "enemy_lives", "value": 1, "reason": "t"},
                 enemy_strike([1], [1]), heroes_strike(6, enemy_die=1))
    state = play(state, examples["exchange"], examples["dart"], end("Ben"), examples["stop"], end("Ben"),
                 end("Ben"), examples["enter"], end("Ben"), examples["end_turn"], end("Ben"), examples["sceptre"])
    assert GAME.view(state)["finished"]
    for declared in GAME.event_types:
        assert GAME.describe(dict(declared.example))


def test_view_is_json_and_expects_follow_the_phase() -> None:
    state = new()
    assert json.loads(json.dumps(GAME.view(state))) == GAME.view(state)
    assert "buy" in GAME.view(state)["expects"]
    state = play(state, fight(["Ada"], "skeleton", [None]))
    assert GAME.view(state)["expects"][0] == "initiative"
    assert GAME.view(play(state, initiative(3, 1)))["expects"][0] == "strike"


# the log: a prepared roll is stored and replays exactly ------------------------------------------------------


def test_prepared_rolls_are_stored_in_the_log_and_replay_after_undo_redo_and_a_restart(tmp_path: Path) -> None:
    # ruling H5: the server rolls in the command step, the event keeps the dice
    path = tmp_path / "hrad.sqlite3"
    log = EventLog(path)
    try:
        table = Table(log, rng=random.Random(11))
        session = table.create(GAME.id, ["Ada", "Ben"], {"heroes": ["arcana", "fist"]})
        sid = session["id"]
        table.submit(sid, {"type": "buy", "player": "Ada", "item": "bow"})
        table.submit(sid, {"type": "fight", "players": ["Ada"], "enemy": "black_knight", "weapons": ["bow"]})
        table.submit(sid, {"type": "initiative"})
        table.submit(sid, {"type": "strike"})
        stored = [e for e in table.events(sid) if e["type"] in ("initiative", "strike")]
        assert set(stored[0]["payload"]) == {"hero_die", "enemy_die"}
        assert all(1 <= d <= 6 for d in stored[0]["payload"].values())
        dice = [k for k in stored[1]["payload"]]
        assert dice and all(k.endswith("dice") or k.endswith("die") for k in dice)
        seen = table.view(sid)
        undone = table.undo(sid)
        assert undone["state"]["fight"]["exchanges"] == []
        redone = table.redo(sid)
        assert redone["state"] == seen["state"]
        log.close()
        log = EventLog(path)
        again = Table(log, rng=random.Random(999))
        again.rebuild()
        assert again.view(sid)["state"] == seen["state"]
        # a die entered from the physical die is kept as entered
        entered = {"type": "strike", **{k: v for k, v in GAME.prepare(
            again._load(sid).state, {"type": "strike"}, random.Random(1)).items() if k != "type"}}
        after = again.submit(sid, entered)
        assert again.events(sid)[-1]["payload"] == {k: v for k, v in entered.items() if k != "type"}
        assert after["state"]["fight"] is None or after["state"]["fight"]["exchanges"]
    finally:
        log.close()


def test_h1_the_manager_ends_a_fight_nobody_can_win() -> None:
    # ruling H1: at the red threshold without a cloak against an enemy that cannot hurt: ended by hand, logged
    state = play(at_red(new(), "Ada"), fight(["Ada"], "spider", [None]))
    state = play(state, {"type": "end_fight", "reason": "stuck"})
    shown = GAME.view(state)
    assert shown["fight"] is None and shown["last_fight"]["outcome"] == "ended"
    assert shown["last_fight"]["card_face_down"] and shown["turn"] == "Ben"
    assert shown["overrides"][-1]["field"] == "fight" and shown["overrides"][-1]["reason"] == "stuck"
    refused(state, {"type": "end_fight", "reason": "again"}, IllegalEventError, "H5")


def test_a_long_fight_keeps_only_its_last_exchanges() -> None:
    # long evenings: the state keeps the last 30 exchanges of a fight and counts the rest
    state = play(new(), fight(["Ada"], "spider", [None]))
    for _ in range(40):
        state = play(state, enemy_strike([1], [6]), heroes_strike(1, enemy_die=6))
    shown = GAME.view(state)["fight"]
    assert shown["exchange_count"] == 80 and len(shown["exchanges"]) == 30
    assert shown["exchanges"][-1]["number"] == 80


def test_h1_setting_the_last_fighter_to_zero_lives_loses_the_fight() -> None:
    # ruling H1 with H10
    state = play(new(), fight(["Ada"], "skeleton", [None]),
                 {"type": "override", "player": "Ada", "field": "lives", "value": 0, "reason": "fell"})
    shown = GAME.view(state)
    assert shown["fight"] is None and shown["last_fight"]["outcome"] == "lost" and shown["turn"] == "Ben"


# where the heroes stand (rulebook: Journey through the City, Rules of Movement) ----------------------------------


def place(state: HradState, player: str) -> str:
    return str(hero(state, player)["place"])


def give(player: str, field: str, value: int) -> dict[str, Any]:
    return {"type": "override", "player": player, "field": field, "value": value, "reason": "test"}


def test_place_every_hero_starts_in_the_city_and_its_squares_keep_them_there() -> None:
    # rulebook: the pieces start on the city's starting square; the shops, the tavern and the oracle are its squares
    state = new(("Ada", "Ben", "Cleo"))
    assert [place(state, p) for p in ("Ada", "Ben", "Cleo")] == ["city"] * 3
    state = play(state, *buy("Ada", "sword"), end("Ada"), {"type": "stop", "player": "Ben", "square": "oracle"})
    assert [place(state, p) for p in ("Ada", "Ben", "Cleo")] == ["city"] * 3


@pytest.mark.parametrize("card", [
    {"type": "treasure", "player": "Ada", "value": 20, "group": ["Ben"]},
    {"type": "obstacle", "player": "Ada", "obstacle": "thick_fog", "group": ["Ben"]},
    fight(["Ada", "Ben"], "skeleton", [None, None]),
    {"type": "dart", "player": "Ada", "attack_die": 1, "defence_die": 6},
    {"type": "sceptre", "player": "Ada"},
], ids=["treasure", "obstacle", "fight", "dart", "sceptre"])
def test_place_a_castle_card_puts_the_mover_and_the_group_in_the_castle(card: dict[str, Any]) -> None:
    # rulebook: the cards lie in the castle; a group meets on one card and moves together
    state = play(new(("Ada", "Ben", "Cleo")), card)
    group = {"Ada", *card.get("group", ()), *card.get("players", ())}
    assert {p: place(state, p) for p in ("Ada", "Ben", "Cleo")} == \
        {p: "castle" if p in group else "city" for p in ("Ada", "Ben", "Cleo")}


def test_place_the_arrow_squares_end_the_move_and_every_move_from_there_is_into_the_castle() -> None:
    # rulebook: the last roll in the city reaches an arrow square; from there the hero enters the castle
    state = play(new(), {"type": "enter", "player": "Ada"})
    assert (place(state, "Ada"), place(state, "Ben")) == ("castle", "city")
    assert GAME.view(state)["turn"] == "Ben"  # the move ends, as on any square
    refused(state, {"type": "enter", "player": "Ada"}, IllegalEventError, "turn-order")
    state = play(state, end("Ben"))
    refused(state, {"type": "enter", "player": "Ada"}, IllegalEventError, "movement")  # at the castle already
    waiting = play(new(), {"type": "stop", "player": "Ada", "square": "tavern"}, end("Ben"))
    assert GAME.view(waiting)["turn"] == "Ben"  # Ada sits out the round: not her move
    alone = play(new(("Ada",)), {"type": "enter", "player": "Ada"})  # a lone hero's next move: in the castle
    assert place(alone, "Ada") == "castle" and GAME.view(alone)["round"] == 2


def in_the_castle_with_a_darren_back() -> HradState:
    """Ada, in the castle since her treasure card, holds a Darren back; her move."""
    return play(new(), *buy("Ada", "darren_back"), {"type": "treasure", "player": "Ada", "value": 10}, end("Ben"))


@pytest.mark.parametrize("to, where", [(None, "city"), ("city", "city"), ("castle", "castle")])
def test_place_the_darren_back_carries_its_hero_back_to_the_city_or_stuck_to_a_turned_card(to: str | None,
                                                                                          where: str) -> None:
    # rulebook: the Darren back carries a hero back to the city to shop (the default), or one stuck to a turned
    # card nearby; the move goes on
    state = in_the_castle_with_a_darren_back()
    assert place(state, "Ada") == "castle"
    state = play(state, {"type": "use", "player": "Ada", "item": "darren_back", **({"to": to} if to else {})})
    assert place(state, "Ada") == where and GAME.view(state)["turn"] == "Ada"
    assert hero(state, "Ada")["cards"] == {}


def test_place_only_the_darren_back_says_where_it_carries() -> None:
    state = play(new(), *buy("Ada", "torch"))
    refused(state, {"type": "use", "player": "Ada", "item": "torch", "to": "city"}, MalformedEventError, "H15")


def test_place_a_purchase_puts_a_hero_back_in_the_city_and_never_refuses_a_move() -> None:
    # where the rulebook is silent: a purchase for a hero the companion had in the castle says the table went back
    # (a Darren back left untapped); a castle card says the hero stepped in (the arrow squares left untapped)
    state = play(new(), {"type": "treasure", "player": "Ada", "value": 10}, end("Ben"), *buy("Ada", "sword"))
    assert place(state, "Ada") == "city" and hero(state, "Ada")["equipment"] == {"sword": 1}
    state = play(state, {"type": "dart", "player": "Ada", "attack_die": 1, "defence_die": 6})
    assert place(state, "Ada") == "castle"


def test_place_food_potion_skunk_and_cloak_leave_a_hero_where_they_stand() -> None:
    # rulebook: the skunk and the cloak take the hero back to the card they came from: still the castle
    state = play(new(), give("Ada", "skunk", 1), give("Ada", "food", 1), give("Ada", "lives", 5),
                 {"type": "use", "player": "Ada", "item": "food"})
    assert place(state, "Ada") == "city"
    state = play(state, fight(["Ben"], "skeleton", [None]), give("Ben", "skunk", 1),
                 {"type": "use", "player": "Ben", "item": "skunk", "hero_die": 6, "enemy_die": 1})
    assert GAME.view(state)["last_fight"]["outcome"] == "escaped" and place(state, "Ben") == "castle"


def test_place_a_defeated_hero_stays_where_they_fell() -> None:
    # ruling H10: at 0 lives the hero is out; where the rulebook is silent, their piece stays where they fell
    state = play(new(("Ada", "Ben", "Cleo")), fight(["Ada"], "skeleton", [None]), give("Ada", "lives", 0))
    assert hero(state, "Ada")["out"] and place(state, "Ada") == "castle"
    state = play(state, give("Ben", "lives", 0))  # fallen in the city (poison, or by hand)
    assert hero(state, "Ben")["out"] and place(state, "Ben") == "city"
    state = play(state, give("Ada", "lives", 3))  # revived by hand: where they fell
    assert place(state, "Ada") == "castle"


def test_place_comes_from_the_log_through_undo_and_redo(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "hrad.sqlite3")
    try:
        table = Table(log, rng=random.Random(3))
        sid = table.create(GAME.id, ["Ada", "Ben"])["id"]
        shown = table.submit(sid, {"type": "treasure", "player": "Ada", "value": 10})
        assert [h["place"] for h in shown["state"]["heroes"]] == ["castle", "city"]
        assert [h["place"] for h in table.undo(sid)["state"]["heroes"]] == ["city", "city"]
        assert [h["place"] for h in table.redo(sid)["state"]["heroes"]] == ["castle", "city"]
    finally:
        log.close()


# what happened last: the line above the tabs ----------------------------------------------------------------------

#: Ada's dart (21 against Argilos's 12 + 1: pierced; no antidote held, the move ends), treasure or won fight; each
#: leaves Ben's move next.
HAPPENINGS = {
    "dart": [{"type": "dart", "player": "Ada", "attack_die": 6, "defence_die": 1}],
    "treasure": [{"type": "treasure", "player": "Ada", "value": 20}],
    "fight": [fight(["Ada"], "skeleton", [None]), {"type": "override", "field": "enemy_lives", "value": 1,
                                                   "reason": "test"}, initiative(6, 1), heroes_strike(6, enemy_die=1)],
}


def shown_last(state: HradState) -> list[str]:
    """What the view tells happened last: the names of the last dart, treasure and fight that are set."""
    return [kind for kind in HAPPENINGS if GAME.view(state)[f"last_{kind}"] is not None]


def happened(kind: str) -> HradState:
    """Ben, who holds a torch, food and a Darren back (4 lives of 10), moves after Ada's `kind`."""
    state = play(new(), give("Ben", "torch", 1), give("Ben", "food", 1), give("Ben", "darren_back", 1),
                 give("Ben", "lives", 4), *HAPPENINGS[kind])
    assert shown_last(state) == [kind] and GAME.view(state)["turn"] == "Ben"
    return state


LATER_MOVES = {
    "torch at a dark corridor": {"type": "obstacle", "player": "Ben", "obstacle": "dark_corridor", "spend": True},
    "buy": buy("Ben", "sword")[0], "oracle": {"type": "stop", "player": "Ben", "square": "oracle"},
    "thick fog": {"type": "obstacle", "player": "Ben", "obstacle": "thick_fog"}, "next": end("Ben"),
    "arrow squares": {"type": "enter", "player": "Ben"}, "food": {"type": "use", "player": "Ben", "item": "food"},
    "darren back": {"type": "use", "player": "Ben", "item": "darren_back"},
}


@pytest.mark.parametrize("kind", list(HAPPENINGS))
@pytest.mark.parametrize("move", list(LATER_MOVES))
def test_last_a_later_move_that_is_no_dart_treasure_or_fight_clears_what_happened(kind: str, move: str) -> None:
    # at the table: a torch lit a dark corridor, and the line still told of the dart before
    assert shown_last(play(happened(kind), LATER_MOVES[move])) == []


@pytest.mark.parametrize("kind", list(HAPPENINGS))
def test_last_the_managers_bookkeeping_leaves_what_happened_in_sight(kind: str) -> None:
    state = play(happened(kind), give("Ben", "gold", 150),
                 {"type": "stock", "item": "torch", "prices": [3], "reason": "test"},
                 *([{"type": "exchange", "player": "Ada", "amount": 5}] if kind != "dart" else []))
    assert shown_last(state) == [kind]


def test_last_a_dart_a_treasure_or_a_fight_replaces_what_happened_before() -> None:
    state = play(happened("dart"), {"type": "treasure", "player": "Ben", "value": 10})
    assert shown_last(state) == ["treasure"]
    state = play(state, fight(["Ada"], "skeleton", [None]), initiative(1, 6))
    assert shown_last(state) == []  # the fight running is what the page shows
    state = play(state, {"type": "end_fight", "reason": "test"})
    assert shown_last(state) == ["fight"] and GAME.view(state)["last_fight"]["outcome"] == "ended"
    assert shown_last(play(state, {"type": "dart", "player": "Ben", "attack_die": 1, "defence_die": 6})) == ["dart"]


@pytest.mark.parametrize("answer", [{"type": "use", "player": "Ben", "item": "antidote"}, end("Ben")])
def test_last_the_antidote_or_next_completes_the_dart_and_keeps_it(answer: dict[str, Any]) -> None:
    # ruling H9: the darted hero's answer is the dart's move still; while it waits, a waiting hero's torch does not
    # take the line and its antidote button away
    state = play(new(("Ada", "Ben", "Cleo")), give("Cleo", "torch", 1), end("Ada"), end("Ben"),
                 {"type": "obstacle", "player": "Cleo", "obstacle": "dark_corridor"}, end("Ada"),
                 *buy("Ben", "antidote"), {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})
    assert GAME.view(state)["antidote_choice"] and hero(state, "Cleo")["wait_reason"] == "dark_corridor"
    state = play(state, {"type": "use", "player": "Cleo", "item": "torch"})
    assert shown_last(state) == ["dart"] and GAME.view(state)["antidote_choice"]
    state = play(state, answer)
    assert shown_last(state) == ["dart"] and GAME.view(state)["turn"] == "Cleo"
    assert shown_last(play(state, end("Cleo"))) == []


def test_last_a_fight_waiting_for_its_keeper_stays_and_naming_the_keeper_completes_it() -> None:
    # ruling H13: the line asks who keeps the left-over; another hero's antidote meanwhile does not take it away
    state = play(keeper_fell(), give("D", "poisoned", 1), give("D", "antidote", 1),
                 {"type": "use", "player": "D", "item": "antidote"})
    assert not hero(state, "D")["poisoned"]
    assert shown_last(state) == ["fight"] and GAME.view(state)["last_fight"]["left_over"] == 1
    state = play(state, {"type": "remainder", "player": "C"})
    assert shown_last(state) == ["fight"] and GAME.view(state)["last_fight"]["shares"] == {"B": 12, "C": 13}
    assert shown_last(play(state, end("B"))) == []

"""Dračí hrad's view of a fight and of the log of numbers set by hand, for the words the page says: the lives each
hero lost in a whole fight, every exchange counted (the Harpies strike twice per charge, the Dragon up to three
times), and whose fight was ended by hand."""
from __future__ import annotations

from companion.games.draci_hrad import HradState
from tests.test_draci_hrad_rules import GAME, enemy_strike, fight, heroes_strike, initiative, new, play


def members(state: HradState) -> dict[str, int]:
    done = GAME.view(state)["last_fight"]
    return {m["player"]: m["lives_lost"] for m in done["members"]}


def test_h6_both_of_the_harpies_attacks_count_in_the_lives_lost() -> None:
    # ruling H6: the Harpies attack twice per charge; ruling H11: the skunk, initiative lost, takes one charge first.
    # Ben's Arcana (10 lives, defence 11): 15 + 2 = 17 against 11 + 4 = 15, twice: 2 damage each, 4 lives lost
    state = play(new(), {"type": "end_turn", "player": "Ada"}, {"type": "buy", "player": "Ben", "item": "skunk"},
                 fight(["Ben"], "harpies", [None]),
                 {"type": "use", "player": "Ben", "item": "skunk", "hero_die": 2, "enemy_die": 5},
                 enemy_strike([2, 2], [4, 4]))
    shown = GAME.view(state)
    strikes = shown["last_fight"]["exchanges"][-1]["strikes"]
    assert [(s["target"], s["damage"]) for s in strikes] == [("Ben", 2), ("Ben", 2)]
    assert members(state) == {"Ben": 4}
    assert next(h for h in shown["heroes"] if h["player"] == "Ben")["lives"] == 6


def test_h5_the_lives_lost_count_every_exchange_and_stop_at_none_left() -> None:
    # ruling H5 (damage = attack total - defence total), H6 (two attacks per charge), H10 (defeated at 0 lives): Ben's
    # Parbat (14 lives, defence 11) against the Harpies: 3 + 3 damage, a miss back, then 6 + 6 damage with 8 lives
    # left: 12 damage, but the 8 lives are all he loses then, 14 in the fight
    state = play(new(heroes=["argilos", "parbat"]), {"type": "end_turn", "player": "Ada"},
                 fight(["Ben"], "harpies", [None]), initiative(2, 5), enemy_strike([4, 4], [5, 5]),
                 heroes_strike(1, enemy_die=6), enemy_strike([6, 6], [4, 4]))
    done = GAME.view(state)["last_fight"]
    assert done["outcome"] == "lost" and done["exchange_count"] == 3
    assert [s["damage"] for s in done["exchanges"][-1]["strikes"]] == [6, 6]
    assert members(state) == {"Ben": 14}


def test_h6_the_dragon_s_attacks_at_a_group_count_for_each_hero_struck() -> None:
    # ruling H6: the Dragon attacks up to three times per charge at up to three heroes; H16: a group fights together
    state = play(new(("Ada", "Ben", "Cleo")), fight(["Ada", "Ben", "Cleo"], "dragon", [None, None, None]),
                 enemy_strike([3, 3, 3], [5, 5, 5], targets=["Ben", "Cleo", "Ben"]),
                 {"type": "end_fight", "reason": "Started by mistake"})
    # claw 16 + 3 = 19 against Arcana's 11 + 5 = 16, and 18 + 3 = 21 (teeth): 3 + 5; Fist's 13 + 5 = 18: 1
    assert members(state) == {"Ada": 0, "Ben": 8, "Cleo": 1}


def test_h1_a_fight_ended_by_hand_is_logged_under_the_name_of_the_hero_whose_fight_it_was() -> None:
    # ruling H1: every override is logged; the log says whose fight was ended by hand, and against whom
    state = play(new(), fight(["Ada"], "spider", [None]), {"type": "end_fight", "reason": "Started by mistake"})
    entry = GAME.view(state)["overrides"][-1]
    assert entry == {"player": "Ada", "field": "fight", "was": "spider", "now": "ended", "reason": "Started by mistake",
                     "round": 1, "enemy": "spider", "heroes": ["Ada"], "words": None}


def test_h1_undoing_a_number_set_by_hand_says_it_in_words() -> None:
    # ruling H1: what Undo takes back is said as the log says it; poisoned is a yes or a no, never 1 or 0
    assert GAME.describe({"type": "override", "player": "Ben", "field": "poisoned", "value": 1, "reason": "x"}) \
        == "Ben poisoned by hand"
    assert GAME.describe({"type": "override", "player": "Ben", "field": "poisoned", "value": 0, "reason": "x"}) \
        == "Ben cured of poison by hand"
    assert GAME.describe({"type": "override", "player": "Ben", "field": "max_lives", "value": 16, "reason": "x"}) \
        == "Ben's lives at most set to 16 by hand"
    assert GAME.describe({"type": "override", "player": "Ben", "field": "torch", "value": 2, "reason": "x"}) \
        == "Ben's torches set to 2 by hand"
    assert GAME.describe({"type": "override", "field": "enemy_lives", "value": 3, "reason": "x"}) \
        == "the enemy's lives set to 3 by hand"

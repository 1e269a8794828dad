"""Drachensachen's pure rules (setup/apply/view), ruling by ruling (S1-S11), the rulebook's examples, bad input,
purity, and one game through a Table on a temporary SQLite file."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.base import RULES_VERSION
from companion.games.drachensachen import LEAVING, TRICKS, VALUES, DrachensachenState, next_starter, round_losses
from companion.games.schema import validate_event
from companion.log import EventLog
from companion.table import Table
from tests.rules import expect_refused

GAME = GAMES["drachensachen"]
FOUR = ("Ada", "Ben", "Cleo", "Dan")


def new(players: Iterable[str] = FOUR, **options: Any) -> DrachensachenState:
    """A fresh game with the given options resolved like the table resolves them."""
    return GAME.setup(tuple(players), GAME.resolve_options(options))


def play(state: DrachensachenState, *events: Mapping[str, Any]) -> DrachensachenState:
    for event in events:
        state = GAME.apply(state, event)
    return state


def refused(state: DrachensachenState, event: Mapping[str, Any], cls: type[RuleError], rule: str) -> RuleError:
    """Apply `event`, expect `cls` naming `rule`, and check the state is untouched."""
    return expect_refused(GAME, state, event, cls, rule)


def schema_refused(event: dict[str, Any], rule: str) -> None:
    """The table's validation refuses `event` before the rules see it, naming `rule`."""
    with pytest.raises(MalformedEventError) as info:
        validate_event(GAME, event)
    assert info.value.rule == rule


def started(players: Iterable[str] = FOUR, starter: str = "Ada", **options: Any) -> DrachensachenState:
    return play(new(players, **options), {"type": "starter", "player": starter})


def version_3(players: Iterable[str] = FOUR, **options: Any) -> DrachensachenState:
    """A game as a log recorded under rules version 3 folds it."""
    return GAME.setup(tuple(players), {**GAME.resolve_options(options), RULES_VERSION: 3})


def dragons_draw(players: Iterable[str] = FOUR, starter: str = "Ada", **options: Any) -> DrachensachenState:
    """A game started under the trick goblins against dragons (S9): a dragon card played draws from the pile (S6)."""
    return play(new(players, tricks=True, **options), {"type": "trick", "trick": "goblins_against_dragons"},
                {"type": "starter", "player": starter})


NEUTRAL_TRICKS = tuple(sorted(TRICKS, key=lambda trick: trick == "golden_feathers"))
"""The order ``result`` reveals a round's owed trick in: golden feathers, the one that changes a score, last."""


def result(state: DrachensachenState, finisher: str, coins: Mapping[str, int],
           eights: Mapping[str, int] | None = None) -> DrachensachenState:
    """Someone went out (the round's trick revealed first when it owes one, ruling S9), then every other
    player's coins (and 8s)."""
    if "trick" in view(state)["expects"]:
        revealed = {t["id"] for t in view(state)["tricks"]}
        state = play(state, {"type": "trick", "trick": next(t for t in NEUTRAL_TRICKS if t not in revealed)})
    state = play(state, {"type": "went_out", "player": finisher})
    for player, amount in coins.items():
        event: dict[str, Any] = {"type": "coins", "player": player, "coins": amount}
        if eights and player in eights:
            event["eights"] = eights[player]
        state = play(state, event)
    return state


def others(state: DrachensachenState, finisher: str, amount: int) -> dict[str, int]:
    return {p: amount for p in state.players if p != finisher}


def view(state: DrachensachenState) -> dict[str, Any]:
    return GAME.view(state)


NEXT = {"type": "next_turn"}


# ruling S1 ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 8])
def test_s1_setup_refuses_wrong_player_counts(count: int) -> None:
    # ruling S1: 2 to 7 players
    with pytest.raises(IllegalEventError) as info:
        GAME.setup(tuple(f"P{i}" for i in range(count)), GAME.resolve_options({}))
    assert info.value.rule == "S1"


@pytest.mark.parametrize("count", [2, 3, 5, 7])
def test_s1_two_to_seven_players_in_seat_order(count: int) -> None:
    # ruling S1; seats are clockwise as the players sit
    players = tuple(f"P{i}" for i in range(count))
    state = new(players)
    data = view(state)
    assert data["seats"] == list(players) and data["scores"] == {p: 0 for p in players}
    assert (GAME.min_players, GAME.max_players) == (2, 7)
    assert data["round"] == 1 and data["turn"] is None and data["expects"] == ["starter"]


@pytest.mark.parametrize("count", [1, 8])
def test_s1_table_create_refuses_wrong_player_counts(table: Table, count: int) -> None:
    # ruling S1, through the one path every session is created by
    with pytest.raises(RuleError) as info:
        table.create(GAME.id, [f"P{i}" for i in range(count)])
    assert info.value.rule == "S1"
    assert table.log.sessions() == []


def test_s1_no_more_than_96_cards_out_of_the_game_in_a_round() -> None:
    # ruling S1: the deck has 96 cards
    state = play(started(), {"type": "burned", "cause": "four_in_a_row", "cards": {"3": 90}})
    state = play(state, {"type": "set_out", "value": "7"})
    assert view(state)["cards_out_round"]["3"] == 90 and view(state)["cards_out_round"]["7"] == 4
    refused(state, {"type": "set_out", "value": "2"}, IllegalEventError, "S1")
    state = play(state, {"type": "burned", "cause": "fire_breather", "cards": {"fire_breather": 1, "3": 1}})
    assert sum(view(state)["cards_out_round"].values()) == 96


def test_s1_a_player_leaving_is_not_supported_and_says_so() -> None:
    # ruling S1: the rulebook knows no player leaving mid-game; the companion says so rather than invent a rule
    assert view(new())["seating"] == LEAVING
    assert "no rule for a player who leaves" in view(new())["seating"]
    error = refused(started(), {"type": "went_out", "player": "Eve"}, MalformedEventError, "S2")
    assert "no rule for players joining or leaving" in error.message


# ruling S2 ------------------------------------------------------------------------------------------------------


def test_s2_the_rulebook_example_eleven_coins_lose_ten() -> None:
    # ruling S2, the rulebook's example: (1+1+1+3)+(3+1+1) = 11, credited as a loss of 10
    coins = (1 + 1 + 1 + 3) + (3 + 1 + 1)
    assert coins == 11
    state = result(started(), "Ada", {"Ben": coins, "Cleo": 10, "Dan": 3})
    assert view(state)["scores"] == {"Ada": 0, "Ben": 10, "Cleo": 10, "Dan": 3}
    assert view(state)["last_round"]["coins"]["Ben"] == 11
    assert view(state)["breakdown"] == [{"round": 1, "label": "Round 1 · Ada went out",
                                         "points": {"Ada": 0, "Ben": 10, "Cleo": 10, "Dan": 3}}]


def test_s2_the_finisher_loses_nothing_and_enters_no_coins() -> None:
    # ruling S2
    state = play(started(), {"type": "went_out", "player": "Cleo"})
    assert view(state)["phase"] == "scoring" and view(state)["turn"] is None
    assert view(state)["waiting_for_coins"] == ["Ada", "Ben", "Dan"]
    refused(state, {"type": "coins", "player": "Cleo", "coins": 0}, IllegalEventError, "S2")


@pytest.mark.parametrize("bad", [-1, 100, 1000, "5", 5.0, True, None])
def test_s2_coins_below_zero_or_absurd_are_refused(bad: Any) -> None:
    # ruling S2: a keypad number from 0 to 99; refused by the schema and by the rules alike
    state = play(started(), {"type": "went_out", "player": "Ada"})
    event = {"type": "coins", "player": "Ben", "coins": bad}
    refused(state, event, MalformedEventError, "S2")
    schema_refused(event, "S2")


def test_s2_a_finisher_who_is_not_a_player_is_refused() -> None:
    # ruling S2
    for bad in ("Eve", "", "ada", 3, None):
        refused(started(), {"type": "went_out", "player": bad}, MalformedEventError, "S2")


def test_s2_a_second_round_result_is_refused() -> None:
    # ruling S2: one finisher and one entry of coins per player per round
    state = play(started(), {"type": "went_out", "player": "Ada"})
    refused(state, {"type": "went_out", "player": "Ben"}, IllegalEventError, "S2")
    state = play(state, {"type": "coins", "player": "Ben", "coins": 4})
    refused(state, {"type": "coins", "player": "Ben", "coins": 5}, IllegalEventError, "S2")
    refused(started(), {"type": "coins", "player": "Ben", "coins": 5}, IllegalEventError, "S2")  # nobody out yet


def test_s2_the_round_is_over_once_someone_went_out() -> None:
    # ruling S2: the round ends at once; no tracker moves after it
    state = play(started(), {"type": "went_out", "player": "Ada"})
    for event in ({"type": "draw"}, NEXT, {"type": "four"}, {"type": "skip"}, {"type": "set_out", "value": "1"}):
        refused(state, event, IllegalEventError, "S2")
    refused(state, {"type": "starter", "player": "Ben"}, IllegalEventError, "S5")


def test_s2_losses_function() -> None:
    # ruling S2, S3
    assert round_losses((0, 11, 10, 99), (0, 0, 0, 0), False) == (0, 10, 10, 10)
    assert round_losses((0, 11, 1, 3), (0, 2, 3, 0), True) == (0, 8, -2, 3)
    assert round_losses((0, 11, 1, 3), (0, 2, 3, 0), False) == (0, 10, 1, 3)


# ruling S3 ------------------------------------------------------------------------------------------------------


def feathered(players: Iterable[str] = FOUR) -> DrachensachenState:
    state = play(new(players, tricks=True), {"type": "trick", "trick": "golden_feathers"},
                 {"type": "starter", "player": "Ada"})
    assert view(state)["golden_feathers"] is True
    return state


def test_s3_golden_feathers_each_eight_is_a_gain_of_one() -> None:
    # ruling S3: min(10, coins on the other cards) - number of 8s
    state = result(feathered(), "Ada", {"Ben": 12, "Cleo": 4, "Dan": 0}, {"Ben": 3, "Cleo": 1})
    assert view(state)["scores"] == {"Ada": 0, "Ben": 7, "Cleo": 3, "Dan": 0}


def test_s3_a_round_result_may_be_negative_and_a_total_go_down() -> None:
    # ruling S3: it may be negative
    state = result(feathered(), "Ada", {"Ben": 1, "Cleo": 5, "Dan": 0}, {"Ben": 3, "Dan": 2})
    assert view(state)["scores"] == {"Ada": 0, "Ben": -2, "Cleo": 5, "Dan": -2}
    state = result(state, "Ada", {"Ben": 0, "Cleo": 0, "Dan": 0}, {"Cleo": 2})
    assert view(state)["scores"]["Cleo"] == 3
    assert view(state)["running"]["Cleo"] == [5, 3]
    assert view(state)["losses"]["Ben"] == [-2, 0]


def test_s3_eights_count_only_with_golden_feathers() -> None:
    # ruling S3
    state = play(started(), {"type": "went_out", "player": "Ada"})
    refused(state, {"type": "coins", "player": "Ben", "coins": 3, "eights": 1}, IllegalEventError, "S3")
    state = play(state, {"type": "coins", "player": "Ben", "coins": 3, "eights": 0})
    for bad in (-1, 100, "2"):
        refused(state, {"type": "coins", "player": "Cleo", "coins": 3, "eights": bad}, MalformedEventError, "S3")


# ruling S4 ------------------------------------------------------------------------------------------------------


def test_s4_the_game_ends_at_21_and_the_fewest_lost_wins() -> None:
    # ruling S4
    state = started()
    state = result(state, "Ada", {"Ben": 10, "Cleo": 10, "Dan": 5})
    assert not view(state)["finished"]
    state = result(state, "Ada", {"Ben": 10, "Cleo": 9, "Dan": 5})
    assert not view(state)["finished"]  # Ben 20: not yet
    state = result(state, "Dan", {"Ada": 2, "Ben": 1, "Cleo": 0})
    data = view(state)
    assert data["finished"] and data["winners"] == ["Ada"] and data["lower_wins"] is True
    assert data["scores"] == {"Ada": 2, "Ben": 21, "Cleo": 19, "Dan": 10}
    assert data["running"] == {"Ada": [0, 0, 2], "Ben": [10, 20, 21], "Cleo": [10, 19, 19], "Dan": [5, 10, 10]}
    assert data["limit"] == 21 and data["turn"] is None and data["round"] == 3
    refused(state, {"type": "went_out", "player": "Ada"}, IllegalEventError, "S4")
    refused(state, NEXT, IllegalEventError, "S4")


def test_s4_a_tie_for_the_fewest_plays_extra_rounds_until_it_breaks() -> None:
    # ruling S4: a tie for the fewest at 21 or more: one more round, the check after every extra round
    state = started()
    state = result(state, "Ada", {"Ben": 10, "Cleo": 10, "Dan": 0})
    state = result(state, "Dan", {"Ada": 0, "Ben": 10, "Cleo": 10})
    state = result(state, "Ada", {"Ben": 1, "Cleo": 0, "Dan": 0})  # Ben 21; Ada and Dan tie at 0
    data = view(state)
    assert not data["finished"] and data["extra_round"] is True and data["round"] == 4
    state = result(state, "Ada", {"Ben": 0, "Cleo": 0, "Dan": 0})  # still tied: another round
    assert not view(state)["finished"] and view(state)["extra_round"]
    state = result(state, "Ada", {"Ben": 0, "Cleo": 0, "Dan": 1})
    data = view(state)
    assert data["finished"] and data["winners"] == ["Ada"] and data["round"] == 5
    assert len(data["breakdown"]) == 5


def test_s4_below_21_a_tie_does_not_matter() -> None:
    # ruling S4: the end needs 21 or more
    state = result(started(), "Ada", {"Ben": 10, "Cleo": 10, "Dan": 10})
    assert not view(state)["finished"] and not view(state)["extra_round"]


def test_s4_golden_feathers_may_take_the_game_back_below_21() -> None:
    # ruling S4 with S3: the check repeats after the extra round; with nobody at 21 any more, play goes on
    state = feathered(("Ada", "Ben", "Cleo"))
    state = result(state, "Ada", {"Ben": 10, "Cleo": 10})
    state = result(state, "Ada", {"Ben": 10, "Cleo": 0})
    state = result(state, "Cleo", {"Ada": 0, "Ben": 1})  # Ben 21, Ada alone has the fewest
    assert view(state)["finished"] and view(state)["winners"] == ["Ada"]
    state = feathered(("Ada", "Ben", "Cleo"))
    state = result(state, "Ada", {"Ben": 10, "Cleo": 0})
    state = result(state, "Cleo", {"Ada": 0, "Ben": 10})
    state = result(state, "Ada", {"Ben": 1, "Cleo": 0})  # Ben 21, Ada and Cleo tied at 0
    assert view(state)["extra_round"]
    state = result(state, "Cleo", {"Ada": 0, "Ben": 0}, {"Ben": 2})  # Ben back to 19: no end, no extra round
    data = view(state)
    assert not data["finished"] and not data["extra_round"] and data["scores"]["Ben"] == 19


# ruling S5 ------------------------------------------------------------------------------------------------------


def test_s5_the_table_chooses_the_first_starter() -> None:
    # ruling S5
    state = new()
    for event in (NEXT, {"type": "draw"}, {"type": "went_out", "player": "Ada"}):
        refused(state, event, IllegalEventError, "S5")
    state = play(state, {"type": "starter", "player": "Cleo"})
    assert view(state)["starter"] == "Cleo" and view(state)["turn"] == "Cleo"
    refused(state, {"type": "starter", "player": "Ben"}, IllegalEventError, "S5")
    refused(new(), {"type": "starter", "player": "Eve"}, MalformedEventError, "S5")


def test_s5_the_biggest_loser_starts_the_next_round_and_it_is_not_chosen() -> None:
    # ruling S5
    state = result(started(), "Ada", {"Ben": 3, "Cleo": 7, "Dan": 5})
    data = view(state)
    assert data["starter"] == "Cleo" and data["turn"] == "Cleo" and data["round"] == 2
    refused(state, {"type": "starter", "player": "Ben"}, IllegalEventError, "S5")


def test_s5_a_tie_goes_to_the_first_clockwise_after_the_previous_starter_across_the_wrap() -> None:
    # ruling S5: Dan started; Ada and Cleo tie: going clockwise from the seat after Dan wraps to Ada
    state = result(started(starter="Dan"), "Ben", {"Ada": 6, "Cleo": 6, "Dan": 2})
    assert view(state)["starter"] == "Ada"
    # Cleo started; Ben and Cleo tie: Dan, Ada, Ben: Ben (the previous starter is checked last)
    state = result(started(starter="Cleo"), "Ada", {"Ben": 6, "Cleo": 6, "Dan": 2})
    assert view(state)["starter"] == "Ben"
    # Cleo started and lost as much as Dan: the seat after her comes first
    state = result(started(starter="Cleo"), "Ada", {"Ben": 1, "Cleo": 6, "Dan": 6})
    assert view(state)["starter"] == "Dan"


def test_s5_next_starter_function() -> None:
    # ruling S5
    assert next_starter((0, 5, 5, 1), 3) == 1
    assert next_starter((5, 0, 5, 5), 2) == 3
    assert next_starter((5, 0, 5, 0), 0) == 2  # previous starter checked last
    assert next_starter((4, 4, 4, 4), 1) == 2
    assert next_starter((0, 0, 0), 2) == 0
    assert next_starter((0, -1, -2), 0) == 0  # golden feathers: the finisher's 0 is the most


# ruling S6 ------------------------------------------------------------------------------------------------------


def test_s6_the_trouble_pile_starts_at_18_and_draws_take_from_it() -> None:
    # ruling S6
    state = dragons_draw()
    assert view(state)["trouble_pile"] == {"start": 18, "left": 18, "due": 0, "drawn": 0, "ignored": 0,
                                           "empty": False, "last_draw": None}
    state = play(state, {"type": "draw"}, {"type": "draw", "count": 5, "player": "Cleo"})
    pile = view(state)["trouble_pile"]
    assert pile["left"] == 12 and pile["drawn"] == 6 and pile["due"] == 6
    assert pile["last_draw"] == {"player": "Cleo", "due": 5, "drawn": 5, "pending": False}


def test_s6_at_zero_draws_are_ignored_and_recorded_as_due() -> None:
    # ruling S6: a draw from an empty pile is not an error; due and drawn both kept
    state = play(dragons_draw(), *[{"type": "draw", "count": 5}] * 3)
    state = play(state, {"type": "draw", "count": 5})  # 3 left: 5 due, 3 drawn
    pile = view(state)["trouble_pile"]
    assert (pile["left"], pile["due"], pile["drawn"], pile["ignored"], pile["empty"]) == (0, 20, 18, 2, True)
    state = play(state, {"type": "draw"})
    pile = view(state)["trouble_pile"]
    assert (pile["left"], pile["due"], pile["drawn"], pile["ignored"]) == (0, 21, 18, 3)
    assert pile["last_draw"] == {"player": "Ada", "due": 1, "drawn": 0, "pending": False}


@pytest.mark.parametrize("bad", [0, -1, 21, "1", 1.5])
def test_s6_a_draw_count_out_of_range_is_refused(bad: Any) -> None:
    # ruling S6
    refused(dragons_draw(), {"type": "draw", "count": bad}, MalformedEventError, "S6")
    schema_refused({"type": "draw", "count": bad}, "S6")


def chaos_round(players: Iterable[str] = FOUR) -> DrachensachenState:
    """Round 2 of a game with hindrances: Ada went out in round 1 and drew Chaos."""
    state = result(started(players, hindrances=True), "Ada", {p: 1 for p in players if p != "Ada"})
    return play(state, {"type": "hindrance", "kind": "chaos"})


def test_s6_under_chaos_the_pile_is_every_card_not_dealt() -> None:
    # ruling S6 with S10: 96 minus the hand and reserve cards of all players
    state = chaos_round()
    assert view(state)["hindrance"]["kind"] == "chaos"
    assert view(state)["trouble_pile"]["start"] == 96 - 4 * 11
    state = play(state, {"type": "hindrance", "kind": "invasion", "hand": 8, "player": "Ben"},
                 {"type": "hindrance", "kind": "unknown", "face_up": 2, "face_down": 1, "player": "Cleo"},
                 {"type": "hindrance", "kind": "chaos", "player": "Dan"},
                 {"type": "hindrance", "kind": "invasion", "hand": 3, "player": "Ada"})
    # Ada 3+6, Ben 8+6, Cleo 5+3, Dan 5+6
    assert view(state)["trouble_pile"]["start"] == 96 - (9 + 14 + 8 + 11) == 54
    assert [c["player"] for c in view(state)["chaos_draws"]] == ["Ben", "Cleo", "Dan", "Ada"]
    state = play(state, {"type": "four", "count": 3}, NEXT, {"type": "draw_pending"})
    assert view(state)["trouble_pile"]["left"] == 48


def test_s6_a_chaos_deal_the_deck_cannot_fill_leaves_the_pile_empty() -> None:
    # ruling S6: with seven players, 20 cards in one hand and 11 in the others' leave 4; a deal the deck cannot
    # fill ends with the deck, every player still draws their card (S10), and play begins on an empty pile
    players = tuple(f"P{i}" for i in range(7))
    state = result(play(new(players, hindrances=True), {"type": "starter", "player": "P0"}), "P0",
                   {p: 1 for p in players[1:]})
    state = play(state, {"type": "hindrance", "kind": "chaos"},
                 {"type": "hindrance", "kind": "invasion", "hand": 20, "player": "P0"})
    assert view(state)["trouble_pile"]["start"] == 96 - 26 - 6 * 11 == 4
    state = play(state, {"type": "hindrance", "kind": "invasion", "hand": 10, "player": "P1"})
    assert view(state)["trouble_pile"]["start"] == 0 and view(state)["trouble_pile"]["empty"]
    refused(state, NEXT, IllegalEventError, "S10")  # P2..P5 still draw theirs
    for p in players[2:6]:
        state = play(state, {"type": "hindrance", "kind": "invasion", "hand": 12, "player": p})
    assert view(state)["setup_owed"] is None  # seven cards drawn: P6 draws none
    state = play(state, NEXT, {"type": "four"}, NEXT, {"type": "draw_pending"})
    assert view(state)["trouble_pile"]["left"] == 0 and view(state)["trouble_pile"]["ignored"] == 2


# ruling S7 ------------------------------------------------------------------------------------------------------


def test_s7_each_four_adds_two_passed_on_and_drawn_by_who_cannot_pass() -> None:
    # ruling S7
    state = play(started(), {"type": "four", "count": 2})
    data = view(state)
    assert data["pending_draw"] == 4 and data["pending_faces"] is None  # it faces the next player
    refused(state, {"type": "draw_pending"}, IllegalEventError, "S7")  # Ada played it
    state = play(state, NEXT)
    assert view(state)["turn"] == "Ben" and view(state)["pending_faces"] == "Ben"
    assert "draw_pending" in view(state)["expects"] and "next_turn" not in view(state)["expects"]
    refused(state, NEXT, IllegalEventError, "S7")  # Ben must draw or pass it on
    refused(state, {"type": "skip"}, IllegalEventError, "S7")
    refused(state, {"type": "draw"}, IllegalEventError, "S7")
    state = play(state, {"type": "four"}, NEXT)  # Ben passes it on with a 4: 6
    assert view(state)["pending_draw"] == 6 and view(state)["pending_faces"] == "Cleo"
    refused(state, {"type": "defender", "player": "Dan"}, IllegalEventError, "S7")  # it faces Cleo
    state = play(state, {"type": "defender"}, NEXT)  # Cleo passes it with a Defender
    assert view(state)["pending_faces"] == "Dan"
    refused(state, {"type": "draw_pending", "player": "Cleo"}, IllegalEventError, "S7")  # it faces Dan
    state = play(state, {"type": "draw_pending", "player": "Dan"})
    assert GAME.describe({"type": "draw_pending", "player": "Dan"}) == "Dan drew the pending cards"
    data = view(state)
    assert data["pending_draw"] == 0 and data["trouble_pile"]["left"] == 12
    assert data["trouble_pile"]["last_draw"] == {"player": "Dan", "due": 6, "drawn": 6, "pending": True}
    state = play(state, NEXT)  # Dan continues his turn and passes it
    assert view(state)["turn"] == "Ada"
    refused(state, {"type": "draw_pending"}, IllegalEventError, "S7")  # nothing pending


def test_s7_a_pending_draw_from_a_short_pile_draws_what_is_left() -> None:
    # ruling S7 with S6
    state = play(dragons_draw(), {"type": "draw", "count": 16}, {"type": "four", "count": 3}, NEXT,
                 {"type": "draw_pending"})
    pile = view(state)["trouble_pile"]
    assert (pile["left"], pile["due"], pile["drawn"], pile["ignored"]) == (0, 22, 18, 4)


def test_s7_a_defender_with_nothing_to_pass_on_is_refused() -> None:
    # ruling S7
    refused(started(), {"type": "defender"}, IllegalEventError, "S7")
    refused(started(), {"type": "four", "count": 4}, MalformedEventError, "S7")  # four at once burn instead


def test_s7_four_in_a_row_burns_the_pile_without_its_effect() -> None:
    # ruling S7 and the rulebook's four-in-a-row: the effects of the burned cards are not applied
    state = play(started(), {"type": "four", "count": 2}, NEXT)
    state = play(state, {"type": "burned", "cause": "four_in_a_row", "cards": {"4": 4, "2": 1}})
    data = view(state)
    assert data["pending_draw"] == 0 and data["cards_out_round"]["4"] == 4 and data["cards_out_round"]["2"] == 1
    refused(state, {"type": "burned", "cause": "four_in_a_row", "cards": {"4": 3}}, IllegalEventError, "cards")
    refused(state, {"type": "burned", "cause": "fire_breather", "cards": {"4": 3}}, IllegalEventError, "cards")
    refused(state, {"type": "burned", "cause": "four_in_a_row", "cards": {"4": 0}}, MalformedEventError, "cards")
    refused(state, {"type": "burned", "cause": "flood", "cards": {"4": 4}}, MalformedEventError, "cards")
    schema_refused({"type": "burned", "cause": "four_in_a_row", "cards": {"10": 4}}, "cards")


def test_s7_facing_a_pending_draw_only_fours_or_defenders_complete_four_in_a_row() -> None:
    # ruling S7: the player facing the pending draw plays a 4 or a Defender, or draws; so only those end the draw by
    # burning the pile four in a row
    facing = play(started(), {"type": "four", "count": 2}, NEXT)
    refused(facing, {"type": "burned", "cause": "four_in_a_row", "cards": {"6": 4, "4": 2}}, IllegalEventError, "S7")
    defenders = play(facing, {"type": "burned", "cause": "four_in_a_row", "cards": {"defender": 4, "4": 2}})
    assert view(defenders)["pending_draw"] == 0 and view(defenders)["cards_out_round"]["defender"] == 4
    sixes = play(started(), {"type": "burned", "cause": "four_in_a_row", "cards": {"6": 4}})  # nothing pending
    assert view(sixes)["cards_out_round"]["6"] == 4


# ruling S8 ------------------------------------------------------------------------------------------------------


def test_s8_fives_skip_that_many_players() -> None:
    # ruling S8
    state = play(started(), {"type": "skip"})
    assert view(state)["skipping"] == ["Ben"]
    state = play(state, NEXT)
    assert view(state)["turn"] == "Cleo" and view(state)["last_skipped"] == ["Ben"] and view(state)["skips"] == 0
    state = play(state, {"type": "skip", "count": 3})
    refused(state, {"type": "skip"}, IllegalEventError, "S8")
    state = play(state, NEXT)  # Dan, Ada, Ben skip
    assert view(state)["turn"] == "Cleo" and view(state)["last_skipped"] == ["Dan", "Ada", "Ben"]


def test_s8_the_rulebook_example_a_defender_passes_the_skip_on() -> None:
    # ruling S8, the rulebook's example: 4 players; player 1 plays two 5s (players 2 and 3 skip); player 2 plays
    # a Defender: players 3 and 4 skip, and player 1 takes a new turn
    state = play(started(), {"type": "skip", "count": 2})
    assert view(state)["skipping"] == ["Ben", "Cleo"]
    refused(state, {"type": "defender", "player": "Dan"}, IllegalEventError, "S8")  # Dan is not skipped yet
    state = play(state, {"type": "defender", "player": "Ben"})
    assert view(state)["skipping"] == ["Cleo", "Dan"]
    state = play(state, NEXT)
    assert view(state)["turn"] == "Ada" and view(state)["last_skipped"] == ["Cleo", "Dan"]


def test_s8_a_later_skipped_player_may_pass_it_on_too() -> None:
    # ruling S8: Cleo (the second skipped) plays a Defender: Ben and Dan skip
    state = play(started(), {"type": "skip", "count": 2}, {"type": "defender", "player": "Cleo"}, NEXT)
    assert view(state)["turn"] == "Ada" and view(state)["last_skipped"] == ["Ben", "Dan"]


def test_s8_once_every_player_is_affected_the_skip_cannot_be_passed_on() -> None:
    # ruling S8: "to the next player not yet affected": with two players, Ben passes the skip to Ada, and then
    # nobody is left
    state = play(started(("Ada", "Ben")), {"type": "skip"}, {"type": "defender"})
    assert view(state)["skipping"] == ["Ada"] and "defender" not in view(state)["expects"]
    error = refused(state, {"type": "defender"}, IllegalEventError, "S8")
    assert "nobody is left" in error.message
    state = play(state, NEXT)
    assert view(state)["turn"] == "Ben" and view(state)["last_skipped"] == ["Ada"]


# ruling S9 ------------------------------------------------------------------------------------------------------


def test_s9_tricks_are_off_by_default() -> None:
    # ruling S9: an additional rule; off unless chosen
    assert GAME.resolve_options({}) == {"hindrances": False, "tricks": False}
    refused(new(), {"type": "trick", "trick": "carousel"}, IllegalEventError, "S9")


def test_s9_one_trick_per_round_revealed_tricks_stay_with_a_reminder() -> None:
    # ruling S9
    state = play(new(tricks=True), {"type": "trick", "trick": "carousel"})
    refused(state, {"type": "trick", "trick": "surprise"}, IllegalEventError, "S9")  # one per round
    state = play(state, {"type": "starter", "player": "Ada"})
    state = result(state, "Ada", {"Ben": 1, "Cleo": 2, "Dan": 3})
    refused(state, {"type": "trick", "trick": "carousel"}, IllegalEventError, "S9")  # already revealed
    state = play(state, {"type": "trick", "trick": "surprise"})
    tricks = view(state)["tricks"]
    assert [t["id"] for t in tricks] == ["carousel", "surprise"]
    assert all(t["reminder"] and t["name"] for t in tricks)
    assert view(state)["tricks_left"] == 5 == len(view(state)["trick_choices"])
    assert "carousel" not in {t["id"] for t in view(state)["trick_choices"]}
    state = play(state, NEXT)
    refused(play(new(tricks=True), {"type": "trick", "trick": "fast_dragon"}, {"type": "starter", "player": "Ada"},
                 NEXT), {"type": "trick", "trick": "surprise"}, IllegalEventError, "S9")  # the round is under way


def test_s9_there_is_no_eighth_trick() -> None:
    # ruling S9: seven trick cards
    state = play(new(tricks=True), {"type": "starter", "player": "Ada"})
    for trick in TRICKS:
        state = play(state, {"type": "trick", "trick": trick})
        state = result(state, "Ada", {"Ben": 0, "Cleo": 0, "Dan": 1})
    assert view(state)["tricks_left"] == 0 and "trick" not in view(state)["expects"]
    error = refused(state, {"type": "trick", "trick": "carousel"}, IllegalEventError, "S9")
    assert "eighth" in error.message
    refused(state, {"type": "trick", "trick": "nine"}, MalformedEventError, "S9")
    schema_refused({"type": "trick", "trick": "nine"}, "S9")


# ruling S10 -----------------------------------------------------------------------------------------------------


def test_s9_s10_play_begins_once_the_round_is_set_up() -> None:
    """A round's trick (S9) and its holder's hindrance (S10) are entered while it is set up: until they are, a
    tracker tap or a player going out is refused with the rule, and the page is offered the setup alone."""
    trackers = ("next_turn", "four", "skip", "went_out")
    state = started(tricks=True, hindrances=True)
    refused(state, NEXT, IllegalEventError, "S9")
    refused(state, {"type": "went_out", "player": "Ada"}, IllegalEventError, "S9")
    assert not set(trackers) & set(view(state)["expects"]) and "trick" in view(state)["expects"]
    assert view(state)["setup_owed"] == {"rule": "S9", "message": "reveal round 1's trick first"}
    state = play(state, {"type": "trick", "trick": "fast_dragon"})
    assert view(state)["setup_owed"] is None
    state = play(state, NEXT)
    state = result(state, "Ben", {"Ada": 1, "Cleo": 2, "Dan": 3})  # round 2: Ben draws a hindrance
    state = play(state, {"type": "trick", "trick": "surprise"})
    refused(state, NEXT, IllegalEventError, "S10")
    refused(state, {"type": "went_out", "player": "Ada"}, IllegalEventError, "S10")
    assert not set(trackers) & set(view(state)["expects"]) and "hindrance" in view(state)["expects"]
    assert view(state)["setup_owed"] == {"rule": "S10", "message": "Ben draws round 2's hindrance first"}
    state = play(state, {"type": "hindrance", "kind": "invasion", "hand": 5}, NEXT)
    assert view(state)["phase"] == "play"
    # with every trick revealed, a round owes none
    state = play(new(tricks=True), {"type": "starter", "player": "Ada"})
    for trick in NEUTRAL_TRICKS:
        state = result(play(state, {"type": "trick", "trick": trick}), "Ada", {"Ben": 0, "Cleo": 0, "Dan": 0})
    assert view(state)["tricks_left"] == 0 and "trick" not in view(state)["expects"]
    assert "next_turn" in view(play(state, NEXT))["expects"]


def test_s10_hindrances_off_or_in_the_first_round_are_refused() -> None:
    # ruling S10
    state = result(started(), "Ada", {"Ben": 1, "Cleo": 1, "Dan": 1})
    refused(state, {"type": "hindrance", "kind": "chaos"}, IllegalEventError, "S10")
    assert view(state)["hindrance_holder"] is None
    refused(started(hindrances=True), {"type": "hindrance", "kind": "chaos"}, IllegalEventError, "S10")


def test_s10_the_last_finisher_draws_the_hindrance_for_one_round() -> None:
    # ruling S10
    state = result(started(hindrances=True), "Cleo", {"Ada": 1, "Ben": 5, "Dan": 1})
    data = view(state)
    assert data["hindrance_holder"] == "Cleo" and data["starter"] == "Ben" and "hindrance" in data["expects"]
    refused(state, {"type": "hindrance", "kind": "chaos", "player": "Ada"}, IllegalEventError, "S10")
    state = play(state, {"type": "hindrance", "kind": "unknown", "face_up": 2, "face_down": 3})
    assert view(state)["hindrance"] == {"player": "Cleo", "kind": "unknown", "name": "Unknown", "hand": None,
                                        "face_up": 2, "face_down": 3, "dealt": 10}
    assert view(state)["trouble_pile"]["start"] == 18  # S6: only Chaos changes the pile
    refused(state, {"type": "hindrance", "kind": "chaos", "player": "Ada"}, IllegalEventError, "S10")
    state = result(state, "Dan", {"Ada": 1, "Ben": 5, "Cleo": 1})
    assert view(state)["hindrance"] is None and view(state)["hindrance_holder"] == "Dan"
    assert view(state)["history"][1]["hindrances"][0]["kind"] == "unknown"


@pytest.mark.parametrize("event", [
    {"type": "hindrance", "kind": "invasion"},
    {"type": "hindrance", "kind": "invasion", "hand": 0},
    {"type": "hindrance", "kind": "invasion", "hand": 21},
    {"type": "hindrance", "kind": "invasion", "hand": 5, "face_up": 1},
    {"type": "hindrance", "kind": "unknown", "face_up": 2},
    {"type": "hindrance", "kind": "unknown", "face_up": 0, "face_down": 0},
    {"type": "hindrance", "kind": "unknown", "face_up": 13, "face_down": 1},
    {"type": "hindrance", "kind": "chaos", "hand": 5},
    {"type": "hindrance", "kind": "storm"},
])
def test_s10_a_card_shows_its_own_numbers(event: dict[str, Any]) -> None:
    # ruling S10: a hand size for an invasion, a reserve layout for the unknown, nothing for Chaos
    state = result(started(hindrances=True), "Ada", {"Ben": 1, "Cleo": 1, "Dan": 1})
    refused(state, event, MalformedEventError, "S10")


def test_s10_under_chaos_every_player_draws_one_card_of_seven() -> None:
    # ruling S10
    state = chaos_round()
    assert "hindrance" in view(state)["expects"]
    refused(state, {"type": "hindrance", "kind": "invasion", "hand": 6}, MalformedEventError, "S10")  # who?
    state = play(state, {"type": "hindrance", "kind": "invasion", "hand": 6, "player": "Ben"})
    refused(state, {"type": "hindrance", "kind": "chaos", "player": "Ben"}, IllegalEventError, "S10")
    players = tuple(f"P{i}" for i in range(7))
    state = result(play(new(players, hindrances=True), {"type": "starter", "player": "P0"}), "P0",
                   {p: 1 for p in players[1:]})
    state = play(state, {"type": "hindrance", "kind": "chaos"})
    for p in players[:6]:
        state = play(state, {"type": "hindrance", "kind": "chaos", "player": p})
    error = refused(state, {"type": "hindrance", "kind": "chaos", "player": "P6"}, IllegalEventError, "S10")
    assert "7 hindrance cards" in error.message
    state = play(state, NEXT)
    state = play(chaos_round(), *({"type": "hindrance", "kind": "chaos", "player": p} for p in ("Ada", "Cleo", "Dan")))
    error = refused(play(state, {"type": "hindrance", "kind": "chaos", "player": "Ben"}, NEXT),
                    {"type": "hindrance", "kind": "chaos", "player": "Ben"}, IllegalEventError, "S10")
    assert "belongs to setting up the round" in error.message  # the round is under way


def test_s10_under_chaos_play_begins_once_every_player_drew() -> None:
    """The rulebook: under Chaos "each player must take a hindrance card". Until every player's is entered, a
    tracker tap is refused and the page says who still draws."""
    state = chaos_round()
    refused(state, NEXT, IllegalEventError, "S10")
    assert view(state)["setup_owed"] == {
        "rule": "S10", "message": "under Chaos every player draws a hindrance: Ada, Ben, Cleo and Dan first"}
    state = play(state, {"type": "hindrance", "kind": "invasion", "hand": 8, "player": "Ben"},
                 {"type": "hindrance", "kind": "chaos", "player": "Cleo"})
    refused(state, {"type": "went_out", "player": "Ben"}, IllegalEventError, "S10")
    assert view(state)["setup_owed"]["message"] == "under Chaos every player draws a hindrance: Ada and Dan first"
    assert "next_turn" not in view(state)["expects"] and "hindrance" in view(state)["expects"]
    state = play(state, {"type": "hindrance", "kind": "chaos", "player": "Dan"},
                 {"type": "hindrance", "kind": "unknown", "face_up": 1, "face_down": 1, "player": "Ada"}, NEXT)
    assert view(state)["setup_owed"] is None and view(state)["trouble_pile"]["start"] == 96 - (7 + 14 + 11 + 11)


# ruling S11 -----------------------------------------------------------------------------------------------------


def test_s11_only_the_carousel_reverses_the_direction() -> None:
    # ruling S11
    refused(started(), {"type": "reverse"}, IllegalEventError, "S11")
    state = play(new(tricks=True), {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": "Ben"})
    assert view(state)["direction"] == "clockwise"
    state = play(state, NEXT, {"type": "reverse"})
    assert view(state)["direction"] == "counterclockwise" and view(state)["turn"] == "Cleo"
    state = play(state, NEXT)
    assert view(state)["turn"] == "Ben"  # the previous player takes his turn again
    state = play(state, {"type": "skip"}, NEXT)  # counterclockwise: Ada skips, Dan plays
    assert view(state)["turn"] == "Dan" and view(state)["last_skipped"] == ["Ada"]
    state = result(state, "Dan", {"Ada": 1, "Ben": 1, "Cleo": 5})
    assert view(state)["direction"] == "clockwise"  # a new round starts clockwise


def test_s11_of_two_players_the_carousel_gives_the_mover_a_second_turn() -> None:
    # ruling S11; rulebook, value 7: "If two are playing, the active player takes a second turn."
    two = play(new(("Ada", "Ben"), tricks=True), {"type": "trick", "trick": "carousel"},
               {"type": "starter", "player": "Ada"})
    state = play(two, {"type": "reverse"})
    assert view(state)["turn"] == "Ada" == view(state)["goes_again"]
    state = play(state, NEXT)
    assert view(state)["turn"] == "Ada" and view(state)["goes_again"] is None  # Ada's second turn
    state = play(state, NEXT)
    assert view(state)["turn"] == "Ben"  # then play goes on as before
    three = play(new(("Ada", "Ben", "Cleo"), tricks=True), {"type": "trick", "trick": "carousel"},
                 {"type": "starter", "player": "Ada"}, {"type": "reverse"})
    assert view(three)["goes_again"] is None and view(play(three, NEXT))["turn"] == "Cleo"


def test_s11_of_two_players_the_second_turn_begins_with_next_turn_before_its_cards() -> None:
    # ruling S11 (rules version 4): a 5, a 4 or a second 7 entered before Next turn mixed into the first turn: the
    # 5 skipped nobody (Ben got the turn), the 4 faced nobody (Ada went a third time), the second 7 gave Ben the turn
    two = play(new(("Ada", "Ben"), tricks=True), {"type": "trick", "trick": "carousel"},
               {"type": "starter", "player": "Ada"}, {"type": "reverse"})
    for early in ({"type": "skip"}, {"type": "four"}, {"type": "reverse"}, {"type": "defender"}):
        error = refused(two, early, IllegalEventError, "S11")
        assert "Ada goes again" in error.message and "Next turn" in error.message
    assert view(two)["expects"] == ["next_turn", "set_out", "burned", "went_out"]
    second = play(two, NEXT)
    assert view(second)["turn"] == "Ada" and view(second)["goes_again"] is None
    assert view(play(second, {"type": "skip"}, NEXT))["turn"] == "Ada"  # her 5 skips Ben
    faced = play(second, {"type": "four"}, NEXT)
    assert view(faced)["turn"] == "Ben" and view(faced)["pending_faces"] == "Ben"  # her 4 faces Ben
    third = play(second, {"type": "reverse"})  # a second 7: a third turn, clockwise again
    assert view(third)["goes_again"] == "Ada" and view(third)["direction"] == "clockwise"
    assert view(play(third, NEXT))["turn"] == "Ada"
    went_out = play(two, {"type": "went_out", "player": "Ada"})  # the 7 was her last card
    assert view(went_out)["phase"] == "scoring"


def test_s11_before_rules_version_4_a_reverse_tapped_again_took_the_second_turn_back() -> None:
    # ruling S11: a log recorded under version 3 folds as it was played
    two = play(version_3(("Ada", "Ben"), tricks=True), {"type": "trick", "trick": "carousel"},
               {"type": "starter", "player": "Ada"})
    taken_back = play(two, {"type": "reverse"}, {"type": "reverse"}, NEXT)
    assert view(taken_back)["turn"] == "Ben" and view(taken_back)["direction"] == "clockwise"
    mixed = play(two, {"type": "reverse"}, {"type": "skip"}, NEXT)
    assert view(mixed)["turn"] == "Ben"


def test_s6_only_goblins_against_dragons_draws_from_the_pile_beside_the_fours() -> None:
    # rulings S6 and S9: the rulebook draws from the trouble pile for 4s (S7) and, under the trick goblins against
    # dragons, for a dragon card played; a player who cannot play takes the discard pile, not the trouble pile
    plain = started(tricks=True)
    plain = play(plain, {"type": "trick", "trick": "carousel"})
    error = refused(plain, {"type": "draw"}, IllegalEventError, "S6")
    assert "goblins against dragons" in error.message and "discard pile" in error.message
    assert "draw" not in view(plain)["expects"]
    refused(started(), {"type": "draw", "player": "Ben"}, IllegalEventError, "S6")
    drawn = play(dragons_draw(), {"type": "draw"})
    assert view(drawn)["trouble_pile"]["left"] == 17 and "draw" in view(drawn)["expects"]
    old = play(version_3(), {"type": "starter", "player": "Ada"}, {"type": "draw"})  # an old log folds
    assert view(old)["trouble_pile"]["left"] == 17


def test_s7_a_defender_with_no_draw_or_skip_to_pass_says_what_it_passes_on() -> None:
    # ruling S7; rulebook's example: a Defender on a 9 passes the 9's problem on, which no tracker keeps
    error = refused(started(), {"type": "defender"}, IllegalEventError, "S7")
    assert "passes on what the discard pile shows" in error.message and "no tracker changes" in error.message


# trackers across rounds, the view, purity ---------------------------------------------------------------------


def test_trackers_reset_at_the_round_start_cards_out_and_tricks_carry_over() -> None:
    state = play(new(tricks=True), {"type": "trick", "trick": "goblins_against_dragons"},
                 {"type": "starter", "player": "Ada"}, {"type": "set_out", "value": "zero"},
                 {"type": "draw", "count": 3}, {"type": "four"}, {"type": "skip"})
    assert (view(state)["pending_draw"], view(state)["skips"], view(state)["trouble_pile"]["left"]) == (2, 1, 15)
    state = result(state, "Ada", {"Ben": 1, "Cleo": 2, "Dan": 3})
    data = view(state)
    assert data["pending_draw"] == 0 and data["skips"] == 0 and data["trouble_pile"]["left"] == 18
    assert data["turn"] == "Dan" == data["starter"] and data["phase"] == "setup"
    assert data["cards_out"]["zero"] == 4 and data["cards_out_round"]["zero"] == 0
    assert [t["id"] for t in data["tricks"]] == ["goblins_against_dragons"]
    state = play(state, {"type": "trick", "trick": "surprise"}, {"type": "set_out", "value": "zero"})
    assert view(state)["cards_out"]["zero"] == 8 and view(state)["cards_out_round"]["zero"] == 4
    assert set(view(state)["cards_out"]) == set(VALUES)


def test_view_has_the_contract_and_the_page_keys_and_is_json() -> None:
    state = result(started(), "Ada", {"Ben": 3, "Cleo": 2, "Dan": 1})
    data = view(state)
    assert json.loads(json.dumps(data)) == data
    for key in ("finished", "winners", "round", "scores", "turn", "breakdown", "starter", "direction",
                "pending_draw", "skips", "trouble_pile", "tricks", "hindrance", "cards_out", "running", "limit",
                "lower_wins", "losses", "phase", "expects"):
        assert key in data, key


def test_apply_never_mutates_its_input_and_replay_is_deterministic() -> None:
    events = [{"type": "starter", "player": "Ben"}, {"type": "four"}, NEXT, {"type": "draw_pending"},
              {"type": "went_out", "player": "Cleo"}, {"type": "coins", "player": "Ada", "coins": 4},
              {"type": "coins", "player": "Ben", "coins": 4}, {"type": "coins", "player": "Dan", "coins": 4}]
    state = new()
    for event in events:
        before = copy.deepcopy(state)
        frozen = copy.deepcopy(event)
        after = GAME.apply(state, event)
        assert state == before and event == frozen
        state = after
    assert play(new(), *events) == state


def test_every_example_is_described_and_valid() -> None:
    for declared in GAME.event_types:
        validate_event(GAME, dict(declared.example))
        assert GAME.describe(dict(declared.example)) != declared.type or declared.type == "next_turn"
    assert GAME.describe({"type": "draw", "player": "Ben", "count": 2}) == "Ben drew 2 from the trouble pile"


def test_every_documented_example_is_accepted_at_some_point() -> None:
    examples = {e.type: dict(e.example) for e in GAME.event_types}
    state = play(new(tricks=True, hindrances=True), examples["starter"], examples["trick"])
    state = play(state, examples["four"], examples["next_turn"], examples["defender"], examples["next_turn"],
                 examples["draw_pending"], examples["skip"], examples["next_turn"], examples["draw"],
                 examples["set_out"], examples["burned"], NEXT, NEXT, NEXT)  # Ada's turn: she goes out
    state = play(state, examples["went_out"], examples["coins"], {"type": "coins", "player": "Cleo", "coins": 1},
                 {"type": "coins", "player": "Dan", "coins": 1})
    state = play(state, examples["hindrance"], {"type": "trick", "trick": "carousel"}, examples["reverse"])
    assert view(state)["round"] == 2


def test_unknown_event_type_is_refused() -> None:
    refused(started(), {"type": "leave", "player": "Ben"}, MalformedEventError, "events")


# through the table ----------------------------------------------------------------------------------------------


def test_a_game_round_trips_through_the_log_with_undo_redo_and_restart(tmp_path: Path) -> None:
    path = tmp_path / "ds.sqlite3"
    log = EventLog(path)
    table = Table(log)
    session = table.create(GAME.id, ["Ada", "Ben", "Cleo"], {"tricks": True})
    sid = session["id"]
    for event in ({"type": "trick", "trick": "golden_feathers"}, {"type": "starter", "player": "Ada"},
                  {"type": "four"}, {"type": "next_turn"}, {"type": "draw_pending"},
                  {"type": "went_out", "player": "Ben"}, {"type": "coins", "player": "Ada", "coins": 12, "eights": 1}):
        table.submit(sid, event)
    with pytest.raises(RuleError) as info:
        table.submit(sid, {"type": "coins", "player": "Cleo", "coins": 100})
    assert info.value.rule == "S2"
    undone = table.undo(sid)
    assert undone["change"]["text"] == "Ada's 12 coins"
    assert undone["state"]["waiting_for_coins"] == ["Ada", "Cleo"]
    redone = table.redo(sid)
    assert redone["state"]["waiting_for_coins"] == ["Cleo"]
    final = table.submit(sid, {"type": "coins", "player": "Cleo", "coins": 3})
    assert final["scores"] == {"Ada": 9, "Ben": 0, "Cleo": 3} and final["state"]["starter"] == "Ada"
    assert final["state"]["trouble_pile"]["left"] == 18 and final["state"]["cards_out"]["4"] == 0
    log.close()
    log = EventLog(path)
    table = Table(log)
    table.rebuild()
    try:
        assert table.view(sid) == final
    finally:
        log.close()

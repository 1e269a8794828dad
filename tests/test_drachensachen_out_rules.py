"""Drachensachen: who may go out (play their last card) at a moment of the round. The rulebook: a player plays on
their own turn (Turn Order) and the round ends as soon as one plays their last card (End of the Round); a skipped
player may still play a Defender to pass the skip on (ruling S8). Rules version 5; a log of version 4 ended with
anyone."""
from __future__ import annotations

from companion.games import IllegalEventError
from companion.games.base import RULES_VERSION
from tests.test_drachensachen_rules import FOUR, GAME, NEXT, play, refused, started, view


def test_turns_once_tracked_only_the_player_whose_turn_it_is_goes_out() -> None:
    # rulebook: Turn Order, End of the Round (rules version 5)
    state = play(started(), NEXT)  # Ben's turn
    for player in ("Ada", "Cleo", "Dan"):
        error = refused(state, {"type": "went_out", "player": player}, IllegalEventError, "turns")
        assert "Ben's turn" in error.message
    assert view(state)["going_out"] == ["Ben"]
    assert view(play(state, {"type": "went_out", "player": "Ben"}))["finisher"] == "Ben"


def test_a_round_played_without_its_trackers_ends_with_any_player() -> None:
    # rulebook: End of the Round; no tracker tap since the set-up, so the tracker has not followed the turns
    state = started()
    assert view(state)["going_out"] == list(FOUR)
    assert view(play(state, {"type": "went_out", "player": "Cleo"}))["finisher"] == "Cleo"


def test_s8_a_skipped_player_may_go_out_with_a_defender() -> None:
    # ruling S8: a skipped player may play a Defender, their last card, to pass the skip on
    state = play(started(), {"type": "skip", "count": 2})  # Ada's two 5s: Ben and Cleo skip
    refused(state, {"type": "went_out", "player": "Dan"}, IllegalEventError, "turns")
    assert view(state)["going_out"] == ["Ada", "Ben", "Cleo"]
    assert view(play(state, {"type": "went_out", "player": "Cleo"}))["finisher"] == "Cleo"
    three = play(started(("Ada", "Ben", "Cleo")), {"type": "skip", "count": 2}, {"type": "defender"})
    assert view(three)["going_out"] == ["Ada"]  # every player is affected: no Defender is left to pass it on
    refused(three, {"type": "went_out", "player": "Cleo"}, IllegalEventError, "S8")


def test_nobody_is_offered_once_someone_went_out_or_while_the_setup_is_owed() -> None:
    # ruling S2: one player goes out per round; S9: play waits for the round's trick
    over = play(started(), {"type": "went_out", "player": "Ada"})
    assert view(over)["going_out"] == []
    owed = play(GAME.setup(FOUR, GAME.resolve_options({"tricks": True})), {"type": "starter", "player": "Ada"})
    assert view(owed)["going_out"] == []


def test_a_log_of_rules_version_4_ends_with_anyone() -> None:
    # rules version 4 let any player go out; its logs fold as they were recorded
    old = GAME.setup(FOUR, {**GAME.resolve_options({}), RULES_VERSION: 4})
    state = play(old, {"type": "starter", "player": "Ada"}, NEXT)
    assert view(state)["going_out"] == list(FOUR)
    assert view(play(state, {"type": "went_out", "player": "Dan"}))["finisher"] == "Dan"

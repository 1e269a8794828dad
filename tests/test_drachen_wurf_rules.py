"""Drachen Wurf's pure rules (setup/apply/view), ruling by ruling (W1-W8), the scoring table, the help at the
table, a 2-player game, and the round trip through a Table on SQLite."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.drachen_wurf import WurfState, placements, row_valid, rows_score, stealable, tile_id
from companion.games.schema import validate_event
from companion.log import EventLog
from companion.table import Table
from tests.rules import expect_refused

GAME = GAMES["drachen-wurf"]
THREE = ("Ada", "Ben", "Cleo")
TWO = ("Ada", "Ben")


def new(players: Iterable[str] = THREE, **options: Any) -> WurfState:
    return GAME.setup(tuple(players), GAME.resolve_options(options))


def play(state: WurfState, *events: Mapping[str, Any]) -> WurfState:
    for event in events:
        validate_event(GAME, event)  # the examples and helpers are well formed by the declared schema
        state = GAME.apply(state, event)
    return state


def refused(state: WurfState, event: Mapping[str, Any], cls: type[RuleError], rule: str) -> RuleError:
    """Apply `event`, expect `cls` naming `rule`, and check the state is untouched."""
    return expect_refused(GAME, state, event, cls, rule)


def flip(c: int, ls: int) -> dict[str, Any]:
    return {"type": "flip", "colour": c, "landscape": ls}


def remove(c: int, ls: int) -> dict[str, Any]:
    return {"type": "remove", "colour": c, "landscape": ls}


def secure(c: int, ls: int, row: int | None = None) -> dict[str, Any]:
    return {"type": "secure", "colour": c, "landscape": ls, "row": row}


def win(c: int, ls: int, k: int, source: str = "middle", egg: bool = False) -> dict[str, Any]:
    return {"type": "win", "colour": c, "landscape": ls, "from": source, "k": k, "egg": egg}


def move(c: int, ls: int, row: int | None = None) -> dict[str, Any]:
    return {"type": "move", "colour": c, "landscape": ls, "row": row}


END = {"type": "end"}


def started(players: Iterable[str] = THREE, tiles: Iterable[tuple[int, int]] = ((1, 1), (1, 2), (2, 1)),
            **options: Any) -> WurfState:
    """A new game with the first turn's tiles flipped into the middle."""
    return play(new(players, **options), *(flip(c, ls) for c, ls in tiles))


def place(state: WurfState, c: int, ls: int) -> dict[str, Any]:
    return GAME.view(state)["tiles"][tile_id(c, ls)]["place"]


# ruling W1 --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 7])
def test_w1_setup_refuses_wrong_player_counts(count: int) -> None:
    # ruling W1: 2 to 6 players
    with pytest.raises(IllegalEventError) as info:
        new(tuple(f"P{i}" for i in range(count)))
    assert info.value.rule == "W1"
    assert (GAME.min_players, GAME.max_players) == (2, 6)


def test_w1_no_player_is_called_middle() -> None:
    # ruling W1 (a win says where its tile was: "middle" or a player's name)
    with pytest.raises(IllegalEventError) as info:
        new(("Ada", "middle"))
    assert info.value.rule == "W1"


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_w1_36_tiles_face_down_and_36_eggs(count: int) -> None:
    # ruling W1: 36 tiles, one per colour x landscape; 1 egg each, the rest in the supply
    players = tuple(f"P{i}" for i in range(count))
    view = GAME.view(new(players))
    assert len(view["tiles"]) == 36 == len(view["face_down"]) == view["pile"]
    pairs = {(c, ls) for c in range(1, 7) for ls in range(1, 7)}
    assert {(t["colour"], t["landscape"]) for t in view["tiles"]} == pairs
    assert all(t["place"] == {"where": "face_down"} for t in view["tiles"])
    assert view["eggs"] == {p: 1 for p in players} and view["egg_supply"] == 36 - count
    assert view["scores"] == {p: 1 for p in players}  # W7: an unspent egg is a point
    assert view["turn"] == "P0" and view["phase"] == "flip" and view["expects"] == ["flip"]


def test_w1_names_default_to_what_the_page_draws_and_are_renameable() -> None:
    # ruling W1: colours and landscapes have display names the table may rename; until it does, the colours and
    # landscapes the page draws the tiles in
    view = GAME.view(new())
    assert view["colour_names"] == ["Red", "Blue", "Green", "Yellow", "Purple", "Black"]
    assert view["landscape_names"] == ["Mountains", "Forest", "Water", "Desert", "Ice", "Volcano"]
    colours = ["Red", "Blue", "Green", "Yellow", "Black", "White"]
    state = new(colour_names=colours, landscape_names=["Sea", "Hills", "Forest", "Desert", "Snow", "Swamp"])
    assert GAME.view(state)["colour_names"] == colours
    error = refused(play(new(), flip(1, 1)), flip(1, 1), IllegalEventError, "W1")
    assert "Red dragon on Mountains" in error.message
    error = refused(play(state, flip(2, 3)), flip(2, 3), IllegalEventError, "W1")
    assert "Blue dragon on Forest" in error.message
    with pytest.raises(MalformedEventError) as info:
        GAME.resolve_options({"colour_names": ["Red"]})
    assert info.value.rule == "W1"


@pytest.mark.parametrize("bad", [0, 7, -1, "3", 3.0, True, None])
def test_w1_a_tile_is_colour_and_landscape_1_to_6(bad: Any) -> None:
    # ruling W1
    refused(new(), {"type": "flip", "colour": bad, "landscape": 2}, MalformedEventError, "W1")
    refused(new(), {"type": "flip", "colour": 2, "landscape": bad}, MalformedEventError, "W1")


def test_w1_flip_names_a_tile_still_face_down() -> None:
    # ruling W1: each tile is in exactly one place; a tile already up cannot come up again
    state = play(new(), flip(4, 5))
    assert place(state, 4, 5) == {"where": "middle"}
    refused(state, flip(4, 5), IllegalEventError, "W1")


# ruling W2 --------------------------------------------------------------------------------------------------


def test_w2_a_tile_won_with_k_dice_goes_on_side_k() -> None:
    # ruling W2
    state = play(started(), win(1, 1, 2), win(2, 1, 4))
    view = GAME.view(state)
    assert view["bases"]["Ada"] == {"2": [tile_id(1, 1)], "3": [], "4": [tile_id(2, 1)], "5": [], "6": []}
    assert place(state, 2, 1) == {"where": "base", "player": "Ada", "side": 4}
    assert view["middle"] == [tile_id(1, 2)]
    assert view["current"]["dice_used"] == 6 and view["current"]["dice_left"] == 0


@pytest.mark.parametrize("k", [1, 7, 0, "3", None, 2.5])
def test_w2_k_is_2_to_6(k: Any) -> None:
    # ruling W2
    refused(started(), win(1, 1, k), MalformedEventError, "W2")


def test_w2_a_tile_must_be_where_the_event_says() -> None:
    # ruling W2
    state = started()
    refused(state, win(3, 3, 2), IllegalEventError, "W2")            # face down, not in the middle
    refused(state, win(1, 1, 3, "Ben"), IllegalEventError, "W2")     # in the middle, not on Ben's base
    refused(state, win(1, 1, 3, "Nobody"), MalformedEventError, "W2")
    state = play(state, win(1, 1, 3), END, flip(3, 3))
    refused(state, win(1, 1, 4), IllegalEventError, "W2")            # on Ada's base now
    refused(state, win(1, 1, 4, "Cleo"), IllegalEventError, "W2")


def test_w2_a_steal_needs_more_dice_than_the_side() -> None:
    # ruling W2: a tile on side 4 is stolen with 5 or 6
    state = play(started(), win(2, 1, 4), END, flip(3, 3))
    assert GAME.view(state)["turn"] == "Ben"
    refused(state, win(2, 1, 4, "Ada"), IllegalEventError, "W2")
    refused(state, win(2, 1, 3, "Ada"), IllegalEventError, "W2")
    assert GAME.view(state)["stealable"]["4"] == [] and GAME.view(state)["stealable"]["5"] == [tile_id(2, 1)]
    state = play(state, win(2, 1, 5, "Ada"))
    assert place(state, 2, 1) == {"where": "base", "player": "Ben", "side": 5}


def test_w2_no_stealing_from_ones_own_base() -> None:
    # ruling W2: from another player's base
    state = play(started(), win(2, 1, 2), END, flip(3, 3), END, END)
    assert GAME.view(state)["turn"] == "Ada" and GAME.view(state)["phase"] == "secure"
    state = play(state, secure(2, 1))
    refused(play(started(), win(2, 1, 2)), win(2, 1, 3, "Ada"), IllegalEventError, "W2")


def test_w2_the_six_dice_are_shared_by_every_win_of_a_turn() -> None:
    # ruling W2 (rulebook 1B: 6 dice, split among tiles); an egg-doubled die is one die counting 2
    state = play(started(), win(1, 1, 3), win(1, 2, 2))
    refused(state, win(2, 1, 2), IllegalEventError, "W2")  # 1 die left
    state = play(state, win(2, 1, 2, egg=True))              # the last die, doubled
    assert GAME.view(state)["current"]["dice_left"] == 0 and GAME.view(state)["max_k"] == 0
    assert "win" not in GAME.view(state)["expects"]


# ruling W3 --------------------------------------------------------------------------------------------------


def test_w3_six_on_one_tile_goes_into_the_hoard_and_gives_another_turn() -> None:
    # ruling W3
    state = play(started(), win(1, 2, 6))
    view = GAME.view(state)
    assert view["phase"] == "bonus" and view["expects"] == ["secure"]
    assert place(state, 1, 2) == {"where": "bonus", "player": "Ada"}
    assert view["placements"] == {str(tile_id(1, 2)): [{"row": None, "score": 2, "gain": 1}]}
    refused(state, secure(1, 1), IllegalEventError, "W3")     # only the won tile goes into the hoard
    refused(state, win(1, 1, 2), IllegalEventError, "W3")
    refused(state, END, IllegalEventError, "W3")
    state = play(state, secure(1, 2))
    assert place(state, 1, 2) == {"where": "hoard", "player": "Ada", "row": 1}
    assert GAME.view(state)["scores"]["Ada"] == 2
    state = play(state, END)
    view = GAME.view(state)
    assert view["turn"] == "Ada" and view["current"]["extra_turn"] and view["round"] == 1
    assert view["phase"] == "flip" and view["to_flip"] == 1   # the middle is topped up to 3
    state = play(state, flip(4, 4), END)
    assert GAME.view(state)["turn"] == "Ben" and not GAME.view(state)["current"]["extra_turn"]


def test_w3_an_egg_doubled_die_counts_towards_six() -> None:
    # ruling W3: "whether through the help of a dragon egg or not"
    state = play(started(), win(1, 2, 6, egg=True))
    assert GAME.view(state)["phase"] == "bonus"
    assert GAME.view(state)["eggs"]["Ada"] == 0


def test_w3_split_dice_give_no_bonus() -> None:
    # ruling W3: 3 + 3 of one colour on two tiles is a normal turn
    state = play(started(), win(1, 1, 3), win(1, 2, 3), END)
    assert GAME.view(state)["turn"] == "Ben"
    assert GAME.view(state)["bases"]["Ada"]["3"] == [tile_id(1, 1), tile_id(1, 2)]


def test_w3_a_steal_with_six_goes_into_the_hoard() -> None:
    # ruling W3 with W2 and W5
    state = play(started(), win(2, 1, 5), END, flip(3, 3), win(2, 1, 6, "Ada"))
    assert place(state, 2, 1) == {"where": "bonus", "player": "Ben"}
    assert GAME.view(state)["eggs"]["Ada"] == 2


# ruling W4 --------------------------------------------------------------------------------------------------


def test_w4_one_egg_doubles_one_die_per_turn() -> None:
    # ruling W4; the spent egg returns to the supply
    state = play(started(), win(1, 1, 2, egg=True))
    view = GAME.view(state)
    assert view["eggs"]["Ada"] == 0 and view["egg_supply"] == 34 and view["current"]["egg_doubled"]
    assert view["bases"]["Ada"]["2"] == [tile_id(1, 1)] and view["current"]["dice_used"] == 1
    state = dataclasses.replace(state, eggs=(2, 1, 1), supply=32)  # suppose Ada had another egg
    refused(state, win(1, 2, 2, egg=True), IllegalEventError, "W4")


def test_w4_an_egg_the_player_does_not_have() -> None:
    # ruling W4
    state = dataclasses.replace(started(), eggs=(0, 1, 1), supply=34)
    refused(state, win(1, 1, 2, egg=True), IllegalEventError, "W4")


def hoard_of_two() -> WurfState:
    """Ada's second turn: (1,1) and (2,1) secured in two rows of one; Ada has 1 egg."""
    state = play(started(), win(1, 1, 2), win(2, 1, 2), END, flip(3, 3), flip(3, 4), END, END)
    return play(state, secure(1, 1), secure(2, 1))


def test_w4_an_egg_moves_one_hoard_tile_at_the_end_of_the_turn() -> None:
    # ruling W4 (and W6: the rows stay valid)
    state = hoard_of_two()
    view = GAME.view(state)
    assert view["hoards"]["Ada"]["rows"] == [[tile_id(1, 1)], [tile_id(2, 1)]] and view["scores"]["Ada"] == 3
    assert "move" in view["expects"]
    assert view["moves"][str(tile_id(2, 1))] == [{"row": 1, "score": 4, "gain": 1}]
    state = play(state, move(2, 1, 1))
    view = GAME.view(state)
    assert view["hoards"]["Ada"]["rows"] == [[tile_id(1, 1), tile_id(2, 1)]]   # landscape 1 row
    assert view["eggs"]["Ada"] == 0 and view["egg_supply"] == 34 and view["scores"]["Ada"] == 4
    assert view["phase"] == "moved" and view["expects"] == ["end"]
    refused(state, move(2, 1, None), IllegalEventError, "W4")   # a second move in a turn
    refused(state, win(1, 2, 2), IllegalEventError, "W4")       # the move ends the turn
    assert GAME.view(play(state, END))["turn"] == "Ben"


def test_w4_a_move_needs_an_egg_and_must_change_something() -> None:
    # ruling W4
    state = hoard_of_two()
    refused(state, move(2, 1, 2), IllegalEventError, "W4")       # where it already is
    refused(state, move(2, 1, None), IllegalEventError, "W4")    # a row of one into a new row of one
    refused(state, move(1, 2, 1), IllegalEventError, "W4")       # not in the hoard
    refused(state, move(2, 1, 3), IllegalEventError, "W4")       # no row 3
    refused(dataclasses.replace(state, eggs=(0, 1, 1), supply=34), move(2, 1, 1), IllegalEventError, "W4")


def test_w4_a_move_must_keep_rows_valid() -> None:
    # ruling W4 with W6
    state = play(hoard_of_two(), move(2, 1, 1), END, END, END, win(1, 2, 2), END, flip(5, 5), END, END)
    assert GAME.view(state)["phase"] == "secure"
    state = play(state, secure(1, 2))
    assert GAME.view(state)["hoards"]["Ada"]["rows"] == [[tile_id(1, 1), tile_id(2, 1)], [tile_id(1, 2)]]
    state = dataclasses.replace(state, eggs=(1, 1, 1), supply=33)
    refused(state, move(2, 1, 2), IllegalEventError, "W6")       # colour 2 into the colour 1 row
    state = play(state, move(1, 1, 2))                             # colour 1 joins (1,2)
    assert GAME.view(state)["hoards"]["Ada"]["rows"] == [[tile_id(2, 1)], [tile_id(1, 2), tile_id(1, 1)]]


# ruling W5 --------------------------------------------------------------------------------------------------


def test_w5_the_victim_takes_an_egg_per_stolen_tile() -> None:
    # ruling W5
    state = play(started(), win(1, 1, 2), win(2, 1, 2), END, flip(3, 3), flip(3, 4),
                 win(1, 1, 3, "Ada"), win(2, 1, 3, "Ada"))
    view = GAME.view(state)
    assert view["eggs"] == {"Ada": 3, "Ben": 1, "Cleo": 1} and view["egg_supply"] == 31
    assert view["scores"]["Ada"] == 3


def test_w5_while_the_supply_lasts() -> None:
    # ruling W5
    state = play(started(), win(1, 1, 2), win(2, 1, 2), END, flip(3, 3), flip(3, 4))
    state = dataclasses.replace(state, eggs=(1, 1, 34), supply=0)
    state = play(state, win(1, 1, 3, "Ada"), win(2, 1, 3, "Ada", egg=True))  # Ben's spent egg refills 1
    view = GAME.view(state)
    assert view["eggs"] == {"Ada": 2, "Ben": 0, "Cleo": 34} and view["egg_supply"] == 0


# ruling W6 --------------------------------------------------------------------------------------------------


def test_w6_the_base_is_secured_after_flipping_and_before_the_dice() -> None:
    # ruling W6
    state = play(started(), win(1, 1, 2), win(1, 2, 4), END, flip(3, 3), flip(3, 4), END, win(3, 3, 2), END)
    view = GAME.view(state)
    assert view["turn"] == "Ada" and view["phase"] == "flip"
    refused(state, secure(1, 1), IllegalEventError, "W8")     # flip first
    state = play(state, flip(4, 4))
    view = GAME.view(state)
    assert view["phase"] == "secure" and view["expects"] == ["secure"]
    refused(state, win(3, 4, 2), IllegalEventError, "W6")
    refused(state, END, IllegalEventError, "W6")
    refused(state, secure(2, 1), IllegalEventError, "W6")     # in the middle, not on the base
    state = play(state, secure(1, 1))
    refused(state, secure(1, 2, 2), IllegalEventError, "W6")  # no row 2 yet
    state = play(state, secure(1, 2, 1))
    view = GAME.view(state)
    assert view["phase"] == "dice" and view["hoards"]["Ada"]["rows"] == [[tile_id(1, 1), tile_id(1, 2)]]
    assert view["scores"]["Ada"] == 5 and view["bases"]["Ada"] == {str(s): [] for s in range(2, 7)}
    refused(state, secure(1, 1), IllegalEventError, "W6")     # nothing left to secure


def test_w6_a_row_shares_a_colour_or_a_landscape() -> None:
    # ruling W6
    assert row_valid((tile_id(1, 1),)) and row_valid((tile_id(1, 1), tile_id(1, 5), tile_id(1, 3)))
    assert row_valid((tile_id(1, 4), tile_id(6, 4))) and not row_valid((tile_id(1, 1), tile_id(2, 2)))
    assert not row_valid((tile_id(1, 1), tile_id(1, 2), tile_id(2, 1)))
    state = play(started(), win(1, 1, 2), win(1, 2, 2), win(2, 1, 2))
    state = play(state, END, flip(3, 3), flip(3, 4), flip(3, 5), END, END, secure(1, 1))
    state = play(state, secure(1, 2, 1))
    refused(state, secure(2, 1, 1), IllegalEventError, "W6")  # (1,1) (1,2) is a colour row
    view = GAME.view(state)
    assert view["placements"] == {str(tile_id(2, 1)): [{"row": None, "score": 6, "gain": 1}]}
    state = play(state, secure(2, 1, None))
    assert GAME.view(state)["hoards"]["Ada"]["row_scores"] == [4, 1]


def test_w6_placements_show_each_row_and_its_score() -> None:
    # ruling W6 with W7: the help when securing
    state = play(started(), win(1, 1, 2), win(2, 1, 2), END, flip(3, 3), flip(3, 4), END, END)
    state = play(state, secure(1, 1))
    view = GAME.view(state)
    assert view["placements"] == {str(tile_id(2, 1)): [{"row": 1, "score": 5, "gain": 3},
                                                       {"row": None, "score": 3, "gain": 1}]}
    assert placements(state, tile_id(3, 3), 0) == [{"row": None, "score": 3, "gain": 1}]


# ruling W7 --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("length, points", [(1, 1), (2, 4), (3, 9), (4, 16), (5, 25), (6, 36)])
def test_w7_the_scoring_table(length: int, points: int) -> None:
    # ruling W7 and the rulebook's table
    row = tuple(tile_id(2, ls) for ls in range(1, length + 1))
    assert rows_score((row,)) == points
    assert rows_score((row, (tile_id(3, 1),))) == points + 1


def colour_row(c: int, landscapes: Iterable[int] = range(1, 7)) -> tuple[int, ...]:
    return tuple(tile_id(c, ls) for ls in landscapes)


def cleos_turn() -> WurfState:
    """Cleo's first turn, her dice stage; the middle holds (1,1), (1,2), (2,1)."""
    state = play(started(), END, END)
    assert GAME.view(state)["turn"] == "Cleo" and GAME.view(state)["phase"] == "dice"
    return state


def test_w7_the_game_ends_when_the_last_tile_enters_a_hoard() -> None:
    # ruling W7: nothing face down, in the middle or on a base. Every tile but (6,6) is in Ben's and
    # Cleo's hoards; (6,6) lies on Ada's base; Cleo ends her turn.
    rows = tuple(colour_row(c) for c in range(1, 6))
    state = dataclasses.replace(cleos_turn(), face_down=(), middle=(), bases=(((tile_id(6, 6), 3),), (), ()),
                                hoards=((), rows[:3], rows[3:] + (colour_row(6, range(1, 6)),)))
    state = play(state, END)
    view = GAME.view(state)
    assert view["turn"] == "Ada" and view["phase"] == "secure" and not view["finished"]  # nothing to flip
    state = play(state, secure(6, 6))
    view = GAME.view(state)
    assert view["finished"] and view["phase"] == "finished" and view["expects"] == [] and view["turn"] is None
    assert view["scores"] == {"Ada": 1 + 1, "Ben": 3 * 36 + 1, "Cleo": 2 * 36 + 25 + 1}
    assert view["winners"] == ["Ben"]
    for player in THREE:  # the per-round table adds up to the final score
        assert sum(r["points"][player] for r in view["breakdown"]) == view["scores"][player]
    refused(state, END, IllegalEventError, "W7")
    refused(state, flip(1, 1), IllegalEventError, "W7")


def test_w7_not_over_while_a_tile_is_on_a_base_or_in_the_middle() -> None:
    # ruling W7
    rows = tuple(colour_row(c) for c in range(1, 6))
    state = dataclasses.replace(cleos_turn(), face_down=(), middle=(tile_id(6, 6),), bases=((), (), ()),
                                hoards=((), rows[:3], rows[3:] + (colour_row(6, range(1, 6)),)))
    state = play(state, win(6, 6, 2))
    assert not GAME.view(state)["finished"]
    state = play(state, END, END, END)  # Ada, Ben pass; Cleo secures at the start of her turn
    assert GAME.view(state)["phase"] == "secure" and not GAME.view(state)["finished"]
    assert GAME.view(play(state, secure(6, 6, 3)))["finished"]


def test_w7_unspent_eggs_score_and_ties_share_the_win() -> None:
    # ruling W7
    hoards = ((colour_row(1), colour_row(2)), (colour_row(3),) + tuple((tile_id(6, ls),) for ls in range(1, 7)),
              (colour_row(4), colour_row(5)))
    state = play(dataclasses.replace(cleos_turn(), face_down=(), middle=(), hoards=hoards), END)
    view = GAME.view(state)
    assert view["finished"] and view["scores"] == {"Ada": 73, "Ben": 43, "Cleo": 73}
    assert view["winners"] == ["Ada", "Cleo"]
    assert view["score_parts"]["Ada"] == {"rows": 72, "eggs": 1}
    richer = dataclasses.replace(state, eggs=(1, 31, 1), supply=3)
    assert GAME.view(richer)["scores"]["Ben"] == 73 and GAME.view(richer)["winners"] == ["Ada", "Ben", "Cleo"]


# ruling W8 and the tiles shown ------------------------------------------------------------------------------


def test_w8_three_players_show_three_and_remove_nothing() -> None:
    # ruling W8 (3 or more players: 3 shown)
    state = started()
    view = GAME.view(state)
    assert view["shown"] == 3 and view["phase"] == "dice" and view["to_flip"] == 0
    refused(state, flip(3, 3), IllegalEventError, "W8")
    refused(state, remove(1, 1), IllegalEventError, "W8")


def test_w8_two_players_show_four_and_remove_one() -> None:
    # ruling W8
    state = play(new(TWO), flip(1, 1), flip(1, 2), flip(2, 1))
    view = GAME.view(state)
    assert view["shown"] == 4 and view["phase"] == "flip" and view["to_flip"] == 1
    refused(state, remove(1, 1), IllegalEventError, "W8")   # not before 4 are shown
    state = play(state, flip(2, 2))
    view = GAME.view(state)
    assert view["phase"] == "remove" and view["expects"] == ["remove"]
    refused(state, flip(3, 3), IllegalEventError, "W8")     # a fifth
    refused(state, remove(3, 3), IllegalEventError, "W8")   # face down, not shown
    refused(state, win(1, 1, 2), IllegalEventError, "W8")
    refused(state, END, IllegalEventError, "W8")
    state = play(state, remove(2, 2))
    view = GAME.view(state)
    assert view["removed"] == [tile_id(2, 2)] and place(state, 2, 2) == {"where": "removed"}
    assert view["middle"] == [tile_id(1, 1), tile_id(1, 2), tile_id(2, 1)] and view["phase"] == "dice"
    refused(state, remove(1, 1), IllegalEventError, "W8")   # once per turn
    refused(state, win(2, 2, 2), IllegalEventError, "W2")   # a removed tile cannot be rolled for


def test_w8_no_removal_once_four_cannot_be_shown() -> None:
    # ruling W8: "as soon as 4 tiles cannot be put in the center no more tiles are removed"
    state = play(new(TWO), flip(1, 1), flip(1, 2), flip(2, 1), flip(2, 2), remove(2, 2))
    rest = tuple(t for t in state.face_down if t != tile_id(6, 6))
    state = dataclasses.replace(state, face_down=(tile_id(6, 6),), removed=state.removed + rest)
    state = play(state, win(1, 1, 2), END, flip(6, 6))
    view = GAME.view(state)
    assert view["pile"] == 0 and view["middle"] == [tile_id(1, 2), tile_id(2, 1), tile_id(6, 6)]
    assert view["phase"] == "dice" and view["turn"] == "Ben"
    refused(state, remove(6, 6), IllegalEventError, "W8")
    refused(state, flip(5, 5), IllegalEventError, "W8")     # the pile is empty


def test_w8_the_removal_is_an_option() -> None:
    # ruling W8 as an option: off, 2 players play with 3 shown and nothing removed
    state = play(new(TWO, two_player_removal=False), flip(1, 1), flip(1, 2), flip(2, 1))
    view = GAME.view(state)
    assert view["shown"] == 3 and view["phase"] == "dice"
    refused(state, remove(1, 1), IllegalEventError, "W8")


def test_flip_from_an_empty_pile_is_refused() -> None:
    # ruling W8 (flipping stops when the pile is empty)
    state = dataclasses.replace(cleos_turn(), face_down=(), removed=tuple(range(3, 36)))
    state = play(state, win(1, 1, 2), END)
    view = GAME.view(state)
    assert view["phase"] == "dice" and view["middle"] == [tile_id(1, 2), tile_id(2, 1)]
    refused(state, flip(6, 6), IllegalEventError, "W8")


# a 2-player game --------------------------------------------------------------------------------------------


def test_a_two_player_game() -> None:
    # rulings W2, W5, W6, W7, W8 together, turn by turn
    state = play(new(TWO), flip(1, 1), flip(1, 2), flip(2, 1), flip(2, 2), remove(2, 2),
                 win(1, 1, 2), win(1, 2, 4))                     # Ada: 2 + 4 dice
    assert GAME.view(state)["stealable"] == {"2": [], "3": [], "4": [], "5": [], "6": []}
    state = play(state, END)
    view = GAME.view(state)
    assert view["turn"] == "Ben" and view["to_flip"] == 3 and view["round"] == 1
    state = play(state, flip(3, 3), flip(3, 4), flip(4, 4), remove(4, 4))
    view = GAME.view(state)
    assert view["stealable"]["3"] == [tile_id(1, 1)] and view["stealable"]["5"] == [tile_id(1, 1), tile_id(1, 2)]
    assert view["winnable"]["2"] == [tile_id(2, 1), tile_id(3, 3), tile_id(3, 4)]
    assert view["max_k"] == 6
    state = play(state, win(1, 1, 3, "Ada"), win(3, 3, 2, egg=True))  # 3 dice + 1 doubled
    view = GAME.view(state)
    assert view["eggs"] == {"Ada": 2, "Ben": 0} and view["egg_supply"] == 34
    assert view["current"]["dice_left"] == 2 and view["max_k"] == 2
    state = play(state, END)
    view = GAME.view(state)
    assert view["turn"] == "Ada" and view["round"] == 2 and view["phase"] == "flip" and view["to_flip"] == 2
    state = play(state, flip(5, 1), flip(5, 2), remove(5, 2))
    assert GAME.view(state)["placements"] == {str(tile_id(1, 2)): [{"row": None, "score": 3, "gain": 1}]}
    state = play(state, secure(1, 2), win(2, 1, 2), win(5, 1, 2), END)
    state = play(state, flip(6, 1), flip(6, 2), flip(6, 3), remove(6, 2))   # Ben: secure both tiles
    view = GAME.view(state)
    assert view["phase"] == "secure" and set(view["placements"]) == {str(tile_id(1, 1)), str(tile_id(3, 3))}
    state = play(state, secure(1, 1), secure(3, 3))
    view = GAME.view(state)
    assert view["hoards"]["Ben"]["rows"] == [[tile_id(1, 1)], [tile_id(3, 3)]]
    assert view["scores"] == {"Ada": 1 + 2, "Ben": 2 + 0}
    assert view["removed"] == [tile_id(2, 2), tile_id(4, 4), tile_id(5, 2), tile_id(6, 2)]
    assert view["breakdown"] == [{"round": 0, "label": "Start: an egg each", "points": {"Ada": 1, "Ben": 1}},
                                 {"round": 1, "label": "Round 1", "points": {"Ada": 1, "Ben": -1}}]
    assert view["breakdown_heading"] == "Score change"  # a round may take points: a tile stolen, an egg spent
    assert json.loads(json.dumps(view)) == view


# help at the table ------------------------------------------------------------------------------------------


def test_stealable_lists_the_tiles_k_dice_steal() -> None:
    # ruling W2: a tile on side s is stolen with k > s, never from one's own base
    state = play(started(), win(1, 1, 2), win(2, 1, 4), END, flip(3, 3), flip(3, 4))
    assert [stealable(state, k) for k in range(2, 7)] == [
        [], [tile_id(1, 1)], [tile_id(1, 1)], [tile_id(1, 1), tile_id(2, 1)], [tile_id(1, 1), tile_id(2, 1)]]
    assert stealable(state, 6, seat=0) == []
    view = GAME.view(state)
    assert view["stealable"] == {str(k): stealable(state, k) for k in range(2, 7)}
    assert view["winnable"]["3"] == view["middle"] + [tile_id(1, 1)]


def test_every_event_example_is_accepted_in_a_game() -> None:
    examples = {e.type: dict(e.example) for e in GAME.event_types}
    assert {tile_id(e["colour"], e["landscape"]) for e in examples.values() if "colour" in e} == {tile_id(3, 5)}
    state = play(new(), examples["flip"], flip(3, 1), flip(1, 1), examples["win"], win(3, 1, 2), examples["end"])
    state = play(state, flip(6, 6), flip(6, 5), END, END, examples["secure"], secure(3, 1, 1))
    assert GAME.view(state)["hoards"]["Ada"]["rows"] == [[tile_id(3, 5), tile_id(3, 1)]]
    state = play(state, examples["move"], examples["end"])
    assert GAME.view(state)["hoards"]["Ada"]["rows"] == [[tile_id(3, 1)], [tile_id(3, 5)]]
    two = play(new(TWO), examples["flip"], flip(1, 1), flip(1, 2), flip(2, 1), examples["remove"])
    assert GAME.view(two)["removed"] == [tile_id(3, 5)]


@pytest.mark.parametrize("event, text", [
    (flip(3, 5), "the flip of the Green dragon on Ice"),
    (remove(1, 2), "the removal of the Red dragon on Forest"),
    (secure(1, 2, 2), "the Red dragon on Forest into row 2 of the hoard"),
    (secure(1, 2), "the Red dragon on Forest into a new row of the hoard"),
    (win(1, 2, 3), "the Red dragon on Forest won from the middle with 3 dice"),
    (win(1, 2, 4, "Ben", egg=True), "the Red dragon on Forest won from Ben's base with 4 dice, one die "
                                     "doubled by an egg"),
    (move(4, 4, 1), "the egg move of the Yellow dragon on Desert to row 1"),
    (END, "the end of the turn"),
])
def test_describe(event: dict[str, Any], text: str) -> None:
    assert GAME.describe(event) == text


def test_describe_names_the_tile_as_the_table_does() -> None:
    # ruling W1: an undone flip says "Purple" and "Volcano" when the table named them so, as its page does
    named = {"colour_names": ["Red", "Blue", "Green", "Yellow", "Purple", "Black"],
             "landscape_names": ["Mountains", "Forest", "Lake", "Desert", "Swamp", "Volcano"]}
    assert GAME.describe(flip(5, 6), named) == "the flip of the Purple dragon on Volcano"
    assert GAME.describe(win(2, 3, 2), named) == "the Blue dragon on Lake won from the middle with 2 dice"
    assert GAME.describe({"type": "flip", "colour": 9, "landscape": "x"}, named) == \
        "the flip of the tile colour 9 · landscape x"


def test_malformed_rows_are_refused_by_the_schema_and_the_rules() -> None:
    # ruling W6 (secure) and W4 (move): a row is 1..36 or null for a new row
    state = play(started(), win(1, 1, 2), END, flip(3, 3), END, END)
    for bad in (0, 37, "1", 1.5, True):
        refused(state, secure(1, 1, bad), MalformedEventError, "W6")
        with pytest.raises(MalformedEventError) as info:
            validate_event(GAME, secure(1, 1, bad))
        assert info.value.rule == "W6"
    refused(state, {"type": "secure", "colour": 1, "landscape": 1}, MalformedEventError, "W6")
    refused(state, {**win(1, 2, 2), "egg": "yes"}, MalformedEventError, "W2")


# through the table ------------------------------------------------------------------------------------------


def test_events_round_trip_through_the_table_log(tmp_path: Path) -> None:
    path = tmp_path / "wurf.sqlite3"
    log = EventLog(path)
    table = Table(log)
    try:
        session = table.create(GAME.id, list(TWO), {"colour_names": ["Red", "Blue", "Green", "Yellow", "Black",
                                                                     "White"]})
        sid = session["id"]
        assert session["state"]["colour_names"][0] == "Red" and session["turn"] == "Ada"
        for event in (flip(1, 1), flip(1, 2), flip(2, 1), flip(2, 2), remove(2, 2), win(1, 1, 2, egg=True)):
            view = table.submit(sid, event)
        assert view["state"]["bases"]["Ada"]["2"] == [tile_id(1, 1)] and view["scores"] == {"Ada": 0, "Ben": 1}
        with pytest.raises(RuleError) as info:  # refused: nothing is written
            table.submit(sid, win(1, 2, 2, egg=True))
        assert info.value.rule == "W4" and table.view(sid)["seq"] == view["seq"]
        undone = table.undo(sid)
        assert undone["change"] == {"action": "undo", "seq": 6, "text": "the Red dragon on Mountains won from "
                                    "the middle with 2 dice, one die doubled by an egg"}
        assert undone["state"]["middle"] == [tile_id(1, 1), tile_id(1, 2), tile_id(2, 1)]
        assert undone["scores"] == {"Ada": 1, "Ben": 1}
        redone = table.redo(sid)
        assert redone["state"]["bases"]["Ada"]["2"] == [tile_id(1, 1)]
        view = table.submit(sid, END)
        assert view["turn"] == "Ben" and view["state"]["phase"] == "flip"
        log.close()
        log = EventLog(path)
        table = Table(log)
        table.rebuild()
        again = table.view(sid)
        assert again["state"] == view["state"] and again["seq"] == view["seq"]
        assert [e["type"] for e in table.events(sid) if e["status"] == "live"] == [
            "flip", "flip", "flip", "flip", "remove", "win", "end"]
    finally:
        log.close()

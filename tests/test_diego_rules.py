"""Diego Drachenzahn's pure rules (setup/apply/view), ruling by ruling (D1-D6), plus purity and hidden guesses."""
from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any, Iterable, Mapping

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.base import RULES_VERSION
from companion.games.diego import DiegoState
from companion.table import Table
from tests.rules import expect_refused

GAME = GAMES["diego-drachenzahn"]
THREE = ("Ada", "Ben", "Cleo")
FOUR = ("Ada", "Ben", "Cleo", "Dan")
BAD_GATES: list[Any] = [0, 7, -1, "3", 3.0, True, False, [3]]


def new(players: Iterable[str] = THREE, **options: Any) -> DiegoState:
    """A fresh game with the given options resolved like the table resolves them."""
    return GAME.setup(tuple(players), GAME.resolve_options(options))


def play(state: DiegoState, *events: Mapping[str, Any]) -> DiegoState:
    for event in events:
        state = GAME.apply(state, event)
    return state


def refused(state: DiegoState, event: Mapping[str, Any], cls: type[RuleError], rule: str) -> RuleError:
    """Apply `event`, expect `cls` naming `rule`, and check the state is untouched."""
    return expect_refused(GAME, state, event, cls, rule)


def marble(gate: int | None, source: str = "tap") -> dict[str, Any]:
    return {"type": "marble", "gate": gate, "source": source}


def guess(player: str, gate: Any) -> dict[str, Any]:
    return {"type": "guess", "player": player, "gate": gate}


def reveal(gate: Any) -> dict[str, Any]:
    return {"type": "reveal", "gate": gate}


def camera(counts: Any, outside: Any = 0, unsure: Any = None) -> dict[str, Any]:
    event = {"type": "camera", "counts": counts, "outside": outside}
    return event if unsure is None else {**event, "unsure": unsure}


def confirm(marbles: Any) -> dict[str, Any]:
    return {"type": "confirm", "marbles": marbles}


def guesses_of(state: DiegoState, gate: int = 1) -> list[dict[str, Any]]:
    """One guess of `gate` by every non-active player of the current round."""
    assert state.current is not None
    return [guess(p, gate) for seat, p in enumerate(state.players) if seat != state.current.active]


def full_round(state: DiegoState, marbles: Iterable[int | None], token: int, guess_gate: int = 1) -> DiegoState:
    state = play(state, *(marble(g) for g in marbles))
    return play(state, *guesses_of(state, guess_gate), reveal(token))


# ruling D1 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 5, 6])
def test_d1_setup_refuses_wrong_player_counts(count: int) -> None:
    # ruling D1: 2 to 4 players
    players = tuple(f"P{i}" for i in range(count))
    with pytest.raises(IllegalEventError) as info:
        GAME.setup(players, GAME.resolve_options({}))
    assert info.value.rule == "D1"


@pytest.mark.parametrize("count", [2, 3, 4])
def test_d1_setup_accepts_two_to_four(count: int) -> None:
    # ruling D1
    players = tuple(f"P{i}" for i in range(count))
    state = new(players)
    assert state.players == players
    assert state.scores == (0,) * count
    assert state.current is not None and state.current.active == 0 and state.current.number == 1
    assert GAME.view(state)["scores"] == {p: 0 for p in players}
    assert (GAME.min_players, GAME.max_players) == (2, 4)


@pytest.mark.parametrize("count", [1, 5])
def test_d1_table_create_refuses_wrong_player_counts(table: Table, count: int) -> None:
    # ruling D1, through the one path every session is created by
    with pytest.raises(RuleError) as info:
        table.create(GAME.id, [f"P{i}" for i in range(count)])
    assert isinstance(info.value, (MalformedEventError, IllegalEventError))
    assert info.value.rule == "D1"
    assert table.log.sessions() == []


@pytest.mark.parametrize("count", [2, 3, 4])
def test_d1_table_create_accepts_two_to_four(table: Table, count: int) -> None:
    # ruling D1
    names = [f"P{i}" for i in range(count)]
    view = table.create(GAME.id, names)
    assert view["players"] == names
    assert view["state"]["total_rounds"] == 3 * count
    assert [s.id for s in table.log.sessions()] == [view["id"]]


# ruling D2 ------------------------------------------------------------------------------------------------


def test_d2_each_gate_has_a_symbol_of_its_own(table: Table) -> None:
    # ruling D2: six symbols, one per gate; the token names a gate by its symbol, so two gates of one symbol would
    # make "which symbol is on the token?" a question with two answers
    symbols = GAME.resolve_options(None)["gate_symbols"]
    with pytest.raises(MalformedEventError) as info:
        table.create(GAME.id, ["Ada", "Ben"], {"gate_symbols": [symbols[0]] * 6})
    assert info.value.rule == "D2" and f"{symbols[0]!r} is there twice" in info.value.message
    assert table.log.sessions() == []
    swapped = [symbols[1], symbols[0], *symbols[2:]]  # any order of the six, as Home's gate pad swaps them
    assert table.create(GAME.id, ["Ada", "Ben"], {"gate_symbols": swapped})["state"]["gate_symbols"] == swapped


@pytest.mark.parametrize("bad", BAD_GATES)
def test_d2_marble_gate_must_be_1_to_6_or_null(bad: Any) -> None:
    # ruling D2: gates are the whole numbers 1..6 (D4: null is a miss)
    refused(new(), marble(bad), MalformedEventError, "D2")


def test_d2_marble_without_gate_field_is_refused() -> None:
    # ruling D2/D4: the event type declares "gate" required (null for a miss); a marble event that
    # forgets the field must not be recorded as a silent miss.
    marble_type = next(e for e in GAME.event_types if e.type == "marble")
    assert "gate" in marble_type.required
    refused(new(), {"type": "marble"}, MalformedEventError, "D2")


@pytest.mark.parametrize("bad", BAD_GATES)
def test_d2_guess_gate_must_be_1_to_6(bad: Any) -> None:
    # ruling D2 (checked under D5, the guessing rule)
    refused(new(), guess("Ben", bad), MalformedEventError, "D5")
    refused(new(), {"type": "guess", "player": "Ben"}, MalformedEventError, "D5")


@pytest.mark.parametrize("bad", BAD_GATES + [None])
def test_d2_reveal_gate_must_be_1_to_6(bad: Any) -> None:
    # ruling D2 (checked under D3, the scoring rule); a token always shows a symbol, so no null
    state = play(new(), *guesses_of(new()))
    refused(state, reveal(bad), MalformedEventError, "D3")


@pytest.mark.parametrize("bad", BAD_GATES)
def test_d2_confirm_gates_must_be_1_to_6_or_null(bad: Any) -> None:
    # ruling D2, checked under D4 (the confirmation rule)
    refused(new(), confirm([1, bad]), MalformedEventError, "D4")


@pytest.mark.parametrize("gate", [1, 2, 3, 4, 5, 6])
def test_d2_every_gate_1_to_6_is_accepted(gate: int) -> None:
    # ruling D2
    state = play(new(), marble(gate), guess("Ben", gate), guess("Cleo", gate), reveal(gate))
    assert state.history[-1].token == gate
    assert state.scores == (1, 1, 1)


def test_d2_gate_names_default_and_custom() -> None:
    # ruling D2: display names are configurable, one per gate, left to right
    assert GAME.view(new())["gate_names"] == [f"Gate {g}" for g in range(1, 7)]
    names = ["Sun", "Moon", "Star", "Crown", "Key", "Heart"]
    view = GAME.view(new(gate_names=names))
    assert view["gate_names"] == names
    padded = GAME.resolve_options({"gate_names": ["  Sun ", "Moon", "Star", "Crown", "Key", "Heart"]})
    assert padded["gate_names"][0] == "Sun"


@pytest.mark.parametrize("names", [
    ["A", "B", "C", "D", "E"],
    ["A", "B", "C", "D", "E", "F", "G"],
    [],
    ["A", "B", "C", "D", "E", ""],
    ["A", "B", "C", "D", "E", "   "],
    ["A", "B", "C", "D", "E", 6],
    "ABCDEF",
    None,
])
def test_d2_gate_names_need_exactly_six_names(names: Any) -> None:
    # ruling D2: exactly six symbols
    with pytest.raises(MalformedEventError) as info:
        GAME.resolve_options({"gate_names": names})
    assert info.value.rule == "D2"


def test_d2_gate_names_refused_by_table_create(table: Table) -> None:
    # ruling D2, through the table: nothing is created
    with pytest.raises(MalformedEventError) as info:
        table.create(GAME.id, list(THREE), {"gate_names": ["A", "B"]})
    assert info.value.rule == "D2"
    assert table.log.sessions() == []


# ruling D3 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("marbles", "token", "points"), [
    ((3, 3, 5), 3, 2),
    ((3, 3, 5), 5, 1),
    ((3, 3, 5), 1, 0),
    ((6, 6, 6), 6, 3),
    ((None, 2, None), 2, 1),
])
def test_d3_active_player_scores_marbles_in_the_tokens_gate(marbles: tuple, token: int, points: int) -> None:
    # ruling D3: 1 point per marble that ended up in the token's gate (not where it was aimed)
    state = full_round(new(), marbles, token, guess_gate=token % 6 + 1)  # every guess wrong
    assert state.scores == (points, 0, 0)
    assert state.history[0].points == (points, 0, 0)
    assert GAME.view(state)["last_round"]["points"] == {"Ada": points, "Ben": 0, "Cleo": 0}


def test_d3_camera_alone_fills_the_round_when_no_marble_was_entered() -> None:
    # ruling D3: no beam saw anything, the camera's reading is the round's marbles
    state = play(new(), camera([0, 2, 0, 0, 0, 0], outside=1))
    assert state.current is not None
    assert state.current.marbles == (2, 2, None)
    assert state.current.sources == ("camera",) * 3
    assert state.current.flag is None and state.current.confirmed
    current = GAME.view(state)["current"]
    assert current["marbles"] == [2, 2, None]
    assert current["camera"] == {"counts": [0, 2, 0, 0, 0, 0], "outside": 1, "unsure": [], "unsettled": []}
    state = play(state, *guesses_of(state, 4), reveal(2))
    assert state.scores == (2, 0, 0)


def test_d3_camera_alone_with_all_three_in_one_gate() -> None:
    # ruling D3: three in gate 5
    state = play(new(), camera([0, 0, 0, 0, 3, 0]))
    assert state.current is not None
    assert state.current.marbles == (5, 5, 5)
    state = play(state, *guesses_of(state, 5), reveal(5))
    assert state.scores == (3, 1, 1)


def test_d3_camera_agreeing_with_the_gates_confirms() -> None:
    # ruling D3: both available and agreeing: the round is confirmed and may be scored
    state = play(new(), marble(4), marble(None), marble(4))
    assert state.current is not None and not state.current.confirmed
    state = play(state, camera([0, 0, 0, 2, 0, 0], outside=1))
    assert state.current is not None
    assert state.current.flag is None and state.current.confirmed
    assert state.current.marbles == (4, None, 4)  # the beams' order and sources stay
    assert state.current.sources == ("tap", "tap", "tap")
    assert GAME.view(state)["current"]["confirmed"] is True
    state = play(state, *guesses_of(state, 4), reveal(4))
    assert state.scores == (2, 1, 1)


@pytest.mark.parametrize("counts", [[1, 1, 1, 1, 0, 0], [0, 0, 4, 0, 0, 0], [9, 9, 9, 9, 9, 9]])
def test_d3_camera_seeing_more_than_three_flags_the_round(counts: list[int]) -> None:
    # rulings D3/D4: a camera reading of more than 3 marbles in the gates is flagged, not used
    state = play(new(), camera(counts))
    assert state.current is not None
    assert state.current.flag is not None and "camera" in state.current.flag
    assert state.current.marbles == ()
    state = play(state, *guesses_of(state))
    refused(state, reveal(1), IllegalEventError, "D4")
    view = GAME.view(state)
    assert view["phase"] == "flagged"
    assert "reveal" not in view["expects"]


def test_d3_camera_seeing_more_than_three_flags_even_after_three_beams() -> None:
    # rulings D3/D4
    state = play(new(), marble(1), marble(1), marble(2), camera([2, 1, 0, 0, 0, 1]))
    assert state.current is not None and state.current.flag is not None
    assert not state.current.confirmed


@pytest.mark.parametrize("event", [
    camera([0, 0, 0, 0, 0]),
    camera([0, 0, 0, 0, 0, 0, 0]),
    camera([0, 0, -1, 0, 0, 0]),
    camera([0, 0, 10, 0, 0, 0]),
    camera([0, 0, "1", 0, 0, 0]),
    camera([0, 0, True, 0, 0, 0]),
    camera([0, 0, 1.0, 0, 0, 0]),
    camera("000000"),
    camera(None),
    {"type": "camera"},
])
def test_d3_malformed_camera_counts_are_refused(event: dict[str, Any]) -> None:
    # ruling D3
    refused(new(), event, MalformedEventError, "D3")


@pytest.mark.parametrize("outside", [-1, 10, "1", True, None])
def test_d4_malformed_camera_outside_is_refused(outside: Any) -> None:
    # ruling D4 (the outside count is the misses)
    refused(new(), camera([0, 1, 0, 0, 0, 0], outside), MalformedEventError, "D4")


def test_d3_a_marble_after_the_photo_drops_the_camera_reading() -> None:
    # ruling D3: the photo no longer shows where all marbles rest
    state = play(new(), marble(1), camera([1, 0, 0, 0, 0, 0]))
    assert state.current is not None and state.current.confirmed
    state = play(state, marble(2))
    assert state.current is not None
    assert state.current.camera is None and not state.current.confirmed and state.current.flag is None
    assert state.current.marbles == (1, 2)


# ruling D4 ------------------------------------------------------------------------------------------------


def test_d4_a_miss_counts_for_no_gate() -> None:
    # ruling D4: a marble that misses every gate scores nothing, whatever the token
    for token in range(1, 7):
        state = full_round(new(), (None, None, None), token, guess_gate=token % 6 + 1)
        assert state.scores == (0, 0, 0)
        assert state.history[0].marbles == (None, None, None)
    state = full_round(new(), (None, 4, None), 4, guess_gate=1)
    assert state.scores == (1, 0, 0)
    assert GAME.view(state)["history"][0]["marbles"] == [None, 4, None]


def test_d4_a_fourth_tapped_marble_is_refused() -> None:
    # ruling D4: taps allow at most 3 marbles per round
    state = play(new(), marble(1), marble(2), marble(None))
    err = refused(state, marble(3), IllegalEventError, "D4")
    assert "3 marbles" in err.message
    refused(state, marble(None), IllegalEventError, "D4")
    refused(state, marble(3, source="camera"), IllegalEventError, "D4")
    refused(state, {"type": "marble", "gate": 3}, IllegalEventError, "D4")  # no source means a tap


def test_d4_the_flag_of_too_many_marbles_says_what_reported_them() -> None:
    # ruling D4: a marble tapped among those the sensors reported was blamed on the sensors ("The sensors report 4
    # marbles") while the page showed it as tapped
    state = play(new(), marble(2, "sensor"), marble(3), marble(4, "sensor"))
    state = play(state, *guesses_of(state, 2))
    state = play(state, marble(4, "sensor"))
    assert state.current is not None
    assert state.current.flag == "4 marbles are recorded (3 by the sensors, 1 by tap), more than 3"


def test_d4_a_fourth_sensor_marble_flags_the_round_until_confirmed() -> None:
    # ruling D4: sensors reporting more than 3 marbles flag the round; no scoring until a tap confirms
    state = play(new(), marble(2, "sensor"), marble(2, "sensor"), marble(3, "sensor"))
    state = play(state, *guesses_of(state, 2))
    assert state.current is not None and state.current.flag is None
    state = play(state, marble(5, "sensor"))
    assert state.current is not None
    assert len(state.current.marbles) == 4
    assert state.current.flag == "the sensors report 4 marbles, more than 3"
    view = GAME.view(state)
    assert view["phase"] == "flagged" and "reveal" not in view["expects"]
    assert view["current"]["flag"] == state.current.flag
    err = refused(state, reveal(2), IllegalEventError, "D4")
    assert "flagged" in err.message
    # a fifth sensor marble keeps it flagged, and still no reveal
    five = play(state, marble(6, "sensor"))
    assert five.current is not None and five.current.flag is not None
    refused(five, reveal(2), IllegalEventError, "D4")
    # a person confirms by tap which marbles really count
    state = play(state, confirm([2, 2, None]))
    assert state.current is not None
    assert state.current.flag is None and state.current.confirmed
    assert state.current.marbles == (2, 2, None)
    assert state.current.sources == ("tap", "tap", "tap")
    state = play(state, reveal(2))
    assert state.scores == (2, 1, 1)


def test_d4_a_miss_only_the_camera_sees_completes_the_marbles_the_beams_saw() -> None:
    # ruling D4: the beams cannot see a miss; the camera, agreeing with them on every gate, sees it outside them
    state = play(new(), marble(1, "sensor"), marble(1, "sensor"), camera([2, 0, 0, 0, 0, 0], outside=1))
    assert state.current is not None
    assert state.current.marbles == (1, 1, None) and state.current.sources == ("sensor", "sensor", "camera")
    assert state.current.flag is None and state.current.confirmed
    assert GAME.view(state)["current"]["marbles"] == [1, 1, None]
    again = play(state, camera([2, 0, 0, 0, 0, 0], outside=1))  # a second reading: one miss, not two
    assert again.current is not None and again.current.marbles == (1, 1, None)
    late = play(state, marble(3, "sensor"))  # a marble after the photo: the photo and its miss are out of date
    assert late.current is not None and late.current.marbles == (1, 1, 3) and late.current.camera is None
    tapped = play(state, marble(2))  # a tap takes the camera's miss's place, not a fourth marble's
    assert tapped.current is not None and tapped.current.marbles == (1, 1, 2)
    state = play(state, *guesses_of(state, 1), reveal(1))
    assert state.scores == (2, 1, 1)


def test_d4_a_camera_disagreeing_with_the_beams_adds_no_miss() -> None:
    # ruling D4: where the camera and the beams disagree a person decides, so the camera adds nothing
    state = play(new(), marble(1, "sensor"), camera([0, 1, 0, 0, 0, 0], outside=2))
    assert state.current is not None and state.current.marbles == (1,) and state.current.flag is not None


def test_d4_a_miss_already_entered_is_one_the_camera_sees() -> None:
    # ruling D4: of two marbles the camera sees outside the gates, one was tapped as a miss: it adds the other
    state = play(new(), marble(None), marble(4), camera([0, 0, 0, 1, 0, 0], outside=2))
    assert state.current is not None and state.current.marbles == (None, 4, None)
    assert state.current.sources == ("tap", "tap", "camera") and state.current.confirmed


def test_d4_camera_disagreeing_with_the_gates_flags() -> None:
    # ruling D4: beams say 1,1,2; the camera sees two in gate 2 and one in gate 1
    state = play(new(), marble(1), marble(1), marble(2))
    state = play(state, *guesses_of(state, 1), camera([1, 2, 0, 0, 0, 0]))
    assert state.current is not None
    assert state.current.flag is not None and "disagree" in state.current.flag
    assert not state.current.confirmed
    refused(state, reveal(1), IllegalEventError, "D4")
    # the person sides with the camera
    state = play(state, confirm([1, 2, 2]), reveal(1))
    assert state.scores == (1, 1, 1)


def test_d4_a_camera_alone_that_is_unsure_of_a_gate_flags_the_round_for_a_tap() -> None:
    # ruling D4: the camera filled in the round but is unsure of gates 2 and 5: not scored until a person taps
    unsure = [False, True, False, False, True, False]
    state = play(new(), camera([0, 2, 0, 0, 0, 0], outside=1, unsure=unsure))
    assert state.current is not None
    assert state.current.marbles == (2, 2, None)  # shown as read, for the person to check
    assert state.current.flag == "the camera is unsure of gates 2, 5" and not state.current.confirmed
    assert GAME.view(state)["current"]["camera"]["unsure"] == [2, 5]
    state = play(state, *guesses_of(state, 4))
    refused(state, reveal(2), IllegalEventError, "D4")
    state = play(state, confirm([2, 5, None]), reveal(2))  # the person corrects it
    assert state.scores == (1, 0, 0)
    # a sure reading of the same round is scored as the camera read it
    sure = play(new(), camera([0, 2, 0, 0, 0, 0], outside=1, unsure=[False] * 6))
    assert sure.current is not None and sure.current.flag is None and sure.current.confirmed


def test_d4_an_unsure_camera_that_agrees_with_the_beams_confirms_them() -> None:
    # rulings D3, D4: the beams are the live signal; a camera agreeing with them is a second witness, sure or not
    state = play(new(), marble(4), marble(4), marble(None))
    state = play(state, camera([0, 0, 0, 2, 0, 0], outside=1, unsure=[True] * 6))
    assert state.current is not None and state.current.flag is None and state.current.confirmed


@pytest.mark.parametrize("unsure", [[True] * 5, [1, 0, 0, 0, 0, 0], "yes", [None] * 6])
def test_d4_malformed_camera_unsure_is_refused(unsure: Any) -> None:
    from companion.games.schema import validate_event

    with pytest.raises(MalformedEventError):
        validate_event(GAME, camera([0, 0, 0, 0, 0, 0], unsure=unsure))


def test_d4_camera_seeing_fewer_in_a_gate_than_the_beams_flags() -> None:
    # ruling D4: beams counted two in gate 3, the camera sees only one there
    state = play(new(), marble(3), marble(3), camera([0, 0, 1, 0, 0, 0], outside=1))
    assert state.current is not None and state.current.flag is not None


@pytest.mark.parametrize("event", [
    confirm([1, 2, 3, 4]),
    confirm("123"),
    confirm(None),
    confirm({"0": 1}),
    {"type": "confirm"},
])
def test_d4_malformed_confirm_is_refused(event: dict[str, Any]) -> None:
    # ruling D4: a confirmation lists at most 3 gates (null for a miss)
    state = play(new(), *(marble(1, "sensor") for _ in range(4)))
    refused(state, event, MalformedEventError, "D4")


def test_d4_confirm_may_clear_the_marbles_for_entry_by_tap() -> None:
    # ruling D4: "clear, enter by tap"
    state = play(new(), *(marble(1, "sensor") for _ in range(5)), confirm([]))
    assert state.current is not None and state.current.marbles == () and state.current.flag is None
    state = play(state, marble(6), marble(6), marble(6), *guesses_of(state, 6), reveal(6))
    assert state.scores == (3, 1, 1)


UNSURE_2 = [False, True, False, False, False, False]


def test_d4_the_flag_and_the_view_name_the_same_gates_still_to_check() -> None:
    # ruling D4: the camera alone is unsure of gates 2 and 3; a person says it is right; the next marble rests in
    # gate 3 and the camera, unsure of both still, reads gate 2 as confirmed: only gate 3 wants a tap, and the flag
    # and the view's "unsettled" (the gates the page asks a look at) both name it alone
    unsure_2_3 = [False, True, True, False, False, False]
    state = play(new(), camera([0, 1, 0, 0, 1, 0], unsure=unsure_2_3))
    current = GAME.view(state)["current"]
    assert current["flag"] == "the camera is unsure of gates 2, 3" and current["camera"]["unsettled"] == [2, 3]
    state = play(state, confirm([2, 5]))
    state = play(state, camera([0, 1, 1, 0, 1, 0], unsure=unsure_2_3))
    current = GAME.view(state)["current"]
    assert current["camera"]["unsure"] == [2, 3]
    assert current["flag"] == "the camera is unsure of gate 3" and current["camera"]["unsettled"] == [3]
    state = play(state, confirm([2, 3, 5]))  # "Camera is right" again: both settled, though the camera stays unsure
    current = GAME.view(state)["current"]
    assert current["flag"] is None and current["camera"] == {
        "counts": [0, 1, 1, 0, 1, 0], "outside": 0, "unsure": [2, 3], "unsettled": []}


NAMES = ["Sun", "Moon", "Star", "Crown", "Key", "Flame"]  # a table's names for gates 1..6 (ruling D2)


@pytest.mark.parametrize("names, both, one, token", [
    (NAMES, "the camera is unsure of Moon and Star", "the camera is unsure of Star", "Moon"),
    (None, "the camera is unsure of gates 2, 3", "the camera is unsure of gate 3", "gate 2"),
    (["Sun", "Gate 2", "Star", "Gate 4", "Gate 5", "Gate 6"], "the camera is unsure of gate 2 and Star",
     "the camera is unsure of Star", "gate 2"),
], ids=["named", "default", "some-named"])
def test_d2_the_flag_names_the_gates_as_the_table_does(names: list[str] | None, both: str, one: str,
                                                       token: str) -> None:
    # rulings D2, D4: the camera alone is unsure of gates 2 and 3; the flag, the refusal it causes and an undone
    # event name a gate by the table's name, and a gate left at its default name as "gate N"
    options = {"gate_names": names} if names else {}
    unsure_2_3 = [False, True, True, False, False, False]
    state = play(new(**options), camera([0, 1, 0, 0, 1, 0], unsure=unsure_2_3))
    assert GAME.view(state)["current"]["flag"] == both
    error = refused(play(state, *guesses_of(state, 4)), reveal(2), IllegalEventError, "D4")
    assert error.message == f"the round is flagged ({both}); confirm the marbles first"
    later = play(state, confirm([2, 5]), camera([0, 1, 1, 0, 1, 0], unsure=unsure_2_3))
    assert GAME.view(later)["current"]["flag"] == one
    resolved = GAME.resolve_options(options)
    assert GAME.describe({"type": "marble", "gate": 3}, resolved) == f"marble in {one.rsplit(' of ', 1)[1]}"
    assert GAME.describe({"type": "turned", "player": "Ben", "correct": True}) == "what Ben turned over (right)"
    done = play(later, confirm([2, 3, 5]), reveal(2))  # revealed: what each player turned over comes next
    error = refused(done, marble(1), IllegalEventError, "D3")
    assert error.message == f"the token of this round is revealed ({token}); undo the reveal to change it"


def test_d3_the_camera_alone_confirmed_by_a_person_goes_on_filling_in_the_round() -> None:
    # rulings D3, D4: no beams; the camera is unsure of gate 2, a person says it is right ("Camera is right");
    # the next marble to rest is filled in from the camera's next reading, with no flag and no tap
    state = play(new(), camera([0, 1, 0, 0, 0, 0], unsure=UNSURE_2))
    assert state.current is not None and state.current.flag == "the camera is unsure of gate 2"
    state = play(state, confirm([2]))
    assert state.current is not None and state.current.flag is None and state.current.confirmed
    assert state.current.marbles == (2,) and state.current.sources == ("camera",)  # still the camera's
    state = play(state, camera([0, 1, 0, 0, 1, 0], unsure=[False] * 6))
    assert state.current is not None
    assert state.current.marbles == (2, 5) and state.current.sources == ("camera", "camera")
    assert state.current.flag is None and state.current.confirmed
    view = GAME.view(state)
    assert view["phase"] == "marbles" and view["current"]["confirmed"] is True
    state = play(state, camera([0, 1, 0, 0, 1, 0], outside=1))  # the third missed every gate
    assert state.current is not None and state.current.marbles == (2, 5, None) and state.current.flag is None
    state = play(state, *guesses_of(state, 5), reveal(5))
    assert state.scores == (1, 1, 1)


def test_d4_a_gate_a_person_settled_stays_settled_while_the_camera_reads_the_same_count_there() -> None:
    # ruling D4: a marble rests on the line between gates 2 and 3 (the camera counts it in gate 2, unsure of both);
    # a person confirms. The next marble rests in gate 6: gates 2 and 3 still read as confirmed, no new tap
    on_the_line = [False, True, True, False, False, False]
    state = play(new(), camera([0, 1, 0, 0, 1, 0], unsure=on_the_line))
    assert state.current is not None and state.current.flag == "the camera is unsure of gates 2, 3"
    state = play(state, confirm([2, 5]))
    again = play(state, camera([0, 1, 0, 0, 1, 0], unsure=on_the_line))  # the same picture read once more
    assert again.current is not None and again.current.flag is None and again.current.confirmed
    later = play(state, camera([0, 1, 0, 0, 1, 1], unsure=on_the_line))
    assert later.current is not None and later.current.marbles == (2, 5, 6)
    assert later.current.flag is None and later.current.confirmed
    # a marble come to rest in a gate the camera is unsure of changes its count there: that gate flags again
    into = play(state, camera([0, 1, 1, 0, 1, 0], unsure=on_the_line))
    assert into.current is not None and into.current.flag == "the camera is unsure of gate 3"
    assert into.current.marbles == (2, 3, 5) and not into.current.confirmed
    into = play(into, confirm([2, 3, 5]))  # and the person may say so again, the camera staying the source
    assert into.current is not None and into.current.sources == ("camera",) * 3 and into.current.flag is None


def test_d4_a_camera_reading_that_takes_back_a_confirmed_marble_flags_the_round() -> None:
    # ruling D4: a person confirmed two marbles in gate 2; a later reading sees one there: the person's word
    # stands (as entered by tap) and the round waits for a tap, rather than the marble silently disappearing
    state = play(new(), camera([0, 2, 0, 0, 0, 0], unsure=UNSURE_2), confirm([2, 2]))
    state = play(state, camera([0, 1, 0, 0, 1, 0]))
    assert state.current is not None
    assert state.current.marbles == (2, 2) and state.current.sources == ("tap", "tap")
    assert state.current.flag is not None and "disagree" in state.current.flag and not state.current.confirmed
    assert GAME.view(state)["phase"] == "flagged"
    state = play(state, *guesses_of(state, 2))
    refused(state, reveal(2), IllegalEventError, "D4")
    state = play(state, confirm([2, 5]))  # the person now goes with the camera: by tap, as any correction
    assert state.current is not None and state.current.sources == ("tap", "tap") and state.current.flag is None
    state = play(state, reveal(5))
    assert state.scores == (1, 0, 0)


def test_d4_a_confirmed_miss_stays_and_leaves_no_room_for_a_fourth_marble() -> None:
    # rulings D3, D4: a miss a person confirmed stays, though the camera no longer sees it outside the gates;
    # a reading that leaves it no room among the three marbles takes it back, and flags
    state = play(new(), camera([0, 1, 0, 0, 0, 0], outside=1, unsure=UNSURE_2), confirm([2, None]))
    assert state.current is not None and state.current.sources == ("camera", "camera")
    later = play(state, camera([0, 1, 0, 0, 1, 0]))
    assert later.current is not None and later.current.marbles == (2, 5, None) and later.current.flag is None
    crowded = play(state, camera([0, 1, 0, 0, 2, 0]))
    assert crowded.current is not None and crowded.current.flag is not None
    assert crowded.current.marbles == (2, None) and crowded.current.sources == ("tap", "tap")


def test_d4_a_correction_by_tap_of_the_camera_alone_stays_taps() -> None:
    # ruling D4: marbles other than the camera's are the person's, entered by tap; later readings are checked
    # against them, as before
    state = play(new(), camera([0, 1, 0, 0, 0, 0], unsure=UNSURE_2), confirm([3]))
    assert state.current is not None and state.current.sources == ("tap",) and state.current.flag is None
    state = play(state, camera([0, 1, 0, 0, 1, 0]))
    assert state.current is not None and state.current.marbles == (3,)
    assert state.current.flag == "the camera and the marbles entered by tap disagree about where the marbles rest"
    # a miss the camera did not see is a correction too
    added = play(new(), camera([0, 1, 0, 0, 0, 0], unsure=UNSURE_2), confirm([2, None]))
    assert added.current is not None and added.current.sources == ("tap", "tap")
    # "Clear, enter by tap", then a tap: the taps are what later readings are checked against
    cleared = play(new(), camera([0, 1, 0, 0, 0, 0], unsure=UNSURE_2), confirm([]), marble(2))
    cleared = play(cleared, camera([0, 1, 0, 0, 1, 0]))
    assert cleared.current is not None and cleared.current.marbles == (2,) and cleared.current.flag is not None


def test_d4_confirming_what_the_beams_and_the_camera_disagree_on_stays_taps() -> None:
    # rulings D3, D4: with beams the confirmation is the person's, by tap, even when it agrees with the camera
    state = play(new(), marble(3, "sensor"), camera([0, 0, 0, 1, 0, 0], unsure=[False, False, False, True, False,
                                                                                 False]))
    assert state.current is not None and state.current.flag is not None
    state = play(state, confirm([4]))
    assert state.current is not None and state.current.sources == ("tap",) and state.current.flag is None
    state = play(state, marble(1, "sensor"), camera([1, 0, 0, 1, 0, 0]))
    assert state.current is not None and state.current.marbles == (4, 1) and state.current.flag is None
    assert state.current.sources == ("tap", "sensor") and state.current.confirmed


def test_d4_a_game_recorded_under_rules_version_2_folds_every_confirmation_as_taps() -> None:
    # a log recorded before folds as it was played: "Camera is right" entered the marbles by tap, and the next
    # reading was checked against them (the table saw that flag, and what a person did about it follows in the log)
    assert GAME.rules_version == 3
    old = GAME.setup(THREE, {**GAME.resolve_options({}), RULES_VERSION: 2})
    state = play(old, camera([0, 1, 0, 0, 0, 0], unsure=UNSURE_2), confirm([2]))
    assert state.current is not None and state.current.sources == ("tap",)
    state = play(state, camera([0, 1, 0, 0, 1, 0]))
    assert state.current is not None and state.current.marbles == (2,) and state.current.flag is not None


def test_d4_undoing_the_confirmation_of_the_camera_brings_its_flag_back(table: Table) -> None:
    # ruling D4, through the table's undo and redo (they fold the log again)
    session = table.create(GAME.id, list(THREE))["id"]
    table.submit(session, camera([0, 1, 0, 0, 0, 0], unsure=UNSURE_2), source="camera")
    table.submit(session, confirm([2]))
    table.submit(session, camera([0, 1, 0, 0, 1, 0]), source="camera")

    def current() -> dict[str, Any]:
        return table.view(session)["state"]["current"]

    assert current()["marbles"] == [2, 5] and current()["flag"] is None
    table.undo(session)
    assert current()["marbles"] == [2] and current()["sources"] == ["camera"] and current()["flag"] is None
    table.undo(session)
    assert current()["flag"] == "the camera is unsure of gate 2" and not current()["confirmed"]
    assert table.view(session)["state"]["phase"] == "flagged"
    table.redo(session)
    table.redo(session)
    assert current()["marbles"] == [2, 5] and current()["flag"] is None and current()["confirmed"]


# ruling D5 ------------------------------------------------------------------------------------------------


def test_d5_one_guess_per_non_active_player() -> None:
    # ruling D5
    state = play(new(FOUR), guess("Ben", 2))
    assert GAME.view(state)["current"]["guessed"] == {"Ben": True, "Cleo": False, "Dan": False}
    state = play(state, guess("Dan", 6), guess("Cleo", 1))
    assert GAME.view(state)["current"]["guessed"] == {"Ben": True, "Cleo": True, "Dan": True}
    assert GAME.view(state)["current"]["waiting_for_guesses"] == []


def test_d5_the_active_players_guess_is_refused() -> None:
    # ruling D5: the active player does not guess
    err = refused(new(), guess("Ada", 3), IllegalEventError, "D5")
    assert "Ada" in err.message
    # in round 2 Ben is active, and Ada now guesses
    state = full_round(new(), (1, 1, 1), 1)
    refused(state, guess("Ben", 3), IllegalEventError, "D5")
    state = play(state, guess("Ada", 3))
    assert state.current is not None and state.current.guesses[0] == 3


def test_d5_a_second_guess_is_refused() -> None:
    # ruling D5: exactly one guess, no changing it (undo is the repair)
    state = play(new(), guess("Ben", 2))
    refused(state, guess("Ben", 3), IllegalEventError, "D5")
    refused(state, guess("Ben", 2), IllegalEventError, "D5")


@pytest.mark.parametrize("player", ["Zed", "", "ada", 1, None, ["Ben"]])
def test_d5_guess_by_someone_not_seated_is_refused(player: Any) -> None:
    # ruling D5
    refused(new(), guess(player, 2), MalformedEventError, "D5")


def turned(player: str, gate: Any = None, correct: Any = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "turned", "player": player}
    if gate is not None:
        event["gate"] = gate
    if correct is not None:
        event["correct"] = correct
    return event


def test_d5_quick_scoring_reveal_first_then_what_each_player_turned_over() -> None:
    # ruling D5 as the table plays it: cards face down, the token revealed, then the cards turned over
    state = play(new(FOUR), marble(1), marble(1), marble(4), reveal(1))
    view = GAME.view(state)
    assert view["phase"] == "turn-over" and view["expects"] == ["turned"]
    assert view["current"]["token"] == 1 and view["round"] == 1
    assert view["current"]["waiting_for_guesses"] == ["Ben", "Cleo", "Dan"]
    assert state.scores == (0, 0, 0, 0)  # not scored until every guess is in
    state = play(state, turned("Cleo", gate=1), turned("Ben", correct=False))
    assert GAME.view(state)["current"]["guesses"] == {"Ben": False, "Cleo": 1, "Dan": None}
    assert GAME.view(state)["current"]["waiting_for_guesses"] == ["Dan"]
    state = play(state, turned("Dan", correct=True))
    assert state.scores == (2, 0, 1, 1)  # two marbles in the token's gate; Cleo and Dan right
    assert GAME.view(state)["last_round"]["guesses"] == {"Ben": False, "Cleo": 1, "Dan": True}
    assert GAME.view(state)["round"] == 2


def test_d5_guesses_held_face_down_and_turned_over_mix_in_one_round() -> None:
    # the API takes both ways in every session: a face-down guess stays; the others are asked
    state = play(new(), guess("Ben", 3), reveal(3))
    assert GAME.view(state)["current"]["waiting_for_guesses"] == ["Cleo"]
    assert GAME.view(state)["current"]["guesses"] == {"Ben": 3, "Cleo": None}  # turned over at the reveal
    state = play(state, turned("Cleo", gate=2))
    assert state.scores == (0, 1, 0)
    # with every guess in before the reveal, the reveal scores at once
    state = play(state, guess("Ada", 1), guess("Cleo", 1), reveal(1))
    assert state.scores == (1, 1, 1) and GAME.view(state)["round"] == 3


def test_d5_turned_over_is_refused_out_of_place() -> None:
    state = play(new(), marble(2))
    refused(state, turned("Ben", gate=2), IllegalEventError, "D5")  # before the reveal: stays face down
    revealed = play(state, reveal(2))
    refused(revealed, turned("Ada", gate=2), IllegalEventError, "D5")  # the active player does not guess
    refused(revealed, guess("Ben", 2), IllegalEventError, "D5")  # after the reveal nothing goes face down
    refused(revealed, turned("Ben", gate=2, correct=True), MalformedEventError, "D5")
    refused(revealed, turned("Ben"), MalformedEventError, "D5")
    refused(revealed, turned("Ben", gate=7), MalformedEventError, "D5")
    refused(revealed, turned("Zed", gate=1), MalformedEventError, "D5")
    once = play(revealed, turned("Ben", correct=True))
    refused(once, turned("Ben", gate=1), IllegalEventError, "D5")
    # the round's marbles and token are settled once the token is shown (ruling D3)
    for event in (marble(1), camera([0, 1, 0, 0, 0, 0]), confirm([1]), reveal(3)):
        refused(revealed, event, IllegalEventError, "D3")


def test_d4_a_flagged_round_cannot_be_revealed() -> None:
    state = play(new(), marble(1, "sensor"), marble(1, "sensor"), marble(1, "sensor"), marble(2, "sensor"))
    assert GAME.view(state)["phase"] == "flagged" and "reveal" not in GAME.view(state)["expects"]
    refused(state, reveal(1), IllegalEventError, "D4")


def test_d5_each_correct_guess_scores_one() -> None:
    # ruling D5: regardless of where the marbles went
    state = play(new(FOUR), marble(2), marble(2), marble(None),
                 guess("Ben", 4), guess("Cleo", 4), guess("Dan", 2), reveal(4))
    assert state.scores == (0, 1, 1, 0)
    assert GAME.view(state)["last_round"]["points"] == {"Ada": 0, "Ben": 1, "Cleo": 1, "Dan": 0}


# ruling D6 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4])
def test_d6_three_rounds_per_player_then_the_end(count: int) -> None:
    # ruling D6: 3 x players rounds
    players = tuple(f"P{i}" for i in range(count))
    state = new(players)
    assert state.total_rounds == 3 * count
    for number in range(1, 3 * count + 1):
        view = GAME.view(state)
        assert not view["finished"] and view["round"] == number and view["total_rounds"] == 3 * count
        state = full_round(state, (1, 2, 3), 1)
    view = GAME.view(state)
    assert view["finished"] and state.finished and view["phase"] == "finished"
    assert len(state.history) == 3 * count
    assert view["round"] == 3 * count and view["current"] is None and view["expects"] == []


@pytest.mark.parametrize(("per_player", "count"), [(1, 2), (2, 3), (6, 2), (4, 4)])
def test_d6_rounds_per_player_option(per_player: int, count: int) -> None:
    # ruling D6: rounds per player is a documented option
    players = tuple(f"P{i}" for i in range(count))
    state = new(players, rounds_per_player=per_player)
    assert state.total_rounds == per_player * count
    for _ in range(per_player * count):
        assert not state.finished
        state = full_round(state, (1, 1, 1), 1)
    assert state.finished


@pytest.mark.parametrize("bad", [0, 7, -1, True, "3", 3.0, None])
def test_d6_rounds_per_player_out_of_range_is_refused(bad: Any) -> None:
    # ruling D6
    with pytest.raises(MalformedEventError) as info:
        GAME.resolve_options({"rounds_per_player": bad})
    assert info.value.rule == "D6"


def test_unknown_option_is_refused() -> None:
    with pytest.raises(MalformedEventError) as info:
        GAME.resolve_options({"rounds": 2})
    assert info.value.rule == "options" and "rounds" in info.value.message


@pytest.mark.parametrize("count", [2, 3, 4])
def test_d6_the_active_player_passes_clockwise(count: int) -> None:
    # ruling D6: seat order is clockwise; round r's active player is seat (r - 1) % n
    players = tuple(f"P{i}" for i in range(count))
    state = new(players, rounds_per_player=2)
    for number in range(1, 2 * count + 1):
        assert state.current is not None
        assert state.current.active == (number - 1) % count
        assert GAME.view(state)["active"] == players[(number - 1) % count]
        state = full_round(state, (1, 1, 1), 1)
    assert [r.active for r in state.history] == [(r - 1) % count for r in range(1, 2 * count + 1)]


def test_d6_nothing_is_accepted_after_the_end() -> None:
    # ruling D6: the game ends when the last round is scored
    state = new(THREE, rounds_per_player=1)
    for _ in range(3):
        state = full_round(state, (1, 1, 1), 1)
    assert state.finished
    for event in (marble(1), marble(1, "sensor"), guess("Ben", 1), camera([1, 0, 0, 0, 0, 0]),
                  confirm([1]), reveal(1)):
        refused(state, event, IllegalEventError, "D6")
    refused(state, {"type": "dance"}, MalformedEventError, "events")


def test_d6_all_tied_leaders_win() -> None:
    # ruling D6: all players tied for the highest score win
    state = new(THREE, rounds_per_player=1)
    state = full_round(state, (1, 1, None), 1, guess_gate=2)   # Ada +2
    state = full_round(state, (3, 3, 4), 3, guess_gate=6)      # Ben +2
    state = full_round(state, (5, 5, 5), 2, guess_gate=2)      # Cleo 0, Ada and Ben +1
    assert state.scores == (3, 3, 0)
    assert GAME.view(state)["winners"] == ["Ada", "Ben"]


def test_d6_a_single_leader_wins_alone_and_all_zero_all_win() -> None:
    # ruling D6
    state = new(("Ada", "Ben"), rounds_per_player=1)
    state = full_round(state, (1, 1, 1), 1, guess_gate=2)
    state = full_round(state, (1, 1, 1), 5, guess_gate=3)
    assert state.scores == (3, 0) and GAME.view(state)["winners"] == ["Ada"]
    state = new(("Ada", "Ben"), rounds_per_player=1)
    state = full_round(state, (None, None, None), 1, guess_gate=2)
    state = full_round(state, (None, None, None), 1, guess_gate=2)
    assert GAME.view(state)["winners"] == ["Ada", "Ben"]


def test_winners_are_empty_while_the_game_runs() -> None:
    state = full_round(new(), (1, 1, 1), 1)
    assert GAME.view(state)["winners"] == [] and not GAME.view(state)["finished"]


# purity, unknown events, hidden guesses ------------------------------------------------------------------


def test_apply_never_mutates_the_input_state() -> None:
    state = new(FOUR)
    steps = [marble(1), marble(None, "sensor"), guess("Ben", 1), camera([1, 0, 0, 0, 0, 0], 1),
             marble(1, "sensor"), marble(2, "sensor"), confirm([1, 1, None]), guess("Cleo", 2),
             guess("Dan", 1), reveal(1)]
    for event in steps:
        before = copy.deepcopy(state)
        after = GAME.apply(state, event)
        assert state == before  # the input is as it was
        assert after is not state and after != state
        state = after
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.scores = (9, 9, 9, 9)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.current.marbles = ()  # type: ignore[misc, union-attr]


def test_apply_does_not_mutate_the_event() -> None:
    event = {"type": "confirm", "marbles": [1, None, 2]}
    copy_of = copy.deepcopy(event)
    GAME.apply(new(), event)
    assert event == copy_of


@pytest.mark.parametrize("event", [{"type": "dance"}, {}, {"type": 3}, {"type": None},
                                   {"type": "Marble", "gate": 1}, {"type": ""}])
def test_an_unknown_event_type_is_refused(event: dict[str, Any]) -> None:
    refused(new(), event, MalformedEventError, "events")


def test_guesses_are_hidden_until_the_reveal() -> None:
    # rulebook: the cards lie face down until everyone turns them up together
    base = play(new(), marble(2), marble(2), marble(3))
    one = play(base, guess("Ben", 2), guess("Cleo", 5))
    other = play(base, guess("Ben", 6), guess("Cleo", 1))
    assert GAME.view(one) == GAME.view(other)  # nothing in the view depends on the values
    current = GAME.view(one)["current"]
    assert current["guessed"] == {"Ben": True, "Cleo": True}
    assert all(isinstance(v, bool) for v in current["guessed"].values())
    assert current["guesses"] is None and current["token"] is None
    assert GAME.view(one)["history"] == []
    revealed = play(one, reveal(2))
    view = GAME.view(revealed)
    assert view["history"][0]["guesses"] == {"Ben": 2, "Cleo": 5}
    assert view["last_round"]["guesses"] == {"Ben": 2, "Cleo": 5}
    assert view["last_round"]["token"] == 2
    assert view["current"]["guessed"] == {"Ada": False, "Cleo": False}  # round 2: Ben is active


def test_view_is_json_serialisable_and_expects_matches_the_phase() -> None:
    state = new()
    assert GAME.view(state)["phase"] == "marbles"
    # what a writer at the table may send now: a camera reading comes only from the table's camera (rulings D3, D4)
    assert set(GAME.view(state)["expects"]) == {"marble", "confirm", "guess", "reveal"}
    state = play(state, marble(1), marble(1), marble(1))
    assert GAME.view(state)["phase"] == "guesses"
    assert json.loads(json.dumps(GAME.view(play(state, reveal(2))))) == GAME.view(play(state, reveal(2)))
    state = play(state, *guesses_of(state))
    view = GAME.view(state)
    assert view["phase"] == "reveal" and "reveal" in view["expects"] and "guess" not in view["expects"]
    assert json.loads(json.dumps(view)) == view
    done = new(("A", "B"), rounds_per_player=1)
    done = full_round(full_round(done, (1, None, 2), 1), (3, 3, 3), 3)
    assert done.finished
    assert json.loads(json.dumps(GAME.view(done))) == GAME.view(done)


def test_registry_and_event_types_are_documented() -> None:
    assert GAMES[GAME.id] is GAME
    assert {e.type for e in GAME.event_types} == {"marble", "guess", "camera", "confirm", "reveal", "turned"}
    assert set(GAME.rulings) == {"D1", "D2", "D3", "D4", "D5", "D6"}
    options = {o.id: o for o in GAME.options}
    assert options["rounds_per_player"].default == 3 and options["rounds_per_player"].ruling == "D6"
    assert options["gate_names"].length == 6 and options["gate_names"].ruling == "D2"
    # each documented example is accepted in a suitable state
    examples = {e.type: dict(e.example) for e in GAME.event_types}
    state = new()
    GAME.apply(state, examples["marble"])
    GAME.apply(state, examples["camera"])
    GAME.apply(state, examples["confirm"])
    GAME.apply(state, {**examples["guess"], "player": "Ben"})
    GAME.apply(play(state, *guesses_of(state)), examples["reveal"])
    GAME.apply(play(state, reveal(1)), {**examples["turned"], "player": "Ben"})


def test_d5_a_face_down_game_reveals_the_token_only_once_every_guess_is_in() -> None:
    quick = play(new(), *[marble(2)] * 3)
    assert "reveal" in GAME.view(quick)["expects"] and GAME.view(quick)["face_down"] is False
    held = play(new(face_down=True), *[marble(2)] * 3, {"type": "guess", "player": "Ben", "gate": 2})
    view = GAME.view(held)
    assert view["face_down"] is True and "reveal" not in view["expects"] and view["phase"] == "guesses"
    error = refused(held, {"type": "reveal", "gate": 2}, IllegalEventError, "D5")
    assert "waiting for Cleo" in str(error)
    done = play(held, {"type": "guess", "player": "Cleo", "gate": 5}, {"type": "reveal", "gate": 2})
    assert done.history[-1].points == (3, 1, 0)  # scored at the reveal, the held guesses turned over

"""Drachen Wurf: tiles flipped into the middle, won by dice onto bases, secured into hoards of rows.

Rules: ../shared/rules/drachen-wurf.txt with rulings W1-W8. The dice and tiles are physical; the table taps
which tile came up and what the dice won. A turn goes through these stages (the view's `phase`):

1. "flip": tap each tile that came up until 3 are in the middle (4 with 2 players, W8) or the pile is empty;
2. "remove" (2 players, W8): the active player removes one of the 4 shown tiles from the game;
3. "secure" (W6): every tile on the active player's base goes into a hoard row, one tap per tile;
4. "dice": what the dice won (`win`: a tile from the middle or another player's base, with k matching dice
   and whether an egg doubled a die), tile by tile (W2, W5); 6 on one tile sends it straight into the hoard
   ("bonus": one `secure` for it) and earns another full turn (W3);
5. at the end an egg may move one hoard tile (`move`, W4, then "moved"); `end` passes the turn clockwise.

A tile is named by its dragon colour and landscape, 1 to 6 each; its id is 6 x (colour - 1) + landscape - 1.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from .base import EventType, Game, IllegalEventError, MalformedEventError, Option, require_int

GAME_ID = "drachen-wurf"
KINDS = 6           # dragon colours, and landscapes (W1)
TILES = KINDS * KINDS
EGGS = 36           # W1
DICE = 6
SIDES = (2, 3, 4, 5, 6)  # the sides of a base (W2)
BONUS = 6           # matching dice on one tile that send it into the hoard (W3)
SHOWN, SHOWN_TWO = 3, 4  # tiles shown in the middle; with 2 players and the removal (W8)
MAX_NAME = 24
MIDDLE = "middle"   # where a won tile came from, unless a player's name

STAGES = ("flip", "remove", "secure", "dice", "bonus", "moved")


@dataclass(frozen=True)
class Win:
    """One tile the dice won this turn: from the middle (victim None) or stolen from a seat's base."""

    tile: int
    k: int
    egg: bool
    victim: int | None
    side: int | None = None  # the side it was stolen from


@dataclass(frozen=True)
class Turn:
    number: int
    seat: int
    stage: str
    extra: bool = False        # this is a W3 bonus turn
    dice_used: int = 0         # physical dice set aside for the wins (an egg-doubled die is one die)
    egg_doubled: bool = False  # W4
    egg_moved: bool = False    # W4
    bonus: bool = False        # earned another turn (W3)
    pending: int | None = None  # the W3 tile waiting for its hoard row
    wins: tuple[Win, ...] = ()


@dataclass(frozen=True)
class WurfState:
    players: tuple[str, ...]
    colour_names: tuple[str, ...]
    landscape_names: tuple[str, ...]
    shown: int
    face_down: tuple[int, ...]                       # sorted tile ids
    middle: tuple[int, ...]                          # in the order flipped
    bases: tuple[tuple[tuple[int, int], ...], ...]   # per seat: (tile, side), in the order won
    hoards: tuple[tuple[tuple[int, ...], ...], ...]  # per seat: rows of tile ids
    removed: tuple[int, ...]
    eggs: tuple[int, ...]
    supply: int
    turn: Turn | None                                # None once the game is over (W7)
    round: int = 1
    rounds: tuple[tuple[int, ...], ...] = ()         # live scores at the end of each round

    @property
    def finished(self) -> bool:
        return self.turn is None


# tiles and rows ---------------------------------------------------------------------------------------------


def tile_id(colour: int, landscape: int) -> int:
    """The id of the tile of `colour` and `landscape` (1 to 6 each)."""
    return (colour - 1) * KINDS + landscape - 1


def colour_of(tile: int) -> int:
    return tile // KINDS + 1


def landscape_of(tile: int) -> int:
    return tile % KINDS + 1


def row_valid(row: tuple[int, ...]) -> bool:
    """Ruling W6: all tiles of a row share a colour, or all share a landscape (a row of one is valid)."""
    return len({colour_of(t) for t in row}) <= 1 or len({landscape_of(t) for t in row}) <= 1


def rows_score(rows: tuple[tuple[int, ...], ...]) -> int:
    """Ruling W7: the sum over rows of (row length) squared."""
    return sum(len(r) ** 2 for r in rows)


def score(state: WurfState, seat: int) -> int:
    """Ruling W7: the live score, hoard rows plus unspent eggs."""
    return rows_score(state.hoards[seat]) + state.eggs[seat]


def _scores(state: WurfState) -> tuple[int, ...]:
    return tuple(score(state, s) for s in range(len(state.players)))


def _name(state: WurfState, tile: int) -> str:
    return _tile_name(state.colour_names, state.landscape_names, colour_of(tile), landscape_of(tile))


def _tile_name(colours: Sequence[str], landscapes: Sequence[str], colour: Any, landscape: Any) -> str:
    """A tile by the table's names for its colour and landscape (ruling W1): "the Purple dragon on Volcano"."""
    if not all(isinstance(n, int) and 1 <= n <= KINDS for n in (colour, landscape)):
        return f"the tile colour {colour} · landscape {landscape}"
    return f"the {colours[colour - 1]} dragon on {landscapes[landscape - 1]}"


def _names(options: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The table's names for the six colours and the six landscapes, or the defaults (ruling W1)."""
    return (tuple(options.get("colour_names") or OPTIONS[0].default),
            tuple(options.get("landscape_names") or OPTIONS[1].default))


def _side_on(base: tuple[tuple[int, int], ...], tile: int) -> int | None:
    return next((side for t, side in base if t == tile), None)


def _hoard_row(rows: tuple[tuple[int, ...], ...], tile: int) -> int | None:
    return next((i for i, row in enumerate(rows) if tile in row), None)


def places(state: WurfState) -> dict[int, dict[str, Any]]:
    """Where every tile is: face_down, middle, base (player, side), bonus (player: won with 6, W3), hoard
    (player, row 1..n) or removed."""
    found: dict[int, dict[str, Any]] = {t: {"where": "face_down"} for t in state.face_down}
    found.update({t: {"where": "middle"} for t in state.middle})
    found.update({t: {"where": "removed"} for t in state.removed})
    if state.turn is not None and state.turn.pending is not None:
        found[state.turn.pending] = {"where": "bonus", "player": state.players[state.turn.seat]}
    for seat, player in enumerate(state.players):
        found.update({t: {"where": "base", "player": player, "side": side} for t, side in state.bases[seat]})
        for row, tiles in enumerate(state.hoards[seat], start=1):
            found.update({t: {"where": "hoard", "player": player, "row": row} for t in tiles})
    return found


def place(state: WurfState, tile: int) -> dict[str, Any]:
    """Where `tile` is (see `places`)."""
    return places(state)[tile]


def _where(state: WurfState, tile: int) -> str:
    spot = place(state, tile)
    where = spot["where"]
    if where == "base":
        return f"on side {spot['side']} of {spot['player']}'s base"
    if where == "hoard":
        return f"in row {spot['row']} of {spot['player']}'s hoard"
    if where == "bonus":
        return f"won by {spot['player']} with {BONUS} dice, waiting for its hoard row"
    return {"middle": "in the middle", "removed": "removed from the game", "face_down": "face down"}[where]


# options and setup ------------------------------------------------------------------------------------------

DEFAULT_COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Black")
"""The six dragon colours' names until the table renames them (ruling W1): the colours the page draws them in (the
rulebook names none)."""
DEFAULT_LANDSCAPES = ("Mountains", "Forest", "Water", "Desert", "Ice", "Volcano")
"""The six landscapes' names until the table renames them: the symbols the page draws them by."""

OPTIONS = (
    Option("colour_names", "Dragon colours", "names", list(DEFAULT_COLOURS),
           "Display names of the six dragon colours.", length=KINDS, ruling="W1"),
    Option("landscape_names", "Landscapes", "names", list(DEFAULT_LANDSCAPES),
           "Display names of the six landscapes.", length=KINDS, ruling="W1"),
    Option("two_player_removal", "Two players: show 4, remove 1", "bool", True,
           "With 2 players, 4 tiles are shown and the active player removes one of them from the game "
           "while 4 can be shown. Off: 2 players play like 3 (3 shown, nothing removed).", ruling="W8"),
)


START_EGGS = 1
"""The eggs each player starts with (W1): a point each before the first flip."""


def setup(players: tuple[str, ...], options: Mapping[str, Any]) -> WurfState:
    """A new game: every tile face down, 1 egg each and the rest in the supply (W1); seat 0 starts."""
    count = len(players)
    if not 2 <= count <= 6:
        raise IllegalEventError("W1", "Drachen Wurf is for 2 to 6 players")
    if MIDDLE in players:  # a win names where its tile was: "middle" or a player
        raise IllegalEventError("W1", f"a player may not be called {MIDDLE!r} in Drachen Wurf")
    removal = options.get("two_player_removal", True)
    colour_names, landscape_names = _names(options)
    state = WurfState(
        players=tuple(players),
        colour_names=colour_names,
        landscape_names=landscape_names,
        shown=SHOWN_TWO if count == 2 and removal else SHOWN,
        face_down=tuple(range(TILES)),
        middle=(),
        bases=((),) * count,
        hoards=((),) * count,
        removed=(),
        eggs=(START_EGGS,) * count,
        supply=EGGS - count,
        turn=Turn(number=1, seat=0, stage="flip"),
    )
    return _settle(state)


def _all_placed(state: WurfState) -> bool:
    """Ruling W7: no tile face down, in the middle, on a base (or waiting for its W3 hoard row)."""
    return (not state.face_down and not state.middle and not any(state.bases)
            and (state.turn is None or state.turn.pending is None))


def _settle(state: WurfState) -> WurfState:
    """Move the turn on through the stages that have nothing left to enter, and end the game (W7)."""
    turn = state.turn
    assert turn is not None
    if _all_placed(state):
        return replace(state, turn=None, rounds=state.rounds + (_scores(state),))
    stage = turn.stage
    if stage == "flip" and (len(state.middle) >= state.shown or not state.face_down):
        # ruling W8: with 2 players one of 4 shown tiles is removed, as long as 4 can be shown
        stage = "remove" if state.shown == SHOWN_TWO and len(state.middle) == SHOWN_TWO else "secure"
    if stage == "secure" and not state.bases[turn.seat]:
        stage = "dice"
    if stage == "bonus" and turn.pending is None:
        stage = "dice"
    return state if stage == turn.stage else replace(state, turn=replace(turn, stage=stage))


# apply ------------------------------------------------------------------------------------------------------


def apply(state: WurfState, event: Mapping[str, Any]) -> WurfState:
    """The state after `event`; raises a RuleError naming the rule and changes nothing when refused."""
    kind = event.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedEventError("events", f"unknown event type {kind!r} for Drachen Wurf")
    if state.turn is None:
        raise IllegalEventError("W7", "the game is over: every tile is in a hoard or removed")
    return handler(state, state.turn, event)


def _tile(event: Mapping[str, Any], rule: str) -> int:
    colour = require_int(event, "colour", 1, KINDS, rule)
    landscape = require_int(event, "landscape", 1, KINDS, rule)
    return tile_id(colour, landscape)


def _row(event: Mapping[str, Any], rule: str) -> int | None:
    """The hoard row (1..n) an event names, or None for a new row."""
    if "row" not in event:
        raise MalformedEventError(rule, "say the hoard 'row' (1 to n), or null for a new row")
    if event["row"] is None:
        return None
    return require_int(event, "row", 1, TILES, rule)


def _outstanding(state: WurfState, turn: Turn) -> IllegalEventError:
    """Why nothing but the current stage's entry is accepted now."""
    player = state.players[turn.seat]
    if turn.stage == "flip":
        return IllegalEventError("W8", f"first flip the tiles that came up: {state.shown - len(state.middle)} more "
                                 f"to show in the middle")
    if turn.stage == "remove":
        return IllegalEventError("W8", f"first {player} removes one of the {SHOWN_TWO} shown tiles from the game")
    if turn.stage == "secure":
        return IllegalEventError("W6", f"first the {len(state.bases[turn.seat])} tile(s) on {player}'s base go "
                                 "into the hoard")
    if turn.stage == "bonus":
        return IllegalEventError("W3", f"first {_name(state, turn.pending or 0)}, won with {BONUS} dice, goes "
                                 "into a hoard row")
    if turn.stage == "moved":
        return IllegalEventError("W4", f"{player} moved a hoard tile with an egg: that ends the turn")
    return IllegalEventError("W6", f"{player}'s base was secured at the start of the turn; now the dice")


def _need(state: WurfState, turn: Turn, *stages: str) -> None:
    if turn.stage not in stages:
        raise _outstanding(state, turn)


def _flip(state: WurfState, turn: Turn, event: Mapping[str, Any]) -> WurfState:
    tile = _tile(event, "W1")
    if turn.stage != "flip":
        if not state.face_down:
            raise IllegalEventError("W8", "no tile is face down: the pile is empty")
        if turn.stage == "remove" or len(state.middle) >= state.shown:
            raise IllegalEventError("W8", f"{len(state.middle)} tiles are shown already; at most {state.shown}")
        raise IllegalEventError("W8", "tiles are flipped only at the start of a turn, before the base is secured")
    if tile not in state.face_down:
        raise IllegalEventError("W1", f"{_name(state, tile)} is not face down: it is {_where(state, tile)}")
    flipped = replace(state, face_down=tuple(t for t in state.face_down if t != tile),
                      middle=state.middle + (tile,))
    return _settle(flipped)


def _remove(state: WurfState, turn: Turn, event: Mapping[str, Any]) -> WurfState:
    tile = _tile(event, "W8")
    if turn.stage != "remove":
        if state.shown != SHOWN_TWO:
            raise IllegalEventError("W8", "tiles are removed only with 2 players")
        raise _outstanding(state, turn) if turn.stage == "flip" else IllegalEventError(
            "W8", f"a tile is removed only when {SHOWN_TWO} are shown, once at the start of a turn")
    if tile not in state.middle:
        raise IllegalEventError("W8", f"{_name(state, tile)} is not in the middle: it is {_where(state, tile)}")
    removed = replace(state, middle=tuple(t for t in state.middle if t != tile), removed=state.removed + (tile,),
                      turn=replace(turn, stage="secure"))
    return _settle(removed)


def placed(rows: tuple[tuple[int, ...], ...], tile: int, row: int | None) -> tuple[tuple[int, ...], ...] | None:
    """The rows with `tile` added to row `row` (1..n) or a new row (None); None when W6 forbids it."""
    if row is None:
        return rows + ((tile,),)
    if row > len(rows) or not row_valid(rows[row - 1] + (tile,)):
        return None
    return rows[:row - 1] + (rows[row - 1] + (tile,),) + rows[row:]


def _into_row(state: WurfState, seat: int, tile: int, row: int | None, rule: str) -> tuple[tuple[int, ...], ...]:
    rows = state.hoards[seat]
    result = placed(rows, tile, row)
    if result is None:
        player = state.players[seat]
        if row is not None and row > len(rows):
            raise IllegalEventError(rule, f"{player}'s hoard has {len(rows)} row(s), not {row}")
        raise IllegalEventError("W6", f"{_name(state, tile)} shares neither colour nor landscape with row {row} "
                                f"of {player}'s hoard")
    return result


def _at(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return values[:seat] + (value,) + values[seat + 1:]


def _secure(state: WurfState, turn: Turn, event: Mapping[str, Any]) -> WurfState:
    tile = _tile(event, "W6")
    row = _row(event, "W6")
    seat = turn.seat
    player = state.players[seat]
    if turn.stage == "bonus":
        if tile != turn.pending:
            raise IllegalEventError("W3", f"{_name(state, tile)} is {_where(state, tile)}; the tile won with "
                                    f"{BONUS} dice is {_name(state, turn.pending or 0)}")
        rows = _into_row(state, seat, tile, row, "W6")
        return _settle(replace(state, hoards=_at(state.hoards, seat, rows), turn=replace(turn, pending=None)))
    _need(state, turn, "secure")
    if _side_on(state.bases[seat], tile) is None:
        raise IllegalEventError("W6", f"{_name(state, tile)} is not on {player}'s base: it is {_where(state, tile)}")
    rows = _into_row(state, seat, tile, row, "W6")
    base = tuple(entry for entry in state.bases[seat] if entry[0] != tile)
    return _settle(replace(state, hoards=_at(state.hoards, seat, rows), bases=_at(state.bases, seat, base)))


def _win(state: WurfState, turn: Turn, event: Mapping[str, Any]) -> WurfState:
    tile = _tile(event, "W2")
    k = require_int(event, "k", SIDES[0], SIDES[-1], "W2")
    egg = event.get("egg", False)
    if egg is None:
        egg = False
    if not isinstance(egg, bool):
        raise MalformedEventError("W2", "'egg' must be true or false")
    source = event.get("from")
    if not isinstance(source, str) or (source != MIDDLE and source not in state.players):
        raise MalformedEventError("W2", f"'from' must be 'middle' or one of {', '.join(state.players)}")
    _need(state, turn, "dice")
    seat = turn.seat
    player = state.players[seat]
    victim: int | None = None
    side: int | None = None
    if source == MIDDLE:
        if tile not in state.middle:
            raise IllegalEventError("W2", f"{_name(state, tile)} is not in the middle: it is {_where(state, tile)}")
    else:
        victim = state.players.index(source)
        if victim == seat:
            raise IllegalEventError("W2", f"{player} steals only from another player's base")
        side = _side_on(state.bases[victim], tile)
        if side is None:
            raise IllegalEventError("W2", f"{_name(state, tile)} is not on {source}'s base: it is "
                                    f"{_where(state, tile)}")
        if k <= side:
            raise IllegalEventError("W2", f"stealing a tile on side {side} needs more than {side} matching dice, "
                                    f"not {k}")
    if egg:
        if turn.egg_doubled:
            raise IllegalEventError("W4", "an egg already doubled a die this turn; only one per turn")
        if state.eggs[seat] < 1:
            raise IllegalEventError("W4", f"{player} has no egg to double a die")
    dice = k - 1 if egg else k
    if turn.dice_used + dice > DICE:
        raise IllegalEventError("W2", f"only {DICE - turn.dice_used} of the {DICE} dice are left this turn, "
                                f"not {dice}")
    eggs, supply = state.eggs, state.supply
    if egg:  # W4: the spent egg returns to the supply
        eggs, supply = _at(eggs, seat, eggs[seat] - 1), supply + 1
    bases, middle = state.bases, state.middle
    if victim is None:
        middle = tuple(t for t in middle if t != tile)
    else:
        bases = _at(bases, victim, tuple(e for e in bases[victim] if e[0] != tile))
        if supply > 0:  # W5: one egg per stolen tile, while the supply lasts
            eggs, supply = _at(eggs, victim, eggs[victim] + 1), supply - 1
    won = Win(tile, k, egg, victim, side)
    turn = replace(turn, dice_used=turn.dice_used + dice, egg_doubled=turn.egg_doubled or egg,
                   wins=turn.wins + (won,))
    if k >= BONUS:  # W3: straight into the hoard, and another full turn
        turn = replace(turn, stage="bonus", pending=tile, bonus=True)
    else:  # W2: on side k of the winner's base
        bases = _at(bases, seat, bases[seat] + ((tile, k),))
    return _settle(replace(state, middle=middle, bases=bases, eggs=eggs, supply=supply, turn=turn))


def moved(rows: tuple[tuple[int, ...], ...], tile: int, row: int | None) -> tuple[tuple[int, ...], ...] | None:
    """The rows after moving `tile` (in them) to row `row` (1..n) or a new row (None); None when the move
    changes nothing or W6 forbids it. A row left empty disappears."""
    source = _hoard_row(rows, tile)
    assert source is not None
    if row == source + 1 or (row is None and len(rows[source]) == 1):
        return None
    if row is not None and (row > len(rows) or not row_valid(rows[row - 1] + (tile,))):
        return None
    result = [tuple(t for t in r if t != tile) if i == source else r for i, r in enumerate(rows)]
    if row is None:
        result.append((tile,))
    else:
        result[row - 1] = result[row - 1] + (tile,)
    return tuple(r for r in result if r)


def _move(state: WurfState, turn: Turn, event: Mapping[str, Any]) -> WurfState:
    tile = _tile(event, "W4")
    row = _row(event, "W4")
    seat = turn.seat
    player = state.players[seat]
    if turn.stage == "moved":
        raise IllegalEventError("W4", f"{player} already moved a hoard tile with an egg this turn; one per turn")
    _need(state, turn, "dice")
    if state.eggs[seat] < 1:
        raise IllegalEventError("W4", f"{player} has no egg to move a hoard tile")
    rows = state.hoards[seat]
    source = _hoard_row(rows, tile)
    if source is None:
        raise IllegalEventError("W4", f"{_name(state, tile)} is not in {player}'s hoard: it is {_where(state, tile)}")
    result = moved(rows, tile, row)
    if result is None:
        if row is not None and row > len(rows):
            raise IllegalEventError("W4", f"{player}'s hoard has {len(rows)} row(s), not {row}")
        if row == source + 1 or row is None:
            raise IllegalEventError("W4", f"that move leaves {_name(state, tile)} where it is")
        raise IllegalEventError("W6", f"{_name(state, tile)} shares neither colour nor landscape with row {row} "
                                f"of {player}'s hoard")
    return replace(state, hoards=_at(state.hoards, seat, result), eggs=_at(state.eggs, seat, state.eggs[seat] - 1),
                   supply=state.supply + 1, turn=replace(turn, stage="moved", egg_moved=True))


def _end(state: WurfState, turn: Turn, event: Mapping[str, Any]) -> WurfState:
    _need(state, turn, "dice", "moved")
    count = len(state.players)
    seat = turn.seat if turn.bonus else (turn.seat + 1) % count  # W3: another full turn; else clockwise
    rounds, number = state.rounds, state.round
    if not turn.bonus and seat == 0:
        rounds, number = rounds + (_scores(state),), number + 1
    following = Turn(number=turn.number + 1, seat=seat, stage="flip", extra=turn.bonus)
    return _settle(replace(state, turn=following, rounds=rounds, round=number))


_HANDLERS = {"flip": _flip, "remove": _remove, "secure": _secure, "win": _win, "move": _move, "end": _end}


# help at the table ------------------------------------------------------------------------------------------


def stealable(state: WurfState, k: int, seat: int | None = None) -> list[int]:
    """Tiles on other players' bases that `k` matching dice steal (W2: side below k), for `seat` (default:
    the active player)."""
    if seat is None:
        if state.turn is None:
            return []
        seat = state.turn.seat
    return [tile for other, base in enumerate(state.bases) if other != seat for tile, side in base if side < k]


def max_k(state: WurfState) -> int:
    """The most matching dice the active player can still put on one tile this turn (0 when none is left)."""
    turn = state.turn
    if turn is None or turn.stage != "dice":
        return 0
    egg = int(not turn.egg_doubled and state.eggs[turn.seat] > 0)
    best = min(SIDES[-1], DICE - turn.dice_used + egg)
    return best if best >= SIDES[0] and DICE - turn.dice_used >= 1 else 0


def placements(state: WurfState, tile: int, seat: int) -> list[dict[str, Any]]:
    """Each hoard row `tile` may join (W6), and a new row (row None), with the score each choice gives."""
    rows = state.hoards[seat]
    eggs = state.eggs[seat]
    now = rows_score(rows) + eggs
    choices = []
    for row in [*range(1, len(rows) + 1), None]:
        result = placed(rows, tile, row)
        if result is not None:
            after = rows_score(result) + eggs
            choices.append({"row": row, "score": after, "gain": after - now})
    return choices


def moves(state: WurfState, seat: int) -> dict[str, list[dict[str, Any]]]:
    """For each hoard tile, where an egg may move it (W4, W6) and the score after (the egg spent)."""
    rows = state.hoards[seat]
    eggs = state.eggs[seat]
    now = rows_score(rows) + eggs
    options: dict[str, list[dict[str, Any]]] = {}
    for tile in (t for r in rows for t in r):
        found = []
        for row in [*range(1, len(rows) + 1), None]:
            result = moved(rows, tile, row)
            if result is not None:
                after = rows_score(result) + eggs - 1
                found.append({"row": row, "score": after, "gain": after - now})
        if found:
            options[str(tile)] = found
    return options


# view -------------------------------------------------------------------------------------------------------


def _expects(state: WurfState) -> list[str]:
    turn = state.turn
    if turn is None:
        return []
    stage = turn.stage
    if stage in ("flip", "remove"):
        return [stage]
    if stage in ("secure", "bonus"):
        return ["secure"]
    if stage == "moved":
        return ["end"]
    expects = []
    if max_k(state) and (state.middle or stealable(state, max_k(state))):
        expects.append("win")
    if state.eggs[turn.seat] > 0 and moves(state, turn.seat):
        expects.append("move")
    return expects + ["end"]




def view(state: WurfState) -> dict[str, Any]:
    """What the page and the API show: every tile's place, bases, hoards, eggs, live scores (W7), the stage
    of the turn and what may be entered next, with the help for securing and for the dice."""
    players = state.players
    live = _scores(state)
    finished = state.turn is None
    winners: list[str] = []
    if finished:
        best = max(live)
        winners = [p for p, s in zip(players, live, strict=True) if s == best]  # W7: ties share the win
    # how each round changed the score (a tile stolen, an egg spent: less), after the eggs each started with
    previous = (START_EGGS,) * len(players)
    breakdown = [{"round": 0, "label": "Start: an egg each", "points": dict.fromkeys(players, START_EGGS)}]
    for number, totals in enumerate(state.rounds, start=1):
        breakdown.append({"round": number, "label": f"Round {number}",
                          "points": {p: a - b for p, a, b in zip(players, totals, previous, strict=True)}})
        previous = totals
    turn = state.turn
    data: dict[str, Any] = {
        "finished": finished,
        "winners": winners,
        "round": state.round,
        "scores": dict(zip(players, live, strict=True)),
        "turn": players[turn.seat] if turn else None,
        "breakdown": breakdown,
        "breakdown_heading": "Score change",
        "players": list(players),
        "colour_names": list(state.colour_names),
        "landscape_names": list(state.landscape_names),
        "shown": state.shown,
        "tiles": [{"id": t, "colour": colour_of(t), "landscape": landscape_of(t), "place": spot}
                  for t, spot in sorted(places(state).items())],
        "face_down": list(state.face_down),
        "pile": len(state.face_down),
        "middle": list(state.middle),
        "removed": list(state.removed),
        "bases": {p: {str(side): [t for t, s in state.bases[seat] if s == side] for side in SIDES}
                  for seat, p in enumerate(players)},
        "hoards": {p: {"rows": [list(r) for r in state.hoards[seat]],
                       "row_scores": [len(r) ** 2 for r in state.hoards[seat]],
                       "score": rows_score(state.hoards[seat])} for seat, p in enumerate(players)},
        "eggs": dict(zip(players, state.eggs, strict=True)),
        "egg_supply": state.supply,
        "score_parts": {p: {"rows": rows_score(state.hoards[seat]), "eggs": state.eggs[seat]}
                        for seat, p in enumerate(players)},
        "active": players[turn.seat] if turn else None,
        "phase": turn.stage if turn else "finished",
        "expects": _expects(state),
    }
    if turn is None:
        data.update(current=None, to_flip=0, placements={}, stealable={}, winnable={}, max_k=0, moves={})
        return data
    seat = turn.seat
    securing = [turn.pending] if turn.stage == "bonus" and turn.pending is not None else \
        [t for t, _ in state.bases[seat]] if turn.stage == "secure" else []
    steal = {str(k): stealable(state, k) for k in SIDES}
    data.update(
        current={
            "number": turn.number,
            "active": players[seat],
            "extra_turn": turn.extra,
            "dice_used": turn.dice_used,
            "dice_left": DICE - turn.dice_used,
            "egg_doubled": turn.egg_doubled,
            "egg_moved": turn.egg_moved,
            "bonus": turn.bonus,
            "pending": turn.pending,
            "wins": [{"tile": w.tile, "k": w.k, "egg": w.egg,
                      "from": "middle" if w.victim is None else players[w.victim], "side": w.side}
                     for w in turn.wins],
        },
        to_flip=max(0, min(state.shown - len(state.middle), len(state.face_down))) if turn.stage == "flip" else 0,
        placements={str(t): placements(state, t, seat) for t in securing},
        stealable=steal,
        winnable={k: list(state.middle) + tiles for k, tiles in steal.items()},
        max_k=max_k(state),
        moves=moves(state, seat) if "move" in data["expects"] else {},
    )
    return data


# events, description, random play ---------------------------------------------------------------------------

_KIND = {"type": "integer", "minimum": 1, "maximum": KINDS}
_TILE_FIELDS = {"colour": _KIND, "landscape": _KIND}
_ROW = {"type": "integer", "minimum": 1, "maximum": TILES, "nullable": True}
EVENT_TYPES = (
    EventType("flip", "A face-down tile came up into the middle: which one (its colour and landscape). Up to 3 "
              "are shown, 4 with 2 players (W8).",
              _TILE_FIELDS, ("colour", "landscape"), {"type": "flip", "colour": 3, "landscape": 5}, rule="W1"),
    EventType("remove", "With 2 players and 4 shown, the active player removes one from the game (W8).",
              _TILE_FIELDS, ("colour", "landscape"), {"type": "remove", "colour": 3, "landscape": 5}, rule="W8"),
    EventType("secure", "A tile on the active player's base (or the tile won with 6 dice, W3) goes into hoard "
              "row `row` (1..n), or a new row (null); the row must stay one colour or one landscape (W6).",
              {**_TILE_FIELDS, "row": _ROW}, ("colour", "landscape", "row"),
              {"type": "secure", "colour": 3, "landscape": 5, "row": None}, rule="W6"),
    EventType("win", "The dice won a tile from the middle or from another player's base ('from'), with k "
              "matching dice (an egg-doubled die counts 2); it goes on side k of the base, or with 6 into the "
              "hoard (W2, W3, W5).",
              {**_TILE_FIELDS, "from": {"type": "string", "maxLength": MAX_NAME},
               "k": {"type": "integer", "minimum": SIDES[0], "maximum": SIDES[-1]},
               "egg": {"type": "boolean", "nullable": True}},
              ("colour", "landscape", "from", "k"),
              {"type": "win", "colour": 3, "landscape": 5, "from": "middle", "k": 3, "egg": False}, rule="W2"),
    EventType("move", "At the end of the turn, an egg moves one hoard tile to row `row` or a new row (null); "
              "one move per turn (W4, W6).",
              {**_TILE_FIELDS, "row": _ROW}, ("colour", "landscape", "row"),
              {"type": "move", "colour": 3, "landscape": 5, "row": None}, rule="W4"),
    EventType("end", "The active player's turn is over: the next player clockwise, or the same player again "
              "after 6 dice on one tile (W3).", {}, (), {"type": "end"}, rule="W7"),
)


def describe(event: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """A short description of an event for people, e.g. when it is undone, its tile by the table's names."""
    kind = event.get("type")
    tile = _tile_name(*_names(options or {}), event.get("colour"), event.get("landscape"))
    row = event.get("row")
    where = "a new row" if row is None else f"row {row}"
    if kind == "flip":
        return f"the flip of {tile}"
    if kind == "remove":
        return f"the removal of {tile}"
    if kind == "secure":
        return f"{tile} into {where} of the hoard"
    if kind == "win":
        source = "the middle" if event.get("from") == "middle" else f"{event.get('from')}'s base"
        egg = ", one die doubled by an egg" if event.get("egg") else ""
        return f"{tile} won from {source} with {event.get('k')} dice{egg}"
    if kind == "move":
        return f"the egg move of {tile} to {where}"
    if kind == "end":
        return "the end of the turn"
    return str(kind)


def _tile_fields(tile: int) -> dict[str, int]:
    return {"colour": colour_of(tile), "landscape": landscape_of(tile)}


def sample(state: WurfState, rng: random.Random) -> dict[str, Any] | None:
    """One random legal event (random play in the tests), biased towards wins so that games end."""
    turn = state.turn
    if turn is None:
        return None
    seat = turn.seat
    if turn.stage == "flip":
        return {"type": "flip", **_tile_fields(rng.choice(state.face_down))}
    if turn.stage == "remove":
        return {"type": "remove", **_tile_fields(rng.choice(state.middle))}
    if turn.stage in ("secure", "bonus"):
        tile = turn.pending if turn.stage == "bonus" and turn.pending is not None else \
            rng.choice(state.bases[seat])[0]
        options = placements(state, tile, seat)
        joins = [o for o in options if o["row"] is not None]
        choice = rng.choice(joins) if joins and rng.random() < 0.8 else rng.choice(options)
        return {"type": "secure", **_tile_fields(tile), "row": choice["row"]}
    if turn.stage == "moved":
        return {"type": "end"}
    best = max_k(state)
    roll = rng.random()
    if best and roll < 0.9:
        steals = [(t, state.players[other], side) for other, base in enumerate(state.bases) if other != seat
                  for t, side in base if side < best]
        middle = [(t, "middle", 1) for t in state.middle]
        targets = middle if middle and (not steals or rng.random() < 0.85) else steals
        if targets:
            tile, source, side = rng.choice(targets)
            low = max(SIDES[0], side + 1)
            k = low if rng.random() < 0.6 else rng.randint(low, best)
            dice_left = DICE - turn.dice_used
            egg = k > dice_left or (not turn.egg_doubled and state.eggs[seat] > 0 and rng.random() < 0.2)
            return {"type": "win", **_tile_fields(tile), "from": source, "k": k, "egg": egg}
    if roll > 0.95 and state.eggs[seat] > 0:
        by_tile = moves(state, seat)
        if by_tile:
            key = rng.choice(sorted(by_tile))
            target = rng.choice(by_tile[key])
            return {"type": "move", **_tile_fields(int(key)), "row": target["row"]}
    return {"type": "end"}


GAME = Game(
    id=GAME_ID,
    name="Drachen Wurf",
    min_players=2,
    max_players=6,
    options=OPTIONS,
    event_types=EVENT_TYPES,
    setup=setup,
    apply=apply,
    view=view,
    rulings=("W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"),
    describe=describe,
    sample=sample,
)

"""Drachensachen: the round's card trackers by tap, the lost coins, and the end of the game.

Rules: ../shared/rules/drachensachen.txt with rulings S1-S11. The cards stay on the table; the companion
keeps what is tedious to keep in one's head: the trouble pile (S6), the pending draw of value-4 cards
(S7), skips of value-5 cards (S8), the direction of play (S11), whose turn it is, the cards out of the
game per value, the revealed tricks (S9) and the hindrance in force (S10). At the end of a round the
table enters who went out and each other player's coins (S2, S3); the losses, the next starter (S5) and
the end check (S4) follow.

A round has three phases: setting up (starter, trick, hindrances; before the first tracker tap), play
(tracker taps, each one event that does one thing) and scoring (after someone went out: the coins).
Seats are fixed for the whole game: the rulebook has no rule for a player who leaves mid-game.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Mapping

from .base import EventType, Game, IllegalEventError, MalformedEventError, Option, RuleError, listed, recorded_rules

GAME_ID = "drachensachen"
DECK = 96             # S1: 72 goblin and 24 dragon cards
HAND, RESERVE = 5, 6  # S1: each player takes 11 cards
TROUBLE_PILE = 18     # S6
ROUND_CAP = 10        # S2
LIMIT = 21            # S4
MAX_COINS = 99        # keypad bound: more coins than any hand can show is a mis-tap
MAX_DRAW = 20         # one tap draws at most this many (the pending amount has its own event)
MAX_AT_ONCE = 3       # identical cards played at once with an effect; four identical burn the pile
HINDRANCE_CARDS = 7   # S10
RULES = 5
"""The rules version. 2: play begins once the round's trick and hindrance are entered (S9, S10); 3: under Chaos,
every player's hindrance too; 4: of two players, the carousel's second turn begins with Next turn before anything of
it is entered (S11), and a draw of the pile's own comes only from a dragon card under goblins against dragons (S6, S9);
5: once the round's turns are tracked, only a player who may play a card now goes out (``going_out``).
A log recorded under an older version folds by its own (``DrachensachenState.rules``)."""
MAX_HAND = 20         # bounds for the numbers entered from a hindrance card (S10)
MAX_LAYOUT = 12

#: The card values a table counts out of the game: goblins 1-9 and the three dragon cards.
VALUES = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "zero", "fire_breather", "defender")
VALUE_NAMES = {**{v: v for v in VALUES[:9]}, "zero": "Zero", "fire_breather": "Fire-Breather",
               "defender": "Defender"}

#: The seven tricks (S9): id -> (name on the card, a short reminder in our own words).
TRICKS: dict[str, tuple[str, str]] = {
    "fast_dragon": ("Zero: fast dragon", "Played a Zero? Play once more, unless it was your last card."),
    "goblins_against_dragons": ("Any dragon: goblins against dragons",
                                "Played a dragon card? Draw 1 from the trouble pile."),
    "small_but_bold": ("1: small but bold", "A 1 may go on a 9."),
    "surprise": ("2: surprise", "Played a 2? Pick another player: they take a random card from your hand."),
    "carousel": ("7: carousel", "Played a 7? You may reverse the direction; the previous player goes again "
                                "(two players: you go again)."),
    "golden_feathers": ("8: golden feathers", "Round end: each 8 you still hold wins you 1 coin back."),
    "revealing_secrets": ("9: revealing secrets", "Played a 9? Take one face-up reserve card into your hand."),
}
#: The three kinds of hindrance cards (S10).
HINDRANCES = {"invasion": "Invasion of the Goblins", "unknown": "Unknown", "chaos": "Chaos"}

LEAVING = ("Seats are fixed for the whole game: the rulebook has no rule for a player who leaves in the "
           "middle of a game. Abandon this game and start a new one with the players who stay.")


@dataclass(frozen=True)
class Hindrance:
    """A hindrance card a player drew and follows while setting up the round (S10)."""

    seat: int
    kind: str               # invasion | unknown | chaos
    hand: int | None = None        # invasion: hand size
    face_up: int | None = None     # unknown: the reserve layout
    face_down: int | None = None

    def dealt(self) -> int:
        """Cards this card makes its player take into hand and reserve (S1, S10)."""
        hand = self.hand if self.kind == "invasion" and self.hand is not None else HAND
        reserve = RESERVE
        if self.kind == "unknown" and self.face_up is not None and self.face_down is not None:
            reserve = self.face_up + self.face_down
        return hand + reserve


@dataclass(frozen=True)
class Draw:
    seat: int
    due: int
    drawn: int
    pending: bool  # the pending amount of value-4 cards (S7), not a plain draw


@dataclass(frozen=True)
class Round:
    """One round: its setup, its trackers, and once scored its result."""

    number: int
    starter: int | None
    holder: int | None = None                   # S10: the previous round's finisher draws the hindrance
    trick: str | None = None                    # S9: the trick revealed at this round's start
    hindrances: tuple[Hindrance, ...] = ()      # the holder's card first, then Chaos draws
    under_way: bool = False                     # a tracker was tapped: the setup is over
    turn: int | None = None
    direction: int = 1                          # S11: +1 clockwise (seat order), -1 reversed
    again: bool = False                         # S11, two players: the carousel gives the mover a second turn
    pending: int = 0                            # S7
    pending_from: int | None = None             # who played or passed the pending draw last
    skips: int = 0                              # S8
    skip_defenders: tuple[int, ...] = ()        # skipped players who passed the skip on
    last_skipped: tuple[int, ...] = ()          # who the last passing of the turn skipped
    draws: tuple[Draw, ...] = ()
    out: tuple[int, ...] = (0,) * len(VALUES)   # cards out of the game this round, per value
    finisher: int | None = None
    coins: tuple[int | None, ...] = ()
    eights: tuple[int | None, ...] = ()
    losses: tuple[int, ...] | None = None       # set once scored

    @property
    def chaos(self) -> bool:
        return bool(self.hindrances) and self.hindrances[0].kind == "chaos"

    @property
    def due(self) -> int:
        return sum(d.due for d in self.draws)

    @property
    def drawn(self) -> int:
        return sum(d.drawn for d in self.draws)


@dataclass(frozen=True)
class DrachensachenState:
    players: tuple[str, ...]
    hindrances_on: bool
    tricks_on: bool
    totals: tuple[int, ...]
    current: Round | None
    history: tuple[Round, ...] = ()
    tie_at_limit: bool = False  # S4: the last check found 21 or more but a tie for the fewest
    rules: int = RULES  # the rules version the game is played under (a log recorded before folds by its own)

    @property
    def finished(self) -> bool:
        return self.current is None

    @property
    def tricks(self) -> tuple[str, ...]:
        """The revealed tricks, in the order they were revealed (S9: they stay active)."""
        rounds = self.history + ((self.current,) if self.current else ())
        return tuple(r.trick for r in rounds if r.trick is not None)


OPTIONS = (
    Option("hindrances", "Hindrances", "bool", False,
           "Play with the seven hindrance cards: the finisher of a round draws one for the next (additional "
           "rule).", ruling="S10"),
    Option("tricks", "Tricks", "bool", False,
           "Play with the seven trick cards: one is revealed at the start of every round and stays active "
           "(additional rule).", ruling="S9"),
)


def setup(players: tuple[str, ...], options: Mapping[str, Any]) -> DrachensachenState:
    """A new game, players in seat order clockwise; the table chooses the first starter (S5)."""
    count = len(players)
    if not 2 <= count <= 7:
        raise IllegalEventError("S1", "Drachensachen is for 2 to 7 players")
    return DrachensachenState(
        players=tuple(players),
        hindrances_on=bool(options.get("hindrances", False)),
        tricks_on=bool(options.get("tricks", False)),
        totals=(0,) * count,
        current=_new_round(1, None, None, count),
        rules=recorded_rules(options, RULES),
    )


def _new_round(number: int, starter: int | None, holder: int | None, count: int) -> Round:
    """A round as it starts: every tracker reset (S6, S7, S8, S11), the turn with the starter (S5)."""
    return Round(number=number, starter=starter, holder=holder, turn=starter,
                 coins=(None,) * count, eights=(None,) * count)


def pile_start(current: Round) -> int:
    """S6: 18 cards, or under Chaos every card not dealt (96 minus all hands and reserves)."""
    if not current.chaos:
        return TROUBLE_PILE
    count = len(current.coins)
    own: dict[int, Hindrance] = {}
    for card in current.hindrances[1:]:  # the Chaos draws; the holder's Chaos card deals nothing itself
        own[card.seat] = card
    # a deal the deck cannot fill ends with the deck: nothing is left for the pile
    return max(0, DECK - sum(own[s].dealt() if s in own else HAND + RESERVE for s in range(count)))


def pile(current: Round) -> int:
    return pile_start(current) - current.drawn


def golden_feathers(state: DrachensachenState) -> bool:
    return "golden_feathers" in state.tricks


# applying events ---------------------------------------------------------------------------------------------


def apply(state: DrachensachenState, event: Mapping[str, Any]) -> DrachensachenState:
    """The state after `event`; raises a RuleError naming the rule and changes nothing when refused."""
    kind = event.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedEventError("events", f"unknown event type {kind!r} for Drachensachen")
    if state.current is None:
        raise IllegalEventError("S4", "the game is over: " + _end_text(state))
    return handler(state, state.current, event)


def _seat(state: DrachensachenState, player: Any, rule: str) -> int:
    if not isinstance(player, str) or player not in state.players:
        raise MalformedEventError(rule, f"'player' must be one of {', '.join(state.players)} (seats are fixed for "
                                        "the whole game: the rulebook has no rule for players joining or leaving)")
    return state.players.index(player)


def _int(event: Mapping[str, Any], key: str, low: int, high: int, rule: str, default: int | None = None) -> int:
    value = event.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MalformedEventError(rule, f"{key!r} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _name(state: DrachensachenState, seat: int | None) -> str:
    return state.players[seat] if seat is not None else "nobody"


def _setting_up(state: DrachensachenState, current: Round, rule: str, what: str) -> None:
    if current.finisher is not None:
        raise IllegalEventError("S2", f"round {current.number} is over ({_name(state, current.finisher)} went "
                                      "out); enter the coins")
    if current.under_way:
        raise IllegalEventError(rule, f"{what} belongs to setting up the round, and round {current.number} is "
                                      "under way; undo the taps since to change it")


def _playing(state: DrachensachenState, current: Round) -> int:
    """The seat whose turn it is, once the round may be tracked: a starter chosen (S5), nobody out (S2)."""
    if current.finisher is not None:
        raise IllegalEventError("S2", f"round {current.number} is over ({_name(state, current.finisher)} went "
                                      "out); enter the coins")
    if current.turn is None:
        raise IllegalEventError("S5", "choose who starts the first round first")
    return current.turn


def _not_facing(state: DrachensachenState, current: Round, turn: int) -> None:
    """S7: the player facing a pending draw draws it (or passes it on) before anything else."""
    if current.pending and current.pending_from != turn:
        raise IllegalEventError("S7", f"{state.players[turn]} faces the pending {current.pending}: draw it or pass "
                                      "it on (a 4 or a Defender) first")


def _second_turn_waits(state: DrachensachenState, current: Round) -> bool:
    """S11, two players: the carousel gave the mover a second turn, which Next turn begins (rules version 4)."""
    return current.again and state.rules >= 4


def _pile_draws(state: DrachensachenState) -> bool:
    """S6, S9: whether a draw of the pile's own (beside the 4s' pending draw) may be entered: under goblins against
    dragons (rules version 4), by any tap before."""
    return state.rules < 4 or "goblins_against_dragons" in state.tricks


def _second_turn_owed(state: DrachensachenState, current: Round) -> None:
    """S11, two players: what is played in the carousel's second turn is entered once Next turn has begun it (a
    second 7 there gives a third turn; a reverse tapped by mistake is undone with Undo)."""
    if _second_turn_waits(state, current):
        raise IllegalEventError("S11", f"{_name(state, current.turn)} goes again (the carousel, two players): tap "
                                       "Next turn to begin that turn first")


def _step(state: DrachensachenState, current: Round, seat: int, by: int) -> int:
    return (seat + current.direction * by) % len(state.players)


def _starter(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    seat = _seat(state, event.get("player"), "S5")
    if current.number != 1:
        raise IllegalEventError("S5", f"the starter of round {current.number} follows from the last round: "
                                      f"{_name(state, current.starter)} (who lost the most)")
    if current.starter is not None:
        raise IllegalEventError("S5", f"{_name(state, current.starter)} already starts round 1; undo to change")
    _setting_up(state, current, "S5", "choosing the starter")
    return replace(state, current=replace(current, starter=seat, turn=seat))


def _trick(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    trick = event.get("trick")
    if not isinstance(trick, str) or trick not in TRICKS:
        raise MalformedEventError("S9", f"'trick' must be one of {', '.join(TRICKS)}")
    if not state.tricks_on:
        raise IllegalEventError("S9", "this game is played without tricks")
    if len(state.tricks) >= len(TRICKS):
        raise IllegalEventError("S9", f"all {len(TRICKS)} tricks are revealed; there is no eighth")
    if trick in state.tricks:
        raise IllegalEventError("S9", f"{TRICKS[trick][0]} is already revealed and stays active")
    if current.trick is not None:
        raise IllegalEventError("S9", f"round {current.number} already revealed {TRICKS[current.trick][0]}; one "
                                      "trick per round")
    _setting_up(state, current, "S9", "revealing the trick")
    return replace(state, current=replace(current, trick=trick))


def _hindrance(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    kind = event.get("kind")
    if not isinstance(kind, str) or kind not in HINDRANCES:
        raise MalformedEventError("S10", f"'kind' must be one of {', '.join(HINDRANCES)}")
    card = _card_numbers(kind, event)
    if not state.hindrances_on:
        raise IllegalEventError("S10", "this game is played without hindrances")
    if current.holder is None:
        raise IllegalEventError("S10", "the first round has no hindrance")
    _setting_up(state, current, "S10", "following a hindrance")
    holder = state.players[current.holder]
    player = event.get("player")
    seat = current.holder if player is None and not current.hindrances else _seat(state, player, "S10")
    if not current.hindrances:
        if seat != current.holder:
            raise IllegalEventError("S10", f"{holder} went out last round and draws the hindrance first")
    elif not current.chaos:
        raise IllegalEventError("S10", f"only {holder} follows a hindrance this round "
                                       f"({HINDRANCES[current.hindrances[0].kind]}, not Chaos)")
    elif any(h.seat == seat for h in current.hindrances[1:]):
        raise IllegalEventError("S10", f"{state.players[seat]} already drew a hindrance under Chaos")
    elif len(current.hindrances) >= HINDRANCE_CARDS:
        raise IllegalEventError("S10", f"all {HINDRANCE_CARDS} hindrance cards are drawn")
    return replace(state, current=replace(current, hindrances=current.hindrances + (replace(card, seat=seat),)))


def _card_numbers(kind: str, event: Mapping[str, Any]) -> Hindrance:
    """The numbers a hindrance card shows (S10): a hand size, a reserve layout, or none for Chaos."""
    given = {k for k in ("hand", "face_up", "face_down") if event.get(k) is not None}
    wanted = {"invasion": {"hand"}, "unknown": {"face_up", "face_down"}, "chaos": set()}[kind]
    if given != wanted:
        need = " and ".join(sorted(wanted)) or "no numbers"
        raise MalformedEventError("S10", f"a {HINDRANCES[kind]} card shows {need}")
    if kind == "invasion":
        return Hindrance(0, kind, hand=_int(event, "hand", 1, MAX_HAND, "S10"))
    if kind == "unknown":
        up = _int(event, "face_up", 0, MAX_LAYOUT, "S10")
        down = _int(event, "face_down", 0, MAX_LAYOUT, "S10")
        if up + down == 0:
            raise MalformedEventError("S10", "an Unknown card lays out at least one reserve card")
        return Hindrance(0, kind, face_up=up, face_down=down)
    return Hindrance(0, kind)


def _missing_setup(state: DrachensachenState, current: Round) -> IllegalEventError | None:
    """What setting up the round still owes before play (a tracker tap, a player going out) may begin: the
    round's trick (S9: one revealed at the start of every round while any are left), the hindrance its holder
    draws (S10) and, under Chaos, every player's own (while hindrance cards are left); None when nothing."""
    if current.under_way or state.rules < 2:  # version 1 let play begin before the setup was entered
        return None
    if state.tricks_on and current.trick is None and len(state.tricks) < len(TRICKS):
        return IllegalEventError("S9", f"reveal round {current.number}'s trick first")
    if current.holder is not None and not current.hindrances:
        return IllegalEventError("S10", f"{_name(state, current.holder)} draws round {current.number}'s hindrance "
                                        "first")
    if current.chaos and len(current.hindrances) < HINDRANCE_CARDS and state.rules >= 3:
        drew = {h.seat for h in current.hindrances[1:]}
        waiting = [p for s, p in enumerate(state.players) if s not in drew]
        if waiting:  # the rulebook: under Chaos each player takes a hindrance card, while hindrance cards are left
            return IllegalEventError("S10", f"under Chaos every player draws a hindrance: {listed(waiting)} first")
    return None


def _tracked(state: DrachensachenState, current: Round, **changes: Any) -> DrachensachenState:
    if missing := _missing_setup(state, current):
        raise missing
    return replace(state, current=replace(current, under_way=True, **changes))


def _next_turn(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """The turn passes in the direction of play (S11), over the players a skip affects (S8)."""
    turn = _playing(state, current)
    _not_facing(state, current, turn)
    by = (0 if current.again else 1) + current.skips + len(current.skip_defenders)
    window = [_step(state, current, turn, k) for k in range(1, by)]
    skipped = tuple(s for s in window if s not in current.skip_defenders)
    return _tracked(state, current, turn=_step(state, current, turn, by), skips=0, skip_defenders=(),
                    last_skipped=skipped, again=False)


def _four(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S7: each value-4 card played adds 2 to the pending draw; on a pending draw it passes it on."""
    count = _int(event, "count", 1, MAX_AT_ONCE, "S7", default=1)
    turn = _playing(state, current)
    _second_turn_owed(state, current)
    return _tracked(state, current, pending=current.pending + 2 * count, pending_from=turn)


def _skip(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S8: value-5 cards played at once skip that many players."""
    count = _int(event, "count", 1, MAX_AT_ONCE, "S8", default=1)
    _not_facing(state, current, _playing(state, current))
    _second_turn_owed(state, current)
    if current.skips:
        raise IllegalEventError("S8", f"{current.skips} skip(s) are pending; pass the turn first")
    return _tracked(state, current, skips=count, skip_defenders=())


def _skip_window(state: DrachensachenState, current: Round) -> list[int]:
    """The players a pending skip affects now: the next ones in the direction of play, less the defenders (S8)."""
    assert current.turn is not None
    span = current.skips + len(current.skip_defenders)
    return [s for s in (_step(state, current, current.turn, k) for k in range(1, span + 1))
            if s not in current.skip_defenders]


def _defender(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """A Defender passes the effect on: the pending draw to the next player (S7), or a skip to the next player
    not yet affected (S8)."""
    turn = _playing(state, current)
    player = event.get("player")
    seat = None if player is None else _seat(state, player, "S8")
    _second_turn_owed(state, current)
    if current.pending and current.pending_from != turn:
        if seat is not None and seat != turn:
            raise IllegalEventError("S7", f"the pending {current.pending} faces {state.players[turn]}")
        return _tracked(state, current, pending_from=turn)
    if current.skips:
        affected = _skip_window(state, current)
        if not affected or current.skips + len(current.skip_defenders) >= len(state.players):
            raise IllegalEventError("S8", "every player is already affected by this skip: nobody is left to pass "
                                          "it on to")
        if seat is None:
            seat = affected[0]
        if seat not in affected:
            raise IllegalEventError("S8", f"{state.players[seat]} is not skipped now; the skip affects "
                                          f"{', '.join(state.players[s] for s in affected)}")
        return _tracked(state, current, skip_defenders=current.skip_defenders + (seat,))
    if current.pending:
        raise IllegalEventError("S7", f"the pending {current.pending} faces the next player; pass the turn first")
    raise IllegalEventError("S7", "no draw or skip the tracker keeps faces this player: a Defender played now "
                                  "passes on what the discard pile shows, and no tracker changes")


def _reverse(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S11: the carousel reverses the direction of play: the previous player goes next; of two players, the mover
    takes a second turn (rulebook: "If two are playing, the active player takes a second turn"). Before rules
    version 4 a reverse tapped again took that turn back."""
    _not_facing(state, current, _playing(state, current))
    _second_turn_owed(state, current)
    if "carousel" not in state.tricks:
        raise IllegalEventError("S11", "only the trick carousel reverses the direction, and it is not revealed")
    return _tracked(state, current, direction=-current.direction,
                    again=len(state.players) == 2 and not current.again)


def _take(state: DrachensachenState, current: Round, seat: int, due: int, pending: bool) -> DrachensachenState:
    """S6: a draw takes what the pile has; the rest is ignored, and both are recorded."""
    drawn = min(due, pile(current))
    return _tracked(state, current, draws=current.draws + (Draw(seat, due, drawn, pending),),
                    **({"pending": 0, "pending_from": None} if pending else {}))


def _draw(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S6: cards drawn from the trouble pile beside a pending draw (``draw_pending``): under the trick goblins
    against dragons (S9), one for each dragon card played; no other rule draws from the pile (a player who cannot
    play takes the discard pile)."""
    count = _int(event, "count", 1, MAX_DRAW, "S6", default=1)
    turn = _playing(state, current)
    seat = turn if event.get("player") is None else _seat(state, event.get("player"), "S6")
    if seat == turn:
        _not_facing(state, current, turn)
    if not _pile_draws(state):
        raise IllegalEventError("S6", "only the trick goblins against dragons draws from the trouble pile beside a "
                                      "pending draw of 4s, and it is not revealed (a player who cannot play takes "
                                      "the discard pile)")
    _second_turn_owed(state, current)
    return _take(state, current, seat, count, pending=False)


def _draw_pending(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S7: the player who cannot pass the pending draw on draws all of it (S6 applies)."""
    turn = _playing(state, current)
    if not current.pending:
        raise IllegalEventError("S7", "no draw is pending")
    if current.pending_from == turn:
        raise IllegalEventError("S7", f"{state.players[turn]} played or passed the pending {current.pending}; "
                                      "it faces the next player: pass the turn first")
    player = event.get("player")
    if player is not None and _seat(state, player, "S7") != turn:
        raise IllegalEventError("S7", f"the pending {current.pending} faces {state.players[turn]}, not {player}")
    return _take(state, current, turn, current.pending, pending=True)


def _out(state: DrachensachenState, current: Round, cards: dict[str, int], clear: bool) -> DrachensachenState:
    out = tuple(n + cards.get(v, 0) for v, n in zip(VALUES, current.out, strict=True))
    if sum(out) > DECK:
        raise IllegalEventError("S1", f"that would make {sum(out)} cards out of the game this round; the deck "
                                      f"has {DECK}")
    extra = {"pending": 0, "pending_from": None, "skips": 0, "skip_defenders": ()} if clear else {}
    return _tracked(state, current, out=out, **extra)


def _value(event: Mapping[str, Any], rule: str) -> str:
    value = event.get("value")
    if not isinstance(value, str) or value not in VALUES:
        raise MalformedEventError(rule, f"'value' must be one of {', '.join(VALUES)}")
    return value


def _set_out(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """Four identical cards from a hand go out of the game (rulebook: Turn Order)."""
    value = _value(event, "cards")
    _not_facing(state, current, _playing(state, current))
    return _out(state, current, {value: 4}, clear=False)


def _burned(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """The discard pile goes out of the game: four identical in a row (their effects are not applied, so
    the pending draw and skips end) or a Fire-Breather (rulebook: Rules for Playing Cards)."""
    cause = event.get("cause")
    if cause not in ("four_in_a_row", "fire_breather"):
        raise MalformedEventError("cards", "'cause' must be four_in_a_row or fire_breather")
    raw = event.get("cards")
    if not isinstance(raw, Mapping) or not raw:
        raise MalformedEventError("cards", "'cards' must count the burned cards per value")
    cards: dict[str, int] = {}
    for value in raw:
        if value not in VALUES:
            raise MalformedEventError("cards", f"{value!r} is no card value; values are {', '.join(VALUES)}")
        cards[value] = _int(raw, value, 0, DECK, "cards")
    if not sum(cards.values()):
        raise MalformedEventError("cards", "a burned pile has at least one card")
    if cause == "four_in_a_row" and max(cards.values()) < 4:
        raise IllegalEventError("cards", "four in a row burns at least four cards of one value")
    if cause == "fire_breather" and not cards.get("fire_breather"):
        raise IllegalEventError("cards", "a pile burned by a Fire-Breather holds that Fire-Breather")
    turn = _playing(state, current)
    if cause == "fire_breather" or not {"4", "defender"} & {v for v, n in cards.items() if n >= 4}:
        _not_facing(state, current, turn)  # S7: on a pending draw only a 4 or a Defender is played, so only they burn
    return _out(state, current, cards, clear=cause == "four_in_a_row")


def going_out(state: DrachensachenState, current: Round) -> tuple[int, ...]:
    """The seats that may go out now, in seat order. A player goes out by playing their last card (rulebook: End of
    the Round), and plays on their own turn only (Turn Order), save a skipped player's Defender (S8): once a tracker
    tap has begun the round's turns (rules version 5), the player whose turn it is, and while a skip may be passed on,
    the players it skips. A round whose turns are not tracked (no tap since its set-up) ends with any player."""
    if current.finisher is not None or current.turn is None or _missing_setup(state, current):
        return ()
    if state.rules < 5 or not current.under_way:
        return tuple(range(len(state.players)))
    seats = {current.turn}
    if current.skips and current.skips + len(current.skip_defenders) < len(state.players):
        seats.update(_skip_window(state, current))
    return tuple(sorted(seats))


def _went_out(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S2: the round ends as soon as a player has no cards left; they lose nothing. Only a player who may play a card
    now plays their last (``going_out``)."""
    seat = _seat(state, event.get("player"), "S2")
    if current.finisher is not None:
        raise IllegalEventError("S2", f"{_name(state, current.finisher)} already went out in round "
                                      f"{current.number}; one result per round (undo to change it)")
    if current.turn is None:
        raise IllegalEventError("S5", "choose who starts the first round first")
    if missing := _missing_setup(state, current):
        raise missing
    if seat not in going_out(state, current):
        turn = state.players[current.turn]
        skipped = current.skips and seat in _skip_window(state, current)
        raise IllegalEventError("S8" if skipped else "turns", (
            f"{state.players[seat]} skips, and every player is already affected by this skip: no Defender passes "
            "it on" if skipped else
            f"it is {turn}'s turn: a player plays their last card on their own turn (or, skipped, a Defender); if "
            f"{state.players[seat]} went out before, undo to that turn"))
    return replace(state, current=replace(current, finisher=seat, coins=_at(current.coins, seat, 0),
                                          eights=_at(current.eights, seat, 0)))


def _coins(state: DrachensachenState, current: Round, event: Mapping[str, Any]) -> DrachensachenState:
    """S2, S3: a player's coins on their hand and available reserve cards (with golden feathers: on the
    cards other than 8s, and the number of 8s)."""
    seat = _seat(state, event.get("player"), "S2")
    coins = _int(event, "coins", 0, MAX_COINS, "S2")
    eights = _int(event, "eights", 0, MAX_COINS, "S3", default=0)
    if current.finisher is None:
        raise IllegalEventError("S2", "enter who went out first")
    if seat == current.finisher:
        raise IllegalEventError("S2", f"{state.players[seat]} went out and loses nothing")
    if current.coins[seat] is not None:
        raise IllegalEventError("S2", f"{state.players[seat]}'s coins of round {current.number} are entered; "
                                      "undo to change them")
    if eights and not golden_feathers(state):
        raise IllegalEventError("S3", "8s count only with the trick golden feathers, which is not revealed")
    updated = replace(current, coins=_at(current.coins, seat, coins), eights=_at(current.eights, seat, eights))
    if any(c is None for c in updated.coins):
        return replace(state, current=updated)
    return _score(state, updated)


def round_losses(coins: tuple[int, ...], eights: tuple[int, ...], feathers: bool) -> tuple[int, ...]:
    """S2, S3: min(10, coins) each, less one per 8 held when golden feathers is active (may go negative)."""
    return tuple(min(ROUND_CAP, c) - (e if feathers else 0) for c, e in zip(coins, eights, strict=True))


def next_starter(losses: tuple[int, ...], previous: int) -> int:
    """S5: who lost the most; among ties, the first clockwise from the seat after the previous starter."""
    count = len(losses)
    most = max(losses)
    return next(s for s in ((previous + k) % count for k in range(1, count + 1)) if losses[s] == most)


def game_over(totals: tuple[int, ...]) -> bool:
    """S4: someone has lost 21 or more, and the fewest lost is not tied."""
    fewest = min(totals)
    return max(totals) >= LIMIT and totals.count(fewest) == 1


def _score(state: DrachensachenState, current: Round) -> DrachensachenState:
    """Score the round (S2, S3), check the end (S4), and start the next one (S5, S10)."""
    assert current.finisher is not None and current.starter is not None
    losses = round_losses(tuple(c or 0 for c in current.coins), tuple(e or 0 for e in current.eights),
                          golden_feathers(state))
    done = replace(current, losses=losses)
    totals = tuple(a + b for a, b in zip(state.totals, losses, strict=True))
    history = state.history + (done,)
    if game_over(totals):
        return replace(state, totals=totals, history=history, current=None, tie_at_limit=False)
    starter = next_starter(losses, current.starter)
    holder = current.finisher if state.hindrances_on else None
    following = _new_round(current.number + 1, starter, holder, len(state.players))
    return replace(state, totals=totals, history=history, current=following, tie_at_limit=max(totals) >= LIMIT)


def _at(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return values[:seat] + (value,) + values[seat + 1:]


_HANDLERS = {
    "starter": _starter, "trick": _trick, "hindrance": _hindrance, "next_turn": _next_turn, "four": _four,
    "skip": _skip, "defender": _defender, "reverse": _reverse, "draw": _draw, "draw_pending": _draw_pending,
    "set_out": _set_out, "burned": _burned, "went_out": _went_out, "coins": _coins,
}
SETUP_EVENTS = ("starter", "trick", "hindrance")
PLAY_EVENTS = ("next_turn", "four", "skip", "defender", "reverse", "draw", "draw_pending", "set_out", "burned",
               "went_out")


# the view ------------------------------------------------------------------------------------------------------


def _end_text(state: DrachensachenState) -> str:
    winners = _winners(state)
    return f"{', '.join(winners)} lost the fewest coins" if winners else "it has not ended"


def _winners(state: DrachensachenState) -> list[str]:
    if not state.finished:
        return []
    fewest = min(state.totals)
    return [p for p, t in zip(state.players, state.totals, strict=True) if t == fewest]  # S4: one, by the end check


def _hindrance_json(state: DrachensachenState, card: Hindrance) -> dict[str, Any]:
    return {"player": state.players[card.seat], "kind": card.kind, "name": HINDRANCES[card.kind],
            "hand": card.hand, "face_up": card.face_up, "face_down": card.face_down, "dealt": card.dealt()}


def _per_value(counts: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(VALUES, counts, strict=True))


def _round_json(state: DrachensachenState, r: Round) -> dict[str, Any]:
    players = state.players
    return {
        "number": r.number,
        "starter": _name(state, r.starter) if r.starter is not None else None,
        "finisher": players[r.finisher] if r.finisher is not None else None,
        "trick": r.trick,
        "hindrances": [_hindrance_json(state, h) for h in r.hindrances],
        "coins": {p: c for p, c in zip(players, r.coins, strict=True)},
        "eights": {p: e for p, e in zip(players, r.eights, strict=True)},
        "losses": dict(zip(players, r.losses, strict=True)) if r.losses is not None else None,
        "due": r.due,
        "drawn": r.drawn,
        "cards_out": _per_value(r.out),
    }


def _phase(current: Round) -> str:
    if current.finisher is not None:
        return "scoring"
    return "play" if current.under_way else "setup"


def _expects(state: DrachensachenState, current: Round, owed: IllegalEventError | None) -> list[str]:
    """The event types that may be accepted now (the page greys out the rest); ``owed``: what the setup still
    owes (``_missing_setup``)."""
    if current.finisher is not None:
        return ["coins"]
    expects: list[str] = []
    if not current.under_way:
        if current.number == 1 and current.starter is None:
            expects.append("starter")
        if state.tricks_on and current.trick is None and len(state.tricks) < len(TRICKS):
            expects.append("trick")
        if current.holder is not None and (not current.hindrances or (
                current.chaos and len(current.hindrances) < HINDRANCE_CARDS)):
            expects.append("hindrance")
    if current.turn is None or owed:
        return expects
    facing = bool(current.pending) and current.pending_from != current.turn
    if facing:  # S7: draw it or pass it on
        return expects + ["four", "defender", "draw_pending", "burned", "went_out"]
    if _second_turn_waits(state, current):
        return expects + ["next_turn", "set_out", "burned", "went_out"]
    if current.skips:
        passable = current.skips + len(current.skip_defenders) < len(state.players)
        expects += ["next_turn", "four"] + (["defender"] if passable else [])
    else:
        expects += ["next_turn", "four", "skip"]
    if "carousel" in state.tricks:
        expects.append("reverse")
    if _pile_draws(state):
        expects.append("draw")
    expects += ["set_out", "burned", "went_out"]
    return expects


def view(state: DrachensachenState) -> dict[str, Any]:
    """What the page and the API show: the trackers of the round, the coins lost, the end (S4)."""
    players = state.players
    current = state.current
    rounds = state.history + ((current,) if current else ())
    running: dict[str, list[int]] = {p: [] for p in players}
    for r in state.history:
        for p, loss in zip(players, r.losses or (), strict=True):
            running[p].append((running[p][-1] if running[p] else 0) + loss)
    game_out = tuple(sum(r.out[i] for r in rounds) for i in range(len(VALUES)))
    feathers = golden_feathers(state)
    data: dict[str, Any] = {
        "finished": state.finished,
        "winners": _winners(state),
        "round": current.number if current else (state.history[-1].number if state.history else None),
        "scores": dict(zip(players, state.totals, strict=True)),
        "turn": players[current.turn] if current and current.turn is not None and current.finisher is None else None,
        "breakdown": [{"round": r.number, "label": f"Round {r.number} · {_name(state, r.finisher)} went out",
                       "points": dict(zip(players, r.losses or (), strict=True))} for r in state.history],
        "lower_wins": True,
        "limit": LIMIT,
        "round_cap": ROUND_CAP,
        "running": running,
        "losses": {p: [r.losses[s] for r in state.history if r.losses] for s, p in enumerate(players)},
        "seats": list(players),
        "seating": LEAVING,
        "options": {"hindrances": state.hindrances_on, "tricks": state.tricks_on},
        "extra_round": state.tie_at_limit and not state.finished,
        "tricks": [{"id": t, "name": TRICKS[t][0], "reminder": TRICKS[t][1]} for t in state.tricks],
        "tricks_left": len(TRICKS) - len(state.tricks),
        "trick_choices": [{"id": t, "name": name} for t, (name, _) in TRICKS.items() if t not in state.tricks],
        "hindrance_kinds": HINDRANCES,
        "golden_feathers": feathers,
        "cards_out": _per_value(game_out),
        "value_names": VALUE_NAMES,
        "history": [_round_json(state, r) for r in state.history],
        "last_round": _round_json(state, state.history[-1]) if state.history else None,
    }
    if current is None:
        data.update(phase="finished", expects=[], current=None, starter=None, direction=None, goes_again=None,
                    pending_draw=0, skips=0, trouble_pile=None, hindrance=None, finisher=None, going_out=[])
        return data
    start = pile_start(current)
    left = start - current.drawn
    skipped = _skip_window(state, current) if current.skips and current.turn is not None else []
    waiting = ([p for p, c in zip(players, current.coins, strict=True) if c is None]
               if current.finisher is not None else [])
    owed = _missing_setup(state, current)
    data.update(
        phase=_phase(current),
        expects=_expects(state, current, owed),
        setup_owed=None if owed is None else {"rule": owed.rule, "message": owed.message},
        starter=_name(state, current.starter) if current.starter is not None else None,
        starter_rule=("chosen at the table" if current.number == 1
                      else "lost the most last round (ties: first clockwise after the last starter)"),
        direction="clockwise" if current.direction == 1 else "counterclockwise",
        goes_again=players[current.turn] if current.again and current.turn is not None else None,
        pending_draw=current.pending,
        pending_faces=(players[current.turn] if current.pending and current.turn is not None
                       and current.pending_from != current.turn else None),
        skips=current.skips,
        skipping=[players[s] for s in skipped],
        last_skipped=[players[s] for s in current.last_skipped],
        trouble_pile={"start": start, "left": left, "due": current.due, "drawn": current.drawn,
                      "ignored": current.due - current.drawn, "empty": left == 0,
                      "last_draw": None if not current.draws else {
                          "player": players[current.draws[-1].seat], "due": current.draws[-1].due,
                          "drawn": current.draws[-1].drawn, "pending": current.draws[-1].pending}},
        hindrance_holder=_name(state, current.holder) if current.holder is not None else None,
        hindrance=_hindrance_json(state, current.hindrances[0]) if current.hindrances else None,
        chaos_draws=[_hindrance_json(state, h) for h in current.hindrances[1:]],
        cards_out_round=_per_value(current.out),
        finisher=players[current.finisher] if current.finisher is not None else None,
        going_out=[players[s] for s in going_out(state, current)],
        waiting_for_coins=waiting,
        coins={p: c for p, c in zip(players, current.coins, strict=True)} if current.finisher is not None else None,
        eights={p: e for p, e in zip(players, current.eights, strict=True)} if current.finisher is not None else None,
        current=_round_json(state, current),
    )
    return data


# documentation, description and random play ---------------------------------------------------------------------


_PLAYER = {"type": "string", "maxLength": 24}
_OPT_PLAYER = {**_PLAYER, "nullable": True}
_AT_ONCE = {"type": "integer", "minimum": 1, "maximum": MAX_AT_ONCE}
EVENT_TYPES = (
    EventType("starter", "Round 1 only: the player the table chose to start (S5); later starters follow from "
              "the losses.", {"player": _PLAYER}, ("player",), {"type": "starter", "player": "Ada"}, rule="S5"),
    EventType("trick", "The trick revealed at this round's start (S9); it stays active for the game.",
              {"trick": {"type": "string", "enum": list(TRICKS)}}, ("trick",),
              {"type": "trick", "trick": "goblins_against_dragons"}, rule="S9"),
    EventType("hindrance", "The hindrance card a player drew (S10): kind, and a hand size (invasion) or a "
              "reserve layout (unknown). The previous finisher first; under Chaos every player (player).",
              {"kind": {"type": "string", "enum": list(HINDRANCES)}, "player": _OPT_PLAYER,
               "hand": {"type": "integer", "minimum": 1, "maximum": MAX_HAND, "nullable": True},
               "face_up": {"type": "integer", "minimum": 0, "maximum": MAX_LAYOUT, "nullable": True},
               "face_down": {"type": "integer", "minimum": 0, "maximum": MAX_LAYOUT, "nullable": True}},
              ("kind",), {"type": "hindrance", "kind": "invasion", "hand": 7}, rule="S10"),
    EventType("next_turn", "The turn passes in the direction of play (S11), over skipped players (S8).",
              {}, (), {"type": "next_turn"}, rule="S8"),
    EventType("four", "Value-4 cards played at once: +2 each to the pending draw (S7).",
              {"count": _AT_ONCE}, (), {"type": "four", "count": 1}, rule="S7"),
    EventType("skip", "Value-5 cards played at once: that many players skip (S8).",
              {"count": _AT_ONCE}, (), {"type": "skip", "count": 2}, rule="S8"),
    EventType("defender", "A Defender passes the pending draw on (S7), or a skipped player (player) passes the "
              "skip to the next player not yet affected (S8).", {"player": _OPT_PLAYER}, (),
              {"type": "defender"}, rule="S8"),
    EventType("reverse", "The carousel reverses the direction of play (S11).", {}, (), {"type": "reverse"},
              rule="S11"),
    EventType("draw", "Under the trick goblins against dragons, a player (default: whose turn it is) draws "
              "cards from the trouble pile for the dragon cards played, e.g. +1; what the pile lacks is ignored (S6).",
              {"count": {"type": "integer", "minimum": 1, "maximum": MAX_DRAW}, "player": _OPT_PLAYER}, (),
              {"type": "draw", "count": 1}, rule="S6"),
    EventType("draw_pending", "The player facing the pending draw (named, or whose turn it is), unable to pass it "
              "on, draws all of it (S7, S6).", {"player": _OPT_PLAYER}, (), {"type": "draw_pending"}, rule="S7"),
    EventType("set_out", "Four identical cards from a hand go out of the game.",
              {"value": {"type": "string", "enum": list(VALUES)}}, ("value",),
              {"type": "set_out", "value": "7"}, rule="cards"),
    EventType("burned", "The discard pile went out of the game (four identical in a row: their effects end; or "
              "a Fire-Breather): its cards per value.",
              {"cause": {"type": "string", "enum": ["four_in_a_row", "fire_breather"]},
               "cards": {"type": "object", "properties": {
                   v: {"type": "integer", "minimum": 0, "maximum": DECK} for v in VALUES}}},
              ("cause", "cards"), {"type": "burned", "cause": "four_in_a_row", "cards": {"6": 4, "3": 2}},
              rule="cards"),
    EventType("went_out", "The player who played their last card: the round ends, they lose nothing (S2).",
              {"player": _PLAYER}, ("player",), {"type": "went_out", "player": "Ada"}, rule="S2"),
    EventType("coins", "Another player's coins on hand and available reserve (S2, capped at 10); with golden "
              "feathers the coins on the cards other than 8s, and the number of 8s (S3).",
              {"player": _PLAYER, "coins": {"type": "integer", "minimum": 0, "maximum": MAX_COINS},
               "eights": {"type": "integer", "minimum": 0, "maximum": MAX_COINS}},
              ("player", "coins"), {"type": "coins", "player": "Ben", "coins": 11}, rule="S2"),
)


def describe(event: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """A short description of an event for people, e.g. when it is undone."""
    kind = event.get("type")
    who = event.get("player")
    count = event.get("count") or 1
    if kind == "starter":
        return f"{who} starts round 1"
    if kind == "trick":
        return f"the trick {TRICKS.get(str(event.get('trick')), (event.get('trick'),))[0]} revealed"
    if kind == "hindrance":
        name = HINDRANCES.get(str(event.get("kind")), str(event.get("kind")))
        detail = (f" (hand {event.get('hand')})" if event.get("kind") == "invasion" else
                  f" ({event.get('face_up')} up, {event.get('face_down')} down)" if event.get("kind") == "unknown"
                  else "")
        return f"{who + ' drew ' if who else ''}the hindrance {name}{detail}"
    if kind == "next_turn":
        return "the turn passed"
    if kind == "four":
        return f"{count} × 4 played (+{2 * count} pending)"
    if kind == "skip":
        return f"{count} × 5 played ({count} to skip)"
    if kind == "defender":
        return f"{who + ' played ' if who else ''}a Defender"
    if kind == "reverse":
        return "the direction reversed"
    if kind == "draw":
        return f"{who or 'the player'} drew {count} from the trouble pile"
    if kind == "draw_pending":
        return f"{who} drew the pending cards" if who else "the pending cards drawn"
    if kind == "set_out":
        return f"four {VALUE_NAMES.get(str(event.get('value')), event.get('value'))} out of the game"
    if kind == "burned":
        cards = event.get("cards") or {}
        total = sum(v for v in cards.values() if isinstance(v, int)) if isinstance(cards, Mapping) else 0
        return f"the discard pile ({total} cards) burned"
    if kind == "went_out":
        return f"{who} went out"
    if kind == "coins":
        return f"{who}'s {event.get('coins')} coins"
    return str(kind)


def sample(state: DrachensachenState, rng: random.Random) -> dict[str, Any] | None:
    """One random legal event (random play in the tests): setup, tracker taps, then the round's result."""
    current = state.current
    if current is None:
        return None
    players = state.players
    feathers = golden_feathers(state)
    if current.finisher is not None:
        player = rng.choice([p for p, c in zip(players, current.coins, strict=True) if c is None])
        event: dict[str, Any] = {"type": "coins", "player": player, "coins": rng.randint(0, 16)}
        if feathers:
            event["eights"] = rng.randint(0, 3)
        return event
    candidates: list[dict[str, Any]] = []
    if current.turn is None:
        candidates.append({"type": "starter", "player": rng.choice(players)})
    if state.tricks_on:
        candidates.append({"type": "trick", "trick": rng.choice(list(TRICKS))})
    if current.holder is not None:
        kind = rng.choice(list(HINDRANCES))
        event = {"type": "hindrance", "kind": kind}
        if current.hindrances:
            event["player"] = rng.choice(players)
        if kind == "invasion":
            event["hand"] = rng.randint(1, 9)
        elif kind == "unknown":
            event.update(face_up=rng.randint(0, 4), face_down=rng.randint(1, 4))
        candidates.append(event)
    may_go = [players[s] for s in going_out(state, current)]
    if may_go and rng.random() < 0.1:
        return {"type": "went_out", "player": rng.choice(may_go)}
    candidates += [
        {"type": "next_turn"}, {"type": "next_turn"}, {"type": "four", "count": rng.randint(1, 2)},
        {"type": "skip", "count": rng.randint(1, 2)}, {"type": "defender"}, {"type": "reverse"},
        {"type": "draw", "count": rng.choice([1, 1, 2, 5])}, {"type": "draw_pending"},
        {"type": "set_out", "value": rng.choice(VALUES)},
        {"type": "burned", "cause": "four_in_a_row", "cards": {rng.choice(VALUES): 4}},
    ]
    rng.shuffle(candidates)
    for event in candidates:
        try:
            apply(state, event)
        except RuleError:
            continue
        return event
    return {"type": "went_out", "player": players[current.turn or 0]}  # a turn exists: its player may go out


GAME = Game(
    id=GAME_ID,
    name="Drachensachen",
    min_players=2,
    max_players=7,
    options=OPTIONS,
    event_types=EVENT_TYPES,
    setup=setup,
    apply=apply,
    view=view,
    rulings=("S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10", "S11"),
    describe=describe,
    sample=sample,
    rules_version=RULES,
    starter_at_table=True,  # ruling S5: the first round's starter is chosen at the table
)

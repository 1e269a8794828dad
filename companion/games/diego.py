"""Diego Drachenzahn: marbles, guesses, the secret token and the score track.

Rules: ../shared/rules/diego-drachenzahn.txt with rulings D1-D6. A round takes marble events (from a tap
or a break-beam gate), optionally a camera reading that confirms where the marbles rest, the reveal of the
token's gate, and one guess per non-active player: held face down before the reveal ("guess"), or, as the
table plays it, the symbol each player turns over after it ("turned"). It is scored once every guess is in.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from .base import EventType, Game, IllegalEventError, MalformedEventError, Option, listed, recorded_rules, require_int

GAME_ID = "diego-drachenzahn"
GATES = 6
MARBLES = 3
MAX_CAMERA_COUNT = 9
#: The rules version (``Game.rules_version``). 2: the token may be revealed before the guesses are in (quick
#: scoring). 3: confirming what the camera alone filled in keeps the camera as the marbles' source (``_confirm``); a
#: log recorded before folds with every confirmation entered by tap, as it was played.
RULES = 3

Gate = int | None  # 1..6, or None for a marble that missed every gate (ruling D4)
#: The icons a table picks the six gate symbols from (ruling D2); the page draws them.
SYMBOLS = ("sun", "moon", "star", "crown", "key", "flame", "gem", "tree", "bell", "cup", "shield", "drop")


@dataclass(frozen=True)
class Round:
    """One round: the active seat, what has been entered so far, and, once revealed, the result."""

    number: int
    active: int
    marbles: tuple[Gate, ...] = ()
    sources: tuple[str, ...] = ()
    guesses: tuple[int | None, ...] = ()
    marks: tuple[bool | None, ...] = ()  # "right"/"wrong" told after the reveal, without the symbol
    camera: tuple[int, ...] | None = None
    camera_outside: int = 0
    camera_unsure: tuple[int, ...] = ()  # the gates whose count the camera is unsure of (ruling D4)
    camera_misses: int = 0  # misses the camera's reading added after the marbles a beam or a tap entered (D4)
    flag: str | None = None
    confirmed: bool = False  # the marbles stand: the camera's reading agrees with them, or a person confirmed them
    # What a person confirmed of the camera's own reading (D4), the camera staying the marbles' source (D3): a later
    # reading may add to it, never take it back (``_camera``). None when no such confirmation was made this round.
    vouched: tuple[Gate, ...] | None = None
    token: int | None = None
    points: tuple[int, ...] | None = None


@dataclass(frozen=True)
class DiegoState:
    players: tuple[str, ...]
    gate_names: tuple[str, ...]
    gate_symbols: tuple[str, ...]
    total_rounds: int
    scores: tuple[int, ...]
    current: Round | None
    history: tuple[Round, ...] = ()
    face_down: bool = False  # the guesses are entered before the reveal and held face down (option face_down)
    rules: int = RULES  # the rules version the game is played under (a log recorded before folds by its own)

    @property
    def finished(self) -> bool:
        return self.current is None


OPTIONS = (
    Option("rounds_per_player", "Rounds per player", "int", 3, "Each player is active this many times.",
           minimum=1, maximum=6, ruling="D6"),
    Option("gate_names", "Gate names", "names", [f"Gate {g}" for g in range(1, GATES + 1)],
           "Display names of the six gate symbols, left to right as the active player sees the castle.",
           length=GATES, ruling="D2"),
    Option("gate_symbols", "Gate symbols", "symbols", list(SYMBOLS[:GATES]),
           "The symbol of each gate, left to right as the active player sees the castle.",
           length=GATES, ruling="D2", choices=SYMBOLS),
    Option("face_down", "Hold guesses face down", "bool", False,
           "Each player's guess is entered before the reveal and held face down until every guess is in, on every "
           "screen of the game; otherwise each player says after the reveal what they turned over.", ruling="D5"),
)


def setup(players: tuple[str, ...], options: Mapping[str, Any]) -> DiegoState:
    """A new game; the first player in seat order is the first active player (rulebook: How to Play)."""
    count = len(players)
    if not 2 <= count <= 4:
        raise IllegalEventError("D1", "Diego Drachenzahn is for 2 to 4 players")
    return DiegoState(
        players=tuple(players),
        gate_names=tuple(options["gate_names"]),
        gate_symbols=tuple(options.get("gate_symbols", SYMBOLS[:GATES])),
        total_rounds=options["rounds_per_player"] * count,
        scores=(0,) * count,
        current=_new_round(1, 0, count),
        face_down=bool(options.get("face_down", False)),
        rules=recorded_rules(options, RULES),
    )


def _new_round(number: int, active: int, count: int) -> Round:
    return Round(number=number, active=active, guesses=(None,) * count, marks=(None,) * count)


def apply(state: DiegoState, event: Mapping[str, Any]) -> DiegoState:
    """The state after `event`; raises a RuleError naming the rule and changes nothing when refused."""
    kind = event.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedEventError("events", f"unknown event type {kind!r} for Diego Drachenzahn")
    if state.current is None:
        raise IllegalEventError("D6", "the game is over: every player has been active "
                                f"{state.total_rounds // len(state.players)} times")
    if state.current.token is not None and kind in ("marble", "camera", "confirm", "reveal", "guess"):
        what = "enter what each player turned over" if kind == "guess" else "undo the reveal to change it"
        token = gate_name(state.current.token, state.gate_names)
        raise IllegalEventError("D5" if kind == "guess" else "D3",
                                f"the token of this round is revealed ({token}); {what}")
    return handler(state, state.current, event)


def _gate_or_miss(value: Any, rule: str) -> Gate:
    if value is None:
        return None
    return require_int({"gate": value}, "gate", 1, GATES, rule)


def gate_name(gate: int, names: Sequence[str] | None) -> str:
    """A gate as the table names it (ruling D2), in a sentence: its name among the session's `names` (the option
    gate_names), or "gate N" for a gate left at its default name "Gate N" (or with no names given)."""
    name = names[gate - 1] if names is not None and 0 < gate <= len(names) else None
    return f"gate {gate}" if name in (None, f"Gate {gate}") else str(name)


def _unsure_of(gates: tuple[int, ...], names: Sequence[str]) -> str:
    """The flag of the gates the camera is unsure of, by the table's names: "the camera is unsure of Moon and Star";
    at the default names "the camera is unsure of gates 2, 3"."""
    named = [gate_name(g, names) for g in gates]
    if named == [f"gate {g}" for g in gates]:
        return f"the camera is unsure of gate{'s' if len(gates) > 1 else ''} {', '.join(str(g) for g in gates)}"
    return f"the camera is unsure of {listed(named)}"


def _recorded(current: Round) -> str:
    """The marbles recorded, by what reported them (only the sensors report a fourth): "the sensors report 4
    marbles", or, where taps or the camera gave some, "4 marbles are recorded (3 by the sensors, 1 by tap)"."""
    count = len(current.marbles)
    kinds = {"sensor": "by the sensors", "tap": "by tap", "camera": "by the camera"}
    if set(current.sources) == {"sensor"}:
        return f"the sensors report {count} marbles"
    parts = [f"{current.sources.count(kind)} {words}" for kind, words in kinds.items() if kind in current.sources]
    return f"{count} marbles are recorded ({', '.join(parts)})"


def _fused(current: Round, names: Sequence[str]) -> Round:
    """Re-judge the round after its marbles or camera reading changed (rulings D3, D4); the flag names gates by the
    table's `names` (ruling D2), as the page does."""
    flag = None
    if len(current.marbles) > MARBLES:
        flag = f"{_recorded(current)}, more than {MARBLES}"
    elif current.camera is not None:
        seen = sum(current.camera) + current.camera_outside
        if seen > MARBLES:
            flag = f"the camera sees {seen} marbles, more than {MARBLES}"
        elif current.marbles and _gate_counts(current.marbles) != current.camera:
            entered = "the gates" if "sensor" in current.sources else "the marbles entered by tap"
            flag = f"the camera and {entered} disagree about where the marbles rest"
        elif (doubts := _doubts(current)) and all(s == "camera" for s in current.sources):
            # the camera alone filled in the round, and is unsure of a gate a person has not settled: a person taps,
            # nothing is scored; the flag names those gates only, as the page does (the view's "unsettled")
            flag = _unsure_of(doubts, names)
    confirmed = flag is None and current.camera is not None
    return replace(current, flag=flag, confirmed=confirmed)


def _doubts(current: Round) -> tuple[int, ...]:
    """The gates the camera is unsure of that a person has not settled: a gate whose count a person confirmed of
    an earlier reading (``Round.vouched``) is settled while the camera reads that count there still (the marble on
    the line between two gates stays there, the next one rests elsewhere); a gate whose count changed is not."""
    if current.vouched is None or current.camera is None:
        return current.camera_unsure
    held = _gate_counts(current.vouched)
    return tuple(g for g in current.camera_unsure if current.camera[g - 1] != held[g - 1])


def _gate_counts(marbles: tuple[Gate, ...]) -> tuple[int, ...]:
    counter = Counter(g for g in marbles if g is not None)
    return tuple(counter.get(g, 0) for g in range(1, GATES + 1))


def _marble(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    if "gate" not in event:
        raise MalformedEventError("D2", "a marble needs a 'gate': 1 to 6, or null for a miss")
    gate = _gate_or_miss(event["gate"], "D2")
    source = event.get("source", "tap")
    # A marble rolled after the confirmation photo needs a new one: drop the old camera reading, and the misses
    # it added to marbles a beam or a tap entered (``_camera``).
    marbles, sources = _entered(current)
    if len(marbles) >= MARBLES and source != "sensor":
        raise IllegalEventError("D4", f"all {MARBLES} marbles of this round are already entered; "
                                "undo one or confirm the reading to correct it")
    updated = replace(current, marbles=marbles + (gate,), sources=sources + (str(source),),
                      camera=None, camera_outside=0, camera_unsure=(), camera_misses=0)
    return replace(state, current=_fused(updated, state.gate_names))


def _guess(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    seat = _seat(state, event.get("player"))
    gate = require_int(event, "gate", 1, GATES, "D5")
    if seat == current.active:
        raise IllegalEventError("D5", f"{state.players[seat]} is the active player and does not guess")
    if current.guesses[seat] is not None:
        raise IllegalEventError("D5", f"{state.players[seat]} has already guessed this round")
    guesses = current.guesses[:seat] + (gate,) + current.guesses[seat + 1:]
    return replace(state, current=replace(current, guesses=guesses))


def _camera(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    counts = event.get("counts")
    if not isinstance(counts, (list, tuple)) or len(counts) != GATES:
        raise MalformedEventError("D3", f"'counts' must list {GATES} numbers, gate 1 first")
    checked = tuple(require_int({"count": c}, "count", 0, MAX_CAMERA_COUNT, "D3") for c in counts)
    outside = require_int({"outside": event.get("outside", 0)}, "outside", 0, MAX_CAMERA_COUNT, "D4")
    unsure = tuple(g for g, doubt in enumerate(event.get("unsure") or (), start=1) if doubt)
    updated = replace(current, camera=checked, camera_outside=outside, camera_unsure=unsure)
    seen = tuple(g for g in range(1, GATES + 1) for _ in range(checked[g - 1]))
    vouched = current.vouched or ()
    if all(s == "camera" for s in current.sources) and sum(checked) <= MARBLES and _takes_back(vouched, seen):
        # The camera alone filled in the round and a person confirmed its reading; this reading takes back a marble
        # they confirmed (ruling D4: not overturned silently): their confirmation stands as entered by tap, and the
        # camera disagreeing with it flags the round (``_fused``) until a person taps again.
        updated = replace(updated, marbles=vouched, sources=("tap",) * len(vouched), camera_misses=0, vouched=None)
    elif all(s == "camera" for s in current.sources) and sum(checked) <= MARBLES:
        # No beam or tap entered a marble: the camera alone fills in the round (ruling D3); a later
        # reading, once another marble rests, replaces what the camera filled in before. The misses a person
        # confirmed of an earlier reading stay, though the camera may see them no longer (``Round.vouched``).
        misses = min(max(outside, vouched.count(None)), MARBLES - len(seen))
        updated = replace(updated, marbles=seen + (None,) * misses,
                          sources=("camera",) * (len(seen) + misses), camera_misses=0)
    else:
        # The beams or taps agreeing with the camera on every gate, a marble the camera sees outside them is a miss
        # the beams cannot see (ruling D4): it fills the round's missing marbles, in place of an earlier reading's.
        marbles, sources = _entered(current)
        agree = _gate_counts(marbles) == checked
        misses = max(0, min(outside - marbles.count(None), MARBLES - len(marbles))) if agree else 0
        updated = replace(updated, marbles=marbles + (None,) * misses, sources=sources + ("camera",) * misses,
                          camera_misses=misses)
    return replace(state, current=_fused(updated, state.gate_names))


def _takes_back(vouched: tuple[Gate, ...], seen: tuple[int, ...]) -> bool:
    """Whether a camera reading that sees `seen` in the gates takes back what a person confirmed of an earlier
    reading: fewer marbles in a gate than confirmed there, or no room left for the misses confirmed (ruling D4)."""
    read, held = _gate_counts(seen), _gate_counts(vouched)
    return any(r < h for r, h in zip(read, held)) or len(seen) + vouched.count(None) > MARBLES


def _entered(current: Round) -> tuple[tuple[Gate, ...], tuple[str, ...]]:
    """The round's marbles and their sources, less the misses a camera reading added (``Round.camera_misses``)."""
    kept = len(current.marbles) - current.camera_misses
    return current.marbles[:kept], current.sources[:kept]


def _confirm(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    raw = event.get("marbles")
    if not isinstance(raw, (list, tuple)) or len(raw) > MARBLES:
        raise MalformedEventError("D4", f"'marbles' must list at most {MARBLES} gates (null for a miss)")
    marbles = tuple(_gate_or_miss(g, "D4") for g in raw)
    if state.rules >= 3 and _camera_own(current, marbles):
        # "Camera is right" where the camera alone filled in the round (ruling D3): the marbles stay the camera's,
        # so the next reading, once another marble rests, goes on filling in the round; what the person confirmed
        # is kept, for no later reading to take it back silently (ruling D4).
        updated = replace(current, marbles=marbles, sources=("camera",) * len(marbles), vouched=marbles)
    else:  # a correction (or beams or taps confirmed): the marbles are the person's, entered by tap
        updated = replace(current, marbles=marbles, sources=("tap",) * len(marbles), vouched=None)
    return replace(state, current=replace(updated, flag=None, confirmed=True, camera_misses=0))


def _camera_own(current: Round, marbles: tuple[Gate, ...]) -> bool:
    """Whether confirmed `marbles` are the camera's own: the camera alone filled in the round, and they are the
    marbles it filled in, in any order, save misses left out (the page lists the camera's gates only)."""
    return (current.camera is not None and all(s == "camera" for s in current.sources)
            and _gate_counts(marbles) == _gate_counts(current.marbles) == current.camera
            and marbles.count(None) <= current.marbles.count(None))


def _reveal(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    token = require_int(event, "gate", 1, GATES, "D3")
    if current.flag is not None:
        raise IllegalEventError("D4", f"the round is flagged ({current.flag}); confirm the marbles first")
    waiting = _waiting(state, current)
    if state.face_down and waiting:
        raise IllegalEventError("D5", f"this game holds the guesses face down: waiting for {listed(waiting)} "
                                "before the token is revealed")
    # Marbles not entered count as misses: beams cannot see a miss, and a miss scores nothing anyway.
    return _score_if_complete(state, replace(current, token=token))


def _turned(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    """After the reveal: the symbol a player turned over, or only whether it was right (ruling D5)."""
    seat = _seat(state, event.get("player"))
    if current.token is None:
        raise IllegalEventError("D5", "the token is not revealed yet; a guess before the reveal stays face down")
    if seat == current.active:
        raise IllegalEventError("D5", f"{state.players[seat]} is the active player and does not guess")
    if current.guesses[seat] is not None or current.marks[seat] is not None:
        raise IllegalEventError("D5", f"{state.players[seat]} has already guessed this round")
    has_gate, has_mark = event.get("gate") is not None, event.get("correct") is not None
    if has_gate == has_mark:
        raise MalformedEventError("D5", "say either the 'gate' turned over or whether it was 'correct'")
    if has_gate:
        gate = require_int(event, "gate", 1, GATES, "D5")
        updated = replace(current, guesses=_at(current.guesses, seat, gate))
    else:
        if not isinstance(event["correct"], bool):
            raise MalformedEventError("D5", "'correct' must be true or false")
        updated = replace(current, marks=_at(current.marks, seat, event["correct"]))
    return _score_if_complete(state, updated)


def _at(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return values[:seat] + (value,) + values[seat + 1:]


def _waiting(state: DiegoState, current: Round) -> list[str]:
    return [state.players[s] for s in range(len(state.players))
            if s != current.active and current.guesses[s] is None and current.marks[s] is None]


def _score_if_complete(state: DiegoState, current: Round) -> DiegoState:
    """Score the revealed round once every non-active player's guess is in (rulings D3, D5, D6)."""
    token = current.token
    if token is None or _waiting(state, current):
        return replace(state, current=current)
    points = tuple(
        sum(1 for g in current.marbles if g == token) if seat == current.active
        else int(current.guesses[seat] == token or current.marks[seat] is True)
        for seat in range(len(state.players))
    )
    done = replace(current, points=points)
    scores = tuple(a + b for a, b in zip(state.scores, points))
    count = len(state.players)
    following = None
    if current.number < state.total_rounds:
        following = _new_round(current.number + 1, (current.active + 1) % count, count)
    return replace(state, scores=scores, current=following, history=state.history + (done,))


def _seat(state: DiegoState, player: Any) -> int:
    if not isinstance(player, str) or player not in state.players:
        raise MalformedEventError("D5", f"'player' must be one of {', '.join(state.players)}")
    return state.players.index(player)


_HANDLERS = {"marble": _marble, "guess": _guess, "camera": _camera, "confirm": _confirm, "reveal": _reveal,
             "turned": _turned}


def view(state: DiegoState) -> dict[str, Any]:
    """What the page and the API show. Guesses stay hidden until the reveal (rulebook: face down)."""
    players = state.players
    scores = {p: s for p, s in zip(players, state.scores)}
    winners: list[str] = []
    if state.finished:
        best = max(state.scores)
        winners = [p for p, s in zip(players, state.scores) if s == best]  # ruling D6: ties share
    current = state.current
    data: dict[str, Any] = {
        "finished": state.finished,
        "winners": winners,
        "round": current.number if current else state.total_rounds,
        "turn": players[current.active] if current else None,
        "breakdown": [{"round": r.number, "label": f"Round {r.number} · {players[r.active]}",
                       "points": dict(zip(players, r.points or ()))} for r in state.history],
        "total_rounds": state.total_rounds,
        "scores": scores,
        "gate_names": list(state.gate_names),
        "gate_symbols": list(state.gate_symbols),
        "face_down": state.face_down,
        "history": [_round_json(state, r) for r in state.history],
        "last_round": _round_json(state, state.history[-1]) if state.history else None,
    }
    if current is None:
        data.update(active=None, phase="finished", expects=[], current=None)
        return data
    waiting = _waiting(state, current)
    revealed = current.token is not None
    if revealed:
        phase, expects = "turn-over", ["turned"]
    else:
        if current.flag:
            phase = "flagged"
        elif len(current.marbles) < MARBLES:
            phase = "marbles"
        elif waiting:
            phase = "guesses"
        else:
            phase = "reveal"
        # what a writer at the table may send now: not the camera's reading, which only the camera makes (D3)
        expects = ["marble", "confirm"] + (["guess"] if waiting else [])
        if not current.flag and not (state.face_down and waiting):
            expects.append("reveal")
    others = [(s, p) for s, p in enumerate(players) if s != current.active]
    data.update(
        active=players[current.active],
        phase=phase,
        expects=expects,
        current={
            "number": current.number,
            "active": players[current.active],
            "marbles": list(current.marbles),
            "sources": list(current.sources),
            "guessed": {p: current.guesses[s] is not None or current.marks[s] is not None for s, p in others},
            "guesses": {p: _shown_guess(current, s) for s, p in others} if revealed else None,
            "token": current.token,
            "waiting_for_guesses": waiting,
            # "unsure": every gate the camera is unsure of; "unsettled": those of them a person has still to check,
            # which the flag names and the page asks a tap for (a gate whose count a person confirmed, read the
            # same again, is settled: ``_doubts``, ruling D4)
            "camera": None if current.camera is None
            else {"counts": list(current.camera), "outside": current.camera_outside,
                  "unsure": list(current.camera_unsure), "unsettled": list(_doubts(current))},
            "flag": current.flag,
            "confirmed": current.confirmed,
        },
    )
    return data


def _shown_guess(r: Round, seat: int) -> int | bool | None:
    """The symbol a player guessed, or only whether it was right when that is all the table said."""
    return r.guesses[seat] if r.guesses[seat] is not None else r.marks[seat]


def _round_json(state: DiegoState, r: Round) -> dict[str, Any]:
    players = state.players
    return {
        "number": r.number,
        "active": players[r.active],
        "marbles": list(r.marbles),
        "token": r.token,
        "guesses": {p: _shown_guess(r, s) for s, p in enumerate(players) if s != r.active},
        "points": {p: pts for p, pts in zip(players, r.points or ())},
    }


def redact(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log listing with the guesses of the unrevealed round face down (rulebook: cards face down)."""
    reveals = [i for i, e in enumerate(events) if e["type"] == "reveal" and e["status"] == "live"]
    last_reveal = reveals[-1] if reveals else -1
    return [
        {**e, "payload": {**e["payload"], "gate": None}, "hidden": True}
        if e["type"] == "guess" and i > last_reveal else e
        for i, e in enumerate(events)
    ]


_GATE = {"type": "integer", "minimum": 1, "maximum": GATES}
EVENT_TYPES = (
    EventType("marble", "A marble went into a gate (gate 1-6) or missed every gate (gate null). "
              "Taps allow at most 3 per round; more from the sensors flag the round (D4).",
              {"gate": {**_GATE, "nullable": True}}, ("gate",), {"type": "marble", "gate": 3}, rule="D2"),
    EventType("guess", "A non-active player's guess of the token's gate (D5).",
              {"player": {"type": "string", "maxLength": 24}, "gate": _GATE}, ("player", "gate"),
              {"type": "guess", "player": "Ada", "gate": 3}, rule="D5"),
    EventType("camera", "Where the camera sees the marbles rest: counts per gate, gate 1 first, and outside "
              "every gate, and per gate whether the camera is unsure of its count. Confirms or flags the beams "
              "(D3, D4); alone, it fills in the round, flagged for a tap where it is unsure (D4).",
              {"counts": {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                     "maximum": MAX_CAMERA_COUNT},
                          "minItems": GATES, "maxItems": GATES},
               "outside": {"type": "integer", "minimum": 0, "maximum": MAX_CAMERA_COUNT},
               "unsure": {"type": "array", "items": {"type": "boolean"}, "minItems": GATES, "maxItems": GATES}},
              ("counts",), {"type": "camera", "counts": [0, 0, 2, 0, 0, 0], "outside": 1}, rule="D3",
              # the camera's reading decides where the marbles rest (D3, D4): only the table's camera makes one (or
              # a log imported); a person enters the marbles by tap, or confirms the camera's reading
              sources=("camera", "import"),
              refusal="camera readings come from the table's camera; tap the marbles instead, or confirm the "
                      "camera's reading"),
    EventType("confirm", "A person confirms or corrects the round's marbles by tap (D4). Confirming what the camera "
              "alone filled in keeps the camera as their source: later readings go on filling in the round, and "
              "one that takes back a confirmed marble flags it (D3, D4).",
              {"marbles": {"type": "array", "maxItems": MARBLES, "items": {**_GATE, "nullable": True}}},
              ("marbles",), {"type": "confirm", "marbles": [3, 3, None]}, rule="D4"),
    EventType("reveal", "The active player reveals the token's gate; the round is scored once every guess is "
              "in (D3, D5, D6).",
              {"gate": _GATE}, ("gate",), {"type": "reveal", "gate": 3}, rule="D3"),
    EventType("turned", "After the reveal: the symbol a player turned over (gate), or only whether it was "
              "right (correct); one of the two (D5).",
              {"player": {"type": "string", "maxLength": 24}, "gate": {**_GATE, "nullable": True},
               "correct": {"type": "boolean", "nullable": True}}, ("player",),
              {"type": "turned", "player": "Ada", "gate": 3}, rule="D5"),
)


def describe(event: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """A short description of an event for people, e.g. when it is undone: gates by the table's own names (ruling
    D2), as the page shows them."""
    gate = event.get("gate")
    names = (options or {}).get("gate_names")
    where = gate_name(gate, names if isinstance(names, list) else None) if isinstance(gate, int) else (
        "no gate" if gate is None else f"gate {gate}")
    kind = event.get("type")
    if kind == "marble":
        return f"marble in {where}" if gate is not None else "marble that missed every gate"
    if kind == "guess":
        return f"{event.get('player')}'s face-down guess"
    if kind == "turned":
        told = where if gate is not None else ("right" if event.get("correct") else "wrong")
        return f"what {event.get('player')} turned over ({told})"  # as the page asks: "Who turned over what?"
    if kind == "reveal":
        return f"the reveal of the token ({where})"
    if kind == "camera":
        return "the camera's reading"
    if kind == "confirm":
        return "the confirmed marbles"
    return str(kind)


def sample(state: DiegoState, rng: random.Random) -> dict[str, Any] | None:
    """One random legal event (random play in the tests): marbles, guesses either way, the reveal."""
    current = state.current
    if current is None:
        return None
    waiting = _waiting(state, current)
    if current.token is not None:
        player = rng.choice(waiting)
        if rng.random() < 0.5:
            return {"type": "turned", "player": player, "gate": rng.randint(1, GATES)}
        return {"type": "turned", "player": player, "correct": rng.random() < 0.4}
    if current.flag is not None:
        return {"type": "confirm", "marbles": [rng.choice([None, *range(1, GATES + 1)])
                                               for _ in range(rng.randint(0, MARBLES))]}
    choices = [] if state.face_down and waiting else ["reveal"]
    if len(current.marbles) < MARBLES:
        choices += ["marble"] * 3
    if waiting:
        choices += ["guess"]
    kind = rng.choice(choices)
    if kind == "marble":
        return {"type": "marble", "gate": rng.choice([None, *range(1, GATES + 1)])}
    if kind == "guess":
        return {"type": "guess", "player": rng.choice(waiting), "gate": rng.randint(1, GATES)}
    return {"type": "reveal", "gate": rng.randint(1, GATES)}

GAME = Game(
    id=GAME_ID,
    name="Diego Drachenzahn",
    min_players=2,
    max_players=4,
    options=OPTIONS,
    event_types=EVENT_TYPES,
    setup=setup,
    apply=apply,
    view=view,
    rulings=("D1", "D2", "D3", "D4", "D5", "D6"),
    redact=redact,
    describe=describe,
    sample=sample,
    rules_version=RULES,
)

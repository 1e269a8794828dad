"""Diego Drachenzahn: marbles, guesses, the secret token and the score track.

Rules: ../shared/rules/diego-drachenzahn.txt with rulings D1-D6. A round takes marble events (from a tap
or a break-beam gate), one guess per non-active player, optionally a camera reading that confirms where
the marbles rest, and ends with the reveal of the token's gate.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping

from .base import EventType, Game, IllegalEventError, MalformedEventError, Option, require_int

GAME_ID = "diego-drachenzahn"
GATES = 6
MARBLES = 3
MAX_CAMERA_COUNT = 9

Gate = int | None  # 1..6, or None for a marble that missed every gate (ruling D4)


@dataclass(frozen=True)
class Round:
    """One round: the active seat, what has been entered so far, and, once revealed, the result."""

    number: int
    active: int
    marbles: tuple[Gate, ...] = ()
    sources: tuple[str, ...] = ()
    guesses: tuple[int | None, ...] = ()
    camera: tuple[int, ...] | None = None
    camera_outside: int = 0
    flag: str | None = None
    confirmed: bool = False
    token: int | None = None
    points: tuple[int, ...] | None = None


@dataclass(frozen=True)
class DiegoState:
    players: tuple[str, ...]
    gate_names: tuple[str, ...]
    total_rounds: int
    scores: tuple[int, ...]
    current: Round | None
    history: tuple[Round, ...] = ()

    @property
    def finished(self) -> bool:
        return self.current is None


OPTIONS = (
    Option("rounds_per_player", "Rounds per player", "int", 3, "Each player is active this many times.",
           minimum=1, maximum=6, ruling="D6"),
    Option("gate_names", "Gate names", "names", [f"Gate {g}" for g in range(1, GATES + 1)],
           "Display names of the six gate symbols, left to right as the active player sees the castle.",
           length=GATES, ruling="D2"),
)


def setup(players: tuple[str, ...], options: Mapping[str, Any]) -> DiegoState:
    """A new game; the first player in seat order is the first active player (rulebook: How to Play)."""
    count = len(players)
    if not 2 <= count <= 4:
        raise IllegalEventError("D1", "Diego Drachenzahn is for 2 to 4 players")
    return DiegoState(
        players=tuple(players),
        gate_names=tuple(options["gate_names"]),
        total_rounds=options["rounds_per_player"] * count,
        scores=(0,) * count,
        current=_new_round(1, 0, count),
    )


def _new_round(number: int, active: int, count: int) -> Round:
    return Round(number=number, active=active, guesses=(None,) * count)


def apply(state: DiegoState, event: Mapping[str, Any]) -> DiegoState:
    """The state after `event`; raises a RuleError naming the rule and changes nothing when refused."""
    kind = event.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedEventError("events", f"unknown event type {kind!r} for Diego Drachenzahn")
    if state.current is None:
        raise IllegalEventError("D6", "the game is over: every player has been active "
                                f"{state.total_rounds // len(state.players)} times")
    return handler(state, state.current, event)


def _gate_or_miss(value: Any, rule: str) -> Gate:
    if value is None:
        return None
    return require_int({"gate": value}, "gate", 1, GATES, rule)


def _fused(current: Round) -> Round:
    """Re-judge the round after its marbles or camera reading changed (rulings D3, D4)."""
    flag = None
    if len(current.marbles) > MARBLES:
        flag = f"the sensors report {len(current.marbles)} marbles, more than {MARBLES}"
    elif current.camera is not None:
        seen = sum(current.camera) + current.camera_outside
        if seen > MARBLES:
            flag = f"the camera sees {seen} marbles, more than {MARBLES}"
        elif current.marbles and _gate_counts(current.marbles) != current.camera:
            flag = "the camera and the gates disagree about where the marbles rest"
    confirmed = flag is None and current.camera is not None
    return replace(current, flag=flag, confirmed=confirmed)


def _gate_counts(marbles: tuple[Gate, ...]) -> tuple[int, ...]:
    counter = Counter(g for g in marbles if g is not None)
    return tuple(counter.get(g, 0) for g in range(1, GATES + 1))


def _marble(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    if "gate" not in event:
        raise MalformedEventError("D2", "a marble needs a 'gate': 1 to 6, or null for a miss")
    gate = _gate_or_miss(event["gate"], "D2")
    source = event.get("source", "tap")
    if len(current.marbles) >= MARBLES and source != "sensor":
        raise IllegalEventError("D4", f"all {MARBLES} marbles of this round are already entered; "
                                "undo one or confirm the reading to correct it")
    # A marble rolled after the confirmation photo needs a new one: drop the old camera reading.
    updated = replace(current, marbles=current.marbles + (gate,), sources=current.sources + (str(source),),
                      camera=None, camera_outside=0)
    return replace(state, current=_fused(updated))


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
    updated = replace(current, camera=checked, camera_outside=outside)
    if all(s == "camera" for s in current.sources) and sum(checked) <= MARBLES:
        # No beam or tap entered a marble: the camera alone fills in the round (ruling D3); a later
        # reading, once another marble rests, replaces what the camera filled in before.
        marbles = tuple(g for g in range(1, GATES + 1) for _ in range(checked[g - 1]))
        misses = min(outside, MARBLES - len(marbles))
        updated = replace(updated, marbles=marbles + (None,) * misses,
                          sources=("camera",) * (len(marbles) + misses))
    return replace(state, current=_fused(updated))


def _confirm(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    raw = event.get("marbles")
    if not isinstance(raw, (list, tuple)) or len(raw) > MARBLES:
        raise MalformedEventError("D4", f"'marbles' must list at most {MARBLES} gates (null for a miss)")
    marbles = tuple(_gate_or_miss(g, "D4") for g in raw)
    updated = replace(current, marbles=marbles, sources=("tap",) * len(marbles), flag=None, confirmed=True)
    return replace(state, current=updated)


def _reveal(state: DiegoState, current: Round, event: Mapping[str, Any]) -> DiegoState:
    token = require_int(event, "gate", 1, GATES, "D3")
    if current.flag is not None:
        raise IllegalEventError("D4", f"the round is flagged ({current.flag}); confirm the marbles first")
    # Marbles not entered count as misses: beams cannot see a miss, and a miss scores nothing anyway.
    waiting = [state.players[s] for s, g in enumerate(current.guesses) if g is None and s != current.active]
    if waiting:
        raise IllegalEventError("D5", "every other player guesses before the reveal; waiting for "
                                + ", ".join(waiting))
    points = tuple(
        sum(1 for g in current.marbles if g == token) if seat == current.active
        else int(current.guesses[seat] == token)
        for seat in range(len(state.players))
    )
    done = replace(current, token=token, points=points)
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


_HANDLERS = {"marble": _marble, "guess": _guess, "camera": _camera, "confirm": _confirm, "reveal": _reveal}


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
        "total_rounds": state.total_rounds,
        "scores": scores,
        "gate_names": list(state.gate_names),
        "history": [_round_json(state, r) for r in state.history],
        "last_round": _round_json(state, state.history[-1]) if state.history else None,
    }
    if current is None:
        data.update(active=None, phase="finished", expects=[], current=None)
        return data
    waiting = [players[s] for s, g in enumerate(current.guesses) if g is None and s != current.active]
    if current.flag:
        phase = "flagged"
    elif len(current.marbles) < MARBLES:
        phase = "marbles"
    elif waiting:
        phase = "guesses"
    else:
        phase = "reveal"
    expects = ["marble", "camera", "confirm"] + (["guess"] if waiting else [])
    if not waiting and not current.flag:
        expects.append("reveal")
    data.update(
        active=players[current.active],
        phase=phase,
        expects=expects,
        current={
            "number": current.number,
            "active": players[current.active],
            "marbles": list(current.marbles),
            "sources": list(current.sources),
            "guessed": {p: current.guesses[s] is not None for s, p in enumerate(players) if s != current.active},
            "waiting_for_guesses": waiting,
            "camera": None if current.camera is None
            else {"counts": list(current.camera), "outside": current.camera_outside},
            "flag": current.flag,
            "confirmed": current.confirmed,
        },
    )
    return data


def _round_json(state: DiegoState, r: Round) -> dict[str, Any]:
    players = state.players
    return {
        "number": r.number,
        "active": players[r.active],
        "marbles": list(r.marbles),
        "token": r.token,
        "guesses": {p: r.guesses[s] for s, p in enumerate(players) if s != r.active},
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
              {"gate": {**_GATE, "nullable": True}}, ("gate",), {"type": "marble", "gate": 3}),
    EventType("guess", "A non-active player's guess of the token's gate (D5).",
              {"player": {"type": "string"}, "gate": _GATE}, ("player", "gate"),
              {"type": "guess", "player": "Ada", "gate": 3}),
    EventType("camera", "Where the camera sees the marbles rest: counts per gate, gate 1 first, and outside "
              "every gate. Confirms or flags the beams (D3, D4); alone, it fills in the round.",
              {"counts": {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                     "maximum": MAX_CAMERA_COUNT},
                          "minItems": GATES, "maxItems": GATES},
               "outside": {"type": "integer", "minimum": 0, "maximum": MAX_CAMERA_COUNT}},
              ("counts",), {"type": "camera", "counts": [0, 0, 2, 0, 0, 0], "outside": 1}),
    EventType("confirm", "A person confirms or corrects the round's marbles by tap (D4).",
              {"marbles": {"type": "array", "maxItems": MARBLES, "items": {**_GATE, "nullable": True}}},
              ("marbles",), {"type": "confirm", "marbles": [3, 3, None]}),
    EventType("reveal", "The active player reveals the token's gate; the round is scored (D3, D5, D6).",
              {"gate": _GATE}, ("gate",), {"type": "reveal", "gate": 3}),
)

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
)

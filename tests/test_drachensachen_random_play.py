"""Random play: hundreds of seeded Drachensachen games of random legal and illegal round results and tracker taps.

A small independent model of rulings S2-S11 predicts whether each event is accepted (and which rule a refusal
names) and what the trackers, the losses and the totals become; the engine must agree after every step, and
invariants hold throughout: totals are the sums of the round losses, the trouble pile never goes below 0, the
game ends exactly when S4 says. Replaying the accepted events gives an equal state.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.drachensachen import TRICKS, VALUES, DrachensachenState

GAME = GAMES["drachensachen"]
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus")
Violation = tuple[type[RuleError], str]
ILLEGAL, MALFORMED = IllegalEventError, MalformedEventError


def whole(value: Any, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


@dataclass
class Model:
    """What rulings S2-S11 say, kept independently of the engine."""

    players: tuple[str, ...]
    tricks_on: bool
    hindrances_on: bool
    totals: list[int] = field(default_factory=list)
    rounds: list[list[int]] = field(default_factory=list)  # losses per round, seat order
    revealed: list[str] = field(default_factory=list)
    finished: bool = False
    number: int = 1
    starter: int | None = None
    holder: int | None = None
    # the round
    trick: str | None = None
    cards: dict[int, int | None] = field(default_factory=dict)  # seat -> dealt cards; holder's Chaos: None
    chaos: bool = False
    busy: bool = False
    turn: int | None = None
    step: int = 1
    again: bool = False  # the carousel, of two players: the mover takes a second turn
    pending: int = 0
    passer: int | None = None
    skips: int = 0
    defenders: list[int] = field(default_factory=list)
    start: int = 18
    due: int = 0
    drawn: int = 0
    out: int = 0
    finisher: int | None = None
    coins: dict[int, tuple[int, int]] = field(default_factory=dict)
    extra: bool = False

    def __post_init__(self) -> None:
        self.totals = [0] * len(self.players)

    @property
    def n(self) -> int:
        return len(self.players)

    def seat_of(self, name: Any) -> int | None:
        return self.players.index(name) if isinstance(name, str) and name in self.players else None

    def facing(self) -> bool:
        return self.pending > 0 and self.passer != self.turn

    def affected(self) -> list[int]:
        assert self.turn is not None
        span = [(self.turn + self.step * k) % self.n for k in range(1, self.skips + len(self.defenders) + 1)]
        return [s for s in span if s not in self.defenders]

    def pile_start(self) -> int:
        if not self.chaos:
            return 18
        return max(0, 96 - sum(self.cards.get(s) or 11 for s in range(self.n)))

    def violations(self, e: dict[str, Any]) -> list[Violation]:
        kind = e["type"]
        if self.finished:
            return [(ILLEGAL, "S4")]
        over = self.finisher is not None
        if kind == "coins":
            found: list[Violation] = []
            seat = self.seat_of(e.get("player"))
            if seat is None:
                found.append((MALFORMED, "S2"))
            if not whole(e.get("coins"), 0, 99):
                found.append((MALFORMED, "S2"))
            if not whole(e.get("eights", 0), 0, 99):
                found.append((MALFORMED, "S3"))
            if found:
                return found
            if not over or seat == self.finisher or seat in self.coins:
                return [(ILLEGAL, "S2")]
            if e.get("eights", 0) and "golden_feathers" not in self.revealed:
                return [(ILLEGAL, "S3")]
            return []
        if kind == "went_out":
            if self.seat_of(e.get("player")) is None:
                return [(MALFORMED, "S2")]
            return [(ILLEGAL, "S2")] if over else [(ILLEGAL, "S5")] if self.turn is None else \
                self.owed() or self.not_going_out(self.seat_of(e.get("player")))
        if kind == "starter":
            if self.seat_of(e.get("player")) is None:
                return [(MALFORMED, "S5")]
            if self.number != 1 or self.starter is not None:
                return [(ILLEGAL, "S5")]
            return [(ILLEGAL, "S2")] if over else []
        if kind == "trick":
            if e.get("trick") not in TRICKS:
                return [(MALFORMED, "S9")]
            if not self.tricks_on or len(self.revealed) == 7 or e["trick"] in self.revealed or self.trick:
                return [(ILLEGAL, "S9")]
            return [(ILLEGAL, "S2")] if over else [(ILLEGAL, "S9")] if self.busy else []
        if kind == "hindrance":
            return self.hindrance_violations(e, over)
        return self.tracker_violations(e, over) or self.owed()

    def not_going_out(self, seat: int | None) -> list[Violation]:
        """Once the round's turns are tracked, only the player whose turn it is goes out, or a player a skip that
        may still be passed on skips (a Defender as the last card, S8)."""
        if not self.busy or seat == self.turn:
            return []
        skipped = bool(self.skips) and seat in self.affected()
        if skipped and self.skips + len(self.defenders) < self.n:
            return []
        return [(ILLEGAL, "S8" if skipped else "turns")]

    def owed(self) -> list[Violation]:
        """What setting up the round still owes before play: its trick (S9), the holder's hindrance (S10) and under
        Chaos every player's, while fewer than 7 cards are drawn."""
        if self.busy:
            return []
        if self.tricks_on and self.trick is None and len(self.revealed) < 7:
            return [(ILLEGAL, "S9")]
        if self.holder is not None and not self.cards:
            return [(ILLEGAL, "S10")]
        drew = [s for s, dealt in self.cards.items() if dealt is not None]
        if self.chaos and len(drew) < 6 and len(drew) < self.n:
            return [(ILLEGAL, "S10")]
        return []

    def tracker_violations(self, e: dict[str, Any], over: bool) -> list[Violation]:
        """A tracker tap's violations but what the setup owes: the numbers first, then whether the round may be
        tracked."""
        kind = e["type"]
        if kind == "draw" and not whole(e.get("count", 1), 1, 20):
            return [(MALFORMED, "S6")]
        if kind in ("four", "skip") and not whole(e.get("count", 1), 1, 3):
            return [(MALFORMED, "S7" if kind == "four" else "S8")]
        if kind == "set_out" and e.get("value") not in VALUES:
            return [(MALFORMED, "cards")]
        if kind == "burned":
            cards = e.get("cards")
            if e.get("cause") not in ("four_in_a_row", "fire_breather") or not isinstance(cards, dict) \
                    or not cards or any(v not in VALUES or not whole(n, 0, 96) for v, n in cards.items()) \
                    or not sum(cards.values()):
                return [(MALFORMED, "cards")]
            if (max(cards.values()) < 4 if e["cause"] == "four_in_a_row" else not cards.get("fire_breather")):
                return [(ILLEGAL, "cards")]
        if over:
            return [(ILLEGAL, "S2")]
        if self.turn is None:
            return [(ILLEGAL, "S5")]
        if kind == "draw":
            who = e.get("player")
            if who is not None and self.seat_of(who) is None:
                return [(MALFORMED, "S6")]
            mine = who is None or self.seat_of(who) == self.turn
            if mine and self.facing():
                return [(ILLEGAL, "S7")]
            if "goblins_against_dragons" not in self.revealed:  # no other rule draws from the pile
                return [(ILLEGAL, "S6")]
            return [(ILLEGAL, "S11")] if self.again else []
        if kind == "four":
            return [(ILLEGAL, "S11")] if self.again else []  # two players: the second turn begins with next_turn
        if kind == "skip":
            if self.facing():
                return [(ILLEGAL, "S7")]
            return [(ILLEGAL, "S11")] if self.again else [(ILLEGAL, "S8")] if self.skips else []
        if kind == "next_turn":
            return [(ILLEGAL, "S7")] if self.facing() else []
        if kind == "draw_pending":
            return [] if self.facing() else [(ILLEGAL, "S7")]
        if kind == "reverse":
            if self.facing():
                return [(ILLEGAL, "S7")]
            return [] if "carousel" in self.revealed and not self.again else [(ILLEGAL, "S11")]
        if kind == "defender":
            who = e.get("player")
            seat = self.seat_of(who)
            if who is not None and seat is None:
                return [(MALFORMED, "S8")]
            if self.again:
                return [(ILLEGAL, "S11")]
            if self.facing():
                return [] if seat in (None, self.turn) else [(ILLEGAL, "S7")]
            if self.skips:
                full = self.skips + len(self.defenders) >= self.n or not self.affected()
                return [] if not full and (seat is None or seat in self.affected()) else [(ILLEGAL, "S8")]
            return [(ILLEGAL, "S7")]
        if kind == "set_out":
            if self.facing():
                return [(ILLEGAL, "S7")]
            return [(ILLEGAL, "S1")] if self.out + 4 > 96 else []
        if kind == "burned":
            burns_fours = any(n >= 4 for v, n in e["cards"].items() if v in ("4", "defender"))
            if self.facing() and (e["cause"] == "fire_breather" or not burns_fours):  # facing: a 4 or a Defender
                return [(ILLEGAL, "S7")]
            return [(ILLEGAL, "S1")] if self.out + sum(e["cards"].values()) > 96 else []
        raise AssertionError(kind)

    def hindrance_violations(self, e: dict[str, Any], over: bool) -> list[Violation]:
        kind = e.get("kind")
        numbers = {k for k in ("hand", "face_up", "face_down") if e.get(k) is not None}
        wanted = {"invasion": {"hand"}, "unknown": {"face_up", "face_down"}, "chaos": set()}.get(kind)
        if wanted is None or numbers != wanted:
            return [(MALFORMED, "S10")]
        if kind == "invasion" and not whole(e["hand"], 1, 20):
            return [(MALFORMED, "S10")]
        if kind == "unknown" and not (whole(e["face_up"], 0, 12) and whole(e["face_down"], 0, 12)
                                      and e["face_up"] + e["face_down"] > 0):
            return [(MALFORMED, "S10")]
        if not self.hindrances_on or self.holder is None:
            return [(ILLEGAL, "S10")]
        if over:
            return [(ILLEGAL, "S2")]
        if self.busy:
            return [(ILLEGAL, "S10")]
        who = e.get("player")
        if who is None and not self.cards:
            seat: int | None = self.holder
        else:
            seat = self.seat_of(who)
            if seat is None:
                return [(MALFORMED, "S10")]
        if not self.cards:
            return [] if seat == self.holder else [(ILLEGAL, "S10")]
        drawn_under_chaos = len(self.cards) - 1 + (1 if self.holder in self.cards and self.cards[self.holder] else 0)
        if not self.chaos or (seat in self.cards and (seat != self.holder or self.cards[seat] is not None)) \
                or drawn_under_chaos + 1 >= 7:
            return [(ILLEGAL, "S10")]
        return []

    def accept(self, e: dict[str, Any]) -> None:
        kind = e["type"]
        seat = self.seat_of(e.get("player"))
        if kind == "coins":
            assert seat is not None
            self.coins[seat] = (e["coins"], e.get("eights", 0))
            if len(self.coins) == self.n - 1:
                self.score()
            return
        if kind == "went_out":
            self.finisher = seat
            return
        if kind == "starter":
            self.starter = self.turn = seat
            return
        if kind == "trick":
            self.trick = e["trick"]
            self.revealed.append(e["trick"])
            return
        if kind == "hindrance":
            who = self.holder if seat is None else seat
            assert who is not None
            if not self.cards:
                self.chaos = e["kind"] == "chaos"
                self.cards[who] = None if self.chaos else 0
                if not self.chaos:
                    return
            else:
                k = e["kind"]
                self.cards[who] = e["hand"] + 6 if k == "invasion" else \
                    5 + e["face_up"] + e["face_down"] if k == "unknown" else 11
            self.start = self.pile_start()
            return
        self.busy = True
        assert self.turn is not None
        if kind == "draw":
            self.take(e.get("count", 1))
        elif kind == "draw_pending":
            self.take(self.pending)
            self.pending, self.passer = 0, None
        elif kind == "four":
            self.pending += 2 * e.get("count", 1)
            self.passer = self.turn
        elif kind == "skip":
            self.skips, self.defenders = e.get("count", 1), []
        elif kind == "defender":
            if self.facing():
                self.passer = self.turn
            else:
                self.defenders.append(self.affected()[0] if seat is None else seat)
        elif kind == "reverse":
            self.step = -self.step
            self.again = self.n == 2 and not self.again  # the rulebook's 7: of two, the mover takes a second turn
        elif kind == "next_turn":
            moves = (0 if self.again else 1) + self.skips + len(self.defenders)
            self.turn = (self.turn + self.step * moves) % self.n
            self.skips, self.defenders, self.again = 0, [], False
        elif kind == "set_out":
            self.out += 4
        elif kind == "burned":
            self.out += sum(e["cards"].values())
            if e["cause"] == "four_in_a_row":  # the burned cards' effects are not applied
                self.pending, self.passer, self.skips, self.defenders = 0, None, 0, []

    def take(self, due: int) -> None:
        got = min(due, self.start - self.drawn)
        self.due += due
        self.drawn += got

    def score(self) -> None:
        feathers = "golden_feathers" in self.revealed
        losses = [0] * self.n
        for seat, (coins, eights) in self.coins.items():
            losses[seat] = min(10, coins) - (eights if feathers else 0)
        self.rounds.append(losses)
        self.totals = [a + b for a, b in zip(self.totals, losses, strict=True)]
        fewest = min(self.totals)
        at_limit = max(self.totals) >= 21
        if at_limit and self.totals.count(fewest) == 1:
            self.finished = True
            return
        self.extra = at_limit
        most = max(losses)
        assert self.starter is not None
        order = [(self.starter + k) % self.n for k in range(1, self.n + 1)]
        self.starter = next(s for s in order if losses[s] == most)
        self.holder = self.finisher if self.hindrances_on else None
        self.number += 1
        self.trick, self.cards, self.chaos, self.busy = None, {}, False, False
        self.turn, self.step, self.pending, self.passer, self.again = self.starter, 1, 0, None, False
        self.skips, self.defenders, self.start, self.due, self.drawn, self.out = 0, [], 18, 0, 0, 0
        self.finisher, self.coins = None, {}


def random_event(rng: random.Random, state: DrachensachenState) -> dict[str, Any]:
    """A random event, biased towards ones that move the game on, with plenty of illegal ones."""
    players = state.players
    current = state.current
    anyone = rng.choice([*players, *players, *players, "Zed", None, 7])
    roll = rng.random()
    if current is not None and current.finisher is not None and roll < 0.75:
        waiting = [p for p, c in zip(players, current.coins, strict=True) if c is None]
        who = rng.choice(waiting) if waiting and rng.random() < 0.85 else anyone
        coins = rng.choice([rng.randint(0, 14), rng.randint(0, 14), rng.randint(0, 14), -1, 100, "3", 2.5])
        event: dict[str, Any] = {"type": "coins", "player": who, "coins": coins}
        if rng.random() < 0.4:
            event["eights"] = rng.choice([0, 1, 2, 3, 4, -1, 100])
        return event
    if current is not None and not current.under_way and current.finisher is None and rng.random() < 0.6:
        roll = rng.random() * 0.16  # setting up the round: starter, trick, hindrances
    if roll < 0.05:
        return {"type": "starter", "player": anyone}
    if roll < 0.1:
        return {"type": "trick", "trick": rng.choice([*TRICKS, "nine"])}
    if roll < 0.16:
        kind = rng.choice(["invasion", "unknown", "chaos", "chaos", "storm"])
        event = {"type": "hindrance", "kind": kind}
        if rng.random() < 0.6:
            event["player"] = anyone
        if kind == "invasion" or rng.random() < 0.05:
            event["hand"] = rng.choice([rng.randint(1, 12), 0, 21])
        if kind == "unknown" or rng.random() < 0.05:
            event["face_up"], event["face_down"] = rng.randint(0, 4), rng.choice([rng.randint(0, 4), 13])
        return event
    if roll < 0.21:
        return {"type": "went_out", "player": anyone}
    if roll < 0.24:
        return {"type": "coins", "player": anyone, "coins": rng.randint(0, 12)}
    kind = rng.choice(["next_turn"] * 4 + ["draw"] * 3 + ["four", "four", "skip", "defender", "reverse",
                                                         "draw_pending", "draw_pending", "set_out", "burned"])
    event = {"type": kind}
    if kind in ("four", "skip"):
        event["count"] = rng.choice([1, 1, 2, 3, 0, 4])
    elif kind == "draw":
        event["count"] = rng.choice([1, 1, 1, 2, 5, 9, 0, 21])
        if rng.random() < 0.2:
            event["player"] = anyone
    elif kind == "defender" and rng.random() < 0.5:
        event["player"] = anyone
    elif kind == "set_out":
        event["value"] = rng.choice([*VALUES, "10"])
    elif kind == "burned":
        event["cause"] = rng.choice(["four_in_a_row", "four_in_a_row", "fire_breather", "flood"])
        event["cards"] = {rng.choice([*VALUES, "10"]): rng.choice([4, 4, 5, 1, 0, 97])
                          for _ in range(rng.randint(0, 3))}
        if rng.random() < 0.3:
            event["cards"]["fire_breather"] = rng.randint(0, 2)
    return event


def check(state: DrachensachenState, model: Model) -> dict[str, Any]:
    """The engine's view after an accepted event, checked against the invariants and the model."""
    data = GAME.view(state)
    # invariants
    assert list(state.totals) == [sum(r.losses[s] for r in state.history if r.losses)
                                  for s in range(len(state.players))]
    assert data["scores"] == {p: sum(data["losses"][p]) for p in state.players}
    assert all(data["running"][p][-1] == data["scores"][p] for p in state.players if data["running"][p])
    assert len(data["breakdown"]) == len(state.history)
    if state.current is not None:
        pile = data["trouble_pile"]
        assert pile["left"] >= 0 and pile["drawn"] <= pile["due"]
        assert pile["left"] == pile["start"] - pile["drawn"]
        assert data["pending_draw"] >= 0 and data["pending_draw"] % 2 == 0
    totals = list(state.totals)
    ends = max(totals) >= 21 and totals.count(min(totals)) == 1
    assert data["finished"] == ends == state.finished  # S4: exactly then
    if data["finished"]:
        assert data["winners"] == [state.players[totals.index(min(totals))]]
    else:
        assert data["winners"] == []
    # the model agrees
    assert totals == model.totals and [list(r.losses or ()) for r in state.history] == model.rounds
    assert state.finished == model.finished
    assert [t["id"] for t in data["tricks"]] == model.revealed
    if state.current is None:
        return data
    names = state.players
    assert data["round"] == model.number and data["extra_round"] == model.extra
    assert data["starter"] == (names[model.starter] if model.starter is not None else None)
    assert data["hindrance_holder"] == (names[model.holder] if model.holder is not None else None)
    assert data["direction"] == ("clockwise" if model.step == 1 else "counterclockwise")
    assert data["pending_draw"] == model.pending and data["skips"] == model.skips
    assert data["trouble_pile"]["start"] == model.start
    assert (data["trouble_pile"]["due"], data["trouble_pile"]["drawn"]) == (model.due, model.drawn)
    assert sum(data["cards_out_round"].values()) == model.out
    if model.finisher is None:
        assert data["turn"] == (names[model.turn] if model.turn is not None else None)
    else:
        assert data["turn"] is None and data["finisher"] == names[model.finisher]
    return data


def play_one_game(rng: random.Random, tally: Counter[str]) -> None:
    players = NAMES[:rng.randint(2, 7)]
    options = GAME.resolve_options({"tricks": rng.random() < 0.6, "hindrances": rng.random() < 0.6})
    state = GAME.setup(players, options)
    model = Model(players, options["tricks"], options["hindrances"])
    accepted: list[dict[str, Any]] = []
    steps = 0
    while not state.finished:
        steps += 1
        assert steps < 20_000, "a random game did not finish"
        event = random_event(rng, state)
        if steps % 400 == 0:  # no dawdling: somebody goes out
            event = GAME.sample(state, rng) or event
        expected = model.violations(event)
        before = state
        snapshot = copy.deepcopy(state) if steps % 16 == 0 else None  # apply leaves its input alone
        if expected:
            with pytest.raises(RuleError) as info:
                GAME.apply(state, event)
            assert (type(info.value), info.value.rule) in expected, (event, expected, info.value)
            assert snapshot is None or state == snapshot
            tally["refused"] += 1
            tally[f"refused {info.value.rule}"] += 1
            continue
        expects = GAME.view(state)["expects"]
        state = GAME.apply(state, event)
        assert snapshot is None or before == snapshot
        # what the page offers covers what the rules accept (a draw for another player aside)
        assert event["type"] in expects or (event["type"] == "draw" and event.get("player")), (event, expects)
        model.accept(event)
        accepted.append(event)
        tally["accepted"] += 1
        tally[event["type"]] += 1
        data = check(state, model)
        if not data["finished"] and data["trouble_pile"]["ignored"] and event["type"].startswith("draw"):
            tally["ignored draws"] += 1
    for _ in range(3):
        with pytest.raises(RuleError) as info:
            GAME.apply(state, random_event(rng, state))
        assert info.value.rule == "S4"
    replayed = GAME.setup(players, options)
    for event in accepted:
        replayed = GAME.apply(replayed, event)
    assert replayed == state and GAME.view(replayed) == GAME.view(state)
    tally["games"] += 1
    tally["rounds"] += len(state.history)
    tally["extra rounds"] += sum(1 for i in range(1, len(state.history))
                                 if max(sum(r.losses[s] for r in state.history[:i] if r.losses)
                                        for s in range(len(players))) >= 21)


def test_random_play_of_many_whole_games() -> None:
    rng = random.Random(20261201)
    tally: Counter[str] = Counter()
    for _ in range(100):
        play_one_game(rng, tally)
    assert tally["games"] == 100
    assert tally["refused"] > 3000 and tally["accepted"] > 4000, tally
    for kind in ("starter", "trick", "hindrance", "next_turn", "four", "skip", "defender", "reverse", "draw",
                 "draw_pending", "set_out", "burned", "went_out", "coins"):
        assert tally[kind] > 30, (kind, tally)
    for rule in ("S2", "S3", "S5", "S6", "S7", "S8", "S9", "S10", "S11"):
        assert tally[f"refused {rule}"] > 5, (rule, tally)
    assert tally["extra rounds"] > 0 and tally["ignored draws"] > 0, tally

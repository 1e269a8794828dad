"""Random play: hundreds of seeded Diego Drachenzahn games of random legal and illegal inputs.

A small independent model of rulings D1-D6 predicts whether each event is accepted (and which rule a
refusal names) and what the round and scores become; the engine must agree after every step. Then a
few games go through a Table on a temporary SQLite file with random undo/redo and restarts.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.diego import DiegoState
from companion.log import EventLog
from companion.table import NotFromSource, Table, TableError
from companion.table import fold_log as fold_session

GAME = GAMES["diego-drachenzahn"]
NAMES = ("Ada", "Ben", "Cleo", "Dan")
BAD_GATES: list[Any] = [0, 7, -1, 99, "3", 3.0, True, False, [1], {"g": 1}]
Violation = tuple[type[RuleError], str]


def valid_gate(value: Any, *, miss_ok: bool) -> bool:
    if value is None:
        return miss_ok
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= 6


def valid_count(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and 0 <= value <= 9


@dataclass
class Model:
    """What rulings D3-D6 say the game should look like, kept independently of the engine."""

    players: tuple[str, ...]
    total_rounds: int
    scores: list[int] = field(default_factory=list)
    number: int = 1
    marbles: list[int | None] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    camera_misses: int = 0
    camera: tuple[int, ...] | None = None
    outside: int = 0
    unsure: tuple[int, ...] = ()  # the gates the camera's last reading is unsure of
    vouched: list[int | None] | None = None  # what a person said the camera got right this round
    flagged: bool = False
    guesses: dict[str, int] = field(default_factory=dict)
    marks: dict[str, bool] = field(default_factory=dict)  # "right"/"wrong" told after the reveal
    token: int | None = None
    points_total: int = 0

    def __post_init__(self) -> None:
        self.scores = [0] * len(self.players)

    @property
    def finished(self) -> bool:
        return self.number > self.total_rounds

    @property
    def active(self) -> int:
        return (self.number - 1) % len(self.players)  # ruling D6: clockwise from seat 0

    def waiting(self) -> list[str]:
        return [p for s, p in enumerate(self.players)
                if s != self.active and p not in self.guesses and p not in self.marks]

    def entered(self) -> tuple[list[int | None], list[str]]:
        """The marbles and sources entered, less the misses the camera added to them."""
        kept = len(self.marbles) - self.camera_misses
        return self.marbles[:kept], self.sources[:kept]

    def _reflag(self) -> None:  # ruling D4
        in_gates = Counter(g for g in self.marbles if g is not None)
        by_camera = all(s == "camera" for s in self.sources)
        # an unsure camera alone is not trusted, save in a gate where it reads what a person vouched for there
        doubts = [g for g in self.unsure if self.vouched is None or self.camera is None
                  or self.camera[g - 1] != self.vouched.count(g)]
        self.flagged = len(self.marbles) > 3 or (self.camera is not None and (
            sum(self.camera) + self.outside > 3
            or (bool(self.marbles) and tuple(in_gates[g] for g in range(1, 7)) != self.camera)
            or (bool(doubts) and by_camera)))

    def violations(self, event: dict[str, Any]) -> list[Violation]:
        """Every rule `event` breaks in the current state (empty: it must be accepted)."""
        kind = event.get("type")
        if kind not in ("marble", "guess", "camera", "confirm", "reveal", "turned"):
            return [(MalformedEventError, "events")]
        if self.finished:
            return [(IllegalEventError, "D6")]
        if self.token is not None and kind != "turned":  # ruling D3: the round is settled once revealed
            return [(IllegalEventError, "D5" if kind == "guess" else "D3")]
        found: list[Violation] = []
        if kind == "marble":
            if "gate" not in event or not valid_gate(event["gate"], miss_ok=True):
                found.append((MalformedEventError, "D2"))
            if event.get("source", "tap") != "sensor" and len(self.entered()[0]) >= 3:
                found.append((IllegalEventError, "D4"))
        elif kind == "guess":
            player = event.get("player")
            if not isinstance(player, str) or player not in self.players:
                found.append((MalformedEventError, "D5"))
            if not valid_gate(event.get("gate"), miss_ok=False):
                found.append((MalformedEventError, "D5"))
            if player == self.players[self.active] or (isinstance(player, str) and player in self.guesses):
                found.append((IllegalEventError, "D5"))
        elif kind == "camera":
            counts = event.get("counts")
            if not isinstance(counts, list) or len(counts) != 6 or not all(valid_count(c) for c in counts):
                found.append((MalformedEventError, "D3"))
            if not valid_count(event.get("outside", 0)):
                found.append((MalformedEventError, "D4"))
        elif kind == "confirm":
            marbles = event.get("marbles")
            if not isinstance(marbles, list) or len(marbles) > 3 \
                    or not all(valid_gate(g, miss_ok=True) for g in marbles):
                found.append((MalformedEventError, "D4"))
        elif kind == "reveal":
            if not valid_gate(event.get("gate"), miss_ok=False):
                found.append((MalformedEventError, "D3"))
            if self.flagged:
                found.append((IllegalEventError, "D4"))
        elif kind == "turned":
            player = event.get("player")
            if not isinstance(player, str) or player not in self.players:
                found.append((MalformedEventError, "D5"))
            if self.token is None or player == self.players[self.active] or player not in self.waiting():
                found.append((IllegalEventError, "D5"))
            gate, correct = event.get("gate"), event.get("correct")
            if (gate is None) == (correct is None) or (gate is not None and not valid_gate(gate, miss_ok=False)) \
                    or (correct is not None and not isinstance(correct, bool)):
                found.append((MalformedEventError, "D5"))
        return found

    def accept(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "marble":
            self.marbles, self.sources = self.entered()  # the photo is out of date, and the misses it added
            self.marbles.append(event["gate"])
            self.sources.append(event.get("source", "tap"))
            self.camera, self.outside, self.camera_misses, self.unsure = None, 0, 0, ()
        elif kind == "guess":
            self.guesses[event["player"]] = event["gate"]
            return
        elif kind == "camera":
            counts = tuple(event["counts"])
            self.camera, self.outside = counts, event.get("outside", 0)
            self.unsure = tuple(g for g, doubt in zip(range(1, 7), event.get("unsure") or ()) if doubt)
            vouched = self.vouched or []
            taken_back = any(counts[g - 1] < vouched.count(g) for g in range(1, 7)) \
                or sum(counts) + vouched.count(None) > 3
            if all(s == "camera" for s in self.sources) and sum(counts) <= 3 and taken_back:
                # ruling D4: the camera no longer sees what a person vouched for: that stands, as tapped, flagged
                self.marbles, self.sources, self.vouched, self.camera_misses = list(vouched), ["tap"] * len(vouched), \
                    None, 0
            # ruling D3: with no beam or tap marble, the camera alone fills (and refills) the round
            elif all(s == "camera" for s in self.sources) and sum(counts) <= 3:
                self.marbles = [g for g in range(1, 7) for _ in range(counts[g - 1])]
                self.marbles += [None] * min(max(self.outside, vouched.count(None)), 3 - len(self.marbles))
                self.sources = ["camera"] * len(self.marbles)
            else:  # ruling D4: agreeing on every gate, the camera's marbles outside them are misses the beams missed
                self.marbles, self.sources = self.entered()
                add = 0
                if tuple(self.marbles.count(g) for g in range(1, 7)) == counts:
                    add = max(0, min(self.outside - self.marbles.count(None), 3 - len(self.marbles)))
                self.marbles += [None] * add
                self.sources += ["camera"] * add
                self.camera_misses = add
        elif kind == "confirm":
            said = list(event["marbles"])
            # ruling D3: "the camera is right", the camera alone having filled in the round, keeps it the source
            cameras = self.camera is not None and all(s == "camera" for s in self.sources) \
                and sorted(g for g in said if g is not None) == sorted(g for g in self.marbles if g is not None) \
                == [g for g in range(1, 7) for _ in range(self.camera[g - 1])] \
                and said.count(None) <= self.marbles.count(None)
            self.marbles = said
            self.sources = ["camera" if cameras else "tap"] * len(said)
            self.vouched = list(said) if cameras else None
            self.camera_misses = 0
            self.flagged = False  # a person decided (ruling D4); the stored photo no longer flags
            return
        elif kind in ("reveal", "turned"):
            if kind == "reveal":
                self.token = event["gate"]
            elif event.get("gate") is not None:
                self.guesses[event["player"]] = event["gate"]
            else:
                self.marks[event["player"]] = event["correct"]
            if not self.waiting():
                self._score()
            return
        self._reflag()

    def _score(self) -> None:
        """Every guess is in and the token shown: score the round (rulings D3, D5) and pass on (D6)."""
        for seat, player in enumerate(self.players):
            if seat == self.active:
                gained = sum(1 for g in self.marbles if g == self.token)  # ruling D3, D4
            else:
                gained = int(self.guesses.get(player) == self.token or self.marks.get(player) is True)  # D5
            self.scores[seat] += gained
            self.points_total += gained
        self.number += 1
        self.marbles, self.sources, self.camera, self.outside, self.camera_misses = [], [], None, 0, 0
        self.unsure, self.vouched = (), None
        self.flagged, self.guesses, self.marks, self.token = False, {}, {}, None


def random_event(rng: random.Random, state: DiegoState) -> dict[str, Any]:
    """A random event, biased towards ones that move the game on, with plenty of illegal ones."""
    players = state.players
    current = state.current
    active = current.active if current else 0
    pending = [p for s, p in enumerate(players) if current and s != active and current.guesses[s] is None
               and current.marks[s] is None]
    done = [p for s, p in enumerate(players) if current and s != active and p not in pending]
    gate = rng.randint(1, 6)
    roll = rng.random()
    if current is not None and current.token is not None and roll < 0.7:  # the cards are turned over
        player = rng.choice(pending) if pending and rng.random() < 0.85 else rng.choice(players)
        told = rng.choice([{"gate": gate}, {"correct": rng.random() < 0.5}, {"gate": rng.choice(BAD_GATES)},
                           {"correct": rng.choice(["yes", 1])}, {}, {"gate": gate, "correct": True}])
        return {"type": "turned", "player": player, **told}
    if current is not None and current.token is None and all(s == "camera" for s in current.sources) \
            and rng.random() < 0.3:
        return camera_alone_event(rng, current)
    if roll < 0.22:
        return {"type": "marble", "gate": rng.choice([gate, gate, gate, None]),
                "source": rng.choice(["tap"] * 6 + ["sensor", "camera"])}
    if roll < 0.40:
        if pending:
            return {"type": "guess", "player": rng.choice(pending), "gate": gate}
        return {"type": "guess", "player": rng.choice(players), "gate": gate}
    if roll < 0.58:
        return {"type": "reveal", "gate": gate}
    if roll < 0.64:
        if current is not None and current.marbles and rng.random() < 0.6:
            counts = [sum(1 for g in current.marbles if g == k) for k in range(1, 7)]
            change = rng.random()
            if change < 0.3:  # another marble came to rest
                counts[rng.randrange(6)] += 1
            elif change < 0.4 and any(counts):  # one the camera no longer sees
                counts[rng.choice([k for k in range(6) if counts[k]])] -= 1
        else:
            counts = [0] * 6
            for _ in range(rng.choice([0, 1, 2, 3, 3, 3, 4])):
                counts[rng.randrange(6)] += 1
        event = {"type": "camera", "counts": counts, "outside": rng.randint(0, 3)}
        if rng.random() < 0.3:  # ruling D4: unsure of a gate or two
            event["unsure"] = [rng.random() < 0.3 for _ in range(6)]
        return event
    if roll < 0.69:
        if current is not None and current.camera is not None and rng.random() < 0.5:  # "the camera is right"
            said: list[int | None] = [g for g in range(1, 7) for _ in range(current.camera[g - 1])][:3]
            return {"type": "confirm", "marbles": said + [None] * rng.randint(0, 3 - len(said))}
        return {"type": "confirm", "marbles": [rng.choice([1, 2, 3, 4, 5, 6, None]) for _ in range(rng.randint(0, 3))]}
    # illegal or malformed ones
    bad = rng.choice(BAD_GATES)
    choice = rng.randrange(12)
    if choice == 0:
        return {"type": "marble", "gate": bad}
    if choice == 1:
        return {"type": "guess", "player": players[active], "gate": gate}
    if choice == 2 and done:
        return {"type": "guess", "player": rng.choice(done), "gate": gate}
    if choice == 3:
        return {"type": "guess", "player": rng.choice(["Zed", "", 3, None]), "gate": gate}
    if choice == 4:
        return {"type": "guess", "player": rng.choice(pending or list(players)), "gate": bad}
    if choice == 5:
        return {"type": "reveal", "gate": rng.choice(BAD_GATES + [None])}
    if choice == 6:
        return {"type": "camera", "counts": rng.choice([[0] * 5, [0] * 7, [0, 0, -1, 0, 0, 0],
                                                       [0, 10, 0, 0, 0, 0], "000000", None])}
    if choice == 7:
        return {"type": "camera", "counts": [0, 1, 0, 0, 0, 0], "outside": rng.choice([-1, 10, "1", None])}
    if choice == 8:
        return {"type": "confirm", "marbles": rng.choice([[1, 2, 3, 4], "12", None, [1, bad]])}
    if choice == 9:
        return {"type": rng.choice(["dance", "", "Reveal", None, 7])}
    if choice == 10:
        return {"type": "marble"}
    return {"type": "marble", "gate": gate, "source": "tap"}  # a 4th tap when the round is full


def camera_alone_event(rng: random.Random, current: Any) -> dict[str, Any]:
    """The castle's camera alone (ruling D3): a reading once another marble rests (now and then one that no longer
    sees a marble, or is unsure of a gate), or a person saying the camera is right."""
    if current.flag is not None and current.camera is not None and sum(current.camera) <= 3 and rng.random() < 0.6:
        return {"type": "confirm", "marbles": [g for g in range(1, 7) for _ in range(current.camera[g - 1])]}
    counts = [sum(1 for g in current.marbles if g == k) for k in range(1, 7)]
    change = rng.random()
    if change < 0.7 and sum(counts) < 3:
        counts[rng.randrange(6)] += 1
    elif change < 0.85 and any(counts):
        counts[rng.choice([k for k in range(6) if counts[k]])] -= 1
    event = {"type": "camera", "counts": counts, "outside": rng.choice([0, 0, 0, 0, 1])}
    if rng.random() < 0.4:
        event["unsure"] = [rng.random() < 0.25 for _ in range(6)]
    return event


def finishing_events(state: DiegoState) -> list[dict[str, Any]]:
    """A legal way to end the current round when random play dawdles."""
    current = state.current
    assert current is not None
    waiting = [p for s, p in enumerate(state.players)
               if s != current.active and current.guesses[s] is None and current.marks[s] is None]
    if current.token is not None:
        return [{"type": "turned", "player": p, "correct": True} for p in waiting]
    events: list[dict[str, Any]] = [{"type": "confirm", "marbles": [1, 2, None]}]
    events += [{"type": "guess", "player": p, "gate": 2} for p in waiting]
    return events + [{"type": "reveal", "gate": 1}]


def check_invariants(state: DiegoState, previous: DiegoState, model: Model) -> None:
    count = len(state.players)
    assert all(a >= b for a, b in zip(state.scores, previous.scores)), "a score went down"
    assert sum(state.scores) == sum(sum(r.points or ()) for r in state.history)
    assert len(state.history) <= state.total_rounds
    for index, done in enumerate(state.history):
        assert done.number == index + 1 and done.active == index % count
        assert done.points is not None and done.token is not None
    view = GAME.view(state)
    if state.current is not None:
        assert state.current.number == len(state.history) + 1
        assert state.current.active == (state.current.number - 1) % count
        assert view["active"] == state.players[state.current.active]
        assert set(view["current"]["guessed"].values()) <= {True, False}
        assert not view["finished"] and view["winners"] == []
    else:
        assert len(state.history) == state.total_rounds
        best = max(state.scores)
        assert view["finished"]
        assert view["winners"] == [p for p, s in zip(state.players, state.scores) if s == best]
    # the engine agrees with the independent model
    assert list(state.scores) == model.scores
    assert sum(state.scores) == model.points_total
    assert state.finished == model.finished
    if state.current is not None:
        assert state.current.number == model.number
        assert list(state.current.marbles) == model.marbles
        assert list(state.current.sources) == model.sources
        assert (state.current.flag is not None) == model.flagged
        assert {state.players[s]: g for s, g in enumerate(state.current.guesses) if g is not None} == model.guesses
        assert {state.players[s]: m for s, m in enumerate(state.current.marks) if m is not None} == model.marks
        assert state.current.token == model.token


def random_options(rng: random.Random) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if rng.random() < 0.7:
        options["rounds_per_player"] = rng.randint(1, 4)
    if rng.random() < 0.3:
        options["gate_names"] = [f"Symbol {n}" for n in rng.sample(range(100), 6)]  # each name once
    return options


def play_one_game(rng: random.Random, tally: Counter[str]) -> None:
    players = NAMES[:rng.randint(2, 4)]
    options = GAME.resolve_options(random_options(rng))
    state = GAME.setup(players, options)
    assert state.total_rounds == options["rounds_per_player"] * len(players)  # ruling D6
    model = Model(players, state.total_rounds)
    accepted: list[dict[str, Any]] = []
    reveals = 0
    steps_in_round = 0
    while not state.finished:
        if steps_in_round > 60:
            events = finishing_events(state)
        else:
            events = [random_event(rng, state)]
        for event in events:
            expected = model.violations(event)
            before = state
            snapshot = copy.deepcopy(state)
            if expected:
                with pytest.raises(RuleError) as info:
                    GAME.apply(state, event)
                assert (type(info.value), info.value.rule) in expected, (event, expected, info.value)
                assert state is before and state == snapshot
                tally["refused"] += 1
                steps_in_round += 1
                continue
            state = GAME.apply(state, event)
            assert before == snapshot  # apply left its input alone
            model.accept(event)
            accepted.append(event)
            tally["accepted"] += 1
            tally[event["type"]] += 1
            if len(state.history) > len(before.history):
                reveals += 1
                steps_in_round = 0
                assert state.finished == (reveals == state.total_rounds)  # ruling D6: ends exactly then
            else:
                steps_in_round += 1
            check_invariants(state, before, model)
    assert reveals == state.total_rounds == len(state.history)
    # nothing is accepted after the end
    for _ in range(3):
        event = random_event(rng, state)
        with pytest.raises(RuleError) as info:
            GAME.apply(state, event)
        assert info.value.rule in ("D6", "events")
    # determinism: replaying the accepted events from setup gives an equal state
    replayed = GAME.setup(players, options)
    for event in accepted:
        replayed = GAME.apply(replayed, event)
    assert replayed == state
    assert GAME.view(replayed) == GAME.view(state)
    tally["games"] += 1
    tally[f"players{len(players)}"] += 1


def test_random_play_of_many_whole_games() -> None:
    rng = random.Random(20240611)
    tally: Counter[str] = Counter()
    for _ in range(250):
        play_one_game(rng, tally)
    assert tally["games"] == 250
    assert all(tally[f"players{n}"] > 30 for n in (2, 3, 4))
    # both sides were exercised in earnest, and every event type got through
    assert tally["refused"] > 5000 and tally["accepted"] > 5000
    for kind in ("marble", "guess", "camera", "confirm", "reveal", "turned"):
        assert tally[kind] > 100, kind


# through the table, with undo/redo and restarts -------------------------------------------------------------


def fold_log(log: EventLog, session_id: int) -> DiegoState:
    """The pure fold of the session's live events, independent of the table's cache."""
    record = log.session(session_id)
    assert record is not None
    return fold_session(log, record, GAME)


def check_table(table: Table, session_id: int) -> dict[str, Any]:
    view = table.view(session_id)
    state = fold_log(table.log, session_id)
    assert view["state"] == GAME.view(state)
    record = table.log.session(session_id)
    assert record is not None
    assert view["seq"] == record.revision
    assert view["finished"] == state.finished == (record.finished is not None)
    assert view["can_undo"] == any(e.status == "live" for e in table.log.events(session_id))
    assert view["can_redo"] == any(e.status == "undone" for e in table.log.events(session_id))
    return view


def test_random_play_through_a_table_with_undo_redo_and_restarts(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "random.sqlite3"
    log = EventLog(path)
    table = Table(log)
    tally: Counter[str] = Counter()
    try:
        for _ in range(8):
            players = list(NAMES[:rng.randint(2, 4)])
            options = {"rounds_per_player": rng.randint(1, 2)}
            session_id = table.create(GAME.id, players, options)["id"]
            steps = 0
            while True:
                steps += 1
                state = fold_log(table.log, session_id)
                seq = table.view(session_id)["seq"]
                rows = len(table.log.events(session_id))
                roll = rng.random()
                if state.finished and roll < 0.7:
                    break
                if roll < 0.08:
                    try:
                        table.undo(session_id, expected_seq=seq)
                        tally["undo"] += 1
                    except TableError:
                        assert not table.log.has_events(session_id, "live")
                elif roll < 0.14:
                    try:
                        table.redo(session_id, expected_seq=seq)
                        tally["redo"] += 1
                    except TableError:
                        assert not table.log.has_events(session_id, "undone")
                elif roll < 0.16:
                    with pytest.raises(TableError) as info:  # a stale writer
                        table.submit(session_id, {"type": "marble", "gate": 1}, expected_seq=seq - 1)
                    assert info.value.status == 409 and info.value.view == table.view(session_id)
                    tally["stale"] += 1
                elif roll < 0.19:
                    # a restart: a new log handle and table, rebuilt from the file
                    before = table.view(session_id)
                    log.close()
                    log = EventLog(path)
                    table = Table(log)
                    table.rebuild()
                    assert table.view(session_id) == before
                    tally["restart"] += 1
                else:
                    dawdling = steps > 150 and not state.finished
                    events = finishing_events(state) if dawdling else [random_event(rng, state)]
                    source = "sensor" if rng.random() < 0.1 else "tap"
                    for event in events:
                        event = {k: v for k, v in event.items() if k != "source"}  # the table decides it
                        # a camera reading comes from the table's camera; now and then a tap tries one (refused)
                        by = "camera" if event.get("type") == "camera" and rng.random() < 0.9 else source
                        try:
                            table.submit(session_id, event, source=by)
                            tally["accepted"] += 1
                        except (RuleError, TableError) as err:
                            if event.get("type") == "camera" and by != "camera":
                                assert isinstance(err, NotFromSource), err
                            assert table.view(session_id)["seq"] == seq
                            assert len(table.log.events(session_id)) == rows
                            tally["refused"] += 1
                        seq = table.view(session_id)["seq"]
                        rows = len(table.log.events(session_id))
                check_table(table, session_id)
            assert table.view(session_id)["finished"]
            tally["games"] += 1
        # one last restart: every session, finished or not, reads back the same
        views = {r.id: table.view(r.id) for r in table.log.sessions()}
        log.close()
        log = EventLog(path)
        table = Table(log)
        table.rebuild()
        assert {r.id: table.view(r.id) for r in table.log.sessions()} == views
        for session_id in views:
            check_table(table, session_id)
    finally:
        log.close()
    assert tally["games"] == 8
    assert min(tally["undo"], tally["redo"], tally["stale"], tally["restart"]) > 3, tally
    assert tally["accepted"] > 100 and tally["refused"] > 100, tally

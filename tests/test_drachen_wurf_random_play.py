"""Random play: seeded Drachen Wurf games of random legal and illegal input, whole games from setup to the end.

An independent judge reads the view (where each tile is, the phase, eggs, dice) and decides from rulings
W1-W8 whether each event must be accepted, and which rules a refusal may name; a small model predicts the
eggs and whose turn it is. After every step: every tile is in exactly one place, eggs in play plus supply
stay 36, the scores match a recount of the rows, every row is valid, and the game is over exactly when every
tile is in a hoard or removed (W7). Then a few games go through a Table with undo, redo and restarts.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.games.drachen_wurf import WurfState
from companion.games.schema import validate_event
from companion.log import EventLog
from companion.table import Table, TableError, fold_log

GAME = GAMES["drachen-wurf"]
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Finn")
OUTSTANDING = {"flip": "W8", "remove": "W8", "secure": "W6", "bonus": "W3", "moved": "W4", "dice": "W6"}


def tile_of(event: dict[str, Any]) -> int:
    return (event["colour"] - 1) * 6 + event["landscape"] - 1


def same_kind(tiles: list[dict[str, Any]]) -> bool:
    """Ruling W6, recounted from the view's tiles."""
    return len({t["colour"] for t in tiles}) <= 1 or len({t["landscape"] for t in tiles}) <= 1


def judge(view: dict[str, Any], event: dict[str, Any]) -> set[str]:
    """The rules `event` breaks in the state shown by `view` (empty: it must be accepted)."""
    if view["finished"]:
        return {"W7"}
    kind, phase, active = event["type"], view["phase"], view["turn"]
    tiles = view["tiles"]
    where = tiles[tile_of(event)]["place"] if "colour" in event else None
    rows = view["hoards"][active]["rows"]
    if kind == "flip":
        if phase != "flip":
            return {"W8"}
        return set() if where == {"where": "face_down"} else {"W1"}
    if kind == "remove":
        return set() if phase == "remove" and where == {"where": "middle"} else {"W8"}
    if kind == "end":
        return set() if phase in ("dice", "moved") else {OUTSTANDING[phase]}
    if kind == "secure":
        if phase == "bonus":
            if where != {"where": "bonus", "player": active}:
                return {"W3"}
        elif phase == "secure":
            if where.get("where") != "base" or where.get("player") != active:
                return {"W6"}
        else:
            return {OUTSTANDING[phase]}
        row = event["row"]
        if row is not None and (row > len(rows) or not same_kind([tiles[t] for t in rows[row - 1]]
                                                                  + [tiles[tile_of(event)]])):
            return {"W6"}
        return set()
    if kind == "win":
        if phase != "dice":
            return {OUTSTANDING[phase]}
        broken = set()
        k, egg, source = event["k"], event["egg"], event["from"]
        if source == "middle":
            if where != {"where": "middle"}:
                broken.add("W2")
        elif source == active or where.get("where") != "base" or where.get("player") != source \
                or k <= where["side"]:
            broken.add("W2")
        if egg and (view["current"]["egg_doubled"] or view["eggs"][active] < 1):
            broken.add("W4")
        if view["current"]["dice_used"] + k - int(egg) > 6:
            broken.add("W2")
        return broken
    if kind == "move":
        if phase == "moved":
            return {"W4"}
        if phase != "dice":
            return {OUTSTANDING[phase]}
        if view["eggs"][active] < 1 or where.get("where") != "hoard" or where.get("player") != active:
            return {"W4"}
        row, source = event["row"], where["row"]
        if (row is not None and row > len(rows)) or row == source or (row is None and len(rows[source - 1]) == 1):
            return {"W4"}
        if row is not None and not same_kind([tiles[t] for t in rows[row - 1]] + [tiles[tile_of(event)]]):
            return {"W6"}
        return set()
    raise AssertionError(kind)


@dataclass
class Model:
    """Eggs (W1, W4, W5) and turn order (W3, clockwise) predicted from the accepted events alone."""

    players: tuple[str, ...]
    eggs: list[int]
    supply: int
    seat: int = 0
    bonus: bool = False

    def accept(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "win":
            if event["egg"]:
                self.eggs[self.seat] -= 1
                self.supply += 1
            if event["from"] != "middle" and self.supply > 0:
                self.eggs[self.players.index(event["from"])] += 1
                self.supply -= 1
            self.bonus = self.bonus or event["k"] == 6
        elif kind == "move":
            self.eggs[self.seat] -= 1
            self.supply += 1
        elif kind == "end":
            if not self.bonus:
                self.seat = (self.seat + 1) % len(self.players)
            self.bonus = False


def check(state: WurfState, view: dict[str, Any], model: Model) -> None:
    players = state.players
    # every tile in exactly one place, in the state and in the view
    collections = [state.face_down, state.middle, state.removed,
                   *(tuple(t for t, _ in base) for base in state.bases),
                   *(tuple(t for r in rows for t in r) for rows in state.hoards),
                   (state.turn.pending,) if state.turn and state.turn.pending is not None else ()]
    every = [t for group in collections for t in group]
    assert sorted(every) == list(range(36)), "a tile is in two places or none"
    places = Counter(t["place"]["where"] for t in view["tiles"])
    assert places["face_down"] == view["pile"] == len(view["face_down"])
    assert places["middle"] == len(view["middle"]) <= view["shown"]
    assert places["removed"] == len(view["removed"])
    assert places["base"] == sum(len(s) for b in view["bases"].values() for s in b.values())
    assert places["hoard"] == sum(len(r) for h in view["hoards"].values() for r in h["rows"])
    if len(players) > 2 or view["shown"] == 3:
        assert view["removed"] == []  # ruling W8: only 2 players remove
    # eggs
    assert sum(view["eggs"].values()) + view["egg_supply"] == 36
    assert min(view["eggs"].values()) >= 0 and view["egg_supply"] >= 0
    assert [view["eggs"][p] for p in players] == model.eggs and view["egg_supply"] == model.supply
    # scores: a recount of the rows (W7), every row valid (W6)
    for player in players:
        rows = view["hoards"][player]["rows"]
        assert all(rows) and all(same_kind([view["tiles"][t] for t in r]) for r in rows)
        assert view["scores"][player] == sum(len(r) ** 2 for r in rows) + view["eggs"][player]
    # the end exactly when W7 says
    done = all(t["place"]["where"] in ("hoard", "removed") for t in view["tiles"])
    assert view["finished"] == done
    if done:
        best = max(view["scores"].values())
        assert view["winners"] == [p for p in players if view["scores"][p] == best]
        assert view["turn"] is None and view["expects"] == []
        for player in players:
            assert sum(r["points"][player] for r in view["breakdown"]) == view["scores"][player]
    else:
        assert view["turn"] == players[model.seat] and view["expects"]


def random_event(rng: random.Random, state: WurfState, view: dict[str, Any], legal: float = 0.55) -> dict[str, Any]:
    """A random event: often the engine's own legal sample, otherwise a plausible tap, legal or not."""
    if rng.random() < legal:
        event = GAME.sample(state, rng)
        assert event is not None
        return dict(event)
    players = list(state.players)
    active = view["turn"] or players[0]
    by_place: dict[str, list[int]] = {}
    for tile in view["tiles"]:
        by_place.setdefault(tile["place"]["where"], []).append(tile["id"])
    where = rng.choice(["middle", "base", "hoard", "face_down", "removed", "bonus", "any"])
    pool = by_place.get(where) or list(range(36))
    tile = rng.choice(pool)
    fields = {"colour": tile // 6 + 1, "landscape": tile % 6 + 1}
    rows = len(view["hoards"][active]["rows"])
    row = rng.choice([None, None, *range(1, rows + 2)])
    kind = rng.choice(["flip", "remove", "secure", "win", "win", "win", "move", "end"])
    if kind in ("flip", "remove"):
        return {"type": kind, **fields}
    if kind in ("secure", "move"):
        return {"type": kind, **fields, "row": row}
    if kind == "win":
        place = view["tiles"][tile]["place"]
        source = place.get("player", "middle") if rng.random() < 0.8 else rng.choice(["middle", *players])
        return {"type": "win", **fields, "from": source, "k": rng.randint(2, 6), "egg": rng.random() < 0.25}
    return {"type": "end"}


MALFORMED = [
    ({"type": "flip", "colour": 0, "landscape": 1}, "W1"),
    ({"type": "remove", "colour": 1, "landscape": 7}, "W8"),
    ({"type": "win", "colour": 1, "landscape": 1, "from": "middle", "k": 1}, "W2"),
    ({"type": "win", "colour": 1, "landscape": 1, "from": "middle", "k": 7}, "W2"),
    ({"type": "secure", "colour": 1, "landscape": 1, "row": 0}, "W6"),
    ({"type": "move", "colour": 1, "landscape": 1, "row": 37}, "W4"),
]


def play_one_game(rng: random.Random, tally: Counter[str]) -> None:
    players = NAMES[:rng.randint(2, 6)]
    options = GAME.resolve_options({"two_player_removal": rng.random() < 0.8})
    state = GAME.setup(players, options)
    model = Model(players, [1] * len(players), 36 - len(players))
    view = GAME.view(state)
    check(state, view, model)
    accepted: list[dict[str, Any]] = []
    for _step in range(3000):
        if view["finished"]:
            break
        if rng.random() < 0.02:
            event, rule = rng.choice(MALFORMED)
            with pytest.raises(MalformedEventError) as info:
                validate_event(GAME, event)
            assert info.value.rule == rule
            with pytest.raises(MalformedEventError) as info:
                GAME.apply(state, event)
            assert info.value.rule == rule
            continue
        event = random_event(rng, state, view)
        validate_event(GAME, event)
        expected = judge(view, event)
        if expected:
            snapshot = copy.deepcopy(state) if tally["refused"] % 10 == 0 else state
            with pytest.raises(IllegalEventError) as info:
                GAME.apply(state, event)
            assert info.value.rule in expected, (event, expected, info.value)
            assert state == snapshot  # nothing changes
            tally["refused"] += 1
            tally[f"refused {info.value.rule}"] += 1
            continue
        try:
            state = GAME.apply(state, event)
        except RuleError as err:
            raise AssertionError(f"{event} refused: {err}; view phase {view['phase']}") from err
        model.accept(event)
        accepted.append(event)
        tally["accepted"] += 1
        tally[event["type"]] += 1
        if event["type"] == "win":
            tally["steal" if event["from"] != "middle" else "from middle"] += 1
            tally["bonus"] += event["k"] == 6
        view = GAME.view(state)
        check(state, view, model)
    assert view["finished"], "a random game did not finish"
    for event in ({"type": "end"}, {"type": "flip", "colour": 1, "landscape": 1}):
        with pytest.raises(IllegalEventError) as info:
            GAME.apply(state, event)
        assert info.value.rule == "W7"
    # determinism: replaying the accepted events from setup gives an equal state
    replayed = GAME.setup(players, options)
    for event in accepted:
        replayed = GAME.apply(replayed, event)
    assert replayed == state and GAME.view(replayed) == view
    tally["games"] += 1
    tally[f"players{len(players)}"] += 1
    tally["removed"] += len(view["removed"])


def test_random_play_of_many_whole_games() -> None:
    rng = random.Random(20261201)
    tally: Counter[str] = Counter()
    for _ in range(60):
        play_one_game(rng, tally)
    print(dict(tally))
    assert tally["games"] == 60
    assert all(tally[f"players{n}"] >= 4 for n in range(2, 7)), tally
    assert tally["accepted"] > 5000 and tally["refused"] > 2000, tally
    for kind in ("flip", "remove", "secure", "win", "move", "end", "steal", "bonus", "removed"):
        assert tally[kind] > 20, (kind, tally)
    for rule in ("W1", "W2", "W3", "W4", "W6", "W7", "W8"):
        assert tally[f"refused {rule}"] > 0 or rule == "W7", (rule, tally)


# through the table, with undo/redo and restarts -------------------------------------------------------------


def test_random_play_through_a_table_with_undo_redo_and_restarts(tmp_path: Path) -> None:
    rng = random.Random(11)
    path = tmp_path / "random.sqlite3"
    log = EventLog(path)
    table = Table(log)
    tally: Counter[str] = Counter()
    try:
        for players in (2, 4):
            session_id = table.create(GAME.id, list(NAMES[:players]))["id"]
            for _step in range(3000):
                view = table.view(session_id)
                if view["finished"]:
                    break
                roll = rng.random()
                if view["can_redo"] and roll < 0.4:
                    roll = 0.08  # redo soon after an undo, before a new event drops it
                if roll < 0.06:
                    try:
                        table.undo(session_id, expected_seq=view["seq"])
                        tally["undo"] += 1
                    except TableError:
                        tally["nothing to undo"] += 1
                elif roll < 0.1:
                    try:
                        table.redo(session_id, expected_seq=view["seq"])
                        tally["redo"] += 1
                    except TableError:
                        tally["nothing to redo"] += 1
                elif roll < 0.11:
                    log.close()
                    log = EventLog(path)
                    table = Table(log)
                    table.rebuild()
                    assert table.view(session_id) == view
                    tally["restart"] += 1
                else:
                    state = table._load(session_id).state
                    event = random_event(rng, state, view["state"], legal=0.8)
                    try:
                        table.submit(session_id, event)
                        tally["accepted"] += 1
                    except RuleError:
                        assert table.view(session_id)["seq"] == view["seq"]
                        tally["refused"] += 1
                if _step % 25 == 0:  # the cache agrees with a fresh fold of the log
                    record = table.log.session(session_id)
                    assert record is not None
                    assert table.view(session_id)["state"] == GAME.view(fold_log(table.log, record, GAME))
            record = table.log.session(session_id)
            assert record is not None and record.status == "finished"
            assert table.view(session_id)["state"] == GAME.view(fold_log(table.log, record, GAME))
            assert table.view(session_id)["finished"]
            tally["games"] += 1
    finally:
        log.close()
    assert tally["games"] == 2
    assert min(tally["undo"], tally["redo"], tally["restart"]) > 2 and tally["refused"] > 10, tally

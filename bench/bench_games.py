"""Every game through the table: a long session built from random legal events (each game's `sample`), then
the cost of an undo of the last event (the state before it is kept), of a second undo in a row (a fold from the
nearest checkpoint, kept every CHECKPOINT_EVERY live events), of a redo (one apply) and of a replay at start (a
fold of the whole log). Dračí hrad evenings
reach thousands of events: its session is 5,000 events long."""
from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from bench.stats import summary
from companion.games import GAMES
from companion.log import EventLog
from companion.table import Table

LONG = {"draci-hrad": 5000}
DEFAULT_EVENTS = 1000


def build(table: Table, game_id: str, events: int, rng: random.Random) -> int:
    """A running session of `game_id` with up to `events` live events (a finishing event is skipped)."""
    game = GAMES[game_id]
    assert game.sample is not None
    session = table.create(game_id, [f"P{i}" for i in range(min(4, game.max_players))])["id"]
    count = tries = 0
    while count < events and tries < events * 20:
        tries += 1
        state = table._load(session).state
        event = game.sample(state, rng)
        if event is None:
            break
        if game.view(game.apply(state, {**event, "source": "tap"})).get("finished"):
            continue  # keep the session running: an evening that is not over yet
        table.submit(session, dict(event))
        count += 1
    return session


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        for game_id in GAMES:
            path = Path(folder) / f"{game_id}.sqlite3"
            table = Table(EventLog(path))
            session = build(table, game_id, LONG.get(game_id, DEFAULT_EVENTS), random.Random(7))
            live = len(table.log.events(session, live_only=True))
            undo, deeper, redo = [], [], []
            for _ in range(5):
                for timings, step in ((undo, table.undo), (deeper, table.undo), (redo, table.redo)):
                    started = time.perf_counter()
                    step(session)
                    timings.append((time.perf_counter() - started) * 1000)
                table.redo(session)
            table.log.close()
            started = time.perf_counter()
            fresh = Table(EventLog(path))
            fresh.rebuild()
            replay = (time.perf_counter() - started) * 1000
            fresh.log.close()
            print(f"{game_id}: {live} events; undo of the last event {summary(undo)}; a second undo in a row "
                  f"(from the nearest checkpoint) {summary(deeper)}; redo {summary(redo)}; "
                  f"replay at start {replay:.0f} ms")

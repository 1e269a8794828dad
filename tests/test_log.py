"""The SQLite event log: append and fold, seq and revision, undo/redo/drop, sessions, players, durability."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from companion.backup import backup
from companion.games import GAMES
from companion.games.diego import DiegoState
from companion.log import SCHEMA_VERSION, EventLog, NewerDatabase, open_log
from companion.table import Table, fold_log

GAME = GAMES["diego-drachenzahn"]
PLAYERS = ("Ada", "Ben", "Cleo")
OPTIONS = GAME.resolve_options({})


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "log.sqlite3"  # the data folder does not exist yet


@pytest.fixture
def log(path: Path) -> Iterator[EventLog]:
    handle = EventLog(path)
    yield handle
    handle.close()


def fold(log: EventLog, session_id: int) -> DiegoState:
    record = log.session(session_id)
    assert record is not None
    return fold_log(log, record, GAME)


def count_rows(log: EventLog, session_id: int | None = None) -> int:
    if session_id is None:
        return log._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    return log._db.execute("SELECT COUNT(*) FROM events WHERE session_id = ?", (session_id,)).fetchone()[0]


def statuses(log: EventLog, session_id: int) -> list[tuple[int, str]]:
    return [(e.seq, e.status) for e in log.events(session_id)]


def marble(log: EventLog, session_id: int, gate: int | None, source: str = "tap") -> tuple[Any, int]:
    event, record = log.append(session_id, "marble", {"gate": gate}, source)
    return event, record.revision


def test_append_and_fold(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS, now=100.0)
    assert session.players == PLAYERS and session.options == OPTIONS and session.game == GAME.id
    assert session.created == 100.0 and session.finished is None and session.revision == 0
    marble(log, session.id, 2)
    marble(log, session.id, None)
    record, _ = log.append(session.id, "marble", {"gate": 2}, "sensor", now=123.5)
    assert (record.seq, record.type, record.payload, record.source, record.time, record.status) == \
        (3, "marble", {"gate": 2}, "sensor", 123.5, "live")
    for player in ("Ben", "Cleo"):
        log.append(session.id, "guess", {"player": player, "gate": 2}, "tap")
    log.append(session.id, "reveal", {"gate": 2}, "tap")
    events = log.events(session.id)
    assert [e.type for e in events] == ["marble"] * 3 + ["guess"] * 2 + ["reveal"]
    assert events[1].payload == {"gate": None}  # a miss survives the JSON round trip
    assert events[2].source == "sensor"
    state = fold(log, session.id)
    assert state.scores == (2, 1, 1)
    assert state.history[0].sources == ("tap", "tap", "sensor")


def test_an_event_is_applied_with_its_type_and_source_and_undone_ones_are_marked(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    marble(log, session.id, 1, "sensor")
    marble(log, session.id, 2)
    log.undo(session.id)
    events = log.events(session.id)
    assert [e.status for e in events] == ["live", "undone"]
    assert events[0].applied() == {"gate": 1, "type": "marble", "source": "sensor"}


def test_seq_numbers_count_up_per_session_and_are_never_reused(log: EventLog) -> None:
    first = log.create_session(GAME.id, PLAYERS, OPTIONS)
    second = log.create_session(GAME.id, ("Dan", "Eve"), OPTIONS)
    assert [marble(log, first.id, g)[0].seq for g in (1, 2, 3)] == [1, 2, 3]
    assert marble(log, second.id, 4)[0].seq == 1  # numbering is per session
    log.undo(first.id)
    assert marble(log, first.id, 5)[0].seq == 4  # seq 3 is undone, then dropped, never reused
    assert [e.seq for e in log.events(first.id)] == [1, 2, 3, 4]
    assert [e.seq for e in log.events(second.id)] == [1]


def test_undo_marks_the_last_live_event_undone(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    for gate in (1, 2, 3):
        marble(log, session.id, gate)
    undone, _ = log.undo(session.id)
    assert undone is not None and undone.seq == 3 and undone.status == "undone"
    assert undone.payload == {"gate": 3}
    assert statuses(log, session.id) == [(1, "live"), (2, "live"), (3, "undone")]
    assert [e.seq for e in log.events(session.id, live_only=True)] == [1, 2]
    undone, _ = log.undo(session.id)
    assert undone is not None and undone.seq == 2
    assert statuses(log, session.id) == [(1, "live"), (2, "undone"), (3, "undone")]
    assert fold(log, session.id).current.marbles == (1,)  # type: ignore[union-attr]
    assert count_rows(log, session.id) == 3


def test_redo_restores_the_most_recently_undone_event(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    for gate in (1, 2, 3):
        marble(log, session.id, gate)
    log.undo(session.id)
    log.undo(session.id)
    redone, _ = log.redo(session.id)
    assert redone is not None and redone.seq == 2 and redone.status == "live"
    assert statuses(log, session.id) == [(1, "live"), (2, "live"), (3, "undone")]
    redone, _ = log.redo(session.id)
    assert redone is not None and redone.seq == 3
    assert statuses(log, session.id) == [(1, "live"), (2, "live"), (3, "live")]
    assert log.redo(session.id)[0] is None
    assert fold(log, session.id).current.marbles == (1, 2, 3)  # type: ignore[union-attr]


def test_a_new_event_drops_the_redo_stack_and_nothing_is_deleted(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    for gate in (1, 2, 3):
        marble(log, session.id, gate)
    log.undo(session.id)
    log.undo(session.id)
    assert log.has_events(session.id, "undone")
    marble(log, session.id, 6)
    assert statuses(log, session.id) == [(1, "live"), (2, "dropped"), (3, "dropped"), (4, "live")]
    assert not log.has_events(session.id, "undone")
    assert log.redo(session.id)[0] is None  # dropped events never come back
    assert count_rows(log, session.id) == 4
    # undo and redo only ever flip statuses: the row count stays
    for _ in range(5):
        log.undo(session.id)
    assert count_rows(log, session.id) == 4
    assert statuses(log, session.id) == [(1, "undone"), (2, "dropped"), (3, "dropped"), (4, "undone")]
    redone, _ = log.redo(session.id)
    assert redone is not None and redone.seq == 1  # the dropped ones are skipped
    marble(log, session.id, 5)
    assert statuses(log, session.id) == [(1, "live"), (2, "dropped"), (3, "dropped"), (4, "dropped"), (5, "live")]
    assert count_rows(log) == 5


def test_status_values_are_checked_by_the_schema(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    marble(log, session.id, 1)
    with pytest.raises(sqlite3.IntegrityError):
        log._db.execute("UPDATE events SET status = 'deleted' WHERE session_id = ?", (session.id,))
    assert statuses(log, session.id) == [(1, "live")]


def test_revision_increases_on_every_change(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    other = log.create_session(GAME.id, PLAYERS, OPTIONS)
    seen = [session.revision]
    for step in ("append", "append", "undo", "redo", "undo", "append", "append", "undo", "undo", "redo"):
        if step == "append":
            _, revision = marble(log, session.id, 1)
        elif step == "undo":
            event, revision = log.undo(session.id)
            assert event is not None
        else:
            event, revision = log.redo(session.id)
            assert event is not None
        assert revision == log.session(session.id).revision  # type: ignore[union-attr]
        seen.append(revision)
    assert seen == list(range(11))
    assert log.session(other.id).revision == 0  # type: ignore[union-attr]  # per session


def test_undo_and_redo_with_nothing_to_do_change_nothing(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    assert log.undo(session.id) == (None, 0)
    assert log.redo(session.id) == (None, 0)
    marble(log, session.id, 1)
    log.undo(session.id)
    before = log.session(session.id)
    assert log.undo(session.id) == (None, 2)
    assert log.session(session.id) == before
    assert statuses(log, session.id) == [(1, "undone")]
    log.redo(session.id)
    assert log.redo(session.id) == (None, 3)
    assert not log.has_events(session.id, "undone") and log.has_events(session.id, "live")


def test_status_is_set_with_the_change_that_causes_it(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS, now=100.0)
    assert session.status == "running" and session.updated == 100.0
    _, record = log.append(session.id, "reveal", {"gate": 1}, "tap", now=200.0, status="finished")
    assert (record.status, record.finished, record.updated, record.revision) == ("finished", 200.0, 200.0, 1)
    event = log.next_flip(session.id, redo=False)
    assert event is not None and event.seq == 1
    record = log.flip(event, now=300.0, status="running")
    assert (record.status, record.finished, record.revision, record.can_undo, record.can_redo) == \
        ("running", None, 2, False, True)
    with pytest.raises(RuntimeError):
        log.flip(event)  # no longer live: a flip decided on an old reading never lands
    record = log.set_status(session.id, "abandoned", now=400.0)
    assert (record.status, record.revision) == ("abandoned", 3)
    assert [r.id for r in log.sessions(status="abandoned")] == [session.id]
    assert log.count_sessions("running") == 0


def test_an_older_database_gains_the_new_columns(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(path)
    old.executescript("""
        CREATE TABLE players (name TEXT PRIMARY KEY, created REAL NOT NULL, last_played REAL);
        CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, players TEXT NOT NULL,
            options TEXT NOT NULL, created REAL NOT NULL, finished REAL, revision INTEGER NOT NULL DEFAULT 0);
        INSERT INTO sessions (game, players, options, created, finished) VALUES ('x', '["A"]', '{}', 1, 5);
        INSERT INTO players (name, created) VALUES ('A', 1);
    """)
    old.commit()
    old.close()
    log = EventLog(path)
    try:
        record = log.session(1)
        assert record is not None and record.status == "finished" and record.rules_version == 1
        assert log.player_profiles()[0]["colour"] is None
        assert log._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        log.close()


def test_a_schema_2_database_gains_the_hero_cards_store(path: Path) -> None:
    """Schema 3 keeps Dračí hrad's hero cards (ruling H2): a database of schema 2 gains the table, keeps its
    sessions and players, and starts with no stored card."""
    log = EventLog(path)
    session = log.create_session(GAME.id, PLAYERS, OPTIONS, now=1.0)
    marble(log, session.id, 3)
    log.close()
    old = sqlite3.connect(path)
    old.executescript("DROP TABLE hero_cards; PRAGMA user_version = 2;")
    old.commit()
    old.close()
    log = EventLog(path)
    try:
        assert log._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert log.hero_cards() == {}
        assert [e.payload for e in log.events(session.id)] == [{"gate": 3}]
        assert set(log.players()) == set(PLAYERS)
        log.set_hero_card("arcana", {"attack": 11, "defence": 11, "lives": 9, "red": 2, "weapons": ["bow"],
                                     "magic": True}, now=5.0)
    finally:
        log.close()
    reopened = EventLog(path)
    try:
        assert reopened.hero_cards()["arcana"]["lives"] == 9
    finally:
        reopened.close()


def test_castle_attachments_are_logged(log: EventLog) -> None:
    first = log.create_session(GAME.id, PLAYERS, OPTIONS)
    assert log.castle_holder() is None
    log.castle_change("attach", first.id, "tap", now=1.0)
    assert log.castle_holder() == first.id
    log.castle_change("release", None, "tap", now=2.0)
    assert log.castle_holder() is None
    assert [(c["action"], c["session_id"]) for c in log.castle_history()] == [("release", None), ("attach", first.id)]


def test_sessions_are_listed_recent_first(log: EventLog) -> None:
    ids = [log.create_session(GAME.id, PLAYERS, OPTIONS, now=float(i)).id for i in range(5)]
    assert [s.id for s in log.sessions()] == ids[::-1]
    assert [s.id for s in log.sessions(limit=2)] == ids[:-3:-1]
    assert log.session(ids[0] + 1000) is None


def test_players_are_remembered_across_sessions_most_recent_first(path: Path) -> None:
    log = EventLog(path)
    try:
        log.create_session(GAME.id, ("Ada", "Ben"), OPTIONS, now=100.0)
        log.create_session(GAME.id, ("Cleo", "Ada"), OPTIONS, now=200.0)
        log.set_colour("Zoe", None, now=300.0)  # known, never played: last
        log.set_colour("Ada", None, now=400.0)  # already known: unchanged
        assert log.players() == ["Ada", "Cleo", "Ben", "Zoe"]
        created = log._db.execute("SELECT created FROM players WHERE name = 'Ada'").fetchone()[0]
        assert created == 100.0  # the first time Ada sat at the table
    finally:
        log.close()
    reopened = EventLog(path)
    try:
        assert reopened.players() == ["Ada", "Cleo", "Ben", "Zoe"]
        reopened.create_session(GAME.id, ("Ben", "Dan"), OPTIONS, now=300.0)
        assert reopened.players() == ["Ben", "Dan", "Ada", "Cleo", "Zoe"]
    finally:
        reopened.close()


def test_wal_and_synchronous_full_are_set(log: EventLog, path: Path) -> None:
    assert log._db.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # 2 = FULL
    assert log._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    marble(log, session.id, 1)
    assert Path(str(path) + "-wal").exists()
    # WAL is a property of the file: a second, independent connection sees it too
    other = sqlite3.connect(path)
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
        # a committed append is visible to another connection at once
        assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
    finally:
        other.close()


def test_a_failed_append_leaves_nothing_behind(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    with pytest.raises(sqlite3.IntegrityError):
        log.append(session.id + 99, "marble", {"gate": 1}, "tap")  # no such session
    assert count_rows(log) == 0
    _, revision = marble(log, session.id, 1)  # the lock and the connection still work
    assert revision == 1


def test_rebuild_after_restart(path: Path) -> None:
    log = EventLog(path)
    table = Table(log)
    session_id = table.create(GAME.id, list(PLAYERS))["id"]
    for event in ({"type": "marble", "gate": 4}, {"type": "marble", "gate": None},
                  {"type": "guess", "player": "Ben", "gate": 4}, {"type": "marble", "gate": 4},
                  {"type": "guess", "player": "Cleo", "gate": 1}, {"type": "reveal", "gate": 4},
                  {"type": "marble", "gate": 2}):
        table.submit(session_id, event, source="sensor" if event["type"] == "marble" else "tap")
    table.undo(session_id)
    table.undo(session_id)  # the reveal too
    table.redo(session_id)
    sessions_before = log.sessions()
    events_before = log.events(session_id)
    view_before = table.view(session_id)
    state_before = fold(log, session_id)
    log.close()

    reopened = EventLog(path)
    try:
        assert reopened.sessions() == sessions_before
        assert reopened.events(session_id) == events_before
        assert fold(reopened, session_id) == state_before
        assert state_before.scores == (2, 1, 0)
        fresh = Table(reopened)
        assert fresh.rebuild() == 1
        assert fresh.view(session_id) == view_before
        assert view_before["can_undo"] and view_before["can_redo"]
    finally:
        reopened.close()


def test_event_record_json(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    record, _ = log.append(session.id, "guess", {"player": "Ben", "gate": 3}, "tap", now=5.0)
    assert record.to_json() == {"seq": 1, "type": "guess", "payload": {"player": "Ben", "gate": 3},
                                "source": "tap", "time": 5.0, "status": "live", "undone": False}
    undone, _ = log.undo(session.id)
    assert undone is not None and undone.to_json()["undone"] is True


def test_concurrent_appends_get_distinct_seqs(log: EventLog) -> None:
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for _ in range(25):
                marble(log, session.id, 1)
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [e.seq for e in log.events(session.id)] == list(range(1, 101))
    assert log.session(session.id).revision == 100  # type: ignore[union-attr]


def test_memory_log_works() -> None:
    log = EventLog(":memory:")
    try:
        session = log.create_session(GAME.id, PLAYERS, OPTIONS)
        marble(log, session.id, 1)
        assert [e.seq for e in log.events(session.id)] == [1]
    finally:
        log.close()


def test_a_newer_database_is_refused_and_left_alone(path: Path) -> None:
    EventLog(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(NewerDatabase):
        open_log(path)
    assert path.read_bytes() == before and not list(path.parent.glob("*.corrupt-*"))


def test_a_corrupt_database_is_moved_aside_and_a_fresh_one_started(path: Path) -> None:
    log = EventLog(path)
    log.create_session(GAME.id, PLAYERS, OPTIONS)
    log.close()
    path.write_bytes(b"this is not a database" * 200)
    fresh, note = open_log(path, now=0.0)
    try:
        assert note is not None and "moved aside" in note
        aside = list(path.parent.glob("*.corrupt-*"))
        assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
        assert fresh.sessions() == [] and fresh.check() is None
    finally:
        fresh.close()
    again, note = open_log(path)
    again.close()
    assert note is None  # the fresh one is sound


def test_a_clean_stop_checkpoints_the_wal(path: Path) -> None:
    log = EventLog(path)
    log.create_session(GAME.id, PLAYERS, OPTIONS)
    log.close()
    wal = Path(f"{path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_backups_are_consistent_copies_and_only_the_last_are_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    log = EventLog(data / "companion.sqlite3")
    session = log.create_session(GAME.id, PLAYERS, OPTIONS)
    marble(log, session.id, 3)
    copies = [backup(data, keep=3, now=float(day * 86400)) for day in range(5)]
    log.close()
    kept = sorted((data / "backups").glob("companion-*.sqlite3"))
    assert kept == copies[-3:]
    copy = EventLog(kept[-1])
    try:
        assert [e.payload for e in copy.events(session.id)] == [{"gate": 3}]
    finally:
        copy.close()

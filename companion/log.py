"""The SQLite event log: sessions, their append-only events, and remembered players.

WAL mode with synchronous=FULL: an append that returned is on disk. Undo and redo only change an event's
status (live -> undone -> live); appending a new event drops the redo stack (undone -> dropped). Nothing
is ever deleted. Each session has a revision that every change raises; writers compare against it.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL,
    last_played REAL
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    revision INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    source TEXT NOT NULL,
    time REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'undone', 'dropped')),
    changed REAL,
    PRIMARY KEY (session_id, seq)
);
"""


@dataclass(frozen=True)
class SessionRecord:
    id: int
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    created: float
    finished: float | None
    revision: int


@dataclass(frozen=True)
class EventRecord:
    session_id: int
    seq: int
    type: str
    payload: dict[str, Any]
    source: str
    time: float
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": self.type, "payload": self.payload, "source": self.source,
                "time": self.time, "status": self.status, "undone": self.status != "live"}


class EventLog:
    """A thread-safe handle on one SQLite database file (or ":memory:")."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _tx(self) -> _Transaction:
        return _Transaction(self._db, self._lock)

    # sessions
    def create_session(self, game: str, players: tuple[str, ...], options: dict[str, Any],
                       now: float | None = None) -> SessionRecord:
        now = time.time() if now is None else now
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO sessions (game, players, options, created) VALUES (?, ?, ?, ?)",
                (game, json.dumps(list(players)), json.dumps(options), now),
            )
            for name in players:
                db.execute("INSERT INTO players (name, created, last_played) VALUES (?, ?, ?) "
                           "ON CONFLICT(name) DO UPDATE SET last_played = excluded.last_played",
                           (name, now, now))
            session_id = int(cur.lastrowid)
        record = self.session(session_id)
        assert record is not None
        return record

    def session(self, session_id: int) -> SessionRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return _session(row) if row else None

    def sessions(self, limit: int = 50) -> list[SessionRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM sessions ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_session(r) for r in rows]

    def set_finished(self, session_id: int, finished: float | None) -> None:
        with self._tx() as db:
            db.execute("UPDATE sessions SET finished = ? WHERE id = ?", (finished, session_id))

    # events
    def append(self, session_id: int, type_: str, payload: dict[str, Any], source: str,
               now: float | None = None) -> tuple[EventRecord, int]:
        """Append one live event, dropping the redo stack; returns it and the new revision."""
        now = time.time() if now is None else now
        with self._tx() as db:
            db.execute("UPDATE events SET status = 'dropped', changed = ? "
                       "WHERE session_id = ? AND status = 'undone'", (now, session_id))
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?",
                             (session_id,)).fetchone()[0]
            db.execute("INSERT INTO events (session_id, seq, type, payload, source, time) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (session_id, seq, type_, json.dumps(payload), source, now))
            revision = _bump(db, session_id)
        return EventRecord(session_id, seq, type_, payload, source, now, "live"), revision

    def undo(self, session_id: int, now: float | None = None) -> tuple[EventRecord | None, int]:
        """Mark the last live event undone; returns it (None if there was none) and the revision."""
        return self._flip(session_id, "live", "undone", "DESC", now)

    def redo(self, session_id: int, now: float | None = None) -> tuple[EventRecord | None, int]:
        """Bring back the most recently undone event; returns it (None if none) and the revision."""
        return self._flip(session_id, "undone", "live", "ASC", now)

    def _flip(self, session_id: int, old: str, new: str, order: str,
              now: float | None) -> tuple[EventRecord | None, int]:
        now = time.time() if now is None else now
        with self._tx() as db:
            row = db.execute(f"SELECT * FROM events WHERE session_id = ? AND status = ? "
                             f"ORDER BY seq {order} LIMIT 1", (session_id, old)).fetchone()
            if row is None:
                revision = db.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]
                return None, revision
            db.execute("UPDATE events SET status = ?, changed = ? WHERE session_id = ? AND seq = ?",
                       (new, now, session_id, row["seq"]))
            revision = _bump(db, session_id)
        event = _event(row)
        return EventRecord(event.session_id, event.seq, event.type, event.payload, event.source,
                           event.time, new), revision

    def events(self, session_id: int, live_only: bool = False) -> list[EventRecord]:
        query = "SELECT * FROM events WHERE session_id = ?"
        if live_only:
            query += " AND status = 'live'"
        with self._lock:
            rows = self._db.execute(query + " ORDER BY seq", (session_id,)).fetchall()
        return [_event(r) for r in rows]

    def has_events(self, session_id: int, status: str) -> bool:
        """Whether the session has an event with this status ('live': undo possible; 'undone': redo)."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM events WHERE session_id = ? AND status = ? LIMIT 1",
                                   (session_id, status)).fetchone()
        return row is not None

    # players
    def players(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name FROM players ORDER BY last_played DESC NULLS LAST, name").fetchall()
        return [r["name"] for r in rows]

    def add_player(self, name: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO players (name, created) VALUES (?, ?)", (name, now))


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT under the log's lock; ROLLBACK on any error."""

    def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
        self._db = db
        self._lock = lock

    def __enter__(self) -> sqlite3.Connection:
        self._lock.acquire()
        self._db.execute("BEGIN IMMEDIATE")
        return self._db

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        try:
            self._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self._lock.release()


def _bump(db: sqlite3.Connection, session_id: int) -> int:
    db.execute("UPDATE sessions SET revision = revision + 1 WHERE id = ?", (session_id,))
    return db.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]


def _session(row: sqlite3.Row) -> SessionRecord:
    return SessionRecord(row["id"], row["game"], tuple(json.loads(row["players"])), json.loads(row["options"]),
                         row["created"], row["finished"], row["revision"])


def _event(row: sqlite3.Row) -> EventRecord:
    return EventRecord(row["session_id"], row["seq"], row["type"], json.loads(row["payload"]), row["source"],
                       row["time"], row["status"])


def iter_live_payloads(events: list[EventRecord]) -> Iterator[dict[str, Any]]:
    """The payloads the fold applies, each with its source, in log order."""
    for event in events:
        if event.status == "live":
            yield {**event.payload, "type": event.type, "source": event.source}

"""The SQLite event log: sessions, their append-only events, remembered players and the kept hero cards.

WAL mode with synchronous=FULL: an append that returned is on disk. Undo and redo only change an event's
status (live -> undone -> live); appending a new event drops the redo stack (undone -> dropped). Nothing
is ever deleted. Each session has a revision that every change raises; writers compare against it.
"""
from __future__ import annotations

import errno
import json
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL,
    last_played REAL,
    colour TEXT
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    revision INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished', 'abandoned')),
    rules_version INTEGER NOT NULL DEFAULT 1,
    updated REAL
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
CREATE TABLE IF NOT EXISTS hero_cards (
    hero TEXT PRIMARY KEY,
    card TEXT NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS castle (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('attach', 'release')),
    session_id INTEGER REFERENCES sessions(id),
    by TEXT NOT NULL
);
"""
SCHEMA_VERSION = 3  # PRAGMA user_version; 0 is the first schema, from before versions were kept (3: hero_cards)
# Columns added since the first schema: (table, column, definition), added to older databases at open.
MIGRATIONS = (
    ("players", "colour", "TEXT"),
    ("sessions", "status", "TEXT NOT NULL DEFAULT 'running'"),
    ("sessions", "rules_version", "INTEGER NOT NULL DEFAULT 1"),
    ("sessions", "updated", "REAL"),
)
SESSION_QUERY = """SELECT s.*,
    EXISTS(SELECT 1 FROM events e WHERE e.session_id = s.id AND e.status = 'live') AS can_undo,
    EXISTS(SELECT 1 FROM events e WHERE e.session_id = s.id AND e.status = 'undone') AS can_redo
    FROM sessions s"""


def storage_full(err: BaseException | None) -> bool:
    """Whether `err` (or what it was raised from) is a write refused for want of space: SQLite's "database or
    disk is full" (SQLITE_FULL) or ENOSPC from a file the companion writes."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, sqlite3.OperationalError) and (
                getattr(err, "sqlite_errorcode", None) == getattr(sqlite3, "SQLITE_FULL", 13)
                or "database or disk is full" in str(err)):
            return True
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        err = err.__cause__ or err.__context__
    return False


class DamagedRow(ValueError):
    """A row of the log that cannot be read as what it should be (see SessionRecord.damaged, EventRecord.damaged)."""


class NewerDatabase(RuntimeError):
    """The database's schema is newer than this companion knows: never touched, never moved aside."""


def open_log(path: str | Path, now: float | None = None) -> tuple[EventLog, str | None]:
    """Open the log at `path`. A corrupt or unreadable database is moved aside with a timestamp (its WAL and
    shared-memory files with it) and a fresh one started: returns the log and a note saying so, or None."""
    problem: str | None
    try:
        log = EventLog(path)
    except NewerDatabase:
        raise
    except sqlite3.DatabaseError as err:
        problem = str(err)
    else:
        try:
            problem = log.check()
        except sqlite3.DatabaseError as err:
            problem = str(err)
        if problem is None:
            return log, None
        log._db.close()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    base = Path(path)
    aside = base.with_name(f"{base.name}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{base}{suffix}")
        if part.exists():
            part.rename(f"{aside}{suffix}")
    note = (f"the session log {base.name} could not be read ({problem}); it was moved aside as {aside.name} "
            "and a fresh log was started")
    return EventLog(path), note


@dataclass(frozen=True)
class SessionRecord:
    id: int
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    created: float
    finished: float | None
    revision: int
    status: str = "running"  # running | finished | abandoned
    rules_version: int = 1
    updated: float | None = None
    can_undo: bool = False
    can_redo: bool = False
    #: What is wrong with the session's row when it is damaged (a hand edit, a bad sector): its players or options
    #: are not valid JSON, or a field has the wrong type. The record then holds harmless values in their place,
    #: and the table sets the session aside, read-only with this reason. None for a sound row.
    damaged: str | None = None


@dataclass(frozen=True)
class EventRecord:
    session_id: int
    seq: int
    type: str
    payload: dict[str, Any]
    source: str
    time: float
    status: str

    #: What is wrong with the event's row when it is damaged (its payload not a JSON object, a field of the wrong
    #: type); its payload is then empty, and a fold that reaches it raises DamagedRow. None for a sound row.
    damaged: str | None = None

    def to_json(self) -> dict[str, Any]:
        listed = {"seq": self.seq, "type": self.type, "payload": self.payload, "source": self.source,
                  "time": self.time, "status": self.status, "undone": self.status != "live"}
        return {**listed, "damaged": self.damaged} if self.damaged else listed

    def applied(self) -> dict[str, Any]:
        """The event as the game's `apply` takes it: its payload with its type and source."""
        return {**self.payload, "type": self.type, "source": self.source}


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
        try:
            self._migrate()
        except Exception:
            self._db.close()
            raise

    def _migrate(self) -> None:
        """Bring an older database up to SCHEMA_VERSION in one transaction; refuse a newer one."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise NewerDatabase(f"{self.path} was written by a newer companion (schema {version}, this one "
                                f"knows {SCHEMA_VERSION}); update the companion or start with another data folder")
        if version == SCHEMA_VERSION:
            self._db.executescript(SCHEMA)  # nothing to migrate; tables added since are created if missing
            return
        with self._tx() as db:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            for table, column, definition in MIGRATIONS:
                have = {row["name"] for row in db.execute(f"PRAGMA table_info({table})")}
                if column not in have:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
            db.execute("UPDATE sessions SET status = 'finished' WHERE finished IS NOT NULL AND status = 'running'")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def check(self) -> str | None:
        """SQLite's quick integrity check: None when the file is sound, else what is wrong."""
        with self._lock:
            rows = [r[0] for r in self._db.execute("PRAGMA quick_check").fetchall()]
        return None if rows == ["ok"] else "; ".join(rows[:3])

    def backup(self, target: str | Path) -> None:
        """A consistent copy of the whole database at `target`, with SQLite's online backup API."""
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        copy = sqlite3.connect(str(target))
        try:
            with self._lock:
                self._db.backup(copy)
        finally:
            copy.close()

    def close(self) -> None:
        """Checkpoint the write-ahead log into the database file (a clean stop), then close."""
        with self._lock:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass  # closing still works; the WAL is replayed at the next open
            self._db.close()

    def _tx(self) -> _Transaction:
        return _Transaction(self._db, self._lock)

    # sessions
    def create_session(self, game: str, players: tuple[str, ...], options: dict[str, Any],
                       now: float | None = None, rules_version: int = 1) -> SessionRecord:
        now = time.time() if now is None else now
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO sessions (game, players, options, created, updated, rules_version) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game, json.dumps(list(players)), json.dumps(options), now, now, rules_version),
            )
            for name in players:
                db.execute("INSERT INTO players (name, created, last_played) VALUES (?, ?, ?) "
                           "ON CONFLICT(name) DO UPDATE SET last_played = excluded.last_played",
                           (name, now, now))
            assert cur.lastrowid is not None
            session_id = cur.lastrowid
        record = self.session(session_id)
        assert record is not None
        return record

    def session(self, session_id: int) -> SessionRecord | None:
        with self._lock:
            return _read_session(self._db, session_id)

    def sessions(self, limit: int = 50, status: str | None = None) -> list[SessionRecord]:
        """Sessions, most recently changed first (of one status, if given)."""
        where, args = ("WHERE s.status = ?", (status, limit)) if status else ("", (limit,))
        with self._lock:
            rows = self._db.execute(f"{SESSION_QUERY} {where} ORDER BY COALESCE(s.updated, s.created) DESC, "
                                    "s.id DESC LIMIT ?", args).fetchall()
        return [_session(r) for r in rows]

    def ping(self, timeout: float) -> None:
        """One cheap read, waiting at most `timeout` s for the log's lock: TimeoutError when another thread holds it
        that long (a write stuck in SQLite), an sqlite3 error when the database does not answer."""
        if not self._lock.acquire(timeout=max(timeout, 0.0)):
            raise TimeoutError(f"the session log has been busy for {timeout:g} s")
        try:
            self._db.execute("SELECT COUNT(*) FROM sessions WHERE status = 'running'").fetchone()
        finally:
            self._lock.release()

    def count_sessions(self, status: str) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM sessions WHERE status = ?", (status,)).fetchone()[0])

    def last_options(self, game: str) -> dict[str, Any] | None:
        """The options of the most recent session of `game` (what the table chose last time)."""
        with self._lock:
            rows = self._db.execute("SELECT options FROM sessions WHERE game = ? ORDER BY id DESC LIMIT 20",
                                    (game,)).fetchall()
        for row in rows:  # a damaged row's options are passed over
            try:
                options = json.loads(row["options"])
            except (TypeError, ValueError):
                continue
            if isinstance(options, dict):
                return options
        return None

    def set_status(self, session_id: int, status: str, now: float | None = None) -> SessionRecord:
        """Mark a session running, finished or abandoned (a change like any other: the revision rises)."""
        now = time.time() if now is None else now
        with self._tx() as db:
            _set_status(db, session_id, status, now)
            _bump(db, session_id, now)
            record = _read_session(db, session_id)
        assert record is not None
        return record

    # events
    def append(self, session_id: int, type_: str, payload: dict[str, Any], source: str,
               now: float | None = None, status: str | None = None) -> tuple[EventRecord, SessionRecord]:
        """Append one live event, dropping the redo stack, and set the session's status (if given) in the same
        transaction; returns the event and the session as committed."""
        now = time.time() if now is None else now
        with self._tx() as db:
            db.execute("UPDATE events SET status = 'dropped', changed = ? "
                       "WHERE session_id = ? AND status = 'undone'", (now, session_id))
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?",
                             (session_id,)).fetchone()[0]
            db.execute("INSERT INTO events (session_id, seq, type, payload, source, time) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (session_id, seq, type_, json.dumps(payload, allow_nan=False), source, now))
            if status is not None:
                _set_status(db, session_id, status, now)
            _bump(db, session_id, now)
            record = _read_session(db, session_id)
        assert record is not None
        return EventRecord(session_id, seq, type_, payload, source, now, "live"), record

    def next_flip(self, session_id: int, redo: bool) -> EventRecord | None:
        """The event an undo (the last live one) or a redo (the first undone one) would flip, or None."""
        old, order = ("undone", "ASC") if redo else ("live", "DESC")
        with self._lock:
            row = self._db.execute(f"SELECT * FROM events WHERE session_id = ? AND status = ? "
                                   f"ORDER BY seq {order} LIMIT 1", (session_id, old)).fetchone()
        return _event(row) if row else None

    def flip(self, event: EventRecord, now: float | None = None, status: str | None = None) -> SessionRecord:
        """Undo a live `event` or redo an undone one (from `next_flip`), setting the session's status (if
        given) in the same transaction; returns the session as committed."""
        now = time.time() if now is None else now
        new = "undone" if event.status == "live" else "live"
        with self._tx() as db:
            changed = db.execute("UPDATE events SET status = ?, changed = ? WHERE session_id = ? AND seq = ? "
                                 "AND status = ?", (new, now, event.session_id, event.seq, event.status)).rowcount
            if changed != 1:
                raise RuntimeError(f"event {event.seq} of session {event.session_id} is no longer {event.status}")
            if status is not None:
                _set_status(db, event.session_id, status, now)
            _bump(db, event.session_id, now)
            record = _read_session(db, event.session_id)
        assert record is not None
        return record

    def undo(self, session_id: int, now: float | None = None) -> tuple[EventRecord | None, int]:
        """Mark the last live event undone; returns it (None if there was none) and the revision."""
        return self._step(session_id, False, now)

    def redo(self, session_id: int, now: float | None = None) -> tuple[EventRecord | None, int]:
        """Bring back the most recently undone event; returns it (None if none) and the revision."""
        return self._step(session_id, True, now)

    def _step(self, session_id: int, redo: bool, now: float | None) -> tuple[EventRecord | None, int]:
        with self._lock:
            event = self.next_flip(session_id, redo)
            if event is None:
                record = self.session(session_id)
                return None, record.revision if record else 0
            record = self.flip(event, now)
        return replace(event, status="live" if redo else "undone"), record.revision

    def events(self, session_id: int, live_only: bool = False, after_seq: int = 0) -> list[EventRecord]:
        """The session's events in order (only the live ones, or only those after `after_seq`, if asked)."""
        query = "SELECT * FROM events WHERE session_id = ? AND seq > ?"
        if live_only:
            query += " AND status = 'live'"
        with self._lock:
            rows = self._db.execute(query + " ORDER BY seq", (session_id, after_seq)).fetchall()
        return [_event(r) for r in rows]

    def has_events(self, session_id: int, status: str) -> bool:
        """Whether the session has an event with this status ('live': undo possible; 'undone': redo)."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM events WHERE session_id = ? AND status = ? LIMIT 1",
                                   (session_id, status)).fetchone()
        return row is not None

    # the castle: which session the beams and the camera belong to
    def castle_holder(self) -> int | None:
        with self._lock:
            row = self._db.execute("SELECT action, session_id FROM castle ORDER BY id DESC LIMIT 1").fetchone()
        return int(row["session_id"]) if row and row["action"] == "attach" else None

    def castle_change(self, action: str, session_id: int | None, by: str, now: float | None = None) -> None:
        """Log that the castle was attached to `session_id` or released."""
        with self._tx() as db:
            db.execute("INSERT INTO castle (time, action, session_id, by) VALUES (?, ?, ?, ?)",
                       (time.time() if now is None else now, action, session_id, by))

    def castle_history(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM castle ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [dict(r) for r in rows]

    # players
    def player_profiles(self) -> list[dict[str, Any]]:
        """Remembered players with their colours, most recently played first."""
        with self._lock:
            rows = self._db.execute("SELECT name, colour, last_played FROM players "
                                    "ORDER BY last_played DESC NULLS LAST, created DESC, name").fetchall()
        return [dict(r) for r in rows]

    def count_players(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM players").fetchone()[0])

    def set_colour(self, name: str, colour: str | None, now: float | None = None) -> None:
        """Remember `name` (if new) with `colour`."""
        now = time.time() if now is None else now
        with self._tx() as db:
            db.execute("INSERT INTO players (name, created, colour) VALUES (?, ?, ?) "
                       "ON CONFLICT(name) DO UPDATE SET colour = COALESCE(excluded.colour, colour)",
                       (name, now, colour))

    # hero cards kept across games (ruling H2 of Dračí hrad); the log stores them, the game checks them
    def hero_cards(self) -> dict[str, dict[str, Any]]:
        """The stored hero cards by hero id (only the ones ever saved)."""
        with self._lock:
            rows = self._db.execute("SELECT hero, card FROM hero_cards ORDER BY hero").fetchall()
        return {r["hero"]: json.loads(r["card"]) for r in rows}

    def set_hero_card(self, hero: str, card: dict[str, Any], now: float | None = None) -> None:
        """Store `hero`'s card (already checked), replacing the one before."""
        with self._tx() as db:
            db.execute("INSERT INTO hero_cards (hero, card, updated) VALUES (?, ?, ?) "
                       "ON CONFLICT(hero) DO UPDATE SET card = excluded.card, updated = excluded.updated",
                       (hero, json.dumps(card, allow_nan=False), time.time() if now is None else now))

    def players(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name FROM players ORDER BY last_played DESC NULLS LAST, name").fetchall()
        return [r["name"] for r in rows]


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


def _bump(db: sqlite3.Connection, session_id: int, now: float | None = None) -> int:
    db.execute("UPDATE sessions SET revision = revision + 1, updated = ? WHERE id = ?",
               (time.time() if now is None else now, session_id))
    return db.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]


def _set_status(db: sqlite3.Connection, session_id: int, status: str, now: float) -> None:
    db.execute("UPDATE sessions SET status = ?, finished = CASE WHEN ? = 'finished' THEN COALESCE(finished, ?) END "
               "WHERE id = ?", (status, status, now, session_id))


def _read_session(db: sqlite3.Connection, session_id: int) -> SessionRecord | None:
    row = db.execute(f"{SESSION_QUERY} WHERE s.id = ?", (session_id,)).fetchone()
    return _session(row) if row else None


def _session(row: sqlite3.Row) -> SessionRecord:
    """The record of a session's row. A damaged row never raises: its record names what is wrong (`damaged`)."""
    problems: list[str] = []
    players = _json_column(row, "players", problems, "a list of names",
                           lambda v: isinstance(v, list) and all(isinstance(p, str) for p in v))
    options = _json_column(row, "options", problems, "an object", lambda v: isinstance(v, dict))
    game = _name_column(row, "game", problems)
    status = row["status"]
    if status not in ("running", "finished", "abandoned"):
        problems.append(f"its status is not running, finished or abandoned ({_shown(status)})")
        status = status if isinstance(status, str) else "running"
    created = _typed(row, "created", (int, float), problems, 0.0)
    return SessionRecord(row["id"], game, tuple(players or ()), options or {}, float(created),
                         _typed(row, "finished", (int, float, type(None)), problems, None),
                         _typed(row, "revision", (int,), problems, 0), status,
                         _typed(row, "rules_version", (int,), problems, 1),
                         _typed(row, "updated", (int, float, type(None)), problems, None),
                         bool(row["can_undo"]), bool(row["can_redo"]), "; ".join(problems) or None)


def _event(row: sqlite3.Row) -> EventRecord:
    """The record of an event's row. A damaged row never raises: its record names what is wrong (`damaged`)."""
    problems: list[str] = []
    payload = _json_column(row, "payload", problems, "an object", lambda v: isinstance(v, dict))
    return EventRecord(row["session_id"], row["seq"], _name_column(row, "type", problems), payload or {},
                       str(row["source"]), _typed(row, "time", (int, float), problems, 0.0), str(row["status"]),
                       "; ".join(problems) or None)


def _json_column(row: sqlite3.Row, column: str, problems: list[str], what: str,
                 sound: Callable[[Any], bool]) -> Any:
    """The JSON in `column` when it is `sound` (`what` it should be), else None (with why, in `problems`)."""
    verb = "are" if column.endswith("s") else "is"
    try:
        value = json.loads(row[column])
    except (TypeError, ValueError) as err:
        problems.append(f"its {column} {verb} not valid JSON ({err})")
        return None
    if sound(value):
        return value
    problems.append(f"its {column} {verb} not {what}")
    return None


def _name_column(row: sqlite3.Row, column: str, problems: list[str]) -> str:
    """`column`'s value when it is a name (text), else how it is shown (with why, in `problems`)."""
    value = row[column]
    if isinstance(value, str):
        return value
    problems.append(f"its {column} is not a name ({_shown(value)})")
    return _shown(value)


def _typed(row: sqlite3.Row, column: str, types: tuple[type, ...], problems: list[str], default: Any) -> Any:
    """`column`'s value when it is of one of `types`, else `default` (with why, in `problems`)."""
    value = row[column]
    if isinstance(value, types) and not isinstance(value, bool):
        return value
    problems.append(f"its {column} is not a {'whole ' if types == (int,) else ''}number ({_shown(value)})")
    return default


def _shown(value: Any) -> str:
    """A stored value as a reason quotes it: short, whatever its type."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

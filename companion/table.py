"""The table: the one path every change takes, validate -> append -> fold -> publish.

A tap on the kiosk, a break-beam gate and the camera all call `Table.submit`. The game's pure `apply`
validates the event against the cached state; only then is it appended to the log, folded into the
cache and published to the session's subscribers. Undo and redo change the log and re-fold it.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Mapping

from .bus import Bus
from .games import GAMES, Game, IllegalEventError
from .log import EventLog, SessionRecord, iter_live_payloads

SOURCES = ("tap", "sensor", "camera", "import")
MAX_NAME = 24


class TableError(Exception):
    """A request the table refuses before the rules are asked. `status` is the HTTP status to answer."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, view: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.view = view


class UnknownSession(TableError):
    status = 404
    code = "not_found"


class StaleWrite(TableError):
    status = 409
    code = "stale"


def topic(session_id: int) -> str:
    return f"session:{session_id}"


class Table:
    def __init__(self, log: EventLog, games: Mapping[str, Game] = GAMES, bus: Bus | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.log = log
        self.games = games
        self.bus = bus or Bus()
        self.clock = clock
        self._lock = threading.RLock()
        self._cache: dict[int, tuple[SessionRecord, Any]] = {}
        self._watchers: list[Callable[[dict[str, Any]], None]] = []

    def watch(self, callback: Callable[[dict[str, Any]], None]) -> None:
        """Call `callback(view)` after every committed change of any session (sensors follow rounds)."""
        self._watchers.append(callback)

    # reading
    def view(self, session_id: int) -> dict[str, Any]:
        with self._lock:
            record, state = self._load(session_id)
            return self._view(record, state)

    def sessions(self, limit: int = 50) -> list[dict[str, Any]]:
        return [self.view(r.id) for r in self.log.sessions(limit)]

    def running(self, game_id: str | None = None) -> int | None:
        """The most recent unfinished session (of `game_id`, if given)."""
        for record in self.log.sessions(200):
            if record.finished is None and (game_id is None or record.game == game_id):
                return record.id
        return None

    def events(self, session_id: int) -> list[dict[str, Any]]:
        record, _ = self._load(session_id)
        return self.games[record.game].redact([e.to_json() for e in self.log.events(session_id)])

    def rebuild(self) -> int:
        """Fold every unfinished session from the log into the cache (at start); returns how many."""
        with self._lock:
            self._cache.clear()
            ids = [r.id for r in self.log.sessions(10_000) if r.finished is None]
            for session_id in ids:
                self._load(session_id)
            return len(ids)

    # writing
    def create(self, game_id: Any, players: Any, options: Any = None) -> dict[str, Any]:
        game = self.games.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise TableError(f"unknown game {game_id!r}; known games: {', '.join(sorted(self.games))}")
        names = _player_names(players)
        if not game.min_players <= len(names) <= game.max_players:
            raise IllegalEventError(game.rulings[0] if game.rulings else "players",
                                    f"{game.name} is for {game.min_players} to {game.max_players} players")
        resolved = game.resolve_options(options)
        state = game.setup(tuple(names), resolved)
        with self._lock:
            record = self.log.create_session(game.id, tuple(names), resolved, now=self.clock())
            self._cache[record.id] = (record, state)
            view = self._view(record, state)
            self._notify(view)
            return view

    def submit(self, session_id: int, event: Any, *, source: str = "tap",
               expected_seq: int | None = None) -> dict[str, Any]:
        """Validate, append, fold and publish one event; raises RuleError/TableError and changes nothing."""
        if not isinstance(event, Mapping):
            raise TableError("an event must be a JSON object with a 'type'")
        kind = event.get("type")
        if not isinstance(kind, str) or not kind:
            raise TableError("an event needs a 'type' (a string)")
        if source not in SOURCES:
            raise TableError(f"unknown source {source!r}")
        payload = {k: v for k, v in event.items() if k not in ("type", "source", "expected_seq")}
        with self._lock:
            record, state = self._load(session_id)
            self._check_seq(record, state, expected_seq)
            game = self.games[record.game]
            new_state = game.apply(state, {**payload, "type": kind, "source": source})
            _, revision = self.log.append(session_id, kind, payload, source, now=self.clock())
            return self._commit(record, revision, new_state)

    def undo(self, session_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        return self._flip(session_id, expected_seq, redo=False)

    def redo(self, session_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        return self._flip(session_id, expected_seq, redo=True)

    def _flip(self, session_id: int, expected_seq: int | None, redo: bool) -> dict[str, Any]:
        with self._lock:
            record, state = self._load(session_id)
            self._check_seq(record, state, expected_seq)
            flip = self.log.redo if redo else self.log.undo
            event, revision = flip(session_id, now=self.clock())
            if event is None:
                raise TableError(f"nothing to {'redo' if redo else 'undo'}", self._view(record, state))
            return self._commit(record, revision, self._fold(record))

    # internals
    def _check_seq(self, record: SessionRecord, state: Any, expected_seq: int | None) -> None:
        if expected_seq is None:
            return
        if isinstance(expected_seq, bool) or not isinstance(expected_seq, int):
            raise TableError("'expected_seq' must be a whole number")
        if expected_seq != record.revision:
            raise StaleWrite(f"the table has moved on (seq {record.revision}, you sent {expected_seq}); "
                             "here is the fresh state", self._view(record, state))

    def _commit(self, record: SessionRecord, revision: int, state: Any) -> dict[str, Any]:
        game = self.games[record.game]
        finished = bool(game.view(state).get("finished"))
        if finished != (record.finished is not None):
            self.log.set_finished(record.id, self.clock() if finished else None)
        fresh = self.log.session(record.id)
        assert fresh is not None and fresh.revision == revision
        self._cache[record.id] = (fresh, state)
        view = self._view(fresh, state)
        self.bus.publish(topic(record.id), "session", view)
        self._notify(view)
        return view

    def _notify(self, view: dict[str, Any]) -> None:
        for callback in self._watchers:
            callback(view)

    def _load(self, session_id: Any) -> tuple[SessionRecord, Any]:
        if isinstance(session_id, bool) or not isinstance(session_id, int) or not 0 < session_id < 2**62:
            raise UnknownSession(f"no session {session_id!r}")
        cached = self._cache.get(session_id)
        if cached is not None:
            return cached
        record = self.log.session(session_id)
        if record is None or record.game not in self.games:
            raise UnknownSession(f"no session {session_id}")
        loaded = (record, self._fold(record))
        self._cache[session_id] = loaded
        return loaded

    def _fold(self, record: SessionRecord) -> Any:
        return fold_log(self.log, record, self.games[record.game])

    def _view(self, record: SessionRecord, state: Any) -> dict[str, Any]:
        game = self.games[record.game]
        view = game.view(state)
        return {
            "id": record.id,
            "game": record.game,
            "game_name": game.name,
            "players": list(record.players),
            "seq": record.revision,
            "created": record.created,
            "finished": bool(view.get("finished")),
            "winners": view.get("winners", []),
            "round": view.get("round"),
            "scores": view.get("scores", {}),
            "can_undo": self.log.has_events(record.id, "live"),
            "can_redo": self.log.has_events(record.id, "undone"),
            "state": view,
        }


def fold_log(log: EventLog, record: SessionRecord, game: Game) -> Any:
    """The session's state: the game's pure `apply` folded over its live events, from `setup`."""
    state = game.setup(record.players, record.options)
    for payload in iter_live_payloads(log.events(record.id, live_only=True)):
        state = game.apply(state, payload)
    return state


def _player_names(players: Any) -> list[str]:
    if not isinstance(players, (list, tuple)) or not players:
        raise TableError("'players' must be a list of names in seat order")
    names: list[str] = []
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise TableError("every player needs a name")
        clean = " ".join(name.split())
        if len(clean) > MAX_NAME:
            raise TableError(f"player names have at most {MAX_NAME} characters")
        if clean in names:
            raise TableError(f"{clean!r} is seated twice")
        names.append(clean)
    return names

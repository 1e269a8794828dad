"""The table: the one path every change takes, validate -> apply -> append -> fold -> publish.

A tap on the kiosk, a break-beam gate and the camera all call `Table.submit`. The event is checked against
its declared schema (companion.games.schema) and against who may make it (an event only the table's hardware
makes, such as a camera reading, is refused from a tap: ``EventType.sources``), then the game's pure `apply`
judges it against the cached state; only then is it appended to the log (with the session's new status, in one
transaction), folded into the cache and published to the session's subscribers. Undo and redo decide everything
before they commit: the log is folded with the change first, so an error can never follow a commit.

A session the rules can no longer fold (or whose game is unknown, or whose rows in the log are damaged) is set
aside: shown read-only with the reason, never a reason for the companion not to start.
"""
from __future__ import annotations

import logging
import random
import re
import threading
import time
import unicodedata
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from .bus import Bus
from .games import GAMES, Game, IllegalEventError
from .games.base import RULES_VERSION, RuleError, is_clean_text
from .games.schema import validate_event
from .log import DamagedRow, EventLog, EventRecord, SessionRecord

log = logging.getLogger(__name__)

SOURCES = ("tap", "sensor", "camera", "import")
MAX_NAME = 24
MAX_OPEN_SESSIONS = 30   # unfinished games at once: enough for any table, bounded for the SD card
CHECKPOINT_EVERY = 100  # live events between kept states: an undo refolds at most this many
MAX_PLAYERS = 500        # remembered player names
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


class TableError(Exception):
    """A request the table refuses before the rules are asked. `status` is the HTTP status to answer."""

    status = 400
    code = "malformed"

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


class ReadOnly(TableError):
    """A write to a game that is abandoned or set aside."""

    status = 409
    code = "read_only"


class AlreadyFinished(TableError):
    """Abandoning a game that is already finished: it keeps its result."""

    status = 409
    code = "already_finished"


class Conflict(TableError):
    """Nothing to undo or redo, or too many open games: the request is sound but the table cannot do it now."""

    status = 409
    code = "conflict"


class NotFromSource(TableError):
    """An event its game lets only the table's own hardware make (``EventType.sources``: a camera reading), from
    another writer; for a tap (a page or an API client) the code is ``not_from_tap``."""

    status = 403

    def __init__(self, message: str, source: str) -> None:
        super().__init__(message)
        self.code = f"not_from_{source}"


def topic(session_id: int) -> str:
    return f"session:{session_id}"


@dataclass(frozen=True)
class Loaded:
    """A session as the table holds it: its record and folded state, or why it is set aside."""

    record: SessionRecord
    game: Game | None
    state: Any = None
    view: dict[str, Any] | None = None  # the game's view of `state`
    set_aside: str | None = None
    #: The state before the last live event, when known: an undo of one mis-tap then needs no refold of a long
    #: evening's log. Unknown (None) after a start or an undo.
    before_last: Any = None
    #: States kept every CHECKPOINT_EVERY live events, as (seq of the event folded last, state), oldest first:
    #: an undo further back folds from the nearest one instead of from `setup`. States are immutable, so these
    #: share most of their parts with each other.
    checkpoints: tuple[tuple[int, Any], ...] = ()
    #: Live events folded since the last checkpoint (or since `setup`).
    since_checkpoint: int = 0


ViewField = Callable[[SessionRecord], Mapping[str, Any]]
#: The value of an option a new game leaves out, from a store kept across games (e.g. the hero cards).
OptionSource = Callable[[], Any]


class Table:
    def __init__(self, log: EventLog, games: Mapping[str, Game] = GAMES, bus: Bus | None = None,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None) -> None:
        self.log = log
        self.games = games
        self.bus = bus or Bus()
        self.clock = clock
        self.rng = rng or random.SystemRandom()  # the command layer's dice; never used by `apply`
        self._lock = threading.RLock()
        self._cache: dict[int, Loaded] = {}
        self._watchers: list[Callable[[dict[str, Any]], None]] = []
        self._fields: list[ViewField] = []
        self._sources: dict[tuple[str, str], OptionSource] = {}
        self._colours = {p["name"]: p["colour"] for p in log.player_profiles()}

    @property
    def lock(self) -> threading.RLock:
        """Held while a change is decided, committed and told to the watchers (who run holding it). Whatever must
        read and change the table as one step (the castle) takes this lock, never one of its own around the
        table's: two locks taken in opposite orders by a watcher and a request would stop both for good."""
        return self._lock

    def watch(self, callback: Callable[[dict[str, Any]], None]) -> None:
        """Call `callback(view)` after every committed change of any session (sensors follow rounds)."""
        self._watchers.append(callback)

    def add_view_field(self, field: ViewField) -> None:
        """Add keys to every session view (e.g. whether the session holds the castle)."""
        self._fields.append(field)

    def provide_option(self, game_id: str, option_id: str, source: OptionSource) -> None:
        """A new `game_id` session created without `option_id` takes `source()` as its value, written into the
        session's options (so its replay never depends on the store again); a value given explicitly wins."""
        self._sources[(game_id, option_id)] = source

    # reading
    def view(self, session_id: int) -> dict[str, Any]:
        with self._lock:
            return self._session_view(self._load(session_id))

    def sessions(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [self.view(r.id) for r in self.log.sessions(limit, status)]

    def running(self, game_id: str | None = None) -> int | None:
        """The most recently changed running session (of `game_id`, if given)."""
        for record in self.log.sessions(200, "running"):
            if game_id is None or record.game == game_id:
                return record.id
        return None

    def events(self, session_id: int) -> list[dict[str, Any]]:
        with self._lock:
            loaded = self._load(session_id)
            listing = [e.to_json() for e in self.log.events(session_id)]
        return loaded.game.redact(listing) if loaded.game and not loaded.set_aside else listing

    def rebuild(self) -> int:
        """Fold every running session from the log into the cache (at start); returns how many. A session
        that cannot be folded is set aside, never a reason to stop."""
        with self._lock:
            self._cache.clear()
            records = self.log.sessions(10_000, "running")
            for record in records:
                loaded = self._load(record.id)
                if loaded.set_aside:
                    log.warning("session %d set aside: %s", record.id, loaded.set_aside)
            return len(records)

    # players
    def players(self) -> list[dict[str, Any]]:
        """Remembered players with their colours, most recently played first."""
        return self.log.player_profiles()

    def remember_player(self, name: Any, colour: Any = None) -> list[dict[str, Any]]:
        """Remember a player (new or known) and, if given, their colour."""
        clean = self._known_spelling(_player_name(name))
        if colour is not None and (not isinstance(colour, str) or not COLOUR.match(colour)):
            raise TableError("'colour' must be a colour like #0072b2")
        with self._lock:
            if clean not in self._colours and self.log.count_players() >= MAX_PLAYERS:
                raise Conflict(f"the companion remembers at most {MAX_PLAYERS} players")
            self.log.set_colour(clean, colour, now=self.clock())
            self._colours[clean] = colour or self._colours.get(clean)
        return self.players()

    def _known_spelling(self, name: str) -> str:
        """The name as the companion knows it when it knows it in other capitals ("anna" is Anna), else ``name``."""
        with self._lock:  # another request may be remembering a player meanwhile
            known = list(self._colours)
        if name in known:
            return name
        key = _name_key(name)
        return next((k for k in known if _name_key(k) == key), name)

    # writing
    def create(self, game_id: Any, players: Any, options: Any = None) -> dict[str, Any]:
        game = self.games.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise TableError(f"unknown game {game_id!r}; known games: {', '.join(sorted(self.games))}")
        if not isinstance(players, (list, tuple)) or not players:
            raise TableError("'players' must be a list of names in seat order")
        if len(players) > game.max_players or len(players) < game.min_players:
            raise IllegalEventError(game.rulings[0] if game.rulings else "players",
                                    f"{game.name} is for {game.min_players} to {game.max_players} players")
        names = [self._known_spelling(name) for name in _player_names(players)]
        resolved = game.resolve_options(self._provided(game.id, options))
        state = game.setup(tuple(names), resolved)
        game_view = game.view(state)
        with self._lock:
            if self.log.count_sessions("running") >= MAX_OPEN_SESSIONS:
                raise Conflict(f"{MAX_OPEN_SESSIONS} games are unfinished; finish or abandon one first")
            record = self.log.create_session(game.id, tuple(names), resolved, now=self.clock(),
                                             rules_version=game.rules_version)
            for name in names:
                self._colours.setdefault(name, None)
            loaded = Loaded(record, game, state, game_view)
            self._cache[record.id] = loaded
            self._notify(self._session_view(loaded))
            return self._session_view(loaded)  # after the watchers: a new game may have taken the castle

    def submit(self, session_id: int, event: Any, *, source: str = "tap",
               expected_seq: int | None = None) -> dict[str, Any]:
        """Validate, apply, append, fold and publish one event; raises RuleError/TableError, changing nothing."""
        if source not in SOURCES:
            raise TableError(f"unknown source {source!r}")
        if not isinstance(event, Mapping):
            raise TableError("an event must be a JSON object with a 'type'")
        if not isinstance(event.get("type"), str) or not event["type"]:
            raise TableError("an event needs a 'type' (a string)")
        with self._lock:
            loaded = self._writable(session_id, expected_seq)
            assert loaded.game is not None
            _check_source(loaded.game, event["type"], source)
            if loaded.game.prepare is not None:  # a command: e.g. the server rolls the dice left out
                validate_event(loaded.game, event)
                event = loaded.game.prepare(loaded.state, event, self.rng)
            payload = validate_event(loaded.game, event)
            kind = event["type"]
            state = loaded.game.apply(loaded.state, {**payload, "type": kind, "source": source})
            game_view = loaded.game.view(state)
            status = _status(game_view)
            appended, record = self.log.append(session_id, kind, payload, source, now=self.clock(),
                                          status=status if status != loaded.record.status else None)
            return self._commit(_advanced(loaded, Loaded(record, loaded.game, state, game_view,
                                                         before_last=loaded.state), appended.seq))

    def undo(self, session_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        return self._flip(session_id, expected_seq, redo=False)

    def redo(self, session_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        return self._flip(session_id, expected_seq, redo=True)

    def abandon(self, session_id: int, expected_seq: int | None = None) -> dict[str, Any]:
        """End an unfinished game without a result; it stays in the log, marked abandoned."""
        with self._lock:
            loaded = self._writable(session_id, None)  # set aside or abandoned already: read-only
            if loaded.record.status == "finished":  # whatever the page saw: a game that ended keeps its result
                raise AlreadyFinished(f"this game of {_game_name(loaded)} is already finished and keeps its result; "
                                      "only an unfinished game is abandoned", self._session_view(loaded))
            self._check_seen(loaded, expected_seq)  # a stale page is refused after all that
            record = self.log.set_status(session_id, "abandoned", now=self.clock())
            return self._commit(replace(loaded, record=record))

    def republish(self, session_id: int) -> dict[str, Any]:
        """Publish a session's view again (after something outside its log, such as the castle, changed)."""
        with self._lock:
            view = self.view(session_id)
            self._publish(view)
            return view

    def _flip(self, session_id: int, expected_seq: int | None, redo: bool) -> dict[str, Any]:
        with self._lock:
            loaded = self._writable(session_id, expected_seq)
            assert loaded.game is not None
            event = self.log.next_flip(session_id, redo)
            if event is None:
                raise Conflict(f"nothing to {'redo' if redo else 'undo'}", self._session_view(loaded))
            if event.damaged:  # an undone event whose row is damaged is never brought back
                raise Conflict(f"event {event.seq} cannot be redone: its row in the session log is damaged "
                               f"({event.damaged})", self._session_view(loaded))
            # Decided before anything is written; an error here leaves the log as it was.
            if redo:  # the first undone event directly follows the last live one: apply it to the state
                state = loaded.game.apply(loaded.state, event.applied())
                after = _advanced(loaded, Loaded(loaded.record, loaded.game, state, before_last=loaded.state),
                                  event.seq)
            elif loaded.before_last is not None:  # undoing the last event: the state before it is at hand
                after = _rewound(loaded, event.seq, loaded.before_last)
            else:  # fold from the nearest checkpoint before the undone event
                kept = tuple(c for c in loaded.checkpoints if c[0] < event.seq)
                start_seq, start = kept[-1] if kept else (0, None)
                events = [e for e in self.log.events(session_id, after_seq=start_seq) if e.seq != event.seq]
                folded = fold_events(loaded.game, loaded.record, events, start=start)
                after = replace(loaded, state=folded.state, before_last=None,
                                checkpoints=kept + folded.checkpoints, since_checkpoint=folded.since_checkpoint)
            game_view = loaded.game.view(after.state)
            status = _status(game_view)
            record = self.log.flip(event, now=self.clock(),
                                   status=status if status != loaded.record.status else None)
            change = {"action": "redo" if redo else "undo", "seq": event.seq,
                      "text": _describe(loaded.game, event, loaded.record.options)}
            return self._commit(replace(after, record=record, view=game_view), change=change)

    # internals
    def _provided(self, game_id: str, options: Any) -> Any:
        """`options` with the stored value of every provided option it leaves out (anything else unchanged,
        for the game's own check to judge)."""
        if options is not None and not isinstance(options, Mapping):
            return options
        given = dict(options or {})
        for (game, option_id), source in self._sources.items():
            if game == game_id and option_id not in given:
                given[option_id] = source()
        return given

    def _writable(self, session_id: int, expected_seq: int | None) -> Loaded:
        loaded = self._load(session_id)
        if loaded.set_aside:
            raise ReadOnly(f"this game is set aside and read-only: {loaded.set_aside}", self._session_view(loaded))
        if loaded.record.status == "abandoned":
            raise ReadOnly("this game was abandoned; it is kept read-only", self._session_view(loaded))
        self._check_seen(loaded, expected_seq)
        return loaded

    def _check_seen(self, loaded: Loaded, expected_seq: int | None) -> None:
        """StaleWrite when the request saw another revision of the session than the log's (None: not guarded)."""
        if expected_seq is None:
            return
        if isinstance(expected_seq, bool) or not isinstance(expected_seq, int):
            raise TableError("'expected_seq' must be a whole number")
        if expected_seq != loaded.record.revision:
            raise StaleWrite(f"someone changed the game a moment ago (it is at seq {loaded.record.revision}, "
                             f"the request saw {expected_seq}); here is the fresh state", self._session_view(loaded))

    def _commit(self, loaded: Loaded, change: dict[str, Any] | None = None) -> dict[str, Any]:
        """After the log has committed: cache, publish, notify. Nothing here can refuse the change. An undo or
        redo's view says what it changed (`change`), for every page that shows it."""
        self._cache[loaded.record.id] = loaded
        view = self._session_view(loaded)
        if change is not None:
            view["change"] = change
        self._publish(view)
        self._notify(view)
        fresh = self._session_view(loaded)  # after the watchers: the castle may have moved
        return {**fresh, "change": change} if change is not None else fresh

    def _publish(self, view: dict[str, Any]) -> None:
        try:
            self.bus.publish(topic(view["id"]), "session", view)
        except Exception:  # a subscriber's fault never undoes a committed change
            log.exception("publishing session %s failed", view["id"])

    def _notify(self, view: dict[str, Any]) -> None:
        for callback in self._watchers:
            try:
                callback(view)
            except Exception:
                log.exception("a watcher failed on session %s", view["id"])

    def _load(self, session_id: Any) -> Loaded:
        if isinstance(session_id, bool) or not isinstance(session_id, int) or not 0 < session_id < 2**62:
            raise UnknownSession(f"no session {session_id!r}")
        cached = self._cache.get(session_id)
        if cached is not None:
            return cached
        record = self.log.session(session_id)
        if record is None:
            raise UnknownSession(f"no session {session_id}")
        game = self.games.get(record.game)
        if record.damaged:  # a hand edit or a bad sector: shown as it can be read, never written to
            loaded = Loaded(record, game, set_aside=f"its record in the session log is damaged: {record.damaged}")
        elif game is None:
            loaded = Loaded(record, None, set_aside=f"the companion does not know the game {record.game!r}")
        elif record.rules_version > game.rules_version:  # played on a newer companion: its rules are not known here
            loaded = Loaded(record, game, set_aside=(
                f"it was recorded under rules version {record.rules_version} of {game.name}, newer than this "
                f"companion's {game.rules_version}; update the companion to go on with it (its log is kept)"))
        else:
            try:
                folded = fold_events(game, record, self.log.events(record.id, live_only=True))
                loaded = Loaded(record, game, folded.state, game.view(folded.state),
                                checkpoints=folded.checkpoints, since_checkpoint=folded.since_checkpoint)
            except DamagedRow as err:  # an event's row a hand edit or a bad sector left unreadable
                loaded = Loaded(record, game, set_aside=f"its log is damaged: {err}")
            except Exception as err:  # today's rules refuse an event recorded under older ones
                loaded = Loaded(record, game, set_aside=_why(err, record, game))
        self._cache[session_id] = loaded
        return loaded

    def _session_view(self, loaded: Loaded) -> dict[str, Any]:
        record = loaded.record
        game_view: dict[str, Any] = loaded.view or {}
        status = "set_aside" if loaded.set_aside else record.status
        view = {
            "id": record.id,
            "game": record.game,
            "game_name": _game_name(loaded),
            "players": list(record.players),
            "colours": {p: self._colours.get(p) for p in record.players},
            "options": record.options,
            "rules_version": record.rules_version,
            "seq": record.revision,
            "created": record.created,
            "updated": record.updated or record.created,
            "status": status,
            "reason": loaded.set_aside,
            "read_only": status in ("abandoned", "set_aside"),
            "finished": bool(game_view.get("finished")),
            "winners": game_view.get("winners", []),
            "no_winner": bool(game_view.get("no_winner")),
            "round": game_view.get("round"),
            "scores": game_view.get("scores", {}),
            "turn": game_view.get("turn"),
            "breakdown": game_view.get("breakdown", []),
            "breakdown_heading": game_view.get("breakdown_heading", "Round"),
            "can_undo": record.can_undo and status in ("running", "finished"),
            "can_redo": record.can_redo and status in ("running", "finished"),
            "state": loaded.view,
        }
        for field in self._fields:
            view.update(field(record))
        return view


@dataclass(frozen=True)
class Folded:
    """A fold's result: the state, and the checkpoints taken on the way (see `Loaded`)."""

    state: Any
    checkpoints: tuple[tuple[int, Any], ...]
    since_checkpoint: int


def fold_events(game: Game, record: SessionRecord, events: list[EventRecord], start: Any = None) -> Folded:
    """The game's pure `apply` folded over the live ones of `events`, from `start` (the state before the
    first of them; by default `setup`), keeping a checkpoint every CHECKPOINT_EVERY live events."""
    state = game.setup(record.players, {**record.options, RULES_VERSION: record.rules_version}) if start is None \
        else start
    checkpoints: list[tuple[int, Any]] = []
    since = 0
    for event in events:
        if event.status != "live":
            continue
        if event.damaged:
            raise DamagedRow(f"event {event.seq}: {event.damaged}")
        state = game.apply(state, event.applied())
        since += 1
        if since == CHECKPOINT_EVERY:
            checkpoints.append((event.seq, state))
            since = 0
    return Folded(state, tuple(checkpoints), since)


def fold_log(log: EventLog, record: SessionRecord, game: Game) -> Any:
    """The session's state: the game's pure `apply` folded over its live events, from `setup`."""
    return fold_events(game, record, log.events(record.id, live_only=True)).state


def _advanced(before: Loaded, after: Loaded, seq: int) -> Loaded:
    """`after` (one live event, `seq`, past `before`) with `before`'s checkpoints, and a new one when due."""
    since = before.since_checkpoint + 1
    if since < CHECKPOINT_EVERY:
        return replace(after, checkpoints=before.checkpoints, since_checkpoint=since)
    return replace(after, checkpoints=before.checkpoints + ((seq, after.state),), since_checkpoint=0)


def _rewound(loaded: Loaded, seq: int, state: Any) -> Loaded:
    """`loaded` with its last live event (`seq`) undone, given the state before it."""
    kept = tuple(c for c in loaded.checkpoints if c[0] < seq)
    if len(kept) < len(loaded.checkpoints):  # the undone event was the newest checkpoint's
        return replace(loaded, state=state, before_last=None, checkpoints=kept, since_checkpoint=CHECKPOINT_EVERY - 1)
    return replace(loaded, state=state, before_last=None, since_checkpoint=loaded.since_checkpoint - 1)


def _game_name(loaded: Loaded) -> str:
    return loaded.game.name if loaded.game else loaded.record.game


def _status(game_view: Mapping[str, Any]) -> str:
    return "finished" if game_view.get("finished") else "running"


def _check_source(game: Game, kind: str, source: str) -> None:
    """NotFromSource when the game declares that `source` may not make a `kind` event (``EventType.sources``): the
    one check, for every game, of who may make what. Only new events are checked: a log folds as recorded."""
    declared = game.event_type(kind)
    if declared is None or declared.made_by(source):
        return
    message = declared.refusal if source == "tap" and declared.refusal else (
        f"a {kind!r} event of {game.name} comes only from {' or '.join(declared.sources or ())}, not from {source}")
    raise NotFromSource(message, source)


def _describe(game: Game, event: EventRecord, options: Mapping[str, Any]) -> str:
    try:
        return game.describe(event.applied(), options)
    except Exception:
        return event.type


def _why(err: Exception, record: SessionRecord, game: Game) -> str:
    detail = err.message if isinstance(err, RuleError) else f"{type(err).__name__}: {err}"
    return (f"its log no longer folds under the rules of today (recorded under rules version "
            f"{record.rules_version}, now {game.rules_version}): {detail}")


#: Characters a name never keeps: invisible ones (zero-width space, word joiner, byte-order mark, soft hyphen) and
#: the direction controls that would turn the text after a name around on the page. The zero-width joiner and the
#: variation selectors stay, for emoji.
UNSEEN = re.compile("[\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _name_key(name: str) -> str:
    """What two names that look alike share: "Ada", "ADA", "Ada" in full-width letters, "Ada" and a zero-width
    joiner are one player at the table."""
    return "".join(c for c in unicodedata.normalize("NFKC", name) if unicodedata.category(c) != "Cf").casefold()


def _player_name(name: Any) -> str:
    if not isinstance(name, str):
        raise TableError("every player needs a name")
    name = UNSEEN.sub("", name)
    if not name.strip():
        raise TableError("every player needs a name")
    clean = unicodedata.normalize("NFC", " ".join(name.split()))  # "Zoë" however it was typed
    if len(clean) > MAX_NAME or not is_clean_text(clean):
        raise TableError(f"a player's name is plain text of at most {MAX_NAME} characters")
    return clean


def _player_names(players: Any) -> list[str]:
    names: list[str] = []
    for name in players:
        clean = _player_name(name)
        if _name_key(clean) in (_name_key(n) for n in names):
            raise TableError(f"{clean!r} is seated twice")
        names.append(clean)
    return names

"""The castle (break-beams and camera) belongs to one Diego Drachenzahn session at a time, explicitly.

A reading goes to the session that holds the castle, through the table like a tap; with no holder, or a
holder whose game is not running, it is only shown. Attaching and releasing are logged. A new Diego game
takes the castle when no running game holds it.
"""
from __future__ import annotations

import logging
import sqlite3
from typing import Any

from .games.base import RuleError
from .log import storage_full
from .table import Table, TableError

DIEGO = "diego-drachenzahn"

log = logging.getLogger(__name__)


class CastleError(TableError):
    status = 409
    code = "conflict"


class Castle:
    def __init__(self, table: Table, game_id: str = DIEGO) -> None:
        self.table = table
        self.game_id = game_id
        # The table's own lock: attaching is called from the table's watchers (which hold it) as well as by
        # requests, and republishes through the table; a lock of the castle's would be taken in both orders.
        self._lock = table.lock
        self._holder = table.log.castle_holder()
        table.add_view_field(lambda record: {"castle": record.id == self._holder})
        table.watch(self._on_view)

    @property
    def holder(self) -> int | None:
        """The session that holds the castle, or None."""
        return self._holder

    def status(self) -> dict[str, Any]:
        return {"session": self._holder}

    def attach(self, session_id: Any, by: str = "tap") -> dict[str, Any]:
        """Give the castle to a running Diego session (taking it from whichever held it)."""
        with self._lock:  # the game cannot end between the check and the attaching
            view = self.table.view(session_id)  # UnknownSession for a bad id
            if view["game"] != self.game_id:
                raise CastleError(f"the castle is for {self.game_id}; {view['game_name']} does not use it")
            if view["status"] != "running":
                raise CastleError(f"game {session_id} is {view['status'].replace('_', ' ')}; "
                                  "the castle goes to a running game")
            previous = self._holder
            if previous != session_id:
                self.table.log.castle_change("attach", session_id, by, now=self.table.clock())
                self._holder = session_id
                self._republish(previous, session_id)
        return self.status()

    def release(self, by: str = "tap") -> dict[str, Any]:
        """Take the castle from whichever session holds it; readings are then only shown."""
        with self._lock:
            previous = self._holder
            if previous is not None:
                self.table.log.castle_change("release", None, by, now=self.table.clock())
                self._holder = None
                self._republish(previous)
        return self.status()

    def submit(self, event: dict[str, Any], source: str) -> tuple[int | None, str | None]:
        """A reading for the holder's running round: (session, None) once scored, else (session or None,
        why not)."""
        holder = self._holder
        if holder is None:
            return None, "the castle is not attached to a game"
        try:
            self.table.submit(holder, event, source=source)
        except (RuleError, TableError) as err:
            return holder, getattr(err, "message", str(err))
        except sqlite3.Error as err:  # the log could not take it (a full disk): recorded nowhere, so say so
            log.error("a %s reading for game %s was not recorded: %s", source, holder, err)
            space = "the Pi's storage is full; free some space, then " if storage_full(err) else ""
            return holder, f"not recorded: the session log could not be written ({err}); {space}enter it by tap"
        return holder, None

    def running_round(self) -> bool:
        """Whether the holder has a round running (readings would be scored)."""
        holder = self._holder
        return holder is not None and self.table.view(holder)["status"] == "running"

    def _on_view(self, view: dict[str, Any]) -> None:
        if view["id"] == self._holder and view["status"] == "abandoned":
            self.release(by="abandoned")
            return
        # A new game of ours takes a free castle: free when nobody holds it or its holder is not running.
        if view["game"] != self.game_id or view["seq"] != 0 or view["status"] != "running":
            return
        holder = self._holder
        if holder is None or holder == view["id"] or self.table.view(holder)["status"] != "running":
            if holder != view["id"]:
                self.attach(view["id"], by="new game")

    def _republish(self, *session_ids: int | None) -> None:
        for session_id in session_ids:
            if session_id is not None:
                self.table.republish(session_id)

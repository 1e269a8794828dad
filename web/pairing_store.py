"""Paired devices and pairing requests.

Paired devices live in the session log's SQLite file, in tables of their own, through a connection of
their own: only a SHA-256 hash of each device's token is stored, never the token. Every request, approval,
refusal and revocation is kept in `pairing_log` and written to the Python log. Requests waiting for a tap
on the kiosk are short-lived and kept in memory.
"""
from __future__ import annotations

import hashlib
import logging
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS paired_devices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    address TEXT NOT NULL,
    paired REAL NOT NULL,
    last_seen REAL,
    revoked REAL
);
CREATE TABLE IF NOT EXISTS pairing_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('requested', 'approved', 'refused', 'paired', 'revoked')),
    device_id INTEGER,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    code TEXT
);
"""

#: How long a pairing request waits for a tap on the kiosk, and an approved one for the tablet to collect it.
REQUEST_TTL_S = 300.0
#: Requests waiting at once: more is a flood, not a table of friends.
MAX_PENDING = 8
#: ... and from one address.
MAX_PENDING_PER_ADDRESS = 2
#: last_seen is written at most this often per device.
SEEN_EVERY_S = 60.0


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Device:
    id: int
    name: str
    user_agent: str
    address: str
    paired: float
    last_seen: float | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "user_agent": self.user_agent, "address": self.address,
                "paired": self.paired, "last_seen": self.last_seen}


@dataclass
class PairingRequest:
    """A device asking to pair; `claim` is the secret in its cookie that lets it collect the approval."""
    id: str
    code: str
    claim_hash: str
    name: str
    user_agent: str
    address: str
    created: float
    status: str = "pending"  # pending | approved | refused
    decided: float | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "code": self.code, "name": self.name, "user_agent": self.user_agent,
                "address": self.address, "created": self.created, "status": self.status,
                "expires": self.created + REQUEST_TTL_S}


class TooManyRequests(Exception):
    """More pairing requests are waiting than the kiosk should be shown."""


class DeviceStore:
    """Thread-safe: paired devices in SQLite, pending requests in memory."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._pending: dict[str, PairingRequest] = {}

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # pairing requests
    def request(self, name: str, user_agent: str, address: str, now: float | None = None
                ) -> tuple[PairingRequest, str]:
        """A new pending request with a 4-digit code; returns it and the claim secret for the device's cookie."""
        now = time.time() if now is None else now
        with self._lock:
            self._expire(now)
            waiting = [r for r in self._pending.values() if r.status == "pending"]
            if len(waiting) >= MAX_PENDING:
                raise TooManyRequests(f"{MAX_PENDING} pairing requests are already waiting on the kiosk")
            if sum(r.address == address for r in waiting) >= MAX_PENDING_PER_ADDRESS:
                raise TooManyRequests("this device's address already has pairing requests waiting on the kiosk")
            codes = {r.code for r in self._pending.values()}
            code = f"{secrets.randbelow(10_000):04d}"
            while code in codes:
                code = f"{secrets.randbelow(10_000):04d}"
            claim = secrets.token_urlsafe(32)
            pending = PairingRequest(secrets.token_urlsafe(12), code, token_hash(claim), name, user_agent,
                                     address, now)
            self._pending[pending.id] = pending
            self._record("requested", None, pending, now)
        return pending, claim

    def pending(self, now: float | None = None) -> list[PairingRequest]:
        """The requests waiting for a tap on the kiosk, oldest first."""
        with self._lock:
            self._expire(time.time() if now is None else now)
            return sorted((r for r in self._pending.values() if r.status == "pending"), key=lambda r: r.created)

    def claimed_by(self, claim: str | None, now: float | None = None) -> PairingRequest | None:
        """The request whose claim secret this is, if it has not expired."""
        if not claim:
            return None
        wanted = token_hash(claim)
        with self._lock:
            self._expire(time.time() if now is None else now)
            return next((r for r in self._pending.values() if secrets.compare_digest(r.claim_hash, wanted)), None)

    def withdraw(self, claim: str | None) -> bool:
        """The device itself gives up its request."""
        with self._lock:
            found = self.claimed_by(claim)
            if found is not None:
                del self._pending[found.id]
            return found is not None

    def decide(self, request_id: str, approve: bool, now: float | None = None) -> PairingRequest | None:
        """Approve or refuse a pending request (a tap on the kiosk); None if it is unknown or expired."""
        now = time.time() if now is None else now
        with self._lock:
            self._expire(now)
            found = self._pending.get(request_id)
            if found is None or found.status != "pending":
                return None
            found.status, found.decided = ("approved" if approve else "refused"), now
            self._record(found.status, None, found, now)
        return found

    def collect(self, claim: str | None, now: float | None = None) -> tuple[Device, str] | None:
        """Turn the caller's approved request into a paired device; returns it and its new token, once."""
        now = time.time() if now is None else now
        with self._lock:
            found = self.claimed_by(claim, now)
            if found is None or found.status != "approved":
                return None
            del self._pending[found.id]
            token = secrets.token_urlsafe(32)
            cur = self._db.execute(
                "INSERT INTO paired_devices (token_hash, name, user_agent, address, paired, last_seen) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (token_hash(token), found.name, found.user_agent, found.address, now, now))
            device = Device(int(cur.lastrowid or 0), found.name, found.user_agent, found.address, now, now)
            self._record("paired", device.id, found, now)
        return device, token

    def _expire(self, now: float) -> None:
        for key in [k for k, r in self._pending.items() if now - r.created > REQUEST_TTL_S]:
            del self._pending[key]

    # paired devices
    def device(self, token: str | None, address: str = "", now: float | None = None) -> Device | None:
        """The paired, unrevoked device holding this token; notes when it was last seen."""
        if not token:
            return None
        now = time.time() if now is None else now
        with self._lock:
            row = self._db.execute("SELECT * FROM paired_devices WHERE token_hash = ? AND revoked IS NULL",
                                   (token_hash(token),)).fetchone()
            if row is None:
                return None
            if row["last_seen"] is None or now - row["last_seen"] >= SEEN_EVERY_S:
                self._db.execute("UPDATE paired_devices SET last_seen = ?, address = ? WHERE id = ?",
                                 (now, address or row["address"], row["id"]))
                return _device(row, last_seen=now)
        return _device(row)

    def devices(self) -> list[Device]:
        """Paired devices that are not revoked, most recently paired first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM paired_devices WHERE revoked IS NULL ORDER BY paired DESC, id DESC").fetchall()
        return [_device(r) for r in rows]

    def rename(self, device_id: int, name: str) -> Device | None:
        """Give a paired device the name the table knows it by; None if it is unknown or revoked."""
        if not 0 < device_id < 2**63:  # beyond SQLite's integers: no such device
            return None
        with self._lock:
            if self._db.execute("UPDATE paired_devices SET name = ? WHERE id = ? AND revoked IS NULL",
                                (name, device_id)).rowcount == 0:
                return None
            row = self._db.execute("SELECT * FROM paired_devices WHERE id = ?", (device_id,)).fetchone()
        log.info("pairing: device %d named %s", device_id, name)
        return _device(row)

    def revoke(self, device_id: int, now: float | None = None) -> Device | None:
        """Revoke a paired device (its token stops working at once); None if it is unknown or revoked."""
        now = time.time() if now is None else now
        if not 0 < device_id < 2**63:  # beyond SQLite's integers: no such device
            return None
        with self._lock:
            row = self._db.execute("SELECT * FROM paired_devices WHERE id = ? AND revoked IS NULL",
                                   (device_id,)).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE paired_devices SET revoked = ? WHERE id = ?", (now, device_id))
            device = _device(row)
            self._db.execute("INSERT INTO pairing_log (time, action, device_id, name, address) "
                             "VALUES (?, 'revoked', ?, ?, ?)", (now, device.id, device.name, device.address))
        log.info("pairing: revoked device %d (%s, %s)", device.id, device.name, device.address)
        return device

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """The pairing log, newest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM pairing_log ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [dict(r) for r in rows]

    def _record(self, action: str, device_id: int | None, request: PairingRequest, now: float) -> None:
        self._db.execute("INSERT INTO pairing_log (time, action, device_id, name, address, code) "
                         "VALUES (?, ?, ?, ?, ?, ?)",
                         (now, action, device_id, request.name, request.address, request.code))
        log.info("pairing: %s %s (%s, code %s)%s", action, request.name, request.address, request.code,
                 f" as device {device_id}" if device_id is not None else "")


def _device(row: sqlite3.Row, last_seen: float | None = None) -> Device:
    return Device(row["id"], row["name"], row["user_agent"], row["address"], row["paired"],
                  row["last_seen"] if last_seen is None else last_seen)

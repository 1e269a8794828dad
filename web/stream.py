"""Server-Sent Events: the full session view on connect, then one message per change.

A stream is a native ASGI handler on the server's event loop (web/server.py routes
GET /api/sessions/<id>/stream here): it holds no thread. The table's bus delivers from request and sensor
threads; an `AsyncSubscription` hands each message to the loop without ever blocking the publisher.
A stream ends when its client goes away, when a write cannot complete within WRITE_TIMEOUT seconds
(a client that stopped reading), when it falls `Bus` maxsize messages behind, on `stop_streams`, and for a device
no longer paired on `end_device_streams`.
"""
from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import OrderedDict
from concurrent.futures import Executor
from typing import Any, Awaitable, Callable, Literal, Sequence

from flask import Flask

from companion.bus import Bus, Message, Subscription
from companion.table import Table, TableError, topic

from .errors import ERROR_CODES
from .trust import stream_access

log = logging.getLogger(__name__)

SENSORS_TOPIC = "sensors"
WRITE_TIMEOUT_S = 5.0  # default of app.config["WRITE_TIMEOUT"]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
           (b"x-accel-buffering", b"no")]


def write_timeout_s(app: Flask) -> float:
    """Seconds a response write may wait for its client before the connection is dropped."""
    return float(app.config.get("WRITE_TIMEOUT", WRITE_TIMEOUT_S))


def sse(name: str, data: Any, event_id: int | None = None) -> str:
    lines = [f"event: {name}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    # keys sorted, as Flask's JSON answers have them: a page knows the echo of its own tap by its text
    lines.append("data: " + json.dumps(data, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n\n"


class AsyncSubscription(Subscription):
    """A bus subscription read on an asyncio loop; `_offer` may be called from any thread and never blocks.

    Read with `next` (not `get`). `None` in the queue ends the stream: the subscription overflowed, the client
    left, or the server stops.
    """

    def __init__(self, bus: Bus, topics: tuple[str, ...], maxsize: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(bus, topics, maxsize)
        self._loop = loop
        self._messages: asyncio.Queue[Message | None] = asyncio.Queue()
        self._limit = maxsize
        self._pending = 0
        self._lock = threading.Lock()

    def _offer(self, message: Message) -> None:
        with self._lock:
            full = self.overflowed or self._pending >= self._limit
            if full:
                self.overflowed = True
            else:
                self._pending += 1
        if full:
            self.end()
        else:
            self._hand_over(message)

    def end(self, last: Message | None = None) -> None:
        """Unsubscribe and wake the reader with the end mark (from any thread), after the message ``last`` if
        given."""
        self.close()
        if last is not None:
            with self._lock:
                self._pending += 1
            self._hand_over(last)
        self._hand_over(None)

    def _hand_over(self, message: Message | None) -> None:
        try:
            self._loop.call_soon_threadsafe(self._messages.put_nowait, message)
        except RuntimeError:  # the loop is closed: nobody reads this subscription any more
            self.close()

    async def next(self, timeout: float) -> Message | Literal[False] | None:
        """The next message; None at the end; False when nothing came within `timeout` seconds."""
        try:
            message = self._messages.get_nowait()
        except asyncio.QueueEmpty:
            try:
                async with asyncio.timeout(timeout):
                    message = await self._messages.get()
            except TimeoutError:
                return False
        if message is not None:
            with self._lock:
                self._pending -= 1
        return message


def subscribe(bus: Bus, topics: tuple[str, ...], loop: asyncio.AbstractEventLoop) -> AsyncSubscription:
    """Register an AsyncSubscription with the bus, as `Bus.subscribe` does for thread subscriptions."""
    subscription = AsyncSubscription(bus, topics, bus.maxsize, loop)
    bus.add(subscription)
    return subscription


NO_LONGER_PAIRED: Message = ("pairing", {"paired": False})
"""The last message of a stream whose device was revoked (`end_device_streams`)."""


class _Streams:
    """The open streams of one app, each with the paired device that opened it (None: the kiosk, or a device that
    watches only), so that shutdown can end them all and a revocation the device's; and the devices revoked while
    this server runs (ids are never given again), so that a stream its device opened as it was revoked ends too."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stopping = False
        self.open: dict[AsyncSubscription, int | None] = {}
        self.revoked: set[int] = set()
        self._recent: OrderedDict[int, tuple[Any, bytes]] = OrderedDict()  # id(data) -> (data, SSE bytes)

    def encoded(self, name: str, data: Any) -> bytes:
        """The SSE bytes of one bus message, encoded once for all the streams that receive it (loop thread)."""
        hit = self._recent.get(id(data))
        if hit is not None and hit[0] is data:  # `data` is held here, so its id cannot be reused meanwhile
            return hit[1]
        body = sse(name, data, data.get("seq") if name == "session" else None).encode()
        self._recent[id(data)] = (data, body)
        if len(self._recent) > 16:
            self._recent.popitem(last=False)
        return body

    def add(self, subscription: AsyncSubscription, device: int | None) -> None:
        with self.lock:
            self.open[subscription] = device
            stopping = self.stopping
            revoked = device in self.revoked  # between its check and here: it would stream on, unpaired
        if stopping:
            subscription.end()
        elif revoked:
            subscription.end(NO_LONGER_PAIRED)

    def discard(self, subscription: AsyncSubscription) -> None:
        with self.lock:
            self.open.pop(subscription, None)


def _streams(app: Flask) -> _Streams:
    streams = app.extensions.get("streams")
    return streams if streams is not None else app.extensions.setdefault("streams", _Streams())


def stop_streams(app: Flask) -> None:
    """End every open stream and any stream opened later (on shutdown); safe from any thread."""
    streams = _streams(app)
    with streams.lock:
        streams.stopping = True
        ending = list(streams.open)
    for subscription in ending:
        subscription.end()


def end_device_streams(app: Flask, device: int) -> None:
    """End the open streams of a device no longer paired (revoked on the kiosk, or unpaired by itself), each after
    a last `pairing` message that tells its page at once: it reconnects as a device that watches only, where the
    table lets one watch (SPECTATORS), and can no longer write. Safe from any thread."""
    streams = _streams(app)
    with streams.lock:
        streams.revoked.add(device)
        ending = [subscription for subscription, opener in streams.open.items() if opener == device]
    for subscription in ending:
        subscription.end(NO_LONGER_PAIRED)


async def send_json(send: Send, status: int, body: dict[str, Any],
                    extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """A complete JSON response."""
    data = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *extra]})
    await send({"type": "http.response.body", "body": data})


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


async def session_stream(app: Flask, session_id: int, pool: Executor, scope: Scope, receive: Receive,
                         send: Send) -> None:
    """GET: the stream of one session; HEAD: its headers only, never a subscription; other methods: 405."""
    method = scope["method"]
    if method not in ("GET", "HEAD"):
        await send_json(send, 405, error_body(ERROR_CODES[405], "a stream is read with GET"),
                        [(b"allow", b"GET, HEAD")])
        return
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
    client = scope.get("client") or ("", 0)  # the socket's peer, never a header
    refused, device = stream_access(app, headers.get("host", ""), client[0], headers.get("cookie", ""))
    if refused is not None:
        await send_json(send, refused[0], error_body(refused[1], refused[2]))
        return
    table: Table = app.extensions["table"]
    loop = asyncio.get_running_loop()
    # Subscribed before the first view is read, so that no change falls in between.
    subscription = subscribe(table.bus, (topic(session_id), SENSORS_TOPIC), loop) if method == "GET" else None
    try:
        try:
            first, sensors = await loop.run_in_executor(pool, _opening, app, table, session_id)
        except TableError as err:
            await send_json(send, err.status, error_body(err.code, err.message))
            return
        except Exception:
            log.exception("could not open the stream of session %s", session_id)
            message = "something went wrong on the companion; nothing was changed"
            await send_json(send, 500, error_body(ERROR_CODES[500], message))
            return
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        if subscription is None:
            await send({"type": "http.response.body", "body": b""})
            return
        await _run(app, subscription, device, first, sensors, receive, send)
    finally:
        if subscription is not None:
            subscription.close()


def _opening(app: Flask, table: Table, session_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    return table.view(session_id), app.extensions["sensors"].status()


async def _run(app: Flask, subscription: AsyncSubscription, device: int | None, first: dict[str, Any],
               sensors: dict[str, Any], receive: Receive, send: Send) -> None:
    """Write the opening messages, then each change, until the stream ends (``device``: the paired device that
    reads it, if any)."""
    keepalive = float(app.config["SSE_KEEPALIVE"])
    alive = sse("alive", {"every": keepalive}).encode()
    write_timeout = write_timeout_s(app)
    streams = _streams(app)
    streams.add(subscription, device)
    watcher = asyncio.create_task(_until_disconnect(receive, subscription))
    try:
        body = ("retry: 1000\n\n" + sse("session", first, first["seq"]) + sse("sensors", sensors)).encode() + alive
        while True:
            if not await _write(send, body, write_timeout):
                log.info("dropped a stream: its client took nothing for %.0f s", write_timeout)
                return  # the response stays incomplete: the server closes the connection
            message = await subscription.next(keepalive)
            if message is None:
                break
            if message is False:
                # with TCP_USER_TIMEOUT (web/server.py) the server notices a vanished peer; a page that hears nothing
                # for a few of these knows its network stalled, though its connection looks open (kit.js follow)
                body = alive
            else:
                body = streams.encoded(*message)
        await _write(send, b"", write_timeout, more=False)
    finally:
        watcher.cancel()
        streams.discard(subscription)
        subscription.close()


async def _write(send: Send, body: bytes, timeout: float, more: bool = True) -> bool:
    """Send one piece of the stream; False when the client did not take it within `timeout` seconds."""
    try:
        async with asyncio.timeout(timeout):
            await send({"type": "http.response.body", "body": body, "more_body": more})
    except TimeoutError:
        return False
    return True


async def _until_disconnect(receive: Receive, subscription: AsyncSubscription) -> None:
    """End the stream as soon as the client goes away."""
    while (await receive())["type"] != "http.disconnect":
        pass
    subscription.end()

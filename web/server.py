"""The HTTP server: uvicorn (h11, pure Python) in front of the Flask app.

The Server-Sent Events streams are native async handlers on the event loop (web/stream.py): an open page
holds no thread. Every other request goes to Flask through a2wsgi, on a bounded pool of `threads`; its body
is read here first, so a slow or oversized upload holds no thread either: over the app's MAX_CONTENT_LENGTH
it is refused with a 413 at once (declared length) or as soon as the limit is passed (chunked).
A write a client does not take within WRITE_TIMEOUT seconds drops its connection. The client address
Flask sees (REMOTE_ADDR) is always the socket's peer: proxy headers are not read.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
from typing import Any, cast

import uvicorn
from a2wsgi import WSGIMiddleware
from flask import Flask

from . import stream
from .errors import ERROR_CODES
from .stream import App, Receive, Scope, Send, error_body, send_json, stop_streams

log = logging.getLogger(__name__)

#: A session number of at most 19 digits (ids stay below 2**62): a longer one is no stream path, and Flask answers
#: its JSON 404 (int() would refuse past 4300 digits with a 500).
STREAM_PATH = re.compile(r"/api/sessions/([0-9]{1,19})/stream")
GRACE_S = 5               # on shutdown, how long open requests may take to finish
TICK_S = 0.1              # uvicorn's tick: its date header renewed, a stop by signal seen
SHUTDOWN_POLL_S = 0.01    # on shutdown, how often the connections left are looked at
USER_TIMEOUT_MS = 10_000  # the kernel gives up on a peer that acknowledges nothing for this long
INCOMPLETE = "ASGI callable returned without completing response."


class ServerApp:
    """The ASGI application: streams on the loop, everything else to Flask on the thread pool."""

    def __init__(self, flask_app: Flask, threads: int = 16) -> None:
        self.flask_app = flask_app
        middleware = WSGIMiddleware(cast(Any, flask_app), workers=threads)
        self.pool = middleware.executor
        self.wsgi = cast(App, middleware)  # a2wsgi's precise ASGI message types, taken as plain dicts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan is off and websockets are not served
            return
        match = STREAM_PATH.fullmatch(scope["path"])
        if match:
            await stream.session_stream(self.flask_app, int(match[1]), self.pool, scope, receive, send)
        else:
            await self._flask(scope, receive, send)

    async def _flask(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.flask_app.config.get("MAX_CONTENT_LENGTH")
        headers = scope["headers"]
        declared = next((int(v) for k, v in headers if k == b"content-length"), None)  # h11 checked it
        if limit is not None and declared is not None and declared > limit:
            await _too_large(send, limit)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if limit is not None and len(body) > limit:
                await _too_large(send, limit)
                return
        if any(k == b"transfer-encoding" for k, _ in headers):  # chunked: Flask is given the length read
            headers = [(k, v) for k, v in headers if k != b"transfer-encoding"]
            scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        bounded = _bounded(send, stream.write_timeout_s(self.flask_app))
        await self.wsgi(scope, _replay(bytes(body), receive), bounded)


def create_server_app(flask_app: Flask, threads: int = 16) -> ServerApp:
    return ServerApp(flask_app, threads)


async def _too_large(send: Send, limit: int) -> None:
    await send_json(send, 413, error_body(ERROR_CODES[413], f"the body is over {limit // 1024} KiB"),
                    [(b"connection", b"close")])


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body, already read, as one message; then the client's own messages (its disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> dict[str, Any]:
        return pending.pop() if pending else await receive()

    return replay


def _bounded(send: Send, timeout: float) -> Send:
    """`send` that gives up on a client that takes nothing for `timeout` s: the rest of the response is
    dropped (so that the Flask thread finishes) and the server closes the connection."""
    stalled = False

    async def bounded(message: dict[str, Any]) -> None:
        nonlocal stalled
        if not stalled:
            try:
                async with asyncio.timeout(timeout):
                    await send(message)
            except TimeoutError:
                stalled = True
                log.info("dropped a response: its client took nothing for %.0f s", timeout)

    return bounded


class _DroppedIsExpected(logging.Filter):
    """A connection dropped for a client that stopped reading ends with its response incomplete."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != INCOMPLETE


_DROPPED_IS_EXPECTED = _DroppedIsExpected()


def listen(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: any free port); peers that stop acknowledging are let go by the kernel."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=2048)
    if hasattr(socket, "TCP_USER_TIMEOUT"):  # Linux: inherited by every accepted connection
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, USER_TIMEOUT_MS)
    return sock


class Server(uvicorn.Server):
    """uvicorn serving `flask_app`; ends the streams when it stops. `run(sockets=[listen(...)])` blocks;
    SIGINT/SIGTERM stop it when run in the main thread, `stop()` from any thread."""

    def __init__(self, flask_app: Flask, threads: int = 16) -> None:
        self.flask_app = flask_app
        self.server_app = create_server_app(flask_app, threads)
        config = uvicorn.Config(self.server_app, http="h11", ws="none", lifespan="off", loop="asyncio",
                                interface="asgi3", proxy_headers=False, server_header=False, access_log=False,
                                log_config=None, log_level="warning", timeout_graceful_shutdown=GRACE_S)
        super().__init__(config)
        logging.getLogger("uvicorn.error").addFilter(_DROPPED_IS_EXPECTED)  # added once, however many servers
        self._woken = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None  # the server's, once it runs

    def stop(self) -> None:
        """Stop serving, from any thread: the server's loop wakes at once (a signal is seen within a tick)."""
        self.should_exit = True
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed already: the server has stopped
                loop.call_soon_threadsafe(self._woken.set)

    async def main_loop(self) -> None:
        """uvicorn's ticks (its date header, `should_exit` looked at), each cut short by `stop()`."""
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), TICK_S)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """End the streams, take no new connection, let open requests finish within GRACE_S, then drop the
        connections left (clients that never read) and cancel what still runs."""
        stop_streams(self.flask_app)
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()  # closes an idle connection now, a busy one once its response is sent
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GRACE_S
        while (self.server_state.connections or self.server_state.tasks) and not self.force_exit \
                and loop.time() < deadline:
            await asyncio.sleep(SHUTDOWN_POLL_S)
        for connection in list(self.server_state.connections):
            connection.transport.abort()
        for task in self.server_state.tasks:
            task.cancel()
        self.server_app.pool.shutdown(wait=False, cancel_futures=True)


def serve(flask_app: Flask, sock: socket.socket, threads: int = 16) -> None:
    """Serve on `sock` until SIGINT/SIGTERM; the signal is raised again once the server has stopped."""
    Server(flask_app, threads).run(sockets=[sock])

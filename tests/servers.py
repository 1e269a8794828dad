"""Real servers for tests: web/server.py on 127.0.0.1, an ephemeral port, stopped when the block ends."""
from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from typing import Any, Iterator

from flask import Flask

from tests.waiting import PATIENCE_S, wait_for
from web.server import Server, listen


@contextlib.contextmanager
def serving(app: Flask, threads: int = 16) -> Iterator[str]:
    """Serve `app` in a thread; yields the base URL. Its streams end and the server stops with the block."""
    sock = listen("127.0.0.1", 0)  # listening before the thread starts: the URL is good at once
    server = Server(app, threads)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="test-server", daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started or not thread.is_alive())
        if not server.started:
            raise RuntimeError("the test server did not start")
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True  # seen by the server's loop within 0.1 s; it ends the streams and stops
        thread.join(PATIENCE_S)
        if thread.is_alive():
            server.force_exit = True
            thread.join(PATIENCE_S)
        sock.close()


def call(url: str, body: Any = None, method: str | None = None, timeout: float = 10) -> tuple[int, Any]:
    """A JSON request; returns (status, decoded body) for errors as well."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method or ("POST" if body is not None else "GET"),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class SseReader:
    """Reads Server-Sent Events from an open response, one (event, data) at a time."""

    def __init__(self, url: str, timeout: float = 10) -> None:
        self.response = urllib.request.urlopen(url, timeout=timeout)

    def next(self) -> tuple[str, Any]:
        name, data = "message", []
        while True:
            raw = self.response.readline()
            if not raw:
                raise EOFError("the stream ended")
            line = raw.decode().rstrip("\n")
            if not line:
                if data:
                    return name, json.loads("\n".join(data))
                name = "message"
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)

    def next_named(self, wanted: str) -> Any:
        while True:
            name, data = self.next()
            if name == wanted:
                return data

    def close(self) -> None:
        self.response.close()

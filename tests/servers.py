"""Real servers for tests: waitress on 127.0.0.1, an ephemeral port, stopped when the block ends."""
from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from typing import Any, Iterator

from flask import Flask
from waitress import create_server, wasyncore

from tests.waiting import PATIENCE_S
from web.stream import stop_streams


@contextlib.contextmanager
def serving(app: Flask, threads: int = 16) -> Iterator[str]:
    """Serve `app` in a thread; yields the base URL."""
    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=server.run, name="test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        stop_streams(app)
        server.task_dispatcher.shutdown(timeout=5)
        # Close every socket from the server's own loop thread, so that its loop ends cleanly.
        try:
            server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
        except OSError:
            # Seen rarely on a loaded machine: the server (and its trigger pipe with it, hence EBADF) was already
            # closed when the teardown got here. The loop cannot be asked any more; close what remains from here.
            wasyncore.close_all(server._map, ignore_all=True)
        thread.join(timeout=PATIENCE_S)


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

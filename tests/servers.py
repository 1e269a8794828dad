"""Real servers for tests: web/server.py on 127.0.0.1, an ephemeral port, stopped when the block ends."""
from __future__ import annotations

import contextlib
import json
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterator

from flask import Flask

from companion.bus import Bus
from tests.waiting import PATIENCE_S, wait_for
from web.server import Server, listen

ROOT = Path(__file__).resolve().parent.parent


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
        server.stop()  # it ends the streams and stops
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


def new_diego_at(base: str) -> dict:
    """A new Diego Drachenzahn game for Ada, Ben and Cleo on the server at ``base``; its view."""
    status, view = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben", "Cleo"]})
    assert status == 201
    return view


class SseReader:
    """Reads Server-Sent Events from an open response, one (event, data) at a time."""

    def __init__(self, url: str | urllib.request.Request, timeout: float = 10) -> None:
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

    def next_named(self, wanted: str, within: float | None = None) -> Any:
        """The data of the next `wanted` event; AssertionError when none came within ``within`` seconds (the stream's
        `alive` events keep the connection busy, so its own timeout never comes)."""
        deadline = None if within is None else time.monotonic() + within
        while True:
            name, data = self.next()
            if name == wanted:
                return data
            assert deadline is None or time.monotonic() < deadline, f"no {wanted!r} event within {within} s"

    def close(self) -> None:
        self.response.close()


def subscribers(bus: Bus) -> int:
    """How many subscriptions the bus holds (of any topic): each open stream is one."""
    return bus.count()


def connect(base: str, receive_buffer: int | None = None) -> socket.socket:
    """A raw TCP connection to the server at `base`; a small `receive_buffer` makes a client that fills up fast."""
    parts = urllib.parse.urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(PATIENCE_S)
    sock.connect((parts.hostname, parts.port))
    return sock


def request_head(path: str, method: str = "GET", headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body (by Content-Length) of one HTTP response on a raw socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError(f"the connection closed before a response: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in header_lines)}
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(status_line.split()[1]), headers, body[:length]


class SseCrowd:
    """Many streams of one URL on raw sockets, all read by one thread, or never read (`idle`).

    `seqs[i]` are the session seqs reading stream i received; `opened` counts those that got their first view.
    """

    def __init__(self, url: str, readers: int, idle: int = 0) -> None:
        parts = urllib.parse.urlsplit(url)
        base, path = f"{parts.scheme}://{parts.netloc}", parts.path
        self.seqs: list[set[int]] = [set() for _ in range(readers)]
        self.ended = 0
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.idle = [connect(base, receive_buffer=4096) for _ in range(idle)]
        self._readers = [connect(base) for _ in range(readers)]
        for index, sock in enumerate(self._readers):
            sock.sendall(request_head(path))
            sock.setblocking(False)
            self._selector.register(sock, selectors.EVENT_READ, [index, b""])
        for sock in self.idle:
            sock.sendall(request_head(path))
        self._thread = threading.Thread(target=self._read, name="sse-crowd", daemon=True)
        self._thread.start()

    def opened(self) -> int:
        with self._lock:
            return sum(1 for s in self.seqs if s)

    def all_have(self, seq: int) -> bool:
        with self._lock:
            return all(seq in s for s in self.seqs)

    def received(self, seq: int) -> int:
        """How many reading streams have received session seq `seq`."""
        with self._lock:
            return sum(1 for s in self.seqs if seq in s)

    def _read(self) -> None:
        while not self._stop.is_set() and self._selector.get_map():
            for key, _ in self._selector.select(timeout=0.1):
                state = key.data
                try:
                    chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self._selector.unregister(key.fileobj)
                    with self._lock:
                        self.ended += 1
                    continue
                *messages, state[1] = (state[1] + chunk).split(b"\n\n")
                for message in messages:
                    self._take(state[0], message)

    def _take(self, index: int, message: bytes) -> None:
        """One SSE message (the HTTP head and chunk framing around it are lines that are simply ignored)."""
        lines = [line.rstrip(b"\r") for line in message.split(b"\n")]
        if b"event: session" in lines:
            seq = next(int(line[4:]) for line in lines if line.startswith(b"id: "))
            with self._lock:
                self.seqs[index].add(seq)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(PATIENCE_S)
        for sock in self._readers + self.idle:
            sock.close()
        self._selector.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data: Path, port: int) -> subprocess.Popen:
    """`companion serve` in a process of its own on 127.0.0.1:`port`, once it answers /api/health."""
    process = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data", str(data), "--sensors", "off"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if call(f"http://127.0.0.1:{port}/api/health", timeout=1)[0] == 200:
                return process
        except OSError:
            pass
        time.sleep(0.05)
    process.kill()
    _, err = process.communicate(timeout=PATIENCE_S)
    raise AssertionError("the server did not start: " + err.decode()[-2000:])


def stop_server(process: subprocess.Popen) -> None:
    """Make sure the server is gone and its stderr pipe closed, whatever the test did."""
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=PATIENCE_S)

"""/api/health proves that the table itself answers: it takes the table's lock (and the log's) with a timeout, and
a table stuck holding it answers 503 `table_not_answering`, which starves the systemd watchdog until it answers
again."""
from __future__ import annotations

import contextlib
import socket
import threading
import urllib.parse
from pathlib import Path
from typing import Any, Iterator

from flask import Flask
from flask.testing import FlaskClient

from tests.servers import call, serving
from tests.waiting import PATIENCE_S, wait_for
from web import notify


@contextlib.contextmanager
def held(lock: Any) -> Iterator[None]:
    """`lock` held by another thread (a change stuck holding it) until the block ends."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            taken.set()
            release.wait(PATIENCE_S * 4)

    thread = threading.Thread(target=hold, name="stuck-change", daemon=True)
    thread.start()
    assert taken.wait(PATIENCE_S), "the other thread did not take the lock"
    try:
        yield
    finally:
        release.set()
        thread.join(PATIENCE_S)


def test_health_answers_503_while_the_table_is_stuck_and_recovers(app: Flask, client: FlaskClient) -> None:
    assert client.get("/api/health").status_code == 200
    table = app.extensions["table"]
    with held(table.lock):
        response = client.get("/api/health")  # waits the default few seconds for the lock, then gives up
        assert response.status_code == 503
        body = response.get_json()
        assert body["error"]["code"] == "table_not_answering"
        assert "the table has not answered for 3 s" in body["error"]["message"]
        assert body["ok"] is False and "table" in body["failing"] and body["parts"]["table"]["state"] == "failing"
        assert body["parts"]["database"]["state"] == "unknown" and "database" not in body["failing"]
        assert "sensors" in body and "mode" in body  # the rest of the report still says what it can
    report = wait_for(lambda: (r := client.get("/api/health")).status_code == 200 and r.get_json())
    assert report["ok"] is True and report["parts"]["table"] == {"state": "ok"}
    assert report["parts"]["database"] == {"state": "ok"} and "error" not in report


def test_health_answers_503_while_the_session_log_is_stuck(app: Flask, client: FlaskClient) -> None:
    app.config["HEALTH_TABLE_WAIT_S"] = 0.5
    with held(app.extensions["table"].log._lock):  # a write stuck in SQLite, outside the table's lock
        response = client.get("/api/health")
        assert response.status_code == 503 and response.get_json()["error"]["code"] == "table_not_answering"
        assert "the session log has not answered for 0.5 s" in response.get_json()["error"]["message"]
    assert wait_for(lambda: client.get("/api/health").status_code == 200)
    lock = app.extensions["table"].lock
    assert lock.acquire(blocking=False)  # the health check let go of the table's lock
    lock.release()


def test_the_watchdog_is_not_fed_while_the_table_is_stuck(app: Flask, tmp_path: Path) -> None:
    app.config["HEALTH_TABLE_WAIT_S"] = 0.3  # quick probes; what a probe decides is as with the default
    path = tmp_path / "notify.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    listener.settimeout(PATIENCE_S)
    results: list[bool] = []

    def probe(url: str) -> bool:  # the real probe of the running server, each answer recorded
        answered = notify.answers(url)
        results.append(answered)
        return answered

    stop = threading.Event()
    try:
        with serving(app) as base:
            port = urllib.parse.urlsplit(base).port
            assert port
            env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "100000"}
            assert notify.start("127.0.0.1", port, environ=env, probe=probe, stop=stop) is not None
            assert [listener.recv(64).decode() for _ in range(3)] == [
                "READY=1", f"STATUS=serving on port {port}", "WATCHDOG=1"]
            with held(app.extensions["table"].lock):
                start = len(results)
                first = wait_for(lambda: next((i + 1 for i in range(start, len(results)) if not results[i]), 0)) - 1
                listener.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    while True:  # every ping sent before the first refused probe
                        listener.recv(64)
                wait_for(lambda: len(results) >= first + 3)
                assert not any(results[first:])
                try:  # two more probes refused, and not one ping since
                    stray = listener.recv(64)
                except BlockingIOError:
                    stray = b""
                assert stray == b"", stray
                status, body = call(f"{base}/api/health")
                assert status == 503 and body["error"]["code"] == "table_not_answering"
            listener.settimeout(PATIENCE_S)
            assert listener.recv(64).decode() == "WATCHDOG=1"  # fed again once the table answers
            assert call(f"{base}/api/health")[0] == 200
    finally:
        stop.set()
        listener.close()

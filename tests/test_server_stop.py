"""The server stopping (web/server.py `Server.stop` and its shutdown): a request it is answering when told to stop
finishes with its whole answer, nobody new is let in, and the server's thread ends once the answer is sent."""
from __future__ import annotations

import socket
import threading
from typing import Any

from flask import Flask

from tests.servers import call
from tests.waiting import PATIENCE_S, wait_for
from web.server import Server, listen


def test_a_request_under_way_when_the_server_stops_gets_its_whole_answer(app: Flask) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow() -> dict[str, Any]:
        entered.set()
        release.wait(PATIENCE_S)
        return {"answer": "x" * 100_000}

    app.add_url_rule("/api/slow", "slow", slow)
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = Server(app)
    running = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    running.start()
    wait_for(lambda: server.started)
    answers: list[tuple[int, Any]] = []
    asking = threading.Thread(target=lambda: answers.append(call(f"http://127.0.0.1:{port}/api/slow",
                                                                 timeout=PATIENCE_S)))
    asking.start()
    assert entered.wait(PATIENCE_S), "the slow request never reached the app"

    server.stop()

    def refused() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S).close()
            return False
        except ConnectionRefusedError:
            return True

    wait_for(refused)  # the server no longer listens, while the slow answer is still being made
    assert running.is_alive(), "the server stopped before its request was answered"
    release.set()
    asking.join(PATIENCE_S)
    assert answers and answers[0][0] == 200, answers
    assert answers[0][1] == {"answer": "x" * 100_000}
    running.join(PATIENCE_S)
    assert not running.is_alive(), "the server did not stop once its last answer was sent"

"""The server under many streams and hostile clients: no stream holds a thread, nothing leaves a subscription.

Every wait here is for a condition (generous, for a loaded machine); the latencies are printed by
bench/bench_server.py, never asserted.
"""
from __future__ import annotations

import http.client
import json
import signal
import socket
import struct
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, Response, request

from tests.servers import (
    SseCrowd,
    SseReader,
    call,
    connect,
    free_port,
    new_diego_at,
    read_response,
    request_head,
    serving,
    start_server,
    stop_server,
    subscribers,
)
from tests.waiting import PATIENCE_S, wait_for
from web.app import create_app, shutdown

LIMIT = 64 * 1024


def test_a_hundred_readers_and_twenty_idle_streams_leave_the_server_free(app: Flask, base: str) -> None:
    session = new_diego_at(base)
    url = f"{base}/api/sessions/{session['id']}"
    crowd = SseCrowd(f"{url}/stream", readers=100, idle=20)
    try:
        wait_for(lambda: crowd.opened() == 100)
        wait_for(lambda: subscribers(app.extensions["table"].bus) == 120)  # the idle ones are open too
        for seq, gate in enumerate((1, 2, 3), start=1):
            assert call(f"{base}/api/health")[0] == 200
            status, view = call(f"{url}/events", {"type": "marble", "gate": gate})
            assert status == 200 and view["seq"] == seq
            wait_for(lambda seq=seq: crowd.all_have(seq))
        assert all(s == {0, 1, 2, 3} for s in crowd.seqs)
    finally:
        crowd.close()
    wait_for(lambda: subscribers(app.extensions["table"].bus) == 0)


def test_head_never_subscribes(app: Flask, base: str) -> None:
    session = new_diego_at(base)
    bus = app.extensions["table"].bus
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=PATIENCE_S)
    try:
        for _ in range(200):
            connection.request("HEAD", f"/api/sessions/{session['id']}/stream")
            response = connection.getresponse()
            response.read()
            assert response.status == 200
            assert response.getheader("Content-Type").startswith("text/event-stream")
            assert subscribers(bus) == 0
        connection.request("HEAD", "/api/sessions/4242/stream")
        response = connection.getresponse()
        response.read()
        assert response.status == 404
    finally:
        connection.close()
    assert subscribers(bus) == 0


def test_other_methods_on_a_stream_are_405_json(base: str) -> None:
    session = new_diego_at(base)
    status, body = call(f"{base}/api/sessions/{session['id']}/stream", {}, method="POST")
    assert status == 405 and body["error"]["code"] == "method_not_allowed"


def test_clients_that_go_away_leave_no_subscription(app: Flask, base: str) -> None:
    session = new_diego_at(base)
    bus = app.extensions["table"].bus
    path = f"/api/sessions/{session['id']}/stream"
    for reset in (False, True) * 10:  # at once, before the server has even answered: closed or reset
        sock = connect(base)
        sock.sendall(request_head(path))
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    readers = [SseReader(f"{base}{path}") for _ in range(5)]  # and after the first view
    for reader in readers:
        reader.next_named("session")
    wait_for(lambda: subscribers(bus) >= 5)
    for reader in readers:
        reader.close()
    wait_for(lambda: subscribers(bus) == 0)
    assert call(f"{base}/api/sessions/{session['id']}/events", {"type": "marble", "gate": 1})[0] == 200


def test_a_client_that_stops_reading_is_let_go(app: Flask, base: str) -> None:
    app.config["WRITE_TIMEOUT"] = 1.0
    session = new_diego_at(base)
    bus = app.extensions["table"].bus
    url = f"{base}/api/sessions/{session['id']}"
    crowd = SseCrowd(f"{url}/stream", readers=1, idle=1)
    try:
        wait_for(lambda: crowd.opened() == 1 and subscribers(bus) == 2)
        big = {"gates": {"ok": True, "gates": []}, "camera": {"ok": False}, "padding": "x" * 200_000}

        def idle_is_dropped() -> bool:
            bus.publish("sensors", "sensors", big)  # until the idle client's buffers are full
            return subscribers(bus) == 1

        wait_for(idle_is_dropped)
        assert call(f"{url}/events", {"type": "marble", "gate": 4})[0] == 200
        wait_for(lambda: crowd.all_have(1))  # the reader still hears every change
    finally:
        crowd.close()
    wait_for(lambda: subscribers(bus) == 0)


def test_clients_that_never_read_a_long_response_do_not_hold_the_threads(app: Flask) -> None:
    app.config["WRITE_TIMEOUT"] = 1.0
    app.add_url_rule("/long", "long", lambda: Response(b"x" * 65536 for _ in range(100)))
    with serving(app, threads=2) as base:
        idle = [connect(base, receive_buffer=4096) for _ in range(4)]  # twice as many as there are threads
        try:
            for sock in idle:
                sock.sendall(request_head("/long"))
            assert call(f"{base}/api/health", timeout=PATIENCE_S)[0] == 200
        finally:
            for sock in idle:
                sock.close()


def test_the_client_address_is_the_socket_peer_never_a_header(app: Flask) -> None:
    app.add_url_rule("/peer", "peer", lambda: {"addr": request.remote_addr})
    with serving(app) as base:
        sock = connect(base)
        try:
            sock.sendall(request_head("/peer", headers={"X-Forwarded-For": "203.0.113.9",
                                                        "X-Real-IP": "203.0.113.9",
                                                        "Forwarded": "for=203.0.113.9"}))
            status, _, body = read_response(sock)
        finally:
            sock.close()
    assert status == 200 and json.loads(body) == {"addr": "127.0.0.1"}


def test_a_huge_declared_body_is_refused_before_it_is_sent(base: str) -> None:
    session = new_diego_at(base)
    sock = connect(base)
    try:
        sock.sendall(request_head(f"/api/sessions/{session['id']}/events", "POST",
                                  {"Content-Type": "application/json", "Content-Length": "900000000"}))
        sock.sendall(b'{"type": "marble", "gate": 1, "x": "' + b"y" * 1000)  # and nothing more
        status, headers, body = read_response(sock)
    finally:
        sock.close()
    assert status == 413 and json.loads(body)["error"]["code"] == "too_large"
    assert call(f"{base}/api/sessions/{session['id']}")[1]["seq"] == 0


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def test_a_chunked_body_is_refused_once_past_the_limit(base: str) -> None:
    session = new_diego_at(base)
    sock = connect(base)
    try:
        sock.sendall(request_head(f"/api/sessions/{session['id']}/events", "POST",
                                  {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
        sock.sendall(_chunk(b'{"type": "marble", "gate": 1, "x": "'))
        for _ in range(LIMIT // 8192 + 1):
            sock.sendall(_chunk(b"y" * 8192))  # past the limit, and the body never ends
        status, _, body = read_response(sock)
    finally:
        sock.close()
    assert status == 413 and json.loads(body)["error"]["code"] == "too_large"
    assert call(f"{base}/api/sessions/{session['id']}")[1]["seq"] == 0


def test_a_chunked_body_within_the_limit_reaches_the_app(base: str) -> None:
    session = new_diego_at(base)
    sock = connect(base)
    try:
        sock.sendall(request_head(f"/api/sessions/{session['id']}/events", "POST",
                                  {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
        sock.sendall(_chunk(b'{"type": "marble",') + _chunk(b' "gate": 6}') + b"0\r\n\r\n")
        status, _, body = read_response(sock)
    finally:
        sock.close()
    assert status == 200 and json.loads(body)["state"]["current"]["marbles"] == [6]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_cleanly_on_a_signal_with_streams_open(tmp_path: Path, sig: signal.Signals) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        session = new_diego_at(base)
        stream = SseReader(f"{base}/api/sessions/{session['id']}/stream")
        stream.next_named("session")
        server.send_signal(sig)
        assert server.wait(PATIENCE_S) == 0
        with pytest.raises((EOFError, OSError, ValueError)):
            while True:
                stream.next()
        stream.close()
    finally:
        stop_server(server)


def test_streams_follow_the_trust_rules(app_config: dict[str, Any]) -> None:
    """Streams are served outside Flask, with the same checks: the Pi's own Host, and with SPECTATORS off only the
    kiosk and paired devices watch."""
    closed = create_app({**app_config, "SPECTATORS": False, "KIOSK_PEERS": ["10.9.9.9/32"]})
    try:
        with serving(closed) as base:
            session = closed.extensions["table"].create("diego-drachenzahn", ["A", "B"])
            for host, status in (("evil.example", 421), ("127.0.0.1", 403)):
                sock = connect(base)
                try:
                    sock.sendall(request_head(f"/api/sessions/{session['id']}/stream", headers={"Host": host})
                                 .replace(b"Host: 127.0.0.1\r\n", b"", 1))
                    answer, _, body = read_response(sock)
                finally:
                    sock.close()
                assert answer == status, (host, body)
            assert subscribers(closed.extensions["table"].bus) == 0
    finally:
        shutdown(closed)

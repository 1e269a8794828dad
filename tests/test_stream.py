"""The SSE stream over a real server: full view on connect, then one message per change, to every client."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from flask import Flask

from tests.servers import SseReader, call, connect, new_diego_at, request_head, serving
from tests.test_trust import pair, tablet
from tests.waiting import PATIENCE_S
from web.app import create_app, shutdown
from web.trust import DEVICE_COOKIE


def test_full_view_on_connect_then_one_message_per_change(base: str) -> None:
    session = new_diego_at(base)
    stream = SseReader(f"{base}/api/sessions/{session['id']}/stream")
    try:
        assert stream.next_named("session") == session
        assert "gates" in stream.next_named("sensors")
        url = f"{base}/api/sessions/{session['id']}"
        call(f"{url}/events", {"type": "marble", "gate": 5})
        call(f"{url}/events", {"type": "marble", "gate": 7})  # refused: publishes nothing
        call(f"{url}/undo", {})
        call(f"{url}/redo", {})
        seen = [stream.next_named("session") for _ in range(3)]
        assert [v["seq"] for v in seen] == [1, 2, 3]
        assert [v["state"]["current"]["marbles"] for v in seen] == [[5], [], [5]]
        call(f"{url}/events", {"type": "guess", "player": "Ben", "gate": 5})
        assert stream.next_named("session")["seq"] == 4  # nothing from the refused marble in between
    finally:
        stream.close()


def test_every_client_gets_every_change(base: str) -> None:
    session = new_diego_at(base)
    url = f"{base}/api/sessions/{session['id']}"
    streams = [SseReader(f"{url}/stream") for _ in range(5)]
    try:
        for s in streams:
            s.next_named("session")
        call(f"{url}/events", {"type": "marble", "gate": 2})
        views = [s.next_named("session") for s in streams]
        assert all(v["state"]["current"]["marbles"] == [2] for v in views)
    finally:
        for s in streams:
            s.close()


def test_streams_of_other_sessions_hear_nothing(base: str) -> None:
    first, second = new_diego_at(base), new_diego_at(base)
    stream = SseReader(f"{base}/api/sessions/{second['id']}/stream")
    try:
        stream.next_named("session")
        call(f"{base}/api/sessions/{first['id']}/events", {"type": "marble", "gate": 1})
        call(f"{base}/api/sessions/{second['id']}/events", {"type": "marble", "gate": 3})
        view = stream.next_named("session")
        assert view["id"] == second["id"] and view["state"]["current"]["marbles"] == [3]
    finally:
        stream.close()


def test_stream_asks_for_a_one_second_retry_and_keeps_alive_when_quiet(base: str) -> None:
    """A quiet stream says it is alive every SSE_KEEPALIVE seconds, as an event a page hears (a comment it would not),
    saying how often: a page that hears nothing for a few of those knows its network stalled."""
    session = new_diego_at(base)
    sock = connect(base)
    try:
        sock.sendall(request_head(f"/api/sessions/{session['id']}/stream"))
        data = b""
        while b'event: alive\ndata: {"every":0.5}\n\n' not in data:  # SSE_KEEPALIVE is 0.5 s in the tests
            chunk = sock.recv(65536)
            assert chunk, "the stream ended"
            data += chunk
    finally:
        sock.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"content-type: text/event-stream" in head.lower()
    assert body.split(b"\r\n", 1)[1].startswith(b"retry: 1000\n\nevent: session\nid: 0\n")


def test_unknown_session_stream_is_404(base: str) -> None:
    status, body = call(f"{base}/api/sessions/4242/stream")
    assert status == 404 and body["error"]["code"] == "not_found"


def test_a_session_number_of_thousands_of_digits_is_a_json_404(base: str) -> None:
    """Past 4300 digits Python's int() refuses a number: the stream's path is still a JSON 404, never a 500."""
    for digits in ("9" * 20, "1" * 5000):
        status, body = call(f"{base}/api/sessions/{digits}/stream")
        assert status == 404 and body["error"]["code"] == "not_found", (len(digits), status, body)


def test_streams_end_when_the_server_stops(app: Flask) -> None:
    ended = threading.Event()
    with serving(app) as url:
        session = new_diego_at(url)
        stream = SseReader(f"{url}/api/sessions/{session['id']}/stream")
        stream.next_named("session")

        def drain() -> None:
            try:
                while True:
                    stream.next()
            except (EOFError, OSError, ValueError):
                ended.set()

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
    assert ended.wait(PATIENCE_S), "the stream did not end with the server"
    stream.close()


def test_a_change_reads_the_same_on_the_stream_as_in_the_answer(base: str) -> None:
    """A page knows the stream's echo of its own tap by its text (JSON.stringify in kit.js ``show``): keys in
    another order would redraw the page for every echo."""
    session = new_diego_at(base)
    stream = SseReader(f"{base}/api/sessions/{session['id']}/stream")
    try:
        assert json.dumps(stream.next_named("session")) == json.dumps(session)
        status, answer = call(f"{base}/api/sessions/{session['id']}/events", {"type": "marble", "gate": 2})
        assert status == 200
        echo = stream.next_named("session")
        assert echo == answer
        assert json.dumps(echo) == json.dumps(answer)  # the same keys in the same order, nested too
    finally:
        stream.close()


def test_a_revoked_device_s_streams_end_with_word_of_it_and_no_other_stream_does(app_config: dict[str, Any]) -> None:
    """On a table that shows its games to paired devices only, a tablet's open game went on streaming after the
    kiosk revoked it, and its page learnt of it only at its next check. Now its streams say `pairing` and end at
    once, and it may not open another; another tablet's stream goes on."""
    closed = create_app({**app_config, "SPECTATORS": False, "KIOSK_PEERS": ["10.9.9.9/32"]})
    try:
        with serving(closed) as base:  # every connection from 127.0.0.1 is a device, not the kiosk
            kiosk = tablet(closed, "10.9.9.9")
            phones = [tablet(closed, "127.0.0.1") for _ in range(2)]
            revoked = [pair(closed, phone, kiosk) for phone in phones][0]
            session = kiosk.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["A", "B"]}).get_json()
            url = f"{base}/api/sessions/{session['id']}/stream"

            def open_stream(phone: Any) -> SseReader:
                cookie = f"{DEVICE_COOKIE}={phone.get_cookie(DEVICE_COOKIE).value}"
                stream = SseReader(urllib.request.Request(url, headers={"Cookie": cookie}))
                stream.next_named("session")
                return stream

            streams = [open_stream(phone) for phone in phones]
            try:
                assert kiosk.delete(f"/api/pairing/devices/{revoked['id']}").status_code == 200
                assert streams[0].next_named("pairing", within=PATIENCE_S) == {"paired": False}  # its last word
                with pytest.raises(EOFError):
                    streams[0].next()
                with pytest.raises(urllib.error.HTTPError) as refused:
                    open_stream(phones[0])
                assert refused.value.code == 403
                kiosk.post(f"/api/sessions/{session['id']}/events", json={"type": "marble", "gate": 2})
                assert streams[1].next_named("session")["state"]["current"]["marbles"] == [2]
            finally:
                for stream in streams:
                    stream.close()
    finally:
        shutdown(closed)


def test_a_stream_its_device_opened_as_it_was_revoked_ends_too() -> None:
    """A stream checked while its device was still paired, and counted among the open ones just after the revocation,
    went on streaming to the revoked device: it ends at once, with the same last word; another device's does not."""
    from web.stream import _streams, end_device_streams

    ended: list[Any] = []

    class Opened:  # a stream's subscription, as far as the streams' register sees it
        def end(self, last: Any = None) -> None:
            ended.append(last)

    app = Flask(__name__)
    end_device_streams(app, 7)
    _streams(app).add(Opened(), 8)  # type: ignore[arg-type]
    _streams(app).add(Opened(), None)  # type: ignore[arg-type]  # the kiosk
    assert ended == []
    _streams(app).add(Opened(), 7)  # type: ignore[arg-type]
    assert ended == [("pairing", {"paired": False})]

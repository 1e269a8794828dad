"""Pairing in headless Chromium: the kiosk (the Pi's own screen) and a tablet that connects from another
address, ask, approve, write, revoke."""
from __future__ import annotations

import contextlib
import json
import re
import selectors
import socket
import threading
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from jinja2 import ChoiceLoader, DictLoader
from playwright.sync_api import expect

from tests.servers import call, serving
from tests.waiting import PATIENCE_S
from web.app import create_app, shutdown

#: The line base.html gets, right after its header.
INCLUDE = '{% include "_pairing.html" %}'
TABLET_SOURCE = "127.0.0.2"  # a loopback address the config does not count as the kiosk
WRITE = """async (name) => (await fetch('/api/players', {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name})})).status"""


@contextlib.contextmanager
def forwarder(target: str, source: str) -> Iterator[str]:
    """A TCP relay on 127.0.0.1 that connects on to `target` from the address `source`: a browser on this
    machine then reaches the server as another device would. Yields the relay's base URL."""
    host, port = target.removeprefix("http://").rsplit(":", 1)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)  # accept() wakes up to notice the end
    stopping = threading.Event()
    open_sockets: list[socket.socket] = []

    def pump(a: socket.socket, b: socket.socket) -> None:
        # When either side closes (the server ends an idle keep-alive connection), close the other too: a
        # browser must never reuse a relayed connection whose far end is gone.
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(a, selectors.EVENT_READ, b)
                selector.register(b, selectors.EVENT_READ, a)
                while not stopping.is_set():
                    for key, _ in selector.select(timeout=0.2):
                        try:
                            data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                            if not data:
                                return
                            key.data.sendall(data)
                        except OSError:
                            return
        finally:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()

    def serve() -> None:
        while not stopping.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            upstream = socket.socket()
            try:
                upstream.bind((source, 0))
                upstream.connect((host, int(port)))
            except OSError:
                client.close()
                upstream.close()
                continue
            open_sockets.extend((client, upstream))
            threading.Thread(target=pump, args=(client, upstream), daemon=True).start()

    thread = threading.Thread(target=serve, name="test-relay", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stopping.set()
        thread.join(timeout=PATIENCE_S)
        listener.close()
        for sock in open_sockets:
            with contextlib.suppress(OSError):
                sock.close()


@pytest.fixture
def kiosk_app(app_config: dict[str, Any]) -> Iterator[Flask]:
    application = create_app({**app_config, "KIOSK_PEERS": ["127.0.0.1/32"]})
    base_html = (Path(application.root_path) / "templates" / "base.html").read_text()
    if INCLUDE not in base_html:  # the include as base.html will have it
        base_html = base_html.replace("</header>\n", "</header>\n" + INCLUDE + "\n", 1)
        application.jinja_loader = ChoiceLoader([DictLoader({"base.html": base_html}),  # type: ignore[assignment]
                                                 application.jinja_loader])
    yield application
    shutdown(application)


@pytest.fixture
def two_screens(browser: Any, kiosk_app: Flask) -> Iterator[Callable[[], tuple[Any, Any, str, str]]]:  # noqa: F811
    contexts: list[Any] = []
    with serving(kiosk_app) as base, forwarder(base, TABLET_SOURCE) as tablet_base:
        def open_() -> tuple[Any, Any, str, str]:
            kiosk = browser.new_context(viewport={"width": 1024, "height": 600}, has_touch=True)
            tablet = browser.new_context(viewport={"width": 768, "height": 1024}, has_touch=True,
                                         user_agent="Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) "
                                                    "AppleWebKit/605.1.15 Version/17.0 Mobile Safari/604.1")
            contexts.extend((kiosk, tablet))
            return kiosk.new_page(), tablet.new_page(), base, tablet_base

        yield open_
        for context in contexts:
            context.close()


def test_the_server_takes_the_peer_from_the_socket_not_from_headers(kiosk_app: Flask) -> None:
    """Behind the real server too: a forwarded-for header neither makes a device the kiosk nor the kiosk a device."""
    def role(url: str, forwarded: str) -> str:
        request = urllib.request.Request(f"{url}/api/pairing", headers={"X-Forwarded-For": forwarded,
                                                                          "Forwarded": f"for={forwarded}"})
        with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
            return json.loads(response.read())["role"]

    with serving(kiosk_app) as base, forwarder(base, TABLET_SOURCE) as tablet_base:
        assert role(base, "192.168.1.20") == "kiosk"
        assert role(tablet_base, "127.0.0.1") == "spectator"


def _watch_errors(page: Any, errors: list[str]) -> None:
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)


def _tap_size(locator: Any) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["width"], box["height"]


def test_a_tablet_pairs_by_a_tap_on_the_kiosk_and_loses_it_when_revoked(
        two_screens: Callable[[], tuple[Any, Any, str, str]]) -> None:
    import cv2
    import numpy as np

    kiosk, tablet, base, tablet_base = two_screens()
    errors: list[str] = []
    _watch_errors(kiosk, errors)
    _watch_errors(tablet, errors)
    kiosk.goto(base + "/")
    tablet.goto(tablet_base + "/")

    # the tablet watches only, and says so
    expect(tablet.locator(".pairing-strip")).to_be_visible()
    assert tablet.evaluate("document.body.dataset.trust") == "spectator"
    assert tablet.evaluate(WRITE, "Tab") == 403
    button = tablet.locator("[data-pair-button]")
    assert min(_tap_size(button)) >= 48
    button.click()
    code = tablet.locator("[data-pair-code]")
    expect(code).to_have_text(re.compile(r"Code \d{4}"), timeout=PATIENCE_S * 1000)
    digits = code.inner_text().split()[-1]
    status = tablet.locator(".pairing-strip [data-pair-status]")  # beside the code: waiting, no longer "watching"
    expect(status).to_have_text("Waiting for the table's screen to approve this device's code:")

    # the kiosk shows the request with the same code; a tap approves it
    dialog = kiosk.locator("#pair-requests")
    expect(dialog).to_be_visible(timeout=PATIENCE_S * 1000)
    request = dialog.locator(".pair-request")
    expect(request.locator(".pair-code")).to_have_text(digits)
    assert "iPad" in request.inner_text() and TABLET_SOURCE in request.inner_text()
    approve = request.locator("button:text-is('Approve')")
    assert min(_tap_size(approve)) >= 48 and min(_tap_size(request.locator("button:text-is('Refuse')"))) >= 48
    approve.click()
    expect(dialog).to_be_hidden(timeout=PATIENCE_S * 1000)

    # the tablet collects its token by itself, reloads, and may write
    # (the predicate also runs while the reload has no body yet)
    tablet.wait_for_function("() => document.body !== null && document.body.dataset.trust === 'paired'",
                             timeout=PATIENCE_S * 1000)
    expect(tablet.locator(".pairing-strip")).to_have_count(0)
    assert tablet.evaluate(WRITE, "Tab") == 201
    cookies = {c["name"]: c for c in tablet.context.cookies()}
    assert cookies["companion_device"]["httpOnly"] and cookies["companion_device"]["sameSite"] == "Strict"
    assert "companion_device" not in tablet.evaluate("document.cookie")

    # the kiosk's Devices page lists it; Revoke ends its writes at once
    kiosk.goto(base + "/devices")
    device = kiosk.locator("#device-list .pair-device")
    expect(device).to_have_count(1, timeout=PATIENCE_S * 1000)
    assert "iPad" in device.inner_text() and "last seen" in device.inner_text()
    qr = kiosk.locator("img.pair-qr")
    expect(qr).to_be_visible()
    # visible is not yet drawn: on a loaded machine the screenshot may come before the picture has loaded
    kiosk.wait_for_function("() => { const qr = document.querySelector('img.pair-qr');"
                            " return qr !== null && qr.complete && qr.naturalWidth > 0; }", timeout=PATIENCE_S * 1000)
    picture = cv2.imdecode(np.frombuffer(qr.screenshot(), np.uint8), cv2.IMREAD_GRAYSCALE)
    quiet = cv2.copyMakeBorder(picture, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    # the code a tablet's camera reads: cv2's plain QRCodeDetector misses about one of these URLs in 40 (by its
    # port) even in a clean picture, the ArUco-based one none of 3,000 (1,500 ports at two sizes)
    scanned = next((text for text in (found.detectAndDecode(quiet)[0] for found in
                                      (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector())) if text), "")
    assert scanned == kiosk.locator(".pair-url").inner_text() and scanned.endswith("/devices")
    revoke = device.locator("button:text-is('Revoke')")
    assert min(_tap_size(revoke)) >= 48
    revoke.click()
    expect(device).to_have_count(0, timeout=PATIENCE_S * 1000)
    expect(kiosk.locator("#no-devices")).to_be_visible()
    assert tablet.evaluate(WRITE, "Tab2") == 403
    tablet.reload()
    expect(tablet.locator(".pairing-strip")).to_be_visible()
    assert errors == []


def test_the_pages_run_under_the_content_security_policy(two_screens: Callable[[], tuple[Any, Any, str, str]]
                                                         ) -> None:
    kiosk, tablet, base, tablet_base = two_screens()
    errors: list[str] = []
    _watch_errors(kiosk, errors)
    _watch_errors(tablet, errors)
    status, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
    assert status == 201
    for page, url in ((kiosk, base), (tablet, tablet_base)):
        page.goto(f"{url}/play/{session['id']}")
        expect(page.locator("#scoreboard li")).to_have_count(2, timeout=PATIENCE_S * 1000)
        page.goto(f"{url}/camera")
        page.goto(f"{url}/devices")
        expect(page.locator("[data-devices-page]")).to_be_visible()
    assert errors == []


def test_a_refused_tablet_stays_a_spectator_until_approved(two_screens: Callable[[], tuple[Any, Any, str, str]]
                                                           ) -> None:
    kiosk, tablet, base, tablet_base = two_screens()
    kiosk.goto(base + "/devices")
    tablet.goto(tablet_base + "/devices")
    ask = tablet.locator("[data-devices-page] [data-pair-button]")
    heading = tablet.locator("[data-devices-page] h2")
    expect(heading).to_have_text("Watching only")
    ask.click()
    expect(heading).to_have_text("Waiting for the table's screen to approve")
    expect(ask).to_have_text("Ask again")
    waiting = kiosk.locator("[data-devices-page] .pair-request")
    expect(waiting).to_have_count(1, timeout=PATIENCE_S * 1000)
    expect(kiosk.locator("#pair-requests")).to_be_hidden()  # on the Devices page the list is enough
    waiting.locator("button:text-is('Refuse')").click()
    expect(waiting).to_have_count(0, timeout=PATIENCE_S * 1000)
    expect(tablet.locator("[data-devices-page] [data-pair-note]")).to_contain_text("refused",
                                                                                  timeout=PATIENCE_S * 1000)
    expect(heading).to_have_text("Watching only")  # refused: it only watches again
    assert tablet.evaluate(WRITE, "Tab") == 403
    assert "companion_device" not in {c["name"] for c in tablet.context.cookies()}

    ask.click()  # asking again, approved this time: the list shows the tablet once it has collected its pairing
    expect(waiting).to_have_count(1, timeout=PATIENCE_S * 1000)
    waiting.locator("button:text-is('Approve')").click()
    expect(kiosk.locator("#device-list .pair-device")).to_have_count(1, timeout=PATIENCE_S * 1000)
    expect(tablet.locator("text=This tablet is paired")).to_be_visible(timeout=PATIENCE_S * 1000)
    assert tablet.evaluate(WRITE, "Tab") == 201

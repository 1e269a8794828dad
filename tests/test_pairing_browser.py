"""Pairing in headless Chromium: the kiosk (the Pi's own screen) and a tablet that connects from another
address, ask, approve (or put off), write, revoke."""
from __future__ import annotations

import contextlib
import json
import re
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from jinja2 import ChoiceLoader, DictLoader
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, fits, in_view, shoot, start_game
from tests.relay import forwarder
from tests.servers import call, serving
from tests.waiting import PATIENCE_S, wait_for
from web.app import create_app, shutdown

#: The line base.html gets, right after its header.
INCLUDE = '{% include "_pairing.html" %}'
TABLET_SOURCE = "127.0.0.2"  # a loopback address the config does not count as the kiosk
#: The table's screen on this machine, and its pages looking for requests, approvals and devices every 0.2 s rather
#: than every 1.5 s: what they then show is the same, sooner.
TABLE = {"KIOSK_PEERS": ["127.0.0.1/32"], "PAIRING_POLL_S": 0.2}
WRITE = """async (name) => (await fetch('/api/players', {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name})})).status"""


@pytest.fixture
def kiosk_app(app_config: dict[str, Any]) -> Iterator[Flask]:
    application = create_app({**app_config, **TABLE})
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
    expect(tablet.locator(".pairing-strip")).to_be_hidden()
    assert tablet.evaluate(WRITE, "Tab") == 201
    cookies = {c["name"]: c for c in tablet.context.cookies()}
    assert cookies["companion_device"]["httpOnly"] and cookies["companion_device"]["sameSite"] == "Strict"
    assert "companion_device" not in tablet.evaluate("document.cookie")
    tablet.goto(tablet_base + "/devices")  # its own Unpair asks first: a tap there by mistake is undone only anew
    tablet.click("#unpair")
    expect(tablet.locator("#overlays .dialog")).to_contain_text("Unpair this tablet?")
    tablet.click("#overlays [data-answer='no']")
    assert tablet.evaluate(WRITE, "Tab0") == 201
    tablet.goto(tablet_base + "/")

    # the kiosk's Devices page lists it; Revoke ends its writes at once
    kiosk.goto(base + "/devices")
    device = kiosk.locator("#device-list .pair-device")
    expect(device).to_have_count(1, timeout=PATIENCE_S * 1000)
    assert "iPad" in device.inner_text() and "last seen" in device.inner_text()
    # the times as Home says them ("started 17:51"), not the browser's "12/6/26, 6:22 PM"
    assert re.search(r"paired \d\d:\d\d · last seen \d\d:\d\d", device.inner_text()), device.inner_text()
    agent = device.locator(".pair-agent")  # the browser's own words on one line, its name above says which it is
    assert agent.evaluate("(el) => el.getBoundingClientRect().height < 2 * parseFloat(getComputedStyle(el).fontSize)")
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
    name = device.locator("button:text-is('Name…')")  # devices of one make read alike: the table names them
    assert min(_tap_size(name)) >= 48
    name.click()
    kiosk.fill("#kb-input", "Ben's iPad")
    kiosk.click("#kb-ok")
    expect(device.locator(".pair-who strong")).to_have_text("Ben's iPad", timeout=PATIENCE_S * 1000)
    for width, height in (KIOSK, PHONE):
        kiosk.set_viewport_size({"width": width, "height": height})
        fits(kiosk, f"the Devices page's list at {width}x{height}")
        shoot(kiosk, f"devices-list-{width}x{height}")
    revoke = device.locator("button:text-is('Revoke')")
    assert min(_tap_size(revoke)) >= 48
    revoke.click()  # asked first, naming which device
    question = kiosk.locator("#overlays .dialog")
    expect(question).to_contain_text("Revoke Ben's iPad?")
    question.locator("[data-answer='no']").click()
    expect(question).to_have_count(0)
    assert tablet.evaluate(WRITE, "Tab1") == 201  # kept
    revoke.click()
    question.locator("[data-answer='yes']").click()
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


def _ask(tablet_base: str) -> dict[str, Any]:
    """A pairing request from the tablet's address, sent without a browser (each one a new request)."""
    status, body = call(f"{tablet_base}/api/pairing/requests", {})
    assert status == 201, body
    return body["request"]


def _waiting(base: str) -> list[str]:
    """The ids of the requests waiting on the kiosk."""
    return [r["id"] for r in call(f"{base}/api/pairing/requests")[1]["requests"]]


def test_the_kiosk_puts_a_request_off_until_another_comes(two_screens: Callable[[], tuple[Any, Any, str, str]]
                                                          ) -> None:
    """Over a game, Later, Escape or a tap beside the dialog close it without refusing: the request still waits on
    the Devices page, and only a new one opens the dialog again (on any of the kiosk's pages)."""
    kiosk, _, base, tablet_base = two_screens()
    kiosk.set_viewport_size({"width": KIOSK[0], "height": KIOSK[1]})
    _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
    kiosk.goto(f"{base}/play/{session['id']}")
    kiosk.wait_for_selector("body[data-ready='yes']")
    dialog = kiosk.locator("#pair-requests")
    rows = dialog.locator(".pair-request")

    first = _ask(tablet_base)
    expect(rows).to_have_count(1)
    expect(dialog).to_be_visible()
    # the code, first in its row and the largest text, is what tells two requests from one device apart
    code = rows.locator(".pair-code")
    expect(code).to_have_text(first["code"])
    assert kiosk.evaluate("() => parseFloat(getComputedStyle(document.querySelector("
                          "'#pair-requests .pair-code')).fontSize)") >= 40
    assert code.bounding_box()["x"] < rows.locator(".pair-who").bounding_box()["x"]
    kiosk.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert _waiting(base) == [first["id"]]  # put off, not refused
    reminder = kiosk.locator("[data-pair-waiting]")  # and a line says it still waits
    expect(reminder).to_have_text(re.compile(rf"A device waits to pair: code {first['code']}\.\s*Show"))

    kiosk.goto(base + "/")  # another page of the kiosk: the request put off stays off, a new one asks
    second = _ask(tablet_base)
    expect(dialog).to_be_visible()
    expect(rows.locator(".pair-code")).to_have_text([second["code"]])
    later = dialog.locator("button:text-is('Later')")
    assert min(_tap_size(later)) >= 48
    later.click()
    expect(dialog).to_be_hidden()
    assert _waiting(base) == [first["id"], second["id"]]
    expect(reminder).to_contain_text("2 devices wait to pair.")
    reminder.locator("[data-pair-show]").click()  # the dialog again, with both
    expect(rows.locator(".pair-code")).to_have_text([first["code"], second["code"]])
    expect(reminder).to_be_hidden()
    later.click()

    call(f"{base}/api/pairing/requests/{first['id']}/refuse", {})  # room for another from the same address
    third = _ask(tablet_base)
    expect(rows.locator(".pair-code")).to_have_text([third["code"]])
    dialog.click(position={"x": 5, "y": 5})  # beside the dialog's panel
    expect(dialog).to_be_hidden()

    kiosk.goto(base + "/devices")  # where the requests put off wait for a tap
    waiting = kiosk.locator("[data-devices-page] .pair-request .pair-code")
    expect(waiting).to_have_text([second["code"], third["code"]])


def test_a_request_shows_at_once_on_the_kiosks_devices_page(two_screens: Callable[[], tuple[Any, Any, str, str]]
                                                             ) -> None:
    """The QR code does not push a request below the fold: it shows with its buttons, without scrolling."""
    kiosk, _, base, tablet_base = two_screens()
    for width, height in (KIOSK, PHONE):
        kiosk.set_viewport_size({"width": width, "height": height})
        kiosk.goto(base + "/devices")
        kiosk.wait_for_function("() => { const qr = document.querySelector('img.pair-qr');"
                                " return qr !== null && qr.complete && qr.naturalWidth > 0; }")
        expect(kiosk.locator("[data-pair-none]")).to_be_visible()
        asked = _ask(tablet_base)
        expect(kiosk.locator("[data-devices-page] .pair-request .pair-code")).to_have_text(asked["code"])
        for part in (".pair-code", ".row"):  # the code, Refuse and Approve
            in_view(kiosk, f"[data-devices-page] .pair-request {part}")
        fits(kiosk, f"the Devices page with a request at {width}x{height}")
        shoot(kiosk, f"devices-request-{width}x{height}")
        call(f"{base}/api/pairing/requests/{asked['id']}/refuse", {})


def test_a_revoked_tablet_offers_to_pair_again_as_its_refusal_says(
        two_screens: Callable[[], tuple[Any, Any, str, str]]) -> None:
    """A page open on a tablet the kiosk revokes: its next tap is refused with "tap Pair this tablet", and the page
    shows that button."""
    _, tablet, base, tablet_base = two_screens()
    errors: list[str] = []
    _watch_errors(tablet, errors)
    tablet.goto(tablet_base + "/")
    tablet.click("[data-pair-button]")
    expect(tablet.locator("[data-pair-code]")).to_be_visible()
    (asked,) = call(f"{base}/api/pairing/requests")[1]["requests"]
    call(f"{base}/api/pairing/requests/{asked['id']}/approve", {})
    tablet.wait_for_function("() => document.body !== null && document.body.dataset.trust === 'paired'")
    _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
    tablet.goto(f"{tablet_base}/play/{session['id']}")
    tablet.wait_for_selector("body[data-ready='yes']")
    strip = tablet.locator(".pairing-strip")
    expect(strip).to_be_hidden()

    (device,) = call(f"{base}/api/pairing/devices")[1]["devices"]
    assert call(f"{base}/api/pairing/devices/{device['id']}", method="DELETE")[0] == 200
    tablet.click("#marble-pad [data-gate='1']")
    expect(tablet.locator("#toast")).to_contain_text("Pair this tablet")
    expect(strip.locator("[data-pair-button]")).to_be_visible()
    assert tablet.evaluate("document.body.dataset.trust") == "spectator"
    strip.locator("[data-pair-button]").click()  # and it pairs as a watching device's does
    expect(strip.locator("[data-pair-code]")).to_have_text(re.compile(r"Code \d{4}"))
    assert errors == []


def test_an_unpaired_device_is_told_why_it_sees_no_camera_picture(two_screens: Callable[[], tuple[Any, Any, str, str]]
                                                                  ) -> None:
    """The camera's picture is for the table's screen and paired devices. An unpaired tablet's Camera page said
    "Waiting for the camera…" for good, "Ready" above it, and "no picture to tap on yet" to a tap on the corners,
    while it asked for the picture every second and was refused each time."""
    _, tablet, _, tablet_base = two_screens()
    asked: list[str] = []
    refreshes: list[str] = []
    tablet.on("request", lambda r: asked.append(r.url) if "/camera/" in r.url else None)
    tablet.on("response", lambda r: refreshes.append(r.url) if r.url.endswith("/api/camera") else None)
    tablet.clock.install()  # the page's time runs as usual, and the test moves it on
    tablet.goto(f"{tablet_base}/camera")
    expect(tablet.locator("#no-picture")).to_contain_text("shown only on the table's screen and on paired tablets")
    expect(tablet.locator("#next-step")).to_have_text(
        "This device is not paired: it can see the camera's state, not its picture.")
    # two of the page's status refreshes, 2 s apart: the picture was asked for twice between (the page's time moved
    # on, every timer that comes due meanwhile run, until both are answered)
    before = len(refreshes)
    wait_for(lambda: len(refreshes) >= before + 2 or tablet.clock.run_for(200))
    tablet.click("#calibrate")
    expect(tablet.locator("#toast")).to_contain_text("pair this device")
    assert asked == [], asked
    expect(tablet.locator("[data-pair-button]")).to_be_visible()


def test_an_unpaired_device_does_not_ask_for_the_rounds_camera_photo(
        two_screens: Callable[[], tuple[Any, Any, str, str]], kiosk_app: Flask) -> None:
    """A Diego round the camera read shows its photo on the table's screen. An unpaired tablet's page asked for it too,
    and was refused each time the round changed (a 403 in its console)."""
    kiosk, tablet, base, tablet_base = two_screens()
    game = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    kiosk_app.extensions["table"].submit(game["id"], {"type": "camera", "counts": [1, 0, 0, 0, 0, 0]}, source="camera")
    asked: dict[str, list[str]] = {"kiosk": [], "tablet": []}
    for name, page, at in (("kiosk", kiosk, base), ("tablet", tablet, tablet_base)):
        page.on("request", lambda r, n=name: asked[n].append(r.url) if "/camera/confirmation/" in r.url else None)
        page.goto(f"{at}/play/{game['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        expect(page.locator("#marbles .slot.filled")).to_have_count(1)  # the round drawn, its photo asked for here
        assert page.evaluate("async () => (await fetch('/api/health')).status") == 200  # a round trip after it
    assert asked["kiosk"], asked  # the table's screen shows it: the test sees the page ask
    assert asked["tablet"] == [], asked


def test_a_table_without_spectators_sends_a_paired_tablet_back_to_its_game(browser: Any,  # noqa: F811
                                                                           app_config: dict[str, Any]) -> None:
    """A table that shows its games only to paired devices sends a tablet from a game's page to the Devices page:
    once approved, the tablet is back on that game, not left on Devices."""
    application = create_app({**app_config, **TABLE, "SPECTATORS": False})
    try:
        with serving(application) as base, forwarder(base, TABLET_SOURCE) as tablet_base:
            _, session = call(f"{base}/api/sessions", {"game": "drachensachen", "players": ["Ada", "Ben"]})
            context = browser.new_context(viewport={"width": 768, "height": 1024})
            try:
                tablet = context.new_page()
                tablet.goto(f"{tablet_base}/play/{session['id']}")
                tablet.wait_for_url("**/devices?next=*")
                expect(tablet.locator("[data-devices-page]")).to_contain_text("only to paired devices")
                tablet.click("[data-devices-page] [data-pair-button]")
                wait_for(lambda: bool(_waiting(base)))
                assert call(f"{base}/api/pairing/requests/{_waiting(base)[0]}/approve", {})[0] == 200
                tablet.wait_for_url(f"{tablet_base}/play/{session['id']}", timeout=PATIENCE_S * 1000)
                tablet.wait_for_selector("body[data-ready='yes']")
            finally:
                context.close()
    finally:
        shutdown(application)


@pytest.mark.parametrize("spectators, check_under_way", [(True, False), (False, False), (True, True)],
                         ids=["watching-allowed", "paired-only", "during-its-own-check"])
def test_a_tablet_revoked_while_its_game_is_open_learns_it_at_once(
        browser: Any, app_config: dict[str, Any], spectators: bool, check_under_way: bool) -> None:  # noqa: F811
    """Its page's timers stand still: no check of its own, no tap. The game's live stream says so, and the page offers
    to pair again; on a table that shows its games only to paired devices it goes to pair, where the game no longer
    streams to it. Word of it that comes while the page's own check is under way, and hears "paired", is not lost."""
    application = create_app({**app_config, **TABLE, "SPECTATORS": spectators})
    try:
        with serving(application) as base, forwarder(base, TABLET_SOURCE) as tablet_base:
            context = browser.new_context(viewport={"width": 768, "height": 1024})
            try:
                tablet = context.new_page()
                errors: list[str] = []
                _watch_errors(tablet, errors)
                tablet.goto(tablet_base + "/devices")
                tablet.click("[data-devices-page] [data-pair-button]")
                wait_for(lambda: bool(_waiting(base)))
                assert call(f"{base}/api/pairing/requests/{_waiting(base)[0]}/approve", {})[0] == 200
                tablet.wait_for_function("() => document.body !== null && document.body.dataset.trust === 'paired'")
                _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
                tablet.clock.install()
                tablet.goto(f"{tablet_base}/play/{session['id']}")
                tablet.wait_for_selector("#live:text-is('live')")
                tablet.clock.pause_at(time.time() + 1.0)  # from here on no timer of the page runs
                assert tablet.evaluate("document.body.dataset.trust") == "paired"

                held: list[Any] = []
                if check_under_way:  # its own check (a write refused asks it) starts before the revocation, and
                    # hears "paired" after it (moving the page's clock on to its timer's check would also take its
                    # stream for stalled, and open another as the revocation comes)
                    tablet.route("**/api/pairing", lambda route: route.continue_() if held else held.append(route))
                    tablet.evaluate("window.dispatchEvent(new Event('pairing-required'))")
                    wait_for(lambda: held or tablet.evaluate("false"))  # (each evaluate lets the page's events in)
                (device,) = call(f"{base}/api/pairing/devices")[1]["devices"]
                with tablet.expect_request(lambda r: r.url.endswith("/stream")) if held else contextlib.nullcontext():
                    assert call(f"{base}/api/pairing/devices/{device['id']}", method="DELETE")[0] == 200
                if held:  # the stream ended, after its word: the page heard it while its own check still waits
                    held[0].fulfill(json={"role": "paired", "device": device, "request": None, "spectators": True})
                if spectators:
                    expect(tablet.locator(".pairing-strip [data-pair-button]")).to_be_visible()
                    assert tablet.evaluate("document.body.dataset.trust") == "spectator"
                else:
                    tablet.wait_for_url("**/devices?next=*")
                    expect(tablet.locator("[data-devices-page]")).to_contain_text("only to paired devices")
                assert errors == []
            finally:
                context.close()
    finally:
        shutdown(application)

"""Headless Chromium for browser tests, driven by Playwright against Debian's chromium: its headless shell where
installed (the same Blink without the full browser around it: a third of the CPU a page costs), else the browser.

Test modules import the `browser` fixture. pytest then holds one fixture per importing module, but Playwright's
sync API runs one event loop per thread: so every module's fixture shares one Chromium, started by the first
and closed with the last.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from typing import Any, Callable, Iterator

import pytest
from flask import Flask

from tests.servers import call, serving
from tests.waiting import PATIENCE_S

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]

WAIT_MS = PATIENCE_S * 1000  # how long a page may take to show what a test waits for

#: How far the page reaches below the screen's foot (none when it fits).
BELOW = "document.documentElement.scrollHeight - window.innerHeight"

_shared: dict[str, Any] = {"users": 0}  # the running Playwright and Chromium, and how many fixtures use them


def chromium_path() -> str | None:
    for name in ("chromium-headless-shell", "chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y chromium-headless-shell)"
        if os.environ.get("COMPANION_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    if not _shared["users"]:
        from playwright.sync_api import expect, sync_playwright

        # every `expect` as patient as a test's own waits (Playwright's default is 5 s): CI runs on a loaded machine
        expect.set_options(timeout=WAIT_MS)
        _shared["playwright"] = sync_playwright().start()
        _shared["browser"] = _shared["playwright"].chromium.launch(executable_path=path, args=CHROMIUM_ARGS,
                                                                   headless=True)
    _shared["users"] += 1
    try:
        yield _shared["browser"]
    finally:
        _shared["users"] -= 1
        if not _shared["users"]:
            _shared.pop("browser").close()
            _shared.pop("playwright").stop()


#: Tap targets under 48 px that a person can see (a page must have none).
SMALL_TARGETS = """() => [...document.querySelectorAll('button, a.btn, .btn')]
    .filter(el => el.offsetParent !== null && !el.closest('[hidden]'))
    .map(el => [el.textContent.trim() || el.getAttribute('aria-label'), el.getBoundingClientRect()])
    .filter(([, r]) => r.width < 48 || r.height < 48).map(([t, r]) => `${t}: ${r.width}x${r.height}`)"""


@pytest.fixture
def base(app: Flask) -> Iterator[str]:
    with serving(app) as url:
        yield url


@contextlib.contextmanager
def page_opener(browser: Any, local: str, size: tuple[int, int] = (1024, 600)) -> Iterator[Callable[..., Any]]:
    """Opens pages (``size`` unless told) in fresh browser contexts that may ask only addresses starting with
    ``local``; closes them at the end; no page error allowed."""
    contexts: list[Any] = []
    outside: list[str] = []
    errors: list[str] = []

    def local_only(route: Any) -> None:
        """The table has no internet: only the companion itself may be asked for anything."""
        if route.request.url.startswith(local):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    def open_(width: int = size[0], height: int = size[1]) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
        context.route("**/*", local_only)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        return page

    yield open_
    for context in contexts:
        context.close()
    assert outside == [], f"the page asked for something beyond the companion: {outside}"
    assert errors == [], f"script errors on the page: {errors}"


@pytest.fixture
def open_page(browser: Any, base: str) -> Iterator[Callable[..., Any]]:
    """Opens pages in fresh browser contexts; closes them before the server stops; no page error allowed."""
    with page_opener(browser, base) as open_:
        yield open_


def start_game(base: str, game: str, players: list[str], **options: Any) -> dict[str, Any]:
    """A new session of `game` through the API; returns its view."""
    status, view = call(f"{base}/api/sessions", {"game": game, "players": players, "options": options})
    assert status == 201, view
    return view


def post_events(base: str, session: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    """Send `events` in order; each must be accepted. Returns the last view."""
    view = session
    for event in events:
        status, view = call(f"{base}/api/sessions/{session['id']}/events", event)
        assert status == 200, (event, view)
    return view


def session_view(base: str, session: dict[str, Any]) -> dict[str, Any]:
    _, view = call(f"{base}/api/sessions/{session['id']}")
    return view


def open_game(open_page: Callable[..., Any], base: str, session: dict[str, Any], width: int = 1024,
              height: int = 600) -> Any:
    """A game's page, once its script has wired every control and its live stream is open."""
    page = open_page(width, height)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_selector("#live:text-is('live')")
    return page


#: The texts inside the element `root` (a selector) a person sees drawn under 13 px (SVG drawings aside: their text is
#: sized in the drawing's units, tests/test_readable_text_browser.py reads them as drawn; and words at 0 px, kept for a
#: screen reader where a mark shows their meaning): each text's words, its element and its size.
SMALL_TEXT = """(root) => { const texts = [],
        walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const el = text.parentElement, words = text.textContent.trim();
        if (!words || el.closest('svg, script, style, template') || !el.checkVisibility()) continue;
        const range = document.createRange();
        range.selectNodeContents(text);
        if (!range.getClientRects().length) continue;
        const px = parseFloat(getComputedStyle(el).fontSize);
        if (px > 0 && px < 13) texts.push(`${words.slice(0, 40)} (${el.localName}.${el.className}): ${px} px`);
    }
    return texts; }"""

#: What a page says when its tap was refused as stale (kit.js ``plainError``): another device changed the game first.
NOT_COUNTED = "Not counted: someone changed the game a moment ago. This screen shows it now: tap again if still needed."
#: What a page says of a tap it took for a double tap's second half (kit.js ``NOT_COUNTED``).
DOUBLED = "Not counted: it came with the tap before, as if a double tap. Tap it again if you meant it."


def tap_again(page: Any, selector: str) -> None:
    """Tap `selector` as a person tapping the same button again would, or a button drawn since where the last tap
    landed: once the page would take it for a new tap, not a double tap's second half (kit.js ``DOUBLE_TAP_MS`` after
    the last one's answer: the body's ``data-settling``)."""
    page.wait_for_selector("body:not([data-settling])", state="attached")
    page.click(selector)


#: The parts of the header's title cut short (clipped, or reaching past the title or the screen): a page must have none.
CUT_TITLE = """() => { const title = document.querySelector('header.bar h1'), box = title.getBoundingClientRect();
    return [title, ...title.querySelectorAll('*')].filter((el) => {
        const r = el.getBoundingClientRect();
        return el.scrollWidth > el.clientWidth && el.clientWidth > 0 || r.left < Math.max(box.left, 0) - .5
            || r.right > Math.min(box.right, window.innerWidth) + .5; })
    .map((el) => `${el.textContent.trim()}: ${el.scrollWidth} px in ${el.clientWidth}`); }"""

#: The words a button shows cut short with an ellipsis ("2-hand s…"): a button's label is read whole.
CUT_LABELS = """() => [...document.querySelectorAll('button, button *')].filter((el) => el.offsetParent !== null
        && getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1)
    .map((el) => `${el.textContent.trim()}: ${el.scrollWidth} px in ${el.clientWidth}`)"""

#: A ruling's id in a page's own words, "(W6)": a family reads the rule, the id is a small tag on a refusal only.
#: The contrast (WCAG, 1 to 21) of an element's text on the background of the nearest of it and its ancestors with one
#: (``locator.evaluate(CONTRAST)``).
CONTRAST = """(el) => {
    const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => c.map((v) => { v /= 255; return v <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4; })
        .reduce((sum, v, i) => sum + v * [.2126, .7152, .0722][i], 0);
    const clear = (box) => /rgba\\(.*,\\s*0\\)|transparent/.test(getComputedStyle(box).backgroundColor);
    let box = el;
    while (box.parentElement && clear(box)) box = box.parentElement;
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(rgb(getComputedStyle(box).backgroundColor))];
    return (Math.max(a, b) + .05) / (Math.min(a, b) + .05); }"""

#: How many lines the text of a node (an element, or a text node) takes as drawn: the distinct tops of its boxes.
TEXT_LINES = """(node) => { const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; }"""

#: The words of the texts in each of `sel` that a line break splits where they have no hyphen, soft or their own, to
#: break at ("Bartholomä" over "us", "Defend" over "er").
BROKEN_WORDS = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility()).flatMap((el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), words = [];
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        let at = 0;
        for (const word of text.textContent.split(' ')) {
            const range = document.createRange();
            range.setStart(text, at);
            range.setEnd(text, at + word.length);
            const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            if (lines.size > 1 && !/[-\u00ad]/.test(word)) words.push(word);
            at += word.length + 1;
        }
    }
    return words; })"""

RULING_IN_WORDS = r"\([A-Z][0-9]{1,2}\)"


def fits(page: Any, where: str, header: bool = True) -> None:
    """The screen as a family at the table sees it: no tap target under 48 px, nothing scrolls sideways, no
    button's label cut short, no ruling's id in the page's words, and the header (if the page has one) keeps its
    title whole and stays one row, or two on a phone (the title on a row of its own, or the links under it)."""
    assert page.evaluate(SMALL_TARGETS) == [], f"{where}: tap targets under 48 px"
    cut = page.evaluate(CUT_LABELS)
    assert not cut, f"{where}: button labels cut short: {cut}"
    words = re.findall(RULING_IN_WORDS, page.locator("body").inner_text())
    assert not words, f"{where}: a ruling's id in the page's words: {words}"
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{where} scrolls sideways"
    if header:
        assert page.evaluate(CUT_TITLE) == [], f"the header's title is cut short: {where}"
        bar, width = page.evaluate("[document.querySelector('header.bar').getBoundingClientRect().height,"
                                   " window.innerWidth]")
        rows = 1 if width > 660 else 2  # kiosk.css: a game's title on a row of its own up to 660 px
        assert bar <= 64 * rows - 8 * (rows - 1), f"the header takes more than {rows} row(s): {where} ({bar} px high)"


def shoot(page: Any, name: str, full_page: bool = False) -> None:
    """Save a screenshot as NAME.png in the folder named by $COMPANION_SHOTS, to look at the page; nothing
    without it."""
    folder = os.environ.get("COMPANION_SHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"{name}.png"), full_page=full_page)


def in_view(page: Any, selector: str) -> None:
    """The control is on the screen as it is, without scrolling."""
    box = page.evaluate("(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return"
                        " [r.top, r.bottom, r.left, r.right, window.innerHeight, window.innerWidth]; }", selector)
    top, bottom, left, right, height, width = box
    assert 0 <= top and bottom <= height and 0 <= left and right <= width, f"{selector} is off the screen: {box}"


def centre(page: Any, selector: str) -> list[float]:
    """Where the middle of `selector` is drawn now, [x, y] on the screen."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]


def player_at(page: Any, rows: str, spot: list[float]) -> str | None:
    """The player (`data-player`) whose button in `rows` is at `spot`, or None where no player's button is."""
    return page.evaluate("""([x, y, rows]) => document.elementFromPoint(x, y)?.closest(`${rows} button`)
        ?.closest('[data-player]')?.dataset.player ?? null""", [*spot, rows])


def keypad(page: Any, number: int, label: str = "") -> None:
    """Type `number` on the kit's keypad asking for `label` (several keypads may follow one another)."""
    from playwright.sync_api import expect

    expect(page.locator(".keypad-panel .label")).to_contain_text(label)
    for digit in str(number):
        page.click(f"#keypad-keys button:text-is('{digit}')")
    page.click("#keypad-ok")


def tap_anyway(control: Any) -> None:
    """Tap a control (a Playwright locator) that looks disabled (aria-disabled), so that the page
    says why. The tap goes to the control as it is at that moment: a live page may redraw it between
    Playwright finding it and a forced click, and a forced click does not retry."""
    control.dispatch_event("click")


def without_seq(page: Any) -> None:
    """Send the page's game taps without the seq it saw (as the API's other clients may): a tap made on an old
    picture of the game is then judged by the rules, not refused as stale, to see how a rule's refusal shows."""
    def strip(route: Any) -> None:
        body = route.request.post_data_json
        if isinstance(body, dict):
            body.pop("expected_seq", None)
        route.continue_(post_data=json.dumps(body))

    page.route("**/api/sessions/*/events", strip)


NAMES = ["Sun", "Moon", "Star", "Crown", "Key", "Flame"]  # a table's names for gates 1..6 (ruling D2)
KIOSK, PHONE = (800, 480), (390, 844)  # the Pi's touchscreen, a phone
WIDE = (1024, 600)  # the Pi's other 7-inch screen
SCREENS = pytest.mark.parametrize("size", [KIOSK, WIDE, PHONE], ids=["800x480", "1024x600", "phone"])


def current_round(base: str, session: dict[str, Any]) -> dict[str, Any]:
    """The session's current round, through the API."""
    return call(f"{base}/api/sessions/{session['id']}")[1]["state"]["current"]


def without_reference(app: Flask) -> None:
    """No empty reference, and none taken by itself (as while a round with marbles is played)."""
    sensors = app.extensions["sensors"]
    sensors.camera._round_empty = lambda: False
    sensors.camera.reference.clear()
    sensors.publish_status()

"""The one header every page shares, in headless Chromium, on a 360 px phone, a 390 px phone and the Pi's 800x480
screen, with the Simulation badge taking its room: the page's title reads whole (never "C." or "Ca…"), nothing
reaches past the screen's edge, and a page does not offer a link to itself (the Camera page no Camera link); a game's
header says in words that its live connection is lost, on a phone too."""
from __future__ import annotations

import re
from typing import Any, Callable, Iterator

import pytest
from flask import Flask

from tests.browser import CUT_TITLE, KIOSK, PHONE, fits, post_events, shoot, start_game
from tests.servers import serving

#: What the header shows besides the title: its links and the Simulation badge by the text they show, the game's
#: controls (an icon alone on a phone) by their names.
HEADER_LINKS = """() => [...document.querySelectorAll('header.bar a, header.bar button')]
    .filter((el) => el.offsetParent !== null)
    .map((el) => el.tagName === 'A' || el.id === 'sim-badge' ? el.innerText.replace(/\\s+/g, ' ').trim()
                                                             : el.getAttribute('aria-label'))"""

#: The links a person can see that lead to the page they are on.
SELF_LINKS = """() => [...document.querySelectorAll('a[href]')].filter((a) => a.offsetParent !== null
        && new URL(a.href).href.split('#')[0] === location.href.split('#')[0])
    .map((a) => a.innerText.trim() || a.getAttribute('aria-label'))"""

#: Whatever in the header reaches past the screen's left or right edge.
PAST_THE_EDGE = """() => [...document.querySelectorAll('header.bar, header.bar *')].filter((el) => {
        const r = el.getBoundingClientRect(); return r.width && (r.left < 0 || r.right > window.innerWidth + .5); })
    .map((el) => `${el.tagName} ${el.textContent.trim()}`)"""


@pytest.fixture
def base(castle_app: Flask) -> Iterator[str]:
    with serving(castle_app) as url:  # in simulation: the Simulation badge takes its room in the header
        yield url


def _pages(base: str) -> list[tuple[str, str, list[str]]]:
    """(path, the title as it reads, the header's links and badge) of every page with the header."""
    diego = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    finished = start_game(base, "diego-drachenzahn", ["Ada", "Ben"], rounds_per_player=1)
    post_events(base, finished, {"type": "marble", "gate": 6}, {"type": "guess", "player": "Ben", "gate": 1},
                {"type": "reveal", "gate": 6}, {"type": "guess", "player": "Ada", "gate": 2},
                {"type": "reveal", "gate": 1})
    games = [(start_game(base, game, ["Ada", "Ben", "Cleo"]), name)
             for game, name in (("drachensachen", "Drachensachen"), ("drachen-wurf", "Drachen Wurf"),
                                ("draci-hrad", "Dračí hrad"))]
    controls = ["Home", "Undo", "Redo", "More", "Sim"]
    return [("/", "Dragon table", ["Camera", "Devices", "Sim"]),
            ("/camera", "Camera", ["Home", "Devices", "Sim"]),
            ("/devices", "Devices", ["Home", "Camera", "Sim"]),
            ("/heroes", "Hero cards", ["Home", "Camera", "Devices", "Sim"]),
            ("/play/999999", "Oops", ["Home", "Camera", "Devices", "Sim"]),
            (f"/play/{diego['id']}", "Diego Drachenzahn 1/6", controls),
            (f"/play/{finished['id']}", "Diego Drachenzahn finished", controls),
            *[(f"/play/{session['id']}", f"{name} 1", controls) for session, name in games]]


@pytest.mark.parametrize("size", [(360, 740), PHONE, KIOSK], ids=["phone-360", "phone-390", "kiosk"])
def test_every_header_keeps_its_title_whole_and_no_page_links_to_itself(
        open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    width, height = size
    page = open_page(width, height)
    for path, title, links in _pages(base):
        where = f"{path} at {width}x{height}"
        page.goto(base + path)
        if path.startswith("/play/") and title != "Oops":
            page.wait_for_selector("body[data-ready='yes']")
            page.wait_for_selector("#live:text-is('live')")
        heading = page.locator("header.bar h1")
        assert " ".join(heading.inner_text().split()) == title, where
        assert page.evaluate(CUT_TITLE) == [], f"the title is cut short: {where}"
        assert page.evaluate(PAST_THE_EDGE) == [], f"the header reaches past the screen: {where}"
        fits(page, where)
        assert page.evaluate(SELF_LINKS) == [], f"{where} links to itself"
        expected = [{"Sim": "Simulation"}.get(link, link) if width > 900 else link for link in links]
        assert page.evaluate(HEADER_LINKS) == expected, where
        shoot(page, f"header{path.replace('/', '-')}-{width}x{height}")


#: The texts the header shows a person (laid out on the screen at a size to read, not hidden), each with its box.
SHOWN_TEXTS = """() => {
    const shown = [], range = document.createRange();
    const walker = document.createTreeWalker(document.querySelector('header.bar'), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.data.trim() || !node.parentElement.checkVisibility({ opacityProperty: true,
                                                                        visibilityProperty: true })) continue;
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        if (r.width >= 1 && r.height >= 10) {
            shown.push({ text: node.data.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom });
        }
    }
    return shown; }"""

#: The boxes of the header's title, links and buttons a person can see.
CONTROLS = """() => [...document.querySelectorAll('header.bar h1, header.bar a, header.bar button')]
    .filter((el) => el.offsetParent !== null).map((el) => {
        const r = el.getBoundingClientRect();
        return { name: el.getAttribute('aria-label') || el.innerText.trim(), left: r.left, right: r.right, top: r.top,
                 bottom: r.bottom }; })"""


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > .5 and \
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > .5


@pytest.mark.parametrize("size", [(360, 740), PHONE, KIOSK], ids=["phone-360", "phone-390", "kiosk"])
def test_a_lost_live_connection_is_said_in_words_beside_the_whole_title(
        open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    """On a phone a game's header said its lost live connection by a "⚠" alone (its words had no room beside the
    Simulation badge): a person could not tell what it meant. Every screen says it in words, on the screen and clear
    of the header's controls, and the title stays whole."""
    width, height = size
    page = open_page(width, height)
    page.route("**/stream", lambda route: route.abort())  # the page's live connection is lost, and stays lost
    games = [(path, title) for path, title, _ in _pages(base) if path.startswith("/play/") and title != "Oops"]
    assert len(games) == 5
    for path, title in games:
        where = f"{path} ({title}) at {width}x{height}, its connection lost"
        page.goto(base + path)
        page.wait_for_selector("body[data-ready='yes']")
        page.wait_for_selector("body[data-live='no']")
        shown = page.evaluate(SHOWN_TEXTS)
        said = [text for text in shown if re.search(r"offline|reconnecting", text["text"], re.I)]
        assert said, f"{where}: the header shows {[text['text'] for text in shown]}, no word for the lost connection"
        for text in said:
            assert 0 <= text["left"] and text["right"] <= width, f"{where}: {text} reaches past the screen"
            crossed = [control["name"] for control in page.evaluate(CONTROLS) if _overlap(text, control)]
            assert crossed == [], f"{where}: {text['text']!r} lies over {crossed}"
        heading = page.locator("header.bar h1")
        assert " ".join(heading.inner_text().split()) == title, where
        assert page.evaluate(CUT_TITLE) == [], f"the title is cut short: {where}"
        assert page.evaluate(PAST_THE_EDGE) == [], f"the header reaches past the screen: {where}"
        fits(page, where)
        shoot(page, f"header-offline{path.replace('/', '-')}-{width}x{height}")

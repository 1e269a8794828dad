"""A tap on a button's picture, in headless Chromium: the button's, however the picture is drawn meanwhile; and a
page asks for a sprite once.

A button's symbol is a sprite's (kit.js ``icon``: an SVG ``use`` of a symbol of /static/symbols.svg). Each redraw asked
the companion for the sprite again, and drew every symbol anew when it came. Pressed on the picture, the press was
the picture's own: drawn anew before the release, the tap had no click and was lost. Seen at the table's pace in
"Who turned over what?" (one answer after another, 1 time in 11 to 20 under load), where an answer's redraw asked
for the sprite again and the sprite came between the next press and its release.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import centre, open_game, post_events, start_game

#: The buttons drawn with a picture whose picture, not the button, a finger at the picture's middle would press.
PICTURES_TAKING_THE_PRESS = """() => [...document.querySelectorAll('button svg, .btn svg')]
    .filter((svg) => svg.checkVisibility() && !svg.closest('[hidden], [inert]'))
    .filter((svg) => { const r = svg.getBoundingClientRect(),
                             hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return hit && svg.closest('button, .btn').contains(hit) && hit.closest('svg'); })
    .map((svg) => svg.closest('button, .btn')).map((b) => b.textContent.trim() || b.getAttribute('aria-label'))"""

#: A picture drawn anew under a finger, as when its symbol comes from the companion.
DRAW_ANEW = """(selector) => { const use = document.querySelector(selector), href = use.getAttribute('href');
    use.setAttribute('href', `${href}-gone`);
    use.getBoundingClientRect();
    use.setAttribute('href', href);
    use.getBoundingClientRect(); }"""


def test_a_tap_counts_when_the_picture_under_the_finger_is_drawn_anew(open_page: Callable[..., Any],
                                                                       base: str) -> None:
    """Pressed on gate 3's symbol, the symbol drawn anew, then released: the marble counts in gate 3."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"])
    page = open_game(open_page, base, session, 800, 480)
    page.mouse.move(*centre(page, "#marble-pad [data-gate='3'] svg"))
    page.mouse.down()
    page.evaluate(DRAW_ANEW, "#marble-pad [data-gate='3'] use")
    page.mouse.up()
    expect(page.locator("#slots .slot.filled")).to_have_count(1)
    expect(page.locator("#slots .slot.filled").first).to_contain_text("Gate 3")


@pytest.mark.parametrize("game, players", [("diego-drachenzahn", ["Ada", "Ben"]),
                                           ("drachensachen", ["Ada", "Ben", "Cleo"]),
                                           ("drachen-wurf", ["Ada", "Ben"]), ("draci-hrad", ["Ada", "Ben"])])
def test_no_picture_on_a_button_takes_the_press(open_page: Callable[..., Any], base: str, game: str,
                                                players: list[str]) -> None:
    """Every game's first screen: at each button's picture a finger presses the button itself."""
    page = open_game(open_page, base, start_game(base, game, players), 800, 480)
    assert page.locator("button svg, .btn svg").count() > 0, "no button with a picture: nothing to check"
    assert page.evaluate(PICTURES_TAKING_THE_PRESS) == []


def test_a_page_asks_for_its_sprites_once_however_often_it_is_drawn(open_page: Callable[..., Any], base: str) -> None:
    """A round of Diego entered on another device, every step redrawing the gates' symbols: the page asked for the
    symbols once, where it asked again at every redraw."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"])
    page = open_page(800, 480)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "symbols.svg" in request.url else None)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("#live:text-is('live')")
    expect(page.locator("#marble-pad [data-gate='3'] use")).to_have_count(1)
    for gate in (3, 5, 1):
        seq = post_events(base, session, {"type": "marble", "gate": gate})["seq"]
        page.wait_for_selector(f"body[data-seq='{seq}']", state="attached")
    post_events(base, session, {"type": "reveal", "gate": 3})
    expect(page.locator("#turned-step")).to_be_visible()
    assert asked == [f"{base}/static/symbols.svg"], asked
    # every symbol drawn is one the page keeps (the twelve gate symbols, once they came)
    expect(page.locator("#sprites symbol")).to_have_count(12)
    missing = page.evaluate("""() => [...document.querySelectorAll('svg use')].map((u) => u.getAttribute('href'))
        .filter((ref) => !document.querySelector(`#sprites symbol${ref}`))""")
    assert missing == [], missing

"""Drachen Wurf's base secured tile by tile on a phone, in headless Chromium, with a double tap among the taps: the
second half of a double tap on "New row" lands on "Row 1", drawn under the finger, and is not counted. The tile left
on the base was forgotten then: every later tap on a row sent the Red dragon on Mountains (the first tile of all),
refused as "not on the base: face down" (W6), until the page was opened again."""
from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import expect

from tests.browser import DOUBLED, PHONE, WAIT_MS, call, post_events, start_game
from tests.test_double_tap_browser import logged, still_page
from tests.test_drachen_wurf_browser import WURF, tile

#: Two players' first turns and Ada's second (as tests/test_drachen_wurf_browser.py plays them by tap), then Ben's
#: tiles come up: his base holds the Red dragons on Mountains and Forest (ruling W1's colours and landscapes: 1, 1 and
#: 1, 2), to be secured one by one.
TO_BENS_SECURING = [
    *({"type": "flip", "colour": c, "landscape": ls} for c, ls in ((1, 1), (1, 2), (2, 1), (3, 3))),
    {"type": "remove", "colour": 3, "landscape": 3},
    {"type": "win", "colour": 1, "landscape": 1, "from": "middle", "k": 2},
    {"type": "win", "colour": 2, "landscape": 1, "from": "middle", "k": 4},
    {"type": "end"},
    *({"type": "flip", "colour": c, "landscape": ls} for c, ls in ((4, 4), (5, 5), (6, 6))),
    {"type": "remove", "colour": 6, "landscape": 6},
    {"type": "win", "colour": 1, "landscape": 1, "from": "Ada", "k": 3},
    {"type": "win", "colour": 1, "landscape": 2, "from": "middle", "k": 3, "egg": True},
    {"type": "end"},
    {"type": "flip", "colour": 2, "landscape": 2}, {"type": "flip", "colour": 2, "landscape": 3},
    {"type": "remove", "colour": 2, "landscape": 3},
    {"type": "secure", "colour": 2, "landscape": 1, "row": None},
    {"type": "win", "colour": 2, "landscape": 2, "from": "middle", "k": 2},
    {"type": "end"},
    {"type": "flip", "colour": 3, "landscape": 4}, {"type": "flip", "colour": 3, "landscape": 5},
    {"type": "remove", "colour": 3, "landscape": 5},
]


def test_a_double_tap_while_securing_the_base_forgets_no_tile(open_page: Callable[..., Any], base: str) -> None:
    """New row, then at once Row 1 under the same finger (not counted, and said), then Row 1 tapped again: the second
    tile joins the first's row, with no refusal shown."""
    session = start_game(base, WURF, ["Ada", "Ben"])
    post_events(base, session, *TO_BENS_SECURING)
    page = still_page(open_page, base, session, PHONE)
    expect(page.locator("#secure-title")).to_contain_text("2 tiles left")
    box = page.locator("#row-targets [data-row='new']").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    expect(page.locator("#secure-title")).to_contain_text("1 tile left", timeout=WAIT_MS)
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.dataset.row", [x, y])
    assert under == "1", f"row 1 is not drawn under the finger ({under}): nothing to check"
    page.mouse.click(x, y)  # the double tap's second half, on Row 1 drawn under it
    page.clock.fast_forward(1000)
    page.locator("#row-targets [data-row='1']").click()  # a tap of its own, a second later
    expect(page.locator("#secure-step")).to_be_hidden(timeout=WAIT_MS)
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["state"]["hoards"]["Ben"]["rows"] == [[tile(1, 1), tile(1, 2)]], view["state"]["hoards"]["Ben"]
    assert logged(base, session)[len(TO_BENS_SECURING):] == ["secure", "secure"]
    shown = [list(toast) for toast in page.evaluate("window.shownToasts")]
    assert [words for kind, words in shown if kind == "error"] == [], shown
    assert ["info", DOUBLED] in shown, shown

"""Diego Drachenzahn's gates panel on the Pi's screens, in headless Chromium. Under 1100 px the panel stands under
the round, the six gates and the camera one under another: the page was 736 px high at 1024x600 in simulation
(its rolls and Chatter beneath), 170 px below the screen's foot. The gates stand side by side, the simulated rolls
and Chatter on one line: the page fits 1024x600, and at 800x480 the gates take two lines."""
from __future__ import annotations

from typing import Any, Callable

from flask import Flask

from tests.browser import KIOSK, WIDE, fits, open_game, page_opener, start_game
from tests.servers import serving
from tests.test_fit_800_browser import BELOW

#: The distinct lines (their tops, px) the gates' and the camera's entries of the panel stand on.
LINES = """() => new Set([...document.querySelectorAll('#gate-status li')]
    .map((li) => Math.round(li.getBoundingClientRect().top))).size"""


def test_the_gates_panel_leaves_the_page_on_the_screen(browser: Any, make_app: Callable[..., Flask]) -> None:
    with serving(make_app()) as base, page_opener(browser, base) as open_page:  # simulated: its rolls shown too
        session = start_game(base, "diego-drachenzahn", ["Bartholomäus Drachenherz", "Oma Käthe", "Lena"])
        wide = open_game(open_page, base, session, *WIDE)
        wide.wait_for_selector("#gate-status li")
        assert wide.locator("#sim-pad").is_visible(), "no simulated rolls: the panel is not as tall as it gets"
        fits(wide, "Diego at 1024x600")
        assert wide.evaluate(BELOW) <= 0, f"Diego at 1024x600 scrolls by {wide.evaluate(BELOW)} px"
        kiosk = open_game(open_page, base, session, *KIOSK)
        kiosk.click("#sensors-toggle")  # the panel waits behind its button beside the scores there
        kiosk.wait_for_selector("#gate-status li")
        assert kiosk.evaluate(LINES) <= 2, f"the gates take {kiosk.evaluate(LINES)} lines at 800x480"

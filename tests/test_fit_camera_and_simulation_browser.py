"""The Camera page's set-up and Diego Drachenzahn in simulation on the Pi's 800x480 screen, in headless Chromium.
The Camera page was 1250 to 1400 px high there in every step of its set-up (the side panel's state, markers, marble
size and photo keeping one under another), and a message of three lines while the gate corners were tapped covered the
foot of "Save regions". Diego's page in simulation was about 570 px high, 730 px with a flag: the gates' panel with
its simulated rolls under the round, and a flag took the round itself past the screen's foot."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from hardware.camera.hub import OVEREXPOSED_PICTURE, UNSURE_WITHOUT_REFERENCE, waiting
from tests.browser import KIOSK, SMALL_TEXT, WAIT_MS, fits, in_view, open_game, page_opener, shoot, start_game
from tests.servers import serving
from tests.test_fit_800_browser import BELOW


@pytest.fixture
def base(camera_app: Flask) -> Iterator[str]:
    with serving(camera_app) as url:
        yield url


#: Each step of the set-up as the camera's state has it (changes to the simulated camera's own), the words its Next
#: line starts with and the buttons it names.
STEPS = [
    ("the gates to tap", {"calibrated": False, "calibration": None}, "Next: press Tap the gate corners", ["calibrate"]),
    ("no empty reference", {"reference": {"captured": False, "taken": None}, "unsure": UNSURE_WITHOUT_REFERENCE},
     "Next: with every gate empty", ["reference"]),
    ("a reference taken before the gates", {"reference_unchecked": True}, "Next: with every gate empty",
     ["reference"]),
    ("the marble's size", {"marble": {"radius_px": None, "source": None, "error": None}}, "Next: the marble's size",
     ["anchor", "measure"]),
    ("the marble's size under a note", {"marble": {"radius_px": None, "source": None, "error": None},
                                        "unsure": OVEREXPOSED_PICTURE.format(waiting=waiting(None, False), minutes=2)},
     "Next: the marble's size", ["anchor", "measure"]),
    ("ready, with a doubt", {"reference_in_round": True}, "Ready, with a doubt: the empty reference", []),
    ("ready", {}, "Ready: a marble rolled", []),
]


def _step(changes: dict[str, Any]) -> Callable[[Any], None]:
    """Answers the page's question for the camera's state with the simulated camera's state, changed."""
    def answer(route: Any) -> None:
        try:
            status = route.fetch().json()
        except PlaywrightError:  # the page closed while it asked
            return
        for key, value in changes.items():
            status[key] = {**status[key], **value} if isinstance(value, dict) else value
        route.fulfill(json=status)
    return answer


@pytest.mark.parametrize("step, changes, words, named", STEPS, ids=[step[0] for step in STEPS])
def test_every_step_of_the_camera_set_up_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str, step: str,
                                                               changes: dict[str, Any], words: str,
                                                               named: list[str]) -> None:
    """Each step leaves the page on the screen: its Next line, the note above it, the picture and the buttons the
    line names in sight without a scroll, the rest of the side panel below them in the panel; text 13 px or more."""
    page = open_page(*KIOSK)
    page.route("**/api/camera", _step(changes))
    page.goto(f"{base}/camera")
    expect(page.locator("#next-step")).to_contain_text(words, timeout=WAIT_MS)
    expect(page.locator("#preview")).to_be_visible(timeout=WAIT_MS)
    if "unsure" in changes:
        expect(page.locator("#unsure")).to_be_visible()
    where = f"the Camera page at 800x480, {step}"
    shoot(page, f"camera-step-{step.replace(' ', '-')}-800x480")
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    fits(page, where)
    for selector in ("#next-step", "#preview", *(f"#{button}" for button in named)):
        in_view(page, selector)
    assert page.evaluate(SMALL_TEXT, "main") == [], where


#: Where two elements (selectors) are drawn over each other: the overlap's height in px (0 where they do not meet).
OVERLAP = """([a, b]) => { const r = document.querySelector(a).getBoundingClientRect(),
        s = document.querySelector(b).getBoundingClientRect();
    const wide = Math.min(r.right, s.right) - Math.max(r.left, s.left);
    return wide > 0 ? Math.max(0, Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top)) : 0; }"""


def test_a_message_while_the_corners_are_tapped_leaves_save_regions_clear(open_page: Callable[..., Any],
                                                                           base: str) -> None:
    """The companion out of reach as the regions are saved: its message of three lines stands under the tools beside
    the picture, clear of "Save regions" and of the picture, the whole page on the screen."""
    page = open_page(*KIOSK)
    page.goto(f"{base}/camera")
    expect(page.locator("#preview")).to_be_visible(timeout=WAIT_MS)
    page.click("#calibrate")
    expect(page.locator("#calib")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#calib-save")).to_be_enabled()  # the simulated castle's regions, all six gates
    page.route("**/api/camera/regions", lambda route: route.abort())
    page.click("#calib-save")
    toast = page.locator("#toast")
    expect(toast).to_contain_text("The companion cannot be reached", timeout=WAIT_MS)
    shoot(page, "camera-corners-message-800x480")
    lines = page.evaluate("(() => { const t = document.getElementById('toast'), style = getComputedStyle(t);"
                          " return Math.round((t.clientHeight - parseFloat(style.paddingTop)"
                          " - parseFloat(style.paddingBottom)) / parseFloat(style.lineHeight"
                          " === 'normal' ? parseFloat(style.fontSize) * 1.15 : style.lineHeight)); })()")
    assert lines >= 3, f"the message takes {lines} lines: not the long message this is about"
    for selector in ("#calib-save", "#calib-undo", "#calib-cancel", "#calib"):
        in_view(page, selector)
        overlap = page.evaluate(OVERLAP, ["#toast", selector])
        assert overlap == 0, f"the message covers {overlap} px of {selector}"
    assert page.evaluate(BELOW) <= 0, f"tapping the corners scrolls by {page.evaluate(BELOW)} px"


def overlap(page: Any, one: str, other: str) -> bool:
    """Whether the boxes drawn for selectors `one` and `other` overlap."""
    a, b = page.locator(one).bounding_box(), page.locator(other).bounding_box()
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and a["y"] < b["y"] + b["height"]
            and b["y"] < a["y"] + a["height"])


#: The round's own controls: the flag's, the marbles' and the token's.
ROUND_CONTROLS = ("#turn", "#slots", "#marble-pad button:first-child", "#marble-pad button:last-child",
                  "#reveal-pad button:first-child", "#reveal-pad button:last-child")


def test_diego_in_simulation_fits_the_kiosk_screen_with_a_flag_too(browser: Any,
                                                                   make_app: Callable[..., Flask]) -> None:
    """A new player trying the game in simulation on the Pi's screen sees the whole round without a scroll, a flag
    (the camera unsure of two gates) too: the gates' panel and its simulated rolls wait behind their button beside
    the scores; opened, they roll a marble into the round, and the page still does not scroll."""
    app = make_app()
    with serving(app) as base, page_opener(browser, base) as open_page:
        session = start_game(base, "diego-drachenzahn", ["Bartholomäus Drachenherz", "Oma Käthe", "Lena"])
        page = open_game(open_page, base, session, *KIOSK)
        page.wait_for_selector("#gate-status li[data-gate='6']", state="attached")
        shoot(page, "diego-simulation-800x480")
        assert page.evaluate(BELOW) <= 0, f"Diego in simulation scrolls by {page.evaluate(BELOW)} px"
        fits(page, "Diego in simulation at 800x480")
        for selector in (*ROUND_CONTROLS, "#sensors-toggle"):
            in_view(page, selector)
        assert page.evaluate(SMALL_TEXT, "main") == []

        app.extensions["table"].submit(session["id"], {"type": "camera", "counts": [0, 1, 0, 0, 1, 0],
                                                       "unsure": [False, True, True, False, False, False]},
                                       source="camera")
        flag = page.locator("#flag")
        expect(flag).to_be_visible(timeout=WAIT_MS)
        expect(flag.get_by_role("button", name="Camera is right")).to_be_visible()
        shoot(page, "diego-simulation-flag-800x480")
        assert page.evaluate(BELOW) <= 0, f"Diego with a flag scrolls by {page.evaluate(BELOW)} px"
        fits(page, "Diego with a flag at 800x480")
        for selector in (*ROUND_CONTROLS, "#flag", "#flag .row button:first-child", "#flag .row button:last-child",
                         "#sensors-toggle"):
            in_view(page, selector)
        assert page.evaluate(SMALL_TEXT, "main") == []

        page.click("#sensors-toggle")
        expect(page.locator("#sim-pad [data-gate='4']")).to_be_visible()
        for selector in ("#sim-pad [data-gate='1']", "#sim-pad .miss", "#sensors-toggle", "#gate-status"):
            in_view(page, selector)
        assert page.evaluate(BELOW) <= 0, f"the open panel scrolls the page by {page.evaluate(BELOW)} px"
        fits(page, "Diego's open gates panel at 800x480")
        page.click("#sim-pad [data-gate='4']")
        expect(page.locator("#gate-status li[data-gate='4']")).to_contain_text("4: 1 marble", timeout=WAIT_MS)
        # its message shows on the open panel's edge: it covered the name whose turn it is at the top of the screen
        expect(page.locator("#toast")).to_have_text("Rolled a marble through gate 4")
        in_view(page, "#toast")
        shoot(page, "diego-simulation-panel-message-800x480")
        for selector in ("#turn .turn-name", "#slots", "#sim-pad", "#gate-status", "#sensors-toggle"):
            assert not overlap(page, "#toast", selector), f"the message covers {selector}"
        page.click("#sensors-toggle")
        expect(page.locator("#sim-pad")).to_be_hidden()
        for selector in ROUND_CONTROLS:
            in_view(page, selector)


def test_a_flag_of_three_paragraphs_leaves_the_round_on_the_kiosk_screen(browser: Any,
                                                                         make_app: Callable[..., Flask]) -> None:
    """The gates saw marbles in gates 2 and 3, the camera in 2 and 5 and is unsure of 2 and 3: the flag says so in
    three paragraphs, and at 800x480 it took the round 30 px below the screen's foot, the flag's own buttons in sight
    and the token's question cut. The token's question, which cannot be answered before the check, waits until it is
    done: the whole round and the flag, its reason why the camera cannot tell too, without a scroll; once the gates
    are confirmed the token's question is back. On a 1024x600 tablet nothing waits."""
    app = make_app()
    with serving(app) as base, page_opener(browser, base) as open_page:
        session = start_game(base, "diego-drachenzahn", ["Bartholomäus Drachenherz", "Oma Käthe", "Lena"])
        pages = {size: open_game(open_page, base, session, *size) for size in (KIOSK, (1024, 600))}
        table = app.extensions["table"]
        for gate in (2, 3):
            table.submit(session["id"], {"type": "marble", "gate": gate}, source="sensor")
        table.submit(session["id"], {"type": "camera", "counts": [0, 1, 0, 0, 1, 0],
                                     "unsure": [False, True, True, False, False, False]}, source="camera")
        for (width, height), page in pages.items():
            where = f"a flag of three paragraphs at {width}x{height}"
            flag = page.locator("#flag")
            expect(flag.locator("p")).to_have_count(3)
            expect(flag).to_contain_text("disagree")
            expect(flag).to_contain_text("(one may lie on the line between two gates, or still be rolling)")
            expect(flag).to_contain_text("Gates: Gate 2, Gate 3 · Camera: Gate 2, Gate 5")
            shoot(page, f"diego-flag-three-paragraphs-{width}x{height}")
            assert page.evaluate(BELOW) <= 0, f"{where}: the page scrolls by {page.evaluate(BELOW)} px"
            fits(page, where)
            for selector in ("#turn", "#flag", "#slots", "#marble-pad button:last-child",
                             *(f"#flag .row button:nth-child({n})" for n in (1, 2, 3))):
                in_view(page, selector)
            expect(page.locator("#turn .phrase")).to_have_text("waits: check the marbles")
            token = page.locator("#token-step")
            if (width, height) == KIOSK:
                expect(token).to_be_hidden()
            else:
                expect(token).to_be_visible()
                in_view(page, "#reveal-pad button:last-child")
        kiosk = pages[KIOSK]
        kiosk.locator("#flag").get_by_role("button", name="Gates are right").click()
        expect(kiosk.locator("#flag")).to_be_hidden()
        expect(kiosk.locator("#token-step")).to_be_visible()
        in_view(kiosk, "#reveal-pad button:last-child")
        assert kiosk.evaluate(BELOW) <= 0

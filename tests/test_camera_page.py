"""The Camera page in headless Chromium: the preview's pace follows calibration and stops while the page is hidden;
the picture to tap on fits the Pi's small screen with its buttons."""
from __future__ import annotations

from typing import Any, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import in_view
from tests.servers import call, serving
from tests.waiting import PATIENCE_S, wait_for
from web.app import create_app, shutdown

PATIENCE_MS = PATIENCE_S * 1000

SET_VISIBILITY = """(state) => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture
def base(app_config: dict[str, Any]) -> Iterator[str]:
    application: Flask = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "simulation"})
    try:
        camera = application.extensions["sensors"].camera
        wait_for(lambda: camera.preview_jpeg() is not None)  # the first picture with its overlay is there
        with serving(application) as url:
            yield url
    finally:
        shutdown(application)


FETCHED = "performance.getEntriesByType('resource').filter((e) => e.name.includes('/camera/preview.jpg')).length"


class PreviewCounter:
    """Counts the preview requests one page makes, when they are sent (events arrive while Playwright waits)."""

    def __init__(self, page: Any) -> None:
        self.count = 0
        page.on("request", self._seen)

    def _seen(self, request: Any) -> None:
        if "/camera/preview.jpg" in request.url:
            self.count += 1


def _interval(page: Any) -> str:
    return page.get_attribute("#preview-box", "data-preview-interval")


def _wait_fetched(page: Any, at_least: int) -> None:
    """Wait until `page` has fetched `at_least` preview pictures (counted by the page itself)."""
    page.wait_for_function(f"() => {FETCHED} >= {at_least}", timeout=PATIENCE_MS)


def _wait_interval(page: Any, value: str) -> None:
    page.wait_for_function(f"() => document.getElementById('preview-box').dataset.previewInterval === '{value}'",
                           timeout=PATIENCE_MS)


def test_the_preview_slows_when_idle_quickens_while_calibrating_and_stops_when_hidden(
        browser: Any, base: str) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    try:
        page, other = context.new_page(), context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        seen, seen_elsewhere = PreviewCounter(page), PreviewCounter(other)
        page.goto(f"{base}/camera")
        page.wait_for_selector("#preview:not([hidden])", timeout=PATIENCE_MS)
        assert _interval(page) == "1000"  # nobody calibrating: about one picture a second

        page.evaluate(SET_VISIBILITY, "hidden")
        _wait_interval(page, "0")
        before = seen.count
        # A window of a few preview intervals, measured by another open Camera page: it fetches three pictures
        # at the idle pace (two seconds or more) while the hidden page asks for none.
        other.goto(f"{base}/camera")
        _wait_fetched(other, 3)
        assert seen_elsewhere.count >= 3 and seen.count == before

        fetched = page.evaluate(FETCHED)
        page.evaluate(SET_VISIBILITY, "visible")
        _wait_fetched(page, fetched + 1)  # shown again: the preview resumes at once
        assert seen.count > before and _interval(page) == "1000"

        page.click("#reference")  # a calibration step: the preview follows closely for a while
        _wait_interval(page, "400")
        _wait_fetched(page, page.evaluate(FETCHED) + 3)

        page.click("#calibrate")  # tapping corners on a frozen snapshot: no preview meanwhile
        page.wait_for_selector("#calib:not([hidden])", timeout=PATIENCE_MS)
        _wait_interval(page, "0")
        page.click("#calib-cancel")
        _wait_interval(page, "400")
        assert errors == []
    finally:
        context.close()


def test_the_picture_to_tap_on_fits_the_small_screen_with_its_buttons(browser: Any, base: str) -> None:  # noqa: F811
    """At 800x480 the frozen picture, the gate buttons, Undo point and Save are on the screen together, and taps
    still land on the picture's own pixels."""
    context = browser.new_context(viewport={"width": 800, "height": 480}, has_touch=True)
    try:
        page = context.new_page()
        page.goto(f"{base}/camera")
        page.wait_for_selector("#preview:not([hidden])", timeout=PATIENCE_MS)
        page.click("#calibrate")
        canvas = page.wait_for_selector("#calib:not([hidden])", timeout=PATIENCE_MS)
        for selector in ("#calib", "#calib-hint", "#calib-gates [data-gate='1']", "#calib-gates [data-gate='6']",
                         "#calib-undo", "#calib-cancel", "#calib-save"):
            in_view(page, selector)
        box = canvas.bounding_box()
        scale = box["width"] / 640  # the snapshot is 640 x 480
        assert abs(box["height"] - 480 * scale) < 2 and box["height"] >= 300, box  # its shape kept, still big
        hint = page.locator("#calib-hint")
        for gate in range(1, 7):
            page.click(f"#calib-gates [data-gate='{gate}']")
            for dx, dy in ((0, 0), (60, 0), (60, 100), (0, 100)):
                canvas.click(position={"x": (20 + (gate - 1) * 100 + dx) * scale, "y": (150 + dy) * scale})
            # how far the gate's outline is and where to go next (it said "6 of 6 gates done" at a third corner: the
            # simulated castle's gates are outlined already)
            expect(hint).to_have_text(f"Gate {gate}: tap its corners in turn (4 tapped)"
                                      + (f", then Gate {gate + 1} above" if gate < 6 else "")
                                      + ". 6 of 6 gates outlined: Save regions.")
        assert page.evaluate("window.scrollY") == 0  # nothing had to scroll
        page.click("#calib-save")
        page.wait_for_selector("#calib[hidden]", state="attached", timeout=PATIENCE_MS)
        _, status = call(f"{base}/api/camera")
        first = status["regions"]["gates"][0]["polygon"]
        assert all(abs(a - b) <= 2 for p, q in zip(first, [[20, 150], [80, 150], [80, 250], [20, 250]])
                   for a, b in zip(p, q)), first

        page.click("#measure")  # a tap on one marble: the same picture with its Cancel beside it
        page.wait_for_selector("#calib:not([hidden])", timeout=PATIENCE_MS)
        for selector in ("#calib", "#measure-tools", "#measure-cancel"):
            in_view(page, selector)
        page.click("#measure-cancel")
        page.wait_for_selector("#calib[hidden]", state="attached", timeout=PATIENCE_MS)
        assert page.get_attribute("#camera-page", "data-tapping") is None
        assert page.is_visible("#calibrate") and page.is_visible("#facts")  # the whole side panel is back
    finally:
        context.close()


def test_back_while_tapping_corners_ends_the_tapping_and_stays(browser: Any, base: str) -> None:  # noqa: F811
    """The phone's Back while corners are tapped on the frozen picture left the Camera page, the corners lost without
    a word: it ends the tapping, as Cancel does, and the page stays; one Back more leaves it."""
    context = browser.new_context(viewport={"width": 800, "height": 480}, has_touch=True)
    try:
        page = context.new_page()
        page.goto(f"{base}/")
        page.goto(f"{base}/camera")
        page.wait_for_selector("#preview:not([hidden])", timeout=PATIENCE_MS)
        page.click("#calibrate")
        canvas = page.wait_for_selector("#calib:not([hidden])", timeout=PATIENCE_MS)
        canvas.click(position={"x": 20, "y": 20})
        page.go_back()
        page.wait_for_selector("#calib", state="hidden", timeout=PATIENCE_MS)
        assert page.url == f"{base}/camera"
        _wait_interval(page, "400")  # the live picture again
        page.go_back()
        page.wait_for_url(f"{base}/", timeout=PATIENCE_MS)
    finally:
        context.close()

"""The Camera page in headless Chromium: the preview's pace follows calibration and stops while the page is hidden."""
from __future__ import annotations

from typing import Any, Iterator

import pytest
from flask import Flask

from tests.servers import serving
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

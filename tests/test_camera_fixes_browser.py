"""A table owner's review of the Camera page, in headless Chromium: the live picture shows before any gate is tapped
(to aim and focus the camera by) and tapping corners fits the Pi's 800x480 screen without a scroll; the kept rounds'
record says what it measures (the camera's own certainty); with the camera off the buttons that need its picture say
so, and how to switch it on; the markers and the marble's size in a table owner's words."""
from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest
from flask import Flask
from playwright.sync_api import expect

from hardware.camera.keeping import Sample
from tests.browser import KIOSK, WAIT_MS, in_view, page_opener, shoot, tap_anyway
from tests.servers import serving
from tests.test_camera_fixes import castle_photo
from tests.waiting import wait_for
from web.app import create_app, shutdown


@pytest.fixture
def serve(app_config: dict[str, Any]) -> Iterator[Callable[..., tuple[Flask, str]]]:
    """Serve apps made with the settings given (on top of ``app_config``); each is shut down after the test."""
    with contextlib.ExitStack() as stack:
        def start(**config: Any) -> tuple[Flask, str]:
            application = create_app({**app_config, **config})
            stack.callback(shutdown, application)
            return application, stack.enter_context(serving(application))

        yield start


@pytest.fixture
def open_at(browser: Any) -> Iterator[Callable[..., Any]]:
    """Pages in fresh browser contexts (the Pi's 800x480 unless told) of the servers a test starts, closed after the
    test; no script error allowed on any."""
    with page_opener(browser, "http://127.0.0.1:", KIOSK) as open_:
        yield open_


def _fits_without_a_scroll(page: Any, where: str) -> None:
    height = page.evaluate("[document.documentElement.scrollHeight, window.innerHeight]")
    assert height[0] <= height[1], f"{where}: the page is {height[0]} px tall on a {height[1]} px screen"
    for selector in ("#calib", "#calib-hint", "#calib-gates [data-gate='1']", "#calib-gates [data-gate='6']",
                     "#calib-undo", "#calib-cancel", "#calib-save"):
        in_view(page, selector)


def _fresh_camera(serve: Callable[..., tuple[Flask, str]], tmp_path: Path) -> str:
    """A `file:` camera on a fresh data folder (no gate regions yet), once it gives pictures: the page's address."""
    path, _ = castle_photo(tmp_path / "photos")
    app, base = serve(SENSORS="simulation", CAMERA=f"file:{path}")
    hub = app.extensions["sensors"].camera
    wait_for(lambda: hub.service.status()["ok"])
    return base


def test_the_live_picture_shows_before_any_gate_is_tapped(serve: Callable[..., tuple[Flask, str]],
                                                          open_at: Callable[..., Any], tmp_path: Path) -> None:
    """On a fresh data folder the Live picture said "Waiting for the camera…" for good: the owner could not aim and
    focus the camera before tapping the corners."""
    base = _fresh_camera(serve, tmp_path)
    page = open_at()
    page.goto(f"{base}/camera")
    expect(page.locator("#preview")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#no-picture")).to_be_hidden()
    expect(page.locator("#next-step")).to_contain_text("Next: press Tap the gate corners")
    shoot(page, "camera-fix-fresh-800x480")


def test_tapping_corners_on_a_fresh_camera_shows_no_waiting_line_and_fits_the_screen(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any], tmp_path: Path) -> None:
    """While tapping corners the "Waiting for the camera…" line stayed under the frozen picture, and the page was
    540 px tall on the 480 px screen."""
    base = _fresh_camera(serve, tmp_path)
    page = open_at()
    page.goto(f"{base}/camera")
    page.click("#calibrate")
    expect(page.locator("#calib")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#no-picture")).to_be_hidden()
    _fits_without_a_scroll(page, "tapping corners on a fresh camera")
    assert page.evaluate("window.scrollY") == 0
    shoot(page, "camera-fix-corners-fresh-800x480")
    page.click("#calib-cancel")
    expect(page.locator("#calib")).to_be_hidden(timeout=WAIT_MS)
    expect(page.locator("#live-heading")).to_be_visible()  # the live picture again, with its heading
    expect(page.locator("#preview")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#no-picture")).to_be_hidden()


def test_tapping_corners_on_a_calibrated_camera_fits_the_screen_without_a_scroll(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any]) -> None:
    """In corner-tapping mode the page was 489 px tall on the 480 px screen."""
    app, base = serve(SENSORS="simulation", CAMERA="simulation")
    hub = app.extensions["sensors"].camera
    wait_for(lambda: hub.preview_jpeg() is not None)
    page = open_at()
    page.goto(f"{base}/camera")
    expect(page.locator("#preview")).to_be_visible(timeout=WAIT_MS)
    page.click("#calibrate")
    expect(page.locator("#calib")).to_be_visible(timeout=WAIT_MS)
    _fits_without_a_scroll(page, "tapping corners")
    assert page.evaluate("window.scrollY") == 0
    box = page.locator("#calib").bounding_box()
    assert box is not None and box["height"] >= 300 and abs(box["width"] / box["height"] - 640 / 480) < 0.01


def test_the_kept_rounds_record_says_the_camera_was_sure_of_a_wrong_count(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any]) -> None:
    """"It read a gate wrong without flagging it for a tap in 2 of them": those rounds were flagged (by the beams'
    disagreement) and settled by a tap. What is measured is the camera's own certainty; the figure stays."""
    app, base = serve(SENSORS="simulation", CAMERA="simulation", CAMERA_KEEP_PHOTOS=True)
    keeper = app.extensions["sensors"].keeper
    frame = np.full((48, 64, 3), 90, np.uint8)
    for number, camera in enumerate(((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
                                    start=1):
        assert keeper.keep(Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                                  camera_counts=camera, marble_radius=None, session=1, round=number,
                                  confirmed_at=time.time() + number, camera_unsure=(False,) * 6))
    assert keeper.flush()
    page = open_at()
    page.goto(f"{base}/camera")
    state = page.locator("#keeping-state")
    expect(state).to_contain_text(
        "The camera read all six gates right in 2 of 4 kept rounds (50%). The camera was sure of a wrong count in 2 of "
        "them; the table asked for a tap there because the beams disagreed, or a person corrected it.",
        timeout=WAIT_MS)
    expect(state).not_to_contain_text("without flagging")


def test_with_the_camera_off_its_buttons_say_it_is_switched_off_and_how_to_switch_it_on(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any]) -> None:
    """With `--camera off` the calibration buttons stayed active, and Tap the gate corners said "The camera has no
    picture to tap on yet."."""
    _, base = serve(SENSORS="simulation", CAMERA="off")
    page = open_at()
    page.goto(f"{base}/camera")
    off = "The camera is switched off (companion serve --camera off"
    expect(page.locator("#next-step")).to_contain_text(off, timeout=WAIT_MS)
    expect(page.locator("#next-step")).to_contain_text("start the companion with a camera: --camera picamera2")
    for button in ("#calibrate", "#anchor", "#reference", "#measure"):
        expect(page.locator(button)).to_have_attribute("aria-disabled", "true")
    tap_anyway(page.locator("#calibrate"))  # it looks disabled, and says why when tapped
    expect(page.locator("#toast")).to_contain_text(off)
    expect(page.locator("#toast")).not_to_contain_text("yet")
    expect(page.locator("#calib")).to_be_hidden()


def test_before_any_gate_exists_the_marble_size_line_says_what_applies(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any], tmp_path: Path) -> None:
    """"Marble size not measured: guessed from the gates" was shown before any gate existed."""
    base = _fresh_camera(serve, tmp_path)
    page = open_at()
    page.goto(f"{base}/camera")
    facts = page.locator("#facts")
    expect(facts).to_contain_text("Gates not calibrated: tap the corners", timeout=WAIT_MS)
    expect(facts).to_contain_text("Marble size not measured yet: tap one resting marble, or anchor to the markers once "
                                  "the gates are tapped")
    expect(facts).not_to_contain_text("guessed from the gates")


def test_a_reference_taken_before_the_gates_were_tapped_is_asked_of_a_person(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any], tmp_path: Path) -> None:
    """The camera takes the empty reference by itself from its first picture, before any gate exists: nothing could
    check the gates were empty. Once the gates are tapped the page skipped the reference step; it asks for it."""
    base = _fresh_camera(serve, tmp_path)
    page = open_at()
    page.goto(f"{base}/camera")
    def status() -> dict[str, Any]:
        return page.evaluate("fetch('/api/camera').then((r) => r.json())")

    wait_for(lambda: status()["reference"]["captured"])
    assert status()["reference_unchecked"] is True
    gates = [{"gate": g, "polygon": [[x, 120], [x + 90, 120], [x + 90, 200], [x, 200]]}
             for g, x in zip(range(1, 7), range(30, 640, 100))]
    assert page.evaluate("""(gates) => fetch('/api/camera/regions', {method: 'POST',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify({gates})}).then((r) => r.status)""",
                         gates) == 200
    page.reload()
    expect(page.locator("#next-step")).to_contain_text("The camera took one by itself before the gates were tapped",
                                                       timeout=WAIT_MS)
    page.locator("#reference").click()
    expect(page.locator("#next-step")).not_to_contain_text("before the gates were tapped", timeout=WAIT_MS)

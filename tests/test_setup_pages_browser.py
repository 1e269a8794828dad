"""Setting the table up, in headless Chromium: a tablet is told after its reload that it is paired; the Camera page
says what to do without the printed markers, shows the button its Next line names without a scroll, leaves the
frozen picture clear of an older message, and says of photo keeping only what holds; the Devices page's warning that
no tablet can reach the companion is read on the Pi's screen without a scroll."""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from flask import Flask
from playwright.sync_api import expect

from hardware.camera.keeping import Sample
from tests.browser import KIOSK, WAIT_MS, WIDE, in_view, shoot
from tests.test_camera_fixes_browser import _fresh_camera, open_at, serve  # noqa: F401  (fixtures)
from tests.test_pairing_browser import kiosk_app, two_screens  # noqa: F401  (fixtures)
from tests.waiting import wait_for

#: The gates a person taps on the `file:` camera's photo (tests/test_camera_fixes.py castle_photo).
GATES = [{"gate": g, "polygon": [[x, 120], [x + 90, 120], [x + 90, 200], [x, 200]]}
         for g, x in zip(range(1, 7), range(30, 640, 100))]
TAP_GATES = """(gates) => fetch('/api/camera/regions', {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify({gates})}).then((r) => r.status)"""

#: Whether two elements' boxes on the screen overlap, and where each is: [overlap, box of a, box of b].
OVERLAP = """([a, b]) => { const r = document.querySelector(a).getBoundingClientRect(),
        s = document.querySelector(b).getBoundingClientRect(),
        box = (q) => [q.left, q.top, q.right, q.bottom].map(Math.round);
    return [r.width > 0 && r.height > 0 && s.width > 0 && s.height > 0 && r.left < s.right && s.left < r.right
            && r.top < s.bottom && s.top < r.bottom, box(r), box(s)]; }"""


def test_a_tablet_is_told_after_its_reload_that_it_is_paired(
        two_screens: Callable[[], tuple[Any, Any, str, str]]) -> None:  # noqa: F811
    """The tablet said "Paired as …" and reloaded at once: the reload took the words away, and the person holding
    it was told nothing. The page after the reload says it, once."""
    kiosk, tablet, base, tablet_base = two_screens()
    kiosk.goto(base + "/")
    tablet.goto(tablet_base + "/")
    tablet.click("[data-pair-button]")
    dialog = kiosk.locator("#pair-requests")
    expect(dialog).to_be_visible()
    dialog.locator("button:text-is('Approve')").click()
    tablet.wait_for_function("() => document.body !== null && document.body.dataset.trust === 'paired'")
    toast = tablet.locator("#toast")
    expect(toast).to_be_visible()
    expect(toast).to_have_text(re.compile(r"^Paired as .+: this device may now change the games\.$"))
    shoot(tablet, "tablet-told-paired")
    tablet.reload()  # said once: a later page does not say it again
    tablet.wait_for_selector("body[data-trust='paired']")  # set as the page's pairing script starts
    expect(toast).to_be_empty()


def _camera_in_the_set_up(serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any],  # noqa: F811
                          tmp_path: Path, size: tuple[int, int]) -> Any:
    """The Camera page of a `file:` camera (no printed markers in its picture) at `size`, its gates tapped."""
    base = _fresh_camera(serve, tmp_path)
    page = open_at(*size)
    page.goto(f"{base}/camera")
    wait_for(lambda: page.evaluate("fetch('/api/camera').then((r) => r.json())")["reference"]["captured"])
    assert page.evaluate(TAP_GATES, GATES) == 200
    page.reload()
    expect(page.locator("#facts")).to_contain_text("Gates calibrated")
    return page


def test_anchoring_without_markers_says_they_are_optional_and_what_to_do_instead(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any], tmp_path: Path) -> None:  # noqa: F811
    """A camera without the printed markers answered "Calibration needs 4 markers; not found: …" and no more: the
    markers are optional, the gates tapped and the marble's size measured by a tap do without them."""
    page = _camera_in_the_set_up(serve, open_at, tmp_path, KIOSK)
    page.click("#anchor")
    toast = page.locator("#toast")
    expect(toast).to_contain_text("Calibration needs 4 markers; not found: 0 (top left)")
    expect(toast).to_contain_text("The markers are optional")
    expect(toast).to_contain_text("Tap one resting marble")
    shoot(page, "camera-anchor-without-markers")


@pytest.mark.parametrize("size", [KIOSK, WIDE], ids=["800x480", "1024x600"])
def test_the_buttons_the_next_line_names_are_in_sight(serve: Callable[..., tuple[Flask, str]],  # noqa: F811
                                                      open_at: Callable[..., Any], tmp_path: Path,  # noqa: F811
                                                      size: tuple[int, int]) -> None:
    """"Next: … press Tap one resting marble": at 1024x600 that button was below the screen's foot. Every button the
    Next line names is on the screen as the page opens, at each step of the set-up."""
    page = _camera_in_the_set_up(serve, open_at, tmp_path, size)
    next_step = page.locator("#next-step")
    expect(next_step).to_contain_text(re.compile("press Gates empty: take reference|Next: the marble's size"))
    if "take reference" in next_step.inner_text():  # the reference the camera took before the gates were tapped
        in_view(page, "#reference")
        page.click("#reference")
    expect(next_step).to_contain_text("Next: the marble's size", timeout=WAIT_MS)
    shoot(page, f"camera-next-marble-{size[0]}x{size[1]}")
    for named in ("#anchor", "#measure"):
        assert page.locator(named).inner_text() in next_step.inner_text()
        in_view(page, named)
    page.reload()  # as the page opens at this step
    expect(next_step).to_contain_text("Next: the marble's size")
    for named in ("#anchor", "#measure"):
        in_view(page, named)


def test_a_new_tapping_step_leaves_the_picture_clear_of_an_older_message(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any], tmp_path: Path) -> None:  # noqa: F811
    """At 800x480 the message of the step before (the markers not found) lay over the foot of the frozen picture,
    where a person is asked to tap; a tap beside every marble put its message there too."""
    page = _camera_in_the_set_up(serve, open_at, tmp_path, KIOSK)
    page.click("#anchor")
    expect(page.locator("#toast")).to_contain_text("Calibration needs 4 markers")
    page.click("#measure")
    expect(page.locator("#calib")).to_be_visible()
    covered, toast, picture = page.evaluate(OVERLAP, ["#toast", "#calib"])
    assert not covered, f"the message {toast} lies over the picture {picture}"
    shoot(page, "camera-tapping-clear")
    box = page.locator("#calib").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * .9, box["y"] + box["height"] * .9)  # beside every marble
    expect(page.locator("#toast")).to_contain_text("No marble found")
    covered, toast, picture = page.evaluate(OVERLAP, ["#toast", "#calib"])
    assert not covered, f"the message on a tap beside every marble {toast} lies over the picture {picture}"
    in_view(page, "#measure-cancel")
    shoot(page, "camera-tapping-missed")


def test_photo_keeping_says_off_only_while_off_and_flags_only_where_a_round_was_read_wrong(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any]) -> None:  # noqa: F811
    """Keeping on, the page still said "Off unless the table switches it on"; with every kept round read right it
    said "it flagged every gate it read wrong for a tap", of none read wrong."""
    app, base = serve(SENSORS="simulation", CAMERA="simulation", CAMERA_KEEP_PHOTOS=True)
    keeper = app.extensions["sensors"].keeper
    frame = np.full((48, 64, 3), 90, np.uint8)
    for number in range(1, 5):
        assert keeper.keep(Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                                  camera_counts=(1, 0, 0, 0, 0, 0), marble_radius=None, session=1, round=number,
                                  confirmed_at=time.time() + number, camera_unsure=(False,) * 6))
    assert keeper.flush()
    page = open_at()
    page.goto(f"{base}/camera")
    state = page.locator("#keeping-state")
    expect(state).to_contain_text("The camera read all six gates right in 4 of 4 kept rounds (100%).")
    expect(state).not_to_contain_text("read wrong")
    expect(page.locator("#keeping")).to_have_attribute("aria-pressed", "true")

    def said() -> str:
        """What the words on photo keeping say as shown (the words a hidden part holds aside)."""
        return " ".join(page.locator("#keeping-what").inner_text().split())

    assert "Off unless" not in said() and said().startswith("Every round the table confirms"), said()
    page.click("#keeping")  # switched off: now it says so
    expect(page.locator("#keeping")).to_have_attribute("aria-pressed", "false")
    wait_for(lambda: said().startswith("Off unless the table switches it on. While on, every round the table "
                                       "confirms"))
    assert not keeper.enabled
    # a round read wrong, its gates flagged for a tap: now it says so
    keeper.set_enabled(True)
    assert keeper.keep(Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                              camera_counts=(0, 1, 0, 0, 0, 0), marble_radius=None, session=1, round=5,
                              confirmed_at=time.time() + 5, camera_unsure=(True, True, False, False, False, False)))
    assert keeper.flush()
    page.reload()
    expect(state).to_contain_text("The camera read all six gates right in 4 of 5 kept rounds (80%). It was never sure "
                                  "of a wrong count: it flagged every gate it read wrong for a tap.")


def test_the_warning_that_no_tablet_can_reach_the_companion_is_in_sight_at_800x480(
        serve: Callable[..., tuple[Flask, str]], open_at: Callable[..., Any]) -> None:  # noqa: F811
    """Listening on this machine only, the Devices page's warning began at the screen's foot, under the QR code of an
    address no tablet can reach; the page was 641 px tall on the 480 px screen."""
    _, base = serve(SENSORS="simulation", LISTEN_HOST="127.0.0.1")
    page = open_at()
    page.goto(f"{base}/devices")
    expect(page.locator("#local-only")).to_contain_text("This companion listens on this machine only")
    in_view(page, "#local-only")
    tall = page.evaluate("[document.documentElement.scrollHeight, window.innerHeight]")
    assert tall[0] <= tall[1], f"the Devices page is {tall[0]} px tall on a {tall[1]} px screen"
    shoot(page, "devices-local-only-800x480")

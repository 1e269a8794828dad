"""The Diego page's sensor panel in headless Chromium, with the simulated camera: when the camera says why its counts
are unsure (no empty reference yet), the note reads on a line of its own, the panel's whole width, with a link to the
Camera page, where its "Gates empty: take reference" is; once the reference is taken, note and link are gone."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, WAIT_MS, fits, open_game, shoot, start_game, without_reference
from tests.servers import call, serving


@pytest.fixture
def base(camera_app: Flask) -> Iterator[str]:
    with serving(camera_app) as url:
        yield url


#: The note's box and the camera line's content box (inside its padding), and where the line's first text ends.
NOTE_BOX = """() => {
    const line = document.getElementById('camera-state'), note = document.getElementById('camera-unsure');
    const style = getComputedStyle(line), box = line.getBoundingClientRect(), r = note.getBoundingClientRect();
    const first = document.createRange();
    first.selectNodeContents(line.firstChild);
    return { left: r.left, right: r.right, top: r.top,
             lineLeft: box.left + parseFloat(style.paddingLeft), lineRight: box.right - parseFloat(style.paddingRight),
             firstBottom: first.getBoundingClientRect().bottom };
}"""


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_the_camera_note_links_to_the_camera_page(open_page: Callable[..., Any], base: str, camera_app: Flask,
                                                  size: tuple[int, int]) -> None:
    without_reference(camera_app)
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *size)
    if size == KIOSK:  # the panel waits behind its button beside the scores, marked: the camera wants a look
        page.click("#sensors-toggle")
    note = page.locator("#camera-state #camera-unsure")
    expect(note).to_contain_text("Gates empty: take reference", timeout=WAIT_MS)
    link = note.locator("a#camera-page-link")
    expect(link).to_have_text("Open the Camera page")
    assert link.get_attribute("href") == "/camera"
    link.scroll_into_view_if_needed()
    expect(link).to_be_visible()
    box = page.evaluate(NOTE_BOX)
    # the note the panel's whole width, below "Camera: watching", not squeezed beside it
    assert abs(box["left"] - box["lineLeft"]) <= 1 and abs(box["right"] - box["lineRight"]) <= 1, box
    assert box["top"] >= box["firstBottom"] - 1, box
    assert page.evaluate("document.getElementById('camera-state').firstChild.textContent") \
        == "Camera: watching · counts unsure"
    fits(page, f"the Diego page with the camera's note at {size[0]}x{size[1]}")
    shoot(page, f"diego-camera-note-{size[0]}x{size[1]}")

    link.click()
    page.wait_for_url(f"{base}/camera")
    expect(page.locator("#reference")).to_have_text("Gates empty: take reference", timeout=WAIT_MS)

    assert call(f"{base}/api/camera/reference", {"anyway": True})[0] == 200
    page = open_game(open_page, base, session, *size)
    expect(page.locator("#camera-state")).to_have_text("Camera: watching", timeout=WAIT_MS)
    expect(page.locator("#camera-unsure")).to_have_count(0)
    expect(page.locator("#camera-page-link")).to_have_count(0)


def test_the_link_goes_when_the_note_goes(open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    """On an open page: the reference taken, the note and its link leave the sensor panel as the camera's state
    changes, without a reload."""
    without_reference(camera_app)
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    page.click("#sensors-toggle")  # the panel waits behind its button beside the scores
    expect(page.locator("#camera-page-link")).to_be_visible(timeout=WAIT_MS)
    assert call(f"{base}/api/camera/reference", {"anyway": True})[0] == 200
    expect(page.locator("#camera-page-link")).to_have_count(0, timeout=WAIT_MS)
    expect(page.locator("#camera-state")).to_have_text("Camera: watching")

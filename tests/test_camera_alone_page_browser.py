"""The Diego page with the castle's camera alone (no beams fitted), in headless Chromium, as a family at the table sees
it on the kiosk (800x480) and on a phone (390x844): the simulated roll pad and the Simulation badge speak of the
simulated castle and its camera, not of beams; while marbles roll the marbles area says the camera records them once
they rest; the hint says the camera fills the marbles in; a round cleared to be entered by tap says so; a camera that
sees four marbles is not contradicted by the marble row; the round's photo never shows broken, and opens larger."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from hardware.vision.rest import RestWatcher
from tests.browser import (
    KIOSK,
    NAMES,
    PHONE,
    WAIT_MS,
    current_round,
    fits,
    in_view,
    open_game,
    shoot,
    start_game,
    without_reference,
)
from tests.servers import serving
from tests.waiting import wait_for

SIZES = pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])


@pytest.fixture
def beams() -> bool:
    return False  # the camera alone


@pytest.fixture
def base(castle_app: Flask) -> Iterator[str]:
    with serving(castle_app) as url:
        yield url


def _never_at_rest(app: Flask) -> None:
    """The camera sees the marbles but never finds them at rest: it waits for them as long as the test looks."""
    app.extensions["sensors"].camera._rest = RestWatcher(settle_s=3600)


def _game(base: str) -> dict[str, Any]:
    return start_game(base, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)


@SIZES
def test_rolling_marbles_are_said_in_the_marbles_area(open_page: Callable[..., Any], base: str, castle_app: Flask,
                                                      size: tuple[int, int]) -> None:
    _never_at_rest(castle_app)
    session = _game(base)
    page = open_game(open_page, base, session, *size)
    rolling = page.locator("#rolling")
    expect(page.locator("#marble-hint")).to_have_text(
        "the camera fills these in once they rest; tap only to correct it", timeout=WAIT_MS)
    expect(rolling).to_be_hidden()
    castle_app.extensions["sensors"].castle.add_marble(4)
    expect(rolling).to_be_visible(timeout=WAIT_MS)
    expect(rolling).to_have_text("Marbles rolling: the camera records them once they rest")
    in_view(page, "#rolling")
    expect(page.locator("#slots")).to_have_class("slots rolling")
    expect(page.locator("#slots .slot.filled")).to_have_count(0)
    fits(page, f"marbles rolling at {size[0]}x{size[1]}")
    shoot(page, f"diego-camera-alone-rolling-{size[0]}x{size[1]}")
    assert current_round(base, session)["marbles"] == []  # not scored while it rolls (ruling D3)


def test_the_note_goes_once_the_marbles_rest(open_page: Callable[..., Any], base: str, castle_app: Flask) -> None:
    session = _game(base)
    page = open_game(open_page, base, session, *KIOSK)
    castle_app.extensions["sensors"].castle.add_marble(2)
    expect(page.locator("#slots .slot.filled")).to_have_count(1, timeout=WAIT_MS)
    expect(page.locator("#rolling")).to_be_hidden(timeout=WAIT_MS)
    expect(page.locator("#slots")).not_to_have_class("slots rolling")
    expect(page.locator("#slots .slot.filled")).to_contain_text("Moon")


def test_no_beams_fitted_is_the_set_up_not_a_fault(open_page: Callable[..., Any], base: str) -> None:
    page = open_game(open_page, base, _game(base), *KIOSK)
    line = page.locator("#gates-state")
    expect(line).to_contain_text("no beams fitted", timeout=WAIT_MS)
    expect(line).not_to_have_class("warn")
    expect(page.locator("#sensor-panel h2")).to_have_text("Castle camera")
    expect(page.locator("#camera-state")).to_contain_text("Camera: watching", timeout=WAIT_MS)


def test_the_roll_pad_puts_a_marble_into_the_simulated_castle(open_page: Callable[..., Any], base: str) -> None:
    session = _game(base)
    page = open_game(open_page, base, session, *KIOSK)
    panel = page.locator("#sensor-panel")
    expect(panel).to_contain_text("Roll a marble into the simulated castle, for its camera")
    expect(panel).not_to_contain_text("simulated beam")
    expect(page.locator("#sim-chatter")).to_have_count(0)  # chatter is a beam's bouncing signal: no beams, none
    page.click("#sensors-toggle")  # at 800x480 the panel waits behind its button beside the scores
    with page.expect_response(lambda r: r.url.endswith("/api/simulation/marble")) as answer:
        page.click("#sim-pad [data-gate='3']")
    assert answer.value.status == 202
    expect(page.locator("#toast")).to_contain_text("Rolled a marble into Star")
    expect(page.locator("#slots .slot.filled")).to_have_count(1, timeout=WAIT_MS)
    assert current_round(base, session)["marbles"] == [3]
    assert current_round(base, session)["sources"] == ["camera"]


@SIZES
def test_the_simulation_badge_claims_no_simulated_gates(open_page: Callable[..., Any], base: str,
                                                        size: tuple[int, int]) -> None:
    page = open_game(open_page, base, _game(base), *size)
    page.click("header .badge.sim")
    about = page.locator(".overlay:not([hidden]) .dialog")
    expect(about).to_be_visible()
    expect(about).to_contain_text("no beams are fitted")
    expect(about).to_contain_text("the camera alone fills in the rounds")
    expect(about).not_to_contain_text("gates are simulated")
    in_view(page, ".overlay:not([hidden]) .dialog")
    fits(page, f"the Simulation badge's note at {size[0]}x{size[1]}")
    shoot(page, f"diego-camera-alone-badge-{size[0]}x{size[1]}")
    about.get_by_role("button", name="Got it").click()
    expect(page.locator(".overlay:not([hidden])")).to_have_count(0)


def test_a_round_cleared_to_be_tapped_asks_for_taps(open_page: Callable[..., Any], base: str,
                                                      castle_app: Flask) -> None:
    session = _game(base)
    castle = castle_app.extensions["sensors"].castle
    for gate in (1, 4, 4, 6):  # four marbles: the round is flagged (ruling D4)
        castle.add_marble(gate)
    wait_for(lambda: current_round(base, session)["flag"])
    page = open_game(open_page, base, session, *KIOSK)
    page.locator("#flag").get_by_role("button", name="Clear, enter by tap").click()
    expect(page.locator("#flag")).to_be_hidden(timeout=WAIT_MS)
    turn = page.locator("#turn .phrase")
    expect(turn).to_have_text("rolled: tap where each marble went")  # no mark to begin a line of its own
    expect(turn).not_to_contain_text("rolls the marbles")
    expect(page.locator("#marble-hint")).to_have_text("tap where each one went")
    page.click("#marble-pad [data-gate='4']")
    expect(page.locator("#slots .slot.filled")).to_have_count(1, timeout=WAIT_MS)
    expect(turn).to_contain_text("tap where each marble went")
    expect(page.locator("#marble-hint")).to_have_text("tap where each one went")


@SIZES
def test_four_marbles_seen_are_not_contradicted_by_the_marble_row(open_page: Callable[..., Any], base: str,
                                                                   castle_app: Flask, size: tuple[int, int]) -> None:
    session = _game(base)
    castle = castle_app.extensions["sensors"].castle
    for gate in (1, 4, 4):
        castle.add_marble(gate)
    wait_for(lambda: current_round(base, session)["marbles"] == [1, 4, 4])
    page = open_game(open_page, base, session, *size)
    hint = page.locator("#marble-hint")
    expect(hint).to_have_text("3 marbles in gates")
    castle.add_marble(6)
    expect(page.locator("#flag")).to_contain_text("The camera sees 4 marbles, more than 3", timeout=WAIT_MS)
    expect(hint).to_have_text("the camera sees 4 marbles: the round waits for the count to be confirmed")
    expect(hint).not_to_contain_text("3 marbles in gates")
    expect(page.locator("#slots")).to_have_class("slots stale")
    fits(page, f"four marbles at {size[0]}x{size[1]}")
    shoot(page, f"diego-camera-alone-four-{size[0]}x{size[1]}")


def test_a_photo_gone_after_a_restart_shows_no_broken_picture(open_page: Callable[..., Any], base: str,
                                                                castle_app: Flask) -> None:
    session = _game(base)
    sensors = castle_app.extensions["sensors"]
    sensors.castle.add_marble(2)
    wait_for(lambda: current_round(base, session)["marbles"] == [2])
    sensors.photos.clear()  # as after a restart: the photos are kept in memory only
    page = open_game(open_page, base, session, *KIOSK)
    page.wait_for_function("() => document.getElementById('photo').complete")
    expect(page.locator("#photo")).to_be_hidden()
    assert page.evaluate("document.getElementById('photo').naturalWidth") == 0  # it did not load: none shows


@SIZES
def test_the_photo_opens_larger_and_closes_by_a_tap(open_page: Callable[..., Any], base: str, castle_app: Flask,
                                                     size: tuple[int, int]) -> None:
    session = _game(base)
    castle_app.extensions["sensors"].castle.add_marble(5)
    wait_for(lambda: current_round(base, session)["marbles"] == [5])
    page = open_game(open_page, base, session, *size)
    thumbnail = page.locator("#photo-open")
    expect(thumbnail).to_be_visible(timeout=WAIT_MS)
    thumbnail.click()
    large = page.locator(".photo-dialog .photo-large img")
    expect(large).to_be_visible()
    page.wait_for_function("() => document.querySelector('.photo-dialog .photo-large img').naturalWidth > 0")
    in_view(page, ".photo-dialog .photo-large img")
    width = large.evaluate("el => el.getBoundingClientRect().width")
    assert width > 2 * page.evaluate("document.getElementById('photo').getBoundingClientRect().width")
    fits(page, f"the photo enlarged at {size[0]}x{size[1]}")
    shoot(page, f"diego-camera-alone-photo-{size[0]}x{size[1]}")
    large.click()
    expect(page.locator(".photo-dialog")).to_have_count(0)


def test_the_camera_page_says_a_tap_decides_where_the_camera_alone_is_unsure(open_page: Callable[..., Any], base: str,
                                                                            castle_app: Flask) -> None:
    """With beams the beams' count stands where the camera is unsure; with the camera alone a tap decides (D4): the
    Camera page says which."""
    without_reference(castle_app)
    page = open_page(*KIOSK)
    page.goto(f"{base}/camera")
    expect(page.locator("#seen .seen-unsure")).to_have_text("Unsure of every gate: a tap decides", timeout=WAIT_MS)

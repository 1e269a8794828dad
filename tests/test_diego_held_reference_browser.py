"""The Diego page's flag, in headless Chromium, with the simulated camera, when its empty reference was taken with a
marble in a gate ("take it anyway") and that marble is gone now: the camera leaves the gate unsure (ruling D4), and the
flag says why, that the reference shows a marble there that is gone, and to take the reference again, not that a marble
may lie on a line or still roll. A gate unsure for another reason keeps that reason, each sentence naming its gates."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import KIOSK, NAMES, PHONE, WAIT_MS, current_round, fits, open_game, shoot, start_game
from tests.servers import call, serving
from tests.waiting import wait_for

HELD = ("Look at Star: the camera's empty reference shows a marble there that is gone now, so it cannot be sure of "
        "the count. Take the reference again once the gates are empty (Camera page).")
GENERIC = "the camera cannot tell how many marbles are there"


@pytest.fixture
def beams() -> bool:
    return False  # the camera alone, unless a test says otherwise


@pytest.fixture
def base(castle_app: Flask) -> Iterator[str]:
    with serving(castle_app) as url:
        yield url


def hold_a_marble_in_star(app: Flask, base: str) -> None:
    """The empty reference taken with a marble resting in Star (gate 3), a person saying "take it anyway"; then the
    marble is taken out, and the camera's status names Star as a gate whose reference holds a marble gone now."""
    sensors = app.extensions["sensors"]
    camera, castle = sensors.camera, sensors.castle
    castle.add_marble(3)
    wait_for(lambda: (camera.status()["last_detection"] or {}).get("counts", [])[2:3] == [1])  # the camera sees it
    assert call(f"{base}/api/camera/reference", {"anyway": True})[0] == 200
    castle.clear()
    wait_for(lambda: camera.status()["reference_holds"] == [3])


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_the_flag_says_the_reference_holds_a_marble_gone_now(open_page: Callable[..., Any], base: str,
                                                            castle_app: Flask, size: tuple[int, int]) -> None:
    """The camera alone: a marble rests in Key, counted; Star, where the reference holds the marble taken out, is in
    doubt, and the flag gives that reason for Star alone."""
    hold_a_marble_in_star(castle_app, base)
    session = start_game(base, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)
    page = open_game(open_page, base, session, *size)
    castle_app.extensions["sensors"].castle.add_marble(5)
    wait_for(lambda: current_round(base, session)["flag"])
    current = current_round(base, session)
    assert current["marbles"] == [5] and current["camera"]["unsure"] == [3], current
    flag = page.locator("#flag")
    expect(flag).to_be_visible(timeout=WAIT_MS)
    expect(flag.locator(".unsure")).to_have_count(1)
    expect(flag.locator(".unsure.held")).to_have_text(HELD)
    expect(flag).not_to_contain_text(GENERIC)
    fits(page, f"the flag on a reference holding a marble at {size[0]}x{size[1]}")
    shoot(page, f"diego-held-reference-{size[0]}x{size[1]}")


@pytest.mark.parametrize("beams", [True])
def test_each_reason_names_its_own_gates(open_page: Callable[..., Any], base: str, castle_app: Flask) -> None:
    """With the beams: the camera's reading is unsure of Moon (a marble on its line) and of Star (the reference's
    marble, gone): two sentences, each with its gates. The reference taken again, Star's doubt has no such reason any
    more, and the open page gives the usual one for both."""
    hold_a_marble_in_star(castle_app, base)
    session = start_game(base, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)
    page = open_game(open_page, base, session, *KIOSK)
    castle_app.extensions["table"].submit(session["id"], {
        "type": "camera", "counts": [0, 1, 0, 0, 0, 0], "unsure": [False, True, True, False, False, False]},
        source="camera")
    flag = page.locator("#flag")
    expect(flag).to_be_visible(timeout=WAIT_MS)
    expect(flag.locator(".unsure")).to_have_count(2)
    expect(flag.locator(".unsure:not(.held) strong")).to_have_text("Look at Moon:")
    expect(flag.locator(".unsure:not(.held)")).to_contain_text(GENERIC)
    expect(flag.locator(".unsure.held")).to_have_text(HELD)
    fits(page, "the flag with both reasons at 800x480")
    shoot(page, "diego-held-reference-and-line-800x480")

    assert call(f"{base}/api/camera/reference", {"anyway": True})[0] == 200  # the gates are empty now
    expect(flag.locator(".unsure.held")).to_have_count(0, timeout=WAIT_MS)
    expect(flag.locator(".unsure strong")).to_have_text("Look at Moon and Star:")
    expect(flag.locator(".unsure")).to_contain_text(GENERIC)

"""The Diego page's flag, in headless Chromium, with the simulated camera alone, when the picture itself leaves every
gate in doubt: the light on the castle grew brighter since the empty reference, and the picture is over-exposed where
the reference was not (ruling D4). The flag says so and what helps, for every gate at once, not that a marble may lie
on a line or still roll; with the light as it was, the picture's reason goes."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import KIOSK, NAMES, PHONE, WAIT_MS, current_round, fits, open_game, shoot, start_game
from tests.servers import serving
from tests.waiting import wait_for

OVEREXPOSED = ("Look at every gate: the picture is over-exposed where the camera's empty reference was not (the light "
               "grew brighter), so it cannot be sure of the counts. Less light on the castle helps, or the reference "
               "taken again once the gates are empty (Camera page).")
GENERIC = "the camera cannot tell how many marbles are there"


@pytest.fixture
def beams() -> bool:
    return False  # the camera alone


@pytest.fixture
def base(castle_app: Flask) -> Iterator[str]:
    with serving(castle_app) as url:
        yield url


@pytest.fixture
def light(castle_app: Flask, monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """The light on the simulated castle, as a share of the light its empty reference was taken in."""
    castle = castle_app.extensions["sensors"].castle
    level = {"share": 1.0}
    render = castle.render
    monkeypatch.setattr(castle, "render", lambda lighting=1.0: render(lighting * level["share"]))
    return level


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_the_flag_says_the_picture_is_over_exposed(open_page: Callable[..., Any], base: str, castle_app: Flask,
                                                   light: dict[str, float], size: tuple[int, int]) -> None:
    camera = castle_app.extensions["sensors"].camera
    session = start_game(base, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)
    page = open_game(open_page, base, session, *size)
    light["share"] = 1.6  # a lamp switched on over the pale castle
    wait_for(lambda: camera.status()["unsure_cause"] == "overexposed")
    castle_app.extensions["sensors"].castle.add_marble(5)
    current = wait_for(lambda: (c := current_round(base, session))["flag"] and c)
    assert current["marbles"] == [5] and current["camera"]["unsure"] == [1, 2, 3, 4, 5, 6], current
    flag = page.locator("#flag")
    expect(flag).to_be_visible(timeout=WAIT_MS)
    expect(flag.locator(".unsure")).to_have_count(1)
    expect(flag.locator(".unsure.picture")).to_have_text(OVEREXPOSED)
    expect(flag).not_to_contain_text(GENERIC)
    fits(page, f"the flag on an over-exposed picture at {size[0]}x{size[1]}")
    shoot(page, f"diego-overexposed-{size[0]}x{size[1]}")

    light["share"] = 1.0  # the lamp off again: the picture no longer is the reason
    expect(flag.locator(".unsure.picture")).to_have_count(0, timeout=WAIT_MS)
    expect(flag).not_to_contain_text("over-exposed")

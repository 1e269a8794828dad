"""The Diego page's flag, in headless Chromium, with the simulated camera, when the camera is unsure of gates for a
reason of its own (ruling D4), and the flag says that reason, not that a marble may lie on a line or still roll:

- its empty reference was taken with a marble in a gate ("take it anyway") and that marble is gone now: the flag says
  the reference shows a marble there that is gone, and to take the reference again. A gate unsure for another reason
  keeps that reason, each sentence naming its gates.
- the light on the castle grew brighter since the reference, and the picture is over-exposed where the reference was
  not: every gate is unsure, and the flag says so and what helps, for every gate at once; with the light as it was,
  the picture's reason goes."""
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
OVEREXPOSED = ("Look at every gate: the picture is over-exposed where the camera's empty reference was not (the light "
               "grew brighter), so it cannot be sure of the counts. Less light on the castle helps, or the reference "
               "taken again once the gates are empty (Camera page).")


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


def marble_in_key(open_page: Callable[..., Any], base: str, app: Flask, size: tuple[int, int]) -> tuple[Any, Any]:
    """A game with the camera alone, its page open at ``size``; a marble comes to rest in Key (gate 5), the camera
    reads it, unsure of some gates, and the round is flagged. The page and the round."""
    session = start_game(base, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)
    page = open_game(open_page, base, session, *size)
    app.extensions["sensors"].castle.add_marble(5)
    current = wait_for(lambda: (c := current_round(base, session))["flag"] and c)
    assert current["marbles"] == [5], current
    return page, current


def gives_one_reason(page: Any, kind: str, text: str, where: str) -> None:
    """The flag gives one reason for the gates in doubt, of ``kind`` (its class), in those words, and not the usual
    one; the page fits."""
    flag = page.locator("#flag")
    expect(flag).to_be_visible(timeout=WAIT_MS)
    expect(flag.locator(".unsure")).to_have_count(1)
    expect(flag.locator(f".unsure.{kind}")).to_have_text(text)
    expect(flag).not_to_contain_text(GENERIC)
    fits(page, where)


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_the_flag_says_the_reference_holds_a_marble_gone_now(open_page: Callable[..., Any], base: str,
                                                            castle_app: Flask, size: tuple[int, int]) -> None:
    """The camera alone: a marble rests in Key, counted; Star, where the reference holds the marble taken out, is in
    doubt, and the flag gives that reason for Star alone."""
    hold_a_marble_in_star(castle_app, base)
    page, current = marble_in_key(open_page, base, castle_app, size)
    assert current["camera"]["unsure"] == [3], current
    gives_one_reason(page, "held", HELD, f"the flag on a reference holding a marble at {size[0]}x{size[1]}")
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
    light["share"] = 1.6  # a lamp switched on over the pale castle
    wait_for(lambda: camera.status()["unsure_cause"] == "overexposed")
    page, current = marble_in_key(open_page, base, castle_app, size)
    assert current["camera"]["unsure"] == [1, 2, 3, 4, 5, 6], current
    gives_one_reason(page, "picture", OVEREXPOSED, f"the flag on an over-exposed picture at {size[0]}x{size[1]}")
    shoot(page, f"diego-overexposed-{size[0]}x{size[1]}")

    light["share"] = 1.0  # the lamp off again: the picture no longer is the reason
    expect(page.locator("#flag .unsure.picture")).to_have_count(0, timeout=WAIT_MS)
    expect(page.locator("#flag")).not_to_contain_text("over-exposed")

"""The Diego page's flag, in headless Chromium, when the camera is unsure of gates a person has already settled: the
page asks a look at the same gates as the round's flag names, those still wanting a tap, and says the settled ones
stay (ruling D4). The camera's readings are given to the table as the camera gives them (source "camera"), with no
camera running, so that each reading is exactly the one described."""
from __future__ import annotations

import re
from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import KIOSK, NAMES, PHONE, WAIT_MS, current_round, fits, open_game, shoot, start_game

UNSURE_2_3 = [False, True, True, False, False, False]


def _reading(app: Flask, session: dict[str, Any], counts: list[int]) -> None:
    """A camera reading unsure of gates 2 and 3 (a marble on the line between them), as the camera hub gives it."""
    app.extensions["table"].submit(session["id"], {"type": "camera", "counts": counts, "unsure": UNSURE_2_3},
                                   source="camera")


def _flagged_gates(flag: str) -> list[str]:
    """The gates the round's flag names by the table's names ("the camera is unsure of Moon and Star": ruling D2)."""
    match = re.fullmatch(r"the camera is unsure of (.+)", flag)
    assert match, flag
    names = re.split(r", | and ", match.group(1))
    assert set(names) <= set(NAMES), flag
    return names


def _look_at(names: list[str]) -> str:
    return f"Look at {names[0]}:" if len(names) == 1 else f"Look at {', '.join(names[:-1])} and {names[-1]}:"


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_the_page_asks_a_look_at_the_gates_the_flag_names(open_page: Callable[..., Any], base: str, app: Flask,
                                                          size: tuple[int, int]) -> None:
    """The camera alone reads Moon and Key, unsure of Moon and Star; a person says it is right. The next marble rests
    in Star, the camera unsure of both still: Moon reads what the person confirmed there, so only Star wants a tap.
    The flag names gate 3 alone, and the page asks a look at Star alone, Moon staying as confirmed."""
    session = start_game(base, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)
    _reading(app, session, [0, 1, 0, 0, 1, 0])
    page = open_game(open_page, base, session, *size)
    unsure = page.locator("#flag .unsure")
    expect(unsure.locator("strong")).to_have_text(_look_at(_flagged_gates(current_round(base, session)["flag"])),
                                                  timeout=WAIT_MS)
    expect(unsure.locator("strong")).to_have_text("Look at Moon and Star:")
    expect(unsure.locator(".settled")).to_have_count(0)
    page.locator("#flag").get_by_role("button", name="Camera is right").click()
    expect(page.locator("#flag")).to_be_hidden(timeout=WAIT_MS)

    _reading(app, session, [0, 1, 1, 0, 1, 0])  # the third marble rests in Star
    current = current_round(base, session)
    assert current["camera"]["unsure"] == [2, 3] and current["camera"]["unsettled"] == [3]
    assert _flagged_gates(current["flag"]) == ["Star"]
    expect(page.locator("#flag")).to_be_visible(timeout=WAIT_MS)
    expect(unsure.locator("strong")).to_have_text("Look at Star:")
    expect(unsure.locator(".settled")).to_have_text("Moon stays as confirmed.")
    # a count the camera is unsure of is no suggested answer (ruling D4)
    expect(page.locator("#flag").get_by_role("button", name="Camera is right")).not_to_have_class("btn primary")
    fits(page, f"the flagged round at {size[0]}x{size[1]}")
    shoot(page, f"diego-unsure-settled-{size[0]}x{size[1]}")

    # Star as the camera reads it. On a phone this "Camera is right" stands where the first one was: tapped within
    # DOUBLE_TAP_MS of that one's answer the page takes it for a double tap's second half, as it should; a person
    # reads the flag first, and so does this test
    page.wait_for_selector("body:not([data-settling])", state="attached")
    page.locator("#flag").get_by_role("button", name="Camera is right").click()
    expect(page.locator("#flag")).to_be_hidden(timeout=WAIT_MS)
    current = current_round(base, session)
    assert current["flag"] is None and current["camera"]["unsettled"] == [] and current["marbles"] == [2, 3, 5]

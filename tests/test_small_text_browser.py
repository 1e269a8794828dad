"""Every text a person sees at 13 px or more, on every page and through whole games, in headless Chromium at the Pi's
800x480 screen and on a phone. The kiosk's rule is 13 px for anything read from across the table; the checks by
element (tests/test_readable_text_browser.py and the games' fit tests) name the texts found small one by one, and
texts they did not name stayed small: Diego's gate pads (12.8 px), Drachensachen's tile details and the cards' burn
buttons. This sweep reads every text node of the page as it is drawn, in random games of each kind from their start
to their end."""
from __future__ import annotations

import random
from typing import Any, Callable

import pytest
from flask import Flask

from companion.games import GAMES
from tests.browser import KIOSK, PHONE, SMALL_TEXT, open_game, start_game

#: Each game, its players, and how many random events apart its page is read.
PLAYED = [("diego-drachenzahn", ["Moritz", "Bartholomäus Drachenherz", "Eva", "Zdeňka"], 6),
          ("drachensachen", ["Moritz", "Bartholomäus Drachenherz", "Eva", "Zdeňka", "Oskar"], 8),
          ("drachen-wurf", ["Moritz", "Bartholomäus Drachenherz", "Eva", "Zdeňka"], 12),
          ("draci-hrad", ["Moritz", "Bartholomäus Drachenherz", "Eva", "Zdeňka"], 15)]

#: What each page shows once its script has drawn it.
READY = {"/": "#game-choice [data-game]", "/camera": "#next-step:not(:empty)",
         "/devices": "#device-list > li, #no-devices:not([hidden])", "/heroes": "#hero-cards > *"}

#: How many times a game's page is read on its way (and once more at its end).
READINGS = 6


def small_text(page: Any) -> list[str]:
    """The texts of `page` a person sees under 13 px."""
    return page.evaluate(SMALL_TEXT, "body")


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["800x480", "phone"])
@pytest.mark.parametrize(("game_id", "players", "apart"), PLAYED, ids=[game for game, _, _ in PLAYED])
def test_no_text_of_a_game_s_page_is_under_13_px_from_its_start_to_its_end(
        open_page: Callable[..., Any], base: str, app: Flask, game_id: str, players: list[str], apart: int,
        size: tuple[int, int]) -> None:
    """A random game of each kind (the rules' own legal sample), its page read every few events and at the end, and
    its menu once."""
    session = start_game(base, game_id, players)
    game, table, rng = GAMES[game_id], app.extensions["table"], random.Random(7)
    assert game.sample is not None
    state = game.setup(tuple(session["players"]), game.resolve_options(session["options"]))
    page = open_game(open_page, base, session, *size)
    found: dict[str, str] = {}
    for reading in range(READINGS + 1):
        page.wait_for_function("(seq) => +document.body.dataset.seq >= seq", arg=table.view(session["id"])["seq"])
        found.update({text: f"reading {reading}" for text in small_text(page) if text not in found})
        if reading == 2:  # the game's menu, as it opens mid-game
            page.click("#menu-button")
            page.wait_for_selector("#menu-close")
            found.update({text: "the menu" for text in small_text(page) if text not in found})
            page.click("#menu-close")
        # a few events, or at the last reading but one all the rest of the game
        for _ in range(apart if reading < READINGS - 1 else 10_000):
            if reading == READINGS or (event := game.sample(state, rng)) is None:
                break
            state = game.apply(state, event)
            table.submit(session["id"], event)
    assert game.sample(state, rng) is None, "the game was not played to its end"
    assert not found, f"{game_id} at {size[0]}x{size[1]}: text under 13 px: {found}"


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["800x480", "phone"])
@pytest.mark.parametrize("path", ["/", "/camera", "/devices", "/heroes"])
def test_no_text_of_the_other_pages_is_under_13_px(open_page: Callable[..., Any], base: str, path: str,
                                                   size: tuple[int, int]) -> None:
    """Home (with each game picked, its options shown), Camera, Devices and the hero cards."""
    page = open_page(*size)
    page.goto(f"{base}{path}")
    page.wait_for_selector(READY[path])
    found = {text: "as opened" for text in small_text(page)}
    if path == "/":
        for game in page.locator("[data-game]").all():
            game.click()
            found.update({text: game.get_attribute("data-game") or "" for text in small_text(page)})
    assert not found, f"{path} at {size[0]}x{size[1]}: text under 13 px: {found}"

"""Screens that fit, in headless Chromium: Drachen Wurf's dice screen on a 601 px small tablet (no scrolling with two
or three players, nothing sideways with four), and every Drachen Wurf screen on a 320 px phone (nothing sideways,
tiles still 48 px)."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask

from tests.browser import fits, in_view, shoot, start_game
from tests.test_drachen_wurf_browser import GRID_PAST_PANEL, play_until

WURF = "drachen-wurf"
PLAYERS = ["Ada", "Ben", "Cleo", "Dan"]

#: Whatever a person can see that reaches past the edge of its panel, or past the screen's right edge.
PAST_ITS_PANEL = """() => [...document.querySelectorAll('main *')].filter((el) => el.getClientRects().length
        && el.checkVisibility() && !el.closest('[hidden], .overlay')).filter((el) => {
        const r = el.getBoundingClientRect(), panel = el.closest('.panel');
        const box = panel ? panel.getBoundingClientRect() : {left: 0, right: window.innerWidth};
        return r.width && (r.left < box.left - .5 || r.right > Math.min(box.right, window.innerWidth) + .5); })
    .map((el) => `${el.tagName}.${el.getAttribute('class')}: ${el.getBoundingClientRect().right} px`)"""

def dice_screen(app: Flask, base: str, players: int) -> dict[str, Any]:
    """A game of `players` in its third round's dice, with a tile to steal and an egg in hand."""
    game = start_game(base, WURF, PLAYERS[:players])
    play_until(app, game, lambda s: s["phase"] == "dice" and s["round"] >= 3 and any(s["stealable"]["6"])
               and s["eggs"][s["active"]] > 0, seed=4)
    return game


def visit(open_page: Callable[..., Any], base: str, game: dict[str, Any], size: tuple[int, int]) -> Any:
    page = open_page(*size)
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_selector("#live:text-is('live')")
    return page


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_dice_screen_fits_a_601_px_small_tablet(open_page: Callable[..., Any], base: str, app: Flask,
                                                     players: int) -> None:
    """Three columns left the round too narrow for the five 48 px keys of the dice (the 6 stood past its panel) and
    the table too narrow for three tiles on one side (13 px past the screen's edge, with three players); the page
    scrolled by 19 px with two players, and 55 with three."""
    size = (601, 600)
    page = visit(open_page, base, dice_screen(app, base, players), size)
    where = f"the dice screen with {players} players at 601x600"
    shoot(page, f"{WURF}-dice-{players}-601x600", full_page=True)
    fits(page, where)
    assert page.evaluate(PAST_ITS_PANEL) == [], f"{where}: reaches past its panel"
    if players <= 3:
        assert page.evaluate("document.documentElement.scrollHeight - window.innerHeight") <= 0, f"{where} scrolls"
        for control in ("#k-pad [data-k='6']", "#egg-toggle", "#move-button", "#end-turn", "#middle", "#scoreboard"):
            in_view(page, control)


@pytest.mark.parametrize("players", [2, 4])
def test_every_drachen_wurf_screen_fits_a_320_px_phone(open_page: Callable[..., Any], base: str, app: Flask,
                                                        players: int) -> None:
    """The 6x6 grid reached 18 px past the screen's edge at 320 px; its tiles stay 48 px."""
    names = ["Maximilian", *PLAYERS[1:players]]
    flipping = start_game(base, WURF, names)
    rolling = dice_screen(app, base, players)
    securing = start_game(base, WURF, names)
    play_until(app, securing, lambda s: s["phase"] == "secure" and len(s["hoards"][s["active"]]["rows"]) >= 2, seed=7)
    over = start_game(base, WURF, names)
    play_until(app, over, lambda s: s["finished"], seed=3)
    page = open_page(320, 568)
    for name, game in {"flip": flipping, "dice": rolling, "secure": securing, "final": over}.items():
        page.goto(f"{base}/play/{game['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        page.wait_for_selector("#live:text-is('live')")
        where = f"{name} with {players} players at 320x568"
        shoot(page, f"{WURF}-{name}-{players}-320x568", full_page=True)
        fits(page, where)
        assert page.evaluate(PAST_ITS_PANEL) == [], f"{where}: reaches past its panel or the screen"
        if name == "flip":
            assert page.evaluate(GRID_PAST_PANEL) <= 0.5, f"the tiles reach into the panel's edge: {where}"
            sizes = page.eval_on_selector_all("#flip-grid .wtile", "(ts) => ts.map((t) => t.offsetWidth)")
            assert len(sizes) == 36 and set(sizes) == {48}, sizes

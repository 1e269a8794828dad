"""Drachen Wurf on the small tablets, 601 to 760 px wide, held upright (640x800, 700x1000) or sideways (720x540,
760x600), in headless Chromium: whole games of four and six players played through, every base, hoard and button
on the screen at every step without a scroll, as on the Pi's 800x480 screen."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask

from tests.browser import open_game, start_game
from tests.test_drachen_wurf_browser import WURF
from tests.test_drachen_wurf_fit_browser import PLAYERS, played_in_sight

#: Small tablets held upright and sideways.
SMALL_TABLETS = [(640, 800), (700, 1000), (720, 540), (760, 600)]


# four (the case that scrolled first) and six players (the most); five read as these did when measured
@pytest.mark.parametrize("players, seed", [(4, 2), (6, 1)])
def test_every_base_hoard_and_button_stays_on_a_small_tablet_through_a_whole_game(open_page: Callable[..., Any],
                                                                                  base: str, app: Flask,
                                                                                  players: int, seed: int) -> None:
    """On a small tablet the players stood one under another in full, each base's five sides and hoard rows with
    their sums, and the 6x6 grid took the round's whole width above them: the page scrolled through the whole game
    (four players by up to 643 px while the tiles were flipped at 720x540, six by up to 827 px). Through a whole game
    of four and six players, at every step, every base, hoard and button is on the screen without a scroll at 640x800,
    700x1000, 720x540 and 760x600, with the egg's move and a tile picked to steal too; no name is broken inside a
    word."""
    game = start_game(base, WURF, PLAYERS[:players])
    pages = {size: open_game(open_page, base, game, *size) for size in SMALL_TABLETS}
    played_in_sight(app, game, pages, seed)

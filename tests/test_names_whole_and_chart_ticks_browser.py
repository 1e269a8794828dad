"""Long names whole on Drachensachen's trackers and Drachen Wurf's list of eggs, and Drachensachen's chart numbers
drawn at one size on every screen, in headless Chromium. On a 390x844 phone the pending draw's line cut "Bartholomäus
Drachenherz faces it" to "Bartholomäus Dra…", and the trouble pile's "of 18 · Bartholomäus Drachenherz drew 2" was cut
too (at 800x480 as well); at 1024x600 the skips' "Bartholomäus Drachenherz and Oma Käthe skip" was cut, and Drachen
Wurf's list of eggs showed "Oma …" and "Barth…" (80 and 197 px of text in 61 px; at 800x480 "Bartholomäus
Drachenherz", "Anna-Katharina" and "Zdeňka Nováková" in 104 px). The chart's axis numbers were 26 units or 11 units of
the chart by the screen's width: 15.8 px as drawn on a phone, 17.8 px at 1280x800, 11 px on a phone 280 px wide."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    BROKEN_WORDS,
    PHONE,
    SCREENS,
    fits,
    open_game,
    post_events,
    session_view,
    shoot,
    start_game,
)
from tests.test_drachen_wurf_browser import play_until
from tests.test_drachen_wurf_fit_browser import shown
from tests.test_drachensachen_browser import finished_game
from tests.test_fit_800_browser import BELOW
from tests.test_kiosk_fit_browser import CUT
from tests.test_readable_text_browser import DRAWN_TEXTS

BARTHOLOMAUS = "Bartholomäus Drachenherz"
#: Players as the new user named them, the longest second.
PLAYERS = ["Oma Käthe", BARTHOLOMAUS, "Jonas", "Mia", "Lena"]

#: Once the page has drawn twice: what it measures on a frame (a chart's size) is on the screen.
FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def names_whole(page: Any, sel: str, where: str) -> None:
    """Every text of `sel` whole (nothing cut, no ellipsis) and broken between its words only."""
    assert page.evaluate(CUT, sel) == [], f"{where}: cut short"
    assert page.evaluate(BROKEN_WORDS, sel) == [], f"{where}: a word broken inside itself"


@SCREENS
def test_drachensachen_s_trackers_name_a_long_name_whole(open_page: Callable[..., Any], base: str,
                                                          size: tuple[int, int]) -> None:
    """The pending draw's line says whom it faces, the trouble pile's who drew last, the skips' who skips: each
    "Bartholomäus Drachenherz" whole, on a second line where it needs one, and the Pi's screens still do not
    scroll."""
    game = start_game(base, "drachensachen", [BARTHOLOMAUS, *PLAYERS[:1], *PLAYERS[2:]])
    post_events(base, game, {"type": "starter", "player": "Lena"}, {"type": "four", "count": 1},
                {"type": "next_turn"})
    page = open_game(open_page, base, game, *size)
    where = f"Drachensachen at {size[0]}x{size[1]}"
    detail = "#ds-trackers .ds-tile-detail"
    expect(page.locator("#ds-pending .ds-tile-detail")).to_have_text(f"{BARTHOLOMAUS} faces it")
    shoot(page, f"names-whole-ds-pending-{size[0]}x{size[1]}", full_page=size == PHONE)
    names_whole(page, detail, f"{where}, the pending draw")
    fits(page, where)
    post_events(base, game, {"type": "draw_pending", "player": BARTHOLOMAUS}, {"type": "next_turn"},
                {"type": "next_turn"}, {"type": "next_turn"}, {"type": "skip", "count": 2})
    expect(page.locator("#ds-pile .ds-tile-detail")).to_have_text(f"of 18 · {BARTHOLOMAUS} drew 2")
    shoot(page, f"names-whole-ds-pile-{size[0]}x{size[1]}", full_page=size == PHONE)
    names_whole(page, detail, f"{where}, the pile and the skips")
    fits(page, where)
    if size != PHONE:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"


@SCREENS
def test_drachen_wurf_s_list_of_eggs_names_everyone_whole(open_page: Callable[..., Any], base: str, app: Flask,
                                                           size: tuple[int, int]) -> None:
    """Beside the score board each player's eggs: every name whole, broken between its words only, the eggs under a
    name too long to stand beside them; the Pi's screens still do not scroll, early and late in a game of four."""
    players = [*PLAYERS[:3], "Lena"]
    game = start_game(base, "drachen-wurf", players)
    page = open_game(open_page, base, game, *size)
    where = f"Drachen Wurf's eggs at {size[0]}x{size[1]}"
    for moment in ("first", "late"):
        if moment == "late":
            play_until(app, game, lambda s: s["phase"] == "dice" and s["round"] >= 3, seed=1)
            shown(page, session_view(base, game)["seq"])
        shoot(page, f"names-whole-wurf-eggs-{moment}-{size[0]}x{size[1]}")
        names_whole(page, ".wurf-eggs .name", f"{where}, {moment}")
        fits(page, f"{where}, {moment}")
        if size != PHONE:
            assert page.evaluate(BELOW) <= 0, f"{where}, {moment}: scrolls by {page.evaluate(BELOW)} px"


def drawn_sizes(page: Any, sel: str) -> list[float]:
    """The sizes (px) the texts of `sel` are drawn at on the screen, once the page has drawn them."""
    page.evaluate(FRAMES)
    return [round(px, 1) for _, px, _ in page.evaluate(DRAWN_TEXTS, sel)]


@pytest.mark.parametrize("size", [PHONE, (280, 653), (1280, 800)], ids=["phone", "narrow-phone", "1280x800"])
def test_drachensachen_s_chart_numbers_are_drawn_at_one_size_in_play_and_at_the_end(
        open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    """The chart's axis numbers, in play and on the final screen, are drawn at 13 px at least and under 15 px on
    every screen, however wide the chart is drawn (the Pi's screens: tests/test_readable_text_browser.py)."""
    game = start_game(base, "drachensachen", PLAYERS[:4])
    post_events(base, game, {"type": "starter", "player": "Jonas"}, {"type": "went_out", "player": "Jonas"},
                *({"type": "coins", "player": p, "coins": 5} for p in PLAYERS[:4] if p != "Jonas"))
    page = open_game(open_page, base, game, *size)
    expect(page.locator("#ds-chart .ds-tick")).to_have_count(3)  # 21, 0 and the first round
    where = f"at {size[0]}x{size[1]}"
    in_play = drawn_sizes(page, "#ds-chart .ds-tick")
    assert all(13 <= px < 15 for px in in_play), f"the chart's numbers in play {where}: {in_play} px"
    final = open_game(open_page, base, finished_game(base), *size)
    expect(final.locator("#ds-final-chart .ds-tick")).to_have_count(6)
    at_the_end = drawn_sizes(final, "#ds-final-chart .ds-tick")
    assert all(13 <= px < 15 for px in at_the_end), f"the final chart's numbers {where}: {at_the_end} px"

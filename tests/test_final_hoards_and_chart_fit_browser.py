"""The whole final screen of Drachen Wurf and of Drachensachen on the Pi's screens, in headless Chromium. At 800x480
Drachen Wurf's hoards lay below the standings and the table, past the screen's foot (by 177 px with two players, 304
with six), and Drachensachen's chart under the standings (by 82 px with three players, 158 with seven). The winner,
the standings, every hoard or the chart, and the table are all on the screen without a scroll: each hoard beside its
player's total, the chart between the standings and the table, a size smaller where they need the room."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, WIDE, fits, in_view, shoot
from tests.test_final_fit_browser import PLAYERS, TOTALS_OFF_SCREEN, WHOLE_ROWS, open_final, words_whole
from tests.test_final_screens_browser import played_to_the_end
from tests.test_fit_800_browser import BELOW
from tests.test_readable_text_browser import OVERLAPS, drawn_small, small

#: What a person cannot see of the final screen without a scroll: each hoard and each of its tiles, the chart and its
#: caption ("what: top..bottom").
OFF_THE_SCREEN = """() => [...document.querySelectorAll('#totals .final-hoard, #totals .final-hoard .wtile,'
        + ' #ds-final-chart, #ds-final-chart figcaption')].filter((el) => el.checkVisibility())
    .filter((el) => { const r = el.getBoundingClientRect();
        return r.top < -.5 || r.left < -.5 || r.bottom > innerHeight + .5 || r.right > innerWidth + .5; })
    .map((el) => `${el.closest('[data-player]')?.dataset.player ?? el.id} ${el.className.baseVal ?? el.className}:`
        + ` ${Math.round(el.getBoundingClientRect().top)}..${Math.round(el.getBoundingClientRect().bottom)}`)"""

#: The words of each game's final screen read across the table, 13 px at least: the standings and the winner, with
#: each hoard row's score (read out only, where the room is short) or the chart's caption.
TEXTS = {"drachen-wurf": ("#totals .name", "#totals .score", "#winners .winner", "#totals .final-hoard .rs"),
         "drachensachen": ("#totals .name", "#totals .score", "#winners .winner", "#ds-final-chart figcaption")}

#: Finished games: Drachen Wurf of two to six players (two games of six, one with hoards of many rows),
#: Drachensachen of three to seven.
FINISHED = [("drachen-wurf", 2, 1), ("drachen-wurf", 4, 1), ("drachen-wurf", 6, 1), ("drachen-wurf", 6, 4),
            ("drachensachen", 3, 2), ("drachensachen", 5, 2), ("drachensachen", 7, 2), ("drachensachen", 7, 1)]


@pytest.mark.parametrize(("game_id", "players", "seed"), FINISHED,
                         ids=[f"{game}-{players}-{seed}" for game, players, seed in FINISHED])
def test_the_whole_final_screen_with_its_hoards_or_chart_is_on_the_pi_s_screens(
        open_page: Callable[..., Any], base: str, app: Flask, game_id: str, players: int, seed: int) -> None:
    """At 800x480 and at 1024x600 the final screen does not scroll: the winner, Play again, every player's total,
    every hoard's tiles (Drachen Wurf) or the chart with its caption (Drachensachen), the table's header, two rounds and
    its Total all on the screen; the chart's numbers 13 px at least and none over another; every name whole. A phone's
    page scrolls, with nothing sideways."""
    session = played_to_the_end(base, app, game_id, PLAYERS[:players], seed)
    for size in (KIOSK, WIDE, PHONE):
        page = open_final(open_page, base, session, size)
        where = f"{game_id}'s final screen with {players} players at {size[0]}x{size[1]}"
        expect(page.locator("#totals li")).to_have_count(players)
        shoot(page, f"final-whole-{game_id}-{players}-{seed}-{size[0]}x{size[1]}")
        if size != PHONE:  # a phone's page scrolls
            assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
            assert page.evaluate(OFF_THE_SCREEN) == [], f"{where}: off the screen: {page.evaluate(OFF_THE_SCREEN)}"
            assert page.evaluate(TOTALS_OFF_SCREEN) == [], f"{where}: totals off the screen"
            for selector in ("#winners", "#again", "#breakdown thead", "#breakdown tfoot th"):
                in_view(page, selector)
            rows = page.locator("#breakdown tbody tr").count()
            assert page.evaluate(WHOLE_ROWS) >= min(rows, 2), f"{where}: fewer than two rounds of the table in sight"
        if game_id == "drachen-wurf":
            expect(page.locator("#totals .final-hoard")).to_have_count(players)
        else:
            assert drawn_small(page, "#ds-final-chart .ds-tick") == [], f"{where}: the chart's numbers"
            assert page.evaluate(OVERLAPS, "#ds-final-chart .ds-tick") == [], f"{where}: the chart's numbers overlap"
        texts = TEXTS[game_id]
        assert small(page, texts) == {}, f"{where}: text under 13 px: {small(page, texts)}"
        fits(page, where)
        words_whole(page, where)

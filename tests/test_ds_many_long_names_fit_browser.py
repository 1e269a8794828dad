"""Drachensachen's Chaos set-up on the Pi's 800x480 touchscreen with five long names or more among six or seven
players, in headless Chromium: names of 24 letters in two or three words, as families write them ("Bartholomäus
Drachenherz", "Maximilian von Greifberg"). The page scrolled by 211 to 315 px. Every trick, every player's three
hindrances, Next turn and every score are on the screen without a scroll; each name whole, broken between its words
only, 13 px at least; every button whole and 48 px to tap."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, fits, shoot
from tests.test_ds_long_names_fit_browser import (
    CHAOS_TEXTS,
    KONSTANTINOS,
    REVEALED_TEXTS,
    WILHELMINA,
    all_in_sight,
    chaos_of,
)
from tests.test_fit_800_browser import BARTHOLOMAUS, BELOW, ZDENKA, chaos_in_sight
from tests.test_layout_fit_browser import visit
from tests.test_readable_text_browser import WIDE

#: Seven names of 24 letters, each of two or three words.
LONG = [BARTHOLOMAUS, KONSTANTINOS, WILHELMINA, ZDENKA, "Maximilian von Greifberg", "Alexandrina Feuerschwanz",
        "Genoveva Anna Sturmwinde"]

#: Chaos set-ups of six and seven players, every name long or five of seven (five of six fitted).
MANY_LONG = {
    "six, all long": LONG[:6],
    "seven, five long": [LONG[0], "Ada", *LONG[1:4], "Ben", LONG[4]],
    "seven, all long": LONG,
}


@pytest.mark.parametrize("case", MANY_LONG)
def test_a_chaos_set_up_of_six_or_seven_long_names_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str,
                                                                        case: str) -> None:
    """At 800x480 the Chaos set-up scrolled by 218 px with six long names, by 211 px with five long names among seven
    players and by 315 px with seven: each long name stood above its three hindrances, and on the score board its key
    on a line above it and its score on a line under it. It fits without a scroll, with every trick to choose, each
    player's three hindrances, Next turn, the trouble pile's note and every score in sight, every name whole and
    broken between its words only, its text 13 px at least; once the trick is revealed from the screen it still fits.
    1024x600 fits too, and a phone never scrolls sideways."""
    players = MANY_LONG[case]
    game = chaos_of(base, players)
    page = visit(open_page, base, game, KIOSK)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(len(players))
    expect(page.locator("#ds-trick .ds-choice")).to_have_count(6)
    where = f"the Chaos set-up of {case} at 800x480"
    shoot(page, f"ds-many-long-names-{case.replace(' ', '-').replace(',', '')}-800x480")
    all_in_sight(page, where, players, CHAOS_TEXTS)
    chaos_in_sight(page, players, where)

    page.click("#ds-trick [data-trick='golden_feathers']")
    expect(page.locator("#ds-trick")).to_have_count(0)
    all_in_sight(page, f"{where}, the trick revealed", players, REVEALED_TEXTS)

    wider = visit(open_page, base, game, WIDE)
    expect(wider.locator("#ds-chaos .ds-chaos-row")).to_have_count(len(players))
    fits(wider, "the same at 1024x600")
    assert wider.evaluate(BELOW) <= 0, f"the same at 1024x600 scrolls by {wider.evaluate(BELOW)} px"
    phone = visit(open_page, base, game, PHONE)
    expect(phone.locator("#ds-chaos .ds-chaos-row")).to_have_count(len(players))
    fits(phone, "the same on a phone")

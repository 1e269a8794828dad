"""Drachensachen's long names on the Pi's 800x480 touchscreen, in headless Chromium. On the score board a long name
("Bartholomäus Drachenherz") took its row's whole width, its key on a line above it and its score on a line under it:
a game of seven with one long name scrolled by 18 px in round 1 and by 37 px from round 2's set-up on; and the Chaos
set-up with two long names or more scrolled by 44 to 97 px (their rows on the score board, and beside the hindrances
the names of both columns at the width of the longest word, so that one of them stood above its buttons). Every phase
fits the screen without a scroll, every button whole and in sight, every name whole and its text 13 px at least; the
1024x600 screen still fits, and a phone still never scrolls sideways."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest
from playwright.sync_api import expect

from tests.browser import BROKEN_WORDS, KIOSK, PHONE, fits, in_view, post_events, shoot
from tests.test_drachensachen_browser import TURN_CONTROLS
from tests.test_drachensachen_browser import new_game as new_drachensachen
from tests.test_fit_800_browser import BARTHOLOMAUS, BELOW, ZDENKA, again, chaos_in_sight
from tests.test_kiosk_fit_browser import CUT
from tests.test_layout_fit_browser import visit
from tests.test_readable_text_browser import WIDE, small

SEVEN = ["Ada", "Ben", "Cleo", BARTHOLOMAUS, "Eva", "Finn", "Gus"]

#: Two more long names, of long words: "Konstantinos" and "Schuppenglanz" are wider than "Bartholomäus".
KONSTANTINOS, WILHELMINA = "Konstantinos Drachenfels", "Wilhelmina Schuppenglanz"

#: The buttons a person can see that are not wholly on the screen as it is: each one's words and box.
BUTTONS_OUT_OF_SIGHT = """() => [...document.querySelectorAll('button, .btn')].filter((el) => el.checkVisibility())
    .map((el) => [el.textContent.trim() || el.getAttribute('aria-label'), el.getBoundingClientRect()])
    .filter(([, r]) => r.top < 0 || r.left < 0 || r.bottom > window.innerHeight + .5
                       || r.right > window.innerWidth + .5)
    .map(([words, r]) => `${words}: ${[r.left, r.top, r.right, r.bottom].map(Math.round).join(', ')}`)"""

#: The names shown, which break between their words only and are never cut short.
NAMES = "#scoreboard .name, #ds-chaos .name, #turn .turn-name"

#: The texts of the score board, 13 px at least wherever the page makes room for long names.
BOARD_TEXTS = ("#scoreboard .name", "#scoreboard .score", "#ds-lost-note")

#: The texts of the Chaos set-up once its trick is revealed, and before, 13 px at least.
REVEALED_TEXTS = (*BOARD_TEXTS, "#turn .phrase", "#ds-hindrance", "#ds-chaos .name", "#ds-chaos .ds-choice",
                  "#ds-chaos > p")
CHAOS_TEXTS = (*REVEALED_TEXTS, "#ds-trick .ds-choice")


def all_in_sight(page: Any, where: str, players: list[str], texts: tuple[str, ...]) -> None:
    """The page as it is (`fits`, no scroll): every button whole and on the screen, every player's score in sight,
    every name whole and broken between its words only, `texts` 13 px at least."""
    fits(page, where)
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    assert page.evaluate(BUTTONS_OUT_OF_SIGHT) == [], f"{where}: buttons out of sight"
    for player in players:
        in_view(page, f"#scoreboard [data-player='{player}'] .score")
    assert page.evaluate(BROKEN_WORDS, NAMES) == [], f"{where}: a name broken inside a word"
    assert page.evaluate(CUT, NAMES) == [], f"{where}: a name cut short"
    assert small(page, texts) == {}, f"{where}: text under 13 px, or not seen: {small(page, texts)}"


def seven_rounds(base: str) -> Iterator[tuple[str, dict[str, Any], tuple[str, ...]]]:
    """Seven players, Bartholomäus Drachenherz fourth, tricks and hindrances on, from round 1's set-up to round 2's
    play through a Chaos set-up: yields each phase's name, the game as it stands then and the controls it asks for."""
    game = new_drachensachen(base, SEVEN, tricks=True, hindrances=True)
    yield "round 1's set-up", game, ("#ds-starter .ds-player:last-child", "#ds-trick .ds-choice:last-child")
    post_events(base, game, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": BARTHOLOMAUS},
                {"type": "set_out", "value": "1"})
    yield "round 1 in play", game, TURN_CONTROLS
    post_events(base, game, *[{"type": "next_turn"}] * 5, {"type": "went_out", "player": "Ben"})  # on Ben's turn
    yield "round 1's coins", game, tuple(f"#ds-coins [data-coins='{p}']" for p in SEVEN if p != "Ben")
    post_events(base, game, *({"type": "coins", "player": p, "coins": 12} for p in SEVEN if p != "Ben"))
    yield "round 2's set-up", game, ("#ds-last", "#ds-trick .ds-choice:last-child", "[data-drawer] [data-kind='chaos']",
                                     "#ds-next", "#ds-went-out-open")
    post_events(base, game, {"type": "hindrance", "kind": "chaos", "player": "Ben"})
    yield "the Chaos set-up", game, ("#ds-next", *(f"#ds-chaos [data-player='{p}'] [data-kind='chaos']" for p in SEVEN))
    # the six hindrances left after Ben's Chaos: the seventh player draws none
    post_events(base, game, {"type": "trick", "trick": "golden_feathers"},
                *({"type": "hindrance", "kind": "invasion", "hand": 20, "player": p} for p in SEVEN[:6]))
    yield "the Chaos set-up entered", game, (*TURN_CONTROLS, "#ds-hindrance")
    post_events(base, game, {"type": "next_turn"})
    yield "round 2 in play", game, TURN_CONTROLS


def test_seven_players_one_with_a_long_name_fit_the_kiosk_screen_in_every_phase(open_page: Callable[..., Any],
                                                                                base: str) -> None:
    """Seven players, Bartholomäus Drachenherz among them: his name on two lines of the score board, with his key and
    his score on lines of their own, pushed the board below the screen's foot (the page scrolled by 18 px in round 1,
    by 37 px from round 2's set-up on). In every phase the page fits 800x480 without a scroll, whatever the phase asks
    for in sight, every player's score too; 1024x600 fits as well, and a phone never scrolls sideways."""
    kiosk, wider, phone = open_page(*KIOSK), open_page(*WIDE), open_page(*PHONE)
    seen = []
    for phase, game, controls in seven_rounds(base):
        again(kiosk, base, game)
        expect(kiosk.locator("#scoreboard li")).to_have_count(7)
        expect(kiosk.locator(controls[0])).to_be_visible()
        where = f"seven players, {phase}, at 800x480"
        shoot(kiosk, f"ds-long-names-seven-{phase.replace(' ', '-')}-800x480")
        all_in_sight(kiosk, where, SEVEN, CHAOS_TEXTS if phase == "the Chaos set-up" else BOARD_TEXTS)
        for selector in controls:
            in_view(kiosk, selector)
        if phase == "the Chaos set-up":
            chaos_in_sight(kiosk, SEVEN, where)
        again(wider, base, game)
        expect(wider.locator(controls[0])).to_be_visible()
        fits(wider, f"seven players, {phase}, at 1024x600")
        assert wider.evaluate(BELOW) <= 0, f"{phase} at 1024x600 scrolls by {wider.evaluate(BELOW)} px"
        again(phone, base, game)
        expect(phone.locator(controls[0])).to_be_attached()
        fits(phone, f"seven players, {phase}, on a phone")
        seen.append(phase)
    assert len(seen) == 7, seen


def chaos_of(base: str, players: list[str]) -> dict[str, Any]:
    """Round 2's set-up of `players` under Chaos: the trick still to reveal; the first seat started round 1, the second
    went out and drew Chaos, so that every player draws a hindrance; the others lost 12 coins each, capped at 10, and
    the next of them clockwise starts round 2."""
    game = new_drachensachen(base, players, tricks=True, hindrances=True)
    holder = players[1]
    post_events(base, game, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": players[0]},
                {"type": "went_out", "player": holder},
                *({"type": "coins", "player": p, "coins": 12} for p in players if p != holder),
                {"type": "hindrance", "kind": "chaos", "player": holder})
    return game


#: Seven names of 24 letters, each of two or three words.
LONG = [BARTHOLOMAUS, KONSTANTINOS, WILHELMINA, ZDENKA, "Maximilian von Greifberg", "Alexandrina Feuerschwanz",
        "Genoveva Anna Sturmwinde"]

#: Chaos set-ups with long names: in the same column of hindrances or one in each, the Chaos card's holder (second)
#: or the starter (third) among them, of five, six and seven players; and six or seven players, five of them long or
#: all.
LONG_NAMED = {
    "five, two long in one column": [BARTHOLOMAUS, "Ada", ZDENKA, "Ben", "Cleo"],
    "five, two long side by side, one holding Chaos": [BARTHOLOMAUS, ZDENKA, "Ada", "Ben", "Cleo"],
    "five, three long": [BARTHOLOMAUS, ZDENKA, "Ada", KONSTANTINOS, "Ben"],
    "six, the holder and the starter long": ["Ada", KONSTANTINOS, WILHELMINA, "Ben", "Cleo", "Dan"],
    "seven, the holder and the starter long": ["Ada", BARTHOLOMAUS, ZDENKA, "Ben", "Cleo", "Dan", "Eva"],
    "seven, the starter and one beside long": ["Ada", "Ben", KONSTANTINOS, WILHELMINA, "Cleo", "Dan", "Eva"],
    "six, all long": LONG[:6],
    "seven, five long": [LONG[0], "Ada", *LONG[1:4], "Ben", LONG[4]],
    "seven, all long": LONG,
}


@pytest.mark.parametrize("case", LONG_NAMED)
def test_a_chaos_set_up_with_long_names_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str,
                                                             case: str) -> None:
    """The Chaos set-up with two long names or three: at 800x480 the page scrolled by 44 to 97 px; with six long names,
    five among seven players or seven, by 218, 211 and 315 px (each long name above its three hindrances, and on the
    score board its key on a line above it and its score on a line under it). It fits without a scroll, with every
    trick to choose, each player's three hindrances, Next turn, the trouble pile's note and every score in sight, every
    name whole and broken between its words only, its text 13 px at least; once the trick is revealed from the screen
    it still fits. 1024x600 fits too, and a phone never scrolls sideways."""
    players = LONG_NAMED[case]
    game = chaos_of(base, players)
    page = visit(open_page, base, game, KIOSK)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(len(players))
    expect(page.locator("#ds-trick .ds-choice")).to_have_count(6)
    where = f"the Chaos set-up of {', '.join(players)} at 800x480"
    shoot(page, f"ds-long-names-chaos-{case.replace(' ', '-').replace(',', '')}-800x480")
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

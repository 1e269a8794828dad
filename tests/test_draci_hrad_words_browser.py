"""Dračí hrad's page in headless Chromium, for what it says: the last fight's line told one attack's damage where the
Harpies had struck twice ("2 damage" while Ben's lives went 10 to 6); two quick taps on Food bought one, unsaid; and
the log of numbers set by hand spoke the program's words ("Fight: fight spider → ended", "Poisoned (1/0)") in
10 to 12 px text."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import KIOSK, WAIT_MS, fits, open_game, start_game
from tests.browser import post_events as post
from tests.browser import session_view as state
from tests.test_double_tap_browser import logged, still_page
from tests.test_draci_hrad_browser import hero
from tests.test_fit_800_browser import BELOW, FONT_SIZES

GAME = "draci-hrad"
TABLET = (1024, 600)

#: Ben's Arcana (10 lives, defence 11) meets the Harpies with a skunk and loses the initiative, 2 against 5: they
#: strike once before he leaves, twice (ruling H6), 15 + 2 = 17 against 11 + 4 = 15 each time.
SKUNKED = [{"type": "end_turn", "player": "Ada"}, {"type": "buy", "player": "Ben", "item": "skunk"},
           {"type": "fight", "players": ["Ben"], "enemy": "harpies"},
           {"type": "use", "player": "Ben", "item": "skunk", "hero_die": 2, "enemy_die": 5},
           {"type": "strike", "enemy_dice": [2, 2], "defence_dice": [4, 4]}]


@pytest.mark.parametrize("size", [KIOSK, TABLET], ids=["800x480", "1024x600"])
def test_the_last_fight_tells_both_of_the_harpies_attacks(open_page: Callable[..., Any], base: str,
                                                          size: tuple[int, int]) -> None:
    """The line said "… = 15: 2 damage" while Ben lost 4 lives: it tells each attack with its sum and the damage in
    all, on the 800x480 screen too, without the page scrolling."""
    session = start_game(base, GAME, ["Ada", "Ben"])
    post(base, session, *SKUNKED)
    page = open_game(open_page, base, session, *size)
    expect(hero(page, "Ben").locator(".hr-lives-n")).to_have_text("6/10")
    expect(page.locator("#hr-last")).to_have_text("Last fight: Ben escaped from the Harpies · "
                                                  "15 + 2 = 17 vs 11 + 4 = 15: 2 damage; "
                                                  "15 + 2 = 17 vs 11 + 4 = 15: 2 damage · 4 damage in all.")
    assert page.evaluate(BELOW) <= 0, "the page reaches below the screen's foot"
    fits(page, f"the last fight's line at {size[0]}x{size[1]}")


@pytest.mark.parametrize("size", [KIOSK, TABLET], ids=["800x480", "1024x600"])
def test_the_last_fight_of_a_group_against_the_dragon_agrees_with_the_lives_lost(open_page: Callable[..., Any],
                                                                                 base: str,
                                                                                 size: tuple[int, int]) -> None:
    """The Dragon strikes three heroes, three times each charge (ruling H6), over three exchanges: the line tells
    each attack of the last one, and the lives each hero lost in the whole fight, as their cards show them."""
    session = start_game(base, GAME, ["Ada", "Ben", "Cleo", "Dan"])
    post(base, session, {"type": "end_turn", "player": "Ada"},
         {"type": "fight", "players": ["Ben", "Cleo", "Dan"], "enemy": "dragon", "remainder_to": "Ben"},
         {"type": "strike", "enemy_dice": [3, 3, 3], "defence_dice": [5, 5, 5], "targets": ["Ben", "Cleo", "Ben"]},
         {"type": "strike", "hero_dice": [6, 6], "enemy_defence_die": 1},
         {"type": "strike", "enemy_dice": [3, 3, 3], "defence_dice": [5, 5, 5], "targets": ["Ben", "Cleo", "Dan"]},
         {"type": "end_fight", "reason": "Nobody can hurt anybody"})
    page = open_game(open_page, base, session, *size)
    last = page.locator("#hr-last")
    expect(last).to_contain_text("stopped fighting the Dragon")
    # Ben's Arcana 10 to 0 (3 + 5, then 3 with 2 left), Cleo's Fist 12 to 10, Dan's Parbat 14 to 9
    expect(last).to_contain_text("in the whole fight Ben lost 10 lives, Cleo 2 lives, Dan 5 lives.")
    lost = {h["player"]: h["max_lives"] - h["lives"] for h in state(base, session)["state"]["heroes"]}
    assert lost == {"Ada": 0, "Ben": 10, "Cleo": 2, "Dan": 5}
    if size == TABLET:
        expect(last).to_contain_text("the last exchange: Dragon → Ben: 16 + 3 = 19 vs 11 + 5 = 16: 3 damage; "
                                     "Dragon → Cleo: 16 + 3 = 19 vs 13 + 5 = 18: 1 damage; "
                                     "Dragon → Dan: 18 + 3 = 21 vs 11 + 5 = 16: 5 damage")
    for pane in ("city", "castle"):
        page.click(f"[data-pane='{pane}']")
        expect(page.locator(f"#hr-{pane}")).to_be_visible()
        assert page.evaluate(BELOW) <= 0, f"{pane}: the page reaches below the screen's foot"


def test_two_quick_taps_on_food_buy_two_each_said_and_one_undone(open_page: Callable[..., Any], base: str) -> None:
    """Food tapped twice 200 ms apart bought one, and said nothing: kit.js took the second tap for a double tap's
    half. At a shop a second tap is a second purchase (the second Food card costs 4, ruling H4): both count, each is
    shown at once (the gold, the cards, a message), and a slip is taken back by one tap on Undo. The page's clock
    stands still here, so "200 ms apart" holds however slow the machine."""
    session = start_game(base, GAME, ["Ada", "Ben"])
    page = still_page(open_page, base, session)
    food = "#hr-shop [data-item='food']"
    page.click(food)
    page.clock.run_for(200)
    page.click(food)
    card = hero(page, "Ada")
    expect(card.locator(".hr-gold")).to_have_text("194 gold")  # 200 - 2 - 4
    expect(card.locator(".hr-kit")).to_contain_text("Food ×2")
    expect(page.locator("#toast")).to_have_text("Ada bought Food (2 now): 194 gold left. ↶ Undo takes it back.")
    assert logged(base, session).count("buy") == 2
    page.clock.run_for(1000)
    page.click("#undo")
    expect(card.locator(".hr-gold")).to_have_text("198 gold")
    expect(card.locator(".hr-kit")).to_have_text("Food")
    assert [k for k, _ in page.evaluate("window.shownToasts") if k == "error"] == []


def test_the_log_of_numbers_set_by_hand_reads_as_sentences(open_page: Callable[..., Any], base: str) -> None:
    """The log said "Fight: fight spider → ended · Started by mistake" in 10 to 12 px, and a field was "Poisoned (1/0)":
    it says what happened in a sentence, 13 px at least; poisoned is a yes or a no; the whole log is in the menu."""
    session = start_game(base, GAME, ["Ada", "Ben"])
    post(base, session, {"type": "fight", "players": ["Ada"], "enemy": "spider"})
    page = open_game(open_page, base, session, *KIOSK)
    page.click("#hr-end-fight")
    page.click("[data-why='Started by mistake']")
    log = page.locator("#hr-overrides li")
    expect(log.first).to_have_text("Ada's fight with the Spider ended by hand: started by mistake", timeout=WAIT_MS)
    page.click("#menu-button")
    page.click("#hr-set")
    page.click(".hr-pick [data-pick='Ben']")
    poisoned = page.locator(".hr-pick [data-field='poisoned']")
    expect(poisoned).to_have_text("Poisoned no")
    poisoned.click()
    expect(page.locator(".hr-pick .big")).to_have_text("Ben: poisoned?")
    page.click(".hr-pick [data-poisoned='yes']")
    expect(page.locator(".hr-pick .big")).to_have_text("Ben: poisoned. Why?")
    page.click(".hr-pick [data-why='Entered wrong']")
    expect(hero(page, "Ben").locator(".hr-badge.poison")).to_have_text("poisoned")
    expect(log).to_have_text(["Ben poisoned by hand: entered wrong",
                              "Ada's fight with the Spider ended by hand: started by mistake"])
    sizes = page.evaluate(FONT_SIZES, ["#hr-log h3", "#hr-log h3 *", "#hr-overrides li", "#hr-overrides li *"])
    assert all(size is None or size >= 13 for size in sizes.values()), sizes
    assert sizes["#hr-overrides li"] is not None
    assert page.evaluate(BELOW) <= 0, "the page reaches below the screen's foot"
    page.click("#menu-button")
    page.click("#hr-log-open")
    expect(page.locator("#hr-log-all li")).to_have_text([
        "Ben poisoned by hand: entered wrong · round 1",
        "Ada's fight with the Spider ended by hand: started by mistake · round 1"])

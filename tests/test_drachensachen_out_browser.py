"""The Drachensachen page in headless Chromium: the cards out of the game keep their place from the round's set-up
into play, "Went out…" offers only the players who may play their last card now, and the next round's starter says
how a tie for the most lost was broken."""
from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import expect

from tests.browser import KIOSK, fits, open_game
from tests.browser import post_events as post
from tests.test_drachensachen_browser import new_game
from tests.test_fit_800_browser import BELOW

#: Where the panel of tricks and cards out of the game, and the round beside it, are drawn: [x, y, width] each.
PLACES = """() => ['#ds-side', '#round'].map((sel) => { const el = document.querySelector(sel);
    if (!el.checkVisibility()) return null;
    const r = el.getBoundingClientRect(); return [Math.round(r.x), Math.round(r.y), Math.round(r.width)]; })"""


def test_the_cards_out_keep_their_place_from_the_set_up_into_play(open_page: Callable[..., Any], base: str) -> None:
    """On the Pi's 800x480 screen the tricks and the cards out of the game stepped aside while the set-up asked who
    starts and which trick is revealed, and came back beside the round with the set-up's last answer, moving the round
    and Next turn over under a finger: they stand in one place before play and in it, the page fitting the screen."""
    session = new_game(base, ["Ada", "Ben", "Cleo"], tricks=True)
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator("#ds-starter")).to_be_visible()
    expect(page.locator("#ds-trick")).to_be_visible()
    asking = page.evaluate(PLACES)
    assert asking[0] is not None, "the cards out of the game are not seen while the set-up asks"
    expect(page.locator("#ds-side .ds-cards-title")).to_contain_text("Out of the game")
    fits(page, "round 1's set-up at 800x480")
    assert page.evaluate(BELOW) <= 0, "round 1's set-up scrolls"
    page.click("#ds-trick [data-trick='carousel']")
    page.click("#ds-starter [data-player='Ada']")
    expect(page.locator("#ds-setup-hint")).to_be_attached()  # set up: a tracker tap starts play
    assert page.evaluate(PLACES) == asking, "the set-up's last answer moved the round or the cards out over"
    page.click("#ds-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    assert page.evaluate(PLACES) == asking, "play's first tap moved the round or the cards out over"
    assert page.evaluate(BELOW) <= 0, "round 1 in play scrolls"


def test_went_out_offers_only_who_may_play_their_last_card_now(open_page: Callable[..., Any], base: str) -> None:
    """A player goes out by playing their last card, on their own turn (rulebook: Turn Order, End of the Round), or,
    skipped, as a Defender (ruling S8): once the turns are tracked the picker offers them only, and says why. Before
    any tracker tap (a table that keeps only the coins) the turns are not followed, and every player is offered."""
    session = new_game(base, ["Ada", "Ben", "Cleo", "Dan"])
    post(base, session, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session)
    page.click("#ds-went-out-open")
    picker = page.locator("#ds-went-out [data-player]")
    expect(picker).to_have_count(4)
    expect(page.locator("#ds-went-out-why")).to_have_count(0)
    page.click("#ds-went-out-cancel")
    post(base, session, {"type": "next_turn"})  # Ben's turn
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    page.click("#ds-went-out-open")
    expect(picker).to_have_count(1)
    expect(picker).to_have_attribute("data-player", "Ben")
    expect(page.locator("#ds-went-out-why")).to_have_text(
        "A last card is played on one's own turn: now Ben's. Someone went out on an earlier turn? Undo back to it.")
    page.click("#ds-went-out-cancel")
    post(base, session, {"type": "skip", "count": 2})  # Ben's two 5s: Cleo and Dan skip, and may pass it on
    page.click("#ds-went-out-open")
    expect(picker).to_have_count(3)
    assert [picker.nth(i).get_attribute("data-player") for i in range(3)] == ["Ben", "Cleo", "Dan"]
    expect(page.locator("#ds-went-out-why")).to_contain_text("or by Cleo and Dan, skipping, as a Defender")
    page.click("#ds-went-out [data-player='Dan']")
    expect(page.locator("#ds-scoring")).to_contain_text("Dan went out and loses nothing")


def test_the_next_starter_says_how_a_tie_for_the_most_lost_was_broken(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    """Ruling S5: who lost the most starts; among tied players, the first met clockwise after the last round's
    starter. Ada started, Ben went out, Ada and Cleo lost 5 each: Cleo starts, and the line says why."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ben"},
         {"type": "coins", "player": "Ada", "coins": 5}, {"type": "coins", "player": "Cleo", "coins": 5})
    page = open_game(open_page, base, session)
    expect(page.locator("#turn .turn-name")).to_have_text("Cleo")
    expect(page.locator("#turn .phrase")).to_have_text(
        "starts: of the 2 who lost the most (5 each), the first clockwise after Ada", use_inner_text=True)
    small = open_game(open_page, base, session, *KIOSK)
    expect(small.locator("#turn .phrase")).to_have_text(
        "starts: of the 2 who lost the most (5 each), the first clockwise after Ada", use_inner_text=True)
    assert small.evaluate(BELOW) <= 0, "round 2's set-up scrolls at 800x480"

"""Diego's face-down guesses, in headless Chromium: a guess in moves no row after it.

At the table on the Pi's 800x480 screen a guess in shrank its row to a line of text: the next player's buttons moved
up 28 px, just beyond the double-tap guard's 24 px, and a quick tap aimed at them landed on another player's row (or
on nothing). A guess in now stands where its player's buttons stood (ruling D5: one guess a player), and the token's
question is a row under the guesses on the Pi's screens, so that four players' rows and the token's still fit.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, call, centre, fits, in_view, open_game, player_at, post_events, start_game
from tests.test_double_tap_browser import still_page

DIEGO = "diego-drachenzahn"
PLAYERS = ["Jan", "Anna", "Bartholomäus Drachenherz", "Oma Ruth"]  # Jan rolls; the others guess clockwise
GUESSERS = PLAYERS[1:]
SIZES = [KIOSK, (1024, 600), PHONE]
SIZE_IDS = ["kiosk", "1024x600", "phone"]

#: The top of each guess row's first button and of the token's, by player ("token"), as the page draws them now.
TOPS = """() => Object.fromEntries([
    ...[...document.querySelectorAll('#guesses .guess-row')].map((row) => [row.dataset.player,
        row.querySelector('button')?.getBoundingClientRect().top ?? null]),
    ['token', document.querySelector('#reveal-pad button').getBoundingClientRect().top]])"""

#: How far the page scrolls down at most.
SCROLL = "document.documentElement.scrollHeight - window.innerHeight"


def face_down_game(base: str, marbles: int) -> dict[str, Any]:
    session = start_game(base, DIEGO, PLAYERS, face_down=True)
    if marbles:
        post_events(base, session, *({"type": "marble", "gate": 2} for _ in range(marbles)))
    return session


@pytest.mark.parametrize("marbles", [0, 3], ids=["before-the-marbles", "after-the-marbles"])
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_guess_in_moves_no_row_after_it(open_page: Callable[..., Any], base: str, size: tuple[int, int],
                                           marbles: int) -> None:
    """As each guess comes in, every later player's buttons and the token's stay where they were drawn (within
    2 px); the page scrolls no further than it did, and four players' rows and the token's are on the screen."""
    session = face_down_game(base, marbles)
    page = open_game(open_page, base, session, *size)
    expect(page.locator("#guesses .guess-row button")).to_have_count(6 * len(GUESSERS))
    drawn = page.evaluate(TOPS)
    scroll = page.evaluate(SCROLL)
    for selector in (f"#guesses [data-player='{GUESSERS[-1]}'] [data-gate='6']", "#reveal-pad [data-gate='6']"):
        in_view(page, selector)
    fits(page, f"the face-down guesses at {size[0]}x{size[1]}")
    for i, player in enumerate(GUESSERS):
        post_events(base, session, {"type": "guess", "player": player, "gate": 2})
        expect(page.locator(f"#guesses [data-player='{player}'] .guessed")).to_be_visible()
        expect(page.locator(f"#guesses [data-player='{player}'] button")).to_have_count(0)
        now = page.evaluate(TOPS)
        moved = {who: round(now[who] - drawn[who], 1) for who in [*GUESSERS[i + 1:], "token"]
                 if abs(now[who] - drawn[who]) > 2}
        assert moved == {}, f"{player}'s guess moved the rows after it (px): {moved}"
        assert page.evaluate(SCROLL) <= scroll, f"{player}'s guess made the page scroll further"
        in_view(page, "#reveal-pad [data-gate='6']")
        fits(page, f"{player}'s guess in at {size[0]}x{size[1]}")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_quick_guesses_tapped_one_after_another_all_count(open_page: Callable[..., Any], base: str,
                                                           size: tuple[int, int]) -> None:
    """Round the table each player taps their guess by touch right after the one before was drawn, where their
    button was drawn before anyone guessed: each tap is its player's guess, none is taken for a double tap's second
    half. The page's clock stands still once the page is live, so "right after" holds however slow the machine."""
    session = face_down_game(base, 3)
    page = still_page(open_page, base, session, size)
    page.locator(f"#guesses [data-player='{GUESSERS[-1]}']").scroll_into_view_if_needed()
    guesses = dict(zip(GUESSERS, (2, 5, 2)))
    # where each player's button is drawn before anyone guesses
    spots = {player: centre(page, f"#guesses [data-player='{player}'] [data-gate='{gate}']")
             for player, gate in guesses.items()}
    for player in guesses:
        under = player_at(page, "#guesses", spots[player])
        assert under == player, f"{player}'s button moved: where it was drawn is {under or 'no one'}'s"
        page.touchscreen.tap(*spots[player])  # right after the guess before was drawn
        expect(page.locator(f"#guesses [data-player='{player}'] .guessed")).to_be_visible()
    current = call(f"{base}/api/sessions/{session['id']}")[1]["state"]["current"]
    assert current["guessed"] == {player: True for player in GUESSERS}, current
    post_events(base, session, {"type": "reveal", "gate": 2})
    last = call(f"{base}/api/sessions/{session['id']}")[1]["state"]["last_round"]
    assert last["guesses"] == guesses, last  # each tap its own player's guess
    shown = page.evaluate("window.shownToasts")
    assert [text for _, text in shown if text.startswith("Not counted")] == [], shown
    assert [kind for kind, _ in shown if kind == "error"] == [], shown

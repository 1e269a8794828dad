"""A double tap on a game page, in headless Chromium: the same event sent twice. The first counts; the rules may refuse
the second ("already guessed"), and that refusal is the double tap's, not the family's mistake: no error is shown. A
repeat the rules accept (two marbles tapped into one gate) counts as ever."""
from __future__ import annotations

import time
from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import DOUBLED, PHONE, WAIT_MS, call, centre, open_game, player_at, post_events, start_game
from tests.test_drachen_wurf_browser import play_until

RECORD_TOASTS = """() => { window.shownToasts = [];
    new MutationObserver(() => { const t = document.getElementById('toast');
        if (!t.hidden) window.shownToasts.push([t.dataset.kind, t.textContent]); })
        .observe(document.getElementById('toast'), {attributes: true, childList: true, subtree: true}); }"""


def test_a_double_tap_counts_once_and_shows_no_error(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"], face_down=True)
    page = open_game(open_page, base, session, 800, 480)
    page.evaluate(RECORD_TOASTS)
    page.dblclick("#marble-pad [data-gate='3']")  # two marbles in gate 3: both count
    expect(page.locator("#slots .slot.filled")).to_have_count(2, timeout=WAIT_MS)
    page.click("#marble-pad [data-gate='5']")
    expect(page.locator("#slots .slot.filled")).to_have_count(3, timeout=WAIT_MS)
    page.dblclick("#guesses [data-player='Ben'] [data-gate='3']")  # a guess, twice: the second is refused
    page.wait_for_selector("#guesses [data-player='Ben'] .guessed", timeout=WAIT_MS)
    page.click("#guesses [data-player='Cleo'] [data-gate='5']")  # taps go in turn: the double tap's answers came first
    page.wait_for_selector("#guesses [data-player='Cleo'] .guessed", timeout=WAIT_MS)
    _, view = call(f"{base}/api/sessions/{session['id']}")
    current = view["state"]["current"]
    assert sorted(current["marbles"]) == [3, 3, 5]
    assert current["guessed"] == {"Ben": True, "Cleo": True}, current
    assert [e["type"] for e in call(f"{base}/api/sessions/{session['id']}/events")[1]["events"]].count("guess") == 2
    assert [kind for kind, _ in page.evaluate("window.shownToasts")] == [], page.evaluate("window.shownToasts")


def logged(base: str, session: dict[str, Any]) -> list[str]:
    return [e["type"] for e in call(f"{base}/api/sessions/{session['id']}/events")[1]["events"]]


def still_page(open_page: Callable[..., Any], base: str, session: dict[str, Any],
               size: tuple[int, int] = (800, 480)) -> Any:
    """The game's page (800x480 unless told), live, its clock standing still from here until a test moves it on, its
    messages recorded."""
    page = open_page(*size)
    page.clock.install()
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("#live:text-is('live')")
    page.clock.pause_at(time.time() + 3600)
    # the hour's jump has the page hear nothing for an hour: it connects its stream again (kit.js follow), and that
    # stream's opening messages come before the test's taps, not among them
    page.wait_for_selector("body[data-live='yes']", state="attached")
    page.evaluate(RECORD_TOASTS)
    return page


def test_next_turn_draw_and_undo_tapped_twice_count_once(open_page: Callable[..., Any], base: str) -> None:
    """A tap on the same button again, with no other tap between, before anyone could have read what the first did
    (while it is under way, or within a moment of its answer, even once the page has drawn it) is a double tap's
    second half: Next turn passes one turn, Draw 1 draws one card, Undo undoes one step. The page's clock stands
    still here, so "within a moment" holds however slow the machine; moved on a second, the same tap counts."""
    session = start_game(base, "drachensachen", ["Ada", "Ben", "Cleo"], tricks=True)
    post_events(base, session, {"type": "trick", "trick": "goblins_against_dragons"},
                {"type": "starter", "player": "Ada"})
    page = still_page(open_page, base, session)
    turn, pile = page.locator("#turn .turn-name"), page.locator("#ds-pile .ds-tile-value")
    page.dblclick("#ds-next")  # both halves at once: the second while the first is under way
    expect(turn).to_have_text("Ben")
    page.click("#ds-next")  # a third, after the answer is drawn: still the same double tap
    page.click("#ds-draw")  # taps go in turn: had a Next been sent, its answer would come first
    expect(pile).to_have_text("17")
    page.click("#ds-draw")  # Draw 1 again, right after its answer: once
    page.click("#undo")
    expect(page.locator("#toast")).to_have_text("Undid: Ben drew 1 from the trouble pile")  # who drew, named
    page.click("#undo")  # Undo again at once: the first undo's double
    page.click("#ds-draw")  # another tap between: this Draw 1 is a new one
    expect(pile).to_have_text("17")
    assert turn.inner_text() == "Ben"
    assert logged(base, session) == ["trick", "starter", "next_turn", "draw", "draw"], logged(base, session)
    page.click("#ds-next")
    expect(turn).to_have_text("Cleo")
    page.click("#ds-next")  # at once: a double tap's
    page.clock.fast_forward(1000)  # a second later, the same tap again counts
    page.click("#ds-next")
    expect(turn).to_have_text("Ada")
    assert logged(base, session).count("next_turn") == 3
    assert [kind for kind, _ in page.evaluate("window.shownToasts") if kind == "error"] == []


def test_roll_double_tapped_in_a_fight_rolls_once(open_page: Callable[..., Any], base: str) -> None:
    """Dračí hrad: Roll double tapped in a fight records one exchange, not two."""
    session = start_game(base, "draci-hrad", ["Ada", "Ben"])
    page = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='fight']")
    page.click("#hr-enemies [data-enemy='skeleton']")
    page.click("#hr-start")
    page.dblclick("#hr-roll")  # the initiative, once
    expect(page.locator("#hr-step")).not_to_contain_text("Initiative")
    page.click("#hr-end-fight")  # another tap between: the next Roll counts
    page.click("#overlays .btn.ghost")  # Keep fighting
    page.dblclick("#hr-roll")  # one strike
    expect(page.locator("#hr-exchanges li")).to_have_count(1)
    assert logged(base, session).count("strike") == 1 and logged(base, session).count("initiative") == 1


def test_a_double_tap_on_end_turn_flips_no_tile_of_the_next_player(open_page: Callable[..., Any], base: str,
                                                                   app: Flask) -> None:
    """Drachen Wurf: End turn double tapped ended the turn, and its second half flipped whatever tile of the next
    player's grid was drawn under the finger. A tap on a button drawn since the tap before, at its spot, right after
    its answer, is that double tap's second half; a tap elsewhere a moment later counts."""
    session = start_game(base, "drachen-wurf", ["Ada", "Ben"])
    play_until(app, session, lambda s: s["phase"] == "dice" and s["expects"] == ["end"], seed=3)
    before = logged(base, session)
    # a phone, where the next player's grid comes in under the round (a 7-inch screen draws it beside the round)
    page = still_page(open_page, base, session, PHONE)
    mover = page.locator("#turn .turn-name").inner_text()
    box = page.locator("#end-turn").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    expect(page.locator("#turn .turn-name")).not_to_have_text(mover)
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.closest('#flip-grid button')?.dataset.tile",
                          [x, y])
    assert under is not None, "no tile of the next player's grid under the finger: nothing to check"
    page.mouse.click(x, y)  # the double tap's second half, on the tile drawn under it
    page.clock.fast_forward(1000)
    other = page.locator(f"#flip-grid button[data-tile]:not([data-tile='{under}'])").first
    flipped = other.get_attribute("data-tile")
    other.click()  # a tap of its own
    expect(page.locator(f"#flip-grid [data-tile='{flipped}']:not(button)")).to_have_count(1)
    expect(page.locator(f"#flip-grid button[data-tile='{under}']")).to_have_count(1)  # still face down
    assert logged(base, session)[len(before):] == ["end", "flip"], logged(base, session)[len(before):]
    shown = page.evaluate("window.shownToasts")
    assert [kind for kind, _ in shown if kind == "error"] == []
    # said, so that a quick tap meant for the tile is tapped again
    assert ["info", DOUBLED] in [list(toast) for toast in shown], shown



@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (390, 844)], ids=["kiosk", "1024x600", "phone"])
def test_who_turned_over_what_counts_each_quick_answer(open_page: Callable[..., Any], base: str,
                                                        size: tuple[int, int]) -> None:
    """Diego's "Who turned over what?": round the table each player says what they turned over, one tap after
    another. An answer shrank its row to a line of text, the next player's buttons moved up under the finger, and
    his tap, near the spot of the one before a moment after its answer, was taken for a double tap's second half and
    not counted. An answer takes its row's place without moving another row: each player's button stays where it was
    drawn, and a tap on it right after the answer before counts. The page's clock stands still here, so "right after"
    holds however slow the machine."""
    players = ["Jan", "Anna", "Bartholomäus Drachenherz", "Oma Ruth"]  # Jan rolls; the others answer clockwise
    session = start_game(base, "diego-drachenzahn", players)
    post_events(base, session, *({"type": "marble", "gate": 6} for _ in range(3)), {"type": "reveal", "gate": 6})
    page = still_page(open_page, base, session, size)
    page.locator("#turned [data-player='Oma Ruth']").scroll_into_view_if_needed()
    answers = {"Anna": "[data-gate='6']", "Bartholomäus Drachenherz": "[data-gate='6']",
               "Oma Ruth": "[data-correct='false']"}
    # where each button is drawn before anyone answers
    spots = {player: centre(page, f"#turned [data-player='{player}'] {answer}") for player, answer in answers.items()}
    for player in answers:
        under = player_at(page, "#turned", spots[player])
        assert under == player, f"{player}'s button moved: where it was drawn is {under or 'no one'}'s"
        page.mouse.click(*spots[player])  # right after the answer before was drawn
        if player != players[-1]:
            page.wait_for_selector(f"#turned [data-player='{player}'].done")
    expect(page.locator("#turned-step")).to_be_hidden()  # every answer in: the next round
    last = call(f"{base}/api/sessions/{session['id']}")[1]["state"]["last_round"]
    assert last["guesses"] == {"Anna": 6, "Bartholomäus Drachenherz": 6, "Oma Ruth": False}, last
    shown = page.evaluate("window.shownToasts")
    assert [text for _, text in shown if text.startswith("Not counted")] == [], shown

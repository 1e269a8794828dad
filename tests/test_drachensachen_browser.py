"""The Drachensachen page in headless Chromium: trackers by tap seen live elsewhere, the round's setup and coins by
keypad, the screens it must fit, a refused tap's rule tag, and the final screen with the fewest lost first."""
from __future__ import annotations

import re
from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import (
    BELOW,
    BROKEN_WORDS,
    NOT_COUNTED,
    WAIT_MS,
    call,
    fits,
    in_view,
    keypad,
    open_game,
    start_game,
    tap_again,
    tap_anyway,
    without_seq,
)
from tests.browser import post_events as post
from tests.browser import session_view as state
from tests.test_double_tap_browser import still_page

GAME = "drachensachen"

#: The controls tapped every turn: on the Pi's 800x480 screen they are all there without scrolling.
TURN_CONTROLS = ("#ds-next", "#ds-went-out-open", "#ds-draw", "#ds-draw-pending", "#ds-four", "#ds-defend-pending",
                 "#ds-skips .ds-tile-buttons .btn:first-child", "#ds-skips .ds-tile-buttons .btn:last-child",
                 "#ds-reverse", "#ds-cards [data-value='defender']",
                 "#ds-set-out", "#ds-burned", "#ds-trick-list")


def new_game(base: str, players: list[str], **options: Any) -> dict[str, Any]:
    return start_game(base, GAME, players, **options)


def pile(page: Any) -> Any:
    return page.locator("#ds-pile .ds-tile-value")


def score(page: Any, player: str) -> Any:
    return page.locator(f"#scoreboard [data-player='{player}'] .score")


FINISHED_ROUNDS = [("Ada", {"Ben": 8, "Cleo": 4}), ("Ben", {"Ada": 3, "Cleo": 10}), ("Cleo", {"Ada": 5, "Ben": 12}),
                   ("Ada", {"Ben": 3, "Cleo": 9})]  # Ada 8, Ben 21, Cleo 23: the game ends, Ada wins


def finished_game(base: str) -> dict[str, Any]:
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"})
    for finisher, coins in FINISHED_ROUNDS:
        post(base, session, {"type": "went_out", "player": finisher},
             *({"type": "coins", "player": p, "coins": n} for p, n in coins.items()))
    return session


# ---------------------------------------------------------------------------------------------------------------


def test_the_page_is_found_by_the_game_id_without_inline_script(client: Any) -> None:
    view = client.post("/api/sessions", json={"game": GAME, "players": ["Ada", "Ben"]}).get_json()
    html = client.get(f"/play/{view['id']}").get_data(as_text=True)
    assert "games/drachensachen.js" in html and 'id="ds-trackers"' in html
    assert "<script>" not in html and " onclick=" not in html


class _Mouse:
    """A mouse button pressed and released in two steps."""

    def __init__(self, page: Any, x: float, y: float) -> None:
        self.page, self.x, self.y = page, x, y

    def down(self) -> None:
        self.page.mouse.move(self.x, self.y)
        self.page.mouse.down()

    def up(self) -> None:
        self.page.mouse.up()


class _Finger(_Mouse):
    """A finger on the touch screen, put down and lifted in two steps (Chromium's own touch events, which a
    tap of Playwright's sends at once): the click comes from the tap gesture after the finger is lifted."""

    def down(self) -> None:
        self.cdp = self.page.context.new_cdp_session(self.page)
        self._touch("touchStart", [{"x": self.x, "y": self.y}])

    def up(self) -> None:
        self._touch("touchEnd", [])

    def _touch(self, kind: str, points: list[dict[str, float]]) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


@pytest.mark.parametrize("pointer", [_Mouse, _Finger], ids=["mouse", "finger"])
def test_a_change_arriving_under_a_finger_does_not_lose_its_tap(open_page: Callable[..., Any], base: str,
                                                               pointer: type[_Mouse]) -> None:
    """A finger is down on Next turn when news comes (another tablet draws a card): the page holds its redraw
    until the tap is done, so the button pressed is the one released, and the tap counts. Unheld, a mouse's
    click is lost (its press and release fell on two buttons); a finger's tap is taken where it lifts."""
    session = new_game(base, ["Ada", "Ben", "Cleo"], tricks=True)
    post(base, session, {"type": "trick", "trick": "goblins_against_dragons"}, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session)
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    box = page.locator("#ds-next").bounding_box()
    press = pointer(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    press.down()
    drawn = post(base, session, {"type": "draw", "count": 1})
    page.wait_for_selector(f"body[data-seq='{drawn['seq']}']")  # the page has the news, the finger is still down
    press.up()
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    expect(pile(page)).to_have_text("17")  # and the news is drawn once the tap is done
    assert state(base, session)["turn"] == "Ben"


def test_a_finger_is_taken_on_what_it_pressed_when_the_page_changes_under_it(open_page: Callable[..., Any],
                                                                            base: str) -> None:
    """A finger is on "Ben starts" when another tablet chooses Ada: the tap is the press on Ben's button, which
    the rules refuse with their reason (S5), never a tap on whatever the new page puts under the finger."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    page = open_game(open_page, base, session)
    box = page.locator("#ds-starter [data-player='Ben']").bounding_box()
    finger = _Finger(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    finger.down()
    chosen = post(base, session, {"type": "starter", "player": "Ada"})
    page.wait_for_selector(f"body[data-seq='{chosen['seq']}']")
    finger.up()
    expect(page.locator("#toast")).to_contain_text("Ada already starts round 1")  # unheld: nothing at all
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    assert state(base, session)["seq"] == chosen["seq"]  # the refused tap changed nothing


def test_next_turn_tapped_on_two_devices_at_once_moves_the_turn_once(open_page: Callable[..., Any], base: str) -> None:
    """Two devices show Ada's turn and both tap Next turn: the turn moves once (to Ben, not on to Cleo), and the
    page whose tap came second (here one that missed the stream) says the game changed and shows it. One page's
    own quick taps on a counting button all count, each against the game as the tap before left it; on any other
    button, a tap repeated before its answer could be seen is a double tap's, and counts once."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session)
    deaf = open_page(390, 844)
    deaf.route("**/stream", lambda route: route.abort())  # its Wi-Fi dropped: it hears nothing more
    deaf.goto(f"{base}/play/{session['id']}")
    deaf.wait_for_selector("body[data-ready='yes']")
    expect(deaf.locator("#turn .turn-name")).to_have_text("Ada")
    page.click("#ds-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    deaf.click("#ds-next")  # the same tap, on the same turn as this page saw it
    expect(deaf.locator("#toast")).to_have_text(NOT_COUNTED)
    expect(deaf.locator("#turn .turn-name")).to_have_text("Ben")
    assert state(base, session)["turn"] == "Ben"
    deaf.evaluate("() => { for (let i = 0; i < 3; i++) document.querySelector('#ds-four').click(); }")
    expect(deaf.locator("#ds-pending .ds-tile-value")).to_have_text("+6")  # three 4s played at once: 2 each
    deaf.evaluate("() => { for (let i = 0; i < 3; i++) document.querySelector('#ds-next').click(); }")
    expect(deaf.locator("#turn .turn-name")).to_have_text("Cleo")  # the turn passed once, not on to Ada and Ben
    deaf.evaluate("() => { for (let i = 0; i < 3; i++) document.querySelector('#ds-draw-pending').click(); }")
    expect(pile(deaf)).to_have_text("12")  # the pending 6 drawn once, not three times
    assert state(base, session)["state"]["trouble_pile"]["drawn"] == 6
    assert state(base, session)["turn"] == "Cleo"
    logged = [e["type"] for e in call(f"{base}/api/sessions/{session['id']}/events")[1]["events"]]
    assert (logged.count("four"), logged.count("next_turn"), logged.count("draw_pending")) == (3, 2, 1), logged


def test_three_players_two_rounds_by_tap_with_the_trouble_pile_seen_live(open_page: Callable[..., Any],
                                                                         base: str) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo"], tricks=True, hindrances=True)
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    # round 1: the table chooses the starter (S5), the trick is revealed (S9)
    page.click("#ds-trick [data-trick='golden_feathers']")
    page.click("#ds-starter [data-player='Ada']")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    expect(page.locator("#ds-trick-list [data-trick='golden_feathers']")).to_be_visible()
    expect(pile(other)).to_have_text("18", timeout=WAIT_MS)
    tap_anyway(page.locator("#ds-draw"))  # S6: only goblins against dragons draws beside the 4s
    expect(page.locator("#toast")).to_contain_text("Only the trick goblins against dragons draws 1")
    page.click("#ds-four")  # S7: +2 pending, facing the next player
    page.click("#ds-next")
    expect(other.locator("#ds-pending .ds-tile-detail")).to_contain_text("Ben faces it", timeout=WAIT_MS)
    # the tapping page too has its answer (or the stream's news) before the test taps again
    expect(page.locator("#ds-pending .ds-tile-detail")).to_contain_text("Ben faces it", timeout=WAIT_MS)
    tap_anyway(page.locator("#ds-next"))  # Ben must draw or pass it on first: the button says why
    expect(page.locator("#toast")).to_contain_text("Ben faces +2")
    page.click("#ds-defend-pending")  # Ben passes it on (S7), then takes it back: the undo names who played it
    expect(page.locator("#ds-pending .ds-tile-detail")).not_to_contain_text("Ben faces it")
    page.click("#undo")
    expect(page.locator("#toast")).to_have_text("Undid: Ben played a Defender")
    expect(page.locator("#ds-pending .ds-tile-detail")).to_contain_text("Ben faces it")
    page.click("#ds-draw-pending")
    expect(pile(page)).to_have_text("16")
    drawn = call(f"{base}/api/sessions/{session['id']}/events")[1]["events"][-1]
    assert (drawn["type"], drawn["payload"].get("player")) == ("draw_pending", "Ben")  # the log names who drew
    expect(pile(other)).to_have_text("16", timeout=WAIT_MS)  # the second page sees the pile change
    tap_again(page, "#ds-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Cleo")
    page.click("[data-skip='1']")  # S8: Ada skips
    expect(page.locator("#ds-skips .ds-tile-detail")).to_have_text("Ada skips")
    page.click("#ds-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    expect(other.locator("#turn .turn-name")).to_have_text("Ben", timeout=WAIT_MS)
    # Ben goes out; the coins by keypad, with golden feathers the 8s too (S2, S3)
    page.click("#ds-went-out-open")
    page.click("#ds-went-out [data-player='Ben']")
    page.click("#ds-coins [data-coins='Ada']")
    keypad(page, 12)
    keypad(page, 9, "Ada (12 coins): 8s still held")  # there are eight 8s: the page says so, keeps the keypad open
    expect(page.locator("#toast")).to_contain_text("from 0 to 8")
    page.click("#keypad-keys [aria-label='delete']")
    keypad(page, 1)
    ada = page.locator("#ds-coins [data-player='Ada']")
    expect(ada).to_contain_text("loses 9 (12 capped at 10, less 1 for the 8s)")
    page.click("#ds-coins [data-coins='Cleo']")
    keypad(page, 4)
    keypad(page, 0)
    # round 2: the round's losses and the end check; Ada lost the most and starts (S5); Ben draws a hindrance
    expect(page.locator("#ds-last")).to_contain_text("Round 1: Ben went out")
    expect(page.locator("#ds-last")).to_contain_text("loses 9 (12 capped at 10, less 1 for the 8s)")  # how it came
    expect(page.locator("#ds-last")).to_contain_text("Nobody has lost 21 yet")
    expect(score(other, "Ada")).to_have_text("9", timeout=WAIT_MS)
    assert score(other, "Cleo").inner_text() == "4"
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    page.click("#ds-setup [data-kind='invasion']")
    keypad(page, 7)
    expect(page.locator("#ds-hindrance")).to_contain_text("Ben drew Invasion of the Goblins: 7 cards in hand")
    page.click("#ds-trick [data-trick='carousel']")
    expect(pile(page)).to_have_text("18")  # a new round, a new pile
    page.click("#ds-reverse")  # S11: the carousel
    expect(other.locator("#ds-direction .ds-tile-value")).to_contain_text("counterclockwise", timeout=WAIT_MS)
    expect(other.locator("#ds-direction .ds-tile-detail")).to_have_text("Ada → Cleo → Ben")  # from whose turn it is
    page.click("#ds-set-out")  # four 7s from a hand go out of the game
    page.click("#ds-cards [data-value='7']")
    expect(other.locator("#ds-cards [data-value='7'] .ds-count")).to_have_text("4", timeout=WAIT_MS)
    page.click("#ds-burned")  # the discard pile burns: four 6s in a row on a 3
    for value in ("3", "6", "6", "6", "6"):
        page.click(f"#ds-cards [data-value='{value}']")
    page.click("#ds-burn-four")
    expect(page.locator("#ds-cards [data-value='6'] .ds-count")).to_have_text("4")
    expect(page.locator("#ds-cards-sum")).to_have_text("this round: 9")
    tap_again(page, "#ds-next")  # counterclockwise: Cleo's turn, in which she plays her last card
    expect(page.locator("#turn .turn-name")).to_have_text("Cleo")
    page.click("#ds-went-out-open")
    page.click("#ds-went-out [data-player='Cleo']")
    page.click("#ds-coins [data-coins='Ada']")
    keypad(page, 3)
    keypad(page, 0)
    page.click("#ds-coins [data-coins='Ben']")
    keypad(page, 11)
    keypad(page, 2)
    expect(score(other, "Ben")).to_have_text("8", timeout=WAIT_MS)  # min(10, 11) - 2
    assert [score(other, p).inner_text() for p in ("Ada", "Cleo")] == ["12", "4"]
    expect(other.locator("#ds-chart polyline")).to_have_count(3)
    points = other.locator("#ds-chart [data-player='Ada'] polyline").get_attribute("points")
    assert len(points.split()) == 3  # the start and two rounds
    view = state(base, session)["state"]
    assert view["running"] == {"Ada": [9, 12], "Ben": [0, 8], "Cleo": [4, 4]}
    assert view["history"][1]["cards_out"]["7"] == 4 and view["history"][0]["due"] == 2  # Ben's pending 2


def test_under_chaos_every_player_draws_a_hindrance(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo"], hindrances=True)
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ben"},
         {"type": "coins", "player": "Ada", "coins": 2}, {"type": "coins", "player": "Cleo", "coins": 1})
    page = open_game(open_page, base, session)
    page.click("#ds-setup [data-kind='chaos']")
    expect(page.locator("#ds-chaos [data-player='Cleo'] [data-kind='unknown']")).to_be_visible()
    page.click("#ds-chaos [data-player='Cleo'] [data-kind='unknown']")
    keypad(page, 0)
    keypad(page, 0)  # a layout of no cards: the page refuses it before the rules do
    expect(page.locator("#toast")).to_have_text("An Unknown card lays out at least one reserve card.")
    page.click("#ds-chaos [data-player='Cleo'] [data-kind='unknown']")
    keypad(page, 2)
    keypad(page, 3)
    expect(page.locator("#ds-chaos [data-player='Cleo']")).to_contain_text("2 face up, 3 face down")
    expect(page.locator("#ds-setup")).to_contain_text("Trouble pile under Chaos: 64 cards")
    expect(pile(page)).to_have_text("64")  # S6: 96 - 11 - 11 - (5 + 2 + 3)
    # play waits for Ada's and Ben's cards too, and says so
    expect(page.locator("#ds-setup-hint")).to_have_text(
        "Under Chaos every player draws a hindrance: Ada and Ben first; then play can start.")
    tap_anyway(page.locator("#ds-next"))
    expect(page.locator("#toast")).to_contain_text("Ada and Ben first.")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule S10")
    seq = state(base, session)["seq"]
    page.click("#ds-chaos [data-player='Ada'] [data-kind='chaos']")
    page.click("#ds-chaos [data-player='Ben'] [data-kind='chaos']")
    expect(page.locator("#ds-setup-hint")).to_contain_text("The round is set up")
    assert state(base, session)["seq"] == seq + 2  # the refused tap sent nothing
    page.click("#ds-next")
    expect(page.locator("#ds-setup")).to_be_hidden()


@pytest.mark.parametrize("width, height", [(1024, 600), (800, 480), (390, 844)])
def test_the_screens_fit(open_page: Callable[..., Any], base: str, width: int, height: int) -> None:
    playing = new_game(base, ["Ada", "Ben", "Cleo", "Dan", "Eva"], tricks=True, hindrances=True)
    post(base, playing, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": "Ada"},
         {"type": "four"}, {"type": "next_turn"}, {"type": "four"}, {"type": "skip", "count": 2},
         {"type": "reverse"})  # "counterclockwise", the direction's longest word
    setup = new_game(base, ["Ada", "Ben", "Cleo", "Dan"], tricks=True, hindrances=True)
    post(base, setup, {"type": "trick", "trick": "golden_feathers"}, {"type": "starter", "player": "Ada"},
         {"type": "went_out", "player": "Ben"}, *({"type": "coins", "player": p, "coins": 12, "eights": 1}
                                                  for p in ("Ada", "Cleo", "Dan")))
    scoring = new_game(base, ["Ada", "Ben", "Cleo", "Dan"])
    post(base, scoring, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Cleo"},
         {"type": "coins", "player": "Ada", "coins": 14})
    finished = finished_game(base)
    page = open_page(width, height)
    for name, session in (("play", playing), ("setup", setup), ("scoring", scoring), ("final", finished)):
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("#live:text-is('live')")
        page.wait_for_selector("#final:not([hidden])" if name == "final" else f"body[data-phase='{name}']")
        where = f"{name} at {width}x{height}"
        fits(page, where)
        assert page.locator("input").count() == 0
        if name == "play" and width == 800:
            for selector in TURN_CONTROLS:
                in_view(page, selector)
        if name == "play":
            assert page.evaluate(BROKEN_WORDS, ".ds-tile-buttons .btn") == [], f"{where}: a word broken inside itself"
        if name == "scoring" and width != 390:
            in_view(page, "#ds-coins [data-coins='Dan']")
    # with two skipped players a Defender is offered for each of them
    page.goto(f"{base}/play/{playing['id']}")
    expect(page.locator("#ds-skips [data-defender]")).to_have_count(2)


TRICK_ORDER = ("carousel", "fast_dragon", "surprise", "small_but_bold", "revealing_secrets",
               "goblins_against_dragons", "golden_feathers")


def played_rounds(base: str, rounds: int, hindrances: bool = False) -> dict[str, Any]:
    """A four-player game with tricks (and hindrances) whose first `rounds` - 1 rounds are played, each with its
    trick (and Ben's hindrance, drawn as the finisher): round `rounds` waits for its setup."""
    session = new_game(base, ["Ada", "Ben", "Cleo", "Dan"], tricks=True, hindrances=hindrances)
    post(base, session, {"type": "trick", "trick": TRICK_ORDER[0]}, {"type": "starter", "player": "Ada"})
    for number in range(2, rounds + 1):
        post(base, session, {"type": "went_out", "player": "Ben"},
             *({"type": "coins", "player": p, "coins": 1} for p in ("Ada", "Cleo", "Dan")))
        if number < rounds:
            post(base, session, {"type": "trick", "trick": TRICK_ORDER[number - 1]},
                 *([{"type": "hindrance", "kind": "invasion", "player": "Ben", "hand": 9}] if hindrances else []))
    return session


def test_the_trackers_stay_on_the_small_screen_however_many_tricks(open_page: Callable[..., Any], base: str) -> None:
    """With all seven tricks in play their tags take four lines, and the cards out of the game under them reached
    below the 800x480 screen's foot ("4 from a hand" and "Pile burned…" cut): the note on what the cards out are gives
    way, their heading and keys stay."""
    session = played_rounds(base, 7)
    post(base, session, {"type": "trick", "trick": TRICK_ORDER[6]})  # one a round: all seven in play
    view = state(base, session)
    assert len(view["state"]["tricks"]) == 7 and view["state"]["phase"] == "setup"
    post(base, session, {"type": "next_turn"})
    page = open_game(open_page, base, session, 800, 480)
    expect(page.locator("#ds-trick-list .ds-trick")).to_have_count(7)
    for selector in (*TURN_CONTROLS, "#ds-cards-actions button:last-child", ".ds-cards-title"):
        in_view(page, selector)
    assert page.evaluate(BELOW) <= 0, f"the page scrolls by {page.evaluate(BELOW)} px"
    page.click("#ds-tricks-open")  # the short tags open the full reminders
    expect(page.locator(".ds-trick-reminders dt")).to_have_count(7)
    expect(page.locator(".ds-trick-reminders")).to_contain_text("Played a 7? You may reverse the direction")
    page.click("#ds-tricks-close")
    expect(page.locator(".ds-trick-reminders")).to_have_count(0)


def test_a_later_rounds_setup_leaves_next_turn_and_the_trackers_on_the_small_screen(
        open_page: Callable[..., Any], base: str) -> None:
    session = played_rounds(base, 5, hindrances=True)
    page = open_game(open_page, base, session, 800, 480)
    # round 5 owes its trick and the hindrance: both steps and Next turn (saying what is owed) are on the screen
    for selector in ("#ds-trick [data-trick='golden_feathers']", "#ds-setup [data-kind='chaos']", "#ds-next"):
        in_view(page, selector)
    expect(page.locator("#ds-pile")).to_be_hidden()  # nothing to track until the round is set up
    page.click("#ds-trick [data-trick='revealing_secrets']")
    page.click("#ds-setup [data-kind='invasion']")
    keypad(page, 9)
    expect(page.locator("#ds-setup-hint")).to_contain_text("The round is set up")
    for selector in TURN_CONTROLS:
        in_view(page, selector)
    page.click("#ds-four")  # the first tracker tap starts play
    expect(page.locator("#ds-pending .ds-tile-value")).to_have_text("+2")


def test_a_chaos_setup_once_drawn_leaves_the_trackers_on_the_small_screen(
        open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo", "Dan"], hindrances=True)
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ben"},
         *({"type": "coins", "player": p, "coins": 2} for p in ("Ada", "Cleo", "Dan")),
         {"type": "hindrance", "kind": "chaos", "player": "Ben"},
         *({"type": "hindrance", "kind": "invasion", "player": p, "hand": 8} for p in ("Ada", "Ben", "Cleo", "Dan")))
    page = open_game(open_page, base, session, 800, 480)
    expect(page.locator("#ds-chaos [data-player='Dan']")).to_contain_text("8 cards in hand")
    for selector in TURN_CONTROLS[:-1]:  # no tricks in this game
        in_view(page, selector)


def test_the_draw_buttons_and_the_cards_out_say_what_they_are(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo"], tricks=True)
    post(base, session, {"type": "trick", "trick": "goblins_against_dragons"}, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, 800, 480)
    expect(page.locator("#ds-draw")).to_have_text("Draw 1")  # a visible label, not a bare "+1"
    expect(page.locator("#ds-draw-pending")).to_have_text("Draw due")
    note = page.locator("#ds-cards-note")
    expect(note).to_be_visible()
    expect(note).to_have_text("Cards put in the box, by value: sets of 4 from a hand and burned piles.")
    page.click("#ds-four")
    expect(page.locator("#ds-draw-pending")).to_have_text("Draw 2")
    page.click("#ds-draw")
    expect(pile(page)).to_have_text("17")


def test_of_two_players_the_carousel_s_second_turn_begins_with_next_turn(open_page: Callable[..., Any],
                                                                          base: str) -> None:
    """Ruling S11: of two players, a 7 reversed gives the mover a second turn; a 4 entered before Next turn mixed
    into the first turn (nobody faced it, and the mover went a third time). The page says so on the 4 and lets it
    be played once Next turn began the second turn."""
    session = new_game(base, ["Ada", "Ben"], tricks=True)
    post(base, session, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, 800, 480)
    page.click("#ds-reverse")
    four = page.locator("#ds-four")
    expect(four).to_have_attribute("aria-disabled", "true")
    tap_anyway(four)
    toast = page.locator("#toast")
    expect(toast).to_contain_text("Ada goes again (the carousel): tap Next turn to begin that turn first.")
    expect(toast.locator(".rule-tag")).to_have_text("rule S11")
    page.click("#ds-next")
    expect(four).not_to_have_attribute("aria-disabled", "true")
    page.click("#ds-four")
    page.click("#ds-next")
    expect(page.locator("#ds-pending .ds-tile-detail")).to_contain_text("Ben faces it")


def test_a_refused_tap_shows_the_rule_as_a_tag(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "four"}, {"type": "next_turn"})
    deaf = open_page()  # this page stops hearing the table
    deaf.route("**/stream", lambda route: route.abort())
    without_seq(deaf)
    deaf.goto(f"{base}/play/{session['id']}")
    expect(deaf.locator("#ds-draw-pending")).to_have_text("Draw 2")
    post(base, session, {"type": "draw_pending"})  # another device draws the pending cards
    deaf.click("#ds-draw-pending")  # nothing is pending any more: the rules say no
    toast = deaf.locator("#toast")
    expect(toast.locator(".rule-tag")).to_have_text("rule S7", timeout=WAIT_MS)
    assert "(rule" not in toast.inner_text() and toast.get_attribute("data-kind") == "error"
    assert state(base, session)["state"]["trouble_pile"]["left"] == 16  # drawn once


def test_a_disabled_tracker_explains_itself(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "starter", "player": "Ben"})
    page = open_game(open_page, base, session)
    tap_anyway(page.locator("#ds-reverse"))
    expect(page.locator("#toast")).to_have_text(re.compile("Only the trick carousel reverses the direction"))
    tap_anyway(page.locator("#ds-cards [data-value='5']"))
    expect(page.locator("#toast")).to_contain_text("4 from a hand")
    assert state(base, session)["seq"] == 1  # nothing was sent


def test_play_waits_for_the_rounds_trick(open_page: Callable[..., Any], base: str) -> None:
    """With tricks in play, the trackers wait until the round's trick is revealed, and say so (ruling S9)."""
    session = new_game(base, ["Ada", "Ben"], tricks=True)
    post(base, session, {"type": "starter", "player": "Ben"})
    page = open_game(open_page, base, session)
    tap_anyway(page.locator("#ds-next"))
    expect(page.locator("#toast")).to_contain_text("Reveal round 1's trick first.")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule S9")
    assert state(base, session)["seq"] == 1  # nothing was sent
    post(base, session, {"type": "trick", "trick": "surprise"})
    expect(page.locator("#ds-next")).not_to_have_attribute("aria-disabled", "true")
    page.click("#ds-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")


def test_the_final_screen_ranks_the_fewest_lost_first_with_a_chart(open_page: Callable[..., Any], base: str) -> None:
    session = finished_game(base)
    page = open_game(open_page, base, session)
    expect(page.locator("#final")).to_be_visible()
    expect(page.locator("#winners .winner")).to_have_text("Ada")
    # why, right under the winner, above the fold: the table's totals alone would not say the fewest win
    expect(page.locator("#final-why")).to_have_text(
        "The fewest coins lost win. Ben and Cleo lost 21 or more, which ended the game.")
    in_view(open_game(open_page, base, session, 800, 480), "#final-why")  # on the kiosk too
    expect(page.locator("#totals li").first).to_have_attribute("data-player", "Ada")
    totals = [li.get_attribute("data-player") for li in page.locator("#totals li").all()]
    assert totals == ["Ada", "Ben", "Cleo"]
    expect(page.locator("#breakdown tbody tr")).to_have_count(4)
    assert page.locator("#breakdown tfoot td").all_inner_texts() == ["8", "21", "23"]
    chart = page.locator("#ds-final-chart")
    expect(chart.locator("polyline")).to_have_count(3)
    expect(chart.locator(".ds-limit")).to_have_count(1)
    assert len(chart.locator("[data-player='Cleo'] polyline").get_attribute("points").split()) == 5


def test_a_tie_for_the_fewest_at_the_limit_plays_one_more_round(open_page: Callable[..., Any], base: str) -> None:
    # ruling S4: Ben passes 21, Ada and Cleo tie for the fewest: the game goes on
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"})
    for _ in range(3):
        post(base, session, {"type": "went_out", "player": "Ada"}, {"type": "coins", "player": "Ben", "coins": 10},
             {"type": "coins", "player": "Cleo", "coins": 0})
    page = open_game(open_page, base, session)
    expect(page.locator("#ds-last")).to_contain_text(
        "Ben has lost 21 or more, but Ada and Cleo tie for the fewest (0): one more round.")  # named, not "someone"
    expect(page.locator("#final")).to_be_hidden()
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")  # S5: who lost the most starts
    expect(page.locator("#turn .phrase")).to_have_text("starts: lost the most last round")
    # a round in which all lost the same: the next clockwise after the last starter, and said so
    post(base, session, {"type": "went_out", "player": "Ben"}, {"type": "coins", "player": "Ada", "coins": 0},
         {"type": "coins", "player": "Cleo", "coins": 0})
    expect(page.locator("#turn .phrase")).to_have_text(
        "starts: all lost the same (nothing), the next clockwise after Ben", use_inner_text=True, timeout=WAIT_MS)


def test_a_round_s_loss_reads_as_words_with_golden_feathers(open_page: Callable[..., Any], base: str) -> None:
    """Under golden feathers each 8 held gives a coin back (S3): a player who held more 8s than coins gets coins back,
    and the page says so, in the coin row and in the round's summary; none lost reads "loses nothing", not "−0"."""
    session = new_game(base, ["Ada", "Ben", "Cleo", "Dan"], tricks=True)
    post(base, session, {"type": "trick", "trick": "golden_feathers"}, {"type": "starter", "player": "Ada"},
         {"type": "went_out", "player": "Ben"}, {"type": "coins", "player": "Ada", "coins": 0, "eights": 2},
         {"type": "coins", "player": "Cleo", "coins": 0, "eights": 0})
    page = open_game(open_page, base, session, 390, 844)
    expect(page.locator("#ds-coins [data-player='Ada']")).to_contain_text("0 coins, 2 eights → gets 2 back")
    expect(page.locator("#ds-coins [data-player='Cleo']")).to_contain_text("0 coins, 0 eights → loses nothing")
    post(base, session, {"type": "coins", "player": "Dan", "coins": 5, "eights": 1})
    last = page.locator("#ds-last")
    expect(last).to_contain_text("Ada gets 2 back (for the 8s), Cleo loses nothing, Dan loses 4 (5, less 1 for the "
                                 "8s).", timeout=WAIT_MS)
    expect(last).not_to_contain_text("−")
    assert state(base, session)["scores"] == {"Ada": -2, "Ben": 0, "Cleo": 0, "Dan": 4}


def test_a_reason_shown_before_a_tap_the_game_took_is_taken_down(open_page: Callable[..., Any], base: str) -> None:
    """A disabled tracker says why it cannot be tapped; the next tap the game takes makes that reason stale, and it
    goes at once, not when its time is up (the page's clock stands still here, so only the tap can take it down)."""
    session = new_game(base, ["Ada", "Ben"], tricks=True)
    post(base, session, {"type": "trick", "trick": "goblins_against_dragons"}, {"type": "starter", "player": "Ada"})
    page = still_page(open_page, base, session)  # no timer of the page fires from here on
    tap_anyway(page.locator("#ds-draw-pending"))
    toast = page.locator("#toast")
    expect(toast).to_have_text("No draw is pending: a 4 makes one.")
    with page.expect_response(lambda r: r.url.endswith("/events")) as answer:
        page.click("#ds-draw")
    assert answer.value.status == 200
    expect(toast).to_be_hidden()
    assert state(base, session)["state"]["trouble_pile"]["drawn"] == 1


def test_a_burned_pile_refused_keeps_the_cards_tapped_in(open_page: Callable[..., Any], base: str) -> None:
    """A Fire-Breather's burned pile entered while Ben faces a pending draw is refused (S7). The panel stayed, its
    marks drawn, but dead: the next tap closed it and the cards tapped in were lost. It stays as it was, and once the
    pending draw is drawn, the same panel is counted."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "four"}, {"type": "next_turn"})
    page = open_game(open_page, base, session, 800, 480)
    page.click("#ds-burned")
    for value in ("fire_breather", "9"):
        page.click(f"#ds-cards [data-value='{value}']")
    page.click("#ds-burn-fire")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule S7")
    expect(page.locator("#ds-cards-actions")).to_contain_text("Tap each burned card: 2 cards")
    expect(page.locator("#ds-cards [data-value='9'] .ds-add")).to_have_text("+1")
    post(base, session, {"type": "draw_pending", "player": "Ben"})
    expect(page.locator("#ds-pending .ds-tile-value")).to_have_text("0", timeout=WAIT_MS)
    page.click("#ds-cards [data-value='9']")  # the panel still counts: a second 9
    page.click("#ds-burn-fire")
    expect(page.locator("#ds-cards-sum")).to_have_text("this round: 3", timeout=WAIT_MS)
    out = state(base, session)["state"]["cards_out_round"]
    assert (out["fire_breather"], out["9"]) == (1, 2)


def test_back_while_cards_are_tapped_in_cancels_that_and_stays(open_page: Callable[..., Any], base: str) -> None:
    """The phone's Back after "4 from a hand" (the page waiting for the four cards' value), or on "Who played their
    last card?", left the game: it cancels that, as ✕ or Cancel does, and the game stays; nothing is counted."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, 390, 844)
    game_url = page.url
    for opening in ("#ds-set-out", "#ds-burned"):
        page.click(opening)
        expect(page.locator("#ds-cards")).not_to_have_attribute("data-mode", "show")
        page.go_back()
        expect(page.locator("#ds-cards")).to_have_attribute("data-mode", "show")
        assert page.url == game_url
    page.click("#ds-went-out-open")  # "Who played their last card?"
    expect(page.locator("#ds-went-out")).to_be_visible()
    page.go_back()
    expect(page.locator("#ds-went-out")).to_have_count(0)
    expect(page.locator("#ds-next")).to_be_visible()
    assert page.url == game_url
    assert state(base, session)["seq"] == session["seq"] + 1  # the starter only


def test_of_two_players_the_carousel_gives_a_second_turn(open_page: Callable[..., Any], base: str) -> None:
    """The rulebook's 7: "If two are playing, the active player takes a second turn." Reversing two players' order
    changes nothing, and Next turn gave the turn to the other player."""
    session = new_game(base, ["Ada", "Ben"], tricks=True)
    post(base, session, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, 800, 480)
    page.click("#ds-reverse")
    expect(page.locator("#ds-direction .ds-tile-detail")).to_have_text("Ada goes again: the carousel, of two players")
    page.click("#ds-next")
    expect(page.locator("#ds-direction .ds-tile-detail")).to_have_text("Ada → Ben")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    tap_again(page, "#ds-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    assert state(base, session)["state"]["turn"] == "Ben"


def test_the_trackers_buttons_keep_their_words_whole_on_a_phone(open_page: Callable[..., Any], base: str) -> None:
    """On a 390 px phone the pending draw's "Defender" read "Defend" over "er"."""
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, 390, 844)
    expect(page.locator("#ds-defend-pending")).to_have_text("Defender")
    assert page.evaluate(BROKEN_WORDS, ".ds-tile-buttons .btn") == [], "a word broken inside itself"


def test_a_number_typed_when_the_companion_cannot_be_reached_is_shown_again(open_page: Callable[..., Any],
                                                                             base: str) -> None:
    """Coins typed and OK tapped while the companion could not be reached: the message said nothing was changed, the
    keypad closed, and the number was gone. The same keypad, opened again, shows it."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ben"})
    page = open_page(390, 844)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.context.set_offline(True)
    page.click("#ds-coins [data-coins='Ada']")
    keypad(page, 7)
    expect(page.locator("#toast")).to_contain_text("cannot be reached")
    assert state(base, session)["state"]["current"]["coins"]["Ada"] is None  # nothing changed
    page.context.set_offline(False)
    page.click("#ds-coins [data-coins='Ada']")
    expect(page.locator("#keypad-value")).to_have_text("7")
    page.click("#keypad-ok")
    expect(page.locator("#ds-coins [data-player='Ada']")).to_contain_text("loses 7")
    page.click("#ds-coins [data-coins='Cleo']")  # a number sent: the next keypad starts empty
    expect(page.locator("#keypad-value")).to_have_text("–")

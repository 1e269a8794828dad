"""The kiosk in headless Chromium: start a game by tap, play rounds, see them live elsewhere, fit every screen."""
from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    CONTRAST,
    KIOSK,
    NOT_COUNTED,
    SMALL_TARGETS,
    WAIT_MS,
    fits,
    in_view,
    post_events,
    shoot,
    start_game,
    tap_again,
    tap_anyway,
    without_seq,
)
from tests.servers import call, serving
from web.kiosk import plain_ago, plain_started

DIEGO = "diego-drachenzahn"
SCREENS = [(800, 480), (1024, 600), (1280, 800), (768, 1024), (1024, 768), (390, 844)]

def new_game(base: str, players: list[str], **options: Any) -> dict[str, Any]:
    return start_game(base, DIEGO, players, **options)


def score(page: Any, player: str) -> str:
    return page.locator(f"#scoreboard [data-player='{player}'] .score").inner_text()


def type_name(page: Any, name: str) -> None:
    """Type `name` on the on-screen keyboard, switching to the accents where a letter needs them."""
    for ch in name:
        key = page.locator("#kb-keys button", has_text=re.compile(f"^{re.escape(ch)}$"))
        if key.count() == 0:
            page.click("[aria-label='accents']")
            key = page.locator("#kb-keys button", has_text=re.compile(f"^{re.escape(ch)}$"))
            key.click()
            page.click("[aria-label='accents']")  # back to the letters ("abc")
        else:
            key.click()


def add_player(page: Any, name: str) -> None:
    page.click("#add-player")
    type_name(page, name)
    expect(page.locator("#kb-input")).to_have_value(name)
    page.click("#kb-ok")
    expect(page.locator(f"#seats li[data-player='{name}']")).to_be_visible(timeout=WAIT_MS)  # saved, then seated


def choose_diego(page: Any, base: str, *names: str) -> None:
    """The home page with Diego Drachenzahn chosen and `names` typed in and seated, one after the other."""
    page.goto(base + "/")
    page.click("[data-game='diego-drachenzahn']")
    for name in names:
        add_player(page, name)


def quick_round(page: Any, marbles: list[int], token: int, turned: dict[str, Any], check: bool = False) -> None:
    """A quick-scored round by tap: the marbles, the token, then what each other player turned over."""
    for count, gate in enumerate(marbles, start=1):
        if check:
            in_view(page, f"#marble-pad [data-gate='{gate}']")
        page.click(f"#marble-pad [data-gate='{gate}']")
        expect(page.locator("#slots .slot.filled")).to_have_count(count, timeout=WAIT_MS)
    if check:
        in_view(page, f"#reveal-pad [data-gate='{token}']")
    tap_again(page, f"#reveal-pad [data-gate='{token}']")  # maybe where the last marble's tap landed
    page.wait_for_selector("#turned-step:not([hidden])")
    for player, what in turned.items():
        selector = (f"#turned [data-player='{player}'] [data-correct='{str(what).lower()}']" if isinstance(what, bool)
                    else f"#turned [data-player='{player}'] [data-gate='{what}']")
        if check:
            in_view(page, selector)
        tap_again(page, selector)  # a button drawn maybe where the last tap landed: read first, as a person would
        page.wait_for_selector(f"#turned [data-player='{player}'].done, #turned-step[hidden]", state="attached")


# ---- pages without a browser ------------------------------------------------------------------------------------

def test_when_last_played_in_plain_words() -> None:
    now = time.mktime((2026, 3, 10, 18, 0, 0, 0, 0, -1))
    assert plain_ago(now - 10, now) == "a moment ago"
    assert plain_ago(now - 300, now) == "5 minutes ago"
    assert plain_ago(now - 3 * 3600, now) == "3 hours ago"
    assert plain_ago(now - 20 * 3600, now) == "yesterday"
    assert plain_ago(now - 3 * 86400, now) == "3 days ago"
    assert plain_ago(now - 40 * 86400, now).startswith("on ")


def test_when_a_game_started_in_plain_words() -> None:
    now = time.mktime((2026, 3, 10, 18, 0, 0, 0, 0, -1))
    assert plain_started(now - 3 * 3600 - 300, now) == "14:55"  # today: the time of day
    assert plain_started(now - 20 * 3600, now) == "on 9 March"
    assert plain_started(now - 400 * 86400, now) == "on 3 February 2025"


def test_a_game_page_is_found_by_the_game_id(client: Any, app: Flask) -> None:
    view = client.post("/api/sessions", json={"game": DIEGO, "players": ["Ada", "Ben"]}).get_json()
    page = client.get(f"/play/{view['id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "games/diego-drachenzahn.js" in html and 'id="session-data"' in html
    assert "<script>" not in html and " onclick=" not in html  # no inline script (a CSP script-src 'self')
    assert client.get("/play/999").status_code == 404


# ---- starting and playing -----------------------------------------------------------------------------------

def test_start_a_game_by_tap_and_play_a_quick_round_seen_live_elsewhere(open_page: Callable[..., Any],
                                                                        base: str) -> None:
    page = open_page()
    choose_diego(page, base, "Ada", "Ben", "Cleo")
    seated = page.locator("#seats li").all_inner_texts()
    assert [" ".join(t.split()) for t in seated] == ["1 Ada starts", "2 Ben", "3 Cleo"]
    # Ben's colour by tap, remembered with his name
    page.click("[aria-label='Colour for Ben']")
    page.click("#palette [aria-label='pink']")
    expect(page.locator("#seats li[data-player='Ben'] .colour")).to_have_attribute("data-colour", "#E088BD")
    # gate 1 gets the moon: gate 2 (the moon) takes the sun in exchange, names follow the symbols
    page.click("#gate-options [data-gate-option='1']")
    page.click("#symbol-choice [data-symbol='moon']")
    expect(page.locator("#gate-options [data-gate-option='1']")).to_have_text("Moon")
    expect(page.locator("#gate-options [data-gate-option='2']")).to_have_text("Sun")
    page.click("#start")
    page.wait_for_url("**/play/*")
    _, view = call(f"{base}/api/sessions/{page.url.rsplit('/', 1)[1]}")
    assert view["colours"]["Ben"].lower() == "#e088bd"
    assert view["state"]["gate_symbols"][:2] == ["moon", "sun"] and view["state"]["gate_names"][:2] == ["Moon", "Sun"]
    _, known = call(f"{base}/api/players")
    assert {p["name"]: p["colour"] for p in known["players"]}["Ben"].lower() == "#e088bd"

    other = open_page(768, 1024)
    other.goto(page.url)
    expect(other.locator("#reveal-pad [data-gate='1']")).to_contain_text("Moon")
    assert score(other, "Ada") == "0"
    quick_round(page, marbles=[2, 2, 5], token=2, turned={"Ben": 2, "Cleo": False})
    expect(other.locator("#scoreboard [data-player='Ada'] .score")).to_have_text("2", timeout=WAIT_MS)
    assert {p: score(other, p) for p in ("Ada", "Ben", "Cleo")} == {"Ada": "2", "Ben": "1", "Cleo": "0"}
    expect(other.locator("#turn .turn-name")).to_have_text("Ben")  # the next active player, clockwise
    # the home page remembers the gates for the next game
    choose_diego(page, base)
    expect(page.locator("#gate-options [data-gate-option='1']")).to_have_text("Moon")


def test_the_seats_say_who_starts_as_the_chosen_game_has_it(open_page: Callable[..., Any], base: str) -> None:
    """Seat 1 starts a Diego game; Drachensachen's first starter is chosen at the table once it begins (ruling S5),
    and the form says so rather than marking seat 1."""
    page = open_page()
    choose_diego(page, base, "Ada", "Ben")
    expect(page.locator("#seat-hint")).to_have_text("tap in seat order, clockwise; the first starts")
    expect(page.locator("#seats li[data-seat='1'] small")).to_have_text("starts")
    page.click("#game-choice [data-game='drachensachen']")
    expect(page.locator("#seat-hint")).to_have_text(
        "tap in seat order, clockwise; who starts is chosen at the table once the game begins")
    expect(page.locator("#seats li small")).to_have_count(0)
    page.click("#game-choice [data-game='diego-drachenzahn']")
    expect(page.locator("#seats li[data-seat='1'] small")).to_have_text("starts")


def test_a_newcomer_gets_no_colour_near_one_at_the_table(open_page: Callable[..., Any], base: str) -> None:
    """Ivo (sky blue) is seated; orange, green and yellow are regulars' own. A newcomer got the palette's blue, hard
    to tell from sky blue across the table: she gets a colour well apart from every seated one."""
    for name, colour in (("Hana", "#E69F00"), ("Ivo", "#56B4E9"), ("Jiri", "#00B386"), ("Kata", "#F0E442")):
        call(f"{base}/api/players", {"name": name, "colour": colour})
    page = open_page()
    page.goto(base + "/")
    page.click("#game-choice [data-game='diego-drachenzahn']")
    page.click("#player-pool [data-player='Ivo']")
    add_player(page, "Lena")
    lena = (page.locator("#seats li[data-player='Lena'] .colour").get_attribute("data-colour") or "").upper()
    # nor blue, near sky blue, nor vermilion, near Hana's orange
    assert lena not in ("#E69F00", "#56B4E9", "#00B386", "#F0E442", "#4C8DFF", "#E4630D"), lena
    page.click("#player-pool [data-player='Hana']")  # a regular seated after her keeps her own
    expect(page.locator("#seats li[data-player='Hana'] .colour")).to_have_attribute("data-colour", "#E69F00")


def test_a_newcomer_seated_first_takes_no_regulars_colour(open_page: Callable[..., Any], base: str) -> None:
    """Hana's colour is orange, the palette's first. A newcomer seated before her gets another colour, not
    hers, so she keeps orange at Start and no two players share a colour."""
    call(f"{base}/api/players", {"name": "Hana", "colour": "#E69F00"})
    call(f"{base}/api/players", {"name": "Ivo", "colour": "#56B4E9"})
    page = open_page()
    choose_diego(page, base, "Jana")
    page.click("#player-pool [data-player='Hana']")
    page.click("#player-pool [data-player='Ivo']")
    expect(page.locator("#seats li[data-player='Hana'] .colour")).to_have_attribute("data-colour", "#E69F00")
    jana = page.locator("#seats li[data-player='Jana'] .colour").get_attribute("data-colour")
    assert jana.upper() not in ("#E69F00", "#56B4E9")
    page.click("#start")
    page.wait_for_url("**/play/*")
    _, known = call(f"{base}/api/players")
    colours = {p["name"]: (p["colour"] or "").upper() for p in known["players"]}
    assert colours["Hana"] == "#E69F00" and colours["Ivo"] == "#56B4E9" and colours["Jana"] == jana.upper()


def test_face_down_guesses_and_a_disabled_button_explains_itself(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"], face_down=True)
    page = open_page()
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.click("#menu-button")
    expect(page.locator("#facedown")).to_have_text("Guesses are held face down in this game (chosen at its start).")
    page.click("#menu-close")
    for _ in range(3):
        page.click("#marble-pad [data-gate='3']")
    expect(page.locator("#slots .slot.filled")).to_have_count(3, timeout=WAIT_MS)
    reveal = page.locator("#reveal-pad [data-gate='3']")
    expect(reveal).to_have_attribute("aria-disabled", "true")
    tap_anyway(reveal)  # it looks disabled, yet a tap says why
    expect(page.locator("#toast")).to_have_text("Reveal: waiting for Ben's guess.")
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["state"]["history"] == []  # the tap changed nothing
    page.click("#guesses [data-player='Ben'] [data-gate='3']")
    page.wait_for_selector("#guesses [data-player='Ben'] .guessed")
    assert "3" not in page.locator("#guesses [data-player='Ben']").inner_text()  # the guess stays face down
    page.click("#reveal-pad [data-gate='3']")
    expect(page.locator("#scoreboard [data-player='Ada'] .score")).to_have_text("3", timeout=WAIT_MS)
    assert score(page, "Ben") == "1"


def test_a_reason_shown_while_a_tap_is_under_way_stays_once_its_answer_comes(open_page: Callable[..., Any],
                                                                           base: str) -> None:
    """A disabled button tapped while a marble's tap was still on its way: its reason showed, then the marble's
    answer took it down at once (a refusal shown before a tap no longer stands once the tap is taken, but this reason
    came after it). The page hears no stream here, so only the answer draws the third marble."""
    session = new_game(base, ["Ada", "Ben"], face_down=True)
    post_events(base, session, {"type": "marble", "gate": 3}, {"type": "marble", "gate": 3})
    page = open_page()
    page.route("**/stream", lambda route: route.abort())
    held: list[Any] = []
    page.route("**/api/sessions/*/events", lambda route: held.append(route))
    page.clock.install()
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.clock.pause_at(time.time() + 3600)  # from here on no timer of the page runs: the toast stays up
    expect(page.locator("#slots .slot.filled")).to_have_count(2)
    page.click("#marble-pad [data-gate='3']")
    for _ in range(200):  # until the marble's request is held (each wait lets Playwright hand it to the route)
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    reveal = page.locator("#reveal-pad [data-gate='3']")
    tap_anyway(reveal)
    expect(page.locator("#toast")).to_have_text("Reveal: waiting for Ben's guess.")
    page.unroute("**/api/sessions/*/events")
    held[0].continue_()
    expect(page.locator("#slots .slot.filled")).to_have_count(3, timeout=WAIT_MS)  # drawn from the answer
    expect(page.locator("#toast")).to_have_text("Reveal: waiting for Ben's guess.")
    assert page.locator("#toast").is_visible()


def test_face_down_with_four_players_keeps_the_token_on_the_small_screen(open_page: Callable[..., Any],
                                                                        base: str) -> None:
    """At 800x480 the guess rows show the gates' symbols alone, and a guess in is a line of text: once every guess
    is in, the token's row is on the screen without scrolling, its marbles not yet rolled."""
    session = new_game(base, ["Anna", "Ben", "Cora", "Dieter"], face_down=True)
    page = open_page(800, 480)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    fits(page, "the face-down guesses")
    expect(page.locator("#guesses [data-player='Ben'] [data-gate='2']")).to_have_attribute("aria-label", "2: Gate 2")
    for player, gate in (("Ben", 2), ("Cora", 4), ("Dieter", 2)):
        page.click(f"#guesses [data-player='{player}'] [data-gate='{gate}']")
        page.wait_for_selector(f"#guesses [data-player='{player}'] .guessed")
    in_view(page, "#reveal-pad [data-gate='6']")


def test_a_token_tapped_before_three_marbles_asks_whether_the_rest_missed(open_page: Callable[..., Any],
                                                                         base: str) -> None:
    """Marbles not recorded count as missed (ruling D4): a tap on the token too early, a marble still rolling,
    asks first, and waiting sends nothing."""
    session = new_game(base, ["Ada", "Ben"])
    post_events(base, session, {"type": "marble", "gate": 3})
    page = open_page(800, 480)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.click("#reveal-pad [data-gate='3']")
    expect(page.get_by_text("Only 1 of 3 marbles recorded.")).to_be_visible()
    page.click("[data-answer='no']")  # "Wait for the marbles"
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["seq"] == 1 and view["state"]["current"]["token"] is None
    page.click("#marble-pad [data-gate='3']")
    expect(page.locator("#slots .slot.filled")).to_have_count(2, timeout=WAIT_MS)
    page.click("#reveal-pad [data-gate='3']")
    expect(page.get_by_text("Only 2 of 3 marbles recorded.")).to_be_visible()
    page.click("[data-answer='yes']")  # "Reveal: 1 missed"
    expect(page.locator("#turned [data-player='Ben']")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#slots .slot").nth(2)).to_have_text("missed")  # the third slot says so, no longer "–"
    expect(page.locator("#slots .slot").nth(2)).to_have_class(re.compile(r"\bmiss\b"))
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["state"]["current"]["token"] == 3


def test_the_marbles_line_says_what_is_true_and_a_wrong_guess_is_marked_apart(open_page: Callable[..., Any],
                                                                               base: str, app: Flask) -> None:
    players = ["Ada", "Ben", "Cleo", "Dan"]
    missed, reported, played = (new_game(base, players) for _ in range(3))
    post_events(base, missed, {"type": "marble", "gate": 2}, {"type": "marble", "gate": None},
                {"type": "marble", "gate": 2})
    for _ in range(4):  # the beams report a fourth marble (ruling D4)
        app.extensions["table"].submit(reported["id"], {"type": "marble", "gate": 3}, source="sensor")
    post_events(base, played, *({"type": "marble", "gate": 3} for _ in range(3)))
    page = open_page(800, 480)
    hints = {}
    for name, session in (("missed", missed), ("reported", reported), ("played", played)):
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        hints[name] = page.locator("#marble-hint").inner_text()
    assert hints == {"missed": "3 marbles rolled: 2 in gates, 1 missed",
                     "reported": "4 marbles recorded: the round waits for the check above",
                     "played": "3 marbles in gates"}
    # the token shows gate 3: Ben turned over the gate 3 symbol (right), Cleo gate 4 (wrong)
    page.click("#reveal-pad [data-gate='3']")
    page.click("#turned [data-player='Ben'] [data-gate='3']")
    page.click("#turned [data-player='Cleo'] [data-gate='4']")
    right = page.locator("#turned [data-player='Ben'] .guessed")
    wrong = page.locator("#turned [data-player='Cleo'] .guessed")
    expect(wrong).to_have_attribute("data-result", "wrong")
    expect(right).to_have_attribute("data-result", "right")
    assert right.inner_text().startswith("✓") and right.inner_text().endswith("right")  # by mark and word
    assert wrong.inner_text().startswith("✗") and wrong.inner_text().endswith("wrong")
    colour = "(el) => getComputedStyle(el).color"
    assert right.evaluate(colour) != wrong.evaluate(colour)  # and by colour too
    page.click("#turned [data-player='Dan'] [data-correct='false']")
    last = page.locator("#last-round")
    expect(last).to_contain_text("Round 1: the token showed")
    expect(last.locator("[data-player='Cleo'] .verdict")).to_have_text(re.compile(r"^✗ .*wrong$"))
    expect(last.locator("[data-player='Ben'] .verdict")).to_have_text(re.compile(r"^✓ .*right$"))
    expect(last.locator("[data-player='Dan'] .verdict")).to_have_text("✗  wrong")


def test_face_down_is_the_games_choice_and_every_screen_follows_it(open_page: Callable[..., Any],
                                                                     base: str) -> None:
    kiosk = open_page()
    choose_diego(kiosk, base, "Ada", "Ben", "Cleo")
    choice = kiosk.get_by_role("button", name="Hold guesses face down")
    expect(choice).to_have_attribute("aria-pressed", "false")  # quick scoring unless the table chooses it
    expect(choice.locator(".switch-state")).to_have_text("Off")  # said in words, not by its colour alone
    assert choice.locator(".switch-state").evaluate(CONTRAST) >= 4.5
    choice.click()
    expect(choice.locator(".switch-state")).to_have_text("On")
    assert choice.locator(".switch-state").evaluate(CONTRAST) >= 4.5  # "On" was grey on the green, about 1:1
    kiosk.click("#start")
    kiosk.wait_for_url("**/play/*")
    kiosk.wait_for_selector("body[data-ready='yes']")
    sid = kiosk.url.rsplit("/", 1)[1]
    _, view = call(f"{base}/api/sessions/{sid}")
    assert view["options"]["face_down"] is True and view["state"]["face_down"] is True
    tablet = open_page(768, 1024)  # a second screen, which never chose anything itself
    tablet.goto(kiosk.url)
    tablet.wait_for_selector("#live:text-is('live')")
    for page in (kiosk, tablet):
        expect(page.locator("#guesses-step")).to_be_visible()
    for _ in range(3):
        kiosk.click("#marble-pad [data-gate='4']")
    expect(tablet.locator("#slots .slot.filled")).to_have_count(3, timeout=WAIT_MS)
    # the tablet's token buttons wait for the guesses too: a tap there says why and reveals nothing
    tap_anyway(tablet.locator("#reveal-pad [data-gate='4']"))
    expect(tablet.locator("#toast")).to_have_text("Reveal: waiting for Ben's and Cleo's guesses.")
    status, refused = call(f"{base}/api/sessions/{sid}/events", {"type": "reveal", "gate": 4})
    assert status == 422 and refused["rule"] == "D5"  # and the rules refuse it, whichever screen asks
    tablet.click("#guesses [data-player='Ben'] [data-gate='4']")
    expect(kiosk.locator("#guesses [data-player='Ben'] .guessed")).to_be_visible(timeout=WAIT_MS)
    kiosk.click("#guesses [data-player='Cleo'] [data-gate='1']")
    expect(tablet.locator("#guesses [data-player='Cleo'] .guessed")).to_be_visible(timeout=WAIT_MS)
    tablet.click("#reveal-pad [data-gate='4']")
    expect(kiosk.locator("#scoreboard [data-player='Ada'] .score")).to_have_text("3", timeout=WAIT_MS)
    assert score(kiosk, "Ben") == "1" and score(kiosk, "Cleo") == "0"
    # undo and redo of the reveal: the face-down step comes back, on both screens, and goes again
    kiosk.click("#undo")
    for page in (kiosk, tablet):
        expect(page.locator("#guesses [data-player='Cleo'] .guessed")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#reveal-pad [data-gate='4']")).not_to_have_attribute("aria-disabled", "true")
    kiosk.click("#redo")
    expect(tablet.locator("#scoreboard [data-player='Ada'] .score")).to_have_text("3", timeout=WAIT_MS)
    # the next game on this screen is quick scoring unless chosen again: nothing is kept by the device
    quick = new_game(base, ["Ada", "Ben"])
    kiosk.goto(f"{base}/play/{quick['id']}")
    kiosk.wait_for_selector("body[data-ready='yes']")
    expect(kiosk.locator("#guesses-step")).to_be_hidden()
    expect(kiosk.locator("#reveal-pad [data-gate='1']")).not_to_have_attribute("aria-disabled", "true")


def test_undo_announces_what_it_undid_and_a_stale_tap_gets_a_plain_message(open_page: Callable[..., Any],
                                                                           base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    page = open_page()
    page.goto(f"{base}/play/{session['id']}")
    expect(page.locator("#undo")).to_have_attribute("aria-disabled", "true")
    tap_anyway(page.locator("#undo"))
    expect(page.locator("#toast")).to_have_text("Nothing to undo yet.")
    # the message is to read, not to tap: a tap where it stands reaches what is under it (on a phone, a button)
    under = page.evaluate("""() => { const r = document.querySelector('#toast').getBoundingClientRect();
        return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)?.closest('#toast') ?? null; }""")
    assert under is None
    page.click("#marble-pad [data-gate='4']")
    page.wait_for_selector("#slots .slot.filled")
    post_events(base, session, {"type": "marble", "gate": 1})  # another device
    expect(page.locator("#slots .slot.filled")).to_have_count(2, timeout=WAIT_MS)
    page.click("#undo")
    expect(page.locator("#toast")).to_contain_text("Undid: marble in gate 1")
    expect(page.locator("#slots .slot.filled")).to_have_count(1)
    page.click("#redo")
    expect(page.locator("#toast")).to_contain_text("Redid: marble in gate 1")
    expect(page.locator("#slots .slot.filled")).to_have_count(2)

    # This page stops hearing the table; a change elsewhere makes its next tap stale.
    deaf = open_page()
    deaf.route("**/stream", lambda route: route.abort())
    deaf.goto(f"{base}/play/{session['id']}")
    post_events(base, session, {"type": "marble", "gate": 2})
    deaf.click("#undo")  # would undo the marble this page never saw
    expect(deaf.locator("#toast")).to_have_text(NOT_COUNTED, timeout=WAIT_MS)
    assert "seq" not in deaf.locator("#toast").inner_text()
    expect(deaf.locator("#slots .slot.filled")).to_have_count(3)  # shows the fresh state instead
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["state"]["current"]["marbles"] == [4, 1, 2]  # the stale undo changed nothing


def test_an_undo_on_one_device_is_announced_on_the_other(open_page: Callable[..., Any], base: str) -> None:
    """The tablet undoes a marble: the kiosk, whose screen changes under the family's eyes, says what was undone."""
    session = new_game(base, ["Ada", "Ben"])
    post_events(base, session, {"type": "marble", "gate": 4})
    kiosk, tablet = open_page(800, 480), open_page(390, 844)
    for page in (kiosk, tablet):
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("#live:text-is('live')")
        expect(page.locator("#slots .slot.filled")).to_have_count(1)
    tablet.click("#undo")
    expect(tablet.locator("#toast")).to_contain_text("Undid: marble in gate 4")
    expect(kiosk.locator("#slots .slot.filled")).to_have_count(0)
    expect(kiosk.locator("#toast")).to_contain_text("Undid: marble in gate 4")
    tablet.click("#redo")
    expect(kiosk.locator("#toast")).to_contain_text("Redid: marble in gate 4")
    expect(kiosk.locator("#slots .slot.filled")).to_have_count(1)


def test_a_refused_tap_says_why_in_plain_words_with_the_rule_as_a_tag(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    for event in ({"type": "marble", "gate": 1},) * 3 + ({"type": "reveal", "gate": 1},):
        post_events(base, session, event)
    deaf = open_page()  # this page stops hearing the table
    deaf.route("**/stream", lambda route: route.abort())
    without_seq(deaf)
    deaf.goto(f"{base}/play/{session['id']}")
    deaf.wait_for_selector("#turned-step:not([hidden])")
    post_events(base, session, {"type": "turned", "player": "Ben", "gate": 1})  # another device enters Ben's symbol
    deaf.click("#turned [data-player='Ben'] [data-gate='2']")  # Ben cannot turn over twice: the rules say no
    toast = deaf.locator("#toast")
    expect(toast.locator(".rule-tag")).to_have_text(re.compile(r"^rule D\d+$"), timeout=WAIT_MS)
    assert "(rule" not in toast.inner_text() and toast.get_attribute("data-kind") == "error"
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["state"]["current"]["guesses"]["Ben"] == 1  # unchanged


# ---- numbers and names ----------------------------------------------------------------------------------------

def test_options_are_checked_on_the_page_with_a_keypad(open_page: Callable[..., Any], base: str) -> None:
    page = open_page()
    choose_diego(page, base)
    for _ in range(4):
        page.click("[aria-label='more Rounds per player']")
    expect(page.locator("#opt-rounds_per_player")).to_have_text("6")
    expect(page.locator("#toast")).to_contain_text("from 1 to 6")
    page.click("#opt-rounds_per_player")
    page.click("#keypad-keys button:text-is('9')")
    page.click("#keypad-ok")
    expect(page.locator("#toast")).to_have_text("Rounds per player: from 1 to 6.")
    expect(page.locator("#keypad-value")).to_be_visible()  # the keypad stays for a better number
    page.click("#keypad-keys button:text-is('2')")  # a new number, not "92"
    expect(page.locator("#keypad-value")).to_have_text("2")
    page.click("#keypad-ok")
    expect(page.locator("#opt-rounds_per_player")).to_have_text("2")
    expect(page.locator("#start")).to_be_disabled()  # no players seated yet
    page.click("#start", force=True)
    expect(page.locator("#toast")).to_contain_text("seat 2 to 4 players")


KEYBOARD_LAYERS = {"letters": ["qwertzuiop", "asdfghjkl", "yxcvbnm"], "digits": ["1234567890"],
                   "accents": ["äöüßéèáà", "íóúýčřšž", "ěůňťďñçł"]}

#: The on-screen keyboard's rows as drawn: [[text, top, bottom, left, right, width, height] per key] per row.
KEYBOARD_GEOMETRY = """() => [...document.querySelectorAll('#kb-keys .key-row, #kb-keys ~ .controls')].map((row) =>
    [...row.querySelectorAll('button')].map((key) => { const r = key.getBoundingClientRect();
        return [key.textContent, r.top, r.bottom, r.left, r.right, r.width, r.height]; }))"""


def keyboard_rows(page: Any) -> list[str]:
    """The keyboard's rows as a person reads them, each checked to be one row on the screen: its keys side by side
    on one line, in order, none under 48 px high nor under 30 px wide (a phone's own keys), and no other tap target
    under 48 px; the rows one under the other, inside the screen."""
    others = SMALL_TARGETS.replace("!el.closest('[hidden]')", "!el.closest('[hidden]') && !el.closest('.keys')")
    assert others != SMALL_TARGETS and page.evaluate(others) == []
    rows = page.evaluate(KEYBOARD_GEOMETRY)
    viewport = page.viewport_size
    bottom = 0.0
    for row in rows:
        tops = {round(top) for _, top, *_ in row}
        assert len(tops) == 1, f"the keyboard row {''.join(k[0] for k in row)} wraps onto {len(tops)} lines"
        assert min(tops) >= bottom, "the keyboard's rows overlap"
        bottom = max(b for _, _, b, *_ in row)
        lefts = [left for _, _, _, left, *_ in row]
        assert lefts == sorted(lefts)
        for text, _, _, left, right, width, height in row:
            assert height >= 48 and width >= 30, f"key {text}: {width:.0f}x{height:.0f}"
            assert 0 <= left and right <= viewport["width"], f"key {text} is off the screen"
    return ["".join(text for text, *_ in row) for row in rows]


@pytest.mark.parametrize("width, height", [(390, 844), (360, 740), (800, 480)])
def test_the_keyboard_keeps_its_qwertz_rows_as_rows(open_page: Callable[..., Any], base: str, width: int,
                                                   height: int) -> None:
    """A phone keeps qwertzuiop / asdfghjkl / yxcvbnm each on one line, keys scaled down, as the kiosk does."""
    page = open_page(width, height)
    choose_diego(page, base)
    page.click("#add-player")
    page.click("[aria-label='capital']")  # lower case: the shift is on for a name's first letter
    shoot(page, f"keyboard-{width}x{height}")
    assert keyboard_rows(page) == [*KEYBOARD_LAYERS["letters"], "⇧123áč-'space⌫"]
    for layer in ("accents", "digits"):
        page.click(f"[aria-label='{layer}']")
        assert keyboard_rows(page)[:-1] == KEYBOARD_LAYERS[layer], layer
        page.click(f"[aria-label='{layer}']")
    in_view(page, "#kb-ok")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.click("[aria-label='capital']")
    type_name(page, "Quax")
    expect(page.locator("#kb-input")).to_have_value("Quax")


def test_a_name_too_long_or_already_seated_is_said_not_silently_dropped(open_page: Callable[..., Any],
                                                                         base: str) -> None:
    """A name stops at 24 letters and the keyboard says so, by its keys or the device's own; a name already at the
    table, in any case, is not seated twice and the page says who is there."""
    page = open_page(390, 844)
    choose_diego(page, base, "Ann")
    page.click("#add-player")
    type_name(page, "Maximilianalexandervonho")  # 24 letters: all taken
    expect(page.locator("#toast")).to_be_hidden()
    page.locator("#kb-keys button", has_text=re.compile("^h$")).click()
    expect(page.locator("#toast")).to_have_text("A name is at most 24 letters.")
    expect(page.locator("#kb-input")).to_have_value("Maximilianalexandervonho")
    page.click("#kb-cancel")
    page.click("#add-player")
    page.click("[aria-label='capital']")  # capitals off: "ann"
    type_name(page, "ann")
    page.click("#kb-ok")
    expect(page.locator("#toast")).to_have_text("Ann is already at the table.")
    expect(page.locator("#seats li")).to_have_count(1)


def test_the_keyboard_types_german_and_czech_names(open_page: Callable[..., Any], base: str) -> None:
    page = open_page(390, 844)
    choose_diego(page, base)
    page.click("#add-player")
    dialog = page.locator(".keyboard")
    width = page.evaluate("document.querySelector('.keyboard').getBoundingClientRect().right")
    assert width <= 390, "the keyboard is wider than a phone"
    assert keyboard_rows(page) == ["QWERTZUIOP", "ASDFGHJKL", "YXCVBNM", "⇧123ÁČ-'space⌫"]  # capitals first
    for layer in ("accents", "digits"):
        page.click(f"[aria-label='{layer}']")
        assert [row.lower() for row in keyboard_rows(page)[:-1]] == KEYBOARD_LAYERS[layer], layer
        page.click(f"[aria-label='{layer}']")
    expect(dialog.locator("[aria-label='hyphen']")).to_be_visible()
    expect(dialog.locator("[aria-label='apostrophe']")).to_be_visible()
    page.click("#kb-cancel")
    for name in ("Žofie", "Jörg"):
        add_player(page, name)
    _, known = call(f"{base}/api/players")
    assert {"Žofie", "Jörg"} <= {p["name"] if isinstance(p, dict) else p for p in known["players"]}
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


# ---- screens ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("width, height", SCREENS)
def test_every_screen_fits(open_page: Callable[..., Any], base: str, width: int, height: int) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo", "Dan"])
    finished = new_game(base, ["Ada", "Ben"], rounds_per_player=1)
    for event in ({"type": "marble", "gate": 6}, {"type": "guess", "player": "Ben", "gate": 1},
                  {"type": "reveal", "gate": 6}, {"type": "guess", "player": "Ada", "gate": 2},
                  {"type": "reveal", "gate": 1}):
        post_events(base, finished, event)
    page = open_page(width, height)
    for path in ("/", f"/play/{session['id']}", f"/play/{finished['id']}"):
        page.goto(base + path)
        page.wait_for_selector("#live:text-is('live')" if path != "/" else "#start")
        fits(page, f"{path} at {width}x{height}")
        if path != "/":
            assert page.locator("input").count() == 0  # numbers and names by tap, not text fields
            size = page.evaluate("parseFloat(getComputedStyle("
                                 "document.querySelector('#scoreboard .score, #totals .score')).fontSize)")
            assert size >= 32, f"scores are {size} px at {width}x{height}"


@pytest.mark.parametrize("width, height", [(800, 480), (390, 844)])
def test_a_whole_quick_round_by_tap_on_a_small_screen(open_page: Callable[..., Any], base: str,
                                                      width: int, height: int) -> None:
    session = new_game(base, ["Ada", "Ben", "Cleo", "Dan"])
    page = open_page(width, height)
    page.goto(f"{base}/play/{session['id']}")
    quick_round(page, marbles=[1, 3, 3], token=3, turned={"Ben": 3, "Cleo": True, "Dan": 4}, check=width == 800)
    expect(page.locator("#scoreboard [data-player='Ada'] .score")).to_have_text("2", timeout=WAIT_MS)
    assert {p: score(page, p) for p in ("Ben", "Cleo", "Dan")} == {"Ben": "1", "Cleo": "1", "Dan": "0"}
    if width == 800:
        assert page.evaluate("window.scrollY") == 0, "the round needed scrolling at 800x480"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(SMALL_TARGETS) == []


def test_whose_turn_reads_from_across_the_table(open_page: Callable[..., Any], base: str) -> None:
    call(f"{base}/api/players", {"name": "Ada"})
    call(f"{base}/api/players/Ada", {"colour": "#56B4E9"})
    session = new_game(base, ["Ada", "Ben"])
    page = open_page(1024, 600)
    page.goto(f"{base}/play/{session['id']}")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    page.wait_for_selector("body[data-live='yes']")
    # Read the element as it is now: the live stream may redraw the line (a new element) at any moment.
    style = page.evaluate("() => { const el = document.querySelector('#turn .turn-name');"
                          " const s = getComputedStyle(el); const r = el.getBoundingClientRect();"
                          " return [parseFloat(s.fontSize), r.height, s.color]; }")
    assert style[0] >= 40 and style[1] >= 40, style
    assert style[2] == "rgb(86, 180, 233)", style  # Ada's colour
    board = page.locator("#scoreboard [data-player='Ada']")
    assert "86, 180, 233" in board.evaluate("el => getComputedStyle(el).borderLeftColor")


def test_players_are_listed_in_seat_order_live_and_after_a_reload(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Cleo", "Ben", "Ada"])  # Cleo rolls; Ben then Ada turn a card over
    page = open_page(1024, 600)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-live='yes']")
    post_events(base, session, {"type": "marble", "gate": 1}, {"type": "marble", "gate": 2},
                {"type": "marble", "gate": 3}, {"type": "reveal", "gate": 2})  # live, over the stream
    rows = page.locator("#turned [data-player]")
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    assert rows.evaluate_all("els => els.map(el => el.dataset.player)") == ["Ben", "Ada"]
    page.reload()  # the page's own copy of the session
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    assert rows.evaluate_all("els => els.map(el => el.dataset.player)") == ["Ben", "Ada"]


CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:"


def test_pages_run_under_a_strict_content_security_policy(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    page = open_page()
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)

    def with_csp(route: Any) -> None:
        if route.request.resource_type != "document":
            route.fallback()
            return
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})

    page.route(f"{base}/**", with_csp)
    choose_diego(page, base)
    page.click("#add-player")  # the keyboard is built by script
    page.click("#kb-cancel")
    page.goto(f"{base}/play/{session['id']}")
    page.click("#marble-pad [data-gate='1']")
    expect(page.locator("#slots .slot.filled")).to_have_count(1, timeout=WAIT_MS)
    expect(page.locator("#turn .turn-name")).to_have_css("font-size", re.compile(r"^(4\d|[5-9]\d)(\.\d+)?px$"))
    assert refused == []


def test_the_screen_stays_awake_while_a_game_runs(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    page = open_page()
    page.add_init_script("""(() => {
        window.wakeRequests = 0;
        const lock = () => { const l = { released: false, release: async () => { l.released = true; } }; return l; };
        const request = async () => { window.wakeRequests++; window.lastLock = lock(); return window.lastLock; };
        Object.defineProperty(navigator, 'wakeLock', { value: { request } });
    })()""")
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_function("() => window.wakeRequests === 1")
    page.evaluate("() => { window.lastLock.released = true; document.dispatchEvent(new Event('visibilitychange')); }")
    page.wait_for_function("() => window.wakeRequests === 2")  # taken again when the screen comes back


def test_a_redraw_waits_for_the_finger_to_lift(open_page: Callable[..., Any], base: str) -> None:
    """The kit's hold on redraws (every game page's, the pairing lists'): none under a finger, each one owed
    after the tap, the same one once, and none held when nothing is pressed."""
    page = open_page()
    page.goto(base + "/")
    page.evaluate("""async () => {
        const kit = await import('/static/kit.js');
        window.drawn = [];
        window.owe = (name) => kit.whenUntouched(window[name] ||= () => window.drawn.push(name));
    }""")
    page.evaluate("owe('now')")
    assert page.evaluate("drawn") == ["now"]
    page.mouse.move(5, 300)
    page.mouse.down()
    page.evaluate("owe('page'); owe('pairing'); owe('page')")  # unheld, each would run at once
    assert page.evaluate("drawn") == ["now"]
    page.mouse.up()
    page.wait_for_function("() => drawn.length === 3")
    assert page.evaluate("drawn") == ["now", "pairing", "page"]


# ---- ending and starting again ------------------------------------------------------------------------------------

def test_the_final_screen_and_play_again(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"], rounds_per_player=1)
    post_events(base, session, {"type": "marble", "gate": 6})
    post_events(base, session, {"type": "reveal", "gate": 6})
    post_events(base, session, {"type": "turned", "player": "Ben", "gate": 1})
    page = open_page()
    page.goto(f"{base}/play/{session['id']}")
    post_events(base, session, {"type": "reveal", "gate": 1})
    post_events(base, session, {"type": "turned", "player": "Ada", "correct": True})
    page.wait_for_selector("#final:not([hidden])")
    expect(page.locator("#play")).to_be_hidden()
    expect(page.locator("#winners")).to_contain_text("Ada")
    assert page.locator("#winners .winner").all_inner_texts() == ["Ada"]
    totals = page.locator("#totals li").all_inner_texts()
    assert [" ".join(t.split()) for t in totals] == ["Ada 2", "Ben 0"]
    rows = page.locator("#breakdown tbody tr").all_inner_texts()
    assert len(rows) == 2 and rows[0].split()[-2:] == ["1", "0"]  # Ada's round: 1 for her marble, 0 for Ben
    started: list[str] = []
    page.route("**/api/sessions", lambda route: (started.append(route.request.method), route.continue_()))
    page.dblclick("#again")  # a double tap starts one game, not two
    page.wait_for_url(re.compile(rf".*/play/(?!{session['id']}$)\d+$"))
    assert started == ["POST"]
    _, again = call(f"{base}/api/sessions/{page.url.rsplit('/', 1)[1]}")
    assert again["players"] == ["Ada", "Ben"] and again["options"]["rounds_per_player"] == 1
    assert again["status"] == "running"


@pytest.mark.parametrize("size", [(800, 480), (390, 844)], ids=["kiosk", "phone"])
def test_the_way_to_start_a_new_game_stays_on_the_screen_below_its_options(
        open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    """Three players seated on the kiosk's screen or a phone: the options run below the screen's edge, and Start comes
    after them; the bar at the screen's foot says so, and taps on it bring Start onto the screen, tappable."""
    page = open_page(*size)
    choose_diego(page, base, "Ada", "Ben", "Cleo")
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate("document.documentElement.scrollHeight") > size[1]  # the options reach below the screen
    for _ in range(5):
        in_view(page, "#more-below")
        y = page.evaluate("scrollY")
        page.click("#more-below")
        page.wait_for_function("(y) => scrollY > y", arg=y)
        if page.locator("#below-bar").is_hidden():
            break
    in_view(page, "#start")
    tap_again(page, "#start")  # not where the bar was tapped a moment ago, as if a double tap
    page.wait_for_url("**/play/*")


def test_start_tapped_at_once_after_the_bar_below_counts_where_the_bar_did_not_lie(
        open_page: Callable[..., Any], base: str) -> None:
    """At 800x480 the bar below brought Start up to y 296 while the bar lay at y 424: a tap on Start at once was
    refused as a double tap's second half ("Not counted"), for the time alone. A double tap lands its second half
    where the first was; Start elsewhere counts, however soon. The page's clock stands still here."""
    page = open_page(800, 480)
    page.clock.install()
    choose_diego(page, base, "Ada", "Ben", "Cleo")
    page.clock.pause_at(time.time() + 3600)
    page.evaluate("window.scrollTo(0, 0)")
    for _ in range(5):
        page.clock.run_for(1000)  # taps on the bar a second apart: each a tap of its own
        bar = page.locator("#more-below").bounding_box()
        y = page.evaluate("scrollY")
        page.click("#more-below")
        page.wait_for_function("(y) => scrollY > y", arg=y)
        if page.locator("#below-bar").is_hidden():
            break
    start = page.locator("#start").bounding_box()
    assert start["y"] + start["height"] <= bar["y"] or start["y"] >= bar["y"] + bar["height"], (start, bar)
    page.click("#start")
    page.wait_for_url("**/play/*")


#: The new game's controls, labels and help that the start button covers, each brought into view as a tap or a
#: focus brings it (scrollIntoView "nearest"): what the screen shows at the centre and the foot of each of its
#: lines is the part itself (or inside it), never the start button lying over it.
UNDER_START = """() => {
    const start = document.getElementById('start'), form = document.getElementById('new-game');
    const parts = [...form.querySelectorAll('button, input, select, textarea, label, .label, small, h3, .seats li')]
        .filter((el) => el !== start && !start.contains(el) && el.getClientRects().length);
    window.scrollTo(0, 0);
    const covered = [];
    for (const el of parts) {
        el.scrollIntoView({ block: 'nearest' });
        // each line of a text that wraps (its box's centre may lie beyond the end of its last line)
        const points = [...el.getClientRects()].flatMap((r) => [[r.left + r.width / 2, r.top + r.height / 2],
                                                                [r.left + r.width / 2, r.bottom - 2]]);
        for (const [x, y] of points) {
            const hit = document.elementFromPoint(x, y);
            if (!hit || !el.contains(hit)) {
                const what = (el.textContent.trim() || el.getAttribute('aria-label') || el.tagName).slice(0, 40);
                const over = !hit ? 'nothing' : hit.closest('#start') ? 'the start button'
                    : hit.closest('#below-bar') ? 'the bar below' : hit.outerHTML.slice(0, 60);
                covered.push(`${what} (${el.tagName.toLowerCase()}.${el.className}) y ${Math.round(y)}: under ${over}`);
                break;
            }
        }
    }
    return covered;
}"""


@pytest.mark.parametrize("size", [(800, 480), (390, 844)], ids=["kiosk", "phone"])
@pytest.mark.parametrize("game", [DIEGO, "drachensachen", "drachen-wurf", "draci-hrad"])
def test_the_start_button_never_covers_the_new_games_form(
        open_page: Callable[..., Any], base: str, size: tuple[int, int], game: str) -> None:
    """Every game's new-game form on the kiosk's screen and a phone, with no player seated (the start button faint)
    and then four: each control, label and help text of the form, brought into view, can be seen and tapped; neither
    the start button nor the bar at the screen's foot saying it lies below covers any of them."""
    names = ["Ada", "Ben", "Cleo", "Dan"]
    for name in names:
        status, body = call(f"{base}/api/players", {"name": name})
        assert status in (200, 201), body
    page = open_page(*size)
    page.goto(base + "/")
    page.click(f"[data-game='{game}']")
    expect(page.locator("#start")).to_contain_text("Start ")
    expect(page.locator("#options > *").first).to_be_visible()
    assert page.evaluate(UNDER_START) == [], "no player seated"
    for name in names:
        page.click(f"#player-pool [data-player='{name}']")
    expect(page.locator("#seats li")).to_have_count(len(names))
    assert page.evaluate("document.documentElement.scrollHeight") > size[1]  # the form reaches below the screen
    assert page.evaluate(UNDER_START) == [], "four players seated"
    page.evaluate("window.scrollTo(0, 0)")
    in_view(page, "#more-below")  # the way to Start
    shoot(page, f"new-game-{game}-{size[0]}x{size[1]}")


def test_play_again_on_two_devices_starts_one_next_game(open_page: Callable[..., Any], base: str) -> None:
    """The tablet taps Play again; the kiosk still shows the final screen, and a tap on its Play again joins the
    game the tablet started instead of starting a second one beside it."""
    session = new_game(base, ["Ada", "Ben"], rounds_per_player=1)
    post_events(base, session, {"type": "marble", "gate": 6}, {"type": "reveal", "gate": 6},
                {"type": "turned", "player": "Ben", "gate": 1}, {"type": "reveal", "gate": 1},
                {"type": "turned", "player": "Ada", "correct": True})
    kiosk, tablet = open_page(800, 480), open_page(390, 844)
    for page in (kiosk, tablet):
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("#final:not([hidden])")
    tablet.click("#again")
    tablet.wait_for_url(re.compile(rf".*/play/(?!{session['id']}$)\d+$"))
    kiosk.click("#again")
    kiosk.wait_for_url(re.compile(rf".*/play/(?!{session['id']}$)\d+$"))
    assert kiosk.url.rsplit("/", 1)[1] == tablet.url.rsplit("/", 1)[1]
    _, listed = call(f"{base}/api/sessions")
    assert [s["id"] for s in listed["sessions"] if s["status"] == "running"] == [int(tablet.url.rsplit("/", 1)[1])]
    status, _ = call(f"{base}/api/sessions", {"game": DIEGO, "players": ["Ada", "Ben"], "again": True})
    assert status == 400


def test_the_home_page_shows_a_game_another_device_started(open_page: Callable[..., Any], base: str) -> None:
    """The kiosk sits on the home page while a tablet starts a game: its card comes up under Carry on, to tap."""
    kiosk = open_page(800, 480)
    kiosk.goto(base + "/")
    kiosk.wait_for_selector("#new-game")
    expect(kiosk.locator("#running")).to_have_count(0)
    session = new_game(base, ["Ada", "Ben"])  # the tablet
    card = kiosk.locator(f"#running [data-session='{session['id']}']")
    expect(card).to_be_visible(timeout=WAIT_MS)
    expect(card).to_contain_text("Ada")
    card.click()
    kiosk.wait_for_url(f"{base}/play/{session['id']}")


def test_abandon_a_game_after_a_confirmation(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    post_events(base, session, {"type": "marble", "gate": 2})
    page = open_page()
    page.goto(base + "/")
    expect(page.locator(f"#running [data-session='{session['id']}']")).to_contain_text("last played a moment ago")
    page.click(f"#running [data-session='{session['id']}']")
    page.wait_for_selector("body[data-ready='yes']")  # the page's script has wired its buttons
    page.click("#menu-button")
    page.click("#abandon")
    page.click("[data-answer='no']")  # kept: nothing happens
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["status"] == "running"
    page.click("#menu-button")
    page.click("#abandon")
    page.click("[data-answer='yes']")
    expect(page.locator("#toast")).to_have_text(f"Game {session['id']} was abandoned.")  # on Home
    assert page.url == base + "/"  # said once: a reload does not say it again
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["status"] == "abandoned"
    assert page.locator(f"#running [data-session='{session['id']}']").count() == 0
    with page.expect_response(f"{base}/api/sessions/9999"):  # Home asks before it says anything of game 9999
        page.goto(f"{base}/?abandoned=9999")
    page.wait_for_selector("#new-game")
    assert "9999" not in (page.locator("#toast").text_content() or "")  # no such game: not "Game 9999 was abandoned"
    page.goto(f"{base}/play/{session['id']}")
    expect(page.locator("#readonly")).to_contain_text("abandoned")
    expect(page.locator("#undo")).to_have_attribute("aria-disabled", "true")


def test_a_game_is_put_away_from_home_after_a_confirmation(open_page: Callable[..., Any], base: str) -> None:
    """Home could not put an unwanted game away: it had to be opened, and abandoned from its menu. Its cards alike
    (the same game and players) are told apart by when each started."""
    sessions = [new_game(base, ["Ada", "Ben"]) for _ in range(4)]
    page = open_page(*KIOSK)
    page.goto(base + "/")
    expect(page.locator("#running .card")).to_have_count(4)
    expect(page.locator(f"#running [data-session='{sessions[-1]['id']}'] .card-round")).to_have_text(
        re.compile(r"^Round 1 of 6\s+· started \d\d:\d\d$"))
    page.click("#put-away")
    choices = page.locator("[data-put-away]")
    expect(choices).to_have_count(4)  # the older ones behind "1 more unfinished game" too
    page.click("button:text-is('Cancel')")
    expect(choices).to_have_count(0)
    victim = sessions[1]["id"]
    page.click("#put-away")
    page.click(f"[data-put-away='{victim}']")
    page.click("[data-answer='no']")  # kept: nothing happens
    assert call(f"{base}/api/sessions/{victim}")[1]["status"] == "running"
    page.click("#put-away")
    page.click(f"[data-put-away='{victim}']")
    expect(page.locator(".dialog:has([data-answer])")).to_contain_text("Put Diego Drachenzahn of Ada, Ben away?")
    page.click("[data-answer='yes']")
    expect(page.locator("#toast")).to_have_text("Diego Drachenzahn of Ada, Ben was put away.")
    expect(page.locator(f"#running [data-session='{victim}']")).to_have_count(0)
    expect(page.locator("#running .card")).to_have_count(3)
    assert call(f"{base}/api/sessions/{victim}")[1]["status"] == "abandoned"
    assert all(call(f"{base}/api/sessions/{s['id']}")[1]["status"] == "running" for s in sessions if s["id"] != victim)


def test_abandoning_a_game_that_ended_meanwhile_says_it_is_already_finished(open_page: Callable[..., Any],
                                                                           base: str) -> None:
    session = start_game(base, "draci-hrad", ["Ada", "Ben"])
    deaf = open_page()  # a tablet that stopped hearing the table: it still shows the game running
    deaf.route("**/stream", lambda route: route.abort())
    deaf.goto(f"{base}/play/{session['id']}")
    deaf.wait_for_selector("body[data-ready='yes']")
    post_events(base, session, {"type": "treasure", "player": "Ada", "value": 35},
                {"type": "sceptre", "player": "Ben"})  # the game ends on another device
    deaf.click("#menu-button")
    deaf.click("#abandon")
    deaf.click("[data-answer='yes']")
    expect(deaf.locator("#toast")).to_contain_text(
        "This game of Dračí hrad is already finished and keeps its result", timeout=WAIT_MS)
    expect(deaf.locator("#final")).to_be_visible()  # and the page shows how it ended
    assert "/play/" in deaf.url
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["status"] == "finished"


def test_a_set_aside_game_is_shown_read_only_with_its_reason(open_page: Callable[..., Any], base: str,
                                                              app: Flask) -> None:
    session = new_game(base, ["Ada", "Ben"])
    table = app.extensions["table"]
    table.log.append(session["id"], "marble", {"gate": 9}, "tap")  # recorded once, refused by today's rules
    table.rebuild()
    page = open_page()
    page.goto(base + "/")
    card = page.locator(f"#running .set-aside[data-session='{session['id']}']")
    expect(card).to_contain_text("set aside")
    expect(card).to_contain_text("no longer folds")
    card.click()
    expect(page.locator("#readonly")).to_contain_text("set aside and can only be looked at")
    expect(page.locator("#readonly")).to_contain_text("no longer folds")
    expect(page.locator("#undo")).to_have_attribute("aria-disabled", "true")
    assert page.locator("#play").evaluate("el => el.inert")


def test_a_game_whose_row_is_damaged_is_shown_read_only_with_its_reason(open_page: Callable[..., Any], base: str,
                                                                        app: Flask) -> None:
    session = new_game(base, ["Ada", "Ben"])
    table = app.extensions["table"]
    with sqlite3.connect(table.log.path) as db:  # a hand edit gone wrong: its players are no longer JSON
        db.execute("UPDATE sessions SET players = '[\"Ada\", ' WHERE id = ?", (session["id"],))
    table.rebuild()
    page = open_page()  # no page error allowed: the page copes with a game whose players cannot be read
    page.goto(base + "/")
    card = page.locator(f"#running .set-aside[data-session='{session['id']}']")
    expect(card).to_contain_text("its players are not valid JSON")
    card.click()
    expect(page.locator("#readonly")).to_contain_text("set aside and can only be looked at")
    expect(page.locator("#readonly")).to_contain_text("is damaged")
    expect(page.locator("#undo")).to_have_attribute("aria-disabled", "true")


def test_player_buttons_keep_their_order(open_page: Callable[..., Any], base: str) -> None:
    for name in ("Ada", "Ben", "Cleo"):
        call(f"{base}/api/players", {"name": name})
    new_game(base, ["Cleo", "Ben"])  # played most recently
    page = open_page()
    choose_diego(page, base)
    expected = [p["name"] for p in call(f"{base}/api/players")[1]["players"]]

    def chips() -> list[str]:
        return page.locator("#player-pool [data-player]").evaluate_all("els => els.map(e => e.dataset.player)")

    assert chips() == expected and expected[:2] in (["Cleo", "Ben"], ["Ben", "Cleo"])
    page.click("#player-pool [data-player='Ada']")
    assert chips() == expected  # seating does not move a button
    add_player(page, "Dora")
    after = [p["name"] for p in call(f"{base}/api/players")[1]["players"]]
    assert chips() == after  # the new player comes where the order says
    assert [name for name in after if name != "Dora"] == expected  # and nobody else moves


# ---- the castle and the sensors --------------------------------------------------------------------------------------

def test_the_castle_button_moves_the_castle(open_page: Callable[..., Any], base: str) -> None:
    first = new_game(base, ["Ada", "Ben"])
    second = new_game(base, ["Cleo", "Dan"])
    assert first["castle"] and not second["castle"]  # a new game takes the castle only if no game holds it
    one, two = open_page(), open_page()
    one.goto(f"{base}/play/{first['id']}")
    two.goto(f"{base}/play/{second['id']}")
    expect(one.locator("#castle-text")).to_contain_text("The castle is on this game")
    expect(two.locator("#castle-text")).to_contain_text("not on this game")
    expect(one.locator("#take-castle")).to_be_hidden()
    two.click("#take-castle")
    expect(two.locator("#castle-text")).to_contain_text("The castle is on this game", timeout=WAIT_MS)
    expect(one.locator("#castle-text")).to_contain_text("not on this game", timeout=WAIT_MS)
    assert call(f"{base}/api/castle")[1]["session"] == second["id"]


@pytest.fixture
def sim_base(app_config: dict[str, Any]) -> Iterator[str]:
    from web.app import create_app, shutdown

    application = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "off"})
    with serving(application) as url:
        yield url
    shutdown(application)


def test_the_simulation_badge_leads_to_the_virtual_marbles_at_the_kiosk(browser: Any, sim_base: str) -> None:  # noqa: F811
    """At 800x480 the sensor panel, with its virtual marbles, is below the game: the badge that says what is simulated
    takes a person there, and a marble rolled there is the round's."""
    _, session = call(f"{sim_base}/api/sessions", {"game": DIEGO, "players": ["Ada", "Ben", "Cleo"]})
    context = browser.new_context(viewport={"width": 800, "height": 480})
    try:
        page = context.new_page()
        page.goto(f"{sim_base}/play/{session['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        # the gates' panel above the pad is drawn from the stream's first `sensors` message: the pad moves down then
        page.wait_for_selector("#gate-status li[data-gate='6']", state="attached")
        expect(page.locator("#sim-pad")).not_to_be_in_viewport()  # out of sight: behind the gates' button
        page.click("#sim-badge")
        page.click("#sim-show-pad")
        expect(page.locator("#overlays .overlay")).to_have_count(0)
        in_view(page, "#sim-pad")
        page.click("#sim-pad [data-gate='5']")
        expect(page.locator("#gate-status li[data-gate='5']")).to_contain_text("5: 1 marble", timeout=WAIT_MS)
    finally:
        context.close()


def test_the_guesses_are_asked_clockwise_from_the_active_player(open_page: Callable[..., Any], base: str) -> None:
    """With Ben rolling, the guesses were asked of Ada, then Cleo (seat order); round the table from Ben, Cleo's card
    comes first."""
    session = new_game(base, ["Ada", "Ben", "Cleo"])
    post_events(base, session, *({"type": "marble", "gate": 1},) * 3, {"type": "reveal", "gate": 1},
                {"type": "turned", "player": "Ben", "gate": 1}, {"type": "turned", "player": "Cleo", "gate": 2},
                *({"type": "marble", "gate": 3},) * 3, {"type": "reveal", "gate": 3})
    page = open_page()
    page.goto(f"{base}/play/{session['id']}")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    rows = page.locator("#turned .guess-row")
    expect(rows).to_have_count(2)
    assert rows.evaluate_all("els => els.map((e) => e.dataset.player)") == ["Cleo", "Ada"]


def test_the_gates_panel_counts_a_new_round_from_none(browser: Any, sim_base: str) -> None:  # noqa: F811
    """The panel's counts are the round's: once the next round began it still read the last round's marbles until a
    marble rolled."""
    _, session = call(f"{sim_base}/api/sessions", {"game": DIEGO, "players": ["Ada", "Ben"]})
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    try:
        page = context.new_page()
        page.goto(f"{sim_base}/play/{session['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        assert call(f"{sim_base}/api/simulation/marble", {"gate": 5})[0] == 202
        gate = page.locator("#gate-status li[data-gate='5']")
        expect(gate).to_contain_text("5: 1 marble", timeout=WAIT_MS)
        page.wait_for_function("() => document.querySelectorAll('#slots .slot.filled').length === 1")
        post_events(sim_base, session, {"type": "marble", "gate": 5}, {"type": "marble", "gate": None},
                    {"type": "guess", "player": "Ben", "gate": 5}, {"type": "reveal", "gate": 5})
        expect(page.locator("#turn .turn-name")).to_have_text("Ben", timeout=WAIT_MS)  # round 2: Ben rolls
        expect(gate).to_contain_text("5: 0 marbles")
    finally:
        context.close()


def test_sensor_panel_rolls_marbles_seen_on_another_page(browser: Any, sim_base: str) -> None:  # noqa: F811
    _, session = call(f"{sim_base}/api/sessions", {"game": DIEGO, "players": ["Ada", "Ben", "Cleo"]})
    contexts = [browser.new_context(viewport={"width": 1024, "height": 600}) for _ in range(2)]
    try:
        panel, other = (c.new_page() for c in contexts)
        for page in (panel, other):
            page.goto(f"{sim_base}/play/{session['id']}")
        assert "Sim" in panel.locator("header").inner_text()
        panel.click("#sim-badge")
        dialog = panel.locator(".overlay:not([hidden]) .dialog")
        expect(dialog).to_contain_text("without the castle's hardware")  # explained by a tap, not a hover
        dialog.locator(".btn.primary").click()
        panel.wait_for_selector("#gate-status li[data-gate='1']")
        for gate in ("1", "4", "4"):
            # The toast of the previous marble may still show: wait for this marble's answer (the server has
            # rolled it) before the pause, or a slow request would put two rolls of gate 4 back to back.
            with panel.expect_response(lambda r: r.url.endswith("/api/simulation/marble")) as answer:
                panel.click(f"#sim-pad [data-gate='{gate}']")
            assert answer.value.status == 202
            panel.wait_for_selector("#toast:not([hidden])")
            panel.wait_for_timeout(200)  # marbles come one at a time, beyond the beam's refractory time
        other.wait_for_function("() => document.querySelectorAll('#slots .slot.filled').length === 3")
        slots = other.locator("#slots .slot.filled").evaluate_all("els => els.map(e => e.dataset.gate)")
        assert slots == ["1", "4", "4"]
        assert "sensor" in other.locator("#slots").inner_text()
        # the gates' status is a message of its own, sent just after the session's: wait for it
        expect(other.locator("#gate-status li[data-gate='4']")).to_contain_text("4: 2 marbles", timeout=WAIT_MS)
        expect(other.locator("#gate-status li[data-gate='1']")).to_contain_text("1: 1 marble")
        # a marble while no Diego game runs is shown, marked as not scored
        call(f"{sim_base}/api/sessions/{session['id']}/abandon", {})
        expect(panel.locator("#readonly")).to_be_visible(timeout=WAIT_MS)
        assert call(f"{sim_base}/api/simulation/marble", {"gate": 2})[0] == 202
        expect(panel.locator("#unscored")).to_contain_text("Gate 2: ", timeout=WAIT_MS)
    finally:
        for context in contexts:
            context.close()


def test_calibration_by_tap_on_the_camera_page(browser: Any, app_config: dict[str, Any]) -> None:  # noqa: F811
    from web.app import create_app, shutdown

    application = create_app({**app_config, "SENSORS": "simulation"})
    context = browser.new_context(viewport={"width": 1024, "height": 600})
    try:
        with serving(application) as base, contextlib.closing(context):  # the page stops polling first
            page = context.new_page()
            page.goto(f"{base}/camera")
            page.wait_for_selector("#preview:not([hidden])")
            page.click("#calibrate")
            canvas = page.wait_for_selector("#calib:not([hidden])")
            scale = canvas.bounding_box()["width"] / 640  # the snapshot is 640 px wide
            for gate in range(1, 7):  # a gate button's click may scroll the page: each tap is placed on the picture
                page.click(f"#calib-gates [data-gate='{gate}']")
                for dx, dy in ((0, 0), (60, 0), (60, 100), (0, 100)):
                    x, y = 20 + (gate - 1) * 100 + dx, 150 + dy
                    canvas.click(position={"x": x * scale, "y": y * scale})
            page.click("#calib-save")
            page.wait_for_selector("#calib[hidden]", state="attached")
            _, status = call(f"{base}/api/camera")
            assert status["calibration"] == "tap"
            first = status["regions"]["gates"][0]["polygon"]
            assert all(abs(a - b) <= 2 for p, q in zip(first, [[20, 150], [80, 150], [80, 250], [20, 250]])
                       for a, b in zip(p, q)), first
    finally:
        context.close()  # a second close is harmless
        shutdown(application)

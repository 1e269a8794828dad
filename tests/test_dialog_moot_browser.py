"""A question left open on one screen while another screen changes the game, in headless Chromium: two devices show
the same game of Diego Drachenzahn. A question the other device answered, or made moot, closes by itself and the page
says what happened; a question the news leaves standing stays open, and its answer counts."""
from __future__ import annotations

from typing import Any, Callable

from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    KIOSK,
    NAMES,
    NOT_COUNTED,
    PHONE,
    WAIT_MS,
    current_round,
    open_game,
    post_events,
    session_view,
    start_game,
)

ASKED = ".dialog:has([data-answer])"


def _two_devices(open_page: Callable[..., Any], base: str, session: dict[str, Any]) -> tuple[Any, Any]:
    """The Pi's screen and a phone, both on the game."""
    return open_game(open_page, base, session, *KIOSK), open_game(open_page, base, session, *PHONE)


def _ask_reveal(page: Any, gate: int, question: str) -> None:
    """The token tapped before three marbles are in: the page asks whether the rest missed (ruling D4)."""
    page.click(f"#reveal-pad [data-gate='{gate}']")
    expect(page.locator(ASKED)).to_contain_text(question)


def test_a_reveal_answered_on_another_device_closes_the_question_here(open_page: Callable[..., Any],
                                                                     base: str) -> None:
    """Both screens ask "Only 1 of 3 marbles recorded."; the phone answers "Reveal: 2 missed". On the Pi's screen the
    question closes by itself and the page says who answered it and how, instead of a question nobody asks any more
    whose tap would only be refused."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"], gate_names=NAMES)
    post_events(base, session, {"type": "marble", "gate": 3})
    kiosk, phone = _two_devices(open_page, base, session)
    for page in (kiosk, phone):
        _ask_reveal(page, 3, "Only 1 of 3 marbles recorded.")
    phone.click("[data-answer='yes']")  # "Reveal: 2 missed"
    expect(kiosk.locator(ASKED)).to_have_count(0, timeout=WAIT_MS)
    expect(kiosk.locator("#toast")).to_have_text(
        "Answered on another device: the token shows Star, and the 2 marbles not recorded counted as missed.")
    expect(kiosk.locator("#turned [data-player='Ben']")).to_be_visible()
    assert current_round(base, session)["token"] == 3


def test_a_marble_recorded_on_another_device_closes_the_question_asked_before_it(open_page: Callable[..., Any],
                                                                                base: str) -> None:
    """The Pi's screen asks "Only 1 of 3 marbles recorded." and the phone taps a second marble in: the question asked
    is not the one the round stands at now. It closes and says what changed; tapped again, the token asks of 2."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"], gate_names=NAMES)
    post_events(base, session, {"type": "marble", "gate": 3})
    kiosk, phone = _two_devices(open_page, base, session)
    _ask_reveal(kiosk, 3, "Only 1 of 3 marbles recorded.")
    phone.click("#marble-pad [data-gate='5']")
    expect(kiosk.locator(ASKED)).to_have_count(0, timeout=WAIT_MS)
    expect(kiosk.locator("#toast")).to_have_text("The marbles changed meanwhile: 2 of 3 recorded now.")
    assert current_round(base, session)["token"] is None
    _ask_reveal(kiosk, 3, "Only 2 of 3 marbles recorded.")


def test_news_that_leaves_the_question_standing_keeps_it_open_and_its_answer_counts(
        open_page: Callable[..., Any], base: str, app: Flask) -> None:
    """The Pi's screen asks "Only 1 of 3 marbles recorded."; meanwhile the castle's camera reports the round as it
    rests, the same marble in Star. Nothing asked has changed: the question stays open, and "Reveal: 2 missed" counts
    rather than being refused as a change nobody saw."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"], gate_names=NAMES)
    post_events(base, session, {"type": "marble", "gate": 3})
    kiosk, phone = _two_devices(open_page, base, session)
    _ask_reveal(kiosk, 3, "Only 1 of 3 marbles recorded.")
    app.extensions["table"].submit(session["id"], {"type": "camera", "counts": [0, 0, 1, 0, 0, 0]}, source="camera")
    seq = session_view(base, session)["seq"]
    for page in (kiosk, phone):
        page.wait_for_selector(f"body[data-seq='{seq}']", state="attached")
    expect(kiosk.locator(ASKED)).to_contain_text("Only 1 of 3 marbles recorded.")
    kiosk.click("[data-answer='yes']")
    expect(kiosk.locator("#turned [data-player='Ben']")).to_be_visible(timeout=WAIT_MS)
    expect(phone.locator("#turned [data-player='Ben']")).to_be_visible(timeout=WAIT_MS)
    assert current_round(base, session)["token"] == 3
    assert kiosk.locator("#toast").text_content() != NOT_COUNTED


def test_a_game_abandoned_on_another_device_closes_the_question_to_abandon_it(open_page: Callable[..., Any],
                                                                              base: str) -> None:
    """Both screens ask "Abandon this game?"; the phone abandons it. On the Pi's screen the question closes and the
    page says the game was abandoned, as its notice shows."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    kiosk, phone = _two_devices(open_page, base, session)
    for page in (kiosk, phone):
        page.click("#menu-button")
        page.click("#abandon")
        expect(page.locator(ASKED)).to_contain_text("Abandon this game of Diego Drachenzahn?")
    phone.click("[data-answer='yes']")
    expect(kiosk.locator(ASKED)).to_have_count(0, timeout=WAIT_MS)
    expect(kiosk.locator("#toast")).to_have_text("Answered on another device: this game was abandoned.")
    expect(kiosk.locator("#readonly")).to_contain_text("abandoned")

"""A double tap on a game page, in headless Chromium: the same event sent twice. The first counts; the rules may refuse
the second ("already guessed"), and that refusal is the double tap's, not the family's mistake: no error is shown. A
repeat the rules accept (two marbles tapped into one gate) counts as ever."""
from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import expect

from tests.browser import WAIT_MS, call, open_game, start_game

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

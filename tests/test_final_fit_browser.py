"""The final screen with as many players as each game takes, in headless Chromium. On the Pi's 800x480 screen six or
seven players' totals reached below its foot (Drachensachen's page was 704 px tall, its last total cut) and the results
table showed one row (Dračí hrad's Treasure and Total, its Gold and Sceptre behind "more below"); the table's names
were 11.2 px, and its names and labels broke inside a word at a hyphen of the page's own ("Drache-nherz", "Trea-sure").
A finished game's menu offered to abandon it, which the server refuses: a game that ended keeps its result. Diego's
symbol names under the "who turned over what" buttons and the marbles' sources were 11.2 px, the Hero cards page's
labels 12 px."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    BROKEN_WORDS,
    KIOSK,
    PHONE,
    fits,
    in_view,
    open_game,
    post_events,
    shoot,
    start_game,
)
from tests.servers import call
from tests.test_final_screens_browser import draci_hrad_finished, played_to_the_end
from tests.test_kiosk_fit_browser import CUT, ROWS_SHOWN
from tests.test_readable_text_browser import WIDE, small

#: Names as families write them, long ones among them: a name of two long words, one with a háček.
PLAYERS = ["Alexandrina", "Bartholomäus Drachenherz", "Konstantin", "Genevieve", "Maximilian", "Zdeňka Nováková",
           "Eva"]

#: Each game with the most players it takes, and a seed its random play ends with.
MOST = [("diego-drachenzahn", 4, 0), ("drachen-wurf", 6, 1), ("drachensachen", 7, 2), ("draci-hrad", 6, 3)]
GAMES = pytest.mark.parametrize(("game_id", "players", "seed"), MOST, ids=[game for game, _, _ in MOST])

#: The final screen's words: the winner, the totals and the results table.
FINAL_TEXTS = ("#winners .label", "#winners .winner", "#totals .name", "#totals .score",
               "#breakdown th", "#breakdown td", "#breakdown .pname")

#: The players on the totals' list not wholly on the screen as it is, without a scroll.
TOTALS_OFF_SCREEN = """() => [...document.querySelectorAll('#totals li')].filter((li) => {
    const r = li.getBoundingClientRect();
    return r.top < 0 || r.bottom > innerHeight + .5 || r.right > innerWidth + .5; }).map((li) => li.dataset.player)"""

#: How many of the results table's rounds are shown whole: under its header, above its Total row (and above "more
#: below" where it says so).
WHOLE_ROWS = """() => { const table = document.querySelector('#breakdown'), foot = table.tFoot.rows[0].cells[0];
    const cue = getComputedStyle(foot, '::before');
    const more = cue.content.includes('more') && cue.visibility === 'visible' && cue.display !== 'none';
    const top = table.tHead.getBoundingClientRect().bottom;
    const bottom = foot.getBoundingClientRect().top - (more ? parseFloat(cue.height) : 0);
    return [...table.tBodies[0].rows].filter((row) => { const r = row.getBoundingClientRect();
        return r.top >= top - .5 && r.bottom <= bottom + .5 && r.bottom <= innerHeight; }).length; }"""

#: The players' names in the results table's header cut short: reaching past their cell, or their cell past the box.
NAMES_CUT = """() => { const box = document.querySelector('.breakdown-box').getBoundingClientRect();
    return [...document.querySelectorAll('#breakdown thead th:not(:first-child)')].filter((th) => {
        const range = document.createRange(), cell = th.getBoundingClientRect();
        range.selectNodeContents(th);
        const r = range.getBoundingClientRect();
        return r.left < cell.left - .5 || r.right > cell.right + .5 || r.top < cell.top - .5
            || r.bottom > cell.bottom + .5 || cell.right > box.right + .5 || th.scrollWidth > th.clientWidth + .5; })
    .map((th) => th.textContent); }"""


def open_final(open_page: Callable[..., Any], base: str, session: dict[str, Any], size: tuple[int, int]) -> Any:
    page = open_game(open_page, base, session, *size)
    page.wait_for_selector("#final:not([hidden])")
    return page


def words_whole(page: Any, where: str) -> None:
    """The final screen's names and labels break between words only: no hyphen of the page's own in them, no word
    over two lines, no name cut short."""
    text = page.locator("#final").text_content()
    assert "\u00ad" not in text, f"{where}: a soft hyphen breaks a word: {text!r}"
    assert page.evaluate(BROKEN_WORDS, "#breakdown th, #totals .name, #winners") == [], f"{where}: a word broken"
    assert page.evaluate(NAMES_CUT) == [], f"{where}: a name cut short"
    assert page.evaluate(CUT, "#breakdown thead th, #breakdown tbody th, #totals .name") == [], f"{where}: cut short"


@GAMES
def test_the_final_standings_and_results_are_in_sight_at_800x480_with_the_most_players(
        open_page: Callable[..., Any], base: str, app: Flask, game_id: str, players: int, seed: int) -> None:
    """Every player's total and the winner are on the 800x480 screen without a scroll, with Play again; the results
    table shows its header, its Total row and two rounds whole at least (every one of Dračí hrad's three), and says
    "more below" while more rounds wait in it; its text is 13 px at least, its names whole and broken between their
    words only."""
    session = played_to_the_end(base, app, game_id, PLAYERS[:players], seed)
    page = open_final(open_page, base, session, KIOSK)
    where = f"{game_id}'s final screen with {players} players at 800x480"
    shoot(page, f"final-fit-{game_id}-{players}-800x480")
    expect(page.locator("#totals li")).to_have_count(players)
    assert page.evaluate("window.scrollY") == 0, where
    assert page.evaluate(TOTALS_OFF_SCREEN) == [], f"{where}: totals off the screen"
    for selector in ("#winners", "#again", "#breakdown thead", "#breakdown tfoot th", "#breakdown tfoot td:last-child"):
        in_view(page, selector)
    rows = page.locator("#breakdown tbody tr").count()
    shown = page.evaluate(ROWS_SHOWN)
    whole = page.evaluate(WHOLE_ROWS)
    assert shown["half"] == [], f"{where}: rounds cut in half: {shown['half']}"
    if game_id == "draci-hrad":
        assert rows == 3 and not shown["scrolls"], f"{where}: Treasure, Gold and Sceptre not all in sight"
    assert whole >= min(rows, 2), f"{where}: {whole} of {rows} rounds in sight"
    assert shown["more"] == shown["scrolls"], f"{where}: 'more below' shown {shown['more']}, the table scrolls " \
                                              f"{shown['scrolls']}"
    assert small(page, FINAL_TEXTS) == {}, f"{where}: text under 13 px: {small(page, FINAL_TEXTS)}"
    words_whole(page, where)
    fits(page, where)


@pytest.mark.parametrize("size", [KIOSK, WIDE, PHONE], ids=["800x480", "1024x600", "phone"])
def test_every_game_s_results_table_breaks_its_names_and_labels_between_words(
        open_page: Callable[..., Any], base: str, app: Flask, size: tuple[int, int]) -> None:
    """On every screen the results table's names ("Bartholomäus Drachenherz", "Zdeňka Nováková") and its rows'
    labels ("Treasure", "Sceptre", "Round 2 · Bartholomäus Drachenherz went out") broke inside a word at a soft hyphen
    the page put in: each breaks between its words only, 13 px at least, every column in its box."""
    for game_id, players, seed in MOST:
        session = played_to_the_end(base, app, game_id, PLAYERS[:players], seed)
        page = open_final(open_page, base, session, size)
        where = f"{game_id}'s results with {players} players at {size[0]}x{size[1]}"
        shoot(page, f"final-words-{game_id}-{size[0]}x{size[1]}", full_page=True)
        expect(page.locator("#breakdown thead th")).to_have_count(players + 1)
        words_whole(page, where)
        assert small(page, FINAL_TEXTS) == {}, f"{where}: text under 13 px: {small(page, FINAL_TEXTS)}"
        sideways = page.evaluate("(() => { const box = document.querySelector('.breakdown-box');"
                                 " return box.scrollWidth - box.clientWidth; })()")
        assert sideways <= 0, f"{where}: the table scrolls sideways by {sideways} px"
        fits(page, where)
        page.close()


def test_a_finished_game_s_menu_offers_no_abandon(open_page: Callable[..., Any], base: str) -> None:
    """A finished game keeps its result (the server refuses to abandon it): its ⋯ menu offers no "Abandon this
    game…", only to be answered "Keep playing" and refused; the last step can still be undone, and the game, going
    on again, can then be abandoned."""
    session = draci_hrad_finished(base)
    page = open_final(open_page, base, session, KIOSK)
    page.click("#menu-button")
    expect(page.locator("#menu")).to_be_visible()
    expect(page.locator("#menu-close")).to_be_visible()
    expect(page.locator("#abandon")).to_be_hidden()
    status, _ = call(f"{base}/api/sessions/{session['id']}/abandon", {})
    assert status >= 400, "a finished game was abandoned"
    page.click("#menu-close")
    page.click("#final-undo")
    expect(page.locator("#final")).to_be_hidden()
    page.click("#menu-button")
    expect(page.locator("#abandon")).to_be_visible()


#: Diego's small words: each symbol's name and Right or Wrong under a player's buttons, where each marble was read.
DIEGO_SMALL = ("#turned .gate .gname", "#turned .gate", "#slots .slot small")


@pytest.mark.parametrize("size", [KIOSK, WIDE, PHONE], ids=["800x480", "1024x600", "phone"])
def test_diego_s_symbol_names_and_marble_sources_are_13_px_and_fit(open_page: Callable[..., Any], base: str,
                                                                   size: tuple[int, int]) -> None:
    """The symbols' names under each player's buttons for what they turned over, and the marbles' sources ("tap"),
    were 11.2 px: 13 px at least, each whole, with four players (long names among them) every player's row of buttons
    still on the 800x480 screen and nothing sideways."""
    session = start_game(base, "diego-drachenzahn", PLAYERS[:4])
    post_events(base, session, {"type": "marble", "gate": 6}, {"type": "marble", "gate": 2},
                {"type": "marble", "gate": 3}, {"type": "reveal", "gate": 6})
    page = open_game(open_page, base, session, *size)
    expect(page.locator("#turned .guess-row")).to_have_count(3)
    expect(page.locator("#slots .slot small")).to_have_count(3)
    where = f"Diego's turned-over step at {size[0]}x{size[1]}"
    shoot(page, f"final-fit-diego-turned-{size[0]}x{size[1]}")
    assert small(page, DIEGO_SMALL) == {}, f"{where}: text under 13 px: {small(page, DIEGO_SMALL)}"
    assert page.evaluate(CUT, "#turned .gname, #slots .slot small, #slots .slot span") == [], f"{where}: cut short"
    fits(page, where)
    if size != PHONE:
        for player in PLAYERS[1:4]:
            in_view(page, f"#turned .guess-row[data-player='{player}'] [data-correct='false']")


#: The Hero cards page's words on each card: the numbers' labels, the weapons and Magic, the card's state.
HERO_TEXTS = (".hero-card header strong", ".hero-card header small", ".btn.hero-number small", ".btn.hero-number b",
              ".btn.hero-toggle", ".btn.hero-reset")


@pytest.mark.parametrize("size", [KIOSK, WIDE, PHONE], ids=["800x480", "1024x600", "phone"])
def test_the_hero_cards_labels_are_13_px_and_whole(open_page: Callable[..., Any], base: str,
                                                   size: tuple[int, int]) -> None:
    """The labels over each card's numbers (Attack, Defence, Lives, Red) were 12 px: 13 px at least, each whole in its
    button ("Defence" the widest), four numbers a line on every screen, nothing sideways."""
    page = open_page(*size)
    page.goto(f"{base}/heroes")
    page.wait_for_selector("body[data-ready='yes']")
    expect(page.locator("#hero-cards .hero-card")).to_have_count(6)
    where = f"the Hero cards page at {size[0]}x{size[1]}"
    shoot(page, f"final-fit-heroes-{size[0]}x{size[1]}")
    assert small(page, HERO_TEXTS) == {}, f"{where}: text under 13 px: {small(page, HERO_TEXTS)}"
    assert page.evaluate(CUT, ".hero-card .btn, .hero-card .btn small") == [], f"{where}: labels cut short"
    lines = page.locator(".hero-numbers").evaluate_all(
        "(rows) => rows.map((row) => new Set([...row.children].map((b) => Math.round(b.getBoundingClientRect().top)))"
        ".size)")
    assert set(lines) == {1}, f"{where}: a card's numbers on more than one line: {lines}"
    fits(page, where)

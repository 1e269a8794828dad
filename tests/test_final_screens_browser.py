"""Every game's final screen on the Pi's 800x480 screen: Play again, New game and Undo are on the screen without
scrolling, and Diego's per-round table keeps its Total row in sight however many rounds it holds."""
from __future__ import annotations

import random
from typing import Any, Callable

import cv2
import numpy as np
from flask import Flask
from playwright.sync_api import expect

from companion.games import GAMES
from tests.browser import in_view, post_events, shoot, start_game

ACTIONS = ("#again", "#new-game", "#final-undo")


def diego_finished(base: str) -> dict[str, Any]:
    """Four players, twelve rounds (ruling D6), each with three marbles in."""
    players = ["Ada", "Ben", "Cleo", "Dan"]
    session = start_game(base, "diego-drachenzahn", players)
    view = session
    while not view["finished"]:
        active = view["turn"]
        view = post_events(base, session, {"type": "marble", "gate": 6}, {"type": "marble", "gate": 6},
                           {"type": "marble", "gate": 2}, {"type": "reveal", "gate": 6},
                           *({"type": "turned", "player": p, "correct": i % 2 == 0}
                             for i, p in enumerate(players) if p != active))
    return session


def drachensachen_finished(base: str) -> dict[str, Any]:
    session = start_game(base, "drachensachen", ["Ada", "Ben", "Cleo"])
    post_events(base, session, {"type": "starter", "player": "Ada"})
    for finisher, coins in (("Ada", {"Ben": 8, "Cleo": 4}), ("Ben", {"Ada": 3, "Cleo": 10}),
                            ("Cleo", {"Ada": 5, "Ben": 12}), ("Ada", {"Ben": 3, "Cleo": 9})):
        post_events(base, session, {"type": "went_out", "player": finisher},
                    *({"type": "coins", "player": p, "coins": n} for p, n in coins.items()))
    return session


def drachen_wurf_finished(base: str, app: Flask) -> dict[str, Any]:
    """Random legal play (the rules' own sample) through the table to the end."""
    session = start_game(base, "drachen-wurf", ["Ada", "Ben", "Cleo"])
    game, table, rng = GAMES["drachen-wurf"], app.extensions["table"], random.Random(3)
    assert game.sample is not None
    state = game.setup(tuple(session["players"]), game.resolve_options(session["options"]))
    while not state.finished:
        event = game.sample(state, rng)
        state = game.apply(state, event)
        table.submit(session["id"], event)
    return session


def draci_hrad_finished(base: str) -> dict[str, Any]:
    session = start_game(base, "draci-hrad", ["Ada", "Ben"])
    post_events(base, session, {"type": "treasure", "player": "Ada", "value": 35}, {"type": "sceptre", "player": "Ben"})
    return session


def test_every_final_screen_offers_what_comes_next_without_scrolling(open_page: Callable[..., Any], base: str,
                                                                      app: Flask) -> None:
    sessions = {"diego": diego_finished(base), "drachensachen": drachensachen_finished(base),
                "drachen-wurf": drachen_wurf_finished(base, app), "draci-hrad": draci_hrad_finished(base)}
    page = open_page(800, 480)
    for name, session in sessions.items():
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("#final:not([hidden])")
        page.wait_for_selector("#live:text-is('live')")
        for selector in ACTIONS:
            in_view(page, selector)
        assert page.evaluate("window.scrollY") == 0, name
        if name == "diego":  # twelve rounds scroll inside the table; their Total stays in sight
            expect(page.locator("#breakdown tbody tr")).to_have_count(12)
            expect(page.locator("#breakdown tfoot th")).to_have_text("Total")
            in_view(page, "#breakdown tfoot th")  # the cells, where the Total row is drawn
            in_view(page, "#breakdown tfoot td:last-child")
            hidden = page.evaluate("document.querySelector('#breakdown tbody tr:last-child').getBoundingClientRect()"
                                   ".top > document.querySelector('#breakdown tfoot th').getBoundingClientRect().top")
            assert hidden, "the table scrolls inside itself: its last rounds wait below the Total row"


LONG_NAMES = ["Alexandrina", "Maximilian", "Konstantin", "Genevieve"]  # long-ish names, as families write them


def played_to_the_end(base: str, app: Flask, game_id: str, players: list[str], seed: int) -> dict[str, Any]:
    """A game of `players` through the table to its end by random legal play (the rules' own sample)."""
    session = start_game(base, game_id, players)
    game, table, rng = GAMES[game_id], app.extensions["table"], random.Random(seed)
    assert game.sample is not None
    state = game.setup(tuple(session["players"]), game.resolve_options(session["options"]))
    for _ in range(5000):
        if game.view(state)["finished"]:
            return session
        event = game.sample(state, rng)
        state = game.apply(state, event)
        table.submit(session["id"], event)
    raise AssertionError(f"{game_id} did not end")


def test_the_results_table_fits_a_phone_with_four_long_names(open_page: Callable[..., Any], base: str,
                                                             app: Flask) -> None:
    """At 390x844 every game's round-by-round table shows all four players' columns without a sideways swipe."""
    page = open_page(390, 844)
    for seed, game_id in enumerate(sorted(GAMES)):
        session = played_to_the_end(base, app, game_id, LONG_NAMES, seed)
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("#final:not([hidden])")
        page.wait_for_selector("#live:text-is('live')")
        expect(page.locator("#breakdown thead th")).to_have_count(5)
        shoot(page, f"final-phone-{game_id}")
        widths = page.evaluate("""() => { const box = document.querySelector('.breakdown-box');
            const last = document.querySelector('#breakdown thead th:last-child').getBoundingClientRect();
            return {box: box.scrollWidth - box.clientWidth, page: document.documentElement.scrollWidth - innerWidth,
                    last: last.right - box.getBoundingClientRect().right}; }""")
        assert widths["box"] <= 0 and widths["page"] <= 0 and widths["last"] <= 0.5, (game_id, widths)
        names = page.evaluate("[...document.querySelectorAll('#breakdown thead th')].map((th) =>"
                              " [th.textContent.replaceAll('\\u00ad', ''), th.scrollWidth - th.clientWidth])")
        assert names[1:] == [[name, 0] for name in LONG_NAMES], game_id  # each in full (wrapped if need be)


#: The Total row's box inside the table's scroll box, in whole pixels: from its top edge to the scroll box's inner
#: bottom, across its inner width.
TOTAL_BOX = """() => { const box = document.querySelector('.breakdown-box'), outer = box.getBoundingClientRect();
    const x = outer.left + box.clientLeft, y = outer.top + box.clientTop;
    const top = Math.round(document.querySelector('#breakdown tfoot th').getBoundingClientRect().top);
    return {x: Math.round(x), y: top, width: Math.round(x + box.clientWidth) - Math.round(x),
            height: Math.round(y + box.clientHeight) - top}; }"""


def drachensachen_long_names(base: str) -> dict[str, Any]:
    """Five rounds among three long names: the table is tight, and a round's label takes three lines."""
    jan, zdenka, bartholomaus = "Jan", "Zdeňka Nováková-Dvořákov", "Bartholomäus Drachenherz"
    session = start_game(base, "drachensachen", [bartholomaus, zdenka, jan])
    post_events(base, session, {"type": "starter", "player": jan})
    for finisher, coins in ((jan, {zdenka: 8, bartholomaus: 6}), (bartholomaus, {zdenka: 3, jan: 4}),
                            (zdenka, {jan: 5, bartholomaus: 2}), (jan, {zdenka: 5, bartholomaus: 6}),
                            (bartholomaus, {zdenka: 5, jan: 18})):
        post_events(base, session, {"type": "went_out", "player": finisher},
                    *({"type": "coins", "player": p, "coins": n} for p, n in coins.items()))
    return session


def test_the_total_row_hides_every_round_scrolling_beneath_it(open_page: Callable[..., Any], base: str) -> None:
    """At 800x480 the rounds scroll inside the table beneath its Total row: the tops of a round's words and numbers
    showed under it, along its bottom edge. Wherever the table rests, the Total row's box looks the same with the
    rounds beneath it drawn or not."""
    page = open_page(800, 480)
    for session in (drachensachen_long_names(base), diego_finished(base)):
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("#final:not([hidden])")
        page.wait_for_selector("#live:text-is('live')")
        box = page.locator(".breakdown-box")
        # each place the table comes to rest: a round at the top, under the header, down to the last round
        rests = box.evaluate("""(box) => [...box.querySelectorAll('tbody tr')].map((tr) => Math.min(
            tr.offsetTop - box.querySelector('thead').offsetHeight, box.scrollHeight - box.clientHeight))""")
        assert rests[-1] > 0, "the table scrolls inside itself: nothing to check"
        for rest in sorted(set(max(r, 0) for r in rests)):
            box.evaluate("(box, top) => box.scrollTo(0, top)", rest)
            clip = page.evaluate(TOTAL_BOX)
            drawn = page.screenshot(clip=clip)
            box.evaluate("(box) => { box.querySelector('tbody').style.visibility = 'hidden'; }")
            bare = page.screenshot(clip=clip)
            box.evaluate("(box) => { box.querySelector('tbody').style.visibility = ''; }")
            shown, hidden = (cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR) for png in (drawn, bare))
            lines = sorted({int(y) for y in np.nonzero((shown != hidden).any(axis=2))[0]})
            where = f"{session['game']} scrolled to {box.evaluate('(box) => box.scrollTop')} px"
            assert not lines, f"{where}: the rounds beneath show in the Total row's pixel lines {lines} of {clip}"

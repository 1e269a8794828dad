"""Every game's final screen on the Pi's 800x480 screen: Play again, New game and Undo are on the screen without
scrolling, and Diego's per-round table keeps its Total row in sight however many rounds it holds."""
from __future__ import annotations

import random
from typing import Any, Callable

from flask import Flask
from playwright.sync_api import expect

from companion.games import GAMES
from tests.browser import in_view, post_events, start_game

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

"""The phone's Back with a dialog open, in headless Chromium: it closes the dialog on top, as in an app, and the
game page stays; after a dialog closed by its own buttons, one Back leaves the page as ever."""
from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import expect

from tests.browser import session_view as state
from tests.browser import start_game


def test_back_closes_the_dialog_on_top_and_keeps_the_game(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "draci-hrad", ["Ada", "Ben"])
    page = open_page(390, 844)
    page.goto(f"{base}/")
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    game_url = page.url
    dialogs = page.locator("#overlays .overlay")
    page.click("#menu-button")
    page.click("#hr-set")
    expect(dialogs).to_have_count(1)  # "Whose number?"
    page.go_back()
    expect(dialogs).to_have_count(0)
    assert page.url == game_url
    # one dialog after another (whose number, then which): Back closes the one on top, and nothing is sent
    page.click("#menu-button")
    page.click("#hr-set")
    page.click(".hr-pick [data-pick='Ben']")
    expect(page.locator(".hr-pick [data-field='gold']")).to_be_visible()
    page.go_back()
    expect(dialogs).to_have_count(0)
    assert page.url == game_url and state(base, session)["seq"] == session["seq"]
    # closed by its own Cancel: one Back leaves the game for the page before it
    page.click("#menu-button")
    page.click("#hr-set")
    page.click(".hr-pick .btn.ghost")  # Cancel
    expect(dialogs).to_have_count(0)
    page.go_back()
    page.wait_for_url(f"{base}/")

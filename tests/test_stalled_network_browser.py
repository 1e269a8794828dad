"""A network that stalls under a page, in headless Chromium: Wi-Fi gone quiet, the connections still open, nothing
passing either way. The page does not go on saying it is live: it says it is reconnecting once it heard nothing
for two of the stream's `alive` intervals, or 10 s at the least (the intervals are 0.5 s here), a tap says when no
answer comes, and once the network flows again the page is live and shows what changed meanwhile."""
from __future__ import annotations

import threading
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import WAIT_MS, call, post_events, start_game
from tests.relay import forwarder
from tests.servers import serving


@pytest.fixture
def stall() -> threading.Event:
    return threading.Event()


@pytest.fixture
def server(app: Flask) -> Iterator[str]:
    with serving(app) as url:
        yield url


@pytest.fixture
def base(server: str, stall: threading.Event) -> Iterator[str]:
    """The pages reach the server through a relay that `stall` stops."""
    with forwarder(server, stalled=stall) as url:
        yield url


def test_a_stalled_network_is_noticed_and_caught_up(open_page: Callable[..., Any], base: str, server: str,
                                                    stall: threading.Event) -> None:
    session = start_game(server, "drachensachen", ["Ada", "Ben"])
    post_events(server, session, {"type": "starter", "player": "Ada"})
    page = open_page(390, 844)
    page.clock.install()  # the page's time runs as usual, until the test moves it on
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-live='yes']")
    pending = page.locator("#ds-pending .ds-tile-value")
    expect(pending).to_have_text("0")
    stall.set()
    post_events(server, session, {"type": "four", "count": 1})  # another device, whose network flows
    with page.expect_request(lambda r: r.url.endswith("/events")):
        page.click("#ds-next")  # a tap into the stalled network: no answer comes
    page.clock.fast_forward(11_000)  # 10 s with no `alive` heard nor an answer to the tap, and the next look
    page.wait_for_selector("body[data-live='no']", timeout=WAIT_MS)
    expect(page.locator("#live")).to_have_text("reconnecting…")
    # a phone's header has room for the sign only: it says so by its shape, not by its colour alone
    assert page.evaluate("getComputedStyle(document.getElementById('live'), '::before').content") == '"⚠ "'
    expect(pending).to_have_text("0")  # what it shows is what it heard last
    expect(page.locator("#toast")).to_contain_text("No answer from the companion: check this device's Wi-Fi.",
                                                   timeout=WAIT_MS)
    stall.clear()
    page.wait_for_selector("body[data-live='yes']", timeout=WAIT_MS)
    expect(pending).to_have_text("+2")  # caught up with the 4 played meanwhile
    # the tap, had it reached the server late, was against the game before the 4: refused, so the turn stays
    view = call(f"{server}/api/sessions/{session['id']}")[1]
    assert view["state"]["turn"] == "Ada" and view["state"]["pending_draw"] == 2


def test_a_stream_stalled_before_its_first_word_is_opened_again(open_page: Callable[..., Any], base: str,
                                                                server: str) -> None:
    """The network stalls as the stream opens, before a word of it came (not even its `alive` interval): the
    page does not wait for it for ever; after 10 s unheard it connects again."""
    session = start_game(server, "drachensachen", ["Ada", "Ben"])
    page = open_page()
    streams: list[Any] = []

    def first_held(route: Any) -> None:
        streams.append(route)
        if len(streams) > 1:
            route.continue_()  # the first is never answered: a stalled network

    page.route("**/stream", first_held)
    page.clock.install()
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_function("() => document.body.dataset.live !== 'yes'")
    assert len(streams) == 1
    page.clock.run_for(11_000)  # 10 s unheard, and the page's next look at it
    page.wait_for_selector("body[data-live='yes']")
    assert len(streams) == 2
    expect(page.locator("#live")).to_have_text("live")

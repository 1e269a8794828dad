"""The kiosk in headless Chromium: start a game by tap, play a round, see it live on a second page."""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import browser  # noqa: F401  (fixture)
from tests.servers import call, serving
from tests.waiting import PATIENCE_S

SIZES = [(1024, 600), (768, 1024)]


@pytest.fixture
def base(app: Flask) -> Iterator[str]:
    with serving(app) as url:
        yield url


@pytest.fixture
def open_page(browser: Any, base: str) -> Iterator[Callable[..., Any]]:  # noqa: F811
    """Opens pages in fresh browser contexts; closes them before the server stops."""
    contexts: list[Any] = []
    outside: list[str] = []

    def local_only(route: Any) -> None:
        """The table has no internet: only the companion itself may be asked for anything."""
        if route.request.url.startswith(base):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    def open_(width: int = 1024, height: int = 600) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
        context.route("**/*", local_only)
        contexts.append(context)
        return context.new_page()

    yield open_
    for context in contexts:
        context.close()
    assert outside == [], f"the page asked for something beyond the companion: {outside}"


def _add_player(page: Any, name: str) -> None:
    page.click("#add-player")
    for letter in name.upper():
        page.click(f"#kb-keys button:text-is('{letter}')")
    page.click("#kb-ok")


def test_start_a_game_and_play_a_round_seen_live_elsewhere(open_page: Callable[..., Any], base: str) -> None:
    page = open_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(base + "/")
    page.click("[data-game='diego-drachenzahn']")
    for name in ("Ada", "Ben", "Cleo"):
        _add_player(page, name)
    page.wait_for_function("() => document.querySelectorAll('#seats li').length === 3")  # each name is saved first
    seated = page.locator("#seats li").all_inner_texts()
    assert [" ".join(t.split()) for t in seated] == ["1 Ada starts", "2 Ben", "3 Cleo"]
    page.click("#start")
    page.wait_for_url("**/play/*")
    url = page.url

    other = open_page(768, 1024)
    other.goto(url)
    other.wait_for_selector("#score-track li")
    assert other.locator("[data-player='Ada'] .score").inner_text() == "0"

    for _ in range(3):
        page.click("#marble-pad [data-gate='2']")
    other.wait_for_function("() => document.querySelectorAll('#slots .slot.filled').length === 3")
    # a fourth marble cannot be tapped (once this page, too, has heard of the third: each page has its own stream)
    expect(page.locator("#marble-pad [data-gate='2']")).to_be_disabled(timeout=PATIENCE_S * 1000)
    page.click("[data-player='Ben'] [data-gate='2']")
    page.click("[data-player='Cleo'] [data-gate='5']")
    other.wait_for_selector("[data-player='Cleo'] .guessed")
    assert "2" not in other.locator("#guesses [data-player='Cleo']").inner_text().replace("Cleo", "")  # guesses hidden
    page.click("#reveal-pad [data-gate='2']")

    other.wait_for_function("() => document.querySelector(\"#score-track [data-player='Ada'] .score\").textContent === '3'")
    scores = {p: other.locator(f"#score-track [data-player='{p}'] .score").inner_text() for p in ("Ada", "Ben", "Cleo")}
    assert scores == {"Ada": "3", "Ben": "1", "Cleo": "0"}
    assert "Ben" in other.locator("#turn").inner_text()  # the next active player, clockwise
    assert errors == []


def test_undo_redo_and_a_stale_tap_gets_a_message(open_page: Callable[..., Any], base: str) -> None:
    _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
    page = open_page()
    page.goto(f"{base}/play/{session['id']}")
    page.click("#marble-pad [data-gate='4']")
    page.wait_for_selector("#slots .slot.filled")
    call(f"{base}/api/sessions/{session['id']}/events", {"type": "marble", "gate": 1})  # another device
    page.wait_for_function("() => document.querySelectorAll('#slots .slot.filled').length === 2")
    page.click("#undo")
    page.wait_for_function("() => document.querySelectorAll('#slots .slot.filled').length === 1")
    page.click("#redo")
    page.wait_for_function("() => document.querySelectorAll('#slots .slot.filled').length === 2")

    # This page stops hearing the table; a change elsewhere makes its next tap stale.
    deaf = open_page()
    deaf.route("**/stream", lambda route: route.abort())
    deaf.goto(f"{base}/play/{session['id']}")
    call(f"{base}/api/sessions/{session['id']}/events", {"type": "marble", "gate": 2})
    deaf.click("#undo")  # would undo the marble this page never saw
    deaf.wait_for_selector("#toast:not([hidden])")
    assert "moved on" in deaf.locator("#toast").inner_text()
    assert deaf.locator("#slots .slot.filled").count() == 3  # shows the fresh state instead
    _, view = call(f"{base}/api/sessions/{session['id']}")
    assert view["state"]["current"]["marbles"] == [4, 1, 2]  # the stale undo changed nothing


def test_options_are_checked_on_the_page(open_page: Callable[..., Any], base: str) -> None:
    page = open_page()
    page.goto(base + "/")
    page.click("[data-game='diego-drachenzahn']")
    for _ in range(4):
        page.click("[aria-label='more Rounds per player']")
    assert page.locator("#opt-rounds_per_player").inner_text() == "6"
    assert "from 1 to 6" in page.locator("#toast").inner_text()
    assert page.locator("#start").is_disabled()  # no players seated yet


@pytest.mark.parametrize("width, height", SIZES)
def test_tap_targets_and_layout(open_page: Callable[..., Any], base: str, width: int, height: int) -> None:
    _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben", "Cleo", "Dan"]})
    page = open_page(width, height)
    for path in ("/", f"/play/{session['id']}"):
        page.goto(base + path)
        small = page.evaluate("""() => [...document.querySelectorAll('.btn')]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.textContent.trim(), el.getBoundingClientRect()])
            .filter(([, r]) => r.width < 48 || r.height < 48).map(([t, r]) => `${t}: ${r.width}x${r.height}`)""")
        assert small == [], f"{path} at {width}x{height}: tap targets under 48 px: {small}"
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} scrolls sideways at {width}x{height}"
        assert page.locator("input[type='text'], input:not([type])").count() == (1 if path == "/" else 0)
        if path != "/":  # a whole round can be entered without scrolling, even with four players
            bottom = page.evaluate("document.querySelector('#reveal-pad').getBoundingClientRect().bottom")
            assert bottom <= height, f"the reveal buttons end at {bottom} px, below the {height} px screen"


def test_final_screen_shows_the_winners(open_page: Callable[..., Any], base: str) -> None:
    _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"],
                                               "options": {"rounds_per_player": 1}})
    url = f"{base}/api/sessions/{session['id']}/events"
    call(url, {"type": "marble", "gate": 6})
    call(url, {"type": "guess", "player": "Ben", "gate": 1})
    call(url, {"type": "reveal", "gate": 6})
    page = open_page()
    page.goto(f"{base}/play/{session['id']}")
    call(url, {"type": "guess", "player": "Ada", "gate": 2})
    call(url, {"type": "reveal", "gate": 1})
    page.wait_for_selector("#final:not([hidden])")
    assert page.locator("#winners").inner_text() == "Winner: Ada"


@pytest.fixture
def sim_base(app_config: dict[str, Any]) -> Iterator[str]:
    from web.app import create_app, shutdown

    application = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "off"})
    with serving(application) as url:
        yield url
    shutdown(application)


def test_sensor_panel_rolls_marbles_seen_on_another_page(browser: Any, sim_base: str) -> None:  # noqa: F811
    _, session = call(f"{sim_base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben", "Cleo"]})
    contexts = [browser.new_context(viewport={"width": 1024, "height": 600}) for _ in range(2)]
    try:
        panel, other = (c.new_page() for c in contexts)
        for page in (panel, other):
            page.goto(f"{sim_base}/play/{session['id']}")
        assert "Simulation" in panel.locator("header").inner_text()
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
        expect(other.locator("#gate-status")).to_contain_text("4: 2 marbles", use_inner_text=True,
                                                                timeout=PATIENCE_S * 1000)
        assert "4: 2 marbles" in other.locator("#gate-status").inner_text()
        assert "1: 1 marble\n" in other.locator("#gate-status").inner_text() + "\n"
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
            box = canvas.bounding_box()
            scale = box["width"] / 640  # the snapshot is 640 px wide
            for gate in range(1, 7):
                page.click(f"#calib-gates [data-gate='{gate}']")
                for dx, dy in ((0, 0), (60, 0), (60, 100), (0, 100)):
                    x, y = 20 + (gate - 1) * 100 + dx, 150 + dy
                    page.mouse.click(box["x"] + x * scale, box["y"] + y * scale)
            page.click("#calib-save")
            page.wait_for_selector("#calib[hidden]", state="attached")
            _, status = call(f"{base}/api/camera")
            assert status["calibration"] == "tap"
            first = status["regions"]["gates"][0]["polygon"]
            assert all(abs(a - b) <= 2 for p, q in zip(first, [[20, 150], [80, 150], [80, 250], [20, 250]])
                       for a, b in zip(p, q))
    finally:
        context.close()  # a second close is harmless
        shutdown(application)

"""Screens that fit, in headless Chromium: Drachen Wurf's dice screen on a 601 px small tablet (no scrolling with two
or three players, nothing sideways with four), every Drachen Wurf screen on a 320 px phone (nothing sideways, tiles
still 48 px), the side numbers and titles beside a picked tile while the base is secured at 800x480 (no tile's ring
over them), and the sticky header, which never covers what a focus or an anchor brings into view, on every page."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, fits, in_view, open_game, post_events, shoot, start_game
from tests.test_drachen_wurf_browser import GRID_PAST_PANEL, play_until

WURF = "drachen-wurf"
PLAYERS = ["Ada", "Ben", "Cleo", "Dan"]

#: Whatever a person can see that reaches past the edge of its panel, or past the screen's right edge.
PAST_ITS_PANEL = """() => [...document.querySelectorAll('main *')].filter((el) => el.getClientRects().length
        && el.checkVisibility() && !el.closest('[hidden], .overlay')).filter((el) => {
        const r = el.getBoundingClientRect(), panel = el.closest('.panel');
        const box = panel ? panel.getBoundingClientRect() : {left: 0, right: window.innerWidth};
        return r.width && (r.left < box.left - .5 || r.right > Math.min(box.right, window.innerWidth) + .5); })
    .map((el) => `${el.tagName}.${el.getAttribute('class')}: ${el.getBoundingClientRect().right} px`)"""

#: The numbers and titles of the securing screen that a tile paints over: each text's own box against each tile's
#: box with its ring (outline) and shadow around it, the tile's own numbers aside.
COVERED = """() => {
    const painted = (el) => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
        let out = s.outlineStyle === 'none' ? 0 : Math.max(0, parseFloat(s.outlineWidth) + parseFloat(s.outlineOffset));
        const shadows = s.boxShadow.matchAll(/(-?[\\d.]+)px (-?[\\d.]+)px ([\\d.]+)px (-?[\\d.]+)px/g);
        for (const [, x, y, blur, spread] of shadows)
            out = Math.max(out, Math.max(Math.abs(+x), Math.abs(+y)) + +blur + +spread);
        return {left: r.left - out, top: r.top - out, right: r.right + out, bottom: r.bottom + out}; };
    const texts = [...document.querySelectorAll('#table .sideno, #secure-tiles .tnote, #row-targets .rowno,'
        + ' #row-targets .gain, #secure-title')].filter((el) => el.checkVisibility());
    const tiles = [...document.querySelectorAll('#round .wtile, #table .wtile')].filter((el) => el.checkVisibility());
    const covered = [];
    for (const text of texts) {
        const range = document.createRange();
        range.selectNodeContents(text);
        for (const line of range.getClientRects()) {
            for (const tile of tiles.filter((t) => !t.contains(text))) {
                const b = painted(tile);
                const x = Math.min(line.right, b.right) - Math.max(line.left, b.left);
                const y = Math.min(line.bottom, b.bottom) - Math.max(line.top, b.top);
                if (x > .5 && y > .5) covered.push(`"${text.textContent}" under ${tile.getAttribute('aria-label')}`
                    + ` (${x.toFixed(1)} x ${y.toFixed(1)} px)`);
            }
        }
    }
    return covered; }"""

#: The sticky header's bottom edge, the root's scroll-padding-top, and `sel`'s top edge (null without `sel`).
EDGES = """(sel) => { const el = sel && document.querySelector(sel);
    return [document.querySelector('header.bar').getBoundingClientRect().bottom,
            parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0,
            el ? el.getBoundingClientRect().top : null]; }"""


def dice_screen(app: Flask, base: str, players: int) -> dict[str, Any]:
    """A game of `players` in its third round's dice, with a tile to steal and an egg in hand."""
    game = start_game(base, WURF, PLAYERS[:players])
    play_until(app, game, lambda s: s["phase"] == "dice" and s["round"] >= 3 and any(s["stealable"]["6"])
               and s["eggs"][s["active"]] > 0, seed=4)
    return game


def visit(open_page: Callable[..., Any], base: str, game: dict[str, Any], size: tuple[int, int]) -> Any:
    return open_game(open_page, base, game, *size)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_dice_screen_fits_a_601_px_small_tablet(open_page: Callable[..., Any], base: str, app: Flask,
                                                     players: int) -> None:
    """Three columns left the round too narrow for the five 48 px keys of the dice (the 6 stood past its panel) and
    the table too narrow for three tiles on one side (13 px past the screen's edge, with three players); the page
    scrolled by 19 px with two players, and 55 with three."""
    size = (601, 600)
    page = visit(open_page, base, dice_screen(app, base, players), size)
    where = f"the dice screen with {players} players at 601x600"
    shoot(page, f"{WURF}-dice-{players}-601x600", full_page=True)
    fits(page, where)
    assert page.evaluate(PAST_ITS_PANEL) == [], f"{where}: reaches past its panel"
    if players <= 3:
        assert page.evaluate("document.documentElement.scrollHeight - window.innerHeight") <= 0, f"{where} scrolls"
        for control in ("#k-pad [data-k='6']", "#egg-toggle", "#move-button", "#end-turn", "#middle", "#scoreboard"):
            in_view(page, control)


@pytest.mark.parametrize("players", [2, 4])
def test_every_drachen_wurf_screen_fits_a_320_px_phone(open_page: Callable[..., Any], base: str, app: Flask,
                                                        players: int) -> None:
    """The 6x6 grid reached 18 px past the screen's edge at 320 px; its tiles stay 48 px."""
    names = ["Maximilian", *PLAYERS[1:players]]
    flipping = start_game(base, WURF, names)
    rolling = dice_screen(app, base, players)
    securing = start_game(base, WURF, names)
    play_until(app, securing, lambda s: s["phase"] == "secure" and len(s["hoards"][s["active"]]["rows"]) >= 2, seed=7)
    over = start_game(base, WURF, names)
    play_until(app, over, lambda s: s["finished"], seed=3)
    page = open_page(320, 568)
    for name, game in {"flip": flipping, "dice": rolling, "secure": securing, "final": over}.items():
        page.goto(f"{base}/play/{game['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        page.wait_for_selector("#live:text-is('live')")
        where = f"{name} with {players} players at 320x568"
        shoot(page, f"{WURF}-{name}-{players}-320x568", full_page=True)
        fits(page, where)
        assert page.evaluate(PAST_ITS_PANEL) == [], f"{where}: reaches past its panel or the screen"
        if name == "flip":
            assert page.evaluate(GRID_PAST_PANEL) <= 0.5, f"the tiles reach into the panel's edge: {where}"
            sizes = page.eval_on_selector_all("#flip-grid .wtile", "(ts) => ts.map((t) => t.offsetWidth)")
            assert len(sizes) == 36 and set(sizes) == {48}, sizes


def base_on_two_sides(state: dict[str, Any]) -> bool:
    """Securing a base with two tiles on one side and one on another."""
    if state["phase"] != "secure":
        return False
    sides = sorted(len(tiles) for tiles in state["bases"][state["active"]].values() if tiles)
    return len(sides) >= 2 and sides[-1] >= 2


@pytest.mark.parametrize("players, seed", [(2, 3), (3, 1), (4, 1)])
def test_a_picked_tile_leaves_the_numbers_beside_it_in_sight(open_page: Callable[..., Any], base: str, app: Flask,
                                                              players: int, seed: int) -> None:
    """At 800x480 the ring of the tile picked on the base reached 6 px beyond it, over the side's number 2 px away
    (and the ring of the tile picked under the title touched the title's last line)."""
    game = start_game(base, WURF, PLAYERS[:players])
    play_until(app, game, base_on_two_sides, seed=seed)
    page = visit(open_page, base, game, KIOSK)
    pending = page.locator("#secure-tiles .wtile")
    assert pending.count() >= 3
    for i in range(pending.count()):
        tile = pending.nth(i)
        tile.click()
        page.wait_for_function("(t) => document.querySelectorAll(`#round .wtile.picked[data-tile='${t}'],"
                               " #table .wtile.picked[data-tile='${t}']`).length === 2",
                               arg=tile.get_attribute("data-tile"))
        shoot(page, f"{WURF}-secure-{players}-{i}-800x480")
        assert page.evaluate(COVERED) == [], f"a tile covers a number ({players} players, tile {i + 1} picked)"
        assert page.locator("#table .wurf-player.active .sideno").count() == 5


def finished_game(base: str) -> dict[str, Any]:
    """A finished game of Diego Drachenzahn (one round each)."""
    game = start_game(base, "diego-drachenzahn", ["Ada", "Ben"], rounds_per_player=1)
    post_events(base, game, {"type": "marble", "gate": 6}, {"type": "guess", "player": "Ben", "gate": 1},
                {"type": "reveal", "gate": 6}, {"type": "guess", "player": "Ada", "gate": 2},
                {"type": "reveal", "gate": 1})
    return game


def settled(page: Any) -> None:
    """Wait until the root's scroll-padding follows the header as measured: the page measures it after its first
    layout (a ResizeObserver), so until then the breakpoint's estimate stands. A page that never measures it keeps
    the estimate, and the assertions after this say by how much it is off."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_function(f"() => {{ const [b, p] = ({EDGES})(null); return p >= b && p <= b + 12; }}",
                               timeout=5000)
    except PlaywrightTimeout:
        pass


def header_pages(base: str) -> list[str]:
    """Every page with the sticky header: the home page, Camera, Devices, the hero cards, a game that is not there,
    and each game's page, one of them finished."""
    games = [start_game(base, game, ["Ada", "Ben", "Cleo"])
             for game in ("diego-drachenzahn", "drachensachen", WURF, "draci-hrad")]
    return ["/", "/camera", "/devices", "/heroes", "/play/999999",
            *[f"/play/{game['id']}" for game in [*games, finished_game(base)]]]


def long_home_page(open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> Any:
    """The home page with two games to carry on and nine recent ones: longer than the screen."""
    for _ in range(2):
        start_game(base, WURF, ["Ada", "Ben"])
    for _ in range(9):
        finished_game(base)
    page = open_page(*size)
    page.goto(base + "/")
    page.wait_for_selector("#finished .card")
    return page


@pytest.mark.parametrize("size", [(320, 568), (360, 740), PHONE, KIOSK, (1024, 600)],
                         ids=["phone-320", "phone-360", "phone-390", "kiosk", "tablet"])
def test_every_page_keeps_a_scroll_padding_of_its_header(open_page: Callable[..., Any], base: str,
                                                         size: tuple[int, int]) -> None:
    """What a focus, an anchor or a script brings into view stops below the sticky header: the root's scroll-padding
    is the header's height as measured (a little more), one row or two (a page's links may wrap under its title under
    360 px, or not)."""
    page = open_page(*size)
    for path in header_pages(base):
        page.goto(base + path)
        if path.startswith("/play/") and "999999" not in path:
            page.wait_for_selector("body[data-ready='yes']")
        settled(page)
        bottom, padding, _ = page.evaluate(EDGES, None)
        where = f"{path} at {size[0]}x{size[1]}"
        assert padding >= bottom, f"{where}: a scroll into view stops under the header ({padding} < {bottom} px)"
        assert padding <= bottom + 12, f"{where}: the scroll-padding is far more than the header ({padding} px)"


@pytest.mark.parametrize("size", [PHONE, KIOSK], ids=["phone", "kiosk"])
def test_an_anchor_stops_below_the_header(open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    """An anchor (the home page's #new-game, #kept) scrolls its section's top to just below the header."""
    page = long_home_page(open_page, base, size)
    for anchor in ("#new-game", "#kept"):
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_function("() => window.scrollY === 0")
        page.evaluate("(anchor) => { location.hash = anchor; }", anchor)
        page.wait_for_function("() => window.scrollY > 0")
        bottom, padding, top = page.evaluate(EDGES, anchor)
        assert bottom <= top <= padding + 1, f"{anchor} at {top} px, the header's bottom at {bottom} px"
        page.evaluate("history.replaceState(null, '', '/')")


#: Scroll the page so that `sel`'s top edge lies 8 px under the screen's top, under the header; where it then is.
UNDER_THE_HEADER = """(sel) => { const el = document.querySelector(sel);
    window.scrollTo(0, window.scrollY + el.getBoundingClientRect().top - 8);
    return el.getBoundingClientRect().top; }"""


@pytest.mark.parametrize("size, page_of, control", [
    (PHONE, "wurf", "#egg-toggle"),
    # the tablets and the 800x480 screen have the whole dice step on them, without a scroll: a tile of the middle on a
    # phone (one of the table lies too near the page's foot to scroll up under the header)
    (PHONE, "wurf", "#middle .btn"),
    (PHONE, "home", "#hero-cards-link"),
    (KIOSK, "home", "#new-game [data-game]"),
], ids=["phone-egg", "phone-tile", "phone-home", "kiosk-home"])
def test_a_focused_control_comes_out_from_under_the_header(open_page: Callable[..., Any], base: str, app: Flask,
                                                           size: tuple[int, int], page_of: str, control: str) -> None:
    """A control focused (as by the Tab key) while half under the sticky header comes out below it: a tile of the
    middle in the dice, the egg, the home page's links and games."""
    if page_of == "wurf":
        page = visit(open_page, base, dice_screen(app, base, 4), size)
    else:
        page = long_home_page(open_page, base, size)
    top = page.evaluate(UNDER_THE_HEADER, control)
    bottom, _, _ = page.evaluate(EDGES, None)
    assert 0 <= top < bottom, f"the page could not scroll {control} under the header ({top} px)"
    page.locator(control).first.focus()
    page.wait_for_function("(sel) => document.activeElement === document.querySelector(sel)", arg=control)
    bottom, padding, top = page.evaluate(EDGES, control)
    assert top >= bottom, f"{control} at {top} px stays under the header (its bottom at {bottom} px)"


def test_many_unfinished_games_leave_new_game_in_sight(open_page: Callable[..., Any], base: str) -> None:
    """Six unfinished games put six cards above New game, and its games below the kiosk's screen. Home shows the
    newest three as cards, the rest behind "3 more unfinished games", shown in place and put back by a tap; a game
    started on another device meanwhile leaves them as they were shown."""
    games = [start_game(base, WURF, ["Ada", "Ben"]) for _ in range(6)]
    page = open_page(*KIOSK)
    page.goto(base + "/")
    cards = page.locator("#running .card")
    expect(cards).to_have_count(6)
    newest = {str(g["id"]) for g in games[3:]}
    shown = lambda: {c.get_attribute("data-session") for c in cards.all() if c.is_visible()}  # noqa: E731
    assert shown() == newest
    more = page.locator("#more-running")
    expect(more).to_have_text("3 more unfinished games")
    in_view(page, "#new-game [data-game]")
    fits(page, "home with six unfinished games")
    more.click()
    expect(more).to_have_text("Show fewer")
    expect(more).to_have_attribute("aria-expanded", "true")
    assert shown() == {str(g["id"]) for g in games}
    games.append(start_game(base, WURF, ["Cleo", "Dan"]))  # on another device: Home shows it, still all of them
    expect(cards).to_have_count(7, timeout=20_000)
    expect(more).to_have_text("Show fewer")
    assert shown() == {str(g["id"]) for g in games}
    more.click()
    expect(more).to_have_text("4 more unfinished games")
    assert shown() == {str(g["id"]) for g in games[4:]}


LONGEST_NAME = "W" * 24  # the longest name the table takes (companion.table), of its widest letter, with no space


@pytest.mark.parametrize("game, options, done", [
    (WURF, {}, lambda s: s["phase"] == "dice" and s["round"] >= 2),
    ("drachensachen", {"hindrances": True, "tricks": True}, lambda s: s.get("round", 0) >= 2 and s["phase"] != "setup"),
], ids=["drachen-wurf", "drachensachen"])
def test_the_longest_name_without_a_space_keeps_a_phone_from_scrolling_sideways(
        open_page: Callable[..., Any], base: str, app: Flask, game: str, options: dict[str, Any],
        done: Callable[[dict[str, Any]], bool]) -> None:
    """A name of 24 W's pushed a phone's Drachen Wurf page 532 px wide on a 390 px screen (the bases' sides 5 and 6
    out of sight), and cut it short in Drachensachen's order of play: it breaks where it must, and is read whole."""
    view = start_game(base, game, [LONGEST_NAME, "Ben", "Cleo"], **options)
    play_until(app, view, done, seed=4)
    page = open_page(*PHONE)
    page.goto(f"{base}/play/{view['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    # a name past its own box is cut there (an ellipsis, or hidden)
    cut = page.evaluate("""(name) => [...document.querySelectorAll('.who')].filter((el) => el.textContent === name
        && el.checkVisibility()
        && el.getBoundingClientRect().right > el.parentElement.getBoundingClientRect().right + 1)
        .map((el) => el.parentElement.id || el.parentElement.className)""", LONGEST_NAME)
    assert cut == [], cut

"""Text read from across the table, in headless Chromium: the last of a review of readability. Drachen Wurf's grid
headings were 10 to 11 px, Dračí hrad's shop prices 11 px and its heroes' names and equipment 12 px, where the rest of
the kiosk keeps 13 px or more; a Dračí hrad hero who is out, Diego's marbles waiting for their count to be confirmed and
Drachen Wurf's used tiles were drawn faded, their words under 4.5:1; and Drachensachen's Chaos set-up of five players,
"Bartholomäus Drachenherz" among them, scrolled on the 800x480 screen."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    BROKEN_WORDS,
    CONTRAST,
    KIOSK,
    NAMES,
    PHONE,
    SCREENS,
    WIDE,
    current_round,
    fits,
    in_view,
    open_game,
    page_opener,
    post_events,
    shoot,
    start_game,
)
from tests.servers import serving
from tests.test_drachen_wurf_browser import play_until
from tests.test_drachensachen_browser import finished_game as finished_drachensachen
from tests.test_drachensachen_browser import new_game as new_drachensachen
from tests.test_fit_800_browser import BELOW, FONT_SIZES, SETUP_TEXTS, chaos_in_sight
from tests.test_kiosk_fit_browser import BELOW_THE_FOLD, COLOURS, CUT, LANDSCAPES, deep_in_the_game, wurf
from tests.waiting import wait_for

#: How much of an element's ink is seen: the product of its and its ancestors' opacity (1: nothing faded). CONTRAST
#: reads the colours only, so a faded text passes it: the two together say what a person sees.
SEEN = """(el) => { let seen = 1;
    for (let e = el; e; e = e.parentElement) seen *= +getComputedStyle(e).opacity;
    return seen; }"""

#: The pairs of `sel` (seen) whose boxes overlap, by their texts.
OVERLAPS = """(sel) => { const boxes = [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility())
    .map((el) => [el.textContent, el.getBoundingClientRect()]);
    return boxes.flatMap(([a, p], i) => boxes.slice(i + 1)
        .filter(([, q]) => p.left < q.right - .5 && q.left < p.right - .5 && p.top < q.bottom - .5
                           && q.top < p.bottom - .5)
        .map(([b]) => `${a} / ${b}`)); }"""

#: The parts of `sel` (seen) reaching past the left or right edge of the element `within` (px beyond it).
PAST = """([sel, within]) => { const box = document.querySelector(within).getBoundingClientRect();
    return [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility()).map((el) => {
        const r = el.getBoundingClientRect();
        return [el.textContent, Math.max(box.left - r.left, r.right - box.right)]; })
    .filter(([, px]) => px > .5); }"""


def faded_or_faint(locator: Any, what: str) -> list[str]:
    """Each of `locator`'s elements whose text is drawn faded, or reads under 4.5:1 on what lies behind it."""
    faults = []
    for i in range(locator.count()):
        el = locator.nth(i)
        text, ratio, seen = el.inner_text().strip(), el.evaluate(CONTRAST), el.evaluate(SEEN)
        if seen < 1 or ratio < 4.5:
            faults.append(f"{what} {text!r}: {ratio:.2f}:1, drawn at opacity {seen:.2f}")
    return faults


def small(page: Any, selectors: tuple[str, ...], px: float = 13) -> dict[str, Any]:
    """The smallest size (px) of the text of each of `selectors` a person sees, where under `px` or not seen at all."""
    return {sel: size for sel, size in page.evaluate(FONT_SIZES, list(selectors)).items() if size is None or size < px}


#: Each seen text of `sel` in an SVG drawing: its words, the size (px) it is drawn at on the screen (its font size in
#: the drawing's units times the drawing's scale), and how far (px) its ink reaches past the drawing's box.
DRAWN_TEXTS = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility()).map((el) => {
    const r = el.getBoundingClientRect(), box = el.ownerSVGElement.getBoundingClientRect();
    return [el.textContent, parseFloat(getComputedStyle(el).fontSize) * el.ownerSVGElement.getScreenCTM().a,
            Math.max(0, box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom)]; })"""


def drawn_small(page: Any, sel: str, px: float = 13) -> list[str]:
    """The texts of `sel` in an SVG drawing drawn under `px` on the screen, or reaching past the drawing."""
    return [f"{text}: {size:.1f} px, {past:.1f} px past the drawing"
            for text, size, past in page.evaluate(DRAWN_TEXTS, sel) if size < px or past > .5]


# ---- Drachen Wurf ---------------------------------------------------------------------------------------------------

#: The grid's headings: the landscapes' names under their symbols, the colours' beside or under their swatches.
GRID_HEADINGS = ("#flip-grid .colhead span", "#flip-grid .rowhead span:last-child")


@SCREENS
def test_drachen_wurf_s_grid_headings_are_13_px_whole_and_the_grid_still_fits(open_page: Callable[..., Any],
                                                                              base: str, app: Flask,
                                                                              size: tuple[int, int]) -> None:
    """The landscapes' names were 9.6 px on the Pi's screens (10.2 px on a phone), the colours' 11.2 px (11.9 px),
    "Mountains" cut at 1024x600: each is 13 px, whole ("Mountains" and "Volcano" are wider than a tile's column, so
    every other landscape's name takes a second line), no name over another or past the grid; the 36 tiles are on
    the Pi's screens as before, the 1024x600 screen does not scroll, and nothing scrolls sideways."""
    game = wurf(base, app, 4, late=True)  # late: tiles up, on the bases and in the hoards
    page = open_game(open_page, base, game, *size)
    expect(page.locator("#flip-grid .wtile")).to_have_count(36)
    where = f"Drachen Wurf's grid at {size[0]}x{size[1]}"
    shoot(page, f"readable-wurf-grid-{size[0]}x{size[1]}")
    fits(page, where)
    assert small(page, GRID_HEADINGS) == {}, f"{where}: headings under 13 px: {small(page, GRID_HEADINGS)}"
    assert page.locator("#flip-grid .colhead").all_inner_texts() == LANDSCAPES
    assert page.locator("#flip-grid .rowhead").all_inner_texts() == COLOURS
    assert page.evaluate(CUT, ", ".join(GRID_HEADINGS)) == [], f"{where}: headings cut short"
    assert page.evaluate(OVERLAPS, "#flip-grid .colhead span, #flip-grid .colhead .wsym") == [], f"{where}: overlap"
    assert page.evaluate(PAST, ["#flip-grid .colhead span", "#flip-grid"]) == [], f"{where}: a name past the grid"
    if size != PHONE:
        below = page.evaluate(BELOW_THE_FOLD, "#flip-grid > *")
        assert max(below) == 0, f"{where}: the grid reaches {max(below)} px below the screen"
        for control in ("#turn", "#hint", "#flip-middle"):
            in_view(page, control)
    if size == WIDE:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"


def test_drachen_wurf_s_used_tiles_are_marked_not_faded(open_page: Callable[..., Any], base: str, app: Flask) -> None:
    """A tile gone from the pile was drawn at opacity .28 (one up in the middle at .8), its mark ("up", "B" on a
    base, "H" in a hoard) 12 px: the mark reads at 4.5:1 or better at 13 px, never faded; a tile on a base or in a
    hoard stands hollow with a dotted edge, one up in the middle keeps its colour inside the accent ring."""
    game = wurf(base, app, 4, late=True)
    page = open_game(open_page, base, game, *KIOSK)
    expect(page.locator("#flip-grid .wtile")).to_have_count(36)
    gone = page.locator("#flip-grid .wtile.gone")
    places = set(gone.evaluate_all("(ts) => ts.map((t) => t.classList[2])"))
    assert {"middle", "base", "hoard"} <= places, places
    marks = page.locator("#flip-grid .wtile.gone .tnote")
    assert marks.count() == gone.count()
    assert faded_or_faint(marks, "a used tile's mark") == []
    assert small(page, ("#flip-grid .wtile.gone .tnote",)) == {}
    edges = gone.evaluate_all("(ts) => ts.map((t) => [t.classList[2], getComputedStyle(t).borderTopStyle,"
                              " getComputedStyle(t).outlineStyle])")
    assert all(edge == "dotted" for place, edge, _ in edges if place != "middle"), edges
    assert all(ring == "solid" for place, _, ring in edges if place == "middle"), edges


# ---- Dračí hrad -----------------------------------------------------------------------------------------------------

#: The texts of the heroes' cards and of the shop read across the table.
HRAD_TEXTS = ("#hr-shop .hr-price", "#hr-shop .hr-square", ".hr-hero .hr-hero-name", ".hr-hero .name",
              ".hr-hero .hr-kit", ".hr-hero .hr-kit-card", ".hr-hero .hr-lives-n")


def hero_out(base: str) -> dict[str, Any]:
    """Four heroes with badges and equipment; Moritz (Argilos) fell to the Dragon, alone, in one charge."""
    session = deep_in_the_game(base)
    post_events(base, session, {"type": "fight", "players": ["Moritz"], "enemy": "dragon"},
                {"type": "strike", "enemy_dice": [6, 6, 6], "defence_dice": [1, 1, 1], "targets": ["Moritz"] * 3})
    return session


def city(page: Any) -> None:
    page.click("[data-pane='city']")
    expect(page.locator("#hr-shop .hr-price").first).to_be_visible()


@SCREENS
def test_draci_hrad_s_prices_heroes_names_and_equipment_are_13_px_and_fit(open_page: Callable[..., Any], base: str,
                                                                         size: tuple[int, int]) -> None:
    """The shop's prices were 11.2 px on the Pi's screens, the heroes' names, equipment and the shop's squares 12 px:
    each is 13 px at least; the four heroes' cards are whole on the Pi's screens, their shop's last row and Next too,
    and neither screen scrolls, deep in a game and after a hero fell (at 800x480 the page scrolled by 1 px then)."""
    for moment, session in (("deep in the game", deep_in_the_game(base)), ("a hero out", hero_out(base))):
        page = open_game(open_page, base, session, *size)
        city(page)
        expect(page.locator(".hr-hero")).to_have_count(4)
        where = f"Dračí hrad's city, {moment}, at {size[0]}x{size[1]}"
        shoot(page, f"readable-hrad-{moment.replace(' ', '-')}-{size[0]}x{size[1]}")
        fits(page, where)
        assert small(page, HRAD_TEXTS) == {}, f"{where}: text under 13 px: {small(page, HRAD_TEXTS)}"
        assert page.evaluate(CUT, ".hr-hero .name, #hr-shop .hr-item") == [], f"{where}: names cut short"
        if size == PHONE:
            continue
        below = page.evaluate(BELOW_THE_FOLD, ".hr-hero")
        assert below == [0, 0, 0, 0], f"{where}: hero cards below the screen's bottom edge by {below} px"
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
        for control in ("#hr-next", "[data-item='sword']", "[data-stop='oracle']", "[data-item='cloak']"):
            in_view(page, control)


def test_a_draci_hrad_hero_who_is_out_reads_at_4_5_to_1(open_page: Callable[..., Any], base: str) -> None:
    """The card of a hero out of the game was drawn at opacity .6: its name, purse, lives, badges and equipment read
    at 4.5:1 or better, never faded; the card says it by its "out" badge and a dashed edge."""
    page = open_game(open_page, base, hero_out(base), *KIOSK)
    card = page.locator(".hr-hero.out")
    expect(card).to_have_count(1)
    expect(card.locator(".hr-badge.out")).to_have_text("out")
    texts = card.locator(".name, .hr-hero-name, .hr-score, .hr-gold, .hr-treasure, .hr-lives-n, .hr-badge, .hr-kit,"
                         " .hr-kit-card")
    assert texts.count() >= 9
    assert faded_or_faint(texts, "Moritz's card:") == []
    assert card.evaluate("(el) => getComputedStyle(el).borderTopStyle") == "dashed"
    fits(page, "a hero out at 800x480")


# ---- Diego Drachenzahn -----------------------------------------------------------------------------------------------

def test_diego_s_marbles_waiting_to_be_confirmed_read_at_4_5_to_1(browser: Any, make_app: Callable[..., Flask]) -> None:
    """The camera alone sees four marbles where the round holds three: the three shown wait for the count to be
    confirmed, and were drawn at opacity .45. Their gates read at 4.5:1 or better, never faded; the slots say they
    wait by a dashed edge and no fill."""
    app = make_app(BEAMS=False)  # the camera alone
    castle = app.extensions["sensors"].castle
    with serving(app) as url, page_opener(browser, url) as open_:
        session = start_game(url, "diego-drachenzahn", ["Mum", "Lena", "Tom"], gate_names=NAMES)
        for gate in (1, 4, 4):
            castle.add_marble(gate)
        wait_for(lambda: current_round(url, session)["marbles"] == [1, 4, 4])
        page = open_game(open_, url, session, *KIOSK)
        castle.add_marble(6)
        expect(page.locator("#slots")).to_have_class("slots stale")
        slots = page.locator("#slots .slot.filled")
        expect(slots).to_have_count(3)
        shoot(page, "readable-diego-stale-800x480")
        assert faded_or_faint(page.locator("#slots .slot.filled > span:not(.sr-only), #slots .slot.filled small"),
                              "a waiting marble's") == []
        edges = slots.evaluate_all("(ss) => ss.map((s) => [getComputedStyle(s).borderTopStyle,"
                                   " getComputedStyle(s).backgroundColor])")
        assert all(edge == "dashed" and fill == "rgba(0, 0, 0, 0)" for edge, fill in edges), edges
        fits(page, "marbles waiting at 800x480")


# ---- Drachensachen ---------------------------------------------------------------------------------------------------

BARTHOLOMAUS = "Bartholomäus Drachenherz"


def chaos_with_a_long_name(base: str, seat: int) -> tuple[dict[str, Any], list[str]]:
    """Five players, Bartholomäus Drachenherz at `seat`, in round 2's set-up: the trick still to reveal, the second
    seat went out and drew Chaos, so that every player draws a hindrance; the others lost 12 coins each, capped at 10
    (the longest summary of a round). The first seat started round 1."""
    players = ["Ada", "Ben", "Cleo", "Dan", "Eva"]
    players[seat] = BARTHOLOMAUS
    game = new_drachensachen(base, players, tricks=True, hindrances=True)
    post_events(base, game, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": players[0]},
                {"type": "went_out", "player": players[1]},
                *({"type": "coins", "player": p, "coins": 12} for p in players if p != players[1]),
                {"type": "hindrance", "kind": "chaos", "player": players[1]})
    return game, players


@pytest.mark.parametrize("seat", range(5))
def test_five_players_chaos_set_up_with_a_long_name_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str,
                                                                          seat: int) -> None:
    """Five players under Chaos, Bartholomäus Drachenherz among them, scrolled at 800x480 by 12 to 18 px (his row's
    name stood above its buttons, a line more; his name on the score board pushed the chart below the screen): the
    page fits without a scroll wherever he sits, nothing hidden: the turn, the last round's losses, every trick to
    choose, each player's three hindrances, Next turn, every score and the chart in sight, his name whole and broken
    between its words only, the text no smaller than at 1024x600."""
    game, players = chaos_with_a_long_name(base, seat)
    page = open_game(open_page, base, game, *KIOSK)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(5)
    expect(page.locator("#ds-trick .ds-choice")).to_have_count(6)
    where = f"the Chaos set-up of five, Bartholomäus at seat {seat + 1}, at 800x480"
    shoot(page, f"readable-chaos-5-long-{seat}-800x480")
    chaos_in_sight(page, players, where, ("#ds-last", "#ds-lost-note", "#ds-chart"))
    name = page.locator(f"#ds-chaos [data-player='{BARTHOLOMAUS}'] .name")
    expect(name).to_have_text(BARTHOLOMAUS)
    assert page.evaluate(BROKEN_WORDS, "#ds-chaos .name, #turn .turn-name, #scoreboard .name") == [], where
    assert name.evaluate("""(el) => { const text = document.createRange(); text.selectNodeContents(el);
        return text.getBoundingClientRect().width <= el.getBoundingClientRect().width + .5; }"""), f"{where}: cut"
    # the name whose turn it is a size smaller where it would not fit the line (kit.js fitTurnName), 20 px at least
    assert page.evaluate(FONT_SIZES, ["#turn .turn-name"])["#turn .turn-name"] >= 20
    texts = [sel for sel in SETUP_TEXTS if sel != "#turn .turn-name"]
    sizes = page.evaluate(FONT_SIZES, texts)
    wider = open_game(open_page, base, game, *WIDE)
    expect(wider.locator("#ds-chaos .ds-chaos-row")).to_have_count(5)
    assert wider.evaluate(BELOW) <= 0, f"the same at 1024x600 scrolls by {wider.evaluate(BELOW)} px"
    elsewhere = wider.evaluate(FONT_SIZES, texts)
    smaller = {sel: (px, elsewhere[sel]) for sel, px in sizes.items() if px is None or px < elsewhere[sel]}
    assert not smaller, f"{where}: text smaller than at 1024x600, or not seen (px here, there): {smaller}"


#: The small texts of a later round under Chaos: the last round's losses ("(12 capped at 10)"), the note above the
#: chart, the chart's caption and the score board's names (a long one a size smaller).
DS_SMALL_TEXTS = ("#ds-last", "#ds-last small", "#ds-lost-note", "#ds-chart figcaption", "#scoreboard .name")


@SCREENS
def test_drachensachen_s_losses_chart_and_long_name_are_13_px_and_the_set_up_still_fits(
        open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    """On the Pi's screens "(12 capped at 10)" in the last round's losses was 11.3 px, the chart's caption 12 px, the
    note above it and "Bartholomäus Drachenherz" on the score board 12.8 px, the chart's axis numbers drawn at 5.2 px:
    each is 13 px at least (the numbers as drawn, inside the chart), and the Chaos set-up of five still fits the
    800x480 screen without a scroll, everything in sight, as the 1024x600 one."""
    game, players = chaos_with_a_long_name(base, 0)
    page = open_game(open_page, base, game, *size)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(5)
    expect(page.locator("#ds-last small").first).to_have_text(" (12 capped at 10)")
    expect(page.locator("#scoreboard .name.long")).to_have_text(BARTHOLOMAUS)
    where = f"Drachensachen's Chaos set-up at {size[0]}x{size[1]}"
    shoot(page, f"readable-ds-small-{size[0]}x{size[1]}")
    assert small(page, DS_SMALL_TEXTS) == {}, f"{where}: text under 13 px: {small(page, DS_SMALL_TEXTS)}"
    assert page.locator("#ds-chart .ds-tick").count() >= 3
    assert drawn_small(page, "#ds-chart .ds-tick") == [], f"{where}: the chart's numbers"
    assert page.evaluate(OVERLAPS, "#ds-chart .ds-tick") == [], f"{where}: the chart's numbers over each other"
    if size == KIOSK:
        chaos_in_sight(page, players, where, ("#ds-last", "#ds-lost-note", "#ds-chart"))
    else:
        fits(page, where)
    if size == WIDE:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
        in_view(page, "#ds-chart")


def many_rounds(base: str, rounds: int) -> dict[str, Any]:
    """Three players, `rounds` rounds played, each losing 1 coin in each (the game goes on)."""
    players = ["Ada", "Ben", "Cleo"]
    game = new_drachensachen(base, players)
    post_events(base, game, {"type": "starter", "player": "Ada"})
    for r in range(rounds):
        out = players[r % 3]
        post_events(base, game, {"type": "went_out", "player": out},
                    *({"type": "coins", "player": p, "coins": 1} for p in players if p != out))
    return game


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["800x480", "phone"])
def test_drachensachen_s_chart_numbers_are_13_px_apart_and_whole_after_many_rounds_and_at_the_end(
        open_page: Callable[..., Any], base: str, size: tuple[int, int]) -> None:
    """After 12 rounds the chart's numbers (the limit, 0 and the rounds, as many as have room) are drawn at 13 px at
    least, none over another or past the chart, the last round's among them; on the final screen too (its axis
    numbers were 12 px at 800x480)."""
    page = open_game(open_page, base, many_rounds(base, 12), *size)
    ticks = page.locator("#ds-chart .ds-tick")
    expect(ticks.last).to_have_text("12")
    where = f"Drachensachen's chart after 12 rounds at {size[0]}x{size[1]}"
    shoot(page, f"readable-ds-chart-12-{size[0]}x{size[1]}")
    assert ticks.all_text_contents()[:2] == ["21", "0"]
    assert drawn_small(page, "#ds-chart .ds-tick") == [], f"{where}: the chart's numbers"
    assert page.evaluate(OVERLAPS, "#ds-chart .ds-tick") == [], f"{where}: the chart's numbers over each other"
    fits(page, where)
    final = open_game(open_page, base, finished_drachensachen(base), *size)
    expect(final.locator("#ds-final-chart .ds-tick")).to_have_count(6)  # 21, 0 and the four rounds
    where = f"Drachensachen's final chart at {size[0]}x{size[1]}"
    assert drawn_small(final, "#ds-final-chart .ds-tick") == [], f"{where}: the chart's numbers"
    assert final.evaluate(OVERLAPS, "#ds-final-chart .ds-tick") == [], f"{where}: the chart's numbers over each other"
    assert small(final, ("#ds-final-chart figcaption",)) == {}, f"{where}: its caption under 13 px"


# ---- Dračí hrad: the last fight's sums, the castle card's small labels ---------------------------------------------

@SCREENS
def test_draci_hrad_s_fight_sums_and_castle_labels_are_13_px_and_fit(open_page: Callable[..., Any], base: str,
                                                                     size: tuple[int, int]) -> None:
    """The last fight's sums were 11.3 px on the Pi's screens, the castle card's labels under its buttons (the dart's
    attack, each obstacle's wait) 11.2 px and each hero's share of a treasure 10.4 px: each is 13 px at least, and the
    Pi's screens still show the four heroes' cards and the castle card's every row without a scroll."""
    page = open_game(open_page, base, hero_out(base), *size)
    expect(page.locator("#hr-last .sum")).to_contain_text(" damage")
    where = f"Dračí hrad's last fight at {size[0]}x{size[1]}"
    assert small(page, ("#hr-last", "#hr-last .sum")) == {}, f"{where}: its sums under 13 px"
    page.click("[data-pane='castle']")
    page.locator("#hr-castle [data-share]").first.click()
    expect(page.locator("#hr-castle .hr-treasure-btn small").first).to_contain_text("each")
    expect(page.locator("#hr-castle .hr-obstacle small")).to_have_count(3)
    where = f"Dračí hrad's castle card, a treasure shared, at {size[0]}x{size[1]}"
    shoot(page, f"readable-hrad-castle-{size[0]}x{size[1]}")
    texts = ("#hr-last .sum", "#hr-castle small", "#hr-castle .hr-row-label")
    assert small(page, texts) == {}, f"{where}: text under 13 px: {small(page, texts)}"
    assert page.evaluate(CUT, "#hr-castle .btn, #hr-castle small") == [], f"{where}: labels cut short"
    fits(page, where)
    if size == PHONE:
        return
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    below = page.evaluate(BELOW_THE_FOLD, ".hr-hero")
    assert below == [0, 0, 0, 0], f"{where}: hero cards below the screen's bottom edge by {below} px"
    for control in ("#hr-last", "#hr-next", "#hr-dart", "#hr-sceptre", "[data-obstacle='thick_fog']",
                    "#hr-castle .hr-row:last-child"):
        in_view(page, control)


# ---- Drachen Wurf: a base's side numbers, the steal mark, the middle's and the dice's notes -------------------------

#: Each player's base whose sides' numbers stand on more than one line.
SIDES_ON_LINES = """() => [...document.querySelectorAll('#table .wurf-player .base')].filter((b) => b.checkVisibility())
    .filter((b) => new Set([...b.querySelectorAll('.sideno')].map((n) => Math.round(n.getBoundingClientRect().top)))
        .size > 1).map((b) => b.closest('.wurf-player').dataset.player)"""

#: The steal marks reaching past their tile (px).
MARK_PAST_TILE = """() => [...document.querySelectorAll('#table .wtile .steal-mark')].map((m) => {
    const r = m.getBoundingClientRect(), t = m.closest('.wtile').getBoundingClientRect();
    return Math.max(0, t.left - r.left, r.right - t.right, t.top - r.top, r.bottom - t.bottom); })
    .filter((px) => px > .5)"""

WURF_SMALL_TEXTS = ("#table .sideno", "#table .steal-mark", "#middle-note", "#won-note")


@SCREENS
def test_drachen_wurf_s_side_numbers_steal_mark_and_notes_are_13_px_and_fit(open_page: Callable[..., Any], base: str,
                                                                            app: Flask, size: tuple[int, int]) -> None:
    """A base's side numbers and the mark on a tile that can be stolen were 12 px on the Pi's screens, the middle's
    and the dice's notes 12.7 px: each is 13 px at least; every base's sides still stand on one line, each mark inside
    its tile, and neither of the Pi's screens scrolls."""
    game = start_game(base, "drachen-wurf", ["Ada", "Ben", "Cleo"])
    play_until(app, game, lambda s: s["phase"] == "dice" and s["max_k"] == 6 and s["round"] >= 4
               and any(s["stealable"]["6"]), seed=4)
    page = open_game(open_page, base, game, *size)
    expect(page.locator("#table .wtile.steal .steal-mark").first).to_be_visible()
    expect(page.locator("#won-note")).to_contain_text("dice")
    expect(page.locator("#middle-note")).to_contain_text("face down")
    where = f"Drachen Wurf's dice at {size[0]}x{size[1]}"
    shoot(page, f"readable-wurf-dice-{size[0]}x{size[1]}")
    assert small(page, WURF_SMALL_TEXTS) == {}, f"{where}: text under 13 px: {small(page, WURF_SMALL_TEXTS)}"
    assert page.evaluate(SIDES_ON_LINES) == [], f"{where}: a base's sides on two lines"
    assert page.evaluate(MARK_PAST_TILE) == [], f"{where}: a steal mark past its tile"
    fits(page, where)
    if size != PHONE:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
        in_view(page, "#table .wtile.steal")


# ---- every game ------------------------------------------------------------------------------------------------------

@SCREENS
@pytest.mark.parametrize(("game", "players", "names"), [
    ("diego-drachenzahn", ["Ada", BARTHOLOMAUS, "Cleo", "Dan"], ("#scoreboard .name.long",)),
    ("drachen-wurf", ["Ada", BARTHOLOMAUS, "Cleo"], ("#scoreboard .name.long",)),
    ("draci-hrad", ["Ada", BARTHOLOMAUS, "Cleo", "Dan"], (".hr-hero-head .name.long",))],
    ids=["diego", "wurf", "hrad"])
def test_a_long_name_on_every_game_s_score_board_is_13_px_and_fits(open_page: Callable[..., Any], base: str,
                                                                   game: str, players: list[str],
                                                                   names: tuple[str, ...],
                                                                   size: tuple[int, int]) -> None:
    """A long name is drawn a size smaller on the score board (and beside a hero, and in a guess row): 12.8 px in
    Diego, Drachen Wurf and Dračí hrad where Drachensachen's was 13 px already. 13 px at least, every page still as
    it was: nothing sideways, the header whole."""
    page = open_game(open_page, base, start_game(base, game, players), *size)
    expect(page.locator(".name.long").first).to_be_attached()
    assert small(page, names) == {}
    fits(page, f"{game} with {BARTHOLOMAUS} at {size[0]}x{size[1]}")

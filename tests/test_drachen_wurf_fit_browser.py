"""Drachen Wurf on the Pi's 800x480 screen, the 1024x600 tablet and a 390x844 phone, in headless Chromium: whole games
of two to six players played through, every base, hoard and button on the screen at every step without a scroll (a
phone's page scrolls, with nothing cut); the name whose turn it is whole, broken between its words only; the turn line
fitted again when an undo brings the round back from the final screen; a tile's mark (its side, or the 6 of six dice)
read at 13 px."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    BROKEN_WORDS,
    KIOSK,
    PHONE,
    TEXT_LINES,
    WAIT_MS,
    fits,
    open_game,
    post_events,
    shoot,
    start_game,
)
from tests.test_drachen_wurf_browser import WURF, play_until
from tests.test_final_screens_browser import played_to_the_end
from tests.test_fit_800_browser import BELOW, TURN_NAME

TABLET = (1024, 600)
BARTHOLOMAUS = "Bartholomäus Drachenherz"
#: The table of the first dice step that scrolled by 23 px at 800x480 (503 px high), and two more for six.
PLAYERS = ["Anna", BARTHOLOMAUS, "David", "Ben", "Eva", "Finn"]

#: What a person cannot see of the page as it is, without scrolling: each base, hoard and name on the table, the turn,
#: and each button shown (the tiles to tap among them), that reaches past an edge of the screen ("what: top..bottom").
OFF_THE_SCREEN = """() => [...document.querySelectorAll('#table .wurf-player :is(.phead, .base, .hoard), #turn,'
        + ' main :is(button, a.btn)')].filter((el) => el.checkVisibility() && !el.closest('[hidden], .overlay'))
    .filter((el) => { const r = el.getBoundingClientRect();
        return r.top < -.5 || r.left < -.5 || r.bottom > innerHeight + .5 || r.right > innerWidth + .5; })
    .map((el) => `${el.closest('[data-player]')?.dataset.player ?? ''} ${el.id || el.className}`
        + ` ${el.textContent.trim().slice(0, 20)}: ${Math.round(el.getBoundingClientRect().top)}..`
        + `${Math.round(el.getBoundingClientRect().bottom)}`)"""

#: The name whose turn it is where it reaches past its line (cut short, or beyond the line's end): its size and the
#: line's width; null where it fits.
NAME_PAST_ITS_LINE = """() => { const turn = document.getElementById('turn'), name = turn?.querySelector('.turn-name');
    if (!name?.clientWidth) return null;
    const line = turn.getBoundingClientRect(), box = name.getBoundingClientRect();
    if (name.scrollWidth <= name.clientWidth + .5 && box.right <= line.right + .5) return null;
    return `${name.textContent} at ${getComputedStyle(name).fontSize} on a line ${Math.round(line.width)} px wide`; }"""

#: What of a player's name and points reaches past their place on the table (over the next player's).
PAST_ITS_PLACE = """() => [...document.querySelectorAll('#table .wurf-player .phead > *')].map((el) => {
        const card = el.closest('.wurf-player').getBoundingClientRect(), box = el.getBoundingClientRect();
        const past = Math.max(box.right - card.right, card.left - box.left);
        return past > .5 ? `${el.closest('[data-player]').dataset.player}: ${el.className} ${Math.round(past)} px past`
            : null; }).filter(Boolean)"""

#: The names on the table and the turn's that a line break splits inside a word.
NAMES = "#turn .turn-name, #table .who"


def follow(open_page: Callable[..., Any], base: str, game: dict[str, Any]) -> dict[tuple[int, int], Any]:
    """The game's page on each screen, following it live."""
    return {size: open_game(open_page, base, game, *size) for size in (KIOSK, TABLET, PHONE)}


def shown(page: Any, seq: int) -> None:
    """Wait until the page shows the game at `seq`."""
    page.wait_for_selector(f"body[data-seq='{seq}']", state="attached")


#: How far the page scrolls, what of it is off the screen or past its player's place, and the turn's name past its
#: line, once it shows the game at `seq` (its body's data-seq; null: as it is), in one call: a whole game's every step
#: is read on up to four screens.
SEEN_AT = f"""async (seq) => {{
    const shows = () => seq === null || document.body.dataset.seq === String(seq);
    if (!shows()) await new Promise((done, fail) => {{
        const watch = new MutationObserver(() => {{ if (shows()) {{ watch.disconnect(); done(); }} }});
        watch.observe(document.body, {{ attributes: true, attributeFilter: ['data-seq'] }});
        setTimeout(() => fail(new Error(`step ${{seq}} not shown: ${{document.body.dataset.seq}}`)), {WAIT_MS}); }});
    return [{BELOW}, [...({OFF_THE_SCREEN})(), ...({PAST_ITS_PLACE})()], ({NAME_PAST_ITS_LINE})()]; }}"""


def in_sight(page: Any, where: str, seq: int | None = None) -> None:
    """The whole turn and table on a 7-inch screen as it is (once it shows the game at `seq`, where given): no scroll,
    nothing past an edge, the name whose turn it is within its line."""
    below, off, name = page.evaluate(SEEN_AT, seq)
    assert below <= 0, f"{where}: the page scrolls by {below} px"
    assert off == [], f"{where}: off the screen: {off}"
    assert name is None, f"{where}: the turn's name reaches past its line: {name}"


def looked_at(page: Any, size: tuple[int, int], where: str) -> None:
    """The screen as `in_sight` (a phone's page scrolls), every tap target whole, names broken between words only."""
    if size != PHONE:
        in_sight(page, where)
    fits(page, where)
    broken = page.evaluate(BROKEN_WORDS, NAMES)
    assert broken == [], f"{where}: names broken inside a word: {broken}"


def egg_move_in_sight(pages: dict[tuple[int, int], Any], where: str) -> None:
    """The egg's move entered on each 7-inch screen (a tile of the hoard tapped, its rows to choose shown): still all on
    the screen; then left again."""
    for size, page in pages.items():
        if size == PHONE:
            continue
        page.click("#move-button")
        page.click("#secure-tiles button.wtile:not([aria-disabled='true'])")
        expect(page.locator("#row-targets .rowtarget").first).to_be_visible()
        in_sight(page, f"{where}, the egg's move at {size[0]}x{size[1]}")
        page.click("#move-button")
        expect(page.locator("#secure-step")).to_be_hidden()


def steal_in_sight(pages: dict[tuple[int, int], Any], where: str) -> None:
    """A tile that can be stolen tapped on each 7-inch screen (the dice's note then names it and its owner's side):
    still all on the screen; then tapped again, unpicked."""
    for size, page in pages.items():
        if size == PHONE:
            continue
        loot = page.locator("#table .wtile.steal").first
        loot.click()
        expect(page.locator("#won-note")).to_contain_text("how many dice?")
        in_sight(page, f"{where}, a tile to steal picked at {size[0]}x{size[1]}")
        loot.click()
        expect(page.locator("#won-note")).not_to_contain_text("how many dice?")


def played_in_sight(app: Flask, game: dict[str, Any], pages: dict[tuple[int, int], Any], seed: int) -> None:
    """The game played through to its end (random legal play from `seed`), its page followed live on each screen of
    `pages`: at every step every base, hoard and button on each screen but a phone's without a scroll; every tenth
    step of a kind the whole screen looked at (`looked_at`); the egg's move and a tile picked to steal looked at too,
    and every kind of step seen."""
    players = len(game["players"])
    table = app.extensions["table"]
    seen: dict[str, int] = {}

    def everything_in_sight(state: dict[str, Any]) -> bool:
        view = table.view(game["id"])
        if seen.get("seq") == view["seq"]:
            return False  # a sample the rules refused: nothing new to look at
        seen["seq"] = view["seq"]
        phase = "final" if state["finished"] else state["phase"]
        where = f"{players} players, step {view['seq']} ({phase})"
        for size, page in pages.items():
            if phase == "final":
                shown(page, view["seq"])
                expect(page.locator("#final")).to_be_visible()
            elif size != PHONE:  # a phone's page scrolls: it is looked at with the whole screen below
                in_sight(page, f"{where} at {size[0]}x{size[1]}", view["seq"])
            else:
                shown(page, view["seq"])
        if phase != "final" and seen.get(phase, 0) % 10 == 0:  # every tenth step of a kind: the whole screen
            for size, page in pages.items():
                looked_at(page, size, f"{where} at {size[0]}x{size[1]}")
                shoot(page, f"{WURF}-whole-{players}-{view['seq']}-{size[0]}x{size[1]}")
        seen[phase] = seen.get(phase, 0) + 1
        rows = len(state["hoards"][state["active"]]["rows"]) if phase != "final" else 0
        if phase == "dice" and "move" in state["expects"] and rows > max(1, seen.get("rows moved", 0)):
            egg_move_in_sight(pages, where)  # the egg's move with more hoard rows than any before
            seen["rows moved"] = rows
        if phase == "dice" and state["max_k"] >= 3 and state["stealable"]["3"] and seen.get("stolen", 0) < 2:
            steal_in_sight(pages, where)
            seen["stolen"] = seen.get("stolen", 0) + 1
        return state["finished"]

    play_until(app, game, everything_in_sight, seed=seed)
    for phase in ("flip", "secure", "dice", "bonus", "rows moved", "stolen"):
        assert seen.get(phase), f"{players} players: no {phase} step looked at"


# two (the round and the table half and half), four (two a line, the case that scrolled) and six players (the most);
# three and five, 40 s more of the suite, read as these did when measured
@pytest.mark.parametrize("players, seed", [(2, 1), (4, 2), (6, 1)])
def test_every_base_hoard_and_button_stays_on_the_screen_through_a_whole_game(open_page: Callable[..., Any],
                                                                              base: str, app: Flask, players: int,
                                                                              seed: int) -> None:
    """At 800x480 the page scrolled from the first roll of four players (by 23 px, the later players' bases and hoards
    below the screen, steal targets among them), by 156 px late in a game of three, and the 6-dice step's End turn
    stood at y 468..516. Through a whole game of two, four and six players, at every step, every base, hoard and button
    is on the screen without a scroll at 800x480 and at 1024x600, with the egg's move and a tile picked to steal too; a
    390x844 phone's page scrolls, with nothing cut; no name is broken inside a word. The name whose turn it is stays
    within its line: at step 12 of a game of six at 800x480 "Bartholomäus Drachenherz" reached past it (24 px on a
    line 275 px wide), fitted to the room the step before had left it and not fitted again when the page closed up no
    more."""
    game = start_game(base, WURF, PLAYERS[:players])
    played_in_sight(app, game, follow(open_page, base, game), seed)


def test_a_long_name_whose_turn_it_is_is_broken_between_its_words_only(open_page: Callable[..., Any],
                                                                        base: str) -> None:
    """A new game with "Bartholomäus Drachenherz" first showed "Bartholomä / us / Drachenher / z" at 33.6 px in a
    column of 221 px at 800x480 while the tiles were flipped: his name is whole on each screen, a size smaller where it
    must be, on one line or on lines broken between its words, and stays so when his dice are rolled."""
    game = start_game(base, WURF, [BARTHOLOMAUS, *PLAYERS[2:4], PLAYERS[0]])
    for phase in ("flip", "dice"):
        if phase == "dice":
            post_events(base, game, *({"type": "flip", "colour": c, "landscape": c} for c in (1, 2, 3)))
        for size in (KIOSK, TABLET, PHONE):
            page = open_game(open_page, base, game, *size)
            expect(page.locator("#turn")).to_contain_text("rolls the dice" if phase == "dice" else "flips 3 tiles")
            where = f"the {phase} step at {size[0]}x{size[1]}"
            shoot(page, f"{WURF}-long-turn-name-{phase}-{size[0]}x{size[1]}")
            name = page.evaluate(TURN_NAME)
            assert name is not None and name["name"] == BARTHOLOMAUS, (where, name)
            assert page.evaluate(BROKEN_WORDS, "#turn .turn-name") == [], f"{where}: broken inside a word ({name})"
            assert not name["cut"] and name["px"] >= 20 and name["lines"] <= 2, (where, name)
            fits(page, where)
            page.context.close()


def finished(base: str, app: Flask, game_id: str) -> dict[str, Any]:
    """A game ended by Bartholomäus's last step: Drachen Wurf of four, or Diego Drachenzahn of two long names."""
    if game_id == WURF:
        game = start_game(base, WURF, PLAYERS[:4])
        play_until(app, game, lambda s: s["finished"], seed=2)
        return game
    return played_to_the_end(base, app, game_id, ["Zdeňka Nováková-Dvořákov", BARTHOLOMAUS], 1)


@pytest.mark.parametrize("game_id", [WURF, "diego-drachenzahn"])
def test_an_undo_from_the_final_screen_fits_the_name_whose_turn_it_is_again(open_page: Callable[..., Any],
                                                                            base: str, app: Flask,
                                                                            game_id: str) -> None:
    """After "Undo the last step" on the final screen the turn line came back with the name at its own size, cut
    short ("Bartholomäus D…" at 33.6 px in Drachen Wurf, 41.6 px in Diego), where a reload fitted it (22.4 px, 38.4 px):
    the kit fits it whenever the round is shown again, as a reload does, in every game."""
    game = finished(base, app, game_id)
    page = open_game(open_page, base, game, *KIOSK)
    expect(page.locator("#final")).to_be_visible()
    page.click("#final-undo")
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator("#turn .turn-name")).to_have_text(BARTHOLOMAUS)
    shoot(page, f"{game_id}-undo-from-the-end-800x480")
    name = page.evaluate(TURN_NAME)
    assert not name["cut"], f"the name cut short after the undo: {name}"
    assert page.evaluate(BROKEN_WORDS, "#turn .turn-name") == [], f"broken inside a word after the undo: {name}"
    page.reload()
    page.wait_for_selector("body[data-ready='yes']")
    expect(page.locator("#turn .turn-name")).to_have_text(BARTHOLOMAUS)
    assert page.evaluate(TURN_NAME) == name, "the undo's turn line is not as a reload draws it"
    if game_id == WURF:
        in_sight(page, "the round after an undo from the final screen")


#: Each mark on a tile in the step that secures a tile (its side, or the 6 of six dice): its text, its size (px), how
#: far (px) it reaches past its tile's inside (its border aside) and into the tile's symbol.
MARKS = """() => [...document.querySelectorAll('#secure-tiles .wtile .tnote')].map((mark) => {
    const tile = mark.closest('.wtile'), t = tile.getBoundingClientRect(), m = mark.getBoundingClientRect();
    const s = tile.querySelector('.wsym').getBoundingClientRect();
    const edge = parseFloat(getComputedStyle(tile).borderTopWidth);
    const past = Math.max(0, t.left + edge - m.left, m.right - (t.right - edge), t.top + edge - m.top,
                          m.bottom - (t.bottom - edge));
    const over = Math.max(0, Math.min(m.right, s.right) - Math.max(m.left, s.left))
        * Math.max(0, Math.min(m.bottom, s.bottom) - Math.max(m.top, s.top));
    return [mark.textContent, parseFloat(getComputedStyle(mark).fontSize), past, over]; })"""


@pytest.mark.parametrize("phase", ["bonus", "secure"])
def test_a_tile_s_mark_is_13_px_and_inside_its_tile(open_page: Callable[..., Any], base: str, app: Flask,
                                                    phase: str) -> None:
    """The "6" on the tile won with six dice, and the side a tile of the base was won on, were 9.6 px: 13 px, inside
    the tile, clear of its symbol, on each screen."""
    game = start_game(base, WURF, PLAYERS[:3])
    play_until(app, game, lambda s: s["phase"] == phase, seed=1)
    for size in (KIOSK, TABLET, PHONE):
        page = open_game(open_page, base, game, *size)
        where = f"the {phase} step at {size[0]}x{size[1]}"
        marks = page.evaluate(MARKS)
        assert marks, f"{where}: no tile with a mark"
        if phase == "bonus":
            assert [text for text, *_ in marks] == ["6"], (where, marks)
        for text, px, past, over in marks:
            assert px >= 13 and past <= .5 and over <= .5, f"{where}: the mark {text}: {px} px, {past} px past its" \
                                                           f" tile, {over} px² over its symbol"
        page.context.close()


#: Six long names (each on two lines in the scores beside the round on a tablet).
LONG_NAMES = [BARTHOLOMAUS, "Zdeňka Nováková-Dvořák", "Maximiliane Sonnenschein", "Oma Käthe", "Friedrich Wilhelmsen",
              "Anna"]


#: Where each player's points stand against their name on the table: (player, the name's lines, the points beside the
#: name: their top above the name's foot and their left past its end).
POINTS_BY_NAME = f"""() => [...document.querySelectorAll('#table .wurf-player')].map((card) => {{
    const name = card.querySelector('.who'), points = card.querySelector('.pscore');
    const n = name.getBoundingClientRect(), p = points.getBoundingClientRect();
    return [card.dataset.player, ({TEXT_LINES})(name), p.top < n.bottom - 1 && p.left >= n.right - 1]; }})"""


def test_a_long_name_on_two_lines_keeps_its_points_beside_it_on_the_kiosk(open_page: Callable[..., Any],
                                                                         base: str) -> None:
    """At 800x480 six long names took the first flip of tiles 14 px below the foot: each name on two lines had its
    points on a line of their own under it. A name broken between its words keeps its points beside it where its
    longest word leaves them the room ("Friedrich Wilhelmsen"), under it where not ("Bartholomäus Drachenherz"): the
    first step is on the screen without a scroll."""
    game = start_game(base, WURF, LONG_NAMES)
    kiosk = open_game(open_page, base, game, *KIOSK)
    shoot(kiosk, f"{WURF}-six-long-names-first-flip-800x480")
    in_sight(kiosk, "the first flip of six long names at 800x480")
    beside = {player: (lines, by) for player, lines, by in kiosk.evaluate(POINTS_BY_NAME)}
    assert beside["Friedrich Wilhelmsen"] == (2, True), beside
    assert beside[BARTHOLOMAUS] == (2, False), beside  # "Bartholomäus" and the points are wider than his place
    assert beside["Anna"] == (1, True), beside


def test_six_long_names_leave_the_whole_page_on_a_tablet(open_page: Callable[..., Any], base: str, app: Flask) -> None:
    """At 1024x600 six long names, each on two lines in the scores beside the round, with the list of eggs under them,
    took the page 259 px below the foot from the first step on (22 px at 1280x800). There the list of eggs gives way
    (each player's eggs are on the table): through the first round every base, hoard and button is on the screen
    without a scroll. A screen with the room keeps the list, and the Pi's screen, where the scores are read out only
    and the page closes up otherwise, keeps it for a screen reader."""
    game = start_game(base, WURF, LONG_NAMES)
    page = open_game(open_page, base, game, *TABLET)
    large = open_game(open_page, base, game, 1920, 1080)
    kiosk = open_game(open_page, base, game, *KIOSK)
    table = app.extensions["table"]
    closed_up: list[int] = []

    def first_round_in_sight(state: dict[str, Any]) -> bool:
        seq = table.view(game["id"])["seq"]
        in_sight(page, f"step {seq} at 1024x600", seq)
        shown(kiosk, seq)  # (six long names reach below its foot while the tiles are flipped: not yet fitted there)
        assert kiosk.evaluate("getComputedStyle(document.getElementById('eggs')).display") != "none", seq
        if kiosk.evaluate("document.getElementById('play').classList.length > 2"):  # a way of making room taken
            closed_up.append(seq)
        return state["round"] > 1

    first_round_in_sight(table.view(game["id"])["state"])
    shoot(page, f"{WURF}-six-long-names-1024x600")
    expect(page.locator("#eggs")).to_be_hidden()
    expect(page.locator("#table .wurf-player .peggs")).to_have_count(6)
    expect(page.locator("#table .wurf-player .peggs").first).to_be_visible()
    expect(large.locator("#eggs")).to_be_visible()
    assert large.evaluate(BELOW) <= 0
    play_until(app, game, first_round_in_sight, seed=2)
    assert closed_up, "the Pi's screen never closed up: nothing to check"

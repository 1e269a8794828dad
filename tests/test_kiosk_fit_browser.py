"""Whole screens on the Pi's 800x480 touchscreen, in headless Chromium: Drachen Wurf's 6x6 grid of tiles with every
tile and its colour's and landscape's names on the screen (2 to 6 players, early and late in the game), the players'
names in full beside their scores on every game page, a Dračí hrad fight of four heroes ready to start and four hero
cards with badges and equipment, and the round-by-round table of a long game (whole rows, and a word when more rows
wait below); and the same screens on a 390x844 phone."""
from __future__ import annotations

import random
from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from companion.games import GAMES
from tests.browser import (
    BROKEN_WORDS,
    KIOSK,
    PHONE,
    fits,
    in_view,
    open_game,
    post_events,
    session_view,
    shoot,
    start_game,
)
from tests.test_drachen_wurf_browser import play_until
from tests.test_final_screens_browser import played_to_the_end

WURF = "drachen-wurf"
HRAD = "draci-hrad"
#: Names as families write them, up to 8 letters, the longest last.
NAMES = ["Moritz", "Oskar", "Hannes", "Johannes", "Benedikt", "Carlotta"]
#: The same with two long ones: a name of 10 letters or more is a size smaller on the score board.
LONG_NAMES = ["Moritz", "Oskar", "Bartholomäus", "Anna-Katharina", "Benedikt", "Carlotta"]
COLOURS = ["Red", "Blue", "Green", "Yellow", "Purple", "Black"]
LANDSCAPES = ["Mountains", "Forest", "Water", "Desert", "Ice", "Volcano"]

#: Texts cut short in `sel` (clipped or ended with an ellipsis): "text: its width / the width shown".
CUT = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility()
        && el.scrollWidth > el.clientWidth + .5)
    .map((el) => `${el.textContent}: ${el.scrollWidth} px in ${el.clientWidth}`)"""

#: Each of `sel` (seen) reaching beyond its row, or its row beyond its list: a count the column cuts off.
OUTSIDE_ITS_ROW = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility())
    .filter((el) => { const row = el.parentElement, list = row.parentElement;
        return el.getBoundingClientRect().right > row.getBoundingClientRect().right + .5
            || row.getBoundingClientRect().right > list.getBoundingClientRect().right + .5; })
    .map((el) => el.parentElement.textContent)"""

#: The part of each of `sel` below the screen's bottom edge (none: 0), in px.
BELOW_THE_FOLD = """(sel) => [...document.querySelectorAll(sel)]
    .map((el) => Math.max(0, el.getBoundingClientRect().bottom - window.innerHeight))"""


#: Whether what a person sees at the middle of `sel` is `sel` itself (not a bar or a panel lying over it).
ON_TOP = """(sel) => { const el = document.querySelector(sel), r = el.getBoundingClientRect();
    return el.contains(document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2)); }"""


def seen(page: Any, selector: str) -> None:
    """The control is on the screen as it is, without scrolling, and nothing lies over it."""
    in_view(page, selector)
    assert page.evaluate(ON_TOP, selector), f"{selector} lies under something else"


def wurf(base: str, app: Flask, players: int, late: bool) -> dict[str, Any]:
    """Drachen Wurf with its colours and landscapes named, in a turn's flip: the first, or a late one with tiles on
    the players' bases and in their hoards (shown in the grid as gone)."""
    game = start_game(base, WURF, NAMES[:players], colour_names=COLOURS, landscape_names=LANDSCAPES)
    if late:
        play_until(app, game, lambda s: s["phase"] == "flip" and s["round"] >= 3 and s["middle"]
                   and any(t["place"]["where"] == "base" for t in s["tiles"]), seed=players)
    else:
        post_events(base, game, {"type": "flip", "colour": 5, "landscape": 6})
    return game


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_whole_flip_grid_is_on_the_kiosk_screen_with_its_names(open_page: Callable[..., Any], base: str,
                                                                   app: Flask, players: int) -> None:
    """The sixth colour's row lay below the fold at 800x480 (at y 453 to 501, with tiles on the bases), and the grid's
    names were cut ("Pur…", "Mount", "Volca")."""
    page = open_page(*KIOSK)
    for moment in ("first", "late"):
        game = wurf(base, app, players, late=moment == "late")
        page.goto(f"{base}/play/{game['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        page.wait_for_selector("#live:text-is('live')")
        expect(page.locator("#flip-grid .wtile")).to_have_count(36)
        where = f"the {moment} flip with {players} players at 800x480"
        shoot(page, f"{WURF}-flip-{moment}-{players}-800x480")
        fits(page, where)
        below = page.evaluate(BELOW_THE_FOLD, "#flip-grid > *")
        assert max(below) == 0, f"{where}: the grid reaches {max(below)} px below the screen"
        for control in ("#turn", "#hint", "#flip-middle"):
            in_view(page, control)
        sizes = page.eval_on_selector_all("#flip-grid .wtile", "(ts) => ts.map((t) => [t.offsetWidth, t.offsetHeight])")
        assert min(min(size) for size in sizes) >= 48, f"{where}: tiles under 48 px"
        assert page.evaluate(CUT, "#flip-grid .colhead span, #flip-grid .rowhead span") == [], f"{where}: names cut"
        assert page.locator("#flip-grid .colhead").all_inner_texts() == LANDSCAPES
        assert page.locator("#flip-grid .rowhead").all_inner_texts() == COLOURS


def test_the_flip_grid_still_fits_a_phone(open_page: Callable[..., Any], base: str, app: Flask) -> None:
    """On a 390x844 phone the grid keeps its 48 px tiles inside its panel, late in a game of six."""
    game = wurf(base, app, 6, late=True)
    page = open_game(open_page, base, game, *PHONE)
    shoot(page, f"{WURF}-flip-late-6-390x844", full_page=True)
    fits(page, "the late flip with 6 players at 390x844")
    sizes = page.eval_on_selector_all("#flip-grid .wtile", "(ts) => ts.map((t) => [t.offsetWidth, t.offsetHeight])")
    assert len(sizes) == 36 and min(min(size) for size in sizes) >= 48
    assert page.locator("#flip-grid .rowhead").all_inner_texts() == COLOURS


def score_pages(base: str, app: Flask) -> dict[str, dict[str, Any]]:
    """A game of each kind with a score board (Dračí hrad's is its list of heroes), played until its scores have two
    digits (Diego's stay small), with two long names."""
    diego = start_game(base, "diego-drachenzahn", LONG_NAMES[:4])
    play_until_game(app, diego, lambda v: v["state"]["round"] >= 6, seed=1)
    sachen = start_game(base, "drachensachen", LONG_NAMES[:4])
    post_events(base, sachen, {"type": "starter", "player": "Moritz"})
    for finisher, coins in (("Moritz", {"Oskar": 9, "Bartholomäus": 10, "Anna-Katharina": 8}),
                            ("Oskar", {"Moritz": 3, "Bartholomäus": 9, "Anna-Katharina": 7})):
        post_events(base, sachen, {"type": "went_out", "player": finisher},
                    *({"type": "coins", "player": p, "coins": n} for p, n in coins.items()))
    dragons = start_game(base, WURF, LONG_NAMES[:6])
    play_until(app, dragons, lambda s: s["phase"] == "dice" and sum(v >= 10 for v in s["scores"].values()) >= 3, seed=2)
    return {WURF: dragons, "drachensachen": sachen, "diego": diego, HRAD: start_game(base, HRAD, LONG_NAMES[:4])}


def play_until_game(app: Flask, session: dict[str, Any], done: Callable[[dict[str, Any]], bool], seed: int) -> None:
    """Random legal play (the rules' own sample) of any game through the table until `done(view)`."""
    game, table, rng = GAMES[session["game"]], app.extensions["table"], random.Random(seed)
    assert game.sample is not None
    state = game.setup(tuple(session["players"]), game.resolve_options(session["options"]))
    while not done(table.view(session["id"])):
        event = game.sample(state, rng)
        assert event is not None, "the game ended before the screen to look at"
        state = game.apply(state, event)
        table.submit(session["id"], event)


#: The players' names on a score board, or on Dračí hrad's list of heroes.
NAMES_SHOWN = "#scoreboard .name, .hr-hero-head .name"

#: Write `score` into every score of the board, as a score of that many digits would stand there.
WRITE_SCORES = """(score) => {
    for (const el of document.querySelectorAll('#scoreboard .score')) el.textContent = score; }"""


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_every_name_on_the_score_board_is_read_whole(open_page: Callable[..., Any], base: str, app: Flask,
                                                     size: tuple[int, int]) -> None:
    """At 800x480 a two-digit score cut "Moritz" to "Mo…", "Hannes" to "Han…", and a name of more than 8 letters
    ("Bartholomäus") was cut all the same: the score board keeps each name whole beside a score of two digits, and of
    three (written into the board: these games reach none quickly), as does Dračí hrad's list of heroes."""
    page = open_page(*size)
    for name, game in score_pages(base, app).items():
        page.goto(f"{base}/play/{game['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        page.wait_for_selector("#live:text-is('live')")
        where = f"{name} at {size[0]}x{size[1]}"
        scores = page.locator("#scoreboard .score").all_inner_texts()
        if name not in ("diego", HRAD):
            assert sum(len(score) >= 2 for score in scores) >= 2, f"{where}: {scores}"
        shoot(page, f"scores-{name}-{size[0]}x{size[1]}")
        fits(page, where)
        assert page.evaluate(CUT, NAMES_SHOWN) == [], f"{where}: names cut"
        assert page.evaluate(OUTSIDE_ITS_ROW, ".wurf-eggs .n") == [], f"{where}: egg counts cut"
        page.evaluate(WRITE_SCORES, "888")
        shoot(page, f"scores-{name}-888-{size[0]}x{size[1]}")
        assert page.evaluate(CUT, NAMES_SHOWN) == [], f"{where}: names cut beside three digits"
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, where


def test_who_turned_over_what_names_each_player_whole(open_page: Callable[..., Any], base: str) -> None:
    """Diego at 800x480: "Who turned over what?" cut "Kristýna Pa" to "Kristýn…" and "Maximilian" to "Maximil…"."""
    session = start_game(base, "diego-drachenzahn", ["Moritz", "Kristýna Pa", "Bartholomäus", "Maximilian"])
    post_events(base, session, *({"type": "marble", "gate": gate} for gate in (2, 3, 5)), {"type": "reveal", "gate": 3})
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator("#turned .guess-row")).to_have_count(3)
    shoot(page, "diego-turned-long-names-800x480")
    assert page.evaluate(CUT, ".guess-row .name") == [], "names cut"
    fits(page, "who turned over what at 800x480")


def test_who_keeps_the_treasure_left_over_names_each_hero_whole(open_page: Callable[..., Any], base: str) -> None:
    """Dračí hrad at 800x480: "Bartholomäus gets 18" ran past its button, over its colour bar."""
    session = start_game(base, HRAD, ["Bartholomäus", "Anna-Katharina", "Oskar"])
    page = open_game(open_page, base, session, *KIOSK)
    page.click("[data-pane='castle']")
    page.click("[data-share='Anna-Katharina']")
    page.click("[data-treasure='35']")
    expect(page.locator("[data-remainder]")).to_have_count(2)
    shoot(page, "draci-share-long-names-800x480")
    spill = page.evaluate("""() => [...document.querySelectorAll('[data-remainder]')]
        .filter((b) => b.scrollWidth > b.clientWidth + .5).map((b) => b.textContent)""")
    assert spill == [], f"past their buttons: {spill}"


def give(player: str, field: str, value: int) -> dict[str, Any]:
    return {"type": "override", "player": player, "field": field, "value": value, "reason": "Corrected at the table"}


def four_heroes_after_a_treasure(base: str, second_weapon: bool = False) -> dict[str, Any]:
    """Four heroes, each with a weapon (Hannes with two: `second_weapon`); Moritz found a treasure (the line above the
    tabs says so), Oskar moves."""
    session = start_game(base, HRAD, NAMES[:4])
    post_events(base, session, give("Moritz", "sword", 1), give("Oskar", "hammer", 1), give("Hannes", "sword", 1),
                *([give("Hannes", "hammer", 1)] if second_weapon else []), give("Johannes", "axe", 1),
                {"type": "treasure", "player": "Moritz", "value": 20})
    return session


def fight_of_four(open_page: Callable[..., Any], base: str, session: dict[str, Any], size: tuple[int, int]) -> Any:
    """The fight pane, the three others joining the mover against the Harpies."""
    page = open_game(open_page, base, session, *size)
    expect(page.locator("#hr-last")).to_be_visible()
    page.click("[data-pane='fight']")
    for other in ("Moritz", "Hannes", "Johannes"):
        page.click(f"[data-join='{other}']")
        expect(page.locator(f"[data-join='{other}']")).to_have_attribute("aria-pressed", "true")
    page.click("[data-enemy='harpies']")
    expect(page.locator("#hr-start")).to_have_text("Fight the Harpies")
    expect(page.locator("[data-weapon='axe'][data-for='Johannes']")).to_be_visible()
    return page


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_a_fight_of_four_heroes_starts_without_scrolling(open_page: Callable[..., Any], base: str,
                                                          size: tuple[int, int]) -> None:
    """At 800x480 a fight of four heroes put its start button at y 488 to 536, and the fourth hero's weapons, below
    the fold: now every hero's place in the fight, their weapons and the start are on the screen."""
    session = four_heroes_after_a_treasure(base)
    page = fight_of_four(open_page, base, session, size)
    where = f"a fight of four at {size[0]}x{size[1]}"
    shoot(page, f"draci-fight-of-four-{size[0]}x{size[1]}", full_page=size == PHONE)
    fits(page, where)
    if size == KIOSK:
        for control in ("#hr-start", "#hr-keeper", "#hr-spoils", "[data-enemy='dragon']",
                        *(f"[data-join='{p}']" for p in ("Moritz", "Hannes", "Johannes")),
                        *(f"[data-for='{p}'][data-weapon='none']" for p in NAMES[:4]),
                        "[data-weapon='hammer'][data-for='Oskar']", "[data-weapon='sword'][data-for='Hannes']",
                        "[data-weapon='axe'][data-for='Johannes']"):
            seen(page, control)
    page.click("#hr-start")
    expect(page.locator("[data-member]")).to_have_count(4)
    members = session_view(base, session)["state"]["fight"]["members"]
    assert {m["player"]: m["weapon"] for m in members} == {"Oskar": "hammer", "Moritz": "sword", "Hannes": "sword",
                                                           "Johannes": "axe"}


def test_the_start_of_a_fight_stays_on_the_screen_when_its_heroes_need_more(open_page: Callable[..., Any],
                                                                            base: str) -> None:
    """A hero with two weapons takes a second line: at 800x480 the start stays on the screen over the lines below,
    and a weapon under it is tapped once the page is scrolled."""
    session = four_heroes_after_a_treasure(base, second_weapon=True)
    page = fight_of_four(open_page, base, session, KIOSK)
    shoot(page, "draci-fight-of-four-two-weapons-800x480")
    fits(page, "a fight of four, a hero with two weapons, at 800x480")
    for control in ("#hr-start", "#hr-keeper", "[data-weapon='axe'][data-for='Johannes']"):
        seen(page, control)
    page.click("[data-weapon='hammer'][data-for='Hannes']")
    expect(page.locator("[data-weapon='hammer'][data-for='Hannes']")).to_have_attribute("aria-pressed", "true")
    seen(page, "[data-weapon='hammer'][data-for='Hannes']")
    seen(page, "#hr-start")
    page.click("#hr-start")
    expect(page.locator("[data-member='Hannes']")).to_contain_text("Hammer")


def buys(player: str, *items: str) -> list[dict[str, Any]]:
    return [{"type": "buy", "player": player, "item": item} for item in items]


def deep_in_the_game(base: str) -> dict[str, Any]:
    """Four heroes, each with a badge (on the move, poisoned twice, waiting at the tavern) and three or four things
    bought, without a number set by hand."""
    session = start_game(base, HRAD, NAMES[:4])
    post_events(base, session, *buys("Moritz", "sword", "chain_mail", "torch", "food"),
                {"type": "treasure", "player": "Moritz", "value": 20},
                *buys("Oskar", "shield", "potion", "antidote"),
                {"type": "dart", "player": "Oskar", "attack_die": 6, "defence_die": 1},
                {"type": "end_turn", "player": "Oskar"},
                *buys("Hannes", "hammer", "leather", "food"), {"type": "stop", "player": "Hannes", "square": "tavern"},
                *buys("Johannes", "axe", "shield", "torch"),
                {"type": "dart", "player": "Johannes", "attack_die": 6, "defence_die": 1},
                *buys("Moritz", "skunk"))
    return session


@pytest.mark.parametrize("pane", ["city", "fight"])
def test_four_hero_cards_with_badges_are_whole_on_the_kiosk(open_page: Callable[..., Any], base: str,
                                                            pane: str) -> None:
    """Deep in a game of four the fourth hero's card was cut by the screen's bottom edge at 800x480 (y 409 to 501):
    the four cards, badges and equipment, are whole on the screen; and the fight's start with it."""
    session = deep_in_the_game(base)
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator(".hr-hero .hr-badge")).to_have_count(4)
    if pane == "fight":
        page.click("[data-pane='fight']")
        page.click("[data-join='Oskar']")
        page.click("[data-join='Johannes']")
        page.click("[data-enemy='harpies']")
        expect(page.locator("#hr-spoils")).to_be_visible()
    shoot(page, f"draci-deep-{pane}-800x480")
    fits(page, f"deep in the game ({pane}) at 800x480")
    below = page.evaluate(BELOW_THE_FOLD, ".hr-hero")
    assert below == [0, 0, 0, 0], f"hero cards below the screen's bottom edge by {below} px"
    assert page.evaluate(CUT, ".hr-hero .name") == []
    if pane == "fight":
        for control in ("#hr-start", "[data-weapon='axe'][data-for='Johannes']", "#hr-keeper"):
            seen(page, control)
    else:
        for control in ("#hr-next", "[data-item='sword']", "[data-stop='oracle']"):
            seen(page, control)


#: The rows of the results table the box shows in part only (a row cut by the box's header, its foot or the word
#: under the rows), with the part shown; and whether that word says more rows wait below.
ROWS_SHOWN = """() => {
    const box = document.querySelector('.breakdown-box'), table = box.querySelector('table');
    const head = table.tHead.getBoundingClientRect(), foot = table.tFoot.rows[0].cells[0];
    const cue = getComputedStyle(foot, '::before');
    const more = cue.content.includes('more') && cue.visibility === 'visible' && cue.display !== 'none';
    const bottom = foot.getBoundingClientRect().top - (more ? parseFloat(cue.height) : 0);
    const half = [...table.tBodies[0].rows].map((row) => {
        const r = row.getBoundingClientRect(), shown = Math.min(r.bottom, bottom) - Math.max(r.top, head.bottom);
        return [row.cells[0].textContent, shown, r.height]; })
        .filter(([, shown, height]) => shown > .5 && shown < height - .5);
    return {half, more, scrolls: box.scrollHeight > box.clientHeight + 1}; }"""


#: How far the results table reaches past its box sideways, and each player's name in its header with how far that
#: reaches past its cell (each 0: whole; a name may break at its soft hyphen).
SIDEWAYS = """() => { const box = document.querySelector('.breakdown-box');
    return {box: Math.max(0, box.scrollWidth - box.clientWidth),
            names: [...document.querySelectorAll('#breakdown thead th:not(:first-child)')].map((th) =>
                [th.textContent.replaceAll('\u00ad', ''), Math.max(0, th.scrollWidth - th.clientWidth)])}; }"""


#: Each player's name in the results table's header with the lines it takes and the most it may take: one more than
#: the places it may break (a space, a hyphen of its own), never inside a word. A name standing on end (a narrow
#: table, kiosk.css) has its lines side by side.
HEADER_LINES = """() => [...document.querySelectorAll('#breakdown thead th:not(:first-child)')].map((th) => {
    const name = th.firstElementChild ?? th, range = document.createRange();
    range.selectNodeContents(name.firstChild);
    const upright = getComputedStyle(name).writingMode.startsWith('horizontal');
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(upright ? r.top : r.left))).size;
    return [th.textContent, lines, th.textContent.split(/[ -]/).length]; })"""


@pytest.mark.parametrize("game_id, players, seed", [("diego-drachenzahn", NAMES[:4], 2), (WURF, NAMES[:2], 2),
                                                    (WURF, NAMES[:3], 2), ("drachensachen", LONG_NAMES[:5], 134)],
                         ids=["diego-4", "wurf-2", "wurf-3", "sachen-5-long"])
def test_a_long_results_table_shows_whole_rows_and_says_more_wait(open_page: Callable[..., Any], base: str,
                                                                   app: Flask, game_id: str, players: list[str],
                                                                   seed: int) -> None:
    """At 800x480 the final screen's table scrolled inside its box with half a row ("Round 7") above the Total and
    nothing to say more rows were there: the box now ends on a whole row and says "more below" until its last row is
    in sight; on a phone the whole table is shown, the page scrolls. Five players with long names scrolled it
    sideways: now every column is in the box, each name whole."""
    session = played_to_the_end(base, app, game_id, players, seed)
    page = open_page(*KIOSK)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("#final:not([hidden])")
    page.wait_for_selector("#live:text-is('live')")
    shoot(page, f"final-{game_id}-800x480")
    shown = page.evaluate(ROWS_SHOWN)
    assert shown["scrolls"], f"{game_id}: a short table, nothing to check ({shown})"
    assert shown["half"] == [], f"{game_id}: rows cut in half at 800x480: {shown['half']}"
    assert shown["more"], f"{game_id}: nothing says more rows wait below"
    assert page.evaluate(SIDEWAYS) == {"box": 0, "names": [[name, 0] for name in players]}, game_id
    if game_id == "drachensachen":  # four who lost 21 or more, named as a sentence names them
        why = "Moritz, Oskar, Bartholomäus and Anna-Katharina lost 21 or more, which ended the game."
        expect(page.locator("#final-why")).to_have_text(f"The fewest coins lost win. {why}")
    in_view(page, "#breakdown tfoot th")
    page.evaluate("document.querySelector('.breakdown-box').scrollTop = 1e6")
    page.wait_for_function(f"() => !({ROWS_SHOWN})().more")  # the last row in sight: no more below
    shoot(page, f"final-{game_id}-end-800x480")
    assert page.evaluate(ROWS_SHOWN)["half"] == [], f"{game_id}: rows cut in half at the table's end"
    in_view(page, "#breakdown tbody tr:last-child")
    page.evaluate("document.querySelector('.breakdown-box').scrollTop = 0")
    page.wait_for_function(f"() => ({ROWS_SHOWN})().more")

    phone = open_page(*PHONE)
    phone.goto(f"{base}/play/{session['id']}")
    phone.wait_for_selector("#final:not([hidden])")
    shoot(phone, f"final-{game_id}-390x844", full_page=True)
    whole = phone.evaluate("(() => { const box = document.querySelector('.breakdown-box');"
                           " return box.scrollHeight - box.clientHeight; })()")
    assert whole <= 1, f"{game_id}: the table scrolls inside a box on a phone ({whole} px hidden)"
    assert phone.evaluate(ROWS_SHOWN)["more"] is False
    assert phone.evaluate(SIDEWAYS) == {"box": 0, "names": [[name, 0] for name in players]}, game_id
    broken = [(name, lines) for name, lines, most in phone.evaluate(HEADER_LINES) if lines > most]
    assert broken == [], f"{game_id}: names broken inside a part on a phone: {broken}"


def test_a_long_name_in_a_row_label_breaks_at_a_hyphen_on_a_phone(open_page: Callable[..., Any], base: str) -> None:
    """The results table's row labels ("Round 3 · Bartholomäus went out") broke a long name inside itself on a phone,
    "Bartholomä" over "us", with no hyphen: it breaks at the soft hyphen kit.js puts in it, as the header's names."""
    players = ["Bartholomäus", "Anna-Katharina", "Maximiliane", "Friedrich", "Konstantin"]
    session = start_game(base, "drachensachen", players)
    post_events(base, session, {"type": "starter", "player": players[0]})
    for _ in range(3):  # 27 each but Bartholomäus, who goes out every round: the game ends
        post_events(base, session, {"type": "went_out", "player": players[0]},
                    *({"type": "coins", "player": p, "coins": 9} for p in players[1:]))
    phone = open_page(*PHONE)
    phone.goto(f"{base}/play/{session['id']}")
    phone.wait_for_selector("#final:not([hidden])")
    expect(phone.locator("#breakdown tbody th").first).to_contain_text("Round 1 · Bartho")
    assert phone.evaluate(BROKEN_WORDS, "#breakdown tbody th") == [], "a word broken inside itself"
    assert phone.evaluate("document.querySelector('#breakdown tbody th').getClientRects()[0].height") > 40  # it wraps


def test_the_order_of_play_names_everyone_at_the_kiosk(open_page: Callable[..., Any], base: str) -> None:
    """Drachensachen at 800x480 with five players: the direction's line cut the order of play after the second name
    ("Kristýna Pa → Anna → …"). It names all five in order, from whose turn it is, and the trackers stay on the
    screen without a scroll."""
    players = ["Bartholomäus", "Kristýna Pa", "Anna-Katharina", "Maximilian", "Zoë"]
    session = start_game(base, "drachensachen", players)
    post_events(base, session, {"type": "starter", "player": "Kristýna Pa"})
    page = open_game(open_page, base, session, *KIOSK)
    line = page.locator("#ds-direction .ds-tile-detail")
    expect(line).to_have_text("Kristýna Pa → Anna-Katharina → Maximilian → Zoë → Bartholomäus")
    shoot(page, "drachensachen-direction-800x480")
    assert page.evaluate(CUT, "#ds-direction .ds-tile-detail") == [], "the order of play cut"
    assert max(page.evaluate(BELOW_THE_FOLD, ".ds-tile")) == 0, "a tracker below the screen's edge"
    fits(page, "Drachensachen's trackers at 800x480")


def test_every_name_drawing_a_hindrance_under_chaos_is_whole(open_page: Callable[..., Any], base: str) -> None:
    """Drachensachen's Chaos at 800x480 asks each player which hindrance they drew, a row each: the rows cut
    "Bartholomäus" to "Bartho…" and "Kristýna Pa" to "Kristý…"."""
    players = ["Bartholomäus", "Kristýna Pa", "Anna", "Maximilian", "Zoë"]
    session = start_game(base, "drachensachen", players, hindrances=True)
    post_events(base, session, {"type": "starter", "player": "Anna"}, {"type": "went_out", "player": "Anna"},
                *({"type": "coins", "player": p, "coins": 2} for p in players if p != "Anna"),
                {"type": "hindrance", "kind": "chaos", "player": "Anna"})
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(5)
    shoot(page, "drachensachen-chaos-800x480", full_page=True)
    assert page.evaluate(CUT, "#ds-chaos .name") == [], "names cut"
    assert page.evaluate(OUTSIDE_ITS_ROW, "#ds-chaos .ds-kinds") == [], "a row's buttons beyond the panel"
    fits(page, "Chaos's hindrances at 800x480")


@pytest.mark.parametrize("size, heroes", [(KIOSK, 6), ((844, 390), 3)], ids=["kiosk-six", "landscape-phone-three"])
def test_the_dragon_fights_a_group_with_roll_on_the_screen(open_page: Callable[..., Any], base: str,
                                                            size: tuple[int, int], heroes: int) -> None:
    """The Dragon against six heroes at 800x480 (three on a phone held sideways): each hero's row of targets pushed
    the step, Roll, Enter dice… and End the fight… below the screen, for every exchange. They stay on it, over the
    rows, and a target under them is tapped once the page is scrolled."""
    players = NAMES[:heroes]
    session = start_game(base, HRAD, players)
    post_events(base, session, {"type": "fight", "players": players, "enemy": "dragon",
                                "weapons": [None] * heroes, "remainder_to": players[0]})
    page = open_game(open_page, base, session, *size)
    expect(page.locator("[data-member]")).to_have_count(heroes)
    where = f"the Dragon against {heroes} at {size[0]}x{size[1]}"
    shoot(page, f"draci-dragon-{heroes}-{size[0]}x{size[1]}")
    fits(page, where)
    for control in ("#hr-step", "#hr-roll", "#hr-dice", "#hr-end-fight"):
        seen(page, control)
    last = page.locator(f"[data-member='{players[-1]}'] .hr-target").last
    last.click()  # scrolled to, clear of the buttons over it
    expect(last).to_have_attribute("aria-pressed", "true")
    seen(page, "#hr-roll")

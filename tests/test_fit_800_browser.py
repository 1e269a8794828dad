"""Screens on the Pi's 800x480 touchscreen, in headless Chromium: a Drachensachen round whose set-up asks five, six or
seven players for their hindrance under Chaos (below the trick's question and the last round's losses, the players'
rows needed a scroll), the same set-up once entered (Skips and Direction ended below the screen), every phase of
Drachensachen's rounds with long names (the name whose turn it is on two lines pushed Skips and Direction below the
screen, and a name broke inside a word), and a Drachen Wurf base with tiles on its sides (its sides 5 and 6 wrapped
onto a second line)."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import (  # noqa: F401  (BELOW: read from here by other tests)
    BELOW,
    BROKEN_WORDS,
    KIOSK,
    PHONE,
    TEXT_LINES,
    fits,
    in_view,
    open_game,
    post_events,
    shoot,
    start_game,
    tap_again,
)
from tests.test_drachen_wurf_browser import WURF, tile
from tests.test_drachen_wurf_browser import new_game as new_wurf
from tests.test_drachensachen_browser import TURN_CONTROLS
from tests.test_drachensachen_browser import new_game as new_drachensachen
from tests.test_layout_fit_browser import visit

FIVE = ["Ada", "Ben", "Cleo", "Dan", "Eva"]
SEVEN = [*FIVE, "Finn", "Gus"]


#: The smallest font size (px) of each selector's elements that a person can see (null where none is seen).
FONT_SIZES = """(sels) => Object.fromEntries(sels.map((sel) => { const seen = [...document.querySelectorAll(sel)]
    .filter((el) => el.checkVisibility()).map((el) => parseFloat(getComputedStyle(el).fontSize));
    return [sel, seen.length ? Math.min(...seen) : null]; }))"""

#: The texts of the Chaos set-up, and what is tapped in it.
SETUP_TEXTS = ("#turn .turn-name", "#turn .phrase", "#ds-last", "#ds-last small", "#ds-hindrance", "#ds-trick h3",
               "#ds-trick .ds-choice", "#ds-chaos .name", "#ds-chaos .ds-choice", "#ds-chaos > p", "#ds-next",
               "#ds-went-out-open")


def chaos_setup(base: str, players: list[str] = FIVE) -> dict[str, Any]:
    """Five players (unless told) in round 2's set-up: the trick still to reveal, and Ben, who went out, drew Chaos,
    so that every player draws a hindrance. The others each lost 12 coins, capped at 10: the longest summary of a
    round."""
    game = new_drachensachen(base, players, tricks=True, hindrances=True)
    post_events(base, game, {"type": "trick", "trick": "carousel"}, {"type": "starter", "player": "Ada"},
                {"type": "went_out", "player": "Ben"},
                *({"type": "coins", "player": p, "coins": 12} for p in players if p != "Ben"),
                {"type": "hindrance", "kind": "chaos", "player": "Ben"})
    return game


def test_a_chaos_setup_of_five_players_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str) -> None:
    """At 800x480 the five players' rows reached past the screen's foot (the page scrolled by 309 px): the set-up fits
    the screen, with every trick to choose, each player's three hindrances, Next turn and the last round's losses in
    sight, its tap targets 48 px or more, and its text no smaller than on the other 7-inch screen (1024x600)."""
    game = chaos_setup(base)
    page = visit(open_page, base, game, KIOSK)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(5)
    expect(page.locator("#ds-trick .ds-choice")).to_have_count(6)
    where = "the Chaos set-up of five players at 800x480"
    shoot(page, "drachensachen-chaos-5-800x480")
    fits(page, where)
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    for selector in ("#turn", "#ds-last", "#ds-hindrance", "#ds-next", "#ds-went-out-open", "#ds-chaos > p"):
        in_view(page, selector)
    for i in range(6):
        in_view(page, f"#ds-trick .ds-choice:nth-child({i + 1})")
    for player in FIVE:
        for kind in ("invasion", "unknown", "chaos"):
            in_view(page, f"#ds-chaos [data-player='{player}'] [data-kind='{kind}']")
    sizes = page.evaluate(FONT_SIZES, SETUP_TEXTS)
    wider = visit(open_page, base, game, (1024, 600))
    expect(wider.locator("#ds-chaos .ds-chaos-row")).to_have_count(5)
    assert wider.evaluate(BELOW) <= 0, f"the same at 1024x600 scrolls by {wider.evaluate(BELOW)} px"  # was 154
    elsewhere = wider.evaluate(FONT_SIZES, SETUP_TEXTS)
    smaller = {sel: (px, elsewhere[sel]) for sel, px in sizes.items() if px is None or px < elsewhere[sel]}
    assert not smaller, f"{where}: text smaller than at 1024x600, or not seen (px here, there): {smaller}"

    # the set-up is entered from this screen as it is: a trick, then a hindrance; it still fits
    page.click("#ds-trick [data-trick='golden_feathers']")
    expect(page.locator("#ds-trick")).to_have_count(0)
    tap_again(page, "#ds-chaos [data-player='Eva'] [data-kind='chaos']")  # drawn anew since the trick's tap
    drawn = page.locator("#ds-chaos [data-player='Eva'] .ds-drawn")
    expect(drawn).to_have_text("Chaos: every player draws a hindrance")
    shoot(page, "drachensachen-chaos-5-trick-800x480")
    fits(page, f"{where}, the trick revealed and Eva's hindrance drawn")
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls once the trick is revealed"
    for player in FIVE[:4]:
        in_view(page, f"#ds-chaos [data-player='{player}'] [data-kind='unknown']")
    in_view(page, "#ds-next")


def chaos_in_sight(page: Any, players: list[str], where: str, more: tuple[str, ...] = ()) -> None:
    """The Chaos set-up on the screen as it is (`fits`, no scroll): the turn, the hindrance's question and note, Next
    turn, the cards out of the game, every trick to choose, every score and each player's three hindrances, and
    `more`, all in sight."""
    fits(page, where)
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    for selector in ("#turn", "#ds-hindrance", "#ds-next", "#ds-went-out-open", "#ds-chaos > p", *more):
        in_view(page, selector)
    for i in range(6):
        in_view(page, f"#ds-trick .ds-choice:nth-child({i + 1})")
    for player in players:
        in_view(page, f"#scoreboard [data-player='{player}'] .score")
        for kind in ("invasion", "unknown", "chaos"):
            in_view(page, f"#ds-chaos [data-player='{player}'] [data-kind='{kind}']")


@pytest.mark.parametrize("count", [6, 7])
def test_a_chaos_setup_of_six_or_seven_players_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str,
                                                                      count: int) -> None:
    """At 800x480 six players' rows of hindrances reached 29 px past the screen's foot, seven players' 39 px (and
    their score board's chart 53 px): the set-up fits the screen as five players' does, with every trick to choose,
    each player's three hindrances, Next turn, the trouble pile's note and every player's score in sight, its tap
    targets 48 px or more, its text no smaller than at 1024x600, where the last round's losses are shown too."""
    players = SEVEN[:count]
    game = chaos_setup(base, players)
    page = visit(open_page, base, game, KIOSK)
    expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(count)
    expect(page.locator("#ds-trick .ds-choice")).to_have_count(6)
    where = f"the Chaos set-up of {count} players at 800x480"
    shoot(page, f"drachensachen-chaos-{count}-800x480")
    chaos_in_sight(page, players, where)
    texts = tuple(sel for sel in SETUP_TEXTS if not sel.startswith("#ds-last"))
    sizes = page.evaluate(FONT_SIZES, texts)
    wider = visit(open_page, base, game, (1024, 600))
    expect(wider.locator("#ds-chaos .ds-chaos-row")).to_have_count(count)
    expect(wider.locator("#ds-last")).to_be_visible()
    assert wider.evaluate(BELOW) <= 0, f"the same at 1024x600 scrolls by {wider.evaluate(BELOW)} px"
    in_view(wider, "#ds-next")
    elsewhere = wider.evaluate(FONT_SIZES, texts)
    smaller = {sel: (px, elsewhere[sel]) for sel, px in sizes.items() if px is None or px < elsewhere[sel]}
    assert not smaller, f"{where}: text smaller than at 1024x600, or not seen (px here, there): {smaller}"

    # the trick revealed from this screen as it is: the rows still fit, the last player's too
    page.click("#ds-trick [data-trick='golden_feathers']")
    expect(page.locator("#ds-trick")).to_have_count(0)
    fits(page, f"{where}, the trick revealed")
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls once the trick is revealed"
    in_view(page, f"#ds-chaos [data-player='{players[-1]}'] [data-kind='chaos']")
    in_view(page, "#ds-next")


#: Each player's hindrance under Chaos, the longest to say first: a reserve of 12 and 12, a hand of 20, Chaos.
DRAWN = [{"kind": "unknown", "face_up": 12, "face_down": 12}, {"kind": "invasion", "hand": 20}, {"kind": "chaos"}]


def test_a_chaos_setup_once_entered_leaves_the_whole_round_on_the_kiosk_screen(open_page: Callable[..., Any],
                                                                               base: str) -> None:
    """Five players' set-up under Chaos entered (the trick revealed, every player's hindrance drawn): at 800x480 the
    page scrolled by 79 px, Skips and Direction below the screen's foot. Everything the round needs is on the screen
    without a scroll: whose turn, the trick and each player's hindrance, every tracker, the cards out and the tricks;
    on the other 7-inch screen too, and a phone still never scrolls sideways."""
    game = chaos_setup(base)
    post_events(base, game, {"type": "trick", "trick": "golden_feathers"},
                *({"type": "hindrance", "player": p, **DRAWN[i % 3]} for i, p in enumerate(FIVE)))
    for size in (KIOSK, (1024, 600), PHONE):
        page = visit(open_page, base, game, size)
        expect(page.locator("#ds-chaos [data-player='Eva']")).to_contain_text("20 cards in hand")
        expect(page.locator("#ds-skips")).to_be_visible()  # the set-up entered: the trackers wait no longer
        where = f"the Chaos set-up entered at {size[0]}x{size[1]}"
        shoot(page, f"drachensachen-chaos-entered-{size[0]}x{size[1]}")
        fits(page, where)
        if size == PHONE:
            continue
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
        for selector in ("#turn", "#ds-hindrance", *(f"#ds-chaos [data-player='{p}']" for p in FIVE), *TURN_CONTROLS,
                         "#ds-skips .ds-tile-detail", "#ds-direction .ds-tile-detail", "#ds-pile .ds-tile-value"):
            in_view(page, selector)
        for player in FIVE:
            in_view(page, f"#scoreboard [data-player='{player}'] .score")


#: Three players, two of them with long names: one of three words with a hyphen, one of two long words.
JAN, ZDENKA, BARTHOLOMAUS = LONG = ["Jan", "Zdeňka Nováková-Dvořákov", "Bartholomäus Drachenherz"]

#: The name whose turn it is as the screen shows it: its words, its size (px), the lines it takes, and whether its
#: words reach past its box (cut short with an ellipsis); null when nobody's turn is shown.
TURN_NAME = f"""() => {{ const el = document.querySelector('#turn .turn-name');
    if (!el || !el.checkVisibility()) return null;
    const text = document.createRange();
    text.selectNodeContents(el);
    return {{ name: el.textContent, px: parseFloat(getComputedStyle(el).fontSize), lines: ({TEXT_LINES})(el),
             cut: text.getBoundingClientRect().width > el.getBoundingClientRect().width + .5 }}; }}"""


def long_named_rounds(base: str) -> Any:
    """A game of three, two with long names, tricks and hindrances on, played from round 1's set-up to round 3's
    play: yields each phase's name, the game (as it stands then) and the controls that phase asks for."""
    game = new_drachensachen(base, LONG, tricks=True, hindrances=True)
    yield "round 1's set-up", game, ("#ds-starter .ds-player:last-child", "#ds-trick .ds-choice:last-child")
    post_events(base, game, {"type": "trick", "trick": "golden_feathers"}, {"type": "starter", "player": ZDENKA})
    yield "round 1 set up", game, (*TURN_CONTROLS, ".ds-facts")
    post_events(base, game, {"type": "set_out", "value": "1"})
    yield "round 1 in play", game, TURN_CONTROLS
    post_events(base, game, {"type": "four", "count": 1}, {"type": "next_turn"})
    yield "a long name facing a draw", game, TURN_CONTROLS
    post_events(base, game, {"type": "draw_pending", "player": BARTHOLOMAUS}, {"type": "next_turn"},
                {"type": "skip", "count": 2})
    yield "two long names skipping", game, TURN_CONTROLS  # Skips' buttons: a Defender for each of them
    post_events(base, game, {"type": "went_out", "player": JAN},
                {"type": "coins", "player": ZDENKA, "coins": 12, "eights": 2},
                {"type": "coins", "player": BARTHOLOMAUS, "coins": 6})
    yield "round 2's set-up", game, ("#ds-last", "#ds-trick .ds-choice:last-child", "[data-drawer] [data-kind='chaos']",
                                     "#ds-next", "#ds-went-out-open")
    post_events(base, game, {"type": "trick", "trick": "carousel"},
                {"type": "hindrance", "kind": "invasion", "hand": 7, "player": JAN})
    yield "round 2 set up", game, (*TURN_CONTROLS, "#ds-hindrance")
    post_events(base, game, {"type": "next_turn"})
    yield "round 2 in play", game, TURN_CONTROLS
    post_events(base, game, {"type": "went_out", "player": BARTHOLOMAUS}, {"type": "coins", "player": JAN, "coins": 5},
                {"type": "coins", "player": ZDENKA, "coins": 13},
                {"type": "trick", "trick": "goblins_against_dragons"},
                {"type": "hindrance", "kind": "chaos", "player": BARTHOLOMAUS})
    yield "the Chaos set-up", game, ("#ds-last", "#ds-next",
                                     *(f"#ds-chaos [data-player='{p}'] [data-kind='chaos']" for p in LONG))
    post_events(base, game, {"type": "hindrance", "kind": "invasion", "hand": 6, "player": JAN},
                {"type": "hindrance", "kind": "invasion", "hand": 8, "player": ZDENKA},
                {"type": "hindrance", "kind": "unknown", "face_up": 3, "face_down": 3, "player": BARTHOLOMAUS})
    yield "the first turn after the Chaos set-up", game, (*TURN_CONTROLS, "#ds-hindrance")
    post_events(base, game, {"type": "next_turn"})
    yield "round 3 in play", game, TURN_CONTROLS


def again(page: Any, base: str, game: dict[str, Any]) -> None:
    """The game's page loaded anew, once its script has drawn it and its live stream is open."""
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.wait_for_selector("#live:text-is('live')")


def test_long_names_leave_every_phase_of_a_round_on_the_kiosk_screen(open_page: Callable[..., Any], base: str) -> None:
    """Three players, "Zdeňka Nováková-Dvořákov" starting: at 800x480 her name took two lines, and below it the set-up's
    facts, so that the page scrolled in round 1 by 23 px (Skips and Direction below the screen's foot), 85 px in round
    2's set-up, 39 px once round 2 was set up (a trick, an Invasion), and 87 px on the first turn after a Chaos set-up.
    In every phase the page fits 800x480 without a scroll, whatever that phase asks for on the screen, the name whose
    turn it is on one line, whole and 20 px at least; it fits 1024x600 too, and a phone never scrolls sideways."""
    kiosk, wider, phone = open_page(*KIOSK), open_page(1024, 600), open_page(*PHONE)
    for phase, game, controls in long_named_rounds(base):
        for page, size in ((kiosk, KIOSK), (wider, (1024, 600)), (phone, PHONE)):
            again(page, base, game)
            where = f"{phase} at {size[0]}x{size[1]}"
            shoot(page, f"drachensachen-long-names-{phase.replace(' ', '-')}-{size[0]}x{size[1]}")
            fits(page, where)
            name = page.evaluate(TURN_NAME)
            if phase != "round 1's set-up":  # nobody's turn until the table chooses who starts
                assert name is not None and name["name"] in LONG, f"{where}: whose turn? {name}"
                assert name["lines"] == 1 and not name["cut"] and name["px"] >= 20, f"{where}: the turn's name {name}"
            if size == PHONE:
                continue
            assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
            for selector in controls:
                in_view(page, selector)


def test_a_long_name_breaks_between_its_words_only(open_page: Callable[..., Any], base: str) -> None:
    """In the Chaos set-up at 800x480 "Bartholomäus Drachenherz" stood in its row as "Bartholomä", "us",
    "Drachenher", "z", and a Defender for each skipping player broke the names inside words too ("Novákov", "á-"):
    a name breaks between its words only (at its own hyphen too), its whole words seen, the Chaos rows' names with
    the whole name as their title, on both of the Pi's screens and a phone, after a turn of the phone as well."""
    skipping = new_drachensachen(base, LONG, tricks=True)
    post_events(base, skipping, {"type": "trick", "trick": "golden_feathers"}, {"type": "starter", "player": JAN},
                {"type": "skip", "count": 2})
    chaos = new_drachensachen(base, LONG, hindrances=True)
    post_events(base, chaos, {"type": "starter", "player": JAN}, {"type": "went_out", "player": BARTHOLOMAUS},
                {"type": "coins", "player": JAN, "coins": 5}, {"type": "coins", "player": ZDENKA, "coins": 13},
                {"type": "hindrance", "kind": "chaos", "player": BARTHOLOMAUS})
    for size in (KIOSK, (1024, 600), PHONE):
        page = open_page(*size)
        where = f"at {size[0]}x{size[1]}"
        again(page, base, skipping)
        expect(page.locator("#ds-skips .ds-defender")).to_have_count(2)
        fits(page, f"two skipping {where}")
        assert page.evaluate(BROKEN_WORDS, "#ds-skips .ds-defender") == [], f"a Defender's name broken {where}"
        again(page, base, chaos)
        expect(page.locator("#ds-chaos .ds-chaos-row")).to_have_count(3)
        fits(page, f"the Chaos set-up {where}")
        assert page.evaluate(BROKEN_WORDS, "#ds-chaos .name, #turn .turn-name") == [], f"a name broken {where}"
        names = page.locator("#ds-chaos .name")
        for i, player in enumerate(LONG):
            expect(names.nth(i)).to_have_text(player)
            expect(names.nth(i)).to_have_attribute("title", player)
        cut = page.evaluate("""() => [...document.querySelectorAll('#ds-chaos .name')].filter((el) => {
            const text = document.createRange(); text.selectNodeContents(el);
            return text.getBoundingClientRect().width > el.getBoundingClientRect().width + .5; })
            .map((el) => el.textContent)""")
        assert cut == [], f"names cut short {where}: {cut}"
        sizes = page.evaluate(FONT_SIZES, ["#ds-chaos .name"])
        assert sizes["#ds-chaos .name"] >= 13, f"the Chaos rows' names {where}: {sizes}"
        if size == PHONE:  # the phone turned: its names laid out again for the new width
            page.set_viewport_size({"width": PHONE[1], "height": PHONE[0]})
            page.wait_for_function("() => document.documentElement.clientWidth === 844")
            page.wait_for_function("""() => { const el = document.querySelector('#turn .turn-name');
                const text = document.createRange(); text.selectNodeContents(el);
                return text.getBoundingClientRect().width <= el.getBoundingClientRect().width + .5; }""")
            fits(page, "the Chaos set-up on a phone held sideways")
            assert page.evaluate(BROKEN_WORDS, "#ds-chaos .name, #turn .turn-name") == [], "a name broken sideways"


def test_the_set_up_says_a_tracker_tap_starts_play_where_the_kiosk_has_room(open_page: Callable[..., Any],
                                                                             base: str) -> None:
    """At 800x480 the set-up once entered never said "The round is set up: a tracker tap starts play." (a phone did):
    the kiosk says it too where the screen has room for it, with long names as well, and still fits; where it has
    none (every player's card under Chaos beside long names) the trackers come first and the page still fits."""
    kiosk, phone = open_page(*KIOSK), open_page(*PHONE)
    hint = "The round is set up: a tracker tap starts play."
    seen = []
    for phase, game, _ in long_named_rounds(base):
        if phase in ("round 1 set up", "round 2 set up"):
            again(kiosk, base, game)
            expect(kiosk.locator("#ds-setup-hint")).to_have_text(hint)
            expect(kiosk.locator("#ds-setup-hint")).to_be_visible()
            assert kiosk.evaluate(BELOW) <= 0, f"{phase} scrolls by {kiosk.evaluate(BELOW)} px with the hint"
            for selector in ("#ds-setup-hint", *TURN_CONTROLS, "#ds-direction .ds-tile-detail"):
                in_view(kiosk, selector)
            seen.append(phase)
        elif phase == "the first turn after the Chaos set-up":
            again(kiosk, base, game)
            expect(kiosk.locator("#ds-chaos")).to_contain_text("reserve 3 up, 3 down")
            assert kiosk.evaluate(BELOW) <= 0, f"{phase} scrolls by {kiosk.evaluate(BELOW)} px"
            for selector in ("#ds-hindrance", *TURN_CONTROLS, "#ds-direction .ds-tile-detail"):
                in_view(kiosk, selector)
            again(phone, base, game)
            expect(phone.locator("#ds-setup-hint")).to_have_text(hint)  # a page that scrolls anyway says it
            expect(phone.locator("#ds-setup-hint")).to_be_visible()
            seen.append(phase)
    assert len(seen) == 3, seen


#: For each player's base on the table: its name, and the distinct lines (tops) its sides stand on.
BASE_LINES = """() => [...document.querySelectorAll('#table .wurf-player')].map((p) => [p.dataset.player,
    new Set([...p.querySelectorAll('.base .side')].map((s) => Math.round(s.getBoundingClientRect().top))).size])"""

#: The sizes of the tiles on the bases that are tapped (a steal, or a tile to secure): 48 px.
BASE_TILES = "() => [...document.querySelectorAll('#table .base .wtile:not(.mini)')].map((t) => t.offsetWidth)"


def crowded_bases(base: str, phase: str) -> dict[str, Any]:
    """Three players; Ada won three tiles with two dice each (all on side 2), Ben two with two dice (one of them an
    egg's) and one with three: a base holds at most three tiles (six dice), and these take the most room. In "dice"
    Cleo rolls (both bases' tiles are 48 px, to steal); in "secure" Ada secures her base (hers are 48 px, to tap)."""
    game = new_wurf(base, ["Ada", "Ben", "Cleo"])

    def flip(*tiles: tuple[int, int]) -> list[dict[str, Any]]:
        return [{"type": "flip", "colour": c, "landscape": ls} for c, ls in tiles]

    def win(c: int, ls: int, k: int, egg: bool = False) -> dict[str, Any]:
        return {"type": "win", "colour": c, "landscape": ls, "from": "middle", "k": k, "egg": egg}

    post_events(base, game, *flip((1, 1), (2, 2), (3, 3)), win(1, 1, 2), win(2, 2, 2), win(3, 3, 2), {"type": "end"},
                *flip((4, 4), (5, 5), (6, 6)), win(4, 4, 2, egg=True), win(5, 5, 2), win(6, 6, 3), {"type": "end"},
                *flip((1, 2), (2, 3), (3, 4)))
    if phase == "secure":  # Cleo won nothing: the three tiles up stay for Ada, who secures her base first
        post_events(base, game, {"type": "end"})
    return game


@pytest.mark.parametrize("phase", ["dice", "secure"])
def test_a_base_s_sides_fit_on_one_line(open_page: Callable[..., Any], base: str, phase: str) -> None:
    """At 800x480 a base with three 48 px tiles on its sides wrapped its sides 5 and 6 onto a second line: a base's
    five sides stand on one line there, as on the 1024x600 screen, its tiles still 48 px; the phones and both screens
    still never scroll sideways."""
    game = crowded_bases(base, phase)
    for size in (KIOSK, (1024, 600), PHONE, (360, 740), (320, 568)):
        page = visit(open_page, base, game, size)
        expect(page.locator(f"#table .base [data-tile='{tile(1, 1)}']")).to_be_visible()
        where = f"the {phase} screen at {size[0]}x{size[1]}"
        shoot(page, f"{WURF}-bases-{phase}-{size[0]}x{size[1]}", full_page=True)
        fits(page, where)
        tiles = page.evaluate(BASE_TILES)
        assert len(tiles) == (6 if phase == "dice" else 3) and set(tiles) == {48}, f"{where}: tiles {tiles}"
        if size in (KIOSK, (1024, 600)):
            lines = page.evaluate(BASE_LINES)
            assert all(n == 1 for _, n in lines), f"{where}: a base's sides on more than one line: {lines}"
            if phase == "dice":
                in_view(page, "#k-pad [data-k='6']")
                in_view(page, "#end-turn")


@pytest.mark.parametrize("game", ["diego-drachenzahn", "drachen-wurf", "draci-hrad"])
def test_a_long_name_whose_turn_it_is_stays_on_one_line_in_every_game(open_page: Callable[..., Any], base: str,
                                                                      game: str) -> None:
    """The kit's turn line keeps a long name whole and on one line, a size smaller where it must (Drachensachen's page
    did so alone; the other games broke "Zdeňka Nováková-Dvořákov" anywhere, inside a word too); in a column too
    narrow for it even so (Drachen Wurf's at 800x480) on lines broken between its words, at its own size."""
    session = start_game(base, game, [ZDENKA, JAN])
    for size in (KIOSK, PHONE):
        page = open_game(open_page, base, session, *size)
        where = f"{game} at {size[0]}x{size[1]}"
        name = page.evaluate(TURN_NAME)
        assert name is not None and name["name"] == ZDENKA and not name["cut"] and name["px"] >= 20, (where, name)
        assert page.evaluate(BROKEN_WORDS, "#turn .turn-name") == [], f"{where}: the name broken inside a word"
        assert name["lines"] == 1 or (game, size) == ("drachen-wurf", KIOSK), (where, name)
        fits(page, where)


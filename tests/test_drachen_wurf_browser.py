"""Drachen Wurf's page in headless Chromium: a 2-player game by tap (the tiles that came up, the W8 removal, wins,
a steal, an egg, securing the base into hoard rows) watched live on a second page; colour names from the home
page; a refused tap with its rule tag; every screen, and the final screen with each hoard row by row."""
from __future__ import annotations

import random
import re
from typing import Any, Callable
from xml.etree import ElementTree

import pytest
from flask import Flask
from playwright.sync_api import expect

from companion.games import GAMES
from companion.games.base import RuleError
from tests.browser import WAIT_MS, fits, in_view, shoot, start_game, tap_again, tap_anyway, without_seq
from tests.servers import call
from tests.test_browser import add_player

WURF = "drachen-wurf"
GAME = GAMES[WURF]


def tile(colour: int, landscape: int) -> int:
    """The page's data-tile of a tile (ruling W1: colour and landscape, 1 to 6 each)."""
    return (colour - 1) * 6 + landscape - 1


def new_game(url: str, players: list[str], **options: Any) -> dict[str, Any]:
    return start_game(url, WURF, players, **options)


def session(url: str, view: dict[str, Any]) -> dict[str, Any]:
    return call(f"{url}/api/sessions/{view['id']}")[1]


def visit(page: Any, url: str, view: dict[str, Any]) -> None:
    """Open a game's page and wait until its script has wired every control."""
    page.goto(f"{url}/play/{view['id']}")
    page.wait_for_selector("body[data-ready='yes']")


def flip(page: Any, *tiles: tuple[int, int]) -> None:
    for c, ls in tiles:
        page.click(f"#flip-grid button[data-tile='{tile(c, ls)}']")
        # shown as up in the grid, or in the middle once the grid has gone (enough tiles up)
        expect(page.locator(f"#flip-grid:visible .gone.middle[data-tile='{tile(c, ls)}'], "
                            f"#middle:visible [data-tile='{tile(c, ls)}']")).to_have_count(1, timeout=WAIT_MS)


def remove(page: Any, colour: int, landscape: int) -> None:
    """W8: tap the middle tile the player removes, and wait until it is gone from the middle."""
    at = f"#middle [data-tile='{tile(colour, landscape)}']"
    page.click(at)
    expect(page.locator(at)).to_have_count(0, timeout=WAIT_MS)


def win(page: Any, at: str, k: int, egg: bool = False) -> None:
    """The tile at `at` won with `k` matching dice: tap the tile, maybe the egg, then k."""
    page.click(at)
    expect(page.locator(at)).to_have_class(re.compile(r"\bpicked\b"))
    if egg:
        page.click("#egg-toggle")
        expect(page.locator("#egg-toggle")).to_have_attribute("aria-pressed", "true")
    with page.expect_response(lambda r: r.url.endswith("/events") and r.request.method == "POST") as answer:
        page.click(f"#k-pad [data-k='{k}']")
    assert answer.value.status == 200, answer.value.json()


def end_turn(page: Any, next_player: str) -> None:
    page.click("#end-turn")
    expect(page.locator("#turn .turn-name")).to_have_text(next_player, timeout=WAIT_MS)


def score(page: Any, player: str) -> Any:
    return page.locator(f"#scoreboard [data-player='{player}'] .score")


def test_the_page_is_found_by_the_game_id_and_its_assets_are_vendored(client: Any) -> None:
    view = client.post("/api/sessions", json={"game": WURF, "players": ["Ada", "Ben"]}).get_json()
    html = client.get(f"/play/{view['id']}").get_data(as_text=True)
    assert "games/drachen-wurf.js" in html and 'id="flip-grid"' in html
    assert "<script>" not in html and " onclick=" not in html  # no inline script (CSP script-src 'self')
    sprite = client.get("/static/games/drachen-wurf.svg").get_data(as_text=True)
    for symbol in ("mountains", "forest", "water", "desert", "ice", "volcano", "egg"):
        assert f'<symbol id="{symbol}"' in sprite
    assert "http" not in sprite.replace("http://www.w3.org/2000/svg", "")  # nothing from outside


def test_a_two_player_game_by_tap_with_a_steal_and_securing_watched_live(open_page: Callable[..., Any],  # noqa: F811
                                                                          base: str) -> None:  # noqa: F811
    game = new_game(base, ["Ada", "Ben"])
    page = open_page(1024, 600)
    visit(page, base, game)
    other = open_page(800, 480)
    visit(other, base, game)
    expect(other.locator("#live")).to_have_text("live")
    # the game's own symbols, from its own sprite (the kit's icon, told which sprite, asks for it once)
    egg = page.locator("#supply svg.egg use").get_attribute("href")
    expect(page.locator(f"#sprites symbol{egg}")).to_have_count(1)
    drawn = page.locator(f"#sprites symbol{egg} path").evaluate_all("(paths) => paths.map((p) => p.getAttribute('d'))")
    sprite = ElementTree.fromstring(page.request.get(f"{base}/static/games/drachen-wurf.svg").text())
    assert drawn == [p.get("d") for p in sprite.findall(".//{*}symbol[@id='egg']//{*}path")] != []

    # Ada: four tiles come up (W8, 2 players), she removes one, the dice win two
    expect(page.locator("#turn")).to_contain_text("flips 4 tiles")
    flip(page, (1, 1), (1, 2), (2, 1), (3, 3))
    expect(page.locator("#turn")).to_contain_text("removes a tile")
    remove(page, 3, 3)
    expect(page.locator("#k-pad [data-k='2']")).to_have_attribute("aria-disabled", "true")  # no tile tapped yet
    win(page, f"#middle [data-tile='{tile(1, 1)}']", 2)
    win(page, f"#middle [data-tile='{tile(2, 1)}']", 4)
    expect(page.locator("#k-pad [data-k='2']")).to_have_attribute("aria-disabled", "true")  # all 6 dice used
    # what the dice won, each with its number of dice first, never run into the landscape's number
    expect(page.locator("#won-note")).to_have_text(re.compile(r"^0 of 6 dice left · won: 2 on \S+·[^,]+, 4 on \S+·"))
    expect(other.locator(f"#table [data-player='Ada'] [data-side='4'] [data-tile='{tile(2, 1)}']")).to_be_visible(
        timeout=WAIT_MS)
    end_turn(page, "Ben")

    # Ben: three more come up, one removed; he steals from Ada's side 2, and wins one with an egg's help
    flip(page, (4, 4), (5, 5), (6, 6))
    remove(page, 6, 6)
    loot = f"#table [data-player='Ada'] [data-tile='{tile(1, 1)}']"
    expect(page.locator(loot)).to_have_class(re.compile(r"\bsteal\b"), timeout=WAIT_MS)  # what can be stolen
    page.click(loot)
    low = page.locator("#k-pad [data-k='2']")
    expect(low).to_have_attribute("aria-disabled", "true")
    tap_anyway(low)  # looks disabled, says why
    expect(page.locator("#toast")).to_contain_text("Stealing from side 2 needs more than 2 matching dice.")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule W2")  # the ruling as a tag, not in the words
    with page.expect_response(lambda r: r.url.endswith("/events")) as answer:
        page.click("#k-pad [data-k='3']")
    assert answer.value.status == 200
    expect(page.locator(f"#table [data-player='Ben'] [data-side='3'] [data-tile='{tile(1, 1)}']")).to_be_visible()
    expect(other.locator("#eggs [data-player='Ada'] .n")).to_have_text("2", timeout=WAIT_MS)  # W5: consolation
    # 3 dice are left: 4 needs the egg
    four = page.locator("#k-pad [data-k='4']")
    expect(four).to_have_attribute("aria-disabled", "true")
    tap_anyway(four)
    expect(page.locator("#toast")).to_contain_text("Only 3 dice are left this turn. With an egg doubling a die, 4")
    win(page, f"#middle [data-tile='{tile(1, 2)}']", 3, egg=True)
    expect(page.locator("#egg-toggle")).to_have_attribute("aria-disabled", "true")  # one egg per turn (W4)
    expect(page.locator("#eggs [data-player='Ben'] .n")).to_have_text("0")
    end_turn(page, "Ada")

    # Ada: two come up, one removed, then her base is secured: one tile, into a new row
    flip(page, (2, 2), (2, 3))
    remove(page, 2, 3)
    expect(page.locator("#secure-step")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#end-turn")).to_have_attribute("aria-disabled", "true")
    page.click("#row-targets [data-row='new']")
    expect(score(page, "Ada")).to_have_text("3", timeout=WAIT_MS)  # a row of 1, and 2 eggs (W7)
    win(page, f"#middle [data-tile='{tile(2, 2)}']", 2)
    end_turn(page, "Ben")

    # Ben: his two tiles go into the hoard; the second joins the first's row (same colour, W6) for +3
    flip(page, (3, 4), (3, 5))
    remove(page, 3, 5)
    page.click("#row-targets [data-row='new']")
    expect(page.locator("#secure-title")).to_contain_text("1 tile left", timeout=WAIT_MS)
    join = page.locator("#row-targets [data-row='1']")
    expect(join).not_to_have_attribute("aria-disabled", "true")
    expect(join).to_contain_text("+3 → 4")
    tap_again(page, "#row-targets [data-row='1']")  # drawn where "New row" was: read first, as a person would
    expect(other.locator("#table [data-player='Ben'] .hrow[data-row='1'] .wtile")).to_have_count(2, timeout=WAIT_MS)
    expect(score(other, "Ben")).to_have_text("4")
    expect(score(other, "Ada")).to_have_text("3")
    expect(other.locator("#supply")).to_contain_text("Supply 34")
    expect(other.locator("#turn")).to_contain_text("rolls the dice")

    view = session(base, game)["state"]
    assert view["hoards"]["Ben"]["rows"] == [[tile(1, 1), tile(1, 2)]]
    assert view["hoards"]["Ada"]["rows"] == [[tile(2, 1)]]
    assert view["removed"] == [tile(3, 3), tile(6, 6), tile(2, 3), tile(3, 5)]
    assert view["bases"]["Ada"]["2"] == [tile(2, 2)]


def test_six_dice_on_one_tile_and_an_egg_move_by_tap(open_page: Callable[..., Any], base: str) -> None:  # noqa: F811
    game = new_game(base, ["Ada", "Ben"])
    page = open_page(800, 480)
    visit(page, base, game)
    flip(page, (1, 1), (1, 2), (2, 1), (3, 3))
    remove(page, 3, 3)
    win(page, f"#middle [data-tile='{tile(1, 1)}']", 6)  # W3: straight into the hoard, and another turn
    expect(page.locator("#secure-title")).to_contain_text("won with 6 dice", timeout=WAIT_MS)
    page.click("#row-targets [data-row='new']")
    expect(page.locator("#end-turn")).to_have_text("End turn ↻", timeout=WAIT_MS)
    end_turn(page, "Ada")
    expect(page.locator("#turn")).to_contain_text("again (6 dice)")
    flip(page, (4, 4), (5, 5))
    remove(page, 5, 5)
    win(page, f"#middle [data-tile='{tile(1, 2)}']", 6)
    page.click("#row-targets [data-row='new']")  # a row of its own for now
    expect(score(page, "Ada")).to_have_text("3", timeout=WAIT_MS)  # 1 + 1 + her egg
    # W4: the egg moves it next to the other colour-1 tile: 4 points for the row, the egg spent
    page.click("#move-button")
    expect(page.locator("#hint")).to_have_text(
        "Egg move: tap a hoard tile, then the row it moves to. It ends the turn.")
    page.click(f"#secure-tiles [data-tile='{tile(1, 2)}']")
    target = page.locator("#row-targets [data-row='1']")
    expect(target).to_contain_text("+1 → 4")
    in_view(page, "#row-targets [data-row='1']")
    shoot(page, f"{WURF}-move-800x480")
    target.click()
    expect(score(page, "Ada")).to_have_text("4", timeout=WAIT_MS)
    expect(page.locator("#move-button")).to_have_attribute("aria-disabled", "true")  # one move, then the end
    view = session(base, game)["state"]
    assert view["hoards"]["Ada"]["rows"] == [[tile(1, 1), tile(1, 2)]] and view["eggs"]["Ada"] == 0
    assert view["phase"] == "moved" and view["egg_supply"] == 35


def test_colour_names_from_the_home_page(open_page: Callable[..., Any], base: str) -> None:  # noqa: F811
    page = open_page(1024, 600)
    page.goto(base + "/")
    page.click(f"[data-game='{WURF}']")
    for name in ("Ada", "Ben"):
        add_player(page, name)
    page.locator("#options .option.names").first.locator(".chip").first.click()
    for _ in range(len("Red")):
        page.click("#kb-keys ~ .controls [aria-label='delete']")
    for ch in "Rot":
        page.click(f"#kb-keys button:text-is('{ch}')")
    page.click("#kb-ok")
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("body[data-ready='yes']")
    first = page.locator(f"#flip-grid [data-tile='{tile(1, 1)}']")
    expect(first).to_have_attribute("aria-label", "Rot dragon on Mountains")
    expect(first.locator(".cn")).to_have_text("Rot")
    expect(page.locator(f"#flip-grid [data-tile='{tile(2, 1)}'] .cn")).to_have_text("Blue")
    view = call(f"{base}/api/sessions/{page.url.rsplit('/', 1)[1]}")[1]
    assert view["options"]["colour_names"][:2] == ["Rot", "Blue"]


def test_a_refused_tap_shows_the_rule_tag(open_page: Callable[..., Any], base: str) -> None:  # noqa: F811
    game = new_game(base, ["Ada", "Ben", "Cleo"])
    deaf = open_page()
    deaf.route("**/stream", lambda route: route.abort())  # this page stops hearing the table
    without_seq(deaf)
    visit(deaf, base, game)
    call(f"{base}/api/sessions/{game['id']}/events", {"type": "flip", "colour": 1, "landscape": 1})  # elsewhere
    deaf.click(f"#flip-grid button[data-tile='{tile(1, 1)}']")  # the same tile cannot come up twice (W1)
    toast = deaf.locator("#toast")
    expect(toast.locator(".rule-tag")).to_have_text("rule W1", timeout=WAIT_MS)
    assert "(rule" not in toast.inner_text() and toast.get_attribute("data-kind") == "error"
    assert session(base, game)["state"]["middle"] == [tile(1, 1)]


#: How far the 6x6 grid's tiles and headings reach past its panel's padding on the right (none when it fits inside).
GRID_PAST_PANEL = """() => { const grid = document.querySelector('#flip-grid'), panel = grid.closest('.panel');
    const style = getComputedStyle(panel), inner = panel.getBoundingClientRect().right
        - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
    return Math.max(...[...grid.children].map((el) => el.getBoundingClientRect().right)) - inner; }"""


def play_until(app: Flask, view: dict[str, Any], done: Callable[[dict[str, Any]], bool], seed: int) -> None:
    """Random legal play (the rules' own sample) of game `view` through the table until `done(state view)`; a
    sample the rules refuse (Drachensachen's may name a player out of turn) is drawn again."""
    table = app.extensions["table"]
    rng = random.Random(seed)
    rules = GAMES[view["game"]]
    sample = rules.sample
    assert sample is not None
    state = rules.setup(tuple(view["players"]), rules.resolve_options(view["options"]))
    while not done(table.view(view["id"])["state"]):
        assert not state.finished, "the game ended before the screen to look at"
        event = sample(state, rng)
        assert event is not None
        try:
            state = rules.apply(state, event)
        except RuleError:
            continue
        table.submit(view["id"], event)


def test_a_tile_picked_to_steal_on_a_phone_brings_how_many_dice_into_view(open_page: Callable[..., Any], base: str,
                                                                         app: Flask) -> None:  # noqa: F811
    """On a phone the bases lie far below the dice: a tile tapped there to steal it left "how many dice?" above the
    screen, and nothing on it said what to do next."""
    game = new_game(base, ["Ada", "Ben", "Cleo"])
    play_until(app, game, lambda s: s["phase"] == "dice" and s["max_k"] == 6 and s["round"] >= 4
               and any(s["stealable"]["6"]), seed=4)
    state = session(base, game)["state"]
    page = open_page(360, 640)
    visit(page, base, game)
    loot = page.locator("#table .steal").last
    loot.evaluate("(el) => el.scrollIntoView({ block: 'end' })")  # as a person scrolls down to it
    assert page.evaluate("document.getElementById('dice-step').getBoundingClientRect().bottom") < 0  # out of sight
    loot.click()
    expect(page.locator("#won-note")).to_contain_text("how many dice?")
    in_view(page, "#k-pad")
    tap_again(page, "#k-pad [data-k='5']")  # more than any side's number: a steal from every side
    expect(page.locator("#won-note")).to_contain_text("won: 5 on", timeout=WAIT_MS)
    assert session(base, game)["state"]["current"]["wins"] != state["current"]["wins"]


def test_an_egg_move_before_the_dice_says_it_leaves_them_unused(open_page: Callable[..., Any], base: str,
                                                                app: Flask) -> None:  # noqa: F811
    """The egg's move ends the turn (W4). Chosen before any die was used, it ended the turn with all six unused, and
    nothing said so: the hint says it before the move is made."""
    game = new_game(base, ["Ada", "Ben", "Cleo"])
    play_until(app, game, lambda s: s["phase"] == "dice" and s["max_k"] == 6 and "move" in s["expects"], seed=4)
    page = open_page(800, 480)
    visit(page, base, game)
    page.click("#move-button")
    expect(page.locator("#hint")).to_have_text(
        "Egg move: tap a hoard tile, then the row it moves to. It ends the turn, with 6 dice unused.")


@pytest.mark.parametrize("width, height", [(1024, 600), (800, 480), (390, 844), (360, 740), (844, 390)])
def test_every_screen_fits(open_page: Callable[..., Any], base: str, app: Flask, width: int, height: int) -> None:  # noqa: F811
    players = ["Ada", "Ben", "Cleo"]
    flipping = new_game(base, ["Ada", "Ben"])
    rolling = new_game(base, players)
    play_until(app, rolling, lambda s: s["phase"] == "dice" and s["round"] >= 3
               and any(s["stealable"]["6"]) and s["eggs"][s["active"]] > 0, seed=4)
    securing = new_game(base, players)
    play_until(app, securing, lambda s: s["phase"] == "secure" and len(s["hoards"][s["active"]]["rows"]) >= 2,
               seed=7)
    over = new_game(base, players)
    play_until(app, over, lambda s: s["finished"], seed=3)
    page = open_page(width, height)
    screens = {"flip": (flipping, [f"#flip-grid [data-tile='{tile(6, 6)}']"]),
               "dice": (rolling, ["#k-pad [data-k='6']", "#egg-toggle", "#end-turn", "#middle"]),
               "secure": (securing, ["#row-targets [data-row='new']", "#secure-tiles .wtile"]),
               "final": (over, [])}
    for name, (game, controls) in screens.items():
        visit(page, base, game)
        page.wait_for_selector("#live:text-is('live')")
        shoot(page, f"{WURF}-{name}-{width}x{height}", full_page=width < 600)
        where = f"{name} at {width}x{height}"
        fits(page, where)  # the 6x6 grid's tiles too: 48 px on a 360 px phone, never scrolling sideways
        if name == "flip":
            assert page.evaluate(GRID_PAST_PANEL) <= 0.5, f"the tiles reach into the panel's edge: {where}"
        assert page.locator("input").count() == 0
        if width == 800 or (name == "flip" and width > height):
            for control in controls:
                in_view(page, control)  # the turn's controls without scrolling on the Pi's screen; the 36 tiles on a
                # phone held sideways
    # the final screen says how the game was won (W7), and draws each hoard row by row beside its player's total
    expect(page.locator("#final-why")).to_contain_text("Every tile is in a hoard, which ends the game. Each hoard row "
                                                       "scores its length squared, each egg left 1")
    state = session(base, over)["state"]
    hoards = page.locator("#totals .final-hoard")
    expect(hoards).to_have_count(3)
    for player in players:
        rows = state["hoards"][player]["rows"]
        drawn = page.locator(f"#totals [data-player='{player}'] .final-hoard .hrow")
        expect(drawn).to_have_count(len(rows))
        assert [drawn.nth(i).locator(".wtile").count() for i in range(len(rows))] == [len(r) for r in rows]
        expect(page.locator(f"#totals [data-player='{player}'] .score")).to_have_text(str(state["scores"][player]))
    expect(page.locator("#winners")).to_contain_text(state["winners"][0])

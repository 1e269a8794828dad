"""The new game's options on Home, in headless Chromium. On the 800x480 screen Start stood on a bar at the screen's foot
over the options, and nothing said there was more below: with four players seated for Dračí hrad, its heroes by seat
and its note on the placeholder hero cards lay under the bar, and a tap on Start gave Argilos, Arcana, Fist and Parbat
by seat, where the rulebook has each player choose one of the six heroes; Drachensachen's hindrances and tricks and
Diego's face-down guesses the same. Start comes after the options now: while it lies below the screen, a bar at the
screen's foot says how many options lie below, and a tap on it takes the family to them. The seat hint was 12.7 px."""
from __future__ import annotations

import time
from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import KIOSK, PHONE, WIDE, fits, shoot, tap_again
from tests.servers import call
from tests.test_browser import DIEGO
from tests.test_fit_800_browser import FONT_SIZES

SCREENS = [KIOSK, WIDE, PHONE]
GAMES = [DIEGO, "drachensachen", "drachen-wurf", "draci-hrad"]

#: A family's players as Home lists them, four of them seated; a game of theirs still unfinished above New game.
FAMILY = ["Ada", "Ben", "Cleo", "Dan", "Eliška", "Filip", "Greta", "Hynek"]
SEATED = FAMILY[:4]

#: The screen as it is: which of the new game's options are seen whole (within the screen, below the header, nothing
#: lying over them), whether Start can be tapped (seen whole, nothing over it), and the words of the bar below.
SEEN = """() => {
    const top = document.querySelector('header.bar').getBoundingClientRect().bottom;
    const whole = (el) => { const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= top - .5 && r.bottom <= innerHeight + .5
            && [[r.left + r.width / 2, r.top + r.height / 2], [r.left + r.width / 2, r.top + 2],
                [r.left + r.width / 2, r.bottom - 2], [r.left + 2, r.top + r.height / 2],
                [r.right - 2, r.top + r.height / 2]].every(([x, y]) => el.contains(document.elementFromPoint(x, y))); };
    const bar = document.getElementById('more-below');
    return { seen: [...document.querySelectorAll('#options > *')].filter(whole)
                 .map((el) => el.querySelector('.label, .choice > span')?.textContent.trim()),
             start: whole(document.getElementById('start')),
             below: bar && bar.checkVisibility() && whole(bar) ? bar.textContent.trim() : null }; }"""

#: The name of each of the new game's options, as it shows it.
OPTION_NAMES = """() => [...document.querySelectorAll('#options > *')]
    .map((el) => el.querySelector('.label, .choice > span')?.textContent.trim())"""


def seat_family(open_page: Callable[..., Any], base: str, game: str, size: tuple[int, int]) -> Any:
    """Home at `size`, a game of the family's unfinished above New game, `game` chosen and four players seated."""
    for name in FAMILY:
        assert call(f"{base}/api/players", {"name": name})[0] in (200, 201)
    assert call(f"{base}/api/sessions", {"game": "drachen-wurf", "players": ["Ada", "Ben"]})[0] == 201
    page = open_page(*size)
    page.goto(base + "/")
    page.click(f"#game-choice [data-game='{game}']")
    expect(page.locator("#options > *").first).to_be_visible()
    for name in SEATED:
        page.click(f"#player-pool [data-player='{name}']")
    expect(page.locator("#seats li")).to_have_count(len(SEATED))
    page.evaluate("window.scrollTo(0, 0)")
    return page


def walk_to_start(page: Any, where: str) -> list[str]:
    """From the top of the page down to Start by taps on the bar below, as a family would; returns the options seen
    whole on the way. While Start cannot be tapped, the bar says what lies below; each tap on it moves the page on."""
    seen: list[str] = []
    for _ in range(10):
        screen = page.evaluate(SEEN)
        seen += [name for name in screen["seen"] if name not in seen]
        if screen["start"]:
            return seen
        assert screen["below"] and "below" in screen["below"], f"{where}: Start is out of reach, nothing says so"
        y = page.evaluate("scrollY")
        page.click("#more-below")
        page.wait_for_function("(y) => scrollY > y", arg=y)
    raise AssertionError(f"{where}: ten taps on the bar below and Start still out of reach")


@pytest.mark.parametrize("size", SCREENS, ids=["800x480", "1024x600", "phone"])
@pytest.mark.parametrize("game", GAMES)
def test_every_option_of_the_game_is_seen_before_start(open_page: Callable[..., Any], base: str, game: str,
                                                       size: tuple[int, int]) -> None:
    """Four players seated, a game unfinished above: no tap on Start before every option of the chosen game was on
    the screen whole, nothing lying over it; on the way, the bar at the screen's foot says there is more below."""
    page = seat_family(open_page, base, game, size)
    where = f"{game} at {size[0]}x{size[1]}"
    fits(page, where, header=False)
    shoot(page, f"home-options-{game}-{size[0]}x{size[1]}")
    seen = walk_to_start(page, where)
    unseen = [name for name in page.evaluate(OPTION_NAMES) if name not in seen]
    assert not unseen, f"{where}: Start can be tapped, these options never seen whole: {unseen}"
    tap_again(page, "#start")
    page.wait_for_url("**/play/*")


def test_draci_hrads_heroes_by_seat_are_in_sight_before_start(open_page: Callable[..., Any], base: str) -> None:
    """Dračí hrad on the 800x480 screen, four players seated: the first tap on the bar below brings the heroes by seat
    whole into sight; the hero tapped for seat 1 is the hero the game starts with."""
    page = seat_family(open_page, base, "draci-hrad", KIOSK)
    assert not page.evaluate(SEEN)["start"], "Start could be tapped before the heroes by seat were seen"
    expect(page.locator("#more-below")).to_have_text("↓5 options below, then Start")
    page.click("#more-below")
    expect(page.locator("#opt-heroes")).to_be_in_viewport(ratio=1)
    assert "Heroes by seat tap to choose" in page.evaluate(SEEN)["seen"], "the heroes by seat are not seen whole"
    page.click("#opt-heroes [data-seat-option='1']")
    page.click("#symbol-choice [data-choice='neira']")
    expect(page.locator("#opt-heroes [data-seat-option='1']")).to_have_attribute("data-choice", "neira")
    walk_to_start(page, "Dračí hrad at 800x480")
    tap_again(page, "#start")
    page.wait_for_url("**/play/*")
    _, view = call(f"{base}/api/sessions/{page.url.rsplit('/', 1)[1]}")
    assert view["options"]["heroes"] == ["neira", "argilos", "arcana", "fist"]


def test_a_double_tap_on_the_bar_below_starts_no_game(open_page: Callable[..., Any], base: str) -> None:
    """The bar below takes the page on, and its last tap brings Start to lie where the bar was, under the finger
    (Drachensachen's options at 800x480): a double tap's second half there starts no game, and says so; a tap on
    Start after a look starts it. The page's clock stands still here, so "at once" holds however slow the machine."""
    page = seat_family(open_page, base, "drachensachen", KIOSK)
    page.clock.install()
    page.clock.pause_at(time.time() + 3600)
    for _ in range(10):
        page.clock.run_for(1000)  # taps on the bar a second apart: each a tap of its own
        bar = page.locator("#more-below").bounding_box()
        y = page.evaluate("scrollY")
        page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] / 2)
        page.wait_for_function("(y) => scrollY > y", arg=y)
        start = page.locator("#start").bounding_box()
        if start and start["y"] < bar["y"] + bar["height"] and start["y"] + start["height"] > bar["y"]:
            break  # Start lies where the bar was
    else:
        raise AssertionError("Start never came to lie where the bar was")
    page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] / 2)  # the double tap's second half
    expect(page.locator("#toast")).to_contain_text("Not counted")
    assert [s["game"] for s in call(f"{base}/api/sessions")[1]["sessions"]] == ["drachen-wurf"]
    page.clock.run_for(1000)
    page.click("#start")
    page.wait_for_url("**/play/*")


def test_the_seat_hint_reads_13_px_or_more(open_page: Callable[..., Any], base: str) -> None:
    """"tap in seat order, clockwise; the first starts" beside Players: 12.7 px on the 7-inch screens."""
    for size in SCREENS:
        page = open_page(*size)
        page.goto(base + "/")
        page.click(f"#game-choice [data-game='{DIEGO}']")
        size_px = page.evaluate(FONT_SIZES, ["#seat-hint"])["#seat-hint"]
        assert size_px is not None and size_px >= 13, f"the seat hint is {size_px} px at {size[0]}x{size[1]}"

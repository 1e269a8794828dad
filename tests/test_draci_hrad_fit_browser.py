"""The Dračí hrad page on the Pi's 800x480 screen, in headless Chromium: a fight against the Dragon with two heroes
(their names broke inside words beside the buttons that choose whom each attack strikes: "Bartholom/äus/Drachenhe/rz",
"Clar/a"), six heroes with their equipment (the sixth card below the screen's foot) and four with a long log of numbers
set by hand (the page 583 px high), and the fight's and the dart's small print (11.2 and 11.3 px), each on the
1024x600 screen and a phone as well."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import (
    BROKEN_WORDS,
    KIOSK,
    PHONE,
    SCREENS,
    SMALL_TEXT,
    TEXT_LINES,
    WIDE,
    fits,
    in_view,
    open_game,
    post_events,
    shoot,
    start_game,
)
from tests.test_draci_hrad_browser import CITY_CONTROLS, GAME, hero
from tests.test_fit_800_browser import BELOW

BART = "Bartholomäus Drachenherz"

#: Each hero of the fight whose lives and weapon ("♥ 7 · Bow") take more than one line, with their lines' count.
LIFE_LINES = f"""() => [...document.querySelectorAll('.hr-member-who')].map((el) => {{
    const text = [...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.includes('♥'));
    return [el.closest('[data-member]').dataset.member, ({TEXT_LINES})(text)]; }})
    .filter(([, lines]) => lines !== 1)"""

#: The target buttons of a hero of the fight that lie over their name, lives and weapon, or past their row.
TARGETS_ASTRAY = """() => [...document.querySelectorAll('.hr-member')].flatMap((row) => {
    const who = row.querySelector('.hr-member-who').getBoundingClientRect(), box = row.getBoundingClientRect();
    return [...row.querySelectorAll('.hr-target')].filter((b) => { const r = b.getBoundingClientRect();
        const over = r.left < who.right - .5 && who.left < r.right - .5 && r.top < who.bottom - .5
            && who.top < r.bottom - .5;
        return over || r.left < box.left - .5 || r.right > box.right + .5; })
    .map((b) => `${row.dataset.member}: ${b.textContent}`); })"""

#: The heroes' cards whose badges and equipment are cut short, or reach past the card.
NOTES_CUT = """() => [...document.querySelectorAll('.hr-hero .hr-notes')].filter((el) => el.checkVisibility()
        && (el.scrollHeight > el.clientHeight + .5 || el.scrollWidth > el.clientWidth + .5
            || [...el.querySelectorAll('.hr-kit')].some((k) => !k.checkVisibility())))
    .map((el) => el.closest('.hr-hero').dataset.player)"""


def at_the_dragon(base: str) -> dict[str, Any]:
    """Four heroes, each gone to the arrow square (Bartholomäus Drachenherz with a bow, Clara with a sword): his
    move in the castle."""
    session = start_game(base, GAME, [BART, "Clara", "Jan", "Anna"], heroes=["arcana", "argilos", "fist", "parbat"])
    post_events(base, session, {"type": "buy", "player": BART, "item": "bow"}, {"type": "enter", "player": BART},
                {"type": "buy", "player": "Clara", "item": "sword"}, {"type": "enter", "player": "Clara"},
                {"type": "enter", "player": "Jan"}, {"type": "enter", "player": "Anna"})
    return session


def test_the_heroes_fighting_the_dragon_keep_their_names_whole(open_page: Callable[..., Any], base: str) -> None:
    """Bartholomäus Drachenherz and Clara fight the Dragon, which strikes first: beside the buttons that choose whom
    its claws and teeth strike, at 800x480 the names stood in columns of 97 and 46 px, as "Bartholom", "äus",
    "Drachenhe", "rz" and "Clar", "a", and "♥ 10 · Bow" took three lines. Each name breaks between its words only,
    each hero's lives and weapon stand on one line, and every target button is whole, clear of the names, on both of
    the Pi's screens (no scroll) and a phone."""
    session = at_the_dragon(base)
    kiosk = open_game(open_page, base, session, *KIOSK)
    kiosk.click("[data-pane='fight']")
    kiosk.click("#hr-enemies [data-enemy='dragon']")
    kiosk.click(f"[data-weapon='bow'][data-for='{BART}']")
    kiosk.click("[data-join='Clara']")
    kiosk.click("[data-weapon='sword'][data-for='Clara']")
    expect(kiosk.locator("#hr-start")).to_have_text("Fight the Dragon")
    kiosk.click("#hr-start")
    for size in (KIOSK, WIDE, PHONE):
        page = kiosk if size == KIOSK else open_game(open_page, base, session, *size)
        where = f"the Dragon's targets at {size[0]}x{size[1]}"
        expect(page.locator(".hr-members.choosing .hr-target")).to_have_count(6)
        shoot(page, f"draci-hrad-dragon-targets-{size[0]}x{size[1]}")
        assert page.evaluate(BROKEN_WORDS, ".hr-member-who") == [], f"{where}: a name broken inside a word"
        assert page.evaluate(LIFE_LINES) == [], f"{where}: lives and weapon on more than one line"
        assert page.evaluate(TARGETS_ASTRAY) == [], f"{where}: target buttons over the names or past their row"
        fits(page, where)
        if size != PHONE:
            assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
            for selector in ("#hr-roll", "#hr-dice", "#hr-end-fight", ".hr-member:last-child .hr-target:last-child"):
                in_view(page, selector)


SIX = ["Ada", "Ben", "Cleo", "Dan", "Eva", "Finn"]
#: What each of six heroes buys on their first move (the cards' stock allows it; each hero may use their weapon).
KITS = [("sword", "shield", "leather", "torch"), ("bow", "shield", "food", "antidote"),
        ("hammer", "leather", "torch", "skunk"), ("axe", "shield", "food", "potion"),
        ("bow", "leather", "torch", "darren_back"), ("bow", "shield", "food", "antidote")]


def six_equipped(base: str, players: list[str] = SIX) -> dict[str, Any]:
    """Six heroes, each of whom bought four things on their move and tapped Next: the first hero's move again."""
    session = start_game(base, GAME, players)
    for player, kit in zip(players, KITS):
        post_events(base, session, *({"type": "buy", "player": player, "item": item} for item in kit),
                    {"type": "end_turn", "player": player})
    return session


def four_set_by_hand(base: str) -> dict[str, Any]:
    """Four heroes, each of whom bought four things (Ben's dart poisoned him), and five numbers set by hand: Dan's
    move."""
    session = start_game(base, GAME, SIX[:4])
    for player, kit in zip(SIX[:4], KITS):
        post_events(base, session, *({"type": "buy", "player": player, "item": item} for item in kit))
        if player == "Ben":
            post_events(base, session, {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})
        if player != "Dan":
            post_events(base, session, {"type": "end_turn", "player": player})
    post_events(base, session, *({"type": "override", "player": SIX[i % 4], "field": "gold", "value": 150 + i,
                                  "reason": "Corrected at the table"} for i in range(4)),
                {"type": "override", "player": "Dan", "field": "lives", "value": 9, "reason": "From the hero card"})
    return session


def purses_and_lives_in_sight(page: Any, players: list[str], where: str) -> None:
    """Every hero's purse and lives on the screen as it is, without a scroll; the page fits (`fits`)."""
    fits(page, where)
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    for player in players:
        for part in (".hr-gold", ".hr-treasure", ".hr-pips", ".hr-lives-n", ".hr-score"):
            in_view(page, f"#hr-heroes [data-player='{player}'] {part}")


@pytest.mark.parametrize("table", ["six heroes", "six heroes, two long names", "four, five set by hand"])
def test_every_hero_s_purse_and_lives_stay_on_the_screen(open_page: Callable[..., Any], base: str,
                                                         table: str) -> None:
    """Six heroes, each with four things bought, in round 2: at 800x480 the heroes' column reached 109 px below the
    screen's foot (the page 588 px high; 625 px with two long names, 625 px at 1024x600 too), the sixth card, its purse
    and lives, wholly out of sight; four heroes with their equipment and five numbers set by hand took the page to
    583 px. On both of the Pi's screens every hero's purse and lives are in sight without a scroll, the round's shop
    too, and in a fight (the cards close up where they must); on a phone, whose page scrolls, every card is whole,
    nothing of it cut short."""
    players = {"six heroes": SIX, "six heroes, two long names": [BART, "Zdeňka Nováková-Dvořákov", *SIX[2:]],
               "four, five set by hand": SIX[:4]}[table]
    session = four_set_by_hand(base) if len(players) == 4 else six_equipped(base, players)
    for size in (WIDE, PHONE, KIOSK):  # the kiosk last: its fight is the game's
        page = open_game(open_page, base, session, *size)
        expect(page.locator(".hr-hero")).to_have_count(len(players))
        expect(hero(page, players[-1]).locator(".hr-kit")).to_be_attached()
        where = f"{table} at {size[0]}x{size[1]}"
        shoot(page, f"draci-hrad-{table.replace(' ', '-').replace(',', '')}-{size[0]}x{size[1]}")
        assert page.evaluate(BROKEN_WORDS, ".hr-hero .name") == [], f"{where}: a name broken inside a word"
        if size == PHONE:
            fits(page, where)
            assert page.evaluate(NOTES_CUT) == [], f"{where}: a card's badges or equipment cut short"
            continue
        purses_and_lives_in_sight(page, players, where)
        for selector in CITY_CONTROLS:
            in_view(page, selector)
        if size == KIOSK:  # a fight: the round's pane longer, the cards as they were
            page.click("[data-pane='fight']")
            page.click("#hr-enemies [data-enemy='skeleton']")
            page.click("#hr-start")
            expect(page.locator("#hr-roll")).to_be_visible()
            purses_and_lives_in_sight(page, players, f"{where}, in a fight")


def small_print_fits(page: Any, where: str, controls: tuple[str, ...]) -> None:
    """No text of the page under 13 px; the page fits (`fits`), and on the Pi's screens `controls` are in sight
    without a scroll."""
    assert page.evaluate(SMALL_TEXT, "#play") == [], f"{where}: text under 13 px"
    fits(page, where)
    if page.viewport_size["width"] > PHONE[0]:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
        for selector in controls:
            in_view(page, selector)


def poisoned_with_an_antidote(base: str) -> dict[str, Any]:
    """Three heroes; Ada bought an antidote, and her dart poisoned her: the antidote now, or Next."""
    session = start_game(base, GAME, ["Ada", "Ben", "Cleo"])
    post_events(base, session, {"type": "buy", "player": "Ada", "item": "antidote"},
                {"type": "dart", "player": "Ada", "attack_die": 6, "defence_die": 1})
    return session


@SCREENS
def test_the_fight_s_and_the_dart_s_small_print_is_13_px(open_page: Callable[..., Any], base: str,
                                                         size: tuple[int, int]) -> None:
    """On the Pi's screens each enemy's numbers in a fight's set-up were 11.2 px ("att 16/16/18 · def 14 · ♥30"), a
    weapon's attack 11.2 px, the antidote's hint after a poisoned dart ("now, or Next: keep the antidote and stay
    poisoned") 11.3 px, and a hero's treasure in the bank 11.2 px: no text of the page is under 13 px, in the dart's
    result, the bank, a fight's set-up with two heroes and the fight itself, and the Pi's screens still show it all
    without a scroll."""
    page = open_game(open_page, base, poisoned_with_an_antidote(base), *size)
    expect(page.locator("#hr-antidote-or")).to_be_visible()
    small_print_fits(page, f"the dart's result at {size[0]}x{size[1]}", ("#hr-antidote", "#hr-next"))
    page.click("[data-pane='bank']")
    expect(page.locator("[data-exchange='Ada'] small")).to_be_visible()
    small_print_fits(page, f"the bank at {size[0]}x{size[1]}",
                     ("[data-exchange='Cleo']", "#hr-stock .hr-stock:last-child"))
    # Ada with a sword and Ben with a bow against the Dragon
    two = start_game(base, GAME, ["Ada", "Ben"])
    post_events(base, two, {"type": "end_turn", "player": "Ada"}, {"type": "buy", "player": "Ben", "item": "bow"},
                {"type": "end_turn", "player": "Ben"}, {"type": "buy", "player": "Ada", "item": "sword"})
    page = open_game(open_page, base, two, *size)
    page.click("[data-pane='fight']")
    page.click("#hr-enemies [data-enemy='dragon']")
    page.click("[data-join='Ben']")
    expect(page.locator("[data-weapon='bow'][data-for='Ben']")).to_have_attribute("aria-pressed", "true")
    shoot(page, f"draci-hrad-small-print-setup-{size[0]}x{size[1]}")
    small_print_fits(page, f"a fight's set-up at {size[0]}x{size[1]}",
                     ("#hr-enemies .hr-enemy:last-child", "#hr-start", "[data-weapon='bow'][data-for='Ben']"))
    page.click("#hr-start")
    expect(page.locator(".hr-members.choosing")).to_be_visible()
    small_print_fits(page, f"the fight at {size[0]}x{size[1]}", ("#hr-roll", "#hr-end-fight"))

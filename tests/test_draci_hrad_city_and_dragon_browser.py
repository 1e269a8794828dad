"""The Dračí hrad page in headless Chromium: the city's shops, each one's name on a line of its own over its goods (the
names were places in the same rows as the goods, each at the end of the row before its own: "Armourer" after the
Hammer, "Magician" after the Torch), on the Pi's screens and a phone; and the Dragon's charge, whose attacks the table
may leave out (ruling H6: the game's manager decides how many, claws or teeth), against a hero alone as in a group."""
from __future__ import annotations

from typing import Any, Callable

from playwright.sync_api import expect

from tests.browser import (
    PHONE,
    SCREENS,
    SMALL_TEXT,
    WAIT_MS,
    fits,
    in_view,
    open_game,
    post_events,
    shoot,
    start_game,
    tap_again,
)
from tests.browser import session_view as state
from tests.test_draci_hrad_browser import CITY_CONTROLS, GAME, die
from tests.test_draci_hrad_fit_browser import BART
from tests.test_fit_800_browser import BELOW

FIVE = [BART, "Oma Käthe", "Lena", "Jonas", "Mia"]
HEROES = ["argilos", "arcana", "fist", "parbat", "neira"]

#: Each shop's name with the goods under it: the name's box, and its goods' boxes in the order the shop lists them.
SHOPS = """(goods) => Object.entries(goods).map(([name, sels]) => {
    const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const names = [...document.querySelectorAll('#hr-shop .hr-square')];
    return [name, box(names.find((el) => el.textContent.trim() === name)),
            sels.map((sel) => box(document.querySelector(`#hr-shop ${sel}`)))]; })"""

#: The shop's goods drawn beside a shop's name, on its line: none may be.
BESIDE_A_NAME = """() => { const names = [...document.querySelectorAll('#hr-shop .hr-square')];
    return [...document.querySelectorAll('#hr-shop .hr-buy')].filter((b) => { const r = b.getBoundingClientRect();
        return names.some((n) => { const m = n.getBoundingClientRect();
            return r.top < m.bottom - .5 && m.top < r.bottom - .5; }); })
        .map((b) => b.textContent); }"""


def goods_by_shop(view: dict[str, Any]) -> dict[str, list[str]]:
    """Each shop's name with the selectors of its goods, as the companion lists them; the rest stops and the arrow
    square to the castle too."""
    goods = {square["name"]: [f"[data-item='{i['item']}']" for i in square["items"]]
             for square in view["state"]["shop"]}
    return {**goods, "Rest": ["[data-stop='tavern']", "[data-stop='oracle']"], "Castle": ["#hr-enter"]}


def mia_fell_to_the_dragon(base: str) -> dict[str, Any]:
    """Five heroes; Bartholomäus Drachenherz bought a sword, Mia (Neira, 10 lives) fought the Dragon alone and fell in
    its first charge: Bartholomäus's move again, in the city, the last fight's line above it."""
    session = start_game(base, GAME, FIVE, heroes=HEROES)
    post_events(base, session, {"type": "buy", "player": BART, "item": "sword"},
                *({"type": "end_turn", "player": p} for p in FIVE[:4]),
                {"type": "fight", "players": ["Mia"], "enemy": "dragon"},
                {"type": "strike", "enemy_dice": [6, 6, 6], "defence_dice": [1, 1, 1], "targets": ["Mia"] * 3})
    return session


@SCREENS
def test_each_shop_s_name_stands_over_its_own_goods(open_page: Callable[..., Any], base: str,
                                                     size: tuple[int, int]) -> None:
    """The shops' names were places of the goods' rows, each at the end of the row before its own goods (at 1024x600
    "Armourer" ended the weapons' row and "Magician" followed the Torch; on a phone "Merchant" stood between the Chain
    mail and the Food). Each name stands on a line of its own, its first goods right under it and all of them below
    it, no goods beside a name; the city still fits the Pi's screens without a scroll, the last fight's line above
    it, and no text is under 13 px."""
    session = mia_fell_to_the_dragon(base)
    page = open_game(open_page, base, session, *size)
    expect(page.locator("#hr-last")).to_contain_text("Dragon")
    expect(page.locator("#hr-shop .hr-square:not(.more)")).to_have_count(6)
    where = f"the city at {size[0]}x{size[1]}"
    shoot(page, f"draci-hrad-city-shops-{size[0]}x{size[1]}")
    assert page.evaluate(BESIDE_A_NAME) == [], f"{where}: goods on a shop's name's line"
    for shop, name, goods in page.evaluate(SHOPS, goods_by_shop(state(base, session))):
        first = goods[0]
        assert abs(first[0] - name[0]) <= 1 and 0 <= first[1] - name[3] <= 8, \
            f"{where}: {shop}'s first goods are not right under its name ({name} over {first})"
        assert all(g[1] >= name[3] - .5 for g in goods), f"{where}: {shop}'s goods above its name"
    assert page.evaluate(SMALL_TEXT, "#play") == [], f"{where}: text under 13 px"
    fits(page, where)
    if size != PHONE:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
        for selector in (*CITY_CONTROLS, "#hr-enter", "[data-stop='tavern']", "#hr-last"):
            in_view(page, selector)


def alone_at_the_dragon(base: str) -> dict[str, Any]:
    """Ada (Argilos: 12 lives, defence 12) in chain mail (+5: a claw takes 4 lives at most) fights the Dragon alone,
    which strikes first."""
    session = start_game(base, GAME, ["Ada", "Ben"])
    post_events(base, session, {"type": "buy", "player": "Ada", "item": "chain_mail"},
                {"type": "fight", "players": ["Ada"], "enemy": "dragon"})
    return session


def exchanges(page: Any, count: int) -> None:
    """Wait until the page shows the fight's exchange number `count` as the latest."""
    expect(page.locator("#hr-exchanges li").first).to_have_attribute("data-number", str(count), timeout=WAIT_MS)


def enemy_attacks(base: str, session: dict[str, Any]) -> list[list[Any]]:
    """Each exchange of the running fight: the attack number and the target of each of the enemy's strikes."""
    return [[[s["attack"][0]["value"], s["target"]] for s in x["strikes"] if s["side"] == "enemy"]
            for x in state(base, session)["state"]["fight"]["exchanges"]]


def test_against_a_hero_alone_the_table_leaves_dragon_attacks_out(open_page: Callable[..., Any], base: str) -> None:
    """Ruling H6: the Dragon attacks up to three times a charge, and the game's manager decides how many and whether
    claws or teeth; against a hero alone the page made all three, always (Neira, 10 lives, was out after one roll).
    Beside Ada her three attacks are ticked, as before; a tap on one leaves it out of the charge, one is made at
    least, and the companion's roll and the dice entered by hand make only those ticked. The next charge has all
    three again."""
    session = alone_at_the_dragon(base)
    page = open_game(open_page, base, session)
    attacks = page.locator("[data-member='Ada'] .hr-target")
    expect(attacks).to_have_count(3)
    expect(attacks).to_have_text(["✓ claw 16", "✓ claw 16", "✓ teeth 18"])
    page.click("[data-target='Ada'][data-attack='2']")
    page.click("[data-target='Ada'][data-attack='1']")
    expect(attacks).to_have_text(["✓ claw 16", "claw 16", "teeth 18"])
    page.click("[data-target='Ada'][data-attack='0']")  # the last one made stays: the Dragon attacks once at least
    expect(page.locator("#toast")).to_contain_text("once at least")
    expect(attacks.first).to_have_attribute("aria-pressed", "true")
    page.click("#hr-roll")
    exchanges(page, 1)
    assert enemy_attacks(base, session) == [[[16, "Ada"]]]
    tap_again(page, "#hr-roll")  # Ada's attack
    exchanges(page, 2)
    expect(attacks).to_have_text(["✓ claw 16", "✓ claw 16", "✓ teeth 18"])  # the next charge: all three again
    page.click("[data-target='Ada'][data-attack='1']")
    tap_again(page, "#hr-dice")
    die(page, 1, "The Dragon's attack die (claw 16) at Ada")  # 16 + 1 against 12 + 5 + 6: no damage
    die(page, 6, "Ada's defence die (claw 16)")
    die(page, 1, "The Dragon's attack die (teeth 18) at Ada")
    die(page, 6, "Ada's defence die (teeth 18)")
    exchanges(page, 3)
    assert enemy_attacks(base, session)[2] == [[16, "Ada"], [18, "Ada"]]
    tap_again(page, "#hr-roll")  # Ada's attack; then a charge nobody chose: all three, as before
    exchanges(page, 4)
    expect(attacks).to_have_count(3)
    tap_again(page, "#hr-dice")
    for face in (1, 6, 1, 6, 1, 6):  # 16 + 1 or 18 + 1 against 12 + 5 + 6: no damage
        die(page, face)
    exchanges(page, 5)
    assert enemy_attacks(base, session)[4] == [[16, "Ada"], [16, "Ada"], [18, "Ada"]]


def test_in_a_group_a_ticked_attack_of_the_dragon_is_left_out(open_page: Callable[..., Any], base: str) -> None:
    """In a group the table picks whom each of the Dragon's attacks strikes, as before; a tap on one ticked leaves it
    out of the charge (ruling H6), a tap on it again, or on another hero's, makes it."""
    session = start_game(base, GAME, ["Ada", "Ben", "Cleo"])
    post_events(base, session, {"type": "fight", "players": ["Ada", "Ben", "Cleo"], "enemy": "dragon"})
    page = open_game(open_page, base, session)
    expect(page.locator("[data-target='Ada'][data-attack='2']")).to_have_text("✓ teeth 18")
    page.click("[data-target='Ben'][data-attack='1']")
    page.click("[data-target='Ada'][data-attack='2']")
    expect(page.locator(".hr-target[aria-pressed='true']")).to_have_count(2)
    expect(page.locator("[data-target='Ada'][data-attack='2']")).to_have_text("teeth 18")
    page.click("[data-target='Cleo'][data-attack='0']")
    expect(page.locator("[data-target='Ada'][data-attack='0']")).to_have_attribute("aria-pressed", "false")
    page.click("#hr-roll")
    exchanges(page, 1)
    assert enemy_attacks(base, session) == [[[16, "Cleo"], [16, "Ben"]]]


def mia_alone_with_a_bow(base: str) -> dict[str, Any]:
    """Five heroes; Mia (Neira, 10 lives) with a bow fights the Dragon alone: they strike at once (ruling H7)."""
    session = start_game(base, GAME, FIVE, heroes=HEROES)
    post_events(base, session, *({"type": "end_turn", "player": p} for p in FIVE[:4]),
                {"type": "buy", "player": "Mia", "item": "bow"},
                {"type": "fight", "players": ["Mia"], "enemy": "dragon", "weapons": ["bow"]})
    return session


@SCREENS
def test_a_hero_alone_at_the_dragon_sees_its_attacks_on_the_screen(open_page: Callable[..., Any], base: str,
                                                                    size: tuple[int, int]) -> None:
    """Mia with her bow against the Dragon, the two striking at once: the Dragon's three attacks beside her, each
    whole and 13 px at least, with the Roll, the dice and the fight's end, on the Pi's screens without a scroll."""
    page = open_game(open_page, base, mia_alone_with_a_bow(base), *size)
    expect(page.locator("#hr-step")).to_contain_text("Both strike at once")
    expect(page.locator("[data-member='Mia'] .hr-target[aria-pressed='true']")).to_have_count(3)
    where = f"Mia alone at the Dragon at {size[0]}x{size[1]}"
    shoot(page, f"draci-hrad-dragon-alone-{size[0]}x{size[1]}")
    assert page.evaluate(SMALL_TEXT, "#play") == [], f"{where}: text under 13 px"
    fits(page, where)
    if size != PHONE:
        assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    for selector in ("#hr-roll", "#hr-dice", "#hr-end-fight", "[data-target='Mia'][data-attack='0']",
                     "[data-target='Mia'][data-attack='2']"):
        in_view(page, selector)

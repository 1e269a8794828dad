"""The Dračí hrad page's table-manager controls in headless Chromium: the bank (treasure paid in gold, the card
stock edited), a treasure shared by a group, each hero's own weapon in a group fight, and whom the enemy
attacks when dice are rolled or entered. Each lands as one event, changes the view, is seen live on a second
page, and a refused tap shows its rule tag."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import (
    SMALL_TARGETS,
    WAIT_MS,
    fits,
    in_view,
    keypad,
    open_game,
    shoot,
    start_game,
    tap_again,
    tap_anyway,
    without_seq,
)
from tests.browser import post_events as post
from tests.browser import session_view as state
from tests.test_draci_hrad_browser import die

GAME = "draci-hrad"


def hero(page: Any, player: str) -> Any:
    return page.locator(f"#hr-heroes [data-player='{player}']")


def deaf_page(open_page: Callable[..., Any], base: str, session: dict[str, Any]) -> Any:
    """A page that stops hearing the table and sends its taps without the seq it saw: what another device does
    meanwhile reaches it only as the rules' refusal (with the seq, the tap would be refused as stale)."""
    page = open_page()
    page.route("**/stream", lambda route: route.abort())
    without_seq(page)
    page.goto(f"{base}/play/{session['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    return page


def give(player: str, field: str, value: int) -> dict[str, Any]:
    return {"type": "override", "player": player, "field": field, "value": value, "reason": "Corrected at the table"}


def refused_with(page: Any, rule: str) -> None:
    expect(page.locator("#toast .rule-tag")).to_have_text(f"rule {rule}", timeout=WAIT_MS)


# ---- the bank --------------------------------------------------------------------------------------------------


def test_treasure_is_paid_in_gold_by_keypad_and_seen_live(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, GAME, ["Ada", "Ben"])
    post(base, session, {"type": "treasure", "player": "Ada", "value": 35})
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='bank']")
    tap_anyway(page.locator("[data-exchange='Ben']"))  # Ben holds no treasure: the button says why, nothing is sent
    expect(page.locator("#toast")).to_contain_text("Ben holds no treasure")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule H13")
    page.click("[data-exchange='Ada']")
    keypad(page, 40, "Ada: treasure paid in gold")  # more than she holds: the keypad says so and stays open
    expect(page.locator("#toast")).to_contain_text("from 1 to 35")
    page.click("#keypad-keys [aria-label='delete']")
    page.click("#keypad-keys [aria-label='delete']")
    keypad(page, 20)
    expect(hero(other, "Ada").locator(".hr-gold")).to_have_text("220 gold", timeout=WAIT_MS)
    expect(hero(other, "Ada").locator(".hr-treasure")).to_have_text("15 treasure")
    expect(hero(other, "Ada").locator(".hr-score")).to_have_text("235")  # the score stays
    assert state(base, session)["state"]["heroes"][0]["gold"] == 220
    # another device pays the rest meanwhile; this page has not heard: the rules refuse and name the rule
    deaf = deaf_page(open_page, base, session)
    post(base, session, {"type": "exchange", "player": "Ada", "amount": 15})
    deaf.click("[data-pane='bank']")
    deaf.click("[data-exchange='Ada']")
    keypad(deaf, 15)
    refused_with(deaf, "H13")
    assert state(base, session)["state"]["heroes"][0]["gold"] == 235


def test_the_card_stock_is_edited_by_tap_and_keypad_with_a_reason(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, GAME, ["Ada", "Ben"])
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='bank']")
    page.click("[data-stock='torch']")
    tap_anyway(page.locator("#hr-stock-save"))  # nothing changed yet: the button says so
    expect(page.locator("#toast")).to_contain_text("Nothing changed yet")
    page.click("#hr-stock-prices [data-price='2']")  # a torch card lost
    page.click("#hr-stock-add")
    keypad(page, 8, "the new copy's price")
    expect(page.locator("#hr-stock-prices [data-price]")).to_have_count(3)
    page.click("#hr-stock-save")
    page.click(".hr-pick .btn.ghost")  # Back at "Why?": the editor again, with the prices as edited
    expect(page.locator("#hr-stock-prices [data-price]")).to_have_text(["4 gold ✕", "6 gold ✕", "8 gold ✕"])
    tap_again(page, "#hr-stock-save")
    page.click(".hr-pick [data-why='A second box']")
    expect(other.locator("[data-item='torch'] .hr-price")).to_have_text("4 gold · 3 left", timeout=WAIT_MS)
    assert state(base, session)["state"]["shop"][2]["items"][1]["stock"] == [4, 6, 8]
    expect(other.locator("#hr-overrides li").first).to_have_text(
        "Torch cards for sale set from 2, 4, 6 gold to 4, 6, 8 gold by hand: a second box")
    # twelve copies are the most the rules keep: the page says so with the rule
    post(base, session, {"type": "stock", "item": "skunk", "prices": list(range(1, 13)), "reason": "t"})
    page.click("[data-stock='skunk']")
    tap_anyway(page.locator("#hr-stock-add"))
    expect(page.locator("#toast")).to_contain_text("At most 12 copies")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule H4")
    # an edit made while a torch was sold on another device is refused, not saved over the sale
    page.click("#overlays .btn.ghost")
    page.click("[data-stock='torch']")
    post(base, session, {"type": "buy", "player": "Ada", "item": "torch"})
    expect(page.locator("[data-stock='torch'] .hr-price")).to_have_text("6, 8", timeout=WAIT_MS)
    page.click("#hr-stock-prices [data-price='8']")
    page.click("#hr-stock-save")
    page.click(".hr-pick [data-why='A card lost']")
    expect(page.locator("#toast")).to_contain_text("Not counted: someone changed the game", timeout=WAIT_MS)
    assert state(base, session)["state"]["shop"][2]["items"][1]["stock"] == [6, 8]


# ---- a treasure shared by a group -------------------------------------------------------------------------------


def test_a_group_shares_a_treasure_with_the_remainder_assigned(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, GAME, ["Ada", "Ben", "Cleo"])
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='castle']")
    page.click("[data-share='Ben']")
    expect(page.locator("[data-treasure='35'] small")).to_have_text("17 each +1")  # before: each share, the rest
    page.click("[data-treasure='35']")
    expect(page.locator("#hr-share-preview [data-share='Ada']")).to_have_text("Ada 17")
    expect(page.locator("#hr-share-preview [data-share='Ben']")).to_have_text("Ben 17")
    expect(page.locator("#hr-share-rest")).to_contain_text("1 left over")
    page.click("[data-remainder='Ben']")
    expect(hero(other, "Ben").locator(".hr-treasure")).to_have_text("18 treasure", timeout=WAIT_MS)
    expect(hero(other, "Ada").locator(".hr-treasure")).to_have_text("17 treasure")
    expect(other.locator("#hr-last")).to_have_text(
        "Last treasure: 35 shared: Ada +17, Ben +18 (the 1 left over to Ben).")
    assert state(base, session)["state"]["last_treasure"]["remainder_to"] == "Ben"
    # Ben's move: Cleo is made to wait on another device; this page has not heard and offers her still
    deaf = deaf_page(open_page, base, session)
    post(base, session, give("Cleo", "waiting", 2))
    deaf.click("[data-pane='castle']")
    deaf.click("[data-share='Cleo']")
    deaf.click("[data-treasure='10']")
    deaf.click("#hr-share-pay")  # 10 splits evenly: no remainder to assign
    refused_with(deaf, "H14")
    assert state(base, session)["state"]["heroes"][1]["treasure"] == 18


# ---- a group fight ------------------------------------------------------------------------------------------------


def group_fight_ready(base: str) -> dict[str, Any]:
    """Ada (Argilos) owns a sword, Ben (Arcana) a bow and a hammer; Cleo stays out of the fight."""
    session = start_game(base, GAME, ["Ada", "Ben", "Cleo"])
    post(base, session, give("Ada", "sword", 1), give("Ben", "bow", 1), give("Ben", "hammer", 1))
    return session


def test_each_hero_of_a_group_picks_their_own_weapon(open_page: Callable[..., Any], base: str) -> None:
    session = group_fight_ready(base)
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='fight']")
    page.click("[data-join='Ben']")
    expect(page.locator("[data-weapon='sword'][data-for='Ada']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-weapon='bow'][data-for='Ben']")).to_have_attribute("aria-pressed", "true")  # his best
    page.click("[data-weapon='hammer'][data-for='Ben']")
    expect(page.locator("[data-weapon='bow'][data-for='Ben']")).to_have_attribute("aria-pressed", "false")
    page.click("#hr-enemies [data-enemy='black_knight']")
    expect(page.locator("#hr-spoils")).to_have_text("victory: 30 treasure, 15 each")
    page.click("#hr-start")
    expect(other.locator("[data-member='Ada']")).to_contain_text("Sword", timeout=WAIT_MS)
    expect(other.locator("[data-member='Ben']")).to_contain_text("Hammer")
    fight = state(base, session)["state"]["fight"]
    assert [(m["player"], m["weapon"]) for m in fight["members"]] == [("Ada", "sword"), ("Ben", "hammer")]
    # both attack: each die is asked for by name, the sum adds both heroes (ruling H16)
    page.click("#hr-dice")
    die(page, 5, "the heroes' die")
    die(page, 1, "the Black Knight's die")
    expect(page.locator("#hr-step")).not_to_contain_text("Initiative")  # this page has the initiative now
    page.click("#hr-dice")
    die(page, 3, "Ada's attack die")
    die(page, 2, "Ben's attack die")
    die(page, 4, "The Black Knight's defence die")
    last = other.locator("#hr-last")  # 21 damage: the Knight falls, the group shares his 30
    expect(last).to_contain_text("12 + 5 + 3 + 11 + 4 + 2 = 37 vs 12 + 4 = 16: 21 damage", timeout=WAIT_MS)
    expect(last).to_contain_text("Ada +15 treasure, Ben +15 treasure")


def test_the_table_names_who_keeps_what_a_group_victory_leaves_over(open_page: Callable[..., Any],
                                                                    base: str) -> None:
    session = group_fight_ready(base)
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='fight']")
    page.click("[data-join='Ben']")
    page.click("#hr-enemies [data-enemy='harpies']")  # 25 treasure: 12 each, 1 left over
    expect(page.locator("#hr-spoils")).to_have_text("victory: 25 treasure, 12 each")
    expect(page.locator("#hr-keeper")).to_have_text("1 left over to Ada")
    page.click("#hr-keeper")
    expect(page.locator("#hr-keeper")).to_have_text("1 left over to Ben")
    page.click("#hr-start")
    expect(other.locator("#hr-enemy-lives")).to_have_text("♥ 12/12", timeout=WAIT_MS)
    post(base, session, {"type": "override", "field": "enemy_lives", "value": 1, "reason": "t"},
         {"type": "initiative", "hero_die": 6, "enemy_die": 1},
         {"type": "strike", "hero_dice": [6, 6], "enemy_defence_die": 1})
    expect(other.locator("#hr-last")).to_contain_text("Ada +12 treasure, Ben +13 treasure", timeout=WAIT_MS)


def test_a_weapon_lost_meanwhile_is_refused_with_its_rule(open_page: Callable[..., Any], base: str) -> None:
    session = group_fight_ready(base)
    deaf = deaf_page(open_page, base, session)
    post(base, session, give("Ben", "hammer", 0))  # another device: Ben's hammer was never bought
    deaf.click("[data-pane='fight']")
    deaf.click("[data-join='Ben']")
    deaf.click("[data-weapon='hammer'][data-for='Ben']")
    deaf.click("#hr-enemies [data-enemy='skeleton']")
    deaf.click("#hr-start")
    refused_with(deaf, "H5")
    assert state(base, session)["state"]["fight"] is None


def test_the_table_says_whom_the_enemy_attacks(open_page: Callable[..., Any], base: str) -> None:
    session = group_fight_ready(base)
    post(base, session, {"type": "fight", "players": ["Ada", "Ben"], "enemy": "black_knight",
                         "weapons": ["sword", "bow"]},
         {"type": "override", "field": "enemy_lives", "value": 99, "reason": "a long fight"})
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    expect(page.locator(".hr-target")).to_have_count(0)  # initiative first: nobody is attacked yet
    page.click("#hr-dice")
    die(page, 2, "the heroes' die")
    die(page, 5, "the Black Knight's die")
    expect(page.locator("[data-target='Ada']")).to_have_attribute("aria-pressed", "true")  # by default, the first
    page.click("[data-target='Ben']")
    expect(page.locator("[data-target='Ben']")).to_have_attribute("aria-pressed", "true")
    page.click("#hr-dice")
    die(page, 6, "The Black Knight's attack die at Ben")
    die(page, 1, "Ben's defence die")  # 15 + 6 = 21 against Arcana's 11 + 0 + 0 + 1 = 12
    latest = other.locator("#hr-exchanges li").first
    expect(latest).to_contain_text("Black Knight → Ben", timeout=WAIT_MS)
    expect(latest.locator(".sum")).to_have_text("15 + 6 = 21 vs 11 + 0 + 0 + 1 = 12: 9 damage")
    expect(hero(other, "Ben").locator(".hr-pips")).to_have_attribute("data-lives", "1")
    expect(hero(other, "Ada").locator(".hr-pips")).to_have_attribute("data-lives", "12")
    # the companion rolls the next charge at the hero picked (the heroes attack in between)
    page.click("#hr-roll")
    expect(page.locator("[data-target]")).to_have_count(2, timeout=WAIT_MS)
    page.click("[data-target='Ada']")
    page.click("#hr-roll")
    expect(other.locator("#hr-exchanges li").first).to_contain_text("Black Knight → Ada", timeout=WAIT_MS)
    # Ben falls on another device; this page, not hearing it, still offers him: the rules refuse
    tap_again(page, "#hr-roll")  # the heroes' attack
    expect(page.locator("[data-target]")).to_have_count(2, timeout=WAIT_MS)
    deaf = deaf_page(open_page, base, session)
    deaf.click("[data-target='Ben']")
    post(base, session, give("Ben", "lives", 0))
    deaf.click("#hr-roll")
    refused_with(deaf, "H16")


def test_each_of_the_dragons_attacks_strikes_the_hero_picked(open_page: Callable[..., Any], base: str) -> None:
    session = group_fight_ready(base)
    post(base, session, {"type": "fight", "players": ["Ada", "Ben", "Cleo"], "enemy": "dragon",
                         "weapons": ["sword", "bow", None]})
    page = open_game(open_page, base, session)
    expect(page.locator("[data-member='Ada'] [data-target]")).to_have_count(3)  # the Dragon strikes first (H7)
    expect(page.locator("[data-target='Ada'][data-attack='2']")).to_have_text("✓ teeth 18")
    page.click("[data-target='Ben'][data-attack='1']")
    page.click("[data-target='Cleo'][data-attack='2']")
    expect(page.locator("[data-target='Ada'][data-attack='2']")).to_have_text("teeth 18")
    page.click("#hr-roll")
    expect(page.locator("#hr-exchanges li")).to_have_count(1, timeout=WAIT_MS)
    strikes = state(base, session)["state"]["fight"]["exchanges"][0]["strikes"]
    assert [s["target"] for s in strikes if s["side"] == "enemy"] == ["Ada", "Ben", "Cleo"]


# ---- the screens ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("width, height", [(1024, 600), (800, 480), (390, 844)])
def test_the_new_controls_fit_the_screens(open_page: Callable[..., Any], base: str, width: int, height: int) -> None:
    players = ["Ada", "Ben", "Cleo", "Dan"]
    moving = start_game(base, GAME, players)
    post(base, moving, give("Ada", "sword", 1), give("Ben", "bow", 1), give("Ben", "hammer", 1),
         {"type": "treasure", "player": "Ada", "value": 35, "group": ["Ben"]})
    fighting = start_game(base, GAME, players)
    post(base, fighting, {"type": "fight", "players": ["Ada", "Ben", "Cleo"], "enemy": "dragon",
                          "weapons": [None, None, None]})
    page = open_page(width, height)
    shots = (("bank", moving, "bank", ()), ("share", moving, "castle", ("[data-share='Cleo']",)),
             ("group", moving, "fight", ("[data-join='Ada']", "[data-enemy='harpies']")),
             ("targets", fighting, None, ()))
    for name, session, pane, taps in shots:
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        if pane:
            page.click(f"[data-pane='{pane}']")
        for tap in taps:
            page.click(tap)
        page.wait_for_selector(f"#hr-{pane or 'fight'}:not([hidden])")
        shoot(page, f"draci-{name}-{width}x{height}")
        where = f"{name} at {width}x{height}"
        fits(page, where)
        if width == 800:
            controls = {"bank": ("[data-exchange='Dan']", "[data-stock='cloak']", "[data-pane='bank']"),
                        "share": ("[data-treasure='35']", "[data-share='Dan']", "#hr-next"),
                        "group": ("#hr-start", "#hr-keeper", "[data-weapon='hammer'][data-for='Ben']",
                                  "[data-weapon='sword'][data-for='Ada']"),
                        "targets": ("#hr-roll", "#hr-dice", "[data-target='Cleo'][data-attack='2']")}
            for selector in controls[name]:
                in_view(page, selector)
    # the stock editor and the share dialog fit too
    page.goto(f"{base}/play/{moving['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.click("[data-pane='bank']")
    page.click("[data-stock='torch']")
    shoot(page, f"draci-stock-{width}x{height}")
    assert page.evaluate(SMALL_TARGETS) == [], f"the stock editor at {width}x{height}: tap targets under 48 px"
    in_view(page, "#hr-stock-save")
    page.click("#overlays .btn.ghost")
    page.click("[data-pane='castle']")
    page.click("[data-share='Ada']")
    page.click("[data-treasure='35']")
    shoot(page, f"draci-share-dialog-{width}x{height}")
    assert page.evaluate(SMALL_TARGETS) == [], f"the share dialog at {width}x{height}: tap targets under 48 px"
    in_view(page, "[data-remainder='Ada']")


def test_a_card_that_cannot_be_used_now_names_its_own_rule(open_page: Callable[..., Any], base: str) -> None:
    """A card of the hero on the move that cannot be used now says why with the rule the table would name: an
    antidote while not poisoned H9, a torch away from a dark corridor H14 (every such refusal was tagged H15)."""
    session = start_game(base, GAME, ["Ada", "Ben"])
    post(base, session, {"type": "buy", "player": "Ada", "item": "antidote"},
         {"type": "buy", "player": "Ada", "item": "torch"})
    page = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='castle']")
    for item, words, rule in (("antidote", "Ada's hero is not poisoned.", "H9"),
                              ("torch", "A torch lights a dark corridor.", "H14")):
        tap_anyway(page.locator(f"#hr-castle [data-use='{item}']"))
        expect(page.locator("#toast")).to_contain_text(words)
        refused_with(page, rule)

"""Dračí hrad's hero cards in headless Chromium (ruling H2): a card edited by tap and keypad on /heroes, a game
started from home with a hero chosen per seat, the edited card on the game page; the screens the page must fit."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from companion.games.draci_hrad.catalogue import FROM_RULEBOOK, HEROES, RESTRICTED
from tests.browser import WAIT_MS, fits, keypad, tap_anyway
from tests.servers import call

SCREENS = [(800, 480), (390, 844), (1024, 600)]


def card(page: Any, hero: str) -> Any:
    return page.locator(f"#hero-cards [data-hero='{hero}']")


def open_heroes(open_page: Callable[..., Any], base: str, width: int = 800, height: int = 480) -> Any:
    page = open_page(width, height)
    page.goto(f"{base}/heroes")
    page.wait_for_selector("body[data-ready='yes']")
    return page


def test_edit_a_card_then_start_a_game_from_home_with_heroes_by_seat(open_page: Callable[..., Any],
                                                                     base: str) -> None:
    for name in ("Ada", "Ben"):
        assert call(f"{base}/api/players", {"name": name})[0] == 201
    page = open_heroes(open_page, base)
    arcana = card(page, "arcana")
    expect(arcana.locator("[data-field='lives'] b")).to_have_text("10")  # a placeholder
    arcana.locator("[data-field='lives']").click()
    keypad(page, 14, "Arcana: Lives")
    expect(page.locator("#toast")).to_contain_text("Arcana's card saved: lives 14", timeout=WAIT_MS)
    expect(arcana.locator("[data-field='lives'] b")).to_have_text("14")
    expect(arcana.locator("[data-edited='true']")).to_be_visible()
    # the red threshold stays below the lives: the keypad refuses 14 on the page, nothing is sent
    arcana.locator("[data-field='red']").click()
    keypad(page, 14, "Arcana: Red")
    expect(page.locator("#toast")).to_contain_text("from 0 to 13")
    page.click(".keypad-panel button:text-is('Cancel')")
    arcana.locator("[data-field='red']").click()
    keypad(page, 5, "Arcana: Red")
    expect(arcana.locator("[data-field='red'] b")).to_have_text("5", timeout=WAIT_MS)
    arcana.locator("[data-weapon='bow']").click()  # the bow no longer allowed
    expect(arcana.locator("[data-weapon='bow']")).to_have_attribute("aria-pressed", "false", timeout=WAIT_MS)
    _, stored = call(f"{base}/api/hero-cards")
    assert stored["cards"]["arcana"] == {"attack": 11, "defence": 11, "lives": 14, "red": 5,
                                         "weapons": ["two_hand_sword"], "magic": True}

    page.goto(f"{base}/")
    page.click("#game-choice [data-game='draci-hrad']")
    expect(page.locator("#opt-hero_cards .notice")).to_have_text(
        "Not copied from the physical cards yet: Argilos, Fist, Parbat, Neira and Arspel, who play with placeholder "
        "numbers.")
    expect(page.locator("#opt-heroes")).to_contain_text("Seat the players first")
    page.click("#player-pool [data-player='Ada']")
    page.click("#player-pool [data-player='Ben']")
    seat = page.locator("#opt-heroes [data-seat-option='1']")
    expect(seat).to_contain_text("Argilos the Warrior")  # the rulebook's order until a hero is tapped
    expect(page.locator("#opt-heroes [data-seat-option='2']")).to_contain_text("Arcana the Warrioress")
    seat.click()
    page.click("#symbol-choice [data-choice='arcana']")  # Ben's hero: the two seats swap, no hero twice
    expect(seat).to_have_attribute("data-choice", "arcana")
    expect(page.locator("#opt-heroes [data-seat-option='2']")).to_have_attribute("data-choice", "argilos")
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("body[data-ready='yes']")
    ada = page.locator("#hr-heroes [data-player='Ada']")
    expect(ada.locator(".hr-lives-n")).to_have_text("14/14", timeout=WAIT_MS)
    expect(ada.locator(".hr-pips")).to_have_attribute("aria-label", "14 of 14 lives; no attack at 5 or fewer")
    _, view = call(f"{base}/api/sessions/{page.url.rsplit('/', 1)[1]}")
    assert view["options"]["heroes"] == ["arcana", "argilos"]
    assert view["options"]["hero_cards"]["arcana"] == stored["cards"]["arcana"]
    hero = next(h for h in view["state"]["heroes"] if h["player"] == "Ada")
    assert "bow" not in hero["weapons_allowed"]


def test_the_home_page_links_to_the_hero_cards(open_page: Callable[..., Any], base: str) -> None:
    page = open_page(800, 480)
    page.goto(f"{base}/")
    page.click("#hero-cards-link")
    page.wait_for_url("**/heroes")
    page.wait_for_selector("body[data-ready='yes']")
    heroes = page.locator("#hero-cards [data-hero]")
    expect(heroes).to_have_count(6)
    assert heroes.evaluate_all("els => els.map(e => e.dataset.hero)") == list(HEROES)  # the rulebook's order
    page.goto(f"{base}/")
    page.click("#game-choice [data-game='draci-hrad']")
    expect(page.locator("#opt-hero_cards .notice")).to_contain_text("No hero card is copied from the physical cards")
    fits(page, "home with Dračí hrad chosen, no hero card copied")
    page.click("#edit-hero_cards:text-is('Copy the hero cards')")
    page.wait_for_url("**/heroes")


def test_magic_and_the_starting_values_by_tap(open_page: Callable[..., Any], base: str) -> None:
    page = open_heroes(open_page, base)
    parbat = card(page, "parbat")
    expect(parbat.locator("[data-magic]")).to_have_attribute("aria-pressed", "false")  # ruling H2
    reset = parbat.locator("[data-reset]")
    tap_anyway(reset)  # nothing to reset yet: it says why
    expect(page.locator("#toast")).to_contain_text("already has the starting values")
    parbat.locator("[data-magic]").click()
    expect(parbat.locator("[data-magic]")).to_have_attribute("aria-pressed", "true", timeout=WAIT_MS)
    assert call(f"{base}/api/hero-cards")[1]["cards"]["parbat"]["magic"] is True
    reset.click()
    expect(parbat.locator("[data-magic]")).to_have_attribute("aria-pressed", "false", timeout=WAIT_MS)
    _, stored = call(f"{base}/api/hero-cards")
    assert stored["cards"]["parbat"] == stored["defaults"]["parbat"]


def test_the_cards_say_which_values_come_from_the_rulebook(open_page: Callable[..., Any], base: str) -> None:
    # ruling H2: only a few numbers are the rulebook's; the rest are placeholders a family copies from its cards
    page = open_heroes(open_page, base, 1024, 600)
    expect(page.locator(".heroes-intro")).to_contain_text("marked ★ come from the rulebook")
    for hero in HEROES:
        here = card(page, hero)
        expect(here.locator("header small")).to_have_text("starting values: copy your card")
        expect(here.locator("[data-reset]")).to_have_text("Starting values")
        marked = here.locator("[data-rulebook='true']").evaluate_all(
            "els => els.map(e => e.dataset.field || e.dataset.weapon || (e.dataset.magic !== undefined && 'magic'))")
        assert sorted(marked) == sorted(FROM_RULEBOOK.get(hero, ())), hero  # the catalogue's list, no more
        for field in marked:
            where = f"[data-field='{field}'] small" if field in ("attack", "defence") else \
                f"[data-weapon='{field}']" if field in RESTRICTED else "[data-magic]"
            expect(here.locator(where)).to_contain_text("★")
        expect(here.locator("[data-rulebook='false']").filter(has_text="★")).to_have_count(0)
    arcana = card(page, "arcana")
    expect(arcana.locator("[data-field='attack']")).to_have_attribute(
        "aria-label", "Arcana Attack: 11 (from the rulebook); tap to change")
    arcana.locator("[data-field='attack']").click()
    keypad(page, 12, "Arcana: Attack")  # this family's card says 12: no longer the rulebook's value
    expect(arcana.locator("[data-field='attack']")).to_have_attribute("data-rulebook", "false", timeout=WAIT_MS)
    expect(arcana.locator("[data-field='attack'] small")).to_have_text("Attack")
    expect(arcana.locator("header small")).to_have_text("saved")


def test_a_refusal_from_the_companion_is_explained(open_page: Callable[..., Any], base: str) -> None:
    page = open_heroes(open_page, base)
    status, _ = call(f"{base}/api/hero-cards/neira", {"red": 8}, method="PUT")  # from another device
    assert status == 200
    neira = card(page, "neira")
    neira.locator("[data-field='lives']").click()  # this page still shows Neira's red threshold as 3
    keypad(page, 5, "Neira: Lives")  # not above the red threshold stored meanwhile: the companion refuses
    expect(page.locator("#toast")).to_contain_text("red threshold must be below the lives", timeout=WAIT_MS)
    expect(page.locator("#toast .rule-tag")).to_have_text("rule H2")
    expect(neira.locator("[data-field='red'] b")).to_have_text("8", timeout=WAIT_MS)  # the card as stored
    assert call(f"{base}/api/hero-cards")[1]["cards"]["neira"]["lives"] == 10


@pytest.mark.parametrize("width, height", SCREENS)
def test_the_hero_cards_page_fits(open_page: Callable[..., Any], base: str, width: int, height: int) -> None:
    page = open_heroes(open_page, base, width, height)
    fits(page, f"the hero cards at {width}x{height}")
    assert page.locator("input").count() == 0  # numbers by keypad, never text fields
    page.goto(f"{base}/")
    call(f"{base}/api/players", {"name": "Ada"})
    page.goto(f"{base}/")
    page.click("#game-choice [data-game='draci-hrad']")
    page.click("#player-pool [data-player='Ada']")
    expect(page.locator("#opt-heroes [data-seat-option='1']")).to_be_visible()
    fits(page, f"home with Dračí hrad at {width}x{height}", header=False)


def test_play_again_takes_the_cards_as_stored_now_and_the_game_links_to_them(open_page: Callable[..., Any],
                                                                              base: str) -> None:
    """ruling H2: the cards are kept beside the players, not in one game: a game played again after an edit
    plays with the edited card (the game before keeps its own copy), and the game page's menu leads to them."""
    status, game = call(f"{base}/api/sessions", {"game": "draci-hrad", "players": ["Ada", "Ben"],
                                                 "options": {"heroes": ["fist", "arcana"]}})
    assert status == 201
    for event in ({"type": "treasure", "player": "Ada", "value": 35}, {"type": "sceptre", "player": "Ben"}):
        assert call(f"{base}/api/sessions/{game['id']}/events", event)[0] == 200
    assert call(f"{base}/api/hero-cards/fist", {"lives": 15}, method="PUT")[0] == 200
    page = open_page(1024, 600)
    page.goto(f"{base}/play/{game['id']}")
    page.wait_for_selector("body[data-ready='yes']")
    page.click("#again")
    page.wait_for_url(lambda url: not url.endswith(f"/play/{game['id']}"))
    page.wait_for_selector("body[data-ready='yes']")
    again = call(f"{base}/api/sessions/{page.url.rsplit('/', 1)[1]}")[1]
    assert again["options"]["heroes"] == ["fist", "arcana"]  # the other options as they were
    assert again["options"]["hero_cards"]["fist"]["lives"] == 15
    assert call(f"{base}/api/sessions/{game['id']}")[1]["options"]["hero_cards"]["fist"]["lives"] != 15
    page.click("#menu-button")
    page.click("#menu a[href='/heroes']")
    page.wait_for_url("**/heroes")
    page.wait_for_selector("body[data-ready='yes']")


def test_home_keeps_the_game_being_set_up_while_the_hero_cards_are_copied(open_page: Callable[..., Any],
                                                                          base: str) -> None:
    """Home's note sends the table to copy the hero cards; coming back (Home, or Back) found the form empty: the game,
    the seats and the heroes given out were to be chosen again."""
    for name in ("Ada", "Ben"):
        assert call(f"{base}/api/players", {"name": name})[0] == 201
    page = open_page(800, 480)
    page.goto(f"{base}/")
    page.click("#game-choice [data-game='draci-hrad']")
    page.click("#player-pool [data-player='Ada']")
    page.click("#player-pool [data-player='Ben']")
    page.locator("#opt-heroes [data-seat-option='1']").click()
    page.click("#symbol-choice [data-choice='fist']")
    expect(page.locator("#opt-heroes [data-seat-option='1']")).to_have_attribute("data-choice", "fist")
    for way_back in ("home", "back"):
        page.click("#edit-hero_cards")
        page.wait_for_url("**/heroes")
        page.wait_for_selector("body[data-ready='yes']")
        if way_back == "home":
            page.goto(f"{base}/")
        else:
            page.go_back()
        expect(page.locator("#game-choice [data-game='draci-hrad']")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#seats [data-player]")).to_have_count(2)
        assert page.locator("#seats [data-player]").evaluate_all("els => els.map(e => e.dataset.player)") == \
            ["Ada", "Ben"]
        expect(page.locator("#opt-heroes [data-seat-option='1']")).to_have_attribute("data-choice", "fist")
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.goto(f"{base}/")  # once started, Home offers a fresh form
    expect(page.locator("#start")).to_have_text("Choose a game")

"""The Dračí hrad page in headless Chromium: shopping and a fight against the Black Knight with entered dice seen
live on a second page, numbers set by hand, the screens it must fit, refusals with their rule tag, the final
screen with and without a winner, the pane of where the mover stands and what happened last, alike on a kiosk and a
phone."""
from __future__ import annotations

import re
from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import (
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
from tests.test_double_tap_browser import still_page
from tests.waiting import wait_for

GAME = "draci-hrad"

#: The controls of a move in the city and of a fight: on the Pi's 800x480 screen, all there without scrolling.
CITY_CONTROLS = ("#hr-next", "[data-pane='city']", "[data-pane='castle']", "[data-pane='fight']",
                 "[data-item='sword']", "[data-item='chain_mail']", "[data-item='cloak']", "[data-stop='oracle']")
CASTLE_CONTROLS = ("#hr-next", "[data-treasure='35']", "#hr-dart", "#hr-dart-dice", "#hr-sceptre",
                   "[data-obstacle='locked_door']")
FIGHT_CONTROLS = ("#hr-roll", "#hr-dice", "#hr-end-fight", "#hr-enemy-lives", "#hr-exchanges li:first-child")


def new_game(base: str, players: list[str]) -> dict[str, Any]:
    return start_game(base, GAME, players)


def hero(page: Any, player: str) -> Any:
    return page.locator(f"#hr-heroes [data-player='{player}']")


def die(page: Any, face: int, label: str = "") -> None:
    """Tap `face` on the die pad asking for `label` (several may follow one another)."""
    expect(page.locator(".die-panel .label")).to_contain_text(label)
    page.click(f"#die-keys [data-die='{face}']")


def fight_under_way(base: str, players: list[str]) -> dict[str, Any]:
    session = new_game(base, players)
    post(base, session, {"type": "buy", "player": players[0], "item": "sword"},
         {"type": "fight", "players": [players[0]], "enemy": "black_knight", "weapons": ["sword"]},
         {"type": "initiative", "hero_die": 5, "enemy_die": 2},
         {"type": "strike", "hero_dice": [4], "enemy_defence_die": 4},
         {"type": "strike", "enemy_dice": [5], "defence_dice": [2]})
    return session


# ---------------------------------------------------------------------------------------------------------------


def test_the_page_is_found_by_the_game_id_without_inline_script(client: Any) -> None:
    view = client.post("/api/sessions", json={"game": GAME, "players": ["Ada", "Ben"]}).get_json()
    html = client.get(f"/play/{view['id']}").get_data(as_text=True)
    assert "games/draci-hrad.js" in html and 'id="hr-heroes"' in html and 'id="hr-set"' in html
    assert "<script>" not in html and " onclick=" not in html


def test_buy_and_fight_the_black_knight_with_entered_dice_seen_live(open_page: Callable[..., Any],
                                                                    base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])  # Ada plays Argilos (attack 12, defence 12, 12 lives)
    page = open_game(open_page, base, session)
    other = open_game(open_page, base, session, 800, 480)
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    page.click("#hr-shop [data-item='sword']")  # 12 gold
    expect(hero(other, "Ada").locator(".hr-gold")).to_have_text("188 gold", timeout=WAIT_MS)
    page.click("#hr-shop [data-item='chain_mail']")  # 100 gold, defence +5
    expect(hero(other, "Ada").locator(".hr-gold")).to_have_text("88 gold", timeout=WAIT_MS)
    # in the order of the cards' ids, the same on a live page as after a reload
    expect(hero(other, "Ada").locator(".hr-kit")).to_contain_text("Chain mail, Sword")
    # the fight: the enemy, the weapon (the best one owned is picked), then the dice by keypad
    page.click("[data-pane='fight']")
    expect(page.locator("[data-weapon='sword']")).to_have_attribute("aria-pressed", "true")
    tap_anyway(page.locator("#hr-start"))  # no enemy picked yet: the button says so
    expect(page.locator("#toast")).to_contain_text("Pick the enemy")
    page.click("#hr-enemies [data-enemy='black_knight']")
    page.click("#hr-start")
    expect(other.locator("#hr-enemy-lives")).to_have_text("♥ 20/20", timeout=WAIT_MS)
    page.click("#hr-dice")
    die(page, 5, "the heroes' die")
    die(page, 2, "the Black Knight's die")  # Ada attacks first
    expect(page.locator("#hr-step")).to_contain_text("The heroes attack: Ada")
    page.click("#hr-dice")
    expect(page.locator(".die-panel .label")).to_contain_text("Ada's attack die")
    assert page.locator("#die-keys button").all_inner_texts() == ["1", "2", "3", "4", "5", "6"]  # a d6's faces only
    die(page, 4, "Ada's attack die")
    die(page, 4, "defence die")
    latest = other.locator("#hr-exchanges li").first
    expect(latest.locator(".sum")).to_have_text("12 + 5 + 4 = 21 vs 12 + 4 = 16: 5 damage", timeout=WAIT_MS)
    expect(other.locator("#hr-enemy-lives")).to_have_text("♥ 15/20")
    expect(page.locator("#hr-enemy-lives")).to_have_text("♥ 15/20")  # the page that asks next has it too
    page.click("#hr-dice")
    die(page, 6, "Black Knight's attack die")
    die(page, 1, "Ada's defence die")  # 15 + 6 = 21 against 12 + 5 + 0 + 1 = 18
    expect(latest.locator(".sum")).to_have_text("15 + 6 = 21 vs 12 + 5 + 0 + 1 = 18: 3 damage", timeout=WAIT_MS)
    expect(hero(other, "Ada").locator(".hr-pips")).to_have_attribute("data-lives", "9")
    expect(other.locator("[data-member='Ada']")).to_contain_text("♥ 9")
    # the table says the knight is nearly dead: set by hand, with a reason, and logged
    page.click("#menu-button")
    page.click("#hr-set")
    page.click(".hr-pick [data-pick='@enemy']")
    keypad(page, 1)
    page.click(".hr-pick [data-why='Corrected at the table']")
    expect(other.locator("#hr-enemy-lives")).to_have_text("♥ 1/20", timeout=WAIT_MS)
    expect(other.locator("#hr-overrides li").first).to_have_text(
        "The Black Knight's lives set from 15 to 1 by hand: corrected at the table")
    expect(page.locator("#hr-enemy-lives")).to_have_text("♥ 1/20")
    page.click("#hr-dice")
    die(page, 6, "Ada's attack die")
    die(page, 1, "defence die")
    # victory: the Black Knight's 30 treasure is paid, the fight ends the move
    expect(hero(other, "Ada").locator(".hr-treasure")).to_have_text("30 treasure", timeout=WAIT_MS)
    expect(other.locator("#hr-last")).to_contain_text("won against the Black Knight")
    expect(other.locator("#hr-last")).to_contain_text("+30 treasure")
    expect(other.locator("#turn .turn-name")).to_have_text("Ben")
    expect(hero(other, "Ada").locator(".hr-score")).to_have_text("118")  # 88 gold + 30 treasure
    fight = state(base, session)["state"]["last_fight"]
    assert fight["outcome"] == "won" and fight["shares"] == {"Ada": 30}


def test_roll_lets_the_companion_roll_and_next_passes_the_move(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    page = open_game(open_page, base, session)
    page.click("[data-pane='fight']")
    page.click("#hr-enemies [data-enemy='skeleton']")
    page.click("#hr-start")
    expect(page.locator("#hr-step")).to_contain_text("Initiative")
    page.click("#hr-roll")
    expect(page.locator("#hr-step")).not_to_contain_text("Initiative")
    tap_again(page, "#hr-roll")
    expect(page.locator("#hr-exchanges li")).to_have_count(1)
    assert state(base, session)["state"]["fight"]["exchange_count"] == 1
    page.click("#hr-end-fight")
    page.click("[data-why='Started by mistake']")
    expect(page.locator("#hr-last")).to_contain_text("stopped fighting the Skeleton")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    page.click("[data-pane='castle']")
    page.click("[data-treasure='15']")  # Ben's treasure card
    expect(hero(page, "Ben").locator(".hr-treasure")).to_have_text("15 treasure")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")  # a treasure card ends the move
    post(base, session, {"type": "end_turn", "player": "Ada"})  # Ada's own move, on the board
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    page.click("[data-pane='castle']")
    page.click("#hr-dart")  # the companion rolls; the dart ends the move, and its result stays in sight
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    dart = re.compile(r"Poisoned dart: Ben \d+ vs \d+: (pierced, poisoned|no harm)\.")
    expect(page.locator("#hr-last")).to_have_text(dart)
    page.click("[data-pane='city']")
    expect(page.locator("#hr-last")).to_be_visible()


def test_a_long_press_on_a_hero_sets_a_number_by_hand(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    page = open_game(open_page, base, session)
    card = hero(page, "Ben")
    card.hover()
    page.mouse.down()
    expect(page.locator(".hr-pick [data-field='gold']")).to_be_visible()
    page.mouse.up()
    page.click(".hr-pick [data-field='gold']")
    keypad(page, 150)
    page.click(".hr-pick [data-why='Entered wrong']")
    expect(card.locator(".hr-gold")).to_have_text("150 gold")
    expect(page.locator("#hr-overrides li").first).to_have_text("Ben's gold set from 200 to 150 by hand: entered wrong")
    log = state(base, session)["state"]["overrides"]
    assert log[-1]["player"] == "Ben" and log[-1]["reason"] == "Entered wrong"


def test_a_number_set_while_another_device_changed_it_is_refused_not_saved_over(open_page: Callable[..., Any],
                                                                                 base: str) -> None:
    """The dialog asked "Ben: Gold: 200 → 150"; while it was open another device bought Ben a sword. Saved, it would
    set 150 over the purchase, a change nobody approved: it is refused as stale and says so, and the gold stays."""
    session = new_game(base, ["Ada", "Ben"])
    page = open_game(open_page, base, session)
    page.click("#menu-button")
    page.click("#hr-set")
    page.click(".hr-pick [data-pick='Ben']")
    page.click(".hr-pick [data-field='gold']")
    keypad(page, 150)
    expect(page.locator(".hr-pick")).to_contain_text("Ben: Gold: 200 → 150. Why?")
    page.go_back()  # the phone's Back at "Why?": the keypad again, with the number typed
    expect(page.locator("#keypad-value")).to_have_text("150")
    page.click("#keypad-ok")
    expect(page.locator(".hr-pick")).to_contain_text("Ben: Gold: 200 → 150. Why?")
    post(base, session, {"type": "end_turn", "player": "Ada"}, {"type": "buy", "player": "Ben", "item": "sword"})
    gold = state(base, session)["state"]["heroes"][1]["gold"]
    page.click(".hr-pick [data-why='Entered wrong']")
    expect(page.locator("#toast")).to_contain_text("Not counted: someone changed the game a moment ago")
    expect(hero(page, "Ben").locator(".hr-gold")).to_have_text(f"{gold} gold")  # shown as it is now
    after = state(base, session)["state"]
    assert after["heroes"][1]["gold"] == gold < 200 and after["overrides"] == []


def treasure(page: Any, value: int) -> None:
    """The castle card's treasure `value` tapped, and the page's word that it ended the move by itself: the page has
    then noted the hand-over, so its clock may be moved on (the answer's arrival alone is not enough: under load the
    page took it after the clock had moved, and a Next 5 s later still asked)."""
    told = page.evaluate("window.shownToasts.length")
    page.click("[data-pane='castle']")
    page.click(f"[data-treasure='{value}']")
    wait_for(lambda: page.evaluate("(n) => window.shownToasts.slice(n).some(([, t]) => t.includes('moves now'))", told))


def test_next_tapped_right_after_a_move_ended_by_itself_asks_before_ending_the_next_hero_s(
        open_page: Callable[..., Any], base: str) -> None:
    """A treasure card ends the move by itself; a person who taps Next after every move tapped it 1.2 s later and
    ended the next hero's move unseen (round 3 became 4). Right after such a hand-over Next asks first: "Ben moves on"
    leaves Ben's move alone, "End Ben's move too" ends it; once Ben has had time to move on the board, Next asks
    nothing. The page's clock stands still here, so "right after" holds however slow the machine."""
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "treasure", "player": "Ada", "value": 10},  # a castle card: Ada in the castle
         {"type": "end_turn", "player": "Ben"})
    page = still_page(open_page, base, session)
    treasure(page, 15)
    expect(page.locator("#toast")).to_have_text("That ended Ada's move: Ben moves now.")
    page.clock.run_for(1200)
    page.click("#hr-next")
    dialog = page.locator(".dialog:has([data-answer])")
    expect(dialog).to_contain_text("Ada's move ended already: Ben moves now.")
    dialog.locator("[data-answer='no']").click()
    expect(dialog).to_have_count(0)
    assert state(base, session)["state"]["turn"] == "Ben"  # Ben moves on
    page.clock.run_for(1000)
    page.click("#hr-next")  # asked once: this Next is meant
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    treasure(page, 20)
    page.clock.run_for(1200)
    page.click("#hr-next")
    dialog.locator("[data-answer='yes']").click()
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")  # Ben's move ended, as asked
    treasure(page, 35)
    page.clock.run_for(5000)  # Ben's own move on the board
    page.click("#hr-next")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    expect(dialog).to_have_count(0)


def test_a_hero_kept_at_the_oracle_is_said_to_miss_the_move_next_passes_over(open_page: Callable[..., Any],
                                                                              base: str) -> None:
    """Ben pays the oracle, kept a whole round (ruling H14): Ada's Next passes over him and gives Ada the move again,
    and the page says why (the turn line and Ben's card), not as if Next did nothing."""
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "end_turn", "player": "Ada"})
    page = open_game(open_page, base, session, 800, 480)
    page.click("[data-stop='oracle']")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada")
    # said, so that a Next tapped to finish Ben's move does not end Ada's unseen
    expect(page.locator("#toast")).to_have_text("That ended Ben's move: Ada moves now.")
    expect(hero(page, "Ben").locator(".hr-badge.wait")).to_have_text("waits 1 · oracle")
    page.reload()  # the page looked at afresh: its Next asks nothing (it asks only right after its own hand-over)
    page.wait_for_selector("#live:text-is('live')")
    page.click("#hr-next")
    expect(page.locator("#turn .phrase")).to_have_text(re.compile(r"^moves · \d+ gold · Ben sat out a round$"))
    expect(hero(page, "Ben").locator(".hr-badge.wait")).to_have_text("sat out a round · oracle")
    fits(page, "a move passed over at 800x480")
    tap_again(page, "#hr-next")  # Ben's move again: nobody missed it
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    expect(page.locator("#turn .phrase")).not_to_contain_text("sat out")
    expect(page.locator(".hr-badge.wait")).to_have_count(0)


@pytest.mark.parametrize("width, height", [(1024, 600), (800, 480), (390, 844)])
def test_the_screens_fit(open_page: Callable[..., Any], base: str, width: int, height: int) -> None:
    players = ["Ada", "Ben", "Cleo", "Dan"]
    moving = new_game(base, players)
    post(base, moving, {"type": "buy", "player": "Ada", "item": "sword"},
         {"type": "buy", "player": "Ada", "item": "torch"},
         {"type": "override", "player": "Ben", "field": "lives", "value": 2, "reason": "Corrected at the table"},
         {"type": "override", "player": "Cleo", "field": "poisoned", "value": 1, "reason": "House rule"})
    fighting = fight_under_way(base, players)
    finished = new_game(base, ["Ada", "Ben"])
    post(base, finished, {"type": "treasure", "player": "Ada", "value": 35}, {"type": "sceptre", "player": "Ben"})
    page = open_page(width, height)
    for name, session, pane in (("city", moving, None), ("castle", moving, "castle"), ("setup", moving, "fight"),
                                ("fight", fighting, None), ("final", finished, None)):
        page.goto(f"{base}/play/{session['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        if pane:
            page.click(f"[data-pane='{pane}']")
        page.wait_for_selector("#final:not([hidden])" if name == "final" else f"#hr-{pane or name}:not([hidden])")
        shoot(page, f"draci-hrad-{name}-{width}x{height}")
        where = f"{name} at {width}x{height}"
        fits(page, where)
        assert page.locator("input").count() == 0
        if width == 800:
            for selector in {"city": CITY_CONTROLS, "castle": CASTLE_CONTROLS, "fight": FIGHT_CONTROLS}.get(name, ()):
                in_view(page, selector)
    # the final screen: the kit's evaluation per hero (treasure, gold, sceptre)
    expect(page.locator("#winners .winner")).to_have_text("Ben")
    expect(page.locator("#final-why")).to_have_text("Ben found the royal sceptre (+50), which ended the game. Treasure "
                                                    "and gold count, and the most win.")  # how, as every game says
    labels = [text.replace("\xad", "") for text in page.locator("#breakdown tbody th").all_inner_texts()]
    assert labels == ["Treasure", "Gold", "Sceptre"]  # each may break at its soft hyphen
    expect(page.locator("#breakdown thead th").first).to_have_text("Points")  # the rows are no rounds
    assert page.locator("#breakdown tfoot td").all_inner_texts() == ["235", "250"]


def test_refusals_show_the_rule_as_a_tag(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])  # Ada plays Argilos: no bow on his card
    deaf = open_page()  # this page stops hearing the table
    deaf.route("**/stream", lambda route: route.abort())
    without_seq(deaf)
    deaf.goto(f"{base}/play/{session['id']}")
    deaf.wait_for_selector("body[data-ready='yes']")
    toast = deaf.locator("#toast")
    tap_anyway(deaf.locator("#hr-shop [data-item='bow']"))  # the page knows: it explains, nothing is sent
    expect(toast).to_contain_text("may not use the bow")
    expect(toast.locator(".rule-tag")).to_have_text("rule H2")
    assert state(base, session)["seq"] == 0
    post(base, session, {"type": "override", "player": "Ada", "field": "gold", "value": 5, "reason": "t"})
    deaf.click("#hr-shop [data-item='sword']")  # another device emptied the purse: the rules say no
    expect(toast.locator(".rule-tag")).to_have_text("rule H3", timeout=WAIT_MS)
    assert "(rule" not in toast.inner_text() and toast.get_attribute("data-kind") == "error"
    assert state(base, session)["state"]["heroes"][0]["equipment"] == {}


def test_every_hero_fallen_shows_no_winner(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, *({"type": "override", "player": p, "field": "lives", "value": 0, "reason": "t"}
                          for p in ("Ada", "Ben")))
    page = open_game(open_page, base, session)
    expect(page.locator("#final")).to_be_visible()
    expect(page.locator("#winners")).to_contain_text("No winner")
    expect(page.locator("#winners .winner")).to_have_count(0)
    page.goto(f"{base}/")  # and so on Home's recent games: not "Won by" and nobody
    expect(page.locator(f"#finished [data-session='{session['id']}']")).to_contain_text("No winner")


def test_a_hero_pierced_by_the_dart_uses_the_antidote_held_at_once(open_page: Callable[..., Any], base: str) -> None:
    # ruling H9: Ben, the last seat, holds an antidote; the dart (21 against 11 + 1) takes one life, and the antidote
    # is used from the dart's result before the next round's poison could take another
    session = new_game(base, ["Ada", "Ben"])  # Ben plays Arcana: defence 11, 10 lives
    post(base, session, {"type": "end_turn", "player": "Ada"}, {"type": "buy", "player": "Ben", "item": "antidote"})
    page = open_game(open_page, base, session)
    post(base, session, {"type": "dart", "player": "Ben", "attack_die": 6, "defence_die": 1})
    expect(page.locator("#hr-last")).to_contain_text("pierced, poisoned", timeout=WAIT_MS)
    expect(hero(page, "Ben").locator(".hr-pips")).to_have_attribute("data-lives", "9")
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")  # the choice waits; the round has not turned
    expect(page.locator("#hr-castle")).to_be_visible()  # where Ben stands, with the dart's trap
    tap_anyway(page.locator("#hr-dart"))  # the dart ended the move: the page says so
    expect(page.locator("#toast")).to_contain_text("use the antidote or tap Next")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule H9")
    expect(page.locator("#hr-antidote-or")).to_have_text(" now, or Next: keep the antidote and stay poisoned")
    page.click("#hr-antidote")
    expect(page.locator("#turn .turn-name")).to_have_text("Ada", timeout=WAIT_MS)
    expect(page.locator("#toast")).to_have_text("Ben used the antidote: no longer poisoned.")
    expect(page.locator("#hr-last")).to_contain_text("pierced, poisoned, cured")  # not "poisoned" to the next hero
    expect(page.locator("#hr-antidote")).to_have_count(0)
    expect(hero(page, "Ben").locator(".hr-badge.poison")).to_have_count(0)
    shown = state(base, session)["state"]
    ben = shown["heroes"][1]
    assert shown["round"] == 2 and ben["lives"] == 9 and not ben["poisoned"] and ben["cards"] == {}


def test_the_dart_s_dice_are_entered_from_the_real_dice(open_page: Callable[..., Any], base: str) -> None:
    # ruling H9: the dart's attack die and the hero's defence die, as for a fight's "Enter dice…"
    session = new_game(base, ["Ada", "Ben"])  # Ada plays Argilos: defence 12
    page = open_game(open_page, base, session)
    page.click("[data-pane='castle']")
    page.click("#hr-dart-dice")
    die(page, 2, "The dart's attack die (15 + die)")
    expect(page.locator(".die-panel .label")).to_contain_text("Ada's defence die")
    page.click(".die-panel button:text-is('Cancel')")  # cancelled: nothing is sent
    expect(page.locator(".die-panel")).to_have_count(0)
    assert state(base, session)["seq"] == 0
    page.click("#hr-dart-dice")
    die(page, 6, "The dart's attack die")
    die(page, 1, "Ada's defence die")
    expect(page.locator("#hr-last")).to_have_text("Poisoned dart: Ada 21 vs 13: pierced, poisoned.", timeout=WAIT_MS)
    dart = state(base, session)["state"]["last_dart"]
    assert (dart["attack_die"], dart["defence_die"]) == (6, 1)
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")


def test_the_table_is_asked_again_when_the_keeper_of_the_left_over_falls(open_page: Callable[..., Any],
                                                                          base: str) -> None:
    # ruling H13: 25 treasure among four leaves 1 over, named for Anna; the Harpies defeat Anna, and among the
    # three left it still does not split: the table names who keeps it, nobody gets it without asking
    session = new_game(base, ["Anna", "Ben", "Cleo", "Dan"])  # Anna plays Argilos: 12 lives, defence 12
    post(base, session, {"type": "fight", "players": ["Anna", "Ben", "Cleo", "Dan"], "enemy": "harpies",
                         "remainder_to": "Anna"},
         {"type": "initiative", "hero_die": 1, "enemy_die": 6},
         {"type": "strike", "enemy_dice": [6, 6], "defence_dice": [1, 1], "targets": ["Anna", "Anna"]},
         {"type": "override", "field": "enemy_lives", "value": 1, "reason": "t"})
    page = open_game(open_page, base, session)
    post(base, session, {"type": "strike", "hero_dice": [6, 6, 6], "enemy_defence_die": 1})
    expect(page.locator("#hr-last")).to_contain_text("Ben +8 treasure, Cleo +8 treasure, Dan +8 treasure",
                                                      timeout=WAIT_MS)
    # the victory is the three still standing; Anna fell in it
    expect(page.locator("#hr-last")).to_contain_text(
        "Last fight: Ben, Cleo and Dan won against the Harpies (Anna fell)")
    expect(page.locator("#hr-left-over")).to_have_text("Anna was defeated: who keeps the 1 left over?")
    tap_anyway(page.locator("#hr-next"))  # play waits for the keeper
    expect(page.locator("#toast")).to_contain_text("who keeps the 1 left over")
    expect(page.locator("#toast .rule-tag")).to_have_text("rule H13")
    expect(page.locator("[data-keep]")).to_have_count(3)
    fits(page, "the keeper's question")
    page.click("[data-keep='Cleo']")
    expect(hero(page, "Cleo").locator(".hr-treasure")).to_have_text("9 treasure", timeout=WAIT_MS)
    expect(page.locator("#hr-left-over")).to_have_count(0)
    expect(page.locator("#hr-last")).to_contain_text("Cleo +9 treasure")
    assert state(base, session)["state"]["last_fight"]["shares"] == {"Ben": 8, "Cleo": 9, "Dan": 8}
    page.click("#hr-next")  # play goes on
    expect(page.locator("#turn .turn-name")).to_have_text("Cleo")


def test_a_plural_enemy_is_named_in_good_grammar(open_page: Callable[..., Any], base: str) -> None:
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "fight", "players": ["Ada"], "enemy": "geeants"})
    page = open_game(open_page, base, session)
    die_pad = page.locator(".die-panel .label")
    page.click("#hr-dice")
    die(page, 1, "the heroes' die")
    expect(die_pad).to_have_text("Initiative: the Geeants' die")
    die(page, 6, "the Geeants' die")
    expect(page.locator("#hr-step")).to_have_text("The Geeants attack")
    page.click("#hr-dice")
    expect(die_pad).to_have_text("The Geeants' attack die at Ada")
    die(page, 1, "The Geeants' attack die")
    die(page, 6, "Ada's defence die")
    expect(page.locator("#hr-step")).to_have_text("The heroes attack: Ada", timeout=WAIT_MS)
    post(base, session, {"type": "end_fight", "reason": "t"},
         {"type": "fight", "players": ["Ben"], "enemy": "skeleton"},
         {"type": "initiative", "hero_die": 1, "enemy_die": 6})
    expect(page.locator("#hr-step")).to_have_text("The Skeleton attacks", timeout=WAIT_MS)


def test_the_skunk_before_initiative_takes_the_tables_dice(open_page: Callable[..., Any], base: str) -> None:
    """Ruling H11: with the skunk, the initiative decides whether the heroes leave at once. Tapped before initiative,
    the companion rolled both dice itself and showed neither: the table's dice are asked for (or Roll), and shown."""
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "override", "player": "Ada", "field": "skunk", "value": 2, "reason": "t"},
         {"type": "fight", "players": ["Ada"], "enemy": "skeleton", "weapons": [None], "remainder_to": "Ada"})
    page = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='fight']")
    page.click("[data-skunk='Ada']")
    page.click("#hr-skunk-dice")
    page.click("#die-keys [data-die='2']")  # the heroes' die
    page.click("#die-keys [data-die='5']")  # the Skeleton's: it strikes once, then the heroes leave
    expect(page.locator("#hr-step")).to_contain_text("The skunk (initiative 2 against 5): the Skeleton strikes once")
    fight = state(base, session)["state"]["fight"]
    assert fight["initiative"] == [2, 5] and fight["skunk_pending"]
    assert state(base, session)["state"]["heroes"][0]["cards"]["skunk"] == 1


def test_the_table_chooses_the_iron_item_a_rust_worm_ruins(open_page: Callable[..., Any], base: str) -> None:
    """Ruling H8: a damaging Rust Worm hit ruins one iron item, chosen at the table. The companion ruined the weapon in
    hand without asking; where the hero owns two or more, the page asks before the strike."""
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "override", "player": "Ada", "field": "sword", "value": 1, "reason": "t"},
         {"type": "override", "player": "Ada", "field": "chain_mail", "value": 1, "reason": "t"},
         {"type": "fight", "players": ["Ada"], "enemy": "rust_worm", "weapons": ["sword"], "remainder_to": "Ada"},
         {"type": "initiative", "hero_die": 1, "enemy_die": 6})
    page = open_game(open_page, base, session, 800, 480)
    page.click("[data-pane='fight']")
    page.click("#hr-dice")
    page.click(".hr-pick [data-ruin='chain_mail']")  # "If the Rust Worm hurts Ada, which iron item rusts?"
    page.click("#die-keys [data-die='6']")  # the worm's attack die
    page.click("#die-keys [data-die='1']")  # Ada's defence die: hurt
    expect(page.locator("#hr-fight")).to_contain_text("ruined)", timeout=WAIT_MS)  # the exchange, as the table saw it
    ada = state(base, session)["state"]["heroes"][0]
    assert ada["equipment"].get("sword") == 1 and "chain_mail" not in ada["equipment"] and ada["lives"] < 12


def test_a_hero_alone_spends_the_torch_at_the_dark_corridor(open_page: Callable[..., Any], base: str) -> None:
    """Ruling H14 with one hero (H1): the corridor's wait was over before a torch could be tapped, and the round lost.
    The page asks at the corridor whether the torch is spent there; Back asks again later, nothing sent. So at a
    locked door with an opening spell."""
    session = new_game(base, ["Ada"])
    post(base, session, {"type": "buy", "player": "Ada", "item": "torch"})
    before = state(base, session)
    page = open_game(open_page, base, session, 800, 480)
    expect(hero(page, "Ada")).to_contain_text("Torch")
    page.click("[data-pane='castle']")
    page.click("[data-obstacle='dark_corridor']")
    asked = page.locator(".dialog:has([data-answer])")
    expect(asked).to_contain_text("Ada holds a torch: spend it at the dark corridor?")
    page.keyboard.press("Escape")
    expect(asked).to_have_count(0)
    assert state(base, session)["seq"] == before["seq"]  # nothing sent
    page.click("[data-obstacle='dark_corridor']")
    page.click("[data-answer='yes']:text-is('Spend a torch')")
    expect(hero(page, "Ada")).not_to_contain_text("Torch")
    after = state(base, session)
    assert after["state"]["round"] == before["state"]["round"] + 1 and after["state"]["missed_at"] == {}
    assert after["state"]["heroes"][0]["cards"] == {}
    # the opening spell at a locked door: the door opens, and the move goes on through it (the rulebook's key)
    post(base, session, {"type": "buy", "player": "Ada", "item": "opening_spell"})
    expect(hero(page, "Ada")).to_contain_text("Opening spell")
    expect(page.locator("[data-pane='city']")).to_have_attribute("aria-pressed", "true")  # bought in the city
    page.click("[data-pane='castle']")
    page.click("[data-obstacle='locked_door']")
    expect(asked).to_contain_text("Spent, the door opens: the heroes here go on through it now.")
    expect(asked.locator("[data-answer='no']")).to_have_text("Keep it: stay, go back next move")
    page.click("[data-answer='yes']")
    expect(hero(page, "Ada")).not_to_contain_text("Opening spell")
    opened = state(base, session)["state"]
    assert opened["round"] == after["state"]["round"] and opened["turn"] == "Ada"
    assert opened["heroes"][0]["wait_reason"] is None


def shown_pane(page: Any) -> Any:
    """The tab pressed: the pane the page shows."""
    return page.locator(".hr-tab[aria-pressed='true']")


def panes(pages: tuple[Any, ...], mover: str, pane: str) -> None:
    """Every page shows `mover`'s move on `pane`."""
    for page in pages:
        expect(page.locator("#turn .turn-name")).to_have_text(mover, timeout=WAIT_MS)
        expect(shown_pane(page)).to_have_attribute("data-pane", pane, timeout=WAIT_MS)
        expect(page.locator(f"#hr-{pane}")).to_be_visible()


def test_a_move_opens_where_its_hero_stands_on_every_device(open_page: Callable[..., Any], base: str) -> None:
    """A move opened where its hero was last shown on that device: a hero's first castle move opened the City, and the
    kiosk and a phone showed different panes. The companion keeps where each hero stands, from what the table enters:
    every device opens the mover's pane; a tab tapped to look holds until the move or the mover's place changes."""
    session = new_game(base, ["Ada", "Ben"])
    post(base, session, {"type": "buy", "player": "Ada", "item": "darren_back"},
         {"type": "treasure", "player": "Ada", "value": 10},  # a castle card: Ada stands in the castle
         {"type": "end_turn", "player": "Ben"})
    kiosk = open_game(open_page, base, session, 800, 480)
    phone = open_game(open_page, base, session, 390, 844)
    both = (kiosk, phone)
    panes(both, "Ada", "castle")  # no tap on Castle, on either
    kiosk.click("#hr-next")
    panes(both, "Ben", "city")
    # Ben's last roll in the city reaches an arrow square: his move ends there, and his next is into the castle
    expect(phone.locator("#hr-enter")).to_contain_text("Arrow square")
    phone.click("#hr-enter")
    panes(both, "Ada", "castle")
    # a tab tapped to look holds while the move and the mover's place stay
    kiosk.click("[data-pane='bank']")
    post(base, session, {"type": "override", "player": "Ben", "field": "gold", "value": 150, "reason": "t"})
    expect(hero(kiosk, "Ben").locator(".hr-gold")).to_have_text("150 gold", timeout=WAIT_MS)
    expect(shown_pane(kiosk)).to_have_attribute("data-pane", "bank")
    expect(shown_pane(phone)).to_have_attribute("data-pane", "castle")
    # Ada's Darren back carries her back to the city: every device opens it, the look is over; her move goes on
    phone.click("[data-use='darren_back']")
    expect(phone.locator(".hr-pick")).to_contain_text("Ada's Darren back carries the hero…")
    phone.click(".hr-pick [data-to='city']")
    panes(both, "Ada", "city")
    kiosk.click("#hr-enter")
    panes(both, "Ben", "castle")
    phone.click("#hr-next")  # Ben's move, ended on the other device (the kiosk would ask, right after its hand-over)
    panes(both, "Ada", "castle")
    assert [h["place"] for h in state(base, session)["state"]["heroes"]] == ["castle", "castle"]


def test_what_happened_last_is_gone_after_a_later_move_on_every_device(open_page: Callable[..., Any],
                                                                       base: str) -> None:
    """The line above the tabs still told of a dart after the next hero's torch had lit a dark corridor: it tells what
    happened last, the last dart, treasure or fight, and a later move that is none of them takes it away."""
    session = new_game(base, ["Ada", "Ben"])  # Ada plays Argilos: defence 12
    post(base, session, {"type": "end_turn", "player": "Ada"}, {"type": "buy", "player": "Ben", "item": "torch"},
         {"type": "end_turn", "player": "Ben"})
    kiosk = open_game(open_page, base, session, 800, 480)
    phone = open_game(open_page, base, session, 390, 844)
    both = (kiosk, phone)
    kiosk.click("[data-pane='castle']")
    kiosk.click("#hr-dart-dice")
    die(kiosk, 6, "The dart's attack die")
    die(kiosk, 1, "Ada's defence die")
    for page in both:
        expect(page.locator("#hr-last")).to_have_text("Poisoned dart: Ada 21 vs 13: pierced, poisoned.",
                                                      timeout=WAIT_MS)
        expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    # Ben's move: a dark corridor, his torch spent there
    phone.click("[data-pane='castle']")
    phone.click("[data-obstacle='dark_corridor']")
    phone.click("[data-answer='yes']:text-is('Spend a torch')")
    for page in both:
        expect(page.locator("#turn .turn-name")).to_have_text("Ada", timeout=WAIT_MS)
        expect(page.locator("#hr-last")).to_be_hidden()
    # a treasure is what happened last until Next
    kiosk.click("[data-treasure='15']")
    for page in both:
        expect(page.locator("#hr-last")).to_have_text("Last treasure: Ada +15.", timeout=WAIT_MS)
    phone.click("#hr-next")
    for page in both:
        expect(page.locator("#turn .turn-name")).to_have_text("Ada", timeout=WAIT_MS)
        expect(page.locator("#hr-last")).to_be_hidden()
    shown = state(base, session)["state"]
    assert (shown["last_dart"], shown["last_treasure"], shown["last_fight"]) == (None, None, None)


#: Each hero card's names as a person sees them: the player's name and the hero's, each inside the card (every line of
#: it) and clear of the score, the hero's on one line and not cut short.
NAMES_ON_CARDS = """() => [...document.querySelectorAll('.hr-hero')].map((card) => {
    const box = card.getBoundingClientRect(), score = card.querySelector('.hr-score').getBoundingClientRect();
    const inside = (r) => r.width > 0 && r.left >= box.left - .5 && r.right <= box.right + .5
        && r.top >= box.top - .5 && r.bottom <= box.bottom + .5;
    const apart = (r) => r.right <= score.left + .5 || r.left >= score.right - .5 || r.bottom <= score.top + .5
        || r.top >= score.bottom - .5;
    const shown = (el) => el.checkVisibility() && [...el.getClientRects()].every((r) => inside(r) && apart(r));
    const name = card.querySelector('.hr-hero-head .name'), hero = card.querySelector('.hr-hero-name');
    return [card.dataset.player, name.textContent, shown(name), hero.textContent,
            shown(hero) && hero.getClientRects().length === 1 && hero.scrollWidth <= hero.clientWidth + .5]; })"""

#: The part of each hero card below the screen's bottom edge (none: 0), in px.
CARDS_BELOW = """() => [...document.querySelectorAll('.hr-hero')]
    .map((el) => Math.max(0, el.getBoundingClientRect().bottom - window.innerHeight))"""

LONG_TABLE = ["Bartholomäus Drachenherz", "Oma Ruth", "Jan", "Anna"]
LONG_HEROES = {"Bartholomäus Drachenherz": "Argilos", "Oma Ruth": "Arcana", "Jan": "Fist", "Anna": "Parbat"}


@pytest.mark.parametrize("width, height", [(800, 480), (1024, 600), (390, 844)])
def test_every_hero_card_names_the_player_and_the_hero(open_page: Callable[..., Any], base: str, width: int,
                                                       height: int) -> None:
    """A long player's name hid the hero's: Bartholomäus Drachenherz played Argilos, and his card never said "Argilos",
    on the kiosk or a phone; "Oma Ruth A…" was cut. Every card shows the player's name and the hero's, whole, beside
    the score; at the start and deep in a game (badges, equipment) the four cards stay on the Pi's screens."""
    session = start_game(base, GAME, LONG_TABLE, heroes=["argilos", "arcana", "fist", "parbat"])
    page = open_game(open_page, base, session, width, height)
    for moment in ("start", "deep"):
        expect(page.locator(".hr-hero")).to_have_count(4)
        if moment == "deep":
            bart, oma, jan, anna = LONG_TABLE
            post(base, session, *({"type": "buy", "player": bart, "item": i} for i in ("sword", "chain_mail", "torch")),
                 {"type": "treasure", "player": bart, "value": 20},
                 *({"type": "buy", "player": oma, "item": i} for i in ("shield", "potion", "antidote")),
                 {"type": "dart", "player": oma, "attack_die": 6, "defence_die": 1},
                 {"type": "end_turn", "player": oma},
                 *({"type": "buy", "player": jan, "item": i} for i in ("hammer", "leather", "food")),
                 {"type": "stop", "player": jan, "square": "tavern"},
                 *({"type": "buy", "player": anna, "item": i} for i in ("axe", "shield", "torch")),
                 {"type": "dart", "player": anna, "attack_die": 6, "defence_die": 1},
                 {"type": "buy", "player": bart, "item": "skunk"})
            expect(page.locator(".hr-hero .hr-badge")).to_have_count(4, timeout=WAIT_MS)  # moves, poisoned ×2, waits
        where = f"{moment} at {width}x{height}"
        shoot(page, f"draci-hrad-hero-names-{moment}-{width}x{height}")
        cards = page.evaluate(NAMES_ON_CARDS)
        assert [(player, name, named) for player, name, _, named, _ in cards] == \
            [(p, p, LONG_HEROES[p]) for p in LONG_TABLE], where
        assert [player for player, _, whole, _, _ in cards if not whole] == [], f"{where}: a player's name cut"
        assert [named for _, _, _, named, whole in cards if not whole] == [], f"{where}: a hero's name cut or hidden"
        for player in LONG_TABLE:  # said whole to a screen reader, the hero's full name with it
            expect(hero(page, player)).to_have_accessible_name(re.compile(rf"^{player}, {LONG_HEROES[player]} the "))
        if height <= 600:
            below = page.evaluate(CARDS_BELOW)
            assert below == [0, 0, 0, 0], f"{where}: hero cards below the screen's bottom edge by {below} px"
        fits(page, where)

"""The Dračí hrad page on the Pi's 800x480 screen, in headless Chromium, as the table meets it: a fight's set-up with
four heroes reached 25 px below the screen's foot (five and six heroes too); in a fight of five or six heroes each
hero's equipment was cut short ("Leather, Shield, Sword…"); the log and Undo said "the enemy's lives" without naming
the enemy; and a group's fight ended by hand was logged under the mover's name alone."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from playwright.sync_api import expect

from tests.browser import KIOSK, SMALL_TEXT, WAIT_MS, fits, in_view, keypad, open_game, post_events, start_game
from tests.browser import session_view as state
from tests.test_draci_hrad_fit_browser import (
    BART,
    SIX,
    at_the_dragon,
    purses_and_lives_in_sight,
    six_equipped,
)
from tests.test_fit_800_browser import BELOW

GAME = "draci-hrad"

#: Each thing a hero's card shows they carry that a player cannot read whole on the screen as it is: broken over two
#: lines, cut off by the card (a "…" in its place), or off the screen. Things are read from the card's words.
KIT_UNREAD = """(player) => {
    const card = [...document.querySelectorAll('#hr-heroes [data-player]')].find((c) => c.dataset.player === player);
    const kit = card.querySelector('.hr-kit');
    if (!kit) return { items: [], unread: ['no equipment shown'] };
    const nodes = [];
    let text = '';
    const walker = document.createTreeWalker(kit, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, text.length]); text += n.textContent; }
    const at = (i) => { const [n, start] = nodes.findLast(([, s]) => s <= i); return [n, i - start]; };
    const items = text.split(', ');
    const unread = [];
    let from = 0;
    for (const item of items) {
        const start = text.indexOf(item, from);
        from = start + item.length;
        const range = document.createRange();
        range.setStart(...at(start));
        const [end, offset] = at(start + item.length - 1);
        range.setEnd(end, offset + 1);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0.5);
        if (new Set(rects.map((r) => Math.round(r.top))).size !== 1) { unread.push(`${item}: on two lines`); continue; }
        for (const r of rects) {
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const shown = r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth
                && kit.contains(document.elementFromPoint(x, y));
            if (!shown) unread.push(`${item}: cut off or out of sight`);
        }
    }
    return { items, unread };
}"""


def kits_read_whole(page: Any, base: str, session: dict[str, Any], players: list[str], where: str) -> None:
    """Every hero's equipment on their card, each thing whole on one line, in sight; every kind they hold named."""
    heroes = {h["player"]: h for h in state(base, session)["state"]["heroes"]}
    for player in players:
        seen = page.evaluate(KIT_UNREAD, player)
        assert seen["unread"] == [], f"{where}: {player}'s equipment not read whole: {seen['unread']}"
        held = heroes[player]
        assert len(seen["items"]) == len(held["equipment"]) + len(held["cards"]), f"{where}: {player}: {seen}"


def set_up(page: Any, joining: list[str]) -> None:
    """The fight's pane, the Dragon picked, `joining` fighting too."""
    page.click("[data-pane='fight']")
    page.click("#hr-enemies [data-enemy='dragon']")
    for player in joining:
        page.click(f"[data-join='{player}']")
        expect(page.locator(f"[data-join='{player}']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#hr-start")).to_have_text("Fight the Dragon")


@pytest.mark.parametrize("table", ["four, a long name", "five", "six", "five together", "six together"])
def test_a_fight_s_set_up_fits_the_kiosk_screen(open_page: Callable[..., Any], base: str, table: str) -> None:
    """At 800x480 a fight's set-up with four heroes (the mover's name long, his bow beside it) reached 25 px below the
    screen's foot, with five or six heroes too, alone or all of them together against the Dragon: the set-up fits
    without a scroll, its start whole and in sight, and every hero's button to fight too and their weapons with it."""
    if table == "four, a long name":
        session, players = at_the_dragon(base), [BART, "Clara", "Jan", "Anna"]
    else:
        players = SIX[:5] if table.startswith("five") else SIX
        session = six_equipped(base, players)
    page = open_game(open_page, base, session, *KIOSK)
    joining = players[1:] if table.endswith("together") else []
    set_up(page, joining)
    where = f"a fight's set-up, {table}, at 800x480"
    fits(page, where)
    assert page.evaluate(BELOW) <= 0, f"{where} scrolls by {page.evaluate(BELOW)} px"
    assert page.evaluate(SMALL_TEXT, "#play") == [], f"{where}: text under 13 px"
    for selector in ("#hr-start", "#hr-enemies [data-enemy='dragon']", *(f"[data-join='{p}']" for p in players[1:]),
                     *(f"[data-weapon='none'][data-for='{p}']" for p in [players[0], *joining])):
        in_view(page, selector)
    purses_and_lives_in_sight(page, players, where)
    page.click("#hr-start")
    expect(page.locator("[data-member]")).to_have_count(len(joining) + 1)


@pytest.mark.parametrize("count", [5, 6])
def test_every_hero_s_equipment_reads_whole_in_a_fight_of_five_or_six(open_page: Callable[..., Any], base: str,
                                                                     count: int) -> None:
    """Five or six heroes, each with four things bought: at 800x480 each card showed one line of equipment, cut short
    ("Leather, Shield, Sword…", "Bow, Shield, Antidote,…"). In the city and in a fight every hero's equipment is read
    whole, each thing on one line, with every purse and life in sight and no text under 13 px."""
    players = SIX[:count]
    session = six_equipped(base, players)
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator(".hr-hero")).to_have_count(count)
    kits_read_whole(page, base, session, players, f"{count} heroes in the city")
    purses_and_lives_in_sight(page, players, f"{count} heroes in the city")
    page.click("[data-pane='fight']")
    page.click("#hr-enemies [data-enemy='skeleton']")
    page.click("#hr-start")
    expect(page.locator("#hr-roll")).to_be_visible()
    where = f"a fight of {count} heroes"
    kits_read_whole(page, base, session, players, where)
    purses_and_lives_in_sight(page, players, where)
    assert page.evaluate(SMALL_TEXT, "#play") == [], f"{where}: text under 13 px"


def test_the_log_and_undo_name_the_enemy_whose_lives_were_set(open_page: Callable[..., Any], base: str) -> None:
    """The Spider's lives set by hand were logged as "The enemy's lives set from 25 to 3 by hand", and Undo said
    "the enemy's lives": both name the Spider."""
    session = start_game(base, GAME, ["Ada", "Ben"])
    post_events(base, session, {"type": "fight", "players": ["Ada"], "enemy": "spider"})
    page = open_game(open_page, base, session, *KIOSK)
    page.click("#menu-button")
    page.click("#hr-set")
    page.click(".hr-pick [data-pick='@enemy']")
    keypad(page, 3)
    page.click(".hr-pick [data-why='Corrected at the table']")
    expect(page.locator("#hr-enemy-lives")).to_have_text("♥ 3/25")
    expect(page.locator("#hr-overrides li").first).to_have_text(
        "The Spider's lives set from 25 to 3 by hand: corrected at the table", timeout=WAIT_MS)
    page.click("#undo")
    expect(page.locator("#toast")).to_have_text("Undid: the Spider's lives set to 3 by hand")
    expect(page.locator("#hr-enemy-lives")).to_have_text("♥ 25/25")


def test_a_group_s_fight_ended_by_hand_is_logged_as_the_group_s(open_page: Callable[..., Any], base: str) -> None:
    """Ben and Clara fought the Dragon together; ended by hand, the log said "Ben's fight with the Dragon ended by
    hand". It names the group's fight, in the log beside the cards and in the menu's whole log."""
    session = start_game(base, GAME, ["Ada", "Ben", "Clara"])
    post_events(base, session, {"type": "end_turn", "player": "Ada"},
                {"type": "fight", "players": ["Ben", "Clara"], "enemy": "dragon", "remainder_to": "Ben"})
    page = open_game(open_page, base, session, *KIOSK)
    page.click("#hr-end-fight")
    page.click("[data-why='Nobody can hurt anybody']")
    line = "The fight with the Dragon (Ben, Clara) ended by hand: nobody can hurt anybody"
    expect(page.locator("#hr-overrides li").first).to_have_text(line, timeout=WAIT_MS)
    page.click("#menu-button")
    page.click("#hr-log-open")
    expect(page.locator("#hr-log-all li")).to_have_text([f"{line} · round 1"])

"""Accessibility, in headless Chromium, more: live regions that speak once, when what they say changes (the scores
that changed, in a few words; the Diego castle's note and the turn line not on every redraw; an error toast said at
once, its words put in after it is shown), and nothing said by colour alone (the Drachensachen chart's lines, Dračí
hrad's lives under the no-attack limit, Drachen Wurf's tiles that can be stolen, a Diego gate whose beam is
interrupted)."""
from __future__ import annotations

import re
from typing import Any, Callable

from flask import Flask
from playwright.sync_api import expect

from tests.browser import CONTRAST, KIOSK, PHONE, WAIT_MS, open_game, start_game, tap_anyway
from tests.browser import post_events as post
from tests.test_drachen_wurf_browser import play_until
from tests.test_drachensachen_browser import FINISHED_ROUNDS

#: Every change of a live region's words, as a screen reader hears of it: window.said gets [region id, its words]
#: for each region whose text or children changed, once per batch of changes; window.said starts with the words each
#: live region holds as it is installed.
HEAR = """() => {
    const live = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"]';
    const words = (el) => el.textContent.replace(/\\s+/g, ' ').trim();
    window.said = [...document.querySelectorAll(live)].map((el) => [el.id, words(el), 'start']);
    new MutationObserver((records) => {
        const touched = new Set();
        for (const r of records) {
            const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
            const region = node && node.closest(live);
            if (region) touched.add(region);
        }
        for (const region of touched) window.said.push([region.id, words(region), 'change']);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
}"""


def _heard(page: Any, region: str) -> list[str]:
    """The words region `region` said, each time it changed (not its words at the start)."""
    return [text for rid, text, when in page.evaluate("window.said") if rid == region and when == "change"]


def _repeats(page: Any, region: str) -> list[str]:
    """The words region `region` was given again, the same as it already held: said twice for one thing."""
    held = None
    again = []
    for rid, text, _ in page.evaluate("window.said"):
        if rid != region:
            continue
        if text == held:
            again.append(text)
        held = text
    return again


# ---- live regions -------------------------------------------------------------------------------------------

def test_a_round_scored_on_another_device_is_said_once_in_a_few_words(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    page.evaluate(HEAR)
    # another device scores the round: Ada's marbles in 2, 2 and 5, the token 2, Ben turned over 2: Ada 2, Ben 1
    post(base, session, *({"type": "marble", "gate": g} for g in (2, 2, 5)), {"type": "reveal", "gate": 2},
         {"type": "turned", "player": "Ben", "gate": 2})
    expect(page.locator("#scoreboard [data-player='Ada'] .score")).to_have_text("2")
    expect(page.locator("#scoreboard [data-player='Ben'] .score")).to_have_text("1")
    # the board and what is said of it change in the same redraw: nothing more to wait for
    said = [(rid, text) for rid, text, when in page.evaluate("window.said") if when == "change" and "Ada 2" in text]
    assert said, "no live region said the new scores"
    assert len(said) == 1, f"the scores were said more than once: {said}"
    region_id, text = said[0]
    assert text == "Ada 2, Ben 1", f"the scores said as {text!r}, not in a few words"
    region = page.locator(f"#{region_id}")
    assert region.evaluate("(el) => el.getAttribute('aria-live') === 'polite' || "
                           "(el.getAttribute('role') === 'status' && el.getAttribute('aria-live') !== 'assertive')")

    # the next round goes on (a marble from another device, a redraw): no score changed, nothing said of them again
    post(base, session, {"type": "marble", "gate": 4})
    expect(page.locator("#slots .slot.filled")).to_have_count(1)
    assert [t for _, t in _heard_all(page) if "Ada 2" in t] == ["Ada 2, Ben 1"]


def _heard_all(page: Any) -> list[tuple[str, str]]:
    return [(rid, text) for rid, text, when in page.evaluate("window.said") if when == "change"]


def test_the_castle_note_and_the_turn_are_not_said_again_on_a_redraw(open_page: Callable[..., Any], base: str,
                                                                      app: Flask) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"])
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator("#castle-text")).to_contain_text("The castle")
    expect(page.locator("#turn")).to_contain_text("rolls the marbles")
    page.evaluate(HEAR)
    # the gates report two marbles: each a redraw that changes neither the castle's note nor whose turn it is
    for count, gate in enumerate((3, 5), start=1):
        app.extensions["table"].submit(session["id"], {"type": "marble", "gate": gate}, source="sensor")
        expect(page.locator("#slots .slot.filled")).to_have_count(count)
    expect(page.locator("#turn")).to_contain_text("rolls the marbles")
    again = {"castle": _repeats(page, "castle"), "turn": _repeats(page, "turn")}
    assert again == {"castle": [], "turn": []}, f"live regions said again unchanged: {again}"
    # and a change of what it says is said: the third marble and the token, the next player's turn
    post(base, session, {"type": "marble", "gate": 1}, {"type": "reveal", "gate": 3},
         {"type": "turned", "player": "Ben", "correct": True}, {"type": "turned", "player": "Cleo", "correct": False})
    expect(page.locator("#turn .turn-name")).to_have_text("Ben")
    assert any(text.startswith("Ben") for text in _heard(page, "turn")), _heard(page, "turn")
    assert _repeats(page, "turn") == [], f"the turn said again unchanged: {_heard(page, 'turn')}"


#: The toast's changes in order: "shown" as it comes out of hiding, ["words", role, text] as words go into it.
#: The toast while no message shows: still rendered (in the page's accessibility tree, an empty live region), so that
#: the words a message puts into it are announced, not a region that appears with them.
TOAST_AT_REST = """() => { const t = document.getElementById('toast');
    return t.hidden && getComputedStyle(t).display !== 'none' && t.textContent === ''; }"""


def test_an_error_is_said_at_once_into_a_toast_that_was_there_before(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    assert page.evaluate(TOAST_AT_REST), "the toast at rest is no live region: its words would not be said"
    page.route("**/api/sessions/*/events", lambda route: route.abort())  # the companion out of reach
    page.click("#marble-pad [data-gate='3']")
    toast = page.locator("#toast")
    expect(toast).to_contain_text("The companion cannot be reached")
    assert toast.get_attribute("role") == "alert", f"an error toast has role {toast.get_attribute('role')!r}"
    assert toast.get_attribute("aria-live") in (None, "assertive"), toast.get_attribute("aria-live")
    # a plain message again: said politely, as before
    tap_anyway(page.locator("#undo"))
    expect(toast).to_have_text("Nothing to undo yet.")
    assert toast.get_attribute("role") == "status" and toast.get_attribute("aria-live") != "assertive"
    page.wait_for_function(TOAST_AT_REST)  # taken down: empty again, for the next message's words


# ---- not by colour alone --------------------------------------------------------------------------------------

#: The computed font size (px) of an element.
FONT_PX = "(el) => parseFloat(getComputedStyle(el).fontSize)"


def test_the_chart_names_each_players_line(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "drachensachen", ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"})
    for finisher, coins in FINISHED_ROUNDS[:2]:  # Ada 3, Ben 8, Cleo 14
        post(base, session, {"type": "went_out", "player": finisher},
             *({"type": "coins", "player": p, "coins": n} for p, n in coins.items()))
    page = open_game(open_page, base, session, *KIOSK)
    chart = page.locator("#ds-chart")
    expect(chart.locator("polyline")).to_have_count(3)
    shapes = []
    for player in ("Ada", "Ben", "Cleo"):
        # the chart's legend, with names: the score board right above it, each name after its line's key
        key = page.locator(f"#scoreboard li[data-player='{player}'] .ds-key")
        assert key.count() == 1 and key.is_visible(), f"{player}'s line is named nowhere: no key beside {player}"
        end = chart.locator(f"svg.ds-chart-svg [data-player='{player}'] .ds-mark")
        assert end.count() == 1, f"{player}'s line ends in no mark of its own"
        shape = end.get_attribute("data-shape")
        expect(key.locator(".ds-mark")).to_have_attribute("data-shape", shape)
        shapes.append(shape)
        name = page.locator(f"#scoreboard li[data-player='{player}'] .name")
        expect(name).to_have_text(player)
        assert name.evaluate(FONT_PX) >= 12, f"{player}'s name by the key is too small to read"
        ratio = name.evaluate(CONTRAST)
        assert ratio >= 4.5, f"{player}'s name by the key reads at {ratio:.2f}:1"
    assert len(set(shapes)) == 3, f"the lines end alike, told apart by colour alone: {shapes}"
    expect(chart.locator("svg.ds-chart-svg")).to_have_accessible_name(re.compile(r"Ada \(\w+\) 3, Ben \(\w+\) 8"))


#: For each end mark of the chart `sel` (the shape ending a player's line): its player, whether it is seen (whole
#: inside the chart, and itself what shows at its centre: nothing drawn over it), and its box on the screen [left,
#: top, right, bottom].
END_MARKS = """(sel) => { const svg = document.querySelector(`${sel} svg.ds-chart-svg`);
    svg.scrollIntoView({ block: 'center' });
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('[data-player] .ds-mark')].map((mark) => {
        const r = mark.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
        const whole = r.left >= box.left - .5 && r.right <= box.right + .5 && r.top >= box.top - .5
            && r.bottom <= box.bottom + .5;
        return [mark.closest('[data-player]').dataset.player, whole && document.elementFromPoint(x, y) === mark,
                [r.left, r.top, r.right, r.bottom]]; }); }"""

#: Ada goes out twice; Ben and Cleo, by other ways, both end on 21: a tie on the chart's last round.
TIED_ROUNDS = [("Ada", {"Ben": 8, "Cleo": 4}), ("Ben", {"Ada": 3, "Cleo": 10}), ("Cleo", {"Ada": 5, "Ben": 12}),
               ("Ada", {"Ben": 3, "Cleo": 7})]  # Ada 8, Ben 21, Cleo 21


def test_two_lines_ending_on_the_same_total_show_both_shapes(open_page: Callable[..., Any], base: str) -> None:
    """On the final screen's chart Ben's and Cleo's lines both end on 21: the shape ending Cleo's line was drawn on
    Ben's, which no one saw (and a shape at the chart's edge was cut). Every line's shape is seen whole, over the
    lines and clear of every other shape."""
    session = start_game(base, "drachensachen", ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"})
    for finisher, coins in TIED_ROUNDS:
        post(base, session, {"type": "went_out", "player": finisher},
             *({"type": "coins", "player": p, "coins": n} for p, n in coins.items()))
    for size in (KIOSK, PHONE):
        page = open_game(open_page, base, session, *size)
        expect(page.locator("#final")).to_be_visible()
        expect(page.locator("#totals li[data-player='Cleo'] .score")).to_have_text("21")
        chart = page.locator("#ds-final-chart")
        expect(chart.locator(".ds-mark")).to_have_count(3)
        marks = page.evaluate(END_MARKS, "#ds-final-chart")
        where = f"the final chart at {size[0]}x{size[1]}"
        hidden = [player for player, seen, _ in marks if not seen]
        assert sorted(player for player, _, _ in marks) == ["Ada", "Ben", "Cleo"], f"{where}: {marks}"
        assert not hidden, f"{where}: the shape ending the line of {hidden} is covered or cut: {marks}"
        for i, (one, _, a) in enumerate(marks):
            for other, _, b in marks[i + 1:]:
                apart = a[2] <= b[0] + .5 or b[2] <= a[0] + .5 or a[3] <= b[1] + .5 or b[3] <= a[1] + .5
                assert apart, f"{where}: {one}'s and {other}'s shapes overlap: {a} and {b}"


def test_lives_under_the_no_attack_limit_differ_by_shape_and_are_said(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    session = start_game(base, "draci-hrad", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    pips = page.locator(".hr-hero[data-player='Ada'] .hr-pips")
    expect(pips).to_have_accessible_name(re.compile(r"^\d+ of \d+ lives; no attack at \d+ or fewer$"))
    shape = ("(el) => { const s = getComputedStyle(el);"
             " return [s.borderRadius, s.width, s.height, s.clipPath].join(' '); }")
    under = pips.locator(".hr-pip.red").first
    above = pips.locator(".hr-pip:not(.red)").first
    expect(under).to_be_visible()
    assert under.evaluate(shape) != above.evaluate(shape), \
        f"a life under the limit looks as one above it but for its colour: {under.evaluate(shape)}"


def test_a_tile_that_can_be_stolen_has_a_mark_and_says_so(open_page: Callable[..., Any], base: str,
                                                          app: Flask) -> None:
    game = start_game(base, "drachen-wurf", ["Ada", "Ben", "Cleo"])
    play_until(app, game, lambda s: s["phase"] == "dice" and s["max_k"] == 6 and s["round"] >= 4
               and any(s["stealable"]["6"]), seed=4)
    page = open_game(open_page, base, game, *KIOSK)
    loot = page.locator("#table .wtile.steal")
    expect(loot.first).to_be_visible()
    for i in range(loot.count()):
        expect(loot.nth(i)).to_have_accessible_name(re.compile(r"(can be )?stol(en|e)|steal", re.I))
        mark = loot.nth(i).locator(".steal-mark")
        expect(mark).to_be_visible()
        assert mark.evaluate(CONTRAST) >= 4.5, "the mark does not read on its tile"
    plain = page.locator("#table .wtile:not(.steal)")
    if plain.count():
        expect(plain.first).not_to_have_accessible_name(re.compile(r"stol|steal", re.I))
        expect(plain.first.locator(".steal-mark")).to_have_count(0)


def test_a_gate_whose_beam_is_interrupted_says_so(open_page: Callable[..., Any], base: str, app: Flask) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    gates = [{"gate": g, "marbles": 0, "blocked": g == 2, "stuck": False, "flaky": False} for g in range(1, 7)]
    app.extensions["table"].bus.publish("sensors", "sensors",
                                        {"gates": {"gates": gates}, "camera": {"ok": False, "error": "off"}})
    blocked = page.locator("#gate-status li[data-gate='2']")
    expect(blocked).to_have_class(re.compile(r"\bblocked\b"), timeout=WAIT_MS)
    expect(blocked).to_contain_text(re.compile(r"blocked|interrupted", re.I))
    expect(page.locator("#gate-status li[data-gate='1']")).not_to_contain_text(re.compile(r"blocked|interrupted",
                                                                                          re.I))

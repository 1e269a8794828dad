"""Accessibility, in headless Chromium: dialogs and the More menu named, holding the keyboard's focus while open and
giving it back; a focus ring for the keyboard on every control; players' names in their colours read at 4.5:1; buttons
named as they are seen and for whom; long names whole; and the Diego flag's "Camera is right" saying what it
confirms."""
from __future__ import annotations

import re
from typing import Any, Callable

import pytest
from flask import Flask
from playwright.sync_api import expect

from tests.browser import (
    BROKEN_WORDS,
    KIOSK,
    PHONE,
    WAIT_MS,
    call,
    current_round,
    fits,
    open_game,
    page_opener,
    start_game,
)
from tests.browser import post_events as post
from tests.servers import serving
from tests.test_browser import add_player, sim_base  # noqa: F401  (a fixture)
from tests.waiting import wait_for

LONG = "Bartholomäus"  # 12 letters, the longest name of a family's usual table

#: The open modal (a dialog of the kit, or the More menu) the page shows.
OPEN_DIALOG = "[role='dialog'] >> visible=true"

#: Whether the focus is on a control inside the open modal.
FOCUS_INSIDE = """(d) => d.contains(document.activeElement) && document.activeElement !== d
    && document.activeElement.matches('a[href], button, input')"""

#: The number of controls a Tab reaches in the open modal.
CONTROLS = """(d) => [...d.querySelectorAll('a[href], button, input')]
    .filter((c) => c.checkVisibility({ visibilityProperty: true }) && c.tabIndex >= 0).length"""


def _holds_focus(page: Any, opener: str, name: str | re.Pattern[str]) -> None:
    """Open a modal by the keyboard from `opener`: it is named `name`, focus is on a control inside it, Tab and
    Shift+Tab go round its controls only, Escape closes it, and focus is back on `opener`."""
    page.focus(opener)
    page.keyboard.press("Enter")
    modal = page.locator(OPEN_DIALOG)
    expect(modal).to_have_count(1)
    expect(modal).to_have_accessible_name(name)
    page.wait_for_function(f"() => ({FOCUS_INSIDE})([...document.querySelectorAll('[role=dialog]')]"
                           ".find((d) => d.checkVisibility()))")
    controls = modal.evaluate(CONTROLS)
    for key in ("Tab", "Shift+Tab"):
        for step in range(controls + 1):  # once round, and one more
            page.keyboard.press(key)
            assert modal.evaluate(FOCUS_INSIDE), f"{key} {step + 1} took the focus out of the open {name!r}"
    page.keyboard.press("Escape")
    expect(modal).to_have_count(0)
    page.wait_for_function("(sel) => document.activeElement === document.querySelector(sel)", arg=opener)


def test_the_more_menu_and_the_abandon_question_hold_the_focus(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    _holds_focus(page, "#menu-button", "More")
    # the question the menu opens: named by its question, and Escape brings the focus back to the menu's button
    page.focus("#menu-button")
    page.keyboard.press("Enter")
    expect(page.locator("#menu")).to_be_visible()
    page.focus("#abandon")
    page.keyboard.press("Enter")
    question = page.locator(OPEN_DIALOG)
    expect(question).to_have_accessible_name("Abandon this game of Diego Drachenzahn?")
    page.wait_for_function("() => document.activeElement.matches(\"[data-answer='yes']\")")  # the primary answer
    page.keyboard.press("Escape")
    expect(question).to_have_count(0)
    page.wait_for_function("() => document.activeElement.id === 'menu-button'")
    assert call(f"{base}/api/sessions/{session['id']}")[1]["status"] == "running"


def test_a_keypad_holds_the_focus_and_gives_it_back(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "drachensachen", ["Ada", "Ben", "Cleo"])
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ada"})
    page = open_game(open_page, base, session, *KIOSK)
    _holds_focus(page, "[data-coins='Ben']", re.compile(r"^Ben: coins on hand and reserve"))


def test_the_keyboard_and_the_colour_picker_hold_the_focus(open_page: Callable[..., Any], base: str) -> None:
    page = open_page(*KIOSK)
    page.goto(base + "/")
    page.click("[data-game='diego-drachenzahn']")
    add_player(page, "Ben")
    _holds_focus(page, "#add-player", "New player")
    _holds_focus(page, "[aria-label='Colour for Ben']", "Ben's colour")


def test_the_simulation_dialog_holds_the_focus(browser: Any, sim_base: str) -> None:  # noqa: F811
    _, session = call(f"{sim_base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
    with page_opener(browser, sim_base, KIOSK) as open_:
        page = open_()
        page.goto(f"{sim_base}/play/{session['id']}")
        page.wait_for_selector("body[data-ready='yes']")
        _holds_focus(page, "#sim-badge", "Simulation")


# ---- the focus ring ---------------------------------------------------------------------------------------------

#: Controls with a ring of their own for their state, and plain ones, as the pages draw them.
RINGED = ["btn", "btn primary", "btn wtile picked", "btn rowtarget best", "btn hr-join", "btn gate current",
          "btn colour current"]

#: What shows around a control: its outline and its shadow.
RING = """(el) => { const s = getComputedStyle(el);
    return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.outlineOffset, s.boxShadow].join(' | '); }"""


def test_keyboard_focus_shows_a_ring_on_every_control_and_a_tap_none(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    session = start_game(base, "draci-hrad", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    page.evaluate("""(classes) => { const box = document.createElement('div');
        box.className = 'panel'; box.id = 'ring-test';
        classes.forEach((cls, i) => { const b = document.createElement('button');
            b.type = 'button'; b.className = cls; b.id = `ring-${i}`; b.textContent = 'Tap';
            if (cls.includes('hr-join')) b.setAttribute('aria-pressed', 'true');
            box.append(b); });
        document.querySelector('main').prepend(box); }""", RINGED)
    for i, cls in enumerate(RINGED):
        control = page.locator(f"#ring-{i}")
        page.mouse.click(2, 470)  # nothing there to tap: then a tap on the control
        as_ever = control.evaluate(RING)
        control.click()
        assert control.evaluate("(el) => el === document.activeElement && !el.matches(':focus-visible')")
        assert control.evaluate(RING) == as_ever, f"{cls}: a tap changed how it looks"
        control.blur()
        page.keyboard.press("Shift")  # the keyboard in use: the next focus is the keyboard's
        control.focus()
        assert control.evaluate("(el) => el.matches(':focus-visible')")
        style, width, colour, offset = control.evaluate(
            "(el) => { const s = getComputedStyle(el); return [s.outlineStyle, parseFloat(s.outlineWidth),"
            " s.outlineColor, parseFloat(s.outlineOffset)]; }")
        assert style == "solid" and width >= 3 and offset >= 0, f"{cls}: no ring for the keyboard ({style} {width})"
        assert control.evaluate(RING) != as_ever, f"{cls}: keyboard focus looks as the control does unfocused"
        assert colour == "rgb(255, 255, 255)", f"{cls}: the ring is {colour}, not the clear white one"


# ---- names in their colours ---------------------------------------------------------------------------------

#: The contrast (WCAG) of an element's text on the background it is drawn on (the nearest of it and its ancestors
#: with one), each colour resolved from the computed style by the browser itself (any colour syntax), and the hues
#: (HSL degrees) of its text and of its player's colour (`--c`).
CONTRAST_AND_HUE = """(el) => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const rgb = (c) => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = '#000'; ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1);
                         return [...ctx.getImageData(0, 0, 1, 1).data].slice(0, 3); };
    const lum = (c) => c.map((v) => { v /= 255; return v <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4; })
        .reduce((sum, v, i) => sum + v * [.2126, .7152, .0722][i], 0);
    const hue = ([r, g, b]) => { const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
        if (!d) return null;
        const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
        return (h * 60 + 360) % 360; };
    const clear = (box) => /rgba\\(.*,\\s*0\\)|transparent/.test(getComputedStyle(box).backgroundColor);
    let box = el;
    while (box.parentElement && clear(box)) box = box.parentElement;
    const text = rgb(getComputedStyle(el).color), ground = rgb(getComputedStyle(box).backgroundColor);
    const [a, b] = [lum(text), lum(ground)];
    const own = getComputedStyle(el).getPropertyValue('--c').trim();
    return [(Math.max(a, b) + .05) / (Math.min(a, b) + .05), hue(text), own ? hue(rgb(own)) : null]; }"""


def _readable(locator: Any, where: str) -> None:
    """Every element of `locator` reads at 4.5:1 at least on its background, in its player's hue (within 10°)."""
    assert locator.count() > 0, where
    for i in range(locator.count()):
        el = locator.nth(i)
        ratio, text_hue, own_hue = el.evaluate(CONTRAST_AND_HUE)
        assert ratio >= 4.5, f"{where}: {el.inner_text()} reads at {ratio:.2f}:1"
        if text_hue is not None and own_hue is not None:
            apart = abs(text_hue - own_hue) % 360
            assert min(apart, 360 - apart) <= 10, f"{where}: {el.inner_text()} is no longer in its colour's hue"


def test_names_in_their_colours_read_on_the_dark_panels(open_page: Callable[..., Any], base: str) -> None:
    players = ["Ada", "Ben", "Cleo", "Dan", "Eve", "Finn"]  # by seat: orange, sky blue, green, yellow, blue, vermilion
    session = start_game(base, "drachensachen", players)
    post(base, session, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, *KIOSK)
    _readable(page.locator("#turn .who"), "the turn")
    _readable(page.locator("#ds-direction .who"), "the order of play")
    page.click("#ds-went-out-open")
    _readable(page.locator("#ds-went-out .ds-player .who"), "Who played their last card?")

    # Dračí hrad: the active hero's card, Ada in blue
    assert call(f"{base}/api/players/Ada", {"colour": "#4C8DFF"})[0] == 200
    hrad = start_game(base, "draci-hrad", ["Ada", "Ben"])
    page = open_game(open_page, base, hrad, *KIOSK)
    active = page.locator(".hr-hero.active")
    expect(active).to_have_count(1)
    _readable(active.locator(".who, .hr-badge.turn"), "the active hero's card")


# ---- names said as they are seen ------------------------------------------------------------------------------

def test_the_coins_buttons_say_whose_and_a_cell_is_named_as_seen(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "drachensachen", ["Ada", "Ben", "Cleo", "Dan"])
    post(base, session, {"type": "starter", "player": "Ada"})
    page = open_game(open_page, base, session, *KIOSK)
    cells = page.locator("#ds-cards .ds-cell")
    expect(cells).to_have_count(12)
    for i in range(cells.count()):
        cell = cells.nth(i)
        seen = cell.inner_text().split()
        name = cell.evaluate("(el) => el.getAttribute('aria-label') || el.textContent")
        at = 0
        for word in seen:  # the words it shows, in its name, in their order
            found = name.find(word, at)
            assert found >= 0, f"the cell showing {' '.join(seen)!r} is named {name!r}"
            at = found + len(word)
    expect(page.locator("#ds-cards [data-value='defender']")).to_have_accessible_name("Def. (Defender): 0 out")

    post(base, session, {"type": "went_out", "player": "Ada"})
    for player in ("Ben", "Cleo", "Dan"):
        coins = page.locator(f"[data-coins='{player}']")
        expect(coins).to_have_text("Coins…")
        expect(coins).to_have_accessible_name(f"Coins for {player}…")
    page.get_by_role("button", name="Coins for Cleo…").click()
    expect(page.locator(".keypad-panel .label")).to_contain_text("Cleo: coins on hand and reserve")


# ---- long names whole -----------------------------------------------------------------------------------------

#: The names in `sel` cut short (clipped by their box) on the screen.
CUT_NAMES = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility()
    && el.scrollWidth > el.clientWidth + 1)
    .map((el) => `${el.textContent}: ${el.scrollWidth} px in ${el.clientWidth}`)"""


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_a_long_name_is_whole_in_the_coins_rows(open_page: Callable[..., Any], base: str,
                                                size: tuple[int, int]) -> None:
    session = start_game(base, "drachensachen", ["Ada", LONG, "Cleo", "Dan"])
    post(base, session, {"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ada"})
    page = open_game(open_page, base, session, *size)
    name = page.locator(f".ds-coin-row[data-player='{LONG}'] .name")
    expect(name).to_have_text(LONG)
    assert page.evaluate(CUT_NAMES, ".ds-coin-row .name") == []
    assert page.evaluate(BROKEN_WORDS, ".ds-coin-row .name") == []
    fits(page, f"the coins rows at {size[0]}x{size[1]}")


def test_a_long_name_is_whole_beside_the_face_down_guesses(open_page: Callable[..., Any], base: str) -> None:
    session = start_game(base, "diego-drachenzahn", ["Ada", LONG, "Cleo", "Dan"], face_down=True)
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator(f"#guesses [data-player='{LONG}'] .name")).to_have_text(LONG)
    assert page.evaluate(BROKEN_WORDS, ".guess-row .name") == []
    assert page.evaluate(CUT_NAMES, ".guess-row .name") == []
    fits(page, "the face-down guesses at 800x480")


@pytest.mark.parametrize("size", [KIOSK, PHONE], ids=["kiosk", "phone"])
def test_four_marbles_reported_show_their_gates(browser: Any, make_app: Callable[..., Flask],
                                                size: tuple[int, int]) -> None:
    """The beams report a fourth marble (ruling D4), and the camera's photo of the round stands beside the chips."""
    app = make_app()
    errors: list[str] = []
    with serving(app) as base:
        session = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"])
        sensors = app.extensions["sensors"]
        for gate in (3, 5, 1, 6):
            sensors.castle.add_marble(gate)
            sensors.simulator.roll(gate, width_ms=15)
        wait_for(lambda: len((c := current_round(base, session))["marbles"]) == 4 and c["camera"] is not None)
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=True)
        try:
            page = context.new_page()
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(f"{base}/play/{session['id']}")
            page.wait_for_selector("body[data-ready='yes']")
            chips = page.locator("#slots .slot.filled")
            expect(chips).to_have_count(4)
            expect(page.locator("#photo-open")).to_be_visible(timeout=WAIT_MS)
            shown = page.evaluate("""() => [...document.querySelectorAll('#slots .slot.filled span')]
                .filter((el) => el.checkVisibility() && el.getBoundingClientRect().width > 1)
                .map((el) => [el.textContent, el.scrollWidth <= el.clientWidth])""")
            assert all(whole for _, whole in shown), f"a marble's gate cut short: {shown}"
            texts = [text for text, _ in shown]
            assert texts in (["3", "5", "1", "6"], ["Gate 3", "Gate 5", "Gate 1", "Gate 6"]), shown
            for i, gate in enumerate((3, 5, 1, 6)):  # and said whole
                expect(chips.nth(i)).to_contain_text(f"Gate {gate}")
            fits(page, f"four marbles reported at {size[0]}x{size[1]}")
        finally:
            context.close()
    assert errors == [], f"script errors on the page: {errors}"


# ---- the Diego flag -------------------------------------------------------------------------------------------

def _camera(app: Flask, session: dict[str, Any], counts: list[int], outside: int) -> None:
    app.extensions["table"].submit(session["id"], {"type": "camera", "counts": counts, "outside": outside},
                                   source="camera")


def test_camera_is_right_confirms_what_the_camera_line_shows(open_page: Callable[..., Any], base: str,
                                                             app: Flask) -> None:
    # the camera sees Gate 3, Gate 4 and 7 marbles outside: no round's worth, so nothing to call right
    many = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"])
    for gate in (3, 4):
        app.extensions["table"].submit(many["id"], {"type": "marble", "gate": gate}, source="sensor")
    _camera(app, many, [0, 0, 1, 1, 0, 0], 7)
    page = open_game(open_page, base, many, *KIOSK)
    flag = page.locator("#flag")
    expect(flag).to_contain_text("Camera: Gate 3, Gate 4, 7 missed")
    expect(flag.get_by_role("button", name="Clear, enter by tap")).to_be_visible()
    expect(flag.get_by_role("button", name="Camera is right")).to_have_count(0)

    # the camera sees Gate 3, Gate 4 and one outside, the beams Gate 3 alone: "Camera is right" confirms all three
    three = start_game(base, "diego-drachenzahn", ["Ada", "Ben", "Cleo"])
    app.extensions["table"].submit(three["id"], {"type": "marble", "gate": 3}, source="sensor")
    _camera(app, three, [0, 0, 1, 1, 0, 0], 1)
    page = open_game(open_page, base, three, *KIOSK)
    flag = page.locator("#flag")
    expect(flag).to_contain_text("Camera: Gate 3, Gate 4, 1 missed")
    flag.get_by_role("button", name="Camera is right").click()
    expect(flag).to_be_hidden(timeout=WAIT_MS)
    assert current_round(base, three)["marbles"] == [3, 4, None]


# ---- read across the table: sizes, edges, controls that cannot be used now --------------------------------------

#: The font size in px of each of `sel` a person can see, with its text and whether it is shown whole (not clipped).
FONT_SIZES = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility())
    .map((el) => [el.textContent.trim(), parseFloat(getComputedStyle(el).fontSize),
                  el.scrollWidth <= el.clientWidth])"""

#: The contrast (WCAG) of what an element paints, as the screen shows it: each colour composed over what lies under
#: it, through every background and every opacity from the page down to the element. `what` is "text" (its text on its
#: own background) or "edge" (its border, on the background around it, its parent's).
PAINTED_CONTRAST = """(el, what) => {
    const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const rgba = (c) => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = 'transparent'; ctx.fillStyle = c;
                          ctx.fillRect(0, 0, 1, 1); const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
                          return [r * a, g * a, b * a, a * 255].map((v) => v / 255 / 255); };  // premultiplied
    const over = (top, under) => top.map((v, i) => v + under[i] * (1 - top[3]));
    const chain = (to) => { const els = []; for (let e = to; e; e = e.parentElement) els.unshift(e); return els; };
    // the layer an element paints (its background, then the next one down the chain, or `top`), at its opacity
    const layer = (els, i, top) => { const style = getComputedStyle(els[i]);
        const own = rgba(style.backgroundColor);
        const inner = i + 1 < els.length ? layer(els, i + 1, top) : top ? rgba(top) : [0, 0, 0, 0];
        return over(inner, own).map((v) => v * parseFloat(style.opacity)); };
    const shown = (els, top) => over(layer(els, 0, top), [1, 1, 1, 1]).slice(0, 3).map((v) => v * 255);
    const lum = (c) => c.map((v) => { v /= 255; return v <= .03928 ? v / 12.92 : ((v + .055) / 1.055) ** 2.4; })
        .reduce((sum, v, i) => sum + v * [.2126, .7152, .0722][i], 0);
    const style = getComputedStyle(el);
    const [a, b] = what === 'edge'
        ? [lum(shown(chain(el), style.borderTopColor)), lum(shown(chain(el.parentElement)))]
        : [lum(shown(chain(el), style.color)), lum(shown(chain(el)))];
    return (Math.max(a, b) + .05) / (Math.min(a, b) + .05); }"""

#: The elements with words of their own (a text node with letters or digits) inside each of `sel` a person can see.
WORDED = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.checkVisibility())
    .flatMap((el) => [el, ...el.querySelectorAll('*')]).filter((el) => el.checkVisibility()
        && [...el.childNodes].some((n) => n.nodeType === 3 && /[\\p{L}\\p{N}]/u.test(n.data)))"""


def _small_or_cut(page: Any, sel: str, px: float, what: str) -> list[str]:
    """What of `sel` a person sees under `px` px or cut short (each once)."""
    sizes = page.evaluate(FONT_SIZES, sel)
    if not sizes:
        return [f"{what}: nothing shown"]
    small = sorted({f"{what}: {text!r} at {size} px" for text, size, _ in sizes if size < px})
    return small + sorted({f"{what}: {text!r} cut short" for text, _, whole in sizes if not whole})


@pytest.mark.parametrize("size", [KIOSK, (1024, 600), PHONE], ids=["kiosk", "1024x600", "phone"])
def test_game_text_read_across_the_table_is_13_px_at_least(open_page: Callable[..., Any], base: str,
                                                          size: tuple[int, int]) -> None:
    """Dračí hrad's gold and badges were 11 px at 800x480, Drachen Wurf's colour names on the tiles 10 px, the
    header's link labels 11 px: each 13 px at least and whole, and the screens still fit."""
    from tests.test_kiosk_fit_browser import BELOW_THE_FOLD, deep_in_the_game  # four heroes, each with a badge

    width, height = size
    where = f"at {width}x{height}"
    hrad = deep_in_the_game(base)
    page = open_game(open_page, base, hrad, width, height)
    expect(page.locator(".hr-hero .hr-badge")).to_have_count(4)
    faults = [*_small_or_cut(page, ".hr-gold, .hr-treasure, .hr-purse", 13, "Dračí hrad's purse"),
              *_small_or_cut(page, ".hr-badge", 13, "Dračí hrad's badge"),
              *_small_or_cut(page, "header.bar .nav-label", 13, "the header's link")]
    fits(page, f"Dračí hrad deep in a game {where}")
    if height <= 600:  # the Pi's screens: the four heroes' cards whole on it
        below = page.evaluate(BELOW_THE_FOLD, ".hr-hero")
        assert max(below) == 0, f"{where}: a hero's card {max(below)} px below the screen"

    # colour names as a table writes them: two long ones alike at the start, cut where they differ
    colours = ["Red", "Blue", "Zelená", "Yellow", "Černá", "Červená"]
    wurf = start_game(base, "drachen-wurf", ["Ada", "Ben"], colour_names=colours)
    page = open_game(open_page, base, wurf, width, height)
    expect(page.locator("#flip-grid .wtile")).to_have_count(36)
    faults += _small_or_cut(page, "#flip-grid .wtile .cn", 13, "a Drachen Wurf tile's colour")
    faces = page.locator("#flip-grid .wtile .cn").all_inner_texts()[::6]  # a tile of each colour
    assert len(set(faces)) == 6, f"two colours alike on the tiles: {faces}"
    fits(page, f"Drachen Wurf's flip {where}")

    page.goto(base + "/")
    faults += _small_or_cut(page, "header.bar .nav-label", 13, "the home page's header link")
    fits(page, f"the home page {where}")
    assert not faults, f"{where}: {faults}"
    assert faces == ["Red", "Blue", "Zel.", "Yel.", "Čern.", "Červ."], faces


def test_an_empty_marble_slot_and_a_button_show_their_edge_at_3_to_1(open_page: Callable[..., Any],
                                                                      base: str) -> None:
    """The edge of an empty marble slot and of a plain button was 1.44:1 on the panel: a control's boundary reads at 3:1
    against what lies around it."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session, *KIOSK)
    expect(page.locator("#slots .slot:not(.filled)")).to_have_count(3)
    hrad = start_game(base, "draci-hrad", ["Ada", "Ben"])
    other = open_game(open_page, base, hrad, *KIOSK)
    expect(other.locator(".hr-tab:not([aria-pressed='true'])")).to_have_count(3)
    faults = []
    for where, sel, what in ((page, "#slots .slot:not(.filled)", "an empty marble slot"),
                             (page, "#round .btn.gate, header.bar .btn", "a button"),
                             (other, ".hr-tab:not([aria-pressed='true'])", "Dračí hrad's tab")):
        edges = where.eval_on_selector_all(sel, "(els) => els.map((el) => [el.getAttribute('aria-label')"
                                                f" || el.innerText.trim(), ({PAINTED_CONTRAST})(el, 'edge')])")
        assert edges, f"no {what} to measure"
        faults += [f"{what} ({name!r}) at {ratio:.2f}:1" for name, ratio in edges if ratio < 3]
    assert not faults, f"edges under 3:1: {faults}"


def _legible_and_unavailable(page: Any, sel: str, where: str) -> int:
    """The words of every control of `sel` that cannot be used now read at 4.5:1 as the screen shows them (nothing
    faded), and the control looks unavailable all the same: a dashed edge. Returns how many words were measured."""
    worded = page.evaluate_handle(WORDED, sel)
    ratios = page.evaluate(f"(els) => els.map((el) => [el.textContent.trim(), ({PAINTED_CONTRAST})(el, 'text')])",
                           worded)
    faint = [(text, round(ratio, 2)) for text, ratio in ratios if ratio < 4.5]
    assert not faint, f"{where}: words of a control that cannot be used now under 4.5:1: {faint}"
    edges = page.eval_on_selector_all(sel, "(els) => els.map((el) => [el.getAttribute('aria-label') || el.innerText,"
                                           " getComputedStyle(el).borderTopStyle])")
    plain = [name for name, style in edges if style != "dashed"]
    assert not plain, f"{where}: controls that cannot be used now look as those in use: {plain}"
    return len(ratios)


def test_a_control_that_cannot_be_used_now_still_reads_at_4_5_to_1(open_page: Callable[..., Any], base: str,
                                                                    app: Flask) -> None:
    """A shop's price a hero cannot pay, and the label of a button that cannot be used now, were faded to 2.24:1:
    they read at 4.5:1 and still look unavailable (a dashed edge, no fill), beside the same controls in use."""
    from tests.test_drachen_wurf_browser import play_until

    hrad = start_game(base, "draci-hrad", ["Ada", "Ben"])
    post(base, hrad, *({"type": "buy", "player": "Ada", "item": item} for item in ("chain_mail", "sword")))  # 88 left
    page = open_game(open_page, base, hrad, *KIOSK)
    unpaid = page.locator("#hr-shop .hr-buy[aria-disabled='true'][data-reason*=' costs ']")
    expect(unpaid.first).to_be_visible()
    expect(unpaid.first.locator(".hr-price")).to_contain_text("gold")
    expect(page.locator("#redo")).to_have_attribute("aria-disabled", "true")
    shown = _legible_and_unavailable(page, "[aria-disabled='true']", "Dračí hrad's city at 800x480")
    assert shown >= 2 * unpaid.count() + 1, "the shop's names and prices, and Redo, were not all measured"
    bought = page.locator("#hr-shop .hr-buy:not([aria-disabled='true'])").first
    unpaid_look, bought_look = (control.evaluate(
        "(el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderTopStyle]")
        for control in (unpaid.first, bought))
    assert unpaid_look != bought_look, "an item one cannot pay looks as one to buy"

    # Drachen Wurf: all six dice used, the tiles left in the middle are no longer to be won
    wurf = start_game(base, "drachen-wurf", ["Ada", "Ben"])
    play_until(app, wurf, lambda s: s["phase"] == "dice" and s["max_k"] < 2 and len(s["middle"]) > 0, seed=3)
    page = open_game(open_page, base, wurf, *KIOSK)
    tiles = page.locator("#middle .wtile[aria-disabled='true']")
    expect(tiles.first).to_be_visible()
    _legible_and_unavailable(page, "#middle .wtile[aria-disabled='true']", "Drachen Wurf's middle at 800x480")

"""The Camera page and the Diego sensor panel in headless Chromium: counts said to be unsure without an empty
reference, a gate that reaches the picture's edge named, a picture out of focus or moved said so, the marble
measured by a tap on the picture, photo keeping switched on with its count and folder, the disk the kept photos
take, the camera's record on the kept rounds and their zip download; the live picture stays up across the first save
of the gate regions."""
from __future__ import annotations

import re
import time
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np
import pytest
from flask import Flask
from playwright.sync_api import expect

from hardware.camera.keeping import Sample
from hardware.camera.simulated import SimulatedCastle
from tests.browser import (
    KIOSK,
    PHONE,
    WAIT_MS,
    fits,
    in_view,
    open_game,
    page_opener,
    post_events,
    shoot,
    start_game,
    without_reference,
)
from tests.servers import call, serving
from tests.waiting import wait_for
from web.app import create_app, shutdown


@pytest.fixture
def base(camera_app: Flask) -> Iterator[str]:
    with serving(camera_app) as url:
        yield url


def test_the_camera_page_says_counts_are_unsure_until_a_reference_is_taken(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    without_reference(camera_app)
    page = open_page()
    page.goto(f"{base}/camera")
    expect(page.locator("#unsure")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#unsure")).to_contain_text("counts are unsure")
    expect(page.locator("#unsure")).to_contain_text("any object resting on the table")
    expect(page.locator("#seen .seen-unsure")).to_have_text("Unsure of every gate: beams decide",
                                                            timeout=WAIT_MS)  # with beams; the camera alone: a tap
    expect(page.locator("#next-step")).to_have_text(
        "Next: with every gate empty, press Gates empty: take reference.")  # what to do, above the picture
    expect(page.locator("#facts")).to_contain_text("No empty reference yet")
    page.click("#reference")  # the round holds marbles (as set here): the page asks first, and a person answers
    dialog = page.locator(".dialog")
    expect(dialog).to_contain_text("The running round holds marbles", timeout=WAIT_MS)
    expect(page.locator("#unsure")).to_be_visible()  # not taken yet
    dialog.locator("[data-answer=yes]").click()
    expect(page.locator("#unsure")).to_be_hidden(timeout=WAIT_MS)
    expect(page.locator("#seen .seen-unsure")).to_have_count(0, timeout=WAIT_MS)  # the empty castle, read sure
    expect(page.locator("#seen")).not_to_contain_text(re.compile("unsure", re.I))
    # taken while the round holds marbles: ready, with that doubt until the round is over
    expect(page.locator("#next-step")).to_contain_text("Ready, with a doubt: the empty reference was taken while the "
                                                       "round held marbles.")
    expect(page.locator("#facts")).to_contain_text("Empty reference taken a moment ago")


def test_the_set_up_is_beside_the_picture_at_800x480(open_page: Callable[..., Any], base: str) -> None:
    """At 800x480 the picture took the whole first screen, and the set-up began 700 px down: now what to do next,
    the state and the first set-up buttons are on the first screen, beside the picture."""
    page = open_page(*KIOSK)
    page.goto(f"{base}/camera")
    expect(page.locator("#next-step")).not_to_be_empty(timeout=WAIT_MS)
    expect(page.locator("#facts li").first).to_be_visible(timeout=WAIT_MS)
    shoot(page, "camera-800x480")
    for control in ("#next-step", "#facts", "#calibrate"):
        in_view(page, control)
    fits(page, "the Camera page at 800x480")


#: The text of each line `el` shows as laid out, in order (a line is a run of characters at one height).
LINES = """(el) => {
    const lines = [];
    const range = document.createRange();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let top = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.length; i++) {
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const box = range.getBoundingClientRect();
            if (!box.width && !box.height) continue;  // collapsed white space
            if (top === null || box.top > top + box.height / 2) { lines.push(""); top = box.top; }
            lines[lines.length - 1] += node.data[i];
        }
    }
    return lines.map((line) => line.replace(/\\s+/g, " ").trim()).filter(Boolean);
}"""


def _unsure_of_gates_2_and_3(app: Flask, base: str) -> dict[str, Any]:
    """A marble resting in gate 3 on the line between gates 2 and 3, as gates drawn a little off leave it: the camera
    counts it in gate 2 and is unsure of both (ruling D4). Returns the camera's reading."""
    sensors = app.extensions["sensors"]
    sensors.castle.add_marble(3)
    x = sensors.castle.resting()[-1].x + 2
    regions = sensors.camera.current_regions().to_json()
    gate2, gate3 = regions["gates"][1]["polygon"], regions["gates"][2]["polygon"]
    regions["gates"][1]["polygon"] = [gate2[0], [x, gate2[1][1]], [x, gate2[2][1]], gate2[3]]
    regions["gates"][2]["polygon"] = [[x, gate3[0][1]], gate3[1], gate3[2], [x, gate3[3][1]]]
    assert call(f"{base}/api/camera/regions", regions)[0] == 200
    return wait_for(lambda: (d := call(f"{base}/api/camera")[1]["last_detection"])
                    and d["unsure"] == [False, True, True, False, False, False] and d)


@pytest.mark.parametrize("size", [(360, 740), PHONE, KIOSK], ids=["phone-360", "phone-390", "kiosk"])
def test_the_camera_pages_reading_keeps_its_counts_and_its_doubt_on_their_own_lines(
        open_page: Callable[..., Any], base: str, camera_app: Flask, size: tuple[int, int]) -> None:
    """On a phone the reading's line is too long for one line: it wraps between whole counts, the six gates' counts
    together after "Seen:", never in the middle of a count nor after a separator, and the gates the camera is unsure
    of (the beams decide those: ruling D4) start a line of their own; nothing reaches past the screen's edge."""
    reading = _unsure_of_gates_2_and_3(camera_app, base)
    page = open_page(*size)
    page.goto(f"{base}/camera")
    seen = page.locator("#seen")
    expect(seen).to_contain_text("Unsure of gates 2, 3: beams decide", timeout=WAIT_MS)
    counts = " ".join(f"{gate}:{n}" for gate, n in enumerate(reading["counts"], start=1))
    expect(seen).to_contain_text(f"Seen: {counts} outside {reading['outside']}")
    lines = seen.evaluate(LINES)
    assert lines[0] in (f"Seen: {counts}", f"Seen: {counts} outside {reading['outside']}"), lines
    outside = f"outside {reading['outside']}"
    assert lines[0].endswith(outside) or lines[1] == outside, lines  # whole, after the counts or on the next line
    assert lines[-1] == "Unsure of gates 2, 3: beams decide", lines  # on a line of its own
    assert not any(line.endswith(("·", ":")) for line in lines), lines
    assert seen.locator(".seen-count.unsure").all_inner_texts() == [f"{g}:{reading['counts'][g - 1]}" for g in (2, 3)]
    right = page.evaluate("Math.max(...[...document.querySelectorAll('#seen, #seen *')]"
                          ".map((el) => el.getBoundingClientRect().right))")
    assert right <= size[0], f"the reading reaches {right} px on a screen {size[0]} px wide"
    fits(page, f"the Camera page at {size[0]}x{size[1]}")
    shoot(page, f"camera-reading-{size[0]}x{size[1]}")


def test_the_diego_sensor_panel_says_counts_are_unsure_without_a_reference(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    without_reference(camera_app)
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    page = open_game(open_page, base, session)
    expect(page.locator("#camera-state")).to_contain_text("counts unsure", timeout=WAIT_MS)
    assert call(f"{base}/api/camera/reference", {"anyway": True})[0] == 200
    expect(page.locator("#camera-unsure")).to_have_count(0, timeout=WAIT_MS)
    expect(page.locator("#camera-state")).to_contain_text("Camera: watching")


def test_the_camera_page_names_a_gate_that_reaches_the_pictures_edge(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    regions = camera_app.extensions["sensors"].camera.current_regions().to_json()
    page = open_page()
    page.goto(f"{base}/camera")
    expect(page.locator("#facts")).to_contain_text("Gates calibrated", timeout=WAIT_MS)
    expect(page.locator("#facts")).not_to_contain_text("edge of the picture")
    x0 = min(x for x, _ in regions["gates"][0]["polygon"])
    regions["gates"][0]["polygon"] = [[x - x0 + 2, y] for x, y in regions["gates"][0]["polygon"]]  # 2 px from it
    assert call(f"{base}/api/camera/regions", regions)[0] == 200
    page.reload()
    expect(page.locator("#facts li.warn")).to_contain_text("Gate 1 reaches the edge of the picture", timeout=WAIT_MS)


def test_the_camera_page_says_when_the_picture_is_out_of_focus_or_moved(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    hub = camera_app.extensions["sensors"].camera
    radius = hub.marble_radius
    page = open_page()
    for blur in (0.5, 0.2 * radius):  # as the markers' edges measure it (the simulated castle shows no markers)
        hub._marker_check = {"ok": True, "all_found": True, "found": [0, 1, 2, 3], "missing": [], "error_px": 0.4,
                             "blur_px": blur, "message": "all four markers found; they lie as they did when anchored, "
                                                         "to within 0.4 px"}
        page.goto(f"{base}/camera")
        expect(page.locator("#facts")).to_contain_text("all four markers found", timeout=WAIT_MS)
        if blur < 1:
            expect(page.locator("#facts")).to_contain_text("In focus: the markers' edges blurred by 0.5 px")
            expect(page.locator("#facts")).not_to_contain_text("out of focus")
        else:
            expect(page.locator("#facts li.warn")).to_contain_text(
                f"The picture is out of focus: the markers' edges are blurred by {blur:.1f} px against a marble "
                f"radius of {radius:.1f} px")
            expect(page.locator("#facts")).not_to_contain_text("In focus")
    hub._moved_note = "The camera moved by +7, -4 px (right, down) at 21:05: the gates were moved with it"
    page.goto(f"{base}/camera")  # a camera nudged without markers: said as plainly
    expect(page.locator("#facts li.warn").last).to_contain_text("The camera moved by +7, -4 px", timeout=WAIT_MS)


def test_a_tap_on_a_marble_in_the_picture_measures_it(open_page: Callable[..., Any], base: str,
                                                       camera_app: Flask) -> None:
    sensors = camera_app.extensions["sensors"]
    sensors.castle.add_marble(3)
    empty = sensors.camera.reference.get().astype(int)
    wait_for(lambda: np.abs(sensors.camera.service.latest().astype(int) - empty).max() > 100)
    marble = sensors.castle.resting()[0]
    page = open_page()
    page.goto(f"{base}/camera")
    known = f"Radius {sensors.castle.marble_size().radius_px:.1f} px, as the simulated castle draws them"
    expect(page.locator("#marble-size")).to_contain_text(known, timeout=WAIT_MS)
    expect(page.locator("#facts")).not_to_contain_text("not measured")
    page.click("#measure")
    canvas = page.locator("#calib")
    expect(canvas).to_be_visible(timeout=WAIT_MS)
    box = canvas.bounding_box()
    scale = box["width"] / 640
    canvas.click(position={"x": 600 * scale, "y": 60 * scale})  # the sky above the castle: no marble
    expect(page.locator("#toast")).to_contain_text("No marble found where the picture was tapped: tap the middle of "
                                                    "one marble resting in a gate", timeout=WAIT_MS)
    expect(canvas).to_be_visible()  # still waiting for a tap on a marble
    canvas.click(position={"x": marble.x * scale, "y": marble.y * scale})
    expect(page.locator("#marble-size")).to_contain_text("measured by a tap", timeout=WAIT_MS)
    expect(canvas).to_be_hidden()
    assert sensors.camera.marble_radius == pytest.approx(marble.r, abs=1.5)


def test_the_camera_page_says_what_photo_keeping_keeps_and_that_it_is_off_by_default(
        open_page: Callable[..., Any], base: str) -> None:
    page = open_page(800, 480)
    page.goto(f"{base}/camera")
    what = page.locator("#keeping-what")
    expect(page.locator("#keeping")).to_have_attribute("aria-pressed", "false", timeout=WAIT_MS)
    for words in ("Off unless the table switches it on", "the camera's photo of the round",
                  "its photo of the empty gates", "the counts confirmed", "nothing is sent by itself"):
        expect(what).to_contain_text(words)
    what.scroll_into_view_if_needed()
    expect(what).to_be_in_viewport()
    shoot(page, "camera-keeping-800x480")


def test_photo_keeping_is_switched_on_on_the_camera_page(open_page: Callable[..., Any], base: str,
                                                         camera_app: Flask) -> None:
    page = open_page()
    page.goto(f"{base}/camera")
    toggle = page.locator("#keeping")
    expect(toggle).to_have_attribute("aria-pressed", "false", timeout=WAIT_MS)
    expect(page.locator("#keeping-state")).to_contain_text("0 of at most 500 kept in")
    expect(page.locator("#keeping-state")).to_contain_text("photos (none are added while off)")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true", timeout=WAIT_MS)
    expect(toggle).to_contain_text("on")
    keeper = camera_app.extensions["sensors"].keeper
    assert keeper.enabled is True
    # three confirmed rounds kept, the camera right in one, wrong and sure of itself in one (ruling D4): the owner
    # sees how it does on this castle and light
    frame = np.full((48, 64, 3), 90, np.uint8)
    for number, camera, flags in ((1, (1, 0, 0, 0, 0, 0), (False,) * 6), (2, (0, 0, 0, 0, 0, 0), (False,) * 6),
                                  (3, (0, 1, 0, 0, 0, 0), (True, True, False, False, False, False))):
        assert keeper.keep(Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                                  camera_counts=camera, marble_radius=None, session=1, round=number,
                                  confirmed_at=time.time() + number, camera_unsure=flags))
        if number == 1:  # one round kept, read right: nothing read wrong to say of
            assert keeper.flush()
            page.reload()
            expect(page.locator("#keeping-state")).to_contain_text(
                "The camera read all six gates right in 1 of 1 kept round (100%).", timeout=WAIT_MS)
            expect(page.locator("#keeping-state")).not_to_contain_text("read wrong")
    assert keeper.flush()
    page.reload()
    expect(page.locator("#keeping-state")).to_contain_text("3 of at most 500 kept in", timeout=WAIT_MS)
    expect(page.locator("#keeping-state")).to_contain_text(
        "The camera read all six gates right in 1 of 3 kept rounds (33%). The camera was sure of a wrong count in 1 of "
        "them; the table asked for a tap there because the beams disagreed, or a person corrected it.")
    # and sends them on: one zip of both rounds' folders
    link = page.locator("#photos-download")
    expect(link).to_have_text("Download the 3 kept rounds (zip)")
    with page.expect_download() as download:
        link.click()
    with zipfile.ZipFile(download.value.path()) as archive:
        names = archive.namelist()
    assert len(names) == 9 and sum(name.endswith("/label.json") for name in names) == 3


def _kept_round(keeper: Any, number: int) -> None:
    frame = np.random.default_rng(number).integers(0, 256, (48, 64, 3), dtype=np.uint8)  # not compressible
    assert keeper.keep(Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                              camera_counts=(1, 0, 0, 0, 0, 0), marble_radius=None, session=1, round=number,
                              confirmed_at=time.time() + number))
    assert keeper.flush()



def _camera_page_after_two_kept_rounds(open_page: Callable[..., Any], base: str, camera_app: Flask) -> tuple[Any, Any]:
    """Photo keeping switched on, two rounds kept, and the Camera page opened at 800x480: (page, keeper)."""
    keeper = camera_app.extensions["sensors"].keeper
    keeper.set_enabled(True)
    for number in (1, 2):
        _kept_round(keeper, number)
    page = open_page(800, 480)
    page.goto(f"{base}/camera")
    return page, keeper


def test_the_disk_the_kept_photos_take_is_shown_by_the_switch_at_800x480(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    page, keeper = _camera_page_after_two_kept_rounds(open_page, base, camera_app)
    size = page.locator("#keeping-size")
    expect(size).to_have_text(f"2 rounds kept, {round(keeper.status()['bytes'] / 1e3)} kB", timeout=WAIT_MS)
    page.locator("#keeping").scroll_into_view_if_needed()
    expect(size).to_be_in_viewport()
    switch, said = page.locator("#keeping").bounding_box(), size.bounding_box()
    assert switch is not None and said is not None and 0 <= said["y"] - (switch["y"] + switch["height"]) < 20
    shoot(page, "camera-keeping-size-800x480")
    _kept_round(keeper, 3)  # a round kept while the page is open: the figure follows
    expect(size).to_have_text(f"3 rounds kept, {round(keeper.status()['bytes'] / 1e3)} kB", timeout=WAIT_MS)


def test_the_kept_photos_are_deleted_by_tap_after_a_question(open_page: Callable[..., Any], base: str,
                                                             camera_app: Flask) -> None:
    page, keeper = _camera_page_after_two_kept_rounds(open_page, base, camera_app)
    delete = page.locator("#photos-delete")
    expect(delete).to_be_visible(timeout=WAIT_MS)
    delete.click()
    expect(page.locator(".overlay[role=dialog]")).to_contain_text("Delete the photos of the 2 kept rounds?")
    expect(page.locator(".overlay[role=dialog]")).to_contain_text("Keeping stays on")
    shoot(page, "camera-delete-question-800x480")
    page.click("[data-answer='no']")
    expect(page.locator(".overlay[role=dialog]")).to_have_count(0)
    assert keeper.status()["count"] == 2  # kept: the answer was no
    delete.click()
    page.click("[data-answer='yes']")
    expect(page.locator("#keeping-state")).to_contain_text("0 of at most 500 kept in", timeout=WAIT_MS)
    expect(delete).to_be_hidden()
    expect(page.locator("#keeping-size")).to_have_text("No rounds kept")
    expect(page.locator("#photos-download")).to_be_hidden()
    assert keeper.status()["count"] == 0 and not any(keeper.folder.iterdir())


def test_a_camera_ready_but_in_doubt_does_not_say_ready_alone(open_page: Callable[..., Any], base: str) -> None:
    """The note above the picture said why the camera doubts (a reference holding a marble gone now) while the line
    under it said "Ready": that line points to the note."""
    page = open_page()

    def doubting(route: Any) -> None:
        status = route.fetch().json()
        status["unsure"] = "The empty reference holds a marble in gate 3, gone now: gate 3 is left to the beams."
        route.fulfill(json=status)

    page.route("**/api/camera", doubting)
    page.goto(f"{base}/camera")
    expect(page.locator("#next-step")).to_have_text("Ready, with a doubt: see the note above.", timeout=WAIT_MS)
    expect(page.locator("#unsure")).to_contain_text("gate 3 is left to the beams")


def test_the_camera_page_doubts_a_reference_taken_while_the_round_held_marbles(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    """Taken "anyway" while the round's marbles were still in the gates, the reference holds them: the page said
    "Ready" and saw none until the round was over and they were out."""
    session = start_game(base, "diego-drachenzahn", ["Ada", "Ben"])
    post_events(base, session, {"type": "marble", "gate": 2})
    assert call(f"{base}/api/camera/reference", {"anyway": True})[0] == 200
    page = open_page()
    page.goto(f"{base}/camera")
    expect(page.locator("#next-step")).to_have_text(
        "Ready, with a doubt: the empty reference was taken while the round held marbles. Any still in a gate the "
        "camera cannot see: take it again once the gates are empty.", timeout=WAIT_MS)


def test_the_frozen_picture_is_whole_on_the_kiosk_screen_under_a_note(
        open_page: Callable[..., Any], base: str, camera_app: Flask) -> None:
    """At 800x480 a note above the page (here: no empty reference yet) pushed the frozen picture's lowest quarter
    below the screen while one marble was to be tapped: a marble at the castle's front could not be tapped."""
    without_reference(camera_app)
    page = open_page(*KIOSK)
    page.goto(f"{base}/camera")
    expect(page.locator("#unsure")).to_be_visible(timeout=WAIT_MS)
    page.click("#measure")
    page.wait_for_selector("#calib:not([hidden])", timeout=WAIT_MS)
    page.wait_for_function("() => document.getElementById('calib').getBoundingClientRect().bottom <= innerHeight")
    for selector in ("#calib", "#measure-cancel"):
        in_view(page, selector)
    header, top = page.evaluate("[document.querySelector('header.bar').getBoundingClientRect().bottom,"
                                " document.getElementById('calib').getBoundingClientRect().top]")
    assert header <= top, f"the picture's top ({top} px) under the header ({header} px)"
    page.click("#measure-cancel")
    expect(page.locator("#unsure")).to_be_visible()  # the note back once the tapping ends


@pytest.fixture
def uncalibrated_castle(app_config: dict[str, Any], tmp_path: Path) -> Iterator[tuple[str, SimulatedCastle]]:
    """The drawn castle as a `file:` camera's picture on a fresh data folder: no gate region is tapped yet (the
    simulated camera brings its own), as on a real camera's first set-up. Its vision reads slowly, as a loaded Pi's
    may: no reading of the gates comes while a test looks at the page. The page's address and the castle."""
    castle = SimulatedCastle()
    path = tmp_path / "photos" / "castle.png"
    path.parent.mkdir(parents=True)
    assert cv2.imwrite(str(path), castle.render_empty())
    application = create_app({**app_config, "SENSORS": "simulation", "CAMERA": f"file:{path}"})
    try:
        hub = application.extensions["sensors"].camera
        hub._interval = 3600.0  # from its next reading on (the one under way reads no gates: none are tapped)
        wait_for(lambda: hub.service.status()["ok"] and hub.preview_jpeg() is not None)
        with serving(application) as url:
            yield url, castle
    finally:
        shutdown(application)


#: Records, from now on, every time the live picture is not shown and "Waiting for the camera…" (or another line
#: instead of the picture) is, and every new picture the preview shows; read back as window.afterSave.
WATCH_THE_PICTURE = """() => {
    const box = document.getElementById('preview-box'), preview = document.getElementById('preview');
    const line = document.getElementById('no-picture'), calib = document.getElementById('calib');
    const seen = window.afterSave = { waiting: [], pictures: [] };
    let shown = preview.getAttribute('src');
    new MutationObserver(() => {
        if (!calib.hidden) return;  // the frozen picture to tap on is up
        if (!line.hidden || preview.hidden) seen.waiting.push(line.hidden ? '(no picture, no line)' : line.textContent);
        const now = preview.getAttribute('src');
        if (!preview.hidden && now !== shown) seen.pictures.push(shown = now);
    }).observe(box, { attributes: true, childList: true, characterData: true, subtree: true });
}"""


def test_the_live_picture_stays_up_across_the_first_save_of_the_gate_regions(
        browser: Any, uncalibrated_castle: tuple[str, SimulatedCastle]) -> None:
    """Right after the first "Save regions" the live picture gave way to "Waiting for the camera…" until the vision had
    read the new gates (a third of a second, on the Pi): the preview answered "no picture" meanwhile. The picture
    stays up: the plain one until the gates are read."""
    base, castle = uncalibrated_castle
    with page_opener(browser, base) as open_:
        page = open_()
        page.goto(f"{base}/camera")
        expect(page.locator("#preview")).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#facts")).to_contain_text("Gates not calibrated")
        page.click("#calibrate")
        canvas = page.locator("#calib")
        expect(canvas).to_be_visible()
        box = canvas.bounding_box()
        assert box is not None
        scale = box["width"] / 640
        for gate in castle.regions().to_json()["gates"]:  # the castle's own corners, tapped
            page.click(f"#calib-gates [data-gate='{gate['gate']}']")
            for x, y in gate["polygon"]:
                canvas.click(position={"x": x * scale, "y": y * scale})
        expect(page.locator("#calib-save")).to_be_enabled()
        page.evaluate(WATCH_THE_PICTURE)
        with page.expect_response("**/api/camera/regions") as saved:
            page.click("#calib-save")
        assert saved.value.status == 200
        # the first picture after the save, or the line instead of it: whichever comes first
        page.wait_for_function("() => window.afterSave.pictures.length || window.afterSave.waiting.length")
        after = page.evaluate("window.afterSave")
        assert after["waiting"] == [], f"after the save the page showed {after['waiting']} instead of the picture"
        expect(page.locator("#preview")).to_be_visible()
        expect(page.locator("#no-picture")).to_be_hidden()
        assert page.evaluate("(() => { const p = document.getElementById('preview'); "
                             "return p.complete && p.naturalWidth; })()") == 640
        expect(page.locator("#facts")).to_contain_text("Gates calibrated")
        assert page.evaluate("window.afterSave.waiting") == []  # nor since, while the gates wait to be read

"""The camera wired into the table: confirmation frames (rulings D3, D4), camera alone, calibration API."""
from __future__ import annotations

import re
import threading
import time
from typing import Any, Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.waiting import PATIENCE_S, wait_for


def _start(client: FlaskClient) -> dict[str, Any]:
    return client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()


def _current(client: FlaskClient, session: dict[str, Any]) -> dict[str, Any]:
    return client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]


def test_the_camera_confirms_what_the_beams_saw(make_app: Callable[..., Flask]) -> None:  # ruling D3
    # The photo follows a marble after the settle time, sooner (0.6 s) after the third. With the fixture's
    # 0.3 s a stalled request could let a photo of the first one or two marbles in between the rolls; a settle
    # time far beyond the 0.2 s between them leaves only the photo after the third marble.
    app = make_app(CAMERA_SETTLE_S=10.0)
    client = app.test_client()
    session = _start(client)
    for gate in (2, 2, 5):
        client.post("/api/simulation/marble", json={"gate": gate, "width_ms": 15})
        time.sleep(0.2)
    current = wait_for(lambda: (c := _current(client, session))["camera"] and c)
    assert current["camera"]["counts"] == [0, 2, 0, 0, 1, 0]
    assert current["confirmed"] and current["flag"] is None
    photo = client.get(f"/camera/confirmation/{session['id']}.jpg")
    assert photo.status_code == 200 and photo.data[:2] == b"\xff\xd8"
    events = client.get(f"/api/sessions/{session['id']}/events").get_json()["events"]
    assert [e["source"] for e in events][-1] == "camera"


def test_a_disagreeing_photo_flags_the_round_until_a_tap(make_app: Callable[..., Flask]) -> None:  # ruling D4
    app = make_app()
    client = app.test_client()
    session = _start(client)
    sensors = app.extensions["sensors"]
    # The marble that the beam of gate 3 sees bounces on and rests in gate 4. It is put in the castle first:
    # the photo is taken 0.3 s after the beam's marble, and this thread may be stalled longer than that.
    sensors.castle.add_marble(4)             # ... rests in gate 4
    sensors.simulator.roll(3, width_ms=15)  # the beam of gate 3 saw it pass ...
    current = wait_for(lambda: (c := _current(client, session))["flag"] and c)
    assert current["marbles"] == [3] and current["camera"]["counts"] == [0, 0, 0, 1, 0, 0]
    client.post(f"/api/sessions/{session['id']}/events", json={"type": "guess", "player": "Ben", "gate": 4})
    refused = client.post(f"/api/sessions/{session['id']}/events", json={"type": "reveal", "gate": 4})
    assert refused.status_code == 422 and refused.get_json()["rule"] == "D4"
    client.post(f"/api/sessions/{session['id']}/events", json={"type": "confirm", "marbles": [4]})
    scored = client.post(f"/api/sessions/{session['id']}/events", json={"type": "reveal", "gate": 4}).get_json()
    assert scored["scores"] == {"Ada": 1, "Ben": 1}


def test_without_beams_the_camera_alone_fills_the_round(make_app: Callable[..., Flask]) -> None:  # ruling D3
    app = make_app(BEAMS=False)
    client = app.test_client()
    session = _start(client)
    assert client.get("/api/health").get_json()["sensors"]["camera"]["camera_only"] is True
    castle = app.extensions["sensors"].castle
    castle.add_marble(1)
    wait_for(lambda: _current(client, session)["marbles"] == [1])
    castle.add_marble(6)
    castle.add_marble(None)
    current = wait_for(lambda: (c := _current(client, session))["marbles"] == [1, 6, None] and c)
    assert current["sources"] == ["camera"] * 3 and current["flag"] is None


def test_marbles_go_back_when_a_new_round_starts(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client = app.test_client()
    session = _start(client)
    client.post("/api/simulation/marble", json={"gate": 2})
    # the request gives up flushing the beams after 1 s: wait until the marble is in the round
    wait_for(lambda: _current(client, session)["marbles"] == [2])
    client.post(f"/api/sessions/{session['id']}/events", json={"type": "guess", "player": "Ben", "gate": 2})
    client.post(f"/api/sessions/{session['id']}/events", json={"type": "reveal", "gate": 2})
    assert app.extensions["sensors"].castle.marbles() == []


def test_a_missing_camera_never_stops_the_companion(make_app: Callable[..., Flask]) -> None:
    app = make_app(CAMERA="usb:/dev/video-that-is-not-there")
    client = app.test_client()
    camera = wait_for(lambda: (c := client.get("/api/health").get_json()["sensors"]["camera"])["camera"]["error"] and c)
    assert camera["ok"] is False and camera["camera"]["state"] in ("retrying", "starting")
    session = _start(client)
    client.post("/api/simulation/marble", json={"gate": 5})
    wait_for(lambda: _current(client, session)["marbles"] == [5])  # the beams go on
    assert client.get("/camera").status_code == 200
    assert client.get("/camera/preview.jpg").status_code == 503


def test_a_camera_that_hangs_is_reported_and_its_old_picture_is_never_the_reference(
        make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch) -> None:
    """A camera whose read never returns (a loose cable): health and the pages say so, the taps and beams go on,
    and the empty reference is not taken from its last picture, which may be long out of date."""
    from hardware.camera import service as camera_service
    from hardware.camera.simulated import SimulatedCameraSource

    monkeypatch.setattr(camera_service, "STALL_S", 0.5)  # at 5 fps: no frame for 1 s
    hang, inside, release = threading.Event(), threading.Event(), threading.Event()
    real_read = SimulatedCameraSource.read

    def read(self: SimulatedCameraSource) -> Any:
        if hang.is_set():
            inside.set()
            release.wait(PATIENCE_S)
        return real_read(self)

    monkeypatch.setattr(SimulatedCameraSource, "read", read)
    app = make_app()
    client = app.test_client()
    reference = app.extensions["sensors"].camera.reference
    before = reference.status()["captured_at"]
    session = _start(client)
    hang.set()
    try:
        wait_for(inside.is_set)
        health = wait_for(lambda: (h := client.get("/api/health").get_json())["parts"]["camera"]["state"] == "failing"
                          and h)
        assert "hangs" in health["parts"]["camera"]["error"] and "camera" in health["failing"]
        refused = client.post("/api/camera/reference", json={})
        assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "no_picture"
        assert "hangs" in refused.get_json()["error"]["message"]
        assert reference.status()["captured_at"] == before  # nothing changed
        tapped = client.post(f"/api/sessions/{session['id']}/events", json={"type": "marble", "gate": 4})
        assert tapped.status_code == 200
        client.post("/api/simulation/marble", json={"gate": 5})
        wait_for(lambda: _current(client, session)["marbles"] == [4, 5])  # the beams go on
    finally:
        hang.clear()
        release.set()
    wait_for(lambda: client.get("/api/health").get_json()["parts"]["camera"]["state"] == "ok")
    refused = client.post("/api/camera/reference", json={})  # the round holds the marbles 4 and 5
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "not_empty"
    assert client.post("/api/camera/reference", json={"anyway": True}).status_code == 200


def test_the_empty_reference_is_refused_with_marbles_in_the_gates_unless_a_person_says_they_are_empty(
        make_app: Callable[..., Flask]) -> None:
    """Taken with marbles in the gates, the reference would hide them from the readings, and once they are taken
    out, show marbles where there are none (ruling D4). Refused, with the reason and nothing changed, while the
    camera sees a marble in a gate or the running round holds marbles; taken when the person says the gates are
    empty ("anyway": the camera's old reference is what is wrong)."""
    app = make_app(BEAMS=False)
    client = app.test_client()
    sensors = app.extensions["sensors"]
    wait_for(lambda: sensors.camera.service.latest() is not None)
    assert client.post("/api/camera/reference", json={}).status_code == 200  # the castle is empty
    for bad in ({"anyway": "yes"}, {"anyway": True, "other": 1}):
        assert client.post("/api/camera/reference", json=bad).status_code == 400
    sensors.castle.add_marble(3)  # a marble comes to rest: the camera sees it before the round records it
    wait_for(lambda: (client.get("/api/camera").get_json()["last_detection"] or {}).get("counts", [0] * 6)[2] == 1)
    before = sensors.camera.reference.get()
    refused = client.post("/api/camera/reference", json={})
    assert refused.status_code == 409 and refused.get_json()["error"] == {
        "code": "not_empty", "message": "The camera sees 1 marble in the gates: take it out of the castle first "
        "(or, if the gates are empty and the camera is wrong, take it anyway)."}
    session = _start(client)
    wait_for(lambda: _current(client, session)["marbles"] == [3])  # the camera alone records it
    refused = client.post("/api/camera/reference", json={})
    assert refused.status_code == 409 and refused.get_json()["error"]["message"].startswith(
        "The running round holds marbles, and the camera sees 1 in the gates now: take the empty reference between "
        "rounds")  # what the camera sees too: the question a person answers with "take it anyway"
    assert sensors.camera.reference.get() is before  # nothing changed
    taken = client.post("/api/camera/reference", json={"anyway": True})
    assert taken.status_code == 200 and sensors.camera.reference.get() is not before
    # taken while the round holds marbles: the page says it may hold them, until the round is over
    assert client.get("/api/camera").get_json()["reference_in_round"] is True
    for event in ({"type": "reveal", "gate": 3}, {"type": "turned", "player": "Ben", "gate": 3}):  # the next round
        assert client.post(f"/api/sessions/{session['id']}/events", json=event).status_code == 200
    wait_for(lambda: client.get("/api/camera").get_json()["reference_in_round"] is False)


def test_calibration_by_tap_is_validated_and_saved(make_app: Callable[..., Flask], tmp_path: Any) -> None:
    app = make_app()
    client = app.test_client()
    for bad in ({"gates": []}, {"gates": [{"gate": 1, "polygon": [[0, 0], [1, 1]]}]}, {"nope": 1}):
        response = client.post("/api/camera/regions", json=bad)
        assert response.status_code == 400 and response.get_json()["error"]["message"]
    gates = [{"gate": g, "polygon": [[x, 100], [x + 80, 100], [x + 80, 180], [x, 180]]}
             for g, x in zip(range(1, 7), range(40, 640, 100))]  # side by side, within the 640x480 picture
    saved = client.post("/api/camera/regions", json={"gates": gates})
    assert saved.status_code == 200
    status = client.get("/api/camera").get_json()
    assert status["calibration"] == "tap" and status["regions"]["gates"][0]["polygon"][0] == [40, 100]
    assert (app.extensions["sensors"].camera.regions_path).exists()
    # two gates overlapping, or a gate beyond the camera's picture, are refused, and what was saved stands
    wait_for(lambda: app.extensions["sensors"].camera.service.latest() is not None)
    over = [dict(g, polygon=[[x - 50, y] for x, y in g["polygon"]]) if g["gate"] == 3 else g for g in gates]
    beyond = [dict(g, polygon=[[x + 100, y] for x, y in g["polygon"]]) if g["gate"] == 6 else g for g in gates]
    radius = app.extensions["sensors"].camera.marble_radius  # the simulated castle's marbles
    tiny = [dict(g, polygon=[[340, 100], [344, 100], [344, 104]]) if g["gate"] == 4 else g for g in gates]
    for bad, says in ((over, r"gates 2 and 3 overlap \(3\d% of the smaller one\): a marble there would count in gate "
                              r"2 only\. Tap them again so that they meet only at their border"),
                      (tiny, rf"gate 4 is smaller than one marble \(radius {radius:.0f} px\): a marble in it would "
                             r"count outside\. Tap its four corners again"),
                      (beyond, r"gate 6 reaches beyond the camera's 640x480 picture: tap every gate on the picture")):
        response = client.post("/api/camera/regions", json={"gates": bad})
        assert response.status_code == 400 and re.fullmatch(says, response.get_json()["error"]["message"])
        assert client.get("/api/camera").get_json()["regions"]["gates"][0]["polygon"][0] == [40, 100]


def test_reference_and_markers_api(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client = app.test_client()
    wait_for(lambda: app.extensions["sensors"].camera.service.latest() is not None)
    reference = client.post("/api/camera/reference", json={})
    assert reference.status_code == 200 and reference.get_json()["reference"]["captured"]
    assert client.get("/api/camera").get_json()["reference"]["taken"] == "a moment ago"  # as the page says it
    anchor = client.post("/api/camera/anchor", json={})  # the simulated castle has no printed markers
    assert anchor.status_code == 422 and "not found" in anchor.get_json()["error"]["message"]


def test_preview_and_page(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client = app.test_client()
    preview = wait_for(lambda: (r := client.get("/camera/preview.jpg")).status_code == 200 and r)
    assert preview.mimetype == "image/jpeg"
    page = client.get("/camera")
    assert page.status_code == 200 and b"Tap the gate corners" in page.data


def test_camera_off_answers_clearly(app: Flask) -> None:
    client = app.test_client()
    response = client.post("/api/camera/reference", json={})
    assert response.status_code == 503 and "off" in response.get_json()["error"]["message"]
    assert client.get("/api/camera").get_json()["ok"] is False


def test_the_camera_alone_reads_the_marbles_again_once_its_reading_is_undone(make_app: Callable[..., Flask]) -> None:
    """Undo of the round's reading, with the camera alone: the marbles still rest in the castle, and the camera
    reads them anew (before, it never did: the reading was the one it had reported, and the round stayed empty)."""
    app = make_app(BEAMS=False)
    client = app.test_client()
    session = _start(client)
    app.extensions["sensors"].castle.add_marble(4)
    wait_for(lambda: _current(client, session)["marbles"] == [4])
    undone = client.post(f"/api/sessions/{session['id']}/undo")
    assert undone.status_code == 200 and undone.get_json()["state"]["current"]["marbles"] == []
    current = wait_for(lambda: (c := _current(client, session))["marbles"] == [4] and c)
    assert current["sources"] == ["camera"]
    log = client.get(f"/api/sessions/{session['id']}/events").get_json()["events"]
    assert [(e["type"], e["undone"]) for e in log] == [("camera", True), ("camera", False)]


def test_one_undo_of_the_camera_alone_s_readings_has_it_read_every_marble_at_rest_again(
        make_app: Callable[..., Flask]) -> None:
    """The camera alone reports each marble as it comes to rest: one reading, then one more. An undo of the last
    leaves the round at the one before (one marble, two in the castle); the camera reads the marbles at rest anew,
    both of them (before, the round stayed at one marble until a second undo emptied it)."""
    app = make_app(BEAMS=False)
    client = app.test_client()
    session = _start(client)
    castle = app.extensions["sensors"].castle
    castle.add_marble(2)
    wait_for(lambda: _current(client, session)["marbles"] == [2])
    castle.add_marble(5)
    wait_for(lambda: sorted(_current(client, session)["marbles"]) == [2, 5])
    undone = client.post(f"/api/sessions/{session['id']}/undo")
    assert undone.status_code == 200 and undone.get_json()["state"]["current"]["marbles"] == [2]
    current = wait_for(lambda: sorted((c := _current(client, session))["marbles"]) == [2, 5] and c)
    assert current["sources"] == ["camera", "camera"]
    log = client.get(f"/api/sessions/{session['id']}/events").get_json()["events"]
    assert [(e["type"], e["undone"]) for e in log] == [("camera", False), ("camera", True), ("camera", False)]

"""Who may change what the camera reads or keeps, and who may see its pictures and the kept photos.

Every camera and sensor endpoint is taken from the app's url_map (a new one cannot escape these tables): its writes
(gate regions, anchoring, the empty reference, the marble's size, photo keeping, deleting the kept photos, the
castle, the simulation) are the kiosk's and paired devices' only, from the companion's own pages, as JSON within the
size and rate limits; its pictures and the kept photos' zip likewise. Every refusal is a JSON error with its status,
and changes nothing."""
from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hardware.camera.simulated import SimulatedCastle
from tests.test_photo_eval import kept_sample
from tests.test_trust import pair, snapshot, tablet

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
#: Where the camera and sensor endpoints live: the camera's pages and pictures, its API, the castle, the simulation.
CAMERA_PATHS = ("/camera", "/api/camera", "/api/castle", "/api/simulation/")
#: A body each write takes (the others take none): what the Camera page and the Diego page send.
GOOD_BODIES: dict[str, Callable[[Flask], dict[str, Any]]] = {
    "camera.regions": lambda app: SimulatedCastle().regions().to_json(),
    "camera.marble": lambda app: {"x": 10, "y": 10},
    "camera.keeping": lambda app: {"enabled": True},
    "api.simulate_marble": lambda app: {"gate": 1},
    "api.castle_attach": lambda app: {"session": None},
}
#: What refuses a device or a request: the trust checks' answers, before the camera is asked anything.
REFUSED = {403, 415, 421, 429}


def camera_rules(app: Flask, methods: set[str]) -> list[tuple[str, str, str]]:
    """(method, path, endpoint) of every camera and sensor route with one of `methods`, its arguments filled in."""
    adapter = app.url_map.bind("localhost")
    found = []
    for rule in app.url_map.iter_rules():
        if not (rule.endpoint.startswith("camera.") or rule.rule.startswith(CAMERA_PATHS)):
            continue
        for method in sorted((rule.methods or set()) & methods):
            values = {name: 1 for name in rule.arguments}
            found.append((method, adapter.build(rule.endpoint, values, method=method), rule.endpoint))
    return found


def camera_writes(app: Flask) -> list[tuple[str, str, str]]:
    writes = camera_rules(app, WRITE_METHODS)
    assert {endpoint for _, _, endpoint in writes} >= {
        "camera.regions", "camera.reference", "camera.anchor", "camera.marble", "camera.keeping",
        "camera.delete_photos", "api.simulate_marble", "api.castle_attach"}
    return writes


def camera_pictures(app: Flask) -> list[str]:
    """The paths of the camera's pictures and of the kept photos' zip: everything under /camera/."""
    pictures = [path for _, path, _ in camera_rules(app, {"GET"}) if path.startswith("/camera/")]
    assert {"/camera/preview.jpg", "/camera/snapshot.jpg", "/camera/photos.zip"} <= set(pictures)
    return pictures


def good_body(app: Flask, endpoint: str) -> dict[str, Any]:
    make = GOOD_BODIES.get(endpoint)
    return make(app) if make is not None else {}


@pytest.fixture
def changes() -> Iterator[Callable[[Flask], list[str]]]:
    """Record every change the camera, the keeper, the simulation or the castle is asked for in `app` (and which of
    them it refused)."""
    def watch(app: Flask) -> list[str]:
        calls: list[str] = []
        sensors, castle = app.extensions["sensors"], app.extensions["castle"]
        targets = [(sensors.camera, ("set_regions", "capture_reference", "anchor_to_markers", "measure_marble")),
                   (sensors.keeper, ("set_enabled", "delete_all")), (sensors, ("roll",)),
                   (castle, ("attach", "release"))]
        for target, names in targets:
            for name in names if target is not None else ():
                original = getattr(target, name)

                @functools.wraps(original)
                def spy(*args: Any, __name: str = name, __original: Any = original, **kwargs: Any) -> Any:
                    try:
                        done = __original(*args, **kwargs)
                    except Exception:
                        calls.append(f"{__name} refused")  # asked, and it refused: nothing changed
                        raise
                    calls.append(__name)
                    return done

                setattr(target, name, spy)
        return calls

    yield watch


def stored(app: Flask) -> tuple[Any, dict[str, str]]:
    """The session log and every file in the data folder (the calibration, the keeping choice, the kept photos), but
    the empty reference, which the camera refreshes by itself while the gates stay empty."""
    data = Path(app.config["DATA_DIR"])
    files = {str(p.relative_to(data)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(data.rglob("*"))
             if p.is_file() and not p.name.startswith("companion.sqlite3") and "empty-reference" not in p.name}
    return snapshot(app), files


def changed(calls: list[str]) -> list[str]:
    """The changes made: the calls that were not refused."""
    return [call for call in calls if not call.endswith(" refused")]


def assert_error(response: Any, status: int, codes: set[str], what: Any) -> dict[str, Any]:
    assert response.status_code == status, (what, response.status_code, response.data[:300])
    body = response.get_json(silent=True)
    assert body is not None and set(body) >= {"error"}, (what, response.data[:300])
    assert body["error"]["code"] in codes and body["error"]["message"], (what, body)
    return body


def revoked(app: Flask, kiosk: FlaskClient) -> FlaskClient:
    """A device that was paired and then revoked, which still sends its old cookie (a replay)."""
    device = tablet(app, "192.168.1.44")
    paired = pair(app, device, kiosk)
    assert kiosk.delete(f"/api/pairing/devices/{paired['id']}").status_code == 200
    return device


def refusals(app: Flask, kiosk: FlaskClient, paired: FlaskClient) -> list[tuple[str, FlaskClient, dict[str, str],
                                                                                 int, set[str]]]:
    """(who, client, headers, status, codes) of every request the camera must refuse, whatever its body."""
    return [
        ("an unpaired device on the Wi-Fi", tablet(app), {}, 403, {"pairing_required"}),
        ("a revoked device replaying its cookie", revoked(app, kiosk), {}, 403, {"pairing_required"}),
        ("the kiosk named by a foreign Host", kiosk, {"Host": "evil.example"}, 421, {"wrong_host"}),
        ("a paired device named by a foreign Host", paired, {"Host": "evil.example:8080"}, 421, {"wrong_host"}),
        ("the kiosk from another site", kiosk, {"Origin": "http://evil.example"}, 403, {"cross_origin"}),
        ("the kiosk from another port", kiosk, {"Origin": "http://localhost:3000"}, 403, {"cross_origin"}),
        ("a paired device from another site", paired, {"Sec-Fetch-Site": "cross-site"}, 403, {"cross_origin"}),
    ]


# ---- the writes -------------------------------------------------------------------------------------------------

def test_only_the_kiosk_and_paired_devices_change_the_camera_from_its_own_pages(
        make_app: Callable[..., Flask], changes: Callable[[Flask], list[str]]) -> None:
    app = make_app(WRITE_RATE=1e6, WRITE_BURST=1e6)  # many writes from one address: the rate limit has its own test
    kiosk = app.test_client()
    paired = tablet(app, "192.168.1.30")
    pair(app, paired, kiosk)
    refused = refusals(app, kiosk, paired)
    calls = changes(app)
    for method, path, endpoint in camera_writes(app):
        for who, client, headers, status, codes in refused:
            before = stored(app)
            response = client.open(path, method=method, json=good_body(app, endpoint), headers=headers)
            assert_error(response, status, codes, (method, path, who))
            assert calls == [] and stored(app) == before, (method, path, who, calls)
        for who, client in (("the kiosk", kiosk), ("a paired device", paired)):
            response = client.open(path, method=method, json=good_body(app, endpoint))
            assert response.status_code not in REFUSED | {500}, (method, path, who, response.get_json())
            assert response.get_json(silent=True) is not None, (method, path, who)
            assert calls, (method, path, who)  # it reached the camera (which may still refuse: no markers, ...)
            calls.clear()


def test_with_spectators_off_an_unpaired_device_neither_changes_nor_sees_the_camera(
        make_app: Callable[..., Flask], changes: Callable[[Flask], list[str]]) -> None:
    app = make_app(SPECTATORS=False)
    calls = changes(app)
    stranger = tablet(app)
    for method, path, endpoint in camera_writes(app):
        before = stored(app)
        assert_error(stranger.open(path, method=method, json=good_body(app, endpoint)), 403, {"pairing_required"},
                     (method, path))
        assert calls == [] and stored(app) == before, (method, path)
    assert_error(stranger.get("/api/camera"), 403, {"pairing_required"}, "status")
    assert stranger.get("/camera").headers["Location"].endswith("/devices?next=%2Fcamera")  # back there once paired
    for path in camera_pictures(app):
        assert_error(stranger.get(path), 403, {"pairing_required"}, path)


def malformed_bodies(app: Flask, endpoint: str) -> list[tuple[str, dict[str, Any], int, str]]:
    """(what, request arguments, status, code) of bodies every camera write refuses."""
    good = good_body(app, endpoint)
    bodies = [("not JSON", {"data": "{not json", "content_type": "application/json"}, 400, "malformed"),
              ("a list", {"json": [1, 2]}, 400, "malformed"),
              ("a string", {"json": "reference"}, 400, "malformed"),
              ("a number", {"json": 7}, 400, "malformed"),
              ("an unknown field", {"json": {**good, "zzz": 1}}, 400, "malformed"),
              ("a stale write's sequence number", {"json": {**good, "expected_seq": 3}}, 400, "malformed"),
              ("over 64 KiB", {"data": json.dumps({**good, "pad": "x" * 70_000}), "content_type": "application/json"},
               413, "too_large"),
              ("a form", {"data": {"enabled": "true"}}, 415, "json_required"),
              ("text", {"data": "{}", "content_type": "text/plain"}, 415, "json_required")]
    for field in good:
        bodies.append((f"{field} of the wrong type", {"json": {**good, field: "yes"}}, 400, "malformed"))
        bodies.append((f"{field} missing", {"json": {k: v for k, v in good.items() if k != field}}, 400, "malformed"))
    return bodies


def test_a_malformed_body_is_refused_by_every_camera_write_and_changes_nothing(
        make_app: Callable[..., Flask], changes: Callable[[Flask], list[str]]) -> None:
    app = make_app()
    kiosk = app.test_client()
    calls = changes(app)
    for method, path, endpoint in camera_writes(app):
        for what, arguments, status, code in malformed_bodies(app, endpoint):
            before = stored(app)
            body = assert_error(kiosk.open(path, method=method, **arguments), status, {code}, (method, path, what))
            if what == "an unknown field":
                assert "'zzz'" in body["error"]["message"], (method, path, body)
            assert changed(calls) == [] and stored(app) == before, (method, path, what, calls)


def test_regions_of_the_wrong_shape_are_refused_with_what_is_wrong(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    kiosk = app.test_client()
    gates = good_body(app, "camera.regions")["gates"]
    before = stored(app), kiosk.get("/api/camera").get_json()["regions"]
    for gates_sent in ("all", [1, 2, 3, 4, 5, 6], gates[:5], [{**gates[0], "colour": "red"}, *gates[1:]],
                       [{**gates[0], "polygon": [[0, 0], [1, "x"], [2, 2]]}, *gates[1:]],
                       [{**gates[0], "polygon": [[0, 0], [1e308, 1e308], [2, 2]]}, *gates[1:]],
                       [{**gates[0], "gate": True}, *gates[1:]], gates + gates[:1]):
        response = kiosk.post("/api/camera/regions", json={"gates": gates_sent})
        assert_error(response, 400, {"malformed"}, gates_sent)
        assert (stored(app), kiosk.get("/api/camera").get_json()["regions"]) == before, gates_sent


def test_the_rate_limit_holds_for_every_camera_write(make_app: Callable[..., Flask],
                                                    changes: Callable[[Flask], list[str]]) -> None:
    app = make_app(WRITE_RATE=0.001, WRITE_BURST=2)  # no refill within the test: no timing involved
    kiosk = app.test_client()
    device = tablet(app)
    pair(app, device, kiosk)  # asking and collecting take the address's two; the paired device has two of its own
    for _ in range(2):
        assert device.post("/api/camera/keeping", json={"enabled": False}).status_code == 200
    calls = changes(app)
    for method, path, endpoint in camera_writes(app):
        before = stored(app)
        response = device.open(path, method=method, json=good_body(app, endpoint))
        assert_error(response, 429, {"too_many_writes"}, (method, path))
        assert int(response.headers["Retry-After"]) >= 1
        assert calls == [] and stored(app) == before, (method, path)
    for method, path, endpoint in camera_writes(app):  # the kiosk's own screen is never held back
        assert kiosk.open(path, method=method, json=good_body(app, endpoint)).status_code not in REFUSED | {500}


def test_with_the_camera_off_every_camera_write_says_so(make_app: Callable[..., Flask]) -> None:
    app = make_app(SENSORS="off")
    kiosk = app.test_client()
    for method, path, endpoint in camera_writes(app):
        response = kiosk.open(path, method=method, json=good_body(app, endpoint))
        if endpoint in ("api.castle_attach", "camera.keeping", "camera.delete_photos"):  # kept photos: see below
            assert response.status_code == 200, response.get_json()
        elif endpoint == "api.simulate_marble":
            assert_error(response, 404, {"not_found"}, path)
        else:
            assert_error(response, 503, {"camera_off"}, path)
    for path in camera_pictures(app):
        assert kiosk.get(path).status_code in (404, 503), path


# ---- the pictures and the kept photos ---------------------------------------------------------------------------

def test_the_pictures_and_the_kept_photos_go_only_to_the_kiosk_and_paired_devices_own_pages(
        make_app: Callable[..., Flask]) -> None:
    app = make_app()
    kiosk = app.test_client()
    paired = tablet(app, "192.168.1.30")
    pair(app, paired, kiosk)
    keeper = app.extensions["sensors"].keeper
    for number in (1, 2):
        kept_sample(keeper.folder, number)
    refused = refusals(app, kiosk, paired)
    for path in camera_pictures(app):
        for who, client, headers, status, codes in refused:
            response = client.get(path, headers=headers)
            assert_error(response, status, codes, (path, who))
            assert b"PK" not in response.data[:4] and b"JFIF" not in response.data[:16], (path, who)
    for who, client, headers in (("the kiosk", kiosk, {}), ("the kiosk's own page", kiosk,
                                                              {"Sec-Fetch-Site": "same-origin"}),
                                 ("the kiosk's address bar", kiosk, {"Sec-Fetch-Site": "none"}),
                                 ("a paired device", paired, {"Origin": "http://localhost"})):
        download = client.get("/camera/photos.zip", headers=headers)
        assert download.status_code == 200 and download.data[:2] == b"PK", who
        download.close()  # the download ended: the next may start
        assert client.get("/camera/snapshot.jpg", headers=headers).mimetype == "image/jpeg", who
    assert len(list(Path(keeper.folder).iterdir())) == 2  # downloading deletes nothing


def test_the_camera_page_and_status_stay_readable_by_spectators(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    spectator = tablet(app)
    assert spectator.get("/camera").status_code == 200
    status = spectator.get("/api/camera")
    assert status.status_code == 200 and status.get_json()["ok"] is True


@pytest.mark.parametrize("off", [{"SENSORS": "off"}, {"CAMERA": "off"}], ids=["sensors-off", "camera-off"])
def test_photos_kept_before_can_be_downloaded_and_deleted_with_the_camera_off(
        make_app: Callable[..., Flask], app_config: dict[str, Any], off: dict[str, str]) -> None:
    """A family may take its photos, or delete them, whether or not the camera runs (unplugged, switched off)."""
    kept_sample(Path(app_config["DATA_DIR"]) / "photos", 1)
    app = make_app(**off)
    assert app.extensions["sensors"].camera is None
    kiosk = app.test_client()
    state = kiosk.get("/api/camera").get_json()
    assert state["ok"] is False and state["keeping"]["count"] == 1
    page = kiosk.get("/camera")
    assert page.status_code == 200 and b'"count": 1' in page.data and b"Download the kept rounds" in page.data
    download = kiosk.get("/camera/photos.zip")
    assert download.status_code == 200 and download.mimetype == "application/zip" and download.data[:2] == b"PK"
    download.close()  # the download has ended: the photos may be deleted
    assert kiosk.post("/api/camera/keeping", json={"enabled": False}).get_json()["keeping"]["enabled"] is False
    assert kiosk.delete("/api/camera/photos", json={}).get_json()["keeping"]["count"] == 0
    assert not list((Path(app_config["DATA_DIR"]) / "photos").iterdir())

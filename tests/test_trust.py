"""Who may write: the kiosk (socket peer on loopback), paired devices; spectators watch; CSRF, Host, limits."""
from __future__ import annotations

import hashlib
import re
import socket
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from flask import Flask, render_template_string
from flask.testing import FlaskClient

from tests.conftest import new_diego
from tests.waiting import wait_for
from web import pairing_store
from web.app import create_app, shutdown
from web.trust import DEVICE_COOKIE, SECURITY_HEADERS, TokenBuckets

TABLET = "192.168.1.20"
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
#: What an unpaired device may write: asking to pair, collecting or withdrawing its own request.
OPEN_WRITES = {"pairing.ask", "pairing.claim", "pairing.withdraw"}


@pytest.fixture
def make_app(app_config: dict[str, Any]) -> Iterator[Callable[..., Flask]]:
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        application = create_app({**app_config, **config})
        made.append(application)
        return application

    yield make
    for application in made:
        shutdown(application)


def tablet(app: Flask, address: str = TABLET) -> FlaskClient:
    """A test client whose socket peer is another device on the Wi-Fi."""
    client = app.test_client()
    client.environ_base = {"REMOTE_ADDR": address}
    return client


def pair(app: Flask, device: FlaskClient, kiosk: FlaskClient | None = None) -> dict[str, Any]:
    """Ask on the device, approve on the kiosk, collect on the device; returns the device."""
    kiosk = kiosk or app.test_client()
    asked = device.post("/api/pairing/requests", json={"name": "Ben's tablet"})
    assert asked.status_code == 201, asked.get_json()
    request = asked.get_json()["request"]
    assert re.fullmatch(r"\d{4}", request["code"])
    waiting = kiosk.get("/api/pairing/requests").get_json()["requests"]
    assert [(r["id"], r["code"]) for r in waiting] == [(request["id"], request["code"])]  # same code on both
    approved = kiosk.post(f"/api/pairing/requests/{request['id']}/approve", json={})
    assert approved.status_code == 200 and approved.get_json()["request"]["status"] == "approved"
    collected = device.post("/api/pairing/claim", json={})
    assert collected.status_code == 200, collected.get_json()
    return collected.get_json()["device"]


def snapshot(app: Flask) -> Any:
    """Everything a write could change: sessions with revisions, their logs, players, hero cards, devices,
    requests."""
    log = app.extensions["table"].log
    store = app.extensions["trust"].store
    sessions = log.sessions()
    return (sessions, [log.events(s.id) for s in sessions], log.players(), log.hero_cards(),
            [(d.id, d.name, d.paired) for d in store.devices()], [(r.id, r.status) for r in store.pending()])


def write_rules(app: Flask) -> list[tuple[str, str, str]]:
    """(method, path, endpoint) for every write route, with its arguments filled in."""
    adapter = app.url_map.bind("localhost")
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) & WRITE_METHODS):
            values: dict[str, Any] = {}
            for name, converter in rule._converters.items():
                items = getattr(converter, "items", None)
                values[name] = sorted(items)[0] if items else 1 if "Integer" in type(converter).__name__ else "x"
            found.append((method, adapter.build(rule.endpoint, values, method=method), rule.endpoint))
    return found


def test_a_device_on_the_wifi_cannot_write_anything_until_paired(make_app: Callable[..., Flask]) -> None:
    app = make_app(WRITE_RATE=1e6, WRITE_BURST=1e6)  # every write route, three times over: more than a burst
    client = app.test_client()
    session = new_diego(client)
    client.post(f"/api/sessions/{session['id']}/events", json={"type": "marble", "gate": 2})
    device = tablet(app)
    rules = write_rules(app)
    assert {endpoint for _, _, endpoint in rules} >= {"api.post_event", "api.session_action", "api.create_session",
                                                       "camera.regions", "pairing.revoke", "pairing.decide"}
    before = snapshot(app)
    for method, path, endpoint in rules:
        if endpoint in OPEN_WRITES:
            continue
        for body in ({}, {"type": "marble", "gate": 1}, {"game": "diego-drachenzahn", "players": ["A", "B"]}):
            response = device.open(path, method=method, json=body)
            assert response.status_code == 403, (method, path, response.status_code)
            error = response.get_json()["error"]
            assert error["code"] in ("pairing_required", "kiosk_only"), (path, error)
            assert "pair" in error["message"].lower() or "table's own screen" in error["message"]
        assert snapshot(app) == before, (method, path)
    # the same writes from the kiosk pass the trust checks (whatever the route then says)
    assert all(client.open(path, method=method, json={}).status_code != 403 for method, path, _ in rules)


def test_pairing_approved_on_the_kiosk_lets_the_device_write_until_revoked(app: Flask, client: FlaskClient,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    session = new_diego(client)
    events = f"/api/sessions/{session['id']}/events"
    device = tablet(app)
    caplog.set_level("INFO", logger="web.pairing_store")
    paired = pair(app, device, client)
    assert paired["name"] == "Ben's tablet" and paired["address"] == TABLET

    cookie = device.get_cookie(DEVICE_COOKIE)
    assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"
    assert len(cookie.value) >= 40
    with sqlite3.connect(app.extensions["table"].log.path) as db:  # the db keeps only a hash of the token
        hashes = [row[0] for row in db.execute("SELECT token_hash FROM paired_devices")]
    assert hashes == [hashlib.sha256(cookie.value.encode()).hexdigest()]

    assert device.post(events, json={"type": "marble", "gate": 3}).status_code == 200
    assert device.post(f"/api/sessions/{session['id']}/undo", json={}).status_code == 200
    assert device.get("/api/pairing").get_json()["role"] == "paired"
    listed = client.get("/api/pairing/devices").get_json()
    assert [d["name"] for d in listed["devices"]] == ["Ben's tablet"]
    assert listed["devices"][0]["last_seen"] is not None and listed["devices"][0]["paired"] is not None

    # a paired device is not the kiosk: it cannot approve, list, name or revoke devices
    assert device.get("/api/pairing/devices").status_code == 403
    assert device.delete(f"/api/pairing/devices/{paired['id']}").status_code == 403
    assert device.patch(f"/api/pairing/devices/{paired['id']}", json={"name": "Mine"}).status_code == 403

    # the kiosk names it, so that devices of one make are told apart; a bad name changes nothing
    rename = f"/api/pairing/devices/{paired['id']}"
    for bad in ({}, {"name": ""}, {"name": "   "}, {"name": 7}, {"name": "x" * 41}):
        response = client.patch(rename, json=bad)
        assert response.status_code == 400 and "1 to 40 characters" in response.get_json()["error"]["message"], bad
    assert client.patch("/api/pairing/devices/999", json={"name": "Ghost"}).status_code == 404
    named = client.patch(rename, json={"name": "  Ben's   phone "})
    assert named.status_code == 200 and named.get_json()["device"]["name"] == "Ben's phone"
    assert [d["name"] for d in client.get("/api/pairing/devices").get_json()["devices"]] == ["Ben's phone"]

    assert client.delete(f"/api/pairing/devices/{paired['id']}").status_code == 200
    before = snapshot(app)
    refused = device.post(events, json={"type": "marble", "gate": 4})
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "pairing_required"
    assert snapshot(app) == before
    assert device.get("/api/pairing").get_json()["role"] == "spectator"
    assert client.delete(f"/api/pairing/devices/{paired['id']}").status_code == 404  # already revoked
    assert client.delete("/api/pairing/devices/99999999999999999999").status_code == 404  # beyond SQLite

    actions = [entry["action"] for entry in client.get("/api/pairing/devices").get_json()["history"]]
    assert actions == ["revoked", "paired", "approved", "requested"]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "approved Ben's tablet" in logged and "revoked device" in logged


def test_a_refused_device_gets_no_token(app: Flask, client: FlaskClient) -> None:
    device = tablet(app)
    request = device.post("/api/pairing/requests", json={}).get_json()["request"]
    assert client.post(f"/api/pairing/requests/{request['id']}/refuse", json={}).status_code == 200
    assert device.get("/api/pairing").get_json()["request"]["status"] == "refused"
    collected = device.post("/api/pairing/claim", json={})
    assert collected.status_code == 409 and collected.get_json()["error"]["code"] == "request_refused"
    assert device.get_cookie(DEVICE_COOKIE) is None
    assert device.post("/api/players", json={"name": "Eve"}).status_code == 403
    assert client.get("/api/pairing/devices").get_json()["history"][0]["action"] == "refused"
    # refused or approved once, a request cannot be decided again
    assert client.post(f"/api/pairing/requests/{request['id']}/approve", json={}).status_code == 404


def test_pairing_requests_are_checked(app: Flask, client: FlaskClient) -> None:
    device = tablet(app)
    assert client.post("/api/pairing/requests", json={}).get_json()["error"]["code"] == "kiosk"
    assert device.post("/api/pairing/requests", json={"name": ""}).status_code == 400
    assert device.post("/api/pairing/requests", json=[1]).status_code == 400
    assert device.post("/api/pairing/claim", json={}).status_code == 404  # nothing asked yet
    request = device.post("/api/pairing/requests", json={}).get_json()["request"]
    assert device.post(f"/api/pairing/requests/{request['id']}/approve", json={}).status_code == 403
    assert device.get("/api/pairing/requests").status_code == 403
    again = device.post("/api/pairing/requests", json={}).get_json()["request"]  # asking again replaces it
    assert [r["id"] for r in client.get("/api/pairing/requests").get_json()["requests"]] == [again["id"]]
    assert client.post("/api/pairing/requests/nope/approve", json={}).status_code == 404
    assert device.delete("/api/pairing/claim").status_code == 200
    assert client.get("/api/pairing/requests").get_json()["requests"] == []


def test_waiting_requests_are_bounded_and_expire(app: Flask, client: FlaskClient) -> None:
    crowd = [tablet(app, TABLET) for _ in range(pairing_store.MAX_PENDING_PER_ADDRESS + 1)]
    statuses = [device.post("/api/pairing/requests", json={}).status_code for device in crowd]
    assert statuses == [201] * pairing_store.MAX_PENDING_PER_ADDRESS + [429]  # one address cannot fill the list
    for device in crowd[:-1]:
        assert device.delete("/api/pairing/claim").status_code == 200
    for n in range(pairing_store.MAX_PENDING):
        assert tablet(app, f"192.168.1.{100 + n}").post("/api/pairing/requests", json={}).status_code == 201
    flood = tablet(app, "192.168.1.99").post("/api/pairing/requests", json={})
    assert flood.status_code == 429 and flood.get_json()["error"]["code"] == "too_many_requests"
    store = app.extensions["trust"].store
    first = store.pending()[0]
    assert store.pending(now=first.created + pairing_store.REQUEST_TTL_S + 1) == []


def test_forwarded_headers_never_make_a_device_the_kiosk(app: Flask, client: FlaskClient) -> None:
    session = new_diego(client)
    before = snapshot(app)
    device = tablet(app)
    for header in ({"X-Forwarded-For": "127.0.0.1"}, {"X-Real-IP": "127.0.0.1"},
                   {"Forwarded": "for=127.0.0.1"}, {"X-Forwarded-Host": "localhost", "X-Forwarded-For": "::1"}):
        response = device.post(f"/api/sessions/{session['id']}/undo", json={}, headers=header)
        assert response.status_code == 403, header
        assert device.get("/api/pairing", headers=header).get_json()["role"] == "spectator"
    assert snapshot(app) == before


@pytest.mark.parametrize("content_type, body", [
    ("application/x-www-form-urlencoded", "expected_seq=1"),
    ("text/plain", '{"expected_seq": 1}'),
    ("multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n"),
])
def test_a_cross_site_form_post_changes_nothing(app: Flask, client: FlaskClient, content_type: str,
                                                body: str) -> None:
    session = new_diego(client)
    client.post(f"/api/sessions/{session['id']}/events", json={"type": "marble", "gate": 2})
    undo = f"/api/sessions/{session['id']}/undo"
    before = snapshot(app)
    # from the kiosk's own address: a web page open on the Pi, posting a form to it
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}, {}):
        response = client.post(undo, data=body, content_type=content_type, headers=headers)
        assert response.status_code in (403, 415), (headers, response.status_code)
        assert response.get_json()["error"]["code"] in ("cross_origin", "json_required")
        assert snapshot(app) == before
    # JSON from a foreign origin is refused as well, also for a paired device
    device = tablet(app)
    pair(app, device, client)
    before = snapshot(app)
    for who in (client, device):
        response = who.post(undo, json={}, headers={"Origin": "http://evil.example"})
        assert response.status_code == 403 and response.get_json()["error"]["code"] == "cross_origin"
        response = who.post(undo, json={}, headers={"Origin": "http://localhost:8080"})  # another port
        assert response.status_code == 403
    assert snapshot(app) == before
    # the page's own requests: same Origin, JSON; a bodyless call with no Content-Type at all also passes
    assert client.post(undo, json={}, headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
                       ).status_code == 200
    assert client.post(f"/api/sessions/{session['id']}/redo").status_code == 200


def test_only_the_pis_own_names_are_answered(make_app: Callable[..., Flask]) -> None:
    app = make_app(ALLOWED_HOSTS=["dragon.example"])
    client = app.test_client()
    hostname = socket.gethostname()
    for host in ("localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080", hostname, f"{hostname}.local:8080",
                 "dragon.example", "DRAGON.example:80"):
        assert client.get("/api/health", headers={"Host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8080", "192.0.2.250", "localhost.evil.example", "[2001:db8::1]"):
        for path in ("/api/health", "/", "/devices"):
            response = client.get(path, headers={"Host": host})
            assert response.status_code == 421, (host, path)
            assert response.get_json()["error"]["code"] == "wrong_host"
        assert client.post("/api/players", json={"name": "Eve"}, headers={"Host": host}).status_code == 421
    assert "Eve" not in app.extensions["table"].log.players()


def test_the_kiosk_is_whatever_peers_the_config_says(make_app: Callable[..., Flask]) -> None:
    default = make_app()
    assert tablet(default, "127.0.0.2").get("/api/pairing").get_json()["role"] == "kiosk"
    assert tablet(default, "::1").get("/api/pairing").get_json()["role"] == "kiosk"
    assert tablet(default, "::ffff:127.0.0.1").get("/api/pairing").get_json()["role"] == "kiosk"
    strict = make_app(KIOSK_PEERS=["127.0.0.1/32"])
    assert tablet(strict, "127.0.0.2").get("/api/pairing").get_json()["role"] == "spectator"
    assert tablet(strict, "127.0.0.2").post("/api/players", json={"name": "Eve"}).status_code == 403
    assert strict.test_client().post("/api/players", json={"name": "Ada"}).status_code == 201


def test_security_headers_on_every_response(app: Flask, client: FlaskClient) -> None:
    session = new_diego(client)
    responses = [client.get(path) for path in ("/", f"/play/{session['id']}", "/camera", "/devices", "/api/health",
                                               "/api/sessions", "/static/kiosk.css", "/nope", "/api/nope")]
    responses += [tablet(app).post("/api/players", json={"name": "Eve"}), client.get("/", headers={"Host": "x.y"}),
                  client.get("/", base_url="https://lan.example")]
    for response in responses:
        for name, value in SECURITY_HEADERS.items():
            if name == "Cross-Origin-Opener-Policy" and response.request.host == "x.y":
                continue  # see below
            assert response.headers.get(name) == value, (response.request.path, name)
    # a browser honours the opener policy on https and on this machine's own name or address, and ignores it over
    # plain http by a LAN address or name, saying so in the console of every page: it is sent only where honoured
    for host, sent in (("localhost:8080", True), ("127.0.0.1:8080", True), ("[::1]:8080", True),
                       ("kiosk.localhost", True), ("192.168.1.20:8080", False), ("dragon-table.local", False)):
        response = client.get("/api/health", headers={"Host": host})
        assert ("Cross-Origin-Opener-Policy" in response.headers) is sent, host
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp


def test_templates_have_no_inline_script() -> None:
    """The CSP allows only script files; data blocks (type=application/json) are fine."""
    for template in (Path(__file__).parents[1] / "web" / "templates").glob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag or 'type="application/json"' in tag, (template.name, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), template.name
        assert "javascript:" not in text, template.name


def test_a_flood_of_writes_gets_429_but_a_burst_of_taps_passes(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    device = tablet(app)
    pair(app, device)
    for n in range(30):  # a burst of taps at the table
        assert device.post("/api/players", json={"name": f"P{n}"}).status_code == 201, n

    slow = make_app(WRITE_RATE=0.001, WRITE_BURST=5)  # no refill within the test: no timing involved
    device = tablet(slow)
    pair(slow, device)  # asking and collecting count for the address; the paired device has its own bucket
    statuses = [device.post("/api/players", json={"name": f"P{n}"}).status_code for n in range(7)]
    assert statuses == [201] * 5 + [429] * 2
    flooded = device.post("/api/players", json={"name": "Flood"})
    assert flooded.status_code == 429 and flooded.get_json()["error"]["code"] == "too_many_writes"
    assert int(flooded.headers["Retry-After"]) >= 1
    assert "Flood" not in slow.extensions["table"].log.players()
    stranger = tablet(slow, "192.168.1.77")  # another device has a bucket of its own
    assert stranger.post("/api/players", json={"name": "X"}).status_code == 403
    kiosk = slow.test_client()  # the kiosk itself is not limited
    assert all(kiosk.post("/api/players", json={"name": f"K{n}"}).status_code == 201 for n in range(20))


def test_token_bucket() -> None:
    buckets = TokenBuckets(rate=20, burst=40)
    assert all(buckets.take("a", now=0.0) == 0 for _ in range(40))
    assert buckets.take("a", now=0.0) == pytest.approx(0.05)
    assert buckets.take("b", now=0.0) == 0
    assert buckets.take("a", now=0.05) == 0 and buckets.take("a", now=0.05) > 0


def test_camera_pictures_and_calibration_need_pairing(make_app: Callable[..., Flask]) -> None:
    app = make_app(SENSORS="simulation", CAMERA_SETTLE_S=0.3)
    kiosk = app.test_client()
    wait_for(lambda: kiosk.get("/camera/preview.jpg").status_code == 200)
    wait_for(lambda: kiosk.get("/camera/snapshot.jpg").status_code == 200)
    spectator = tablet(app)
    for path in ("/camera/preview.jpg", "/camera/snapshot.jpg", "/camera/confirmation/1.jpg"):
        response = spectator.get(path)
        assert response.status_code == 403 and response.get_json()["error"]["code"] == "pairing_required", path
    camera_before = kiosk.get("/api/camera").get_json()
    for path, body in (("/api/camera/reference", {}), ("/api/camera/anchor", {}),
                       ("/api/camera/regions", {"gates": [{"gate": g, "polygon": [[0, 0], [9, 0], [9, 9]]}
                                                          for g in range(1, 7)]})):
        assert spectator.post(path, json=body).status_code == 403, path
    after = kiosk.get("/api/camera").get_json()
    assert after.get("regions") == camera_before.get("regions")
    # the same picture stays the reference; only its age, read from the clock, moves on
    assert {k: v for k, v in after["reference"].items() if k != "age"} == \
        {k: v for k, v in camera_before["reference"].items() if k != "age"}
    assert spectator.get("/camera").status_code == 200  # the page and the status stay readable
    assert spectator.get("/api/camera").status_code == 200
    pair(app, spectator, kiosk)
    picture = spectator.get("/camera/snapshot.jpg")
    assert picture.status_code == 200 and picture.mimetype == "image/jpeg"


def test_spectators_can_be_shut_out(make_app: Callable[..., Flask]) -> None:
    app = make_app(SPECTATORS=False)
    kiosk = app.test_client()
    session = new_diego(kiosk)
    spectator = tablet(app)
    for path in ("/api/sessions", f"/api/sessions/{session['id']}", f"/api/sessions/{session['id']}/stream"):
        response = spectator.get(path)
        assert response.status_code == 403 and response.get_json()["error"]["code"] == "pairing_required", path
    home = spectator.get("/")
    assert home.status_code == 302 and home.headers["Location"].endswith("/devices?next=%2F")
    play = spectator.get(f"/play/{session['id']}")  # back there once paired (pairing.js)
    assert play.headers["Location"].endswith(f"/devices?next=%2Fplay%2F{session['id']}")
    devices = spectator.get("/devices?next=%2F")
    assert devices.status_code == 200  # what a device needs to pair stays open
    text = devices.get_data(as_text=True)  # it says so: nothing to watch, no way to watch
    assert "shows its games only to paired devices" in text and "Watch the games" not in text
    assert "Watch the games" in tablet(make_app()).get("/devices").get_data(as_text=True)
    assert spectator.get("/static/pairing.js").status_code == 200
    assert spectator.get("/api/pairing").get_json() == {"role": "spectator", "device": None, "request": None,
                                                        "spectators": False}
    pair(app, spectator, kiosk)
    assert spectator.get("/api/sessions").status_code == 200
    assert tablet(make_app()).get("/api/sessions").status_code == 200  # open by default


def test_pages_show_each_role_its_pairing_ui(app: Flask, client: FlaskClient) -> None:
    spectator = tablet(app)
    page = spectator.get("/devices").get_data(as_text=True)
    assert "Pair this tablet" in page and 'data-pairing-role="spectator"' in page
    # Home says a watching device cannot start a game before a name is typed for it, the kiosk's does not
    assert 'id="watch-only"' in spectator.get("/").get_data(as_text=True)
    assert 'id="watch-only"' not in client.get("/").get_data(as_text=True)
    kiosk_page = client.get("/devices").get_data(as_text=True)
    assert 'data-pairing-role="kiosk"' in kiosk_page and "/pairing/qr.svg" in kiosk_page
    qr = client.get("/pairing/qr.svg")
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml" and b"<svg" in qr.data
    pair(app, spectator, client)
    assert "This tablet is paired" in spectator.get("/devices").get_data(as_text=True)
    token = spectator.get_cookie(DEVICE_COOKIE).value
    for role, address, cookie in (("kiosk", "127.0.0.1", ""), ("paired", TABLET, f"{DEVICE_COOKIE}={token}"),
                                  ("spectator", "10.0.0.9", "")):
        with app.test_request_context("/", environ_base={"REMOTE_ADDR": address}, headers={"Cookie": cookie}):
            assert f'data-pairing-role="{role}"' in render_template_string('{% include "_pairing.html" %}')


def test_the_devices_page_says_when_no_tablet_can_reach_the_companion(make_app: Callable[..., Flask]) -> None:
    """Listening on this machine only (``--host 127.0.0.1``), the address to pair with answers no tablet: the
    kiosk's Devices page says so and how to start it; listening on every address (``make run``, the service), not."""
    local = make_app(LISTEN_HOST="127.0.0.1").test_client().get("/devices").get_data(as_text=True)
    assert 'id="local-only"' in local and "<code>--host 127.0.0.1</code>" in local and "--host 0.0.0.0" in local
    for host in ("0.0.0.0", None):
        page = make_app(LISTEN_HOST=host).test_client().get("/devices").get_data(as_text=True)
        assert 'class="pair-url"' in page and 'id="local-only"' not in page

"""Gates wired into the table, through MockFactory pins: pulses in -> marble events -> the SSE stream."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask

from tests.servers import SseReader, call, free_port, serving
from tests.waiting import PATIENCE_S, wait_for
from web.app import create_app, shutdown
from web.cli import main as cli_main
from web.sensors import detect_mode


@pytest.fixture
def sim_app(app_config: dict[str, Any]) -> Iterator[Flask]:
    application = create_app({**app_config, "SENSORS": "simulation"})
    yield application
    shutdown(application)


def _roll(app: Flask, gate: int, width_ms: float = 15.0, chatter: bool = False) -> None:
    app.extensions["sensors"].roll(gate, width_ms, chatter)


@pytest.fixture
def beams_app(app_config: dict[str, Any]) -> Iterator[Flask]:
    """Simulated beams without the simulated camera, whose confirmation photo (a "camera" event some
    0.6-1.5 s after a marble) would otherwise join the event log at a moment that depends on the load."""
    application = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "off"})
    yield application
    shutdown(application)


def test_pulses_become_marble_events_in_the_running_round(beams_app: Flask) -> None:
    sim_app = beams_app
    client = sim_app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    for gate, width, chatter in ((2, 15.0, True), (5, 9.0, False), (2, 30.0, True)):
        _roll(sim_app, gate, width, chatter)
        time.sleep(0.2)  # marbles are pushed one at a time, well beyond the refractory time
    view = wait_for(lambda: (v := client.get(f"/api/sessions/{session['id']}").get_json())
                 ["state"]["current"]["marbles"] == [2, 5, 2] and v)
    assert view["state"]["current"]["sources"] == ["sensor"] * 3
    events = client.get(f"/api/sessions/{session['id']}/events").get_json()["events"]
    assert [(e["source"], e["payload"]["gate"]) for e in events] == [("sensor", 2), ("sensor", 5), ("sensor", 2)]


def test_glitches_are_not_marbles(beams_app: Flask) -> None:
    # The simulator stamps each edge with the time it stands for, so a 0.3 ms pulse stays 0.3 ms on a loaded
    # machine and the default thresholds apply (a marble is 1 ms or longer).
    client = beams_app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    for _ in range(4):
        _roll(beams_app, 3, 0.3)  # a flickering cable: far shorter than any marble
    # Sensors.roll flushes with the gates' 1 s default and ignores a timeout: flush for sure here.
    assert beams_app.extensions["sensors"].gates.flush(timeout=PATIENCE_S)
    assert client.get(f"/api/sessions/{session['id']}").get_json()["seq"] == 0
    gate3 = client.get("/api/health").get_json()["sensors"]["gates"]["gates"][2]
    assert gate3["glitches"] == 4 and gate3["marbles"] == 0 and gate3["last_width_ms"] == 0.3


def test_a_fourth_sensor_marble_flags_the_round(sim_app: Flask) -> None:  # ruling D4
    client = sim_app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    for gate in (1, 2, 3, 4):
        _roll(sim_app, gate)
    view = wait_for(lambda: (v := client.get(f"/api/sessions/{session['id']}").get_json())
                 ["state"]["current"]["flag"] and v)
    assert view["state"]["phase"] == "flagged" and len(view["state"]["current"]["marbles"]) == 4


def test_marbles_outside_a_round_are_shown_not_scored(sim_app: Flask) -> None:
    client = sim_app.test_client()
    _roll(sim_app, 6)
    sensors = wait_for(lambda: client.get("/api/health").get_json()["sensors"]["last_marble"])
    assert sensors["gate"] == 6 and sensors["scored"] is False
    assert "not attached" in sensors["note"]
    assert client.get("/api/sessions").get_json()["sessions"] == []


def _marbles(client: Any, session: dict[str, Any]) -> list[Any]:
    return client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]["marbles"]


def test_marbles_land_only_in_the_game_that_holds_the_castle(sim_app: Flask) -> None:
    client = sim_app.test_client()
    new = {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}
    first = client.post("/api/sessions", json=new).get_json()
    assert first["castle"] is True  # a new Diego game takes a free castle
    second = client.post("/api/sessions", json=new).get_json()
    assert second["castle"] is False  # the castle stays with the running game that holds it
    assert client.get("/api/castle").get_json() == {"session": first["id"]}
    _roll(sim_app, 2)
    wait_for(lambda: _marbles(client, first) == [2])
    assert _marbles(client, second) == []
    # moving the castle moves where the marbles land
    assert client.post("/api/castle", json={"session": second["id"]}).get_json() == {"session": second["id"]}
    assert client.get(f"/api/sessions/{first['id']}").get_json()["castle"] is False
    _roll(sim_app, 5)
    wait_for(lambda: _marbles(client, second) == [5])
    assert _marbles(client, first) == [2]
    # released, a reading is only shown
    assert client.post("/api/castle", json={"session": None}).get_json() == {"session": None}
    _roll(sim_app, 4)
    last = wait_for(lambda: (m := client.get("/api/health").get_json()["sensors"]["last_marble"])["gate"] == 4 and m)
    assert last["scored"] is False and _marbles(client, first) == [2] and _marbles(client, second) == [5]
    history = sim_app.extensions["table"].log.castle_history()
    assert [(c["action"], c["session_id"], c["by"]) for c in history] == [
        ("release", None, "tap"), ("attach", second["id"], "tap"), ("attach", first["id"], "new game")]


def test_the_castle_goes_only_to_a_running_diego_game(sim_app: Flask) -> None:
    client = sim_app.test_client()
    game = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    abandoned = client.post(f"/api/sessions/{game['id']}/abandon", json={}).get_json()
    assert abandoned["status"] == "abandoned" and abandoned["read_only"] and abandoned["castle"] is False
    assert client.get("/api/castle").get_json() == {"session": None}  # released with the game
    refused = client.post("/api/castle", json={"session": game["id"]})
    assert refused.status_code == 409 and "abandoned" in refused.get_json()["error"]["message"]
    assert client.post("/api/castle", json={"session": 999}).status_code == 404
    assert client.post("/api/castle", json={"session": "1"}).status_code == 400
    assert client.post("/api/castle", json={}).status_code == 400
    # a new game takes the free castle
    fresh = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    assert fresh["castle"] is True


def test_a_stuck_beam_shows_in_health_and_counts_nothing(sim_app: Flask) -> None:
    client = sim_app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    sim_app.extensions["sensors"].simulator.block(4)  # a gate wired the wrong way round, or blocked
    gate4 = wait_for(lambda: (g := client.get("/api/health").get_json()["sensors"]["gates"]["gates"][3])["stuck"] and g)
    assert gate4["marbles"] == 0
    sim_app.extensions["sensors"].simulator.clear(4)
    wait_for(lambda: not client.get("/api/health").get_json()["sensors"]["gates"]["gates"][3]["stuck"])
    assert client.get(f"/api/sessions/{session['id']}").get_json()["seq"] == 0


def test_the_sensor_panel_counts_this_round(beams_app: Flask) -> None:
    client = beams_app.test_client()

    def gates() -> list[dict[str, Any]]:
        return client.get("/api/health").get_json()["sensors"]["gates"]["gates"]

    def rolled(gate: int) -> None:
        _roll(beams_app, gate)
        assert beams_app.extensions["sensors"].gates.flush(timeout=PATIENCE_S)

    rolled(6)  # before any game: shown, counted since the start
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    url = f"/api/sessions/{session['id']}"
    assert [g["round_marbles"] for g in gates()] == [0] * 6  # a new round counts from zero
    for gate in (2, 5):
        rolled(gate)
        time.sleep(0.2)  # one marble at a time, well beyond the refractory time
    wait_for(lambda: client.get(url).get_json()["state"]["current"]["marbles"] == [2, 5])
    assert [g["round_marbles"] for g in gates()] == [0, 1, 0, 0, 1, 0]
    client.post(f"{url}/events", json={"type": "guess", "player": "Ben", "gate": 2})
    client.post(f"{url}/events", json={"type": "reveal", "gate": 2})
    assert client.get(url).get_json()["state"]["current"]["number"] == 2
    assert [g["round_marbles"] for g in gates()] == [0] * 6  # the next round starts from zero again
    rolled(5)
    assert [(g["round_marbles"], g["marbles"]) for g in gates()] == [(0, 0), (0, 1), (0, 0), (0, 0), (1, 2), (0, 1)]


def test_simulation_endpoint_rolls_through_the_pins(sim_app: Flask) -> None:
    client = sim_app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    response = client.post("/api/simulation/marble", json={"gate": 4, "width_ms": 12.5, "chatter": True})
    assert response.status_code == 202
    wait_for(lambda: client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]["marbles"] == [4])
    for bad in ({"gate": 0}, {"gate": "2"}, {"gate": 2, "width_ms": -1}, {"gate": 2, "chatter": "yes"}, {}):
        assert client.post("/api/simulation/marble", json=bad).status_code == 400, bad


def test_sensor_marbles_reach_the_stream(sim_app: Flask) -> None:
    with serving(sim_app) as base:
        _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben"]})
        stream = SseReader(f"{base}/api/sessions/{session['id']}/stream")
        try:
            stream.next_named("session")
            status, _ = call(f"{base}/api/simulation/marble", {"gate": 3, "width_ms": 20})
            assert status == 202
            view = stream.next_named("session")
            assert view["state"]["current"]["marbles"] == [3]
            assert view["state"]["current"]["sources"] == ["sensor"]
            marble = stream.next_named("marble")
            assert (marble["gate"], marble["scored"], marble["session"]) == (3, True, session["id"])
        finally:
            stream.close()


def test_a_pin_used_twice_stops_the_start_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = cli_main(["serve", "--data", str(tmp_path), "--sensors", "simulation", "--port", str(free_port()),
                     "--pins", "17,27,22,17,5,6"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("companion: cannot start:") and "pin 17 is used twice" in err[-1]


def test_a_pin_that_is_not_gpio_stops_the_start(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = cli_main(["serve", "--data", str(tmp_path), "--sensors", "simulation", "--port", str(free_port()),
                     "--pins", "17,27,22,99,5,6"])
    assert code == 2 and "pin 99 is not a GPIO pin" in capsys.readouterr().err


def test_mode_detection(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_text("Raspberry Pi 5 Model B Rev 1.0\x00")
    assert detect_mode(model) == "hardware"
    model.write_text("Generic x86 board")
    assert detect_mode(model) == "simulation"
    assert detect_mode(tmp_path / "missing") == "simulation"


def test_simulation_is_said_on_the_page(sim_app: Flask) -> None:
    page = sim_app.test_client().get("/").data.decode()
    assert "Simulation" in page


@pytest.mark.filterwarnings("ignore::gpiozero.exc.PinFactoryFallback")  # gpiozero tries every pin library
def test_hardware_mode_without_hardware_says_what_is_missing(app_config: dict[str, Any]) -> None:
    application = create_app({**app_config, "SENSORS": "hardware"})
    try:
        client = application.test_client()
        sensors = wait_for(lambda: (s := client.get("/api/health").get_json()["sensors"])["camera"]["camera"]
                           ["error"] and s)
        assert client.get("/api/health").get_json()["mode"] == "hardware"
        assert "could not start" in sensors["gates"]["error"]  # no GPIO here: reported, not fatal
        assert sensors["camera"]["camera"]["source"] == "picamera2"
        assert "picamera2" in sensors["camera"]["camera"]["error"]
        assert sensors["camera"]["camera"]["state"] in ("retrying", "starting")
        lores = application.extensions["sensors"].camera.service._source.lores_size
        assert lores == (640, 480)  # vision reads the 640x480 lores stream
        session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["A", "B"]})
        assert session.status_code == 201  # taps go on
    finally:
        shutdown(application)

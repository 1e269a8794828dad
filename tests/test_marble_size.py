"""The marble's size from the calibration: the markers' printed size, or a tap on one resting marble; saved,
used by the detector, and taken by `companion detect`."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.camera.hub import CameraHub, NoMarble
from hardware.camera.marble_size import MarbleSize, MarbleSizeError, measure_radius_at, size_from_markers
from hardware.camera.markers import detect_markers
from hardware.camera.simulated import SimulatedCastle
from hardware.vision.regions import save_regions
from tests.test_camera_fixes import used_radii  # noqa: F401  (a fixture)
from tests.test_camera_hub import GATES, FakeService, marker_scene
from web.cli import main

MARKER_SIDE_PX = 80  # marker_scene() draws each marker 80 px wide


def _hub(service: FakeService, data: Path, **kwargs: Any) -> CameraHub:
    return CameraHub(service, data, on_reading=lambda *_: None, **kwargs)  # type: ignore[arg-type]


def test_markers_at_a_known_printed_size_give_the_marble_radius(tmp_path: Path) -> None:
    # 80 px for a 40 mm marker: 2 px per mm, so a 16 mm marble is 16 px across its radius
    hub = _hub(FakeService(marker_scene()), tmp_path, marker_mm=40.0, marble_mm=16.0)
    hub.set_regions(GATES)
    assert hub.status()["marble"]["source"] == "guess"
    result = hub.anchor_to_markers()
    assert result["marble"]["source"] == "markers"
    assert result["marble"]["radius_px"] == pytest.approx(16.0, abs=0.3)
    assert result["marble"]["px_per_mm"] == pytest.approx(2.0, abs=0.02)
    # saved with the calibration: a fresh hub reads it, and its detector uses it instead of the area guess
    again = _hub(FakeService(marker_scene()), tmp_path)
    assert again.marble_radius == pytest.approx(16.0, abs=0.3)
    detector, _reference, radius = again._detector_for(again.current_regions())
    assert detector.radius_px == radius == again.marble_radius


def test_the_scale_follows_the_markers_seen_smaller() -> None:
    half = cv2.resize(marker_scene(), (320, 240), interpolation=cv2.INTER_AREA)
    size = size_from_markers(detect_markers(half), marker_mm=50.0, marble_mm=16.0)
    assert size.radius_px == pytest.approx(MARKER_SIDE_PX / 2 / 50.0 * 8.0, rel=0.03)
    with pytest.raises(MarbleSizeError, match="outside"):
        size_from_markers(detect_markers(half), marker_mm=70.0, marble_mm=5.0)  # 1.4 px: no marble that small


def _castle_with(gates: tuple[int | None, ...], seed: int) -> SimulatedCastle:
    castle = SimulatedCastle(seed)
    for gate in gates:
        castle.add_marble(gate)
    return castle


@pytest.mark.parametrize("seed", [0, 5, 11])
def test_a_tap_on_a_resting_marble_measures_its_radius(seed: int) -> None:
    castle = _castle_with((1, 3, 3, None), seed)  # two touching or close in gate 3, one on the table
    frame, empty = castle.render(), castle.render_empty()
    for marble in castle.resting():
        size = measure_radius_at(frame, marble.x + 2, marble.y - 2, empty)  # a finger is not on the centre
        assert size is not None and size.source == "tap"
        assert size.radius_px == pytest.approx(marble.r, abs=1.2), marble


def test_the_simulated_castle_gives_its_marble_size_until_a_tap_replaces_it(tmp_path: Path) -> None:
    castle = _castle_with((2,), 1)
    known = castle.marble_size()
    hub = _hub(FakeService(castle.render()), tmp_path, default_regions=castle.regions(), default_marble=known)
    assert hub.status()["marble"]["source"] == "simulation"
    assert hub.marble_radius == known.radius_px
    detector, _reference, radius = hub._detector_for(hub.current_regions())
    assert detector.radius_px == radius == known.radius_px
    assert not hub.marble_path.exists()  # the simulation's size is never saved as a calibration
    hub.reference.offer(castle.render_empty(), beams_idle=True, regions_empty=True, now=1e9)
    marble = castle.resting()[0]
    assert hub.measure_marble(marble.x, marble.y)["source"] == "tap"
    again = _hub(FakeService(castle.render()), tmp_path, default_regions=castle.regions(), default_marble=known)
    assert again.status()["marble"]["source"] == "tap"  # a tap, once saved, outlasts the default
    assert again.marble_radius == pytest.approx(marble.r, abs=1.2)


def test_a_tap_on_nothing_or_without_a_reference_says_so(tmp_path: Path) -> None:
    castle = _castle_with((2,), 1)
    service = FakeService(castle.render())
    hub = _hub(service, tmp_path)
    with pytest.raises(MarbleSizeError, match="empty reference"):
        hub.measure_marble(300, 200)
    hub.reference.offer(castle.render_empty(), beams_idle=True, regions_empty=True, now=1e9)
    with pytest.raises(NoMarble, match="no marble found"):
        hub.measure_marble(560, 120)  # the castle wall, nothing there
    with pytest.raises(ValueError, match="outside"):
        hub.measure_marble(900, 20)
    assert not hub.marble_path.exists()
    marble = castle.resting()[0]
    saved = hub.measure_marble(marble.x, marble.y)
    assert saved["source"] == "tap" and saved["radius_px"] == pytest.approx(marble.r, abs=1.2)
    assert MarbleSize.load(hub.marble_path).radius_px == pytest.approx(saved["radius_px"], abs=0.01)


def test_without_a_reference_the_counts_are_unsure(tmp_path: Path) -> None:
    hub = _hub(FakeService(np.full((480, 640, 3), 120, np.uint8)), tmp_path)
    assert "unsure" in hub.status()["unsure"] and "static" not in hub.status()["unsure"]
    hub.capture_reference()
    assert hub.status()["unsure"] is None


def test_a_gate_at_the_pictures_edge_is_named_on_the_page(tmp_path: Path) -> None:
    """Gates within a marble's radius of the picture's edge: a marble the edge cuts would wait for a tap."""
    hub = _hub(FakeService(np.full((480, 640, 3), 120, np.uint8)), tmp_path,
               default_marble=MarbleSize(12.0, "tap", 0.0))
    assert hub.status()["edge"] is None  # not calibrated yet
    hub.set_regions(GATES)  # gate g spans x from 60 + 70 g to 110 + 70 g: gate 6 reaches 530, far from 639.5
    assert hub.status()["edge"] is None
    shifted = {"gates": [{"gate": g["gate"], "polygon": [[x + 100, y] for x, y in g["polygon"]]}
                         for g in GATES["gates"]]}
    hub.set_regions(shifted)  # gate 6 now reaches x 630, 9.5 px from the edge: within a radius
    assert hub.status()["edge"].startswith("Gate 6 reaches the edge of the picture: the camera does not count a "
                                           "marble the edge cuts (gate 6 is left to the beams then).")
    hub.camera_only = True  # no beams fitted: the gate waits for a tap
    assert "(gate 6 waits for a tap then)" in hub.status()["edge"]
    hub.camera_only = False
    shifted["gates"][0]["polygon"] = [[x - 225, y] for x, y in shifted["gates"][0]["polygon"]]
    hub.set_regions(shifted)  # gate 1 from x 5 on
    assert hub.status()["edge"].startswith("Gates 1, 6 reach the edge")


def test_the_reference_is_taken_before_the_gates_are_calibrated(tmp_path: Path) -> None:
    hub = _hub(FakeService(np.full((480, 640, 3), 120, np.uint8)), tmp_path)
    assert hub.current_regions() is None
    assert hub._refresh_reference(np.full((480, 640, 3), 120, np.uint8), None, last_check=0.0) is not None
    assert hub.reference.get() is not None


@pytest.fixture
def round_photo(tmp_path: Path) -> Path:
    castle = _castle_with((2, 2, None), 3)
    cv2.imwrite(str(tmp_path / "empty.png"), castle.render_empty())
    cv2.imwrite(str(tmp_path / "round.png"), castle.render())
    save_regions(castle.regions(), tmp_path / "gates.json")
    return tmp_path


def _detect(folder: Path, *extra: str) -> list[str]:
    return ["detect", str(folder / "round.png"), "--gates", str(folder / "gates.json"),
            "--reference", str(folder / "empty.png"), "--data", str(folder / "data"), *extra]


def test_detect_takes_the_radius_from_the_saved_calibration(round_photo: Path, capsys: pytest.CaptureFixture,
                                                            used_radii: list[float | None]) -> None:  # noqa: F811
    used = used_radii
    (round_photo / "data" / "camera").mkdir(parents=True)
    MarbleSize(15.5, "tap", 0.0).save(round_photo / "data" / "camera" / "marble.json")
    assert main(_detect(round_photo)) == 0
    out, err = capsys.readouterr()
    assert json.loads(out.splitlines()[0])["counts"] == [0, 2, 0, 0, 0, 0]
    assert "15.5 px from the saved calibration" in err and "a tap on a marble" in err
    assert used == [15.5]

    assert main(_detect(round_photo, "--marble-radius", "14")) == 0  # the option wins over the saved one
    assert "14 px from --marble-radius" in capsys.readouterr().err and used[-1] == 14.0


def test_detect_without_a_saved_radius_guesses_with_a_warning(round_photo: Path,
                                                              capsys: pytest.CaptureFixture) -> None:
    assert main(_detect(round_photo)) == 0
    err = capsys.readouterr().err
    assert "warning: marble radius guessed from the gate regions" in err and "--marble-radius" in err
    (round_photo / "data" / "camera").mkdir(parents=True)
    (round_photo / "data" / "camera" / "marble.json").write_text("{broken")
    assert main(_detect(round_photo)) == 0
    assert "cannot read marble size" in capsys.readouterr().err
    assert main(_detect(round_photo, "--marble-radius", "-3")) == 2


def test_a_tap_through_the_api_measures_and_saves_the_radius(app_config: dict[str, Any]) -> None:
    from tests.waiting import wait_for
    from web.app import create_app, shutdown

    app = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "simulation"})
    try:
        sensors = app.extensions["sensors"]
        wait_for(lambda: sensors.camera.reference.get() is not None)
        client = app.test_client()
        sensors.castle.add_marble(3)
        empty = sensors.camera.reference.get().astype(int)
        wait_for(lambda: np.abs(sensors.camera.service.latest().astype(int) - empty).max() > 100)  # in the picture
        marble = sensors.castle.resting()[0]
        for bad, status in (({"x": "a", "y": 1}, 400), ({"x": 1}, 400), ({"x": 700, "y": 10}, 400),
                            ({"x": 560, "y": 100}, 422)):
            response = client.post("/api/camera/marble", json=bad)
            assert response.status_code == status, (bad, response.get_json())
        shown = client.get("/api/camera").get_json()["marble"]  # the simulated castle's size; nothing saved meanwhile
        assert shown["source"] == "simulation" and shown["radius_px"] == sensors.castle.marble_size().radius_px
        assert not sensors.camera.marble_path.exists()
        saved = client.post("/api/camera/marble", json={"x": marble.x, "y": marble.y})
        assert saved.status_code == 200 and saved.get_json()["marble"]["radius_px"] == pytest.approx(marble.r, abs=1.2)
        shown = client.get("/api/camera").get_json()["marble"]
        assert shown["source"] == "tap" and sensors.camera.marble_radius == pytest.approx(marble.r, abs=1.2)
    finally:
        shutdown(app)

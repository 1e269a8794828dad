"""Photo keeping with the table's consent: off by default and then nothing is written; on, every round the
table accepts is kept as a labelled sample in DATA/photos (the format `companion detect --eval` reads)."""
from __future__ import annotations

import io
import json
import threading
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from hardware.camera import keeping
from hardware.camera.keeping import PhotoKeeper, Sample, kept_samples, zipped_samples
from tests.servers import serving
from tests.waiting import PATIENCE_S, wait_for

NO_FLAGS = {"flags": 0, "wrong_sure": 0}  # kept rounds that record no flags of the camera's (older ones)
LABEL_KEYS = {"counts", "camera_counts", "camera_unsure", "gates", "reference_holds", "marble_radius", "confirmed_at",
              "session", "round"}


@pytest.fixture
def make_app(make_app: Callable[..., Flask]) -> Callable[..., Flask]:
    """The shared simulated-castle apps, with a long settle: no round is read unless a test shortens it."""
    return lambda **config: make_app(**{"CAMERA_SETTLE_S": 10.0, **config})


def _events(client: FlaskClient, session: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    for event in events:
        response = client.post(f"/api/sessions/{session['id']}/events", json=event)
        assert response.status_code == 200, response.get_json()
    return response.get_json()


def _current(client: FlaskClient, session: dict[str, Any]) -> dict[str, Any]:
    return client.get(f"/api/sessions/{session['id']}").get_json()["state"]["current"]


def _round_seen_by_the_camera(app: Flask) -> tuple[FlaskClient, dict[str, Any]]:
    """A game whose first round's three marbles (gates 2, 4, 5) the camera confirmed."""
    client = app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    for gate in (2, 4, 5):  # one per gate: a beam takes two marbles back to back for one
        client.post("/api/simulation/marble", json={"gate": gate, "width_ms": 15})
    wait_for(lambda: (c := _current(client, session))["camera"] and c["confirmed"])
    return client, session


def test_off_by_default_nothing_is_written(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client, session = _round_seen_by_the_camera(app)
    keeper = app.extensions["sensors"].keeper
    assert keeper.enabled is False and client.get("/api/camera").get_json()["keeping"]["enabled"] is False
    scored = _events(client, session, {"type": "guess", "player": "Ben", "gate": 2}, {"type": "reveal", "gate": 2})
    assert scored["scores"] == {"Ada": 1, "Ben": 1}
    assert keeper.flush()
    photos = Path(app.config["DATA_DIR"]) / "photos"
    assert not photos.exists()
    assert keeper.status()["count"] == 0


def test_on_a_confirmed_round_is_kept_in_the_eval_format(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client = app.test_client()
    switched = client.post("/api/camera/keeping", json={"enabled": True})
    assert switched.status_code == 200 and switched.get_json()["keeping"]["enabled"] is True
    client, session = _round_seen_by_the_camera(app)
    _events(client, session, {"type": "guess", "player": "Ben", "gate": 5}, {"type": "reveal", "gate": 2})
    keeper = app.extensions["sensors"].keeper
    assert keeper.flush()
    samples = kept_samples(Path(app.config["DATA_DIR"]) / "photos")
    assert [s.name.split("Z", 1)[1] for s in samples] == [f"-s{session['id']}-r1"]
    sample = samples[0]
    label = json.loads((sample / "label.json").read_text())
    assert set(label) == LABEL_KEYS
    assert label["counts"] == label["camera_counts"] == [0, 1, 0, 1, 1, 0]
    assert label["camera_unsure"] == [False] * 6  # what the camera flagged then: nothing
    assert label["reference_holds"] == []  # an empty reference
    assert label["session"] == session["id"] and label["round"] == 1 and label["confirmed_at"].endswith("Z")
    assert [g["gate"] for g in label["gates"]["gates"]] == [1, 2, 3, 4, 5, 6]
    frame = cv2.imread(str(sample / "frame.png"), cv2.IMREAD_COLOR)
    reference = cv2.imread(str(sample / "reference.png"), cv2.IMREAD_COLOR)
    assert frame is not None and reference is not None and frame.shape == reference.shape == (480, 640, 3)
    assert np.abs(frame.astype(int) - reference.astype(int)).max() > 60  # the marbles are in the frame
    status = client.get("/api/camera").get_json()["keeping"]
    assert status["count"] == 1 and status["folder"].endswith("photos") and status["error"] is None
    assert status["camera"] == {"rounds": 1, "right": 1, "flags": 1, "wrong_sure": 0}


def test_a_round_read_against_a_reference_holding_a_marble_says_so_and_eval_leaves_it_out(
        make_app: Callable[..., Flask]) -> None:
    """The reference taken with a marble in gate 3 ("take it anyway"), the marble taken out: a round kept then says
    that its reference holds a marble in gate 3, and ``--eval`` leaves it out, saying why: with no empty scene it is
    no fair test of the camera."""
    from hardware.vision.evaluate import evaluate

    app = make_app(CAMERA_KEEP_PHOTOS=True)
    sensors, client = app.extensions["sensors"], app.test_client()
    sensors.castle.add_marble(3)
    wait_for(lambda: (sensors.camera.status()["last_detection"] or {}).get("counts", [])[2:3] == [1])
    assert client.post("/api/camera/reference", json={"anyway": True}).status_code == 200
    sensors.castle.clear()
    wait_for(lambda: sensors.camera.status()["reference_holds"] == [3])
    client, session = _round_seen_by_the_camera(app)
    _events(client, session, {"type": "guess", "player": "Ben", "gate": 5}, {"type": "reveal", "gate": 2})
    assert sensors.keeper.flush()
    photos = Path(app.config["DATA_DIR"]) / "photos"
    (sample,) = kept_samples(photos)
    label = json.loads((sample / "label.json").read_text())
    assert label["reference_holds"] == [3] and label["counts"] == [0, 1, 0, 1, 1, 0]
    report = evaluate(photos)
    assert report["samples"] == 0 and report["skipped"] == [{
        "sample": sample.name, "error": "its reference was taken with marbles in gate 3: no empty scene, so no fair "
                                        "test of the camera"}]


def test_a_reference_taken_in_the_round_doubts_its_gates_and_eval_leaves_the_round_out(
        make_app: Callable[..., Flask]) -> None:
    """The empty reference taken "anyway" while the round's marbles lay in gates 2 and 4: the camera cannot see them
    (they are in its empty scene). Those gates read unsure, not a sure 0, so the camera's reading is no answer to
    suggest (ruling D4); the round kept says its reference holds marbles there, and ``--eval`` leaves it out."""
    from hardware.vision.evaluate import evaluate

    app = make_app(CAMERA_SETTLE_S=0.3, CAMERA_KEEP_PHOTOS=True)
    client = app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    for gate in (2, 4):
        client.post("/api/simulation/marble", json={"gate": gate, "width_ms": 15})
    wait_for(lambda: _current(client, session)["marbles"] == [2, 4])
    wait_for(lambda: (client.get("/api/camera").get_json()["last_detection"] or {}).get("counts")
             == [0, 1, 0, 1, 0, 0])  # in the camera's picture too
    assert client.post("/api/camera/reference", json={}).status_code == 409
    assert client.post("/api/camera/reference", json={"anyway": True}).status_code == 200
    client.post("/api/simulation/marble", json={"gate": 5, "width_ms": 15})
    wait_for(lambda: ((_current(client, session)["camera"] or {}).get("counts") or [0] * 6)[4] == 1)
    current = _current(client, session)
    assert current["camera"]["counts"] == [0, 0, 0, 0, 1, 0]  # the marbles of the reference are no marbles to it
    assert {2, 4} <= set(current["camera"]["unsure"]) and current["flag"] and not current["confirmed"]
    _events(client, session, {"type": "confirm", "marbles": [2, 4, 5]}, {"type": "guess", "player": "Ben", "gate": 5},
            {"type": "reveal", "gate": 2})
    sensors = app.extensions["sensors"]
    assert sensors.keeper.flush()
    photos = Path(app.config["DATA_DIR"]) / "photos"
    (sample,) = kept_samples(photos)
    label = json.loads((sample / "label.json").read_text())
    assert label["counts"] == [0, 1, 0, 1, 1, 0] and label["reference_holds"] == [2, 4]
    assert evaluate(photos)["samples"] == 0


def test_a_round_corrected_by_tap_keeps_what_the_table_confirmed(make_app: Callable[..., Flask]) -> None:
    app = make_app(CAMERA_SETTLE_S=0.3, CAMERA_KEEP_PHOTOS=True)  # on from the config file's setting
    client = app.test_client()
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn",
                                                 "players": ["Ada", "Ben", "Cleo"]}).get_json()
    sensors = app.extensions["sensors"]
    sensors.castle.add_marble(4)            # the marble rests in gate 4 ...
    sensors.simulator.roll(3, width_ms=15)  # ... the beam of gate 3 saw it pass
    wait_for(lambda: _current(client, session)["flag"])
    # a person says the beam was right and the camera wrong (a label to learn from either way)
    _events(client, session, {"type": "confirm", "marbles": [3]}, {"type": "guess", "player": "Ben", "gate": 3})
    _events(client, session, {"type": "reveal", "gate": 3})  # kept now; Cleo turns her card over after
    assert sensors.keeper.flush() and len(kept_samples(Path(app.config["DATA_DIR"]) / "photos")) == 1
    _events(client, session, {"type": "turned", "player": "Cleo", "correct": False})
    assert sensors.keeper.flush()
    [sample] = kept_samples(Path(app.config["DATA_DIR"]) / "photos")  # once, not again when scored
    label = json.loads((sample / "label.json").read_text())
    assert label["counts"] == [0, 0, 1, 0, 0, 0] and label["camera_counts"] == [0, 0, 0, 1, 0, 0]
    assert len(label["camera_unsure"]) == 6 and not label["camera_unsure"][3]  # the camera was sure of gate 4
    wrong_sure = int(not label["camera_unsure"][3])
    assert client.get("/api/camera").get_json()["keeping"]["camera"] == {"rounds": 1, "right": 0, "flags": 1,
                                                                        "wrong_sure": wrong_sure}


def _flagged_round(app: Flask, client: FlaskClient) -> dict[str, Any]:
    """A game whose first round is flagged: the marble rests in gate 4, the beam of gate 3 saw it pass."""
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    sensors = app.extensions["sensors"]
    sensors.castle.add_marble(4)
    sensors.simulator.roll(3, width_ms=15)
    wait_for(lambda: _current(client, session)["flag"])
    return session


def test_a_round_cleared_and_entered_by_tap_keeps_the_photo_it_corrects(make_app: Callable[..., Flask]) -> None:
    """"Clear, enter by tap" drops the round's camera reading with the first tap; the photo the person corrected
    is the round's all the same, and the taps are its label (the rounds the camera got wrong teach it most)."""
    app = make_app(CAMERA_SETTLE_S=0.3, CAMERA_KEEP_PHOTOS=True)
    client = app.test_client()
    session = _flagged_round(app, client)
    _events(client, session, {"type": "confirm", "marbles": []}, {"type": "marble", "gate": 3},
            {"type": "marble", "gate": None})
    assert _current(client, session)["camera"] is None
    _events(client, session, {"type": "reveal", "gate": 3})
    keeper = app.extensions["sensors"].keeper
    assert keeper.flush()
    [sample] = kept_samples(Path(app.config["DATA_DIR"]) / "photos")
    label = json.loads((sample / "label.json").read_text())
    assert label["counts"] == [0, 0, 1, 0, 0, 0] and label["camera_counts"] == [0, 0, 0, 1, 0, 0]
    assert label["round"] == 1 and (sample / "frame.png").exists()


def test_a_marble_a_beam_sees_after_the_clear_keeps_no_stale_photo(make_app: Callable[..., Flask]) -> None:
    """After "Clear", a marble a beam sees rolled after the photo: the photo no longer shows the round."""
    app = make_app(CAMERA_SETTLE_S=10.0, CAMERA_KEEP_PHOTOS=True)
    client = app.test_client()
    sensors = app.extensions["sensors"]
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    sensors.castle.add_marble(4)
    sensors.camera.confirm_now()  # the photo: one marble in gate 4
    wait_for(lambda: _current(client, session)["camera"])
    _events(client, session, {"type": "confirm", "marbles": []})
    sensors.simulator.roll(2, width_ms=15)  # a marble rolled after the photo (no new reading: a long settle)
    assert sensors.gates.flush(timeout=PATIENCE_S)
    wait_for(lambda: _current(client, session)["marbles"] == [2])
    _events(client, session, {"type": "marble", "gate": 4}, {"type": "reveal", "gate": 4})
    assert sensors.keeper.flush()
    assert kept_samples(Path(app.config["DATA_DIR"]) / "photos") == []


def test_a_round_with_a_fourth_marble_keeps_no_photo(make_app: Callable[..., Flask]) -> None:
    """Four marbles rolled in: the round is flagged, and a person enters the three that count by tap. The photo
    shows four, the table's counts name three: no label of it would be true, so nothing is kept (a label of 2 in
    gate 4 under a photo of 3 there was kept, and the Camera page counted it as the camera's wrong and sure)."""
    app = make_app(CAMERA_SETTLE_S=0.3, CAMERA_KEEP_PHOTOS=True)
    client = app.test_client()
    sensors = app.extensions["sensors"]
    session = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["Ada", "Ben"]}).get_json()
    for gate in (2, 4, 5, 6):  # one per gate: a beam takes two marbles back to back for one
        client.post("/api/simulation/marble", json={"gate": gate, "width_ms": 15})
    wait_for(lambda: "more than 3" in (_current(client, session)["flag"] or ""))
    wait_for(lambda: (_current(client, session)["camera"] or {}).get("counts") == [0, 1, 0, 1, 1, 1])
    _events(client, session, {"type": "confirm", "marbles": []}, *({"type": "marble", "gate": g} for g in (2, 4, 5)),
            {"type": "guess", "player": "Ben", "gate": 4}, {"type": "reveal", "gate": 4})
    assert sensors.keeper.flush()
    assert kept_samples(Path(app.config["DATA_DIR"]) / "photos") == []
    assert client.get("/api/camera").get_json()["keeping"]["count"] == 0


def test_a_photo_that_cannot_be_kept_never_breaks_the_reveal(make_app: Callable[..., Flask]) -> None:
    app = make_app(CAMERA_KEEP_PHOTOS=True)
    (Path(app.config["DATA_DIR"]) / "photos").write_text("a file where the folder should be")
    client, session = _round_seen_by_the_camera(app)
    scored = _events(client, session, {"type": "guess", "player": "Ben", "gate": 4}, {"type": "reveal", "gate": 4})
    assert scored["scores"] == {"Ada": 1, "Ben": 1}  # the tap went through
    assert app.extensions["sensors"].keeper.flush()
    keeping = client.get("/api/camera").get_json()["keeping"]
    assert "could not be kept" in keeping["error"] and keeping["count"] == 0


def test_the_choice_is_saved_and_bad_input_changes_nothing(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client = app.test_client()
    for bad in ({"enabled": "yes"}, {}, {"enabled": True, "more": 1}):
        response = client.post("/api/camera/keeping", json=bad)
        assert response.status_code == 400 and response.get_json()["error"]["code"] == "malformed"
    assert app.extensions["sensors"].keeper.enabled is False
    client.post("/api/camera/keeping", json={"enabled": True})
    keeper = app.extensions["sensors"].keeper
    again = PhotoKeeper(keeper.folder, keeper.choice_path, enabled=False)
    assert again.enabled is True  # the Camera page's choice survives a restart and wins over the default


def _sample(at: float, session: int = 1, round_number: int = 1,
            camera: tuple[int, ...] | None = None) -> Sample:
    frame = np.full((48, 64, 3), 90, np.uint8)
    return Sample(frame=frame, reference=None, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                  camera_counts=camera, marble_radius=None, session=session, round=round_number, confirmed_at=at)


def test_a_round_kept_while_the_photos_are_first_listed_is_counted(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The Camera page asks for the first time (after a restart, or a deletion) while a round is being kept: the
    older listing never replaces the tally with the new round in it."""
    keeper = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json", enabled=True)
    listed, written = threading.Event(), threading.Event()
    real = keeping.kept_samples

    def slow_listing(folder: Path) -> list[Path]:
        samples = real(folder)
        if threading.current_thread().name == "page":  # the page's listing, slow: the round is kept meanwhile
            listed.set()
            written.wait(1.0)
        return samples

    monkeypatch.setattr(keeping, "kept_samples", slow_listing)
    asking = threading.Thread(target=keeper.status, name="page", daemon=True)
    asking.start()
    assert listed.wait(PATIENCE_S)
    assert keeper.keep(_sample(time.time()))
    assert keeper.flush()
    written.set()
    asking.join(PATIENCE_S)
    assert keeper.status()["count"] == 1 == len(real(tmp_path / "photos"))


def test_only_the_newest_samples_are_kept(tmp_path: Path) -> None:
    keeper = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json", enabled=True, limit=2)
    start = time.time()
    for number in range(1, 4):
        assert keeper.keep(_sample(start + number, round_number=number))
    assert keeper.flush()
    names = [p.name for p in kept_samples(tmp_path / "photos")]
    assert [n[16:] for n in names] == ["-s1-r2", "-s1-r3"]  # the oldest went
    assert not (tmp_path / "photos" / names[0] / "reference.png").exists()  # no reference: none kept
    assert keeper.status()["count"] == 2
    keeper.close()


def test_a_failing_write_is_shown_never_raised(tmp_path: Path) -> None:
    (tmp_path / "photos").write_text("a file where the folder should be")
    keeper = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json", enabled=True)
    assert keeper.keep(_sample(time.time()))  # queued: the tap goes on at once
    assert keeper.flush()
    assert "could not be kept" in keeper.status()["error"]
    keeper.close()


def test_switched_off_keep_writes_nothing(tmp_path: Path) -> None:
    keeper = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json")
    assert keeper.keep(_sample(time.time())) is False
    assert not (tmp_path / "photos").exists() and not (tmp_path / "choice.json").exists()


def test_the_camera_record_of_the_kept_rounds(tmp_path: Path) -> None:
    """How often the camera read a kept round as the table confirmed it, over the samples kept now: the
    oldest leave the record with their photos, a round without a camera reading or with an unreadable
    label is not in it, and a keeper started again reads the record from the labels."""
    right, wrong = (1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1)
    keeper = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json", enabled=True, limit=3)
    assert keeper.status()["camera"] == {"rounds": 0, "right": 0, **NO_FLAGS}
    start = time.time()
    for number, camera in enumerate((wrong, right, None, right), 1):
        assert keeper.keep(_sample(start + number, round_number=number, camera=camera))
    assert keeper.flush()
    status = keeper.status()
    # the wrong one was oldest
    assert status["count"] == 3 and status["camera"] == {"rounds": 2, "right": 2, **NO_FLAGS}
    keeper.close()
    samples = kept_samples(tmp_path / "photos")
    (samples[-1] / "label.json").write_text("{ not json")
    again = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json")
    assert again.status()["count"] == 3 and again.status()["camera"] == {"rounds": 1, "right": 1, **NO_FLAGS}



def _on_disk(photos: Path) -> int:
    return sum(f.stat().st_size for f in photos.rglob("*") if f.is_file())


def test_the_disk_the_kept_photos_take_is_counted_as_they_are_written(
        make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch) -> None:
    """The Camera page's figure ("2 rounds kept, 21 MB"): the bytes of the kept files, up when a round is kept,
    down when the oldest go or all are deleted; each sample is measured once, when written, not on every request
    (the page asks every two seconds, and the folder may hold thousands of files)."""
    app = make_app(CAMERA_KEEP_MAX=2)
    client = app.test_client()
    keeper = app.extensions["sensors"].keeper
    photos = Path(app.config["DATA_DIR"]) / "photos"
    assert client.get("/api/camera").get_json()["keeping"]["bytes"] == 0
    measured: list[str] = []
    real = keeping.sample_bytes
    monkeypatch.setattr(keeping, "sample_bytes", lambda p: measured.append(p.name) or real(p))
    keeper.set_enabled(True)
    start = time.time()
    for number in (1, 2, 3):
        assert keeper.keep(_noisy_sample(start + number, number))
        assert keeper.flush()
        status = client.get("/api/camera").get_json()["keeping"]
        assert status["count"] == min(number, 2) and status["bytes"] == _on_disk(photos) > 0
    for _ in range(5):
        assert client.get("/api/camera").get_json()["keeping"]["bytes"] == _on_disk(photos)
    assert len(measured) == 3  # once each, when written
    again = PhotoKeeper(photos, Path(app.config["DATA_DIR"]) / "choice.json")  # a restart: listed once
    assert again.status()["bytes"] == _on_disk(photos) and len(measured) == 5
    deleted = client.delete("/api/camera/photos").get_json()["keeping"]
    assert deleted["count"] == 0 and deleted["bytes"] == 0

# ---- the kept photos as one download ---------------------------------------------------------------------------

def _noisy_sample(at: float, round_number: int, size: tuple[int, int] = (48, 64)) -> Sample:
    """A sample whose frame does not compress: a download of a few of them outlasts the socket's buffers."""
    frame = np.random.default_rng(round_number).integers(0, 256, (*size, 3), dtype=np.uint8)
    return Sample(frame=frame, reference=frame[::-1].copy(), gates={"gates": []}, counts=(0, 1, 0, 0, 0, 0),
                  camera_counts=(0, 1, 0, 0, 0, 0), marble_radius=9.5, session=7, round=round_number, confirmed_at=at)


def _unzipped(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        return {info.filename: archive.read(info) for info in archive.infolist()}


def test_the_kept_samples_zip_byte_for_byte_and_a_sample_gone_is_left_out(tmp_path: Path) -> None:
    keeper = PhotoKeeper(tmp_path / "photos", tmp_path / "choice.json", enabled=True)
    start = time.time()
    for number in (1, 2):
        keeper.keep(_noisy_sample(start + number, number, size=(300, 400)))
    assert keeper.flush()
    samples = kept_samples(tmp_path / "photos")
    files = _unzipped(b"".join(zipped_samples([*samples, tmp_path / "photos" / "gone"], "top")))
    expected = {f"top/{s.name}/{f.name}": f.read_bytes() for s in samples for f in s.iterdir()}
    assert set(files) == set(expected) and len(files) == 6  # frame, reference, label of each
    assert files == expected
    keeper.close()


def test_the_kept_photos_download_from_the_camera_page(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    client = app.test_client()
    none = client.get("/camera/photos.zip")
    assert none.status_code == 404 and "No photos are kept yet" in none.get_data(as_text=True)
    keeper = app.extensions["sensors"].keeper
    keeper.set_enabled(True)
    for number in (1, 2, 3):
        keeper.keep(_noisy_sample(time.time() + number, number))
    assert keeper.flush()
    watcher = app.test_client()
    watcher.environ_base = {"REMOTE_ADDR": "192.168.1.50"}  # an unpaired tablet: a camera picture is not its to take
    assert watcher.get("/camera/photos.zip").status_code == 403
    response = client.get("/camera/photos.zip", buffered=False)
    assert response.status_code == 200 and response.mimetype == "application/zip"
    assert response.headers["Content-Disposition"].startswith('attachment; filename="companion-photos-')
    second = client.get("/camera/photos.zip")
    assert second.status_code == 409 and "downloaded already" in second.get_data(as_text=True)
    files = _unzipped(b"".join(response.response))  # type: ignore[arg-type]
    response.close()
    labels = [json.loads(data) for name, data in files.items() if name.endswith("/label.json")]
    assert len(files) == 9 and [label["round"] for label in labels] == [1, 2, 3]
    assert client.get("/camera/photos.zip").status_code == 200  # the first one ended: the next may start


def test_a_download_broken_off_frees_the_next(make_app: Callable[..., Flask]) -> None:
    """A tablet that stops reading half way (it left the Wi-Fi) does not keep the photos locked."""
    app = make_app()
    keeper = app.extensions["sensors"].keeper
    keeper.set_enabled(True)
    for number in range(1, 9):
        keeper.keep(_noisy_sample(time.time() + number, number, size=(480, 640)))  # about 2 MB each
    assert keeper.flush()
    with serving(app) as base:
        first = urllib.request.urlopen(f"{base}/camera/photos.zip", timeout=PATIENCE_S)
        assert first.status == 200 and first.read(1000)[:2] == b"PK"
        first.close()  # broken off with megabytes still to come

        def whole() -> bytes | None:
            try:
                with urllib.request.urlopen(f"{base}/camera/photos.zip", timeout=PATIENCE_S) as again:
                    return again.read()
            except urllib.error.HTTPError as err:
                assert err.code == 409  # the server has not yet seen the first one end
                return None

        data = wait_for(whole)
    assert len(_unzipped(data)) == 24


# ---- the kept photos deleted ------------------------------------------------------------------------------------

def test_the_kept_photos_are_deleted_from_the_camera_page(make_app: Callable[..., Flask]) -> None:
    """The table takes its photos back without a shell: every sample folder goes (a damaged one too), keeping
    stays as it was; an unpaired tablet may not, and nor may anyone while they are being downloaded."""
    app = make_app()
    client = app.test_client()
    keeper = app.extensions["sensors"].keeper
    keeper.set_enabled(True)
    for number in (1, 2):
        keeper.keep(_sample(time.time() + number, round_number=number, camera=(1, 0, 0, 0, 0, 0)))
    assert keeper.flush()
    photos = Path(app.config["DATA_DIR"]) / "photos"
    (kept_samples(photos)[0] / "label.json").unlink()  # a damaged one, not counted as kept
    (photos / ".20261201T000000Z-s1-r9.tmp").mkdir()  # one cut short by a power cut
    watcher = app.test_client()
    watcher.environ_base = {"REMOTE_ADDR": "192.168.1.50"}
    assert watcher.delete("/api/camera/photos").status_code == 403
    assert keeper.sending.acquire(blocking=False)  # a download under way
    try:
        busy = client.delete("/api/camera/photos")
        assert busy.status_code == 409 and "being downloaded" in busy.get_json()["error"]["message"]
    finally:
        keeper.sending.release()
    assert len(list(photos.iterdir())) == 3
    deleted = client.delete("/api/camera/photos")
    assert deleted.status_code == 200, deleted.get_json()
    status = deleted.get_json()["keeping"]
    assert status["count"] == 0 and status["enabled"] is True
    assert status["camera"] == {"rounds": 0, "right": 0, **NO_FLAGS}
    assert list(photos.iterdir()) == []
    assert client.get("/camera/photos.zip").status_code == 404
    keeper.keep(_sample(time.time() + 3, round_number=3))  # still on: the next round is kept
    assert keeper.flush() and client.get("/api/camera").get_json()["keeping"]["count"] == 1

"""A table owner's review of the camera, the server and `companion detect` part: a camera with no gate regions yet
shows its plain picture (to aim and focus it by) and one with no picture says why; `--eval` says what the kept rounds
measure (the camera's own certainty) and that a path does not exist; `detect` on a kept round takes the marble's
radius from its label."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
import pytest
from flask import Flask

from hardware.camera.marble_size import MarbleSize
from tests.test_photo_eval import kept_sample
from tests.waiting import wait_for
from web.cli import main


def castle_photo(folder: Path) -> tuple[Path, np.ndarray]:
    """A 640x480 photo for a `file:` camera: a castle no gate region was ever tapped on."""
    picture = np.zeros((480, 640, 3), np.uint8)
    picture[:] = (60, 90, 120)
    cv2.rectangle(picture, (100, 100), (300, 300), (200, 200, 200), -1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "castle.png"
    cv2.imwrite(str(path), picture)
    return path, picture


def test_a_camera_with_no_gate_regions_yet_shows_its_plain_picture(make_app: Callable[..., Flask],
                                                                     tmp_path: Path) -> None:
    """On a fresh data folder the preview answered 503 "no picture yet: ... or not calibrated" for good: the owner
    could not see the picture to aim and focus the camera before tapping the corners."""
    path, picture = castle_photo(tmp_path / "photos")
    app = make_app(CAMERA=f"file:{path}")
    client = app.test_client()
    hub = app.extensions["sensors"].camera
    wait_for(lambda: hub.service.status()["ok"] and hub.service.latest() is not None)
    assert client.get("/api/camera").get_json()["calibrated"] is False
    response = client.get("/camera/preview.jpg")
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "image/jpeg" and response.headers["Cache-Control"] == "no-store"
    shown = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == picture.shape
    # the plain picture: nothing drawn over it (no region, no count), only the JPEG's own small differences
    assert float(np.abs(shown.astype(int) - picture.astype(int)).mean()) < 3.0


def test_a_camera_that_truly_has_no_picture_still_answers_503_and_says_why(make_app: Callable[..., Flask],
                                                                         tmp_path: Path) -> None:
    missing = tmp_path / "absent.png"
    app = make_app(CAMERA=f"file:{missing}")
    client = app.test_client()
    hub = app.extensions["sensors"].camera
    wait_for(lambda: hub.service.status()["state"] == "retrying")
    response = client.get("/camera/preview.jpg")
    assert response.status_code == 503
    error = response.get_json()["error"]
    assert error["code"] == "no_picture"
    assert "not calibrated" not in error["message"]  # calibration has nothing to do with it now
    assert error["message"].startswith("no picture: the camera gives none now (") and str(missing) in error["message"]


def test_eval_says_the_camera_was_sure_of_a_wrong_count_not_that_nobody_asked_for_a_tap(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kept round is wrong only where a person corrected it: such a round was flagged (by the beams' disagreement)
    and settled by a tap. "read a gate wrong without asking for a tap" said otherwise; the figure stays."""
    kept_sample(tmp_path, 1)  # read right
    kept_sample(tmp_path, 2, camera_counts=(0, 0, 1, 0, 0, 0), camera_unsure=(False, True, True, False, False, False))
    kept_sample(tmp_path, 3, camera_counts=(0, 0, 1, 0, 0, 0))  # wrong, and sure of it
    kept_sample(tmp_path, 4, camera_counts=(1, 1, 0, 0, 0, 0))  # wrong, and sure of it
    assert main(["detect", "--eval", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "without asking for a tap" not in out
    assert ("  sure of a wrong count: 2 of 4 rounds (the table asked for a tap there because the beams disagreed, or "
            "a person corrected it)") in out.splitlines()


def test_eval_of_a_path_that_does_not_exist_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nowhere = tmp_path / "no" / "such" / "path"
    assert main(["detect", "--eval", str(nowhere)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "Traceback" not in out.err
    assert "not a folder or a zip" not in out.err
    assert out.err.startswith(f"companion detect: --eval {nowhere}: no such folder or zip (nothing is there)")


@pytest.fixture
def used_radii(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """The marble radius each MarbleDetector is made with."""
    import hardware.vision.detect as detect

    used: list[float | None] = []
    original = detect.MarbleDetector.__init__

    def recording(self: Any, *args: Any, **kwargs: Any) -> None:
        used.append(kwargs.get("marble_radius_px"))
        original(self, *args, **kwargs)

    monkeypatch.setattr(detect.MarbleDetector, "__init__", recording)
    return used


def _detect_kept(folder: Path, data: Path, *extra: str) -> list[str]:
    """The README's own example: a kept round's frame, with the gates of its label and its reference."""
    return ["detect", str(folder / "frame.png"), "--gates", str(folder / "label.json"), "--reference",
            str(folder / "reference.png"), "--data", str(data), *extra]


def test_detect_on_a_kept_round_takes_the_marble_radius_from_its_label(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], used_radii: list[float | None]) -> None:
    folder = kept_sample(tmp_path / "photos", 1)
    radius = json.loads((folder / "label.json").read_text())["marble_radius"]
    data = tmp_path / "data"  # no calibration saved here
    assert main(_detect_kept(folder, data)) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["counts"] == [0, 1, 0, 0, 0, 0]
    assert "guessed" not in out.err and "measure it on the Camera page" not in out.err
    assert f"marble radius {radius:g} px from {folder / 'label.json'}" in out.err
    assert used_radii == [radius]

    (data / "camera").mkdir(parents=True)
    MarbleSize(15.5, "tap", 0.0).save(data / "camera" / "marble.json")  # the table's calibration today...
    assert main(_detect_kept(folder, data)) == 0
    assert f"{radius:g} px from {folder / 'label.json'}" in capsys.readouterr().err  # ...not the round's
    assert used_radii[-1] == radius

    assert main(_detect_kept(folder, data, "--marble-radius", "14")) == 0  # an explicit radius still wins
    assert "marble radius 14 px from --marble-radius" in capsys.readouterr().err and used_radii[-1] == 14.0


@pytest.mark.parametrize("bad", ["-3", "0.5", '"big"', "true", "[12]"])
def test_a_kept_label_whose_marble_radius_is_no_radius_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    folder = kept_sample(tmp_path / "photos", 1)
    label = json.loads((folder / "label.json").read_text())
    text = json.dumps({**label, "marble_radius": "@"}).replace('"@"', bad)
    (folder / "label.json").write_text(text)
    assert main(_detect_kept(folder, tmp_path / "data")) == 2
    out = capsys.readouterr()
    assert out.out == "" and "Traceback" not in out.err and len(out.err.strip().splitlines()) == 1
    assert out.err.startswith(f"companion detect: {folder / 'label.json'}: marble_radius must be a marble's radius")
    assert main(_detect_kept(folder, tmp_path / "data", "--marble-radius", "9")) == 0  # given: the label's is not read
    assert "9 px from --marble-radius" in capsys.readouterr().err

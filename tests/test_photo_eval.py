"""`companion detect --eval` on a folder of kept photos as a table owner has it: a sample with a file missing or
damaged is named with what is wrong (none passed over in silence), and the data folder named instead of its
photos folder says where they are."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hardware.camera.keeping import Sample, write_sample
from hardware.camera.simulated import SimulatedCastle
from web.cli import main


def _kept(folder: Path, round_number: int) -> Path:
    """One sample as photo keeping writes it: the simulated castle with one marble in gate 2."""
    castle = SimulatedCastle()
    castle.add_marble(2)
    return write_sample(folder, Sample(
        frame=castle.render(), reference=castle.render_empty(), gates=castle.regions().to_json(),
        counts=(0, 1, 0, 0, 0, 0), camera_counts=(0, 1, 0, 0, 0, 0), marble_radius=castle.marble_size().radius_px,
        session=1, round=round_number, confirmed_at=time.time() + round_number))


def test_every_damaged_sample_is_named_with_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    good, no_label, no_frame, cut, bad_reference = (_kept(photos, n) for n in range(1, 6))
    (no_label / "label.json").unlink()
    (no_frame / "frame.png").unlink()
    (cut / "frame.png").write_bytes((cut / "frame.png").read_bytes()[:1000])
    (bad_reference / "reference.png").write_bytes(b"not a png")
    (photos / ".20261201T000000Z-s1-r9.tmp").mkdir()  # a sample being written: not one yet
    (photos / ".20261201T000000Z-s1-r9.tmp" / "frame.png").write_bytes(b"")
    assert main(["detect", "--eval", str(photos), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["samples"] == 1
    assert {s["sample"]: s["error"] for s in report["skipped"]} == {
        no_label.name: "label.json is missing: the confirmed counts are not known",
        no_frame.name: "frame.png is missing",
        cut.name: "frame.png is not a readable image (damaged or cut short)",
        bad_reference.name: "reference.png is not a readable image (damaged or cut short)",
    }
    assert main(["detect", "--eval", str(photos)]) == 0
    out = capsys.readouterr()
    assert "samples: 1 (4 skipped)" in out.out and f"skipped {no_label.name}: label.json is missing" in out.out
    assert "Traceback" not in out.err


def test_the_data_folder_named_instead_of_its_photos_says_where_they_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _kept(tmp_path / "photos", 1)
    (tmp_path / "camera").mkdir()
    (tmp_path / "camera" / "empty-reference.png").write_bytes(b"")
    assert main(["detect", "--eval", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"the kept photos are in its photos folder: companion detect --eval {tmp_path / 'photos'}" in err

"""`companion detect --eval DIR` on a small labelled folder written from rendered scenes."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from hardware.camera.keeping import zipped_samples
from hardware.vision import detect_cli
from hardware.vision.detect import MarbleDetector
from hardware.vision.evaluate import wilson
from tests.scenes import make_scene
from tests.waiting import PATIENCE_S


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    detect_cli.add_arguments(parser)
    return detect_cli.run(parser.parse_args(argv))


def _write_sample(root: Path, name: str, seed: int, *, counts: list[int] | None = None,
                  reference: bool = True) -> list[int]:
    """A sample folder as the table's photo keeping writes it; returns the label's counts."""
    sc = make_scene(seed)
    folder = root / name
    folder.mkdir()
    cv2.imwrite(str(folder / "frame.png"), sc.image)
    if reference:
        cv2.imwrite(str(folder / "reference.png"), sc.reference)
    label = list(sc.counts) if counts is None else counts
    (folder / "label.json").write_text(json.dumps({
        "counts": label, "camera_counts": list(sc.counts), "gates": sc.regions.to_json(),
        "marble_radius": sc.marble_radius_px, "confirmed_at": "2026-12-01T10:30:00Z", "session": 1, "round": seed}))
    return label


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Four rendered samples the detector reads exactly, one whose label says otherwise, one
    without a reference (no fair test: skipped), one unreadable and one with a broken label."""
    root = tmp_path_factory.mktemp("photos")
    good = []
    for seed in range(40, 200):
        sc = make_scene(seed)
        det = MarbleDetector(sc.regions, sc.reference, marble_radius_px=sc.marble_radius_px).detect(sc.image)
        if sum(sc.counts) >= 1 and det.counts == sc.counts:
            good.append(seed)
        if len(good) == 5:
            break
    for i, seed in enumerate(good[:4]):
        _write_sample(root, f"20261201T10300{i}Z-s1-r{i}", seed)
    wrong = list(make_scene(good[4]).counts)
    wrong[0] += 2  # the person confirmed two more marbles in gate 1 than there are
    _write_sample(root, "20261201T103009Z-s1-r9", good[4], counts=wrong)
    _write_sample(root, "20261201T103010Z-s2-r1", 0, reference=False)
    bad = root / "20261201T103011Z-s2-r2"
    bad.mkdir()
    (bad / "label.json").write_text("{not json")
    noframe = root / "20261201T103012Z-s2-r3"
    noframe.mkdir()
    (noframe / "label.json").write_text(json.dumps({"counts": [0] * 6, "gates": make_scene(0).regions.to_json()}))
    (root / "notes.txt").write_text("not a sample")
    return root


def test_eval_report_counts_exact_and_wrong_samples(folder, capsys) -> None:
    assert _cli(["--eval", str(folder), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["samples"] == 5
    assert {s["sample"] for s in rep["skipped"]} == {"20261201T103010Z-s2-r1", "20261201T103011Z-s2-r2",
                                                     "20261201T103012Z-s2-r3"}
    assert "reference.png is missing" in next(s["error"] for s in rep["skipped"] if s["sample"].endswith("r1"))
    assert "not valid JSON" in next(s["error"] for s in rep["skipped"] if s["sample"].endswith("r2"))
    assert "frame.png" in next(s["error"] for s in rep["skipped"] if s["sample"].endswith("r3"))
    # four exact samples and the wrongly labelled one (one wrong gate)
    worst = {w["sample"]: w for w in rep["worst"]}
    assert list(worst) == ["20261201T103009Z-s1-r9"]
    assert worst["20261201T103009Z-s1-r9"]["wrong_gates"] == 1
    assert worst["20261201T103009Z-s1-r9"]["expected"][0] == worst["20261201T103009Z-s1-r9"]["counts"][0] + 2
    assert rep["six_exact"] == pytest.approx(4 / 5, abs=1e-3)
    low, high = rep["six_exact_interval"]  # 4 of 5: a wide interval around the rate
    assert low < rep["six_exact"] < high and high - low > 0.4
    assert (low, high) == pytest.approx(wilson(4, 5), abs=1e-4)
    assert rep["per_gate_exact"][0] == 4 / 5
    assert rep["gate_exact"] < 1.0
    # the camera's recorded reading agrees with the truth, not with the wrong label
    assert rep["camera_six_exact"] == pytest.approx(4 / 5, abs=1e-3)


def test_eval_text_report(folder, capsys) -> None:
    """The text report speaks to a table owner: rounds and gates counted ("5 of 6 rounds (83%)"), what today's
    detector reads apart from what the camera read at the table, how little few rounds can tell, the worst rounds."""
    assert _cli(["--eval", str(folder), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert _cli(["--eval", str(folder)]) == 0
    out = capsys.readouterr().out
    right = rep["counts"]["six_right"]
    low, high = rep["six_exact_interval"]
    assert out.startswith("Kept rounds: 5 read, 3 skipped\n"), out
    assert (f"Today's detector, reading the kept photos again:\n  all six gates right: {right} of 5 rounds "
            f"({right / 5:.0%}); on 5 rounds the true share may lie anywhere from {low:.0%} to {high:.0%}\n") in out
    assert re.search(r"gates right: 2[0-9] of 30 \(\d+%\); gate by gate: 1: [0-5] of 5, 2: [0-5] of 5", out), out
    assert "As the camera read them at the table:\n  all six gates right: 4 of 5 rounds (80%)" in out
    assert "Rounds read wrong, worst first:\n" in out and "20261201T103009Z-s1-r9: read" in out
    assert "0." not in out.replace("20261201T", "")  # shares in per cent, never 0.833


def test_eval_without_samples_exits_2(tmp_path, capsys) -> None:
    assert _cli(["--eval", str(tmp_path), "--json"]) == 2
    rep = json.loads(capsys.readouterr().out)
    assert rep["samples"] == 0 and rep["six_exact"] is None and rep["six_exact_interval"] is None
    assert _cli(["--eval", str(tmp_path / "missing")]) == 2
    assert "no such folder or zip" in capsys.readouterr().err


def test_eval_reads_the_zip_the_camera_page_sends(folder, tmp_path, capsys) -> None:
    """The zip of the kept photos (as the Camera page's download builds it) reads as the folder does; a zip
    broken off half way is refused in plain words."""
    assert _cli(["--eval", str(folder), "--json"]) == 0
    from_folder = json.loads(capsys.readouterr().out)
    samples = sorted(p for p in folder.iterdir() if p.is_dir())
    zipped = tmp_path / "photos.zip"
    zipped.write_bytes(b"".join(zipped_samples(samples, "companion-photos-20261201-103000")))
    assert _cli(["--eval", str(zipped), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_folder
    data = zipped.read_bytes()
    broken = tmp_path / "broken.zip"
    broken.write_bytes(data[:len(data) // 2] + data[-22:])  # its index, but half of what it indexes
    assert _cli(["--eval", str(broken)]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_a_reader_that_stops_early_ends_the_command_quietly(folder) -> None:
    """`companion detect --eval DIR | head`: the report meets a closed pipe; no traceback, exit 1."""
    command = [sys.executable, "-c", "import sys; from web.cli import main; sys.exit(main(sys.argv[1:]))",
               "detect", "--eval", str(folder)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # before the report: the command reads six samples first
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=PATIENCE_S) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_eval_refuses_images_too(folder, capsys) -> None:
    assert _cli(["x.png", "--eval", str(folder)]) == 2
    assert "give no IMAGE" in capsys.readouterr().err


def test_images_still_need_gates(capsys) -> None:
    assert _cli(["x.png"]) == 2
    assert "--gates" in capsys.readouterr().err

"""`companion detect` as a table owner meets it: the Camera page's download unzipped is read through its folder,
a kept round without its empty reference is left out and named, counts read without a reference come with a
warning, --json without --eval is refused, and the README's size of a kept round is what photo keeping writes."""
from __future__ import annotations

import json
import re
import time
import zipfile
from pathlib import Path

import pytest

from hardware.camera.keeping import Sample, sample_bytes, write_sample, zipped_samples
from hardware.camera.simulated import SimulatedCameraSource, SimulatedCastle
from tests.test_photo_eval import _denied, kept_sample
from web.cli import main

README = Path(__file__).parent.parent / "README.md"


def _unzipped(download: list[Path], into: Path, top: str) -> Path:
    """The Camera page's zip of ``download`` unzipped in ``into``, as `cd into && unzip ….zip` leaves it."""
    zipped = into.parent / f"{top}.zip"
    zipped.write_bytes(b"".join(zipped_samples(download, top)))
    into.mkdir(exist_ok=True)
    with zipfile.ZipFile(zipped) as archive:
        archive.extractall(into)
    return into / top


def test_the_download_unzipped_is_read_through_its_folder(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    rounds = [kept_sample(photos, n) for n in (1, 2)]
    evaldir = tmp_path / "evaldir"
    inner = _unzipped(rounds, evaldir, "companion-photos-20261207-115924")
    (evaldir / "companion-photos-20261207-115924.zip").write_bytes(b"")  # the zip beside it: no folder
    assert main(["detect", "--eval", str(evaldir)]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("Kept rounds: 2 read, 0 skipped")
    assert out.err.strip() == f"companion detect: {evaldir} holds no kept round itself: reading those in {inner}"
    assert main(["detect", "--eval", str(evaldir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["samples"] == 2 and report["repeated"] == 0


def test_downloads_side_by_side_are_read_each_round_once(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A second download holds the rounds of the first again: each is read once, named with its folder."""
    photos = tmp_path / "photos"
    first, second, third = (kept_sample(photos, n) for n in (1, 2, 3))
    evaldir = tmp_path / "evaldir"
    older = _unzipped([first, second], evaldir, "companion-photos-20261201-100000")
    newer = _unzipped([first, second, third], evaldir, "companion-photos-20261207-100000")
    (newer / third.name / "label.json").write_text("{not json")
    assert main(["detect", "--eval", str(evaldir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["samples"] == 2 and report["repeated"] == 2
    assert report["skipped"] == [{"sample": f"{newer.name}/{third.name}", "error": "label.json is not valid JSON"}]
    assert main(["detect", "--eval", str(evaldir)]) == 0
    out = capsys.readouterr()
    assert "  2 more found again in a later folder: each round read once" in out.out
    assert out.err.strip().endswith(f"reading those in {older}, {newer}")


def test_a_folder_beside_the_download_this_user_may_not_list_is_passed_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Unzipped on a USB stick beside its lost+found: the download is read; with nothing else there, the folder
    that cannot be read is named, with sudo to try."""
    stick = tmp_path / "stick"
    inner = _unzipped([kept_sample(tmp_path / "photos", 1)], stick, "companion-photos-20261207-115924")
    (stick / "lost+found").mkdir()
    _denied(monkeypatch, "iterdir", stick / "lost+found")
    assert main(["detect", "--eval", str(stick)]) == 0
    assert capsys.readouterr().out.startswith("Kept rounds: 1 read, 0 skipped")
    for sample in inner.iterdir():
        for file in sample.iterdir():
            file.unlink()
        sample.rmdir()
    assert main(["detect", "--eval", str(stick)]) == 2
    err = capsys.readouterr().err
    assert f"(no permission to read {stick / 'lost+found'})" in err and "sudo companion detect --eval" in err


def test_a_round_kept_without_its_reference_is_left_out_and_named(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    good = kept_sample(tmp_path, 1)
    bare = kept_sample(tmp_path, 2, reference=None)
    assert not (bare / "reference.png").exists()
    why = ("reference.png is missing: the round was kept without an empty reference picture, so the camera could "
           "not be sure of any gate: no fair test of it")
    assert main(["detect", "--eval", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Kept rounds: 1 read, 1 skipped\n  skipped {bare.name}: {why}\n")
    assert "Rounds read wrong" not in out
    assert main(["detect", "--eval", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == [{"sample": bare.name, "error": why}]
    (good / "reference.png").unlink()
    assert main(["detect", "--eval", str(tmp_path)]) == 2  # none left: each named, and what to do
    assert f"companion detect: skipped {good.name}: {why}" in capsys.readouterr().err


def test_counts_without_a_reference_come_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = kept_sample(tmp_path, 1)
    frame, gates = str(folder / "frame.png"), str(folder / "label.json")
    assert main(["detect", frame, "--gates", gates]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["unsure"] == [True] * 6
    warning = [line for line in out.err.splitlines() if "--reference" in line]
    assert warning == [
        "companion detect: warning: no --reference: without an empty reference picture every count is unsure, and a "
        "static object in a gate that looks like a marble counts as one; give --reference EMPTY.jpg, a photo from the "
        "same camera with no marbles in the gates (a kept round's reference.png)"]
    assert main(["detect", frame, "--gates", gates, "--reference", str(folder / "reference.png")]) == 0
    assert "--reference" not in capsys.readouterr().err


def test_json_without_eval_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = kept_sample(tmp_path, 1)
    assert main(["detect", str(folder / "frame.png"), "--gates", str(folder / "label.json"), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.splitlines() == [
        "companion detect: --json goes with --eval DIR (its report as one JSON object); the counts of IMAGE... are "
        "always printed as JSON, one line per image: leave --json out"]


def test_the_readme_gives_the_size_photo_keeping_writes_at_the_default_640x480(tmp_path: Path) -> None:
    """What a table owner plans the card for: a round as photo keeping writes it from a 640x480 camera."""
    sizes = []
    for number in range(1, 6):
        castle = SimulatedCastle(seed=number)
        camera = SimulatedCameraSource(castle, size=(640, 480))
        camera.open()
        reference = camera.read()
        castle.add_marble(number)
        kept = write_sample(tmp_path, Sample(
            frame=camera.read(), reference=reference, gates=castle.regions().to_json(), counts=(0,) * 6,
            camera_counts=None, marble_radius=None, session=1, round=number, confirmed_at=time.time() + number))
        sizes.append(sample_bytes(kept) / 1e6)
    measured = sum(sizes) / len(sizes)
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = re.search(r"A round takes about ([\d.]+) MB with the Pi camera's 640x480 picture \(the default\), so the "
                     r"500 take about (\d+) MB", text)
    assert said, "the README gives no size of a kept round at 640x480"
    per_round, all_kept = float(said[1]), float(said[2])
    assert abs(per_round - measured) <= 0.1 * measured, (per_round, measured)
    assert abs(all_kept - 500 * measured) <= 0.1 * 500 * measured, (all_kept, 500 * measured)

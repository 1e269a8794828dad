"""`companion detect --eval` on a folder of kept photos as a table owner has it: a sample with a file missing or
damaged is named with what is wrong (none passed over in silence), the data folder named instead of its
photos folder is read through it (and says so), and a folder or zip this user may not read (on a Pi, the service
user's) says so and suggests sudo."""
from __future__ import annotations

import getpass
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from hardware.camera.keeping import Sample, write_sample, zipped_samples
from hardware.camera.simulated import SimulatedCastle
from web.cli import main


def kept_sample(folder: Path, round_number: int, **label: Any) -> Path:
    """One sample as photo keeping writes it: the simulated castle with one marble in gate 2 (``label``: other
    values of its Sample, such as what the camera read at the time)."""
    castle = SimulatedCastle()
    castle.add_marble(2)
    return write_sample(folder, Sample(**{
        "frame": castle.render(), "reference": castle.render_empty(), "gates": castle.regions().to_json(),
        "counts": (0, 1, 0, 0, 0, 0), "camera_counts": (0, 1, 0, 0, 0, 0), "camera_unsure": (False,) * 6,
        "marble_radius": castle.marble_size().radius_px, "session": 1, "round": round_number,
        "confirmed_at": time.time() + round_number, **label}))


def test_every_damaged_sample_is_named_with_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    good, no_label, no_frame, cut, bad_reference = (kept_sample(photos, n) for n in range(1, 6))
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
    assert "Kept rounds: 1 read, 4 skipped" in out.out and f"skipped {no_label.name}: label.json is missing" in out.out
    assert "Traceback" not in out.err


def test_the_data_folder_named_instead_of_its_photos_is_read_through_it_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept_sample(tmp_path / "photos", 1)
    (tmp_path / "camera").mkdir()
    (tmp_path / "camera" / "empty-reference.png").write_bytes(b"")
    (tmp_path / "backups").mkdir()
    assert main(["detect", "--eval", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("Kept rounds: 1 read, 0 skipped")
    assert out.err.strip() == f"companion detect: {tmp_path} holds no kept round itself: reading those in " \
                              f"{tmp_path / 'photos'}"


def _denied(monkeypatch: pytest.MonkeyPatch, method: str, denied: Path) -> None:
    """This user may not read ``denied``: Path.<method> on it raises PermissionError as the kernel would (the
    tests run as root, for whom permissions do not apply). Not root: the command is to suggest sudo."""
    real = getattr(Path, method)

    def refuse(self: Path, *args: object, **kwargs: object) -> object:
        if self == denied:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, method, refuse)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(getpass, "getuser", lambda: "pi")


def test_a_folder_this_user_may_not_list_says_so_and_suggests_sudo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    _denied(monkeypatch, "iterdir", photos)
    assert main(["detect", "--eval", str(photos)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "Traceback" not in out.err and "not a folder" not in out.err
    assert out.err.strip() == (
        f"companion detect: --eval {photos}: this folder cannot be read with the permissions of pi; the kept photos "
        f"belong to the companion's service user, so run it with sudo: sudo companion detect --eval {photos}")


def test_a_folder_this_user_may_not_even_look_into_says_so_and_suggests_sudo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """/var/lib/dragon-table is 0750: its photos folder cannot even be looked at (stat fails)."""
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    _denied(monkeypatch, "stat", photos)
    assert main(["detect", "--eval", str(photos), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "not a folder" not in out.err
    assert "cannot be read with the permissions of pi" in out.err
    assert out.err.strip().endswith(f"run it with sudo: sudo companion detect --eval {photos} --json")


def test_a_sample_this_user_may_not_read_says_so_and_suggests_sudo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The folder can be listed, but a sample's label cannot be opened: said once, not as a damaged sample."""
    photos = tmp_path / "photos"
    label = kept_sample(photos, 1) / "label.json"
    _denied(monkeypatch, "read_text", label)
    assert main(["detect", "--eval", str(photos)]) == 2
    err = capsys.readouterr().err
    assert f"this folder cannot be read with the permissions of pi (no permission to read {label})" in err
    assert f"sudo companion detect --eval {photos}" in err and "skipped" not in err


def test_a_zip_this_user_may_not_read_says_so_and_suggests_sudo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    sample = kept_sample(tmp_path / "photos", 1)
    zipped = tmp_path / "companion-photos.zip"
    zipped.write_bytes(b"".join(zipped_samples([sample], "companion-photos")))
    assert main(["detect", "--eval", str(zipped), "--json"]) == 0  # readable: read
    capsys.readouterr()
    _denied(monkeypatch, "open", zipped)
    assert main(["detect", "--eval", str(zipped)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "not a folder or a zip" not in out.err
    assert out.err.strip() == (
        f"companion detect: --eval {zipped}: this zip cannot be read with the permissions of pi; the kept photos "
        f"belong to the companion's service user, so run it with sudo: sudo companion detect --eval {zipped}")


def test_as_root_a_folder_it_may_not_read_is_not_answered_with_sudo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    _denied(monkeypatch, "iterdir", photos)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert main(["detect", "--eval", str(photos)]) == 2
    err = capsys.readouterr().err
    assert "cannot be read" in err and "not even as root" in err and "sudo" not in err


def test_a_folder_without_samples_says_what_was_looked_for_where_and_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No report of dashes: one sentence, and a status a script can test."""
    (tmp_path / "notes.txt").write_text("not a sample")
    assert main(["detect", "--eval", str(tmp_path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.strip() == (
        f"companion detect: no sample of {tmp_path} could be evaluated: it holds no sample folder "
        "(<round>/label.json, frame.png, reference.png, as photo keeping writes them); switch photo keeping on on "
        "the Camera page and confirm some rounds, or give --eval the folder (or zip) of kept photos.")


def test_a_folder_whose_samples_are_all_skipped_names_them_and_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    no_label, no_frame = kept_sample(photos, 1), kept_sample(photos, 2)
    (no_label / "label.json").unlink()
    (no_frame / "frame.png").unlink()
    assert main(["detect", "--eval", str(photos)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "-" * 3 not in out.err and "exact" not in out.err
    assert out.err.splitlines() == [
        f"companion detect: skipped {no_label.name}: label.json is missing: the confirmed counts are not known",
        f"companion detect: skipped {no_frame.name}: frame.png is missing",
        f"companion detect: none of the 2 sample folders in {photos} could be evaluated (each is named with what is "
        "wrong above); a sample needs label.json and frame.png as photo keeping writes them: mend or remove those "
        "named, or give --eval the folder of kept photos.",
    ]
    assert main(["detect", "--eval", str(photos), "--json"]) == 2  # --json: the report still, for a script
    out = capsys.readouterr()
    assert json.loads(out.out)["samples"] == 0 and "named with what is wrong in the report" in out.err


def test_detect_reads_a_kept_round_with_the_gates_of_its_label(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    folder = kept_sample(tmp_path, 1)
    radius = json.loads((folder / "label.json").read_text())["marble_radius"]
    assert main(["detect", str(folder / "frame.png"), "--gates", str(folder / "label.json"), "--reference",
                 str(folder / "reference.png"), "--marble-radius", str(radius)]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == [0, 1, 0, 0, 0, 0]


def test_eval_counts_the_rounds_the_camera_read_wrong_without_a_flag_at_the_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ruling D4's promise on a table's own photos: a round the camera read wrong at the time and flagged was
    asked of a person; one it read wrong and did not flag was scored wrong until a tap corrected it."""
    kept_sample(tmp_path, 1)  # read right, sure
    kept_sample(tmp_path, 2, camera_counts=(0, 0, 1, 0, 0, 0), camera_unsure=(False, True, True, False, False, False))
    kept_sample(tmp_path, 3, camera_counts=(0, 0, 1, 0, 0, 0), camera_unsure=(False,) * 6)  # wrong and sure
    kept_sample(tmp_path, 4, camera_counts=(0, 0, 1, 0, 0, 0), camera_unsure=None)  # kept before flags were
    assert main(["detect", "--eval", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["camera_wrong_sure"] == 1 and report["camera_flags_recorded"] == 3
    assert main(["detect", "--eval", str(tmp_path)]) == 0
    assert "sure of a wrong count: 1 of 3 rounds" in capsys.readouterr().out
    label = json.loads((tmp_path / sorted(p.name for p in tmp_path.iterdir())[0] / "label.json").read_text())
    label["camera_unsure"] = [True, "no"]
    edited = tmp_path / sorted(p.name for p in tmp_path.iterdir())[0]
    (edited / "label.json").write_text(json.dumps(label))
    assert main(["detect", "--eval", str(tmp_path), "--json"]) == 0
    skipped = json.loads(capsys.readouterr().out)["skipped"]
    said = "label.json: camera_unsure must be a list of 6 true/false or null"
    assert skipped == [{"sample": edited.name, "error": said}]

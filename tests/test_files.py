"""The companion's small files (hardware/files.py): each is flushed to the disk before it is renamed over the
old one, and its folder after; a write cut short leaves the old file whole; every writer uses the helper."""
from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from hardware import files
from hardware.camera.keeping import PhotoKeeper, Sample, write_sample
from hardware.camera.marble_size import MarbleSize
from hardware.camera.reference import ReferenceStore

Recorder = list[tuple[str, str]]


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """Every fsync (of the file or folder it names) and every rename, in order."""
    done: Recorder = []
    fsync, replace = os.fsync, os.replace

    def recording_fsync(fd: int) -> None:
        done.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def recording_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        done.append(("rename", f"{src} -> {dst}"))
        replace(src, dst)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    monkeypatch.setattr(os, "replace", recording_replace)
    return done


def _durable(done: Recorder, path: Path) -> bool:
    """The file at `path` was flushed as a temporary file beside it, renamed into place, then its folder flushed."""
    renames = [i for i, (what, arg) in enumerate(done) if what == "rename" and arg.endswith(f" -> {path}")]
    if not renames:
        return False
    tmp = done[renames[-1]][1].split(" -> ")[0]
    beside = Path(tmp).parent == path.parent and Path(tmp).name.endswith(".tmp")
    return beside and ("fsync", tmp) in done[:renames[-1]] and ("fsync", str(path.parent)) in done[renames[-1]:]


def test_a_file_is_flushed_before_its_rename_and_its_folder_after(tmp_path: Path, disk: Recorder) -> None:
    path = tmp_path / "gates.json"
    files.write_json(path, {"gates": [1, 2]})
    assert _durable(disk, path)
    assert json.loads(path.read_text()) == {"gates": [1, 2]} and [p.name for p in tmp_path.iterdir()] == ["gates.json"]


def test_two_writers_of_one_file_at_once_never_share_a_temporary_file(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A page's save and the camera's own may replace gates.json at the same moment: here the second write runs
    while the first is renaming its temporary file. Each has one of its own, so both land, whole."""
    path = tmp_path / "gates.json"
    replace = os.replace
    inner: list[bool] = []

    def meanwhile(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if not inner:
            inner.append(True)
            files.write_json(path, {"gates": "the camera's"})
        replace(src, dst)

    monkeypatch.setattr(os, "replace", meanwhile)
    files.write_json(path, {"gates": "the page's"})
    assert json.loads(path.read_text()) == {"gates": "the page's"}  # the last rename's, whole
    assert [p.name for p in tmp_path.iterdir()] == ["gates.json"]


@pytest.mark.parametrize("cut", ["fsync", "replace"])
def test_a_write_cut_short_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     cut: str) -> None:
    path = tmp_path / "marble.json"
    files.write_json(path, {"radius_px": 9.5})

    def fail(*_args: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, cut, fail)
    with pytest.raises(OSError):
        files.write_json(path, {"radius_px": 12.0})
    assert json.loads(path.read_text()) == {"radius_px": 9.5}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marble.json"]  # no temporary file left


def test_the_mtime_given_is_the_files(tmp_path: Path) -> None:
    path = tmp_path / "empty-reference.png"
    files.write_bytes(path, b"png", mtime=1_700_000_000.0)
    assert path.stat().st_mtime == 1_700_000_000.0 and path.read_bytes() == b"png"


def _writers(tmp_path: Path) -> dict[str, tuple[Callable[[], object], list[Path]]]:
    """Each writer of the companion's small files, and the files it writes."""
    frame = np.zeros((8, 8, 3), np.uint8)
    reference = ReferenceStore(tmp_path / "empty-reference.png")
    sample = Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(0,) * 6, camera_counts=None,
                    marble_radius=None, session=3, round=2, confirmed_at=time.time())
    kept = tmp_path / "photos" / sample.name()
    return {
        "marble size": (lambda: MarbleSize(9.5, "tap", time.time()).save(tmp_path / "marble.json"),
                        [tmp_path / "marble.json"]),
        "empty reference": (lambda: reference.offer(frame, beams_idle=True, regions_empty=True, now=time.time()),
                            [tmp_path / "empty-reference.png"]),
        "photo keeping choice": (lambda: PhotoKeeper(tmp_path / "photos", tmp_path / "keeping.json")
                                 .set_enabled(True), [tmp_path / "keeping.json"]),
        "kept photo": (lambda: write_sample(tmp_path / "photos", sample),
                       [tmp_path / "photos" / f".{sample.name()}.tmp" / name
                        for name in ("frame.png", "reference.png", "label.json")]),
        "kept photo folder": (lambda: write_sample(tmp_path / "photos", sample), [kept]),
    }


@pytest.mark.parametrize("writer", ["marble size", "empty reference", "photo keeping choice", "kept photo"])
def test_every_small_file_goes_through_the_helper(tmp_path: Path, disk: Recorder, writer: str) -> None:
    write, paths = _writers(tmp_path)[writer]
    write()
    for path in paths:
        assert _durable(disk, path), (path, disk)


def test_a_kept_photo_cut_short_keeps_the_earlier_one_and_leaves_nothing_half_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round revealed again after an undo replaces its kept photo; on a full disk the earlier one stays."""
    from hardware.camera import keeping

    frame = np.zeros((8, 8, 3), np.uint8)
    earlier = Sample(frame=frame, reference=None, gates={"gates": []}, counts=(0,) * 6, camera_counts=None,
                     marble_radius=None, session=3, round=2, confirmed_at=1_700_000_000.0)
    kept = write_sample(tmp_path, earlier)
    later = Sample(frame=frame, reference=None, gates={"gates": []}, counts=(1,) + (0,) * 5, camera_counts=None,
                   marble_radius=None, session=3, round=2, confirmed_at=1_700_000_100.0)

    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(keeping, "write_json", full)
    with pytest.raises(OSError):
        write_sample(tmp_path, later)
    assert [p.name for p in tmp_path.iterdir()] == [kept.name]  # the earlier one, and no temporary folder
    monkeypatch.undo()
    replaced = write_sample(tmp_path, later)
    assert [p.name for p in tmp_path.iterdir()] == [replaced.name] and replaced != kept


def test_a_kept_photo_folder_is_renamed_into_place_then_its_folder_flushed(tmp_path: Path, disk: Recorder) -> None:
    write, (kept,) = _writers(tmp_path)["kept photo folder"]
    write()
    tmp = kept.with_name(f".{kept.name}.tmp")
    rename = disk.index(("rename", f"{tmp} -> {kept}"))
    assert ("fsync", str(kept.parent)) in disk[rename:]
    assert ("fsync", str(tmp)) in disk[:rename]  # the files' entries in it, before
    assert sorted(p.name for p in kept.iterdir()) == ["frame.png", "label.json", "reference.png"]

"""The script that fetches the public real photographs (bench/fetch_real.py), against repositories made
here: nothing reaches the network."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from bench import fetch_real
from bench.bench_real_photos import is_photo_copy
from bench.bench_real_sequence import is_sequence_copy


def _repo(path: Path, files: dict[str, bytes]) -> str:
    """A git repository at ``path`` holding ``files``; its file:// address."""
    for name, data in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_bytes(data)
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "x"]
    for args in (["init", "-q"], ["add", "-A"], commit):
        subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)
    return path.as_uri()


def _moved(source: fetch_real.Source, url: str) -> fetch_real.Source:
    return dataclasses.replace(source, url=url)


@pytest.fixture
def sources(tmp_path) -> tuple[fetch_real.Source, ...]:
    photos = _repo(tmp_path / "up" / "photos", {"inputs/0.tif": b"photo", "Labels-double/marbles/0.tif": b"mask",
                                                "FilesWithOriginalNaming/big.tif": b"not read here"})
    frames = _repo(tmp_path / "up" / "frames", {"SEQ1/1.jpg": b"frame", "gtSeq1.mat": b"labels",
                                                "track_marbles.m": b"% code"})
    return _moved(fetch_real.SOURCES[0], photos), _moved(fetch_real.SOURCES[1], frames)


def test_fetches_the_parts_read_and_prints_their_settings(sources, tmp_path, capsys) -> None:
    root = tmp_path / "real"
    assert fetch_real.main([str(root)], sources) == 0
    photos, frames = root / "marble-unet", root / "Advanced-Vision-1"
    assert is_photo_copy(photos) and is_sequence_copy(frames)
    assert not (photos / "FilesWithOriginalNaming").exists()  # only what is read here
    out = capsys.readouterr().out
    assert f"COMPANION_REAL_PHOTOS={photos} COMPANION_REAL_SEQUENCE={frames} make test" in out


def test_a_copy_already_there_is_kept_without_the_network(sources, tmp_path, capsys) -> None:
    root = tmp_path / "real"
    assert fetch_real.main([str(root)], sources) == 0
    (root / "marble-unet" / "inputs" / "mine.txt").write_text("kept")
    gone = tuple(_moved(s, (tmp_path / "nowhere").as_uri()) for s in sources)
    assert fetch_real.main([str(root)], gone) == 0
    assert (root / "marble-unet" / "inputs" / "mine.txt").read_text() == "kept"


def test_a_source_out_of_reach_says_which_and_leaves_nothing(sources, tmp_path, capsys) -> None:
    root = tmp_path / "real"
    gone = _moved(sources[0], (tmp_path / "nowhere").as_uri())
    assert fetch_real.main([str(root)], (gone, sources[1])) == 1
    said = capsys.readouterr()
    assert "could not fetch marble-unet from file://" in said.err and "Traceback" not in said.err
    assert not (root / "marble-unet").exists() and is_sequence_copy(root / "Advanced-Vision-1")
    assert "COMPANION_REAL_SEQUENCE=" in said.out and "COMPANION_REAL_PHOTOS=" not in said.out


def test_a_folder_that_is_no_copy_is_refused_and_left_alone(sources, tmp_path, capsys) -> None:
    root = tmp_path / "real"
    (root / "marble-unet").mkdir(parents=True)
    (root / "marble-unet" / "notes.txt").write_text("mine")
    assert fetch_real.main([str(root)], sources[:1]) == 1
    assert "is there but is not a whole copy of marble-unet: remove it" in capsys.readouterr().err
    assert (root / "marble-unet" / "notes.txt").read_text() == "mine"


def test_a_repository_without_the_parts_read_is_refused(tmp_path, capsys) -> None:
    other = _repo(tmp_path / "up" / "other", {"README.md": b"something else"})
    source = _moved(fetch_real.SOURCES[0], other)
    assert fetch_real.main([str(tmp_path / "real")], (source,)) == 1
    assert "does not hold what is read here (inputs, Labels-double/marbles)" in capsys.readouterr().err
    assert not (tmp_path / "real" / "marble-unet").exists()


def test_without_git_it_says_so(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(fetch_real.shutil, "which", lambda name: None)
    assert fetch_real.main([str(tmp_path / "real")]) == 1
    assert "git is needed" in capsys.readouterr().err
    assert not (tmp_path / "real").exists()


def test_git_never_waits_for_a_password(monkeypatch, tmp_path) -> None:
    """A repository moved or made private asks for credentials: git must fail at once instead."""
    seen = {}

    def run(args, **kwargs):
        seen.update(kwargs)
        return subprocess.CompletedProcess(args, 128, "", "fatal: could not read Username: terminal prompts disabled")

    monkeypatch.setattr(fetch_real.subprocess, "run", run)
    with pytest.raises(fetch_real.FetchError, match="terminal prompts disabled"):
        fetch_real.fetch(fetch_real.SOURCES[0], tmp_path)
    assert seen["env"]["GIT_TERMINAL_PROMPT"] == "0" and seen["stdin"] is subprocess.DEVNULL
    assert not (tmp_path / "marble-unet").exists()

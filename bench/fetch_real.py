"""Fetch the public real photographs the vision tests and benchmarks read, by hand, never at run time.

``python -m bench.fetch_real [DIR]`` (``make real-photos``) clones, once, the parts read here of
github.com/TrinityPandaLab/marble-unet (``inputs``, ``Labels-double/marbles``: about 300 MB) and
github.com/robevans/Advanced-Vision-1 (``SEQ1``, ``gtSeq1.mat``: 1.5 MB) into DIR (``real-photos``
by default), then prints the two settings that name them:

    COMPANION_REAL_PHOTOS=DIR/marble-unet COMPANION_REAL_SEQUENCE=DIR/Advanced-Vision-1 make test

Neither repository states a licence, so nothing of theirs is kept in this project (``real-photos/`` is
ignored by git); the tests and figures that read them are skipped without them. A copy already there
is kept as it is. Needs git, and the network to GitHub.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.bench_real_photos import PHOTO_PARTS, is_photo_copy
from bench.bench_real_sequence import SEQUENCE_PARTS, is_sequence_copy


@dataclass(frozen=True)
class Source:
    """One public repository: where it is, the folders read of it, how to tell a whole copy, its setting."""

    name: str
    url: str
    parts: tuple[str, ...]
    is_copy: Callable[[Path], bool]
    setting: str


SOURCES = (
    Source("marble-unet", "https://github.com/TrinityPandaLab/marble-unet.git", PHOTO_PARTS, is_photo_copy,
           "COMPANION_REAL_PHOTOS"),
    Source("Advanced-Vision-1", "https://github.com/robevans/Advanced-Vision-1.git", SEQUENCE_PARTS,
           is_sequence_copy, "COMPANION_REAL_SEQUENCE"),
)


class FetchError(Exception):
    """A repository could not be fetched; the message says which and why."""


def _git(*args: str) -> None:
    # a repository moved or made private must fail, not wait for a password nobody will type
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    done = subprocess.run(["git", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise FetchError(last)


def fetch(source: Source, root: Path) -> Path:
    """``root``/``source.name``: cloned without history and only its parts read here, unless a whole copy is
    there already. A clone that fails leaves nothing behind; a folder there that is no whole copy is refused."""
    dest = root / source.name
    if source.is_copy(dest):
        return dest
    if dest.exists():
        raise FetchError(f"{dest} is there but is not a whole copy of {source.name}: remove it and fetch again")
    root.mkdir(parents=True, exist_ok=True)
    try:
        _git("clone", "--quiet", "--depth", "1", "--filter=blob:none", "--sparse", source.url, str(dest))
        _git("-C", str(dest), "sparse-checkout", "set", *source.parts)
    except FetchError as err:
        shutil.rmtree(dest, ignore_errors=True)
        raise FetchError(f"could not fetch {source.name} from {source.url}: {err}") from None
    if not source.is_copy(dest):
        shutil.rmtree(dest, ignore_errors=True)
        raise FetchError(f"{source.url} does not hold what is read here ({', '.join(source.parts)})")
    return dest


def main(argv: list[str] | None = None, sources: tuple[Source, ...] = SOURCES) -> int:
    """Fetch every source into the folder given (``real-photos`` by default); 0 when all are there."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "real-photos").resolve()
    if shutil.which("git") is None:
        print("fetch_real: git is needed (apt-get install git)", file=sys.stderr)
        return 1
    settings, failed = [], False
    for source in sources:
        try:
            dest = fetch(source, root)
        except FetchError as err:
            print(f"fetch_real: {err}", file=sys.stderr)
            failed = True
            continue
        print(f"{source.name}: {dest}")
        settings.append(f"{source.setting}={dest}")
    if settings:
        print("Name them for the tests and figures:\n  " + " ".join(settings) + " make test")
    try:
        import scipy  # noqa: F401  (the sequence's labels are a MATLAB file)
    except ImportError:
        print("The sequence's labels need scipy: .venv/bin/pip install scipy")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""`companion backup`: a consistent copy of the session log (SQLite's online backup API), keeping the last N."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .log import EventLog

PREFIX = "companion-"


def backup(data_dir: Path, keep: int = 7, now: float | None = None) -> Path:
    """Back up DATA/companion.sqlite3 into DATA/backups/ and keep the newest `keep` copies; returns the copy."""
    source = data_dir / "companion.sqlite3"
    if not source.exists():
        raise FileNotFoundError(f"there is no session log at {source}")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    target = data_dir / "backups" / f"{PREFIX}{stamp}.sqlite3"
    log = EventLog(source)
    try:
        log.backup(target)
    finally:
        log.close()
    copies = sorted((data_dir / "backups").glob(f"{PREFIX}*.sqlite3"))
    for old in copies[:-keep] if keep > 0 else []:
        old.unlink()
    return target


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", default=os.environ.get("COMPANION_DATA", "data"),
                        help="data folder of the session log (default $COMPANION_DATA or ./data)")
    parser.add_argument("--keep", type=int, default=7, help="how many backups to keep (default 7)")


def run(args: argparse.Namespace) -> int:
    try:
        target = backup(Path(args.data), keep=args.keep)
    except (OSError, FileNotFoundError) as err:
        print(f"companion backup: {err}", file=sys.stderr)
        return 1
    print(f"backed up to {target}")
    return 0

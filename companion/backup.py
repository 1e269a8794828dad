"""`companion backup`: a consistent copy of the session log (SQLite's online backup API), keeping the last N."""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path

from .log import EventLog, NewerDatabase

PREFIX = "companion-"


def backup(data_dir: Path, keep: int = 7, now: float | None = None) -> Path:
    """Back up DATA/companion.sqlite3 into DATA/backups/ and keep the newest `keep` copies (1 or more); returns the
    copy."""
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
    for old in copies[:-keep]:
        old.unlink()
    return target


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", default=os.environ.get("COMPANION_DATA", "data"),
                        help="data folder of the session log (default $COMPANION_DATA or ./data)")
    parser.add_argument("--keep", type=_count, default=7, help="how many backups to keep, 1 or more (default 7)")


def _count(text: str) -> int:
    """``--keep``: a whole number of backups, at least the one just taken."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not valid; use a whole number of 1 or more "
                                         "(the backup just taken counts)")
    return value


def run(args: argparse.Namespace) -> int:
    try:
        target = backup(Path(args.data), keep=args.keep)
    except (OSError, NewerDatabase) as err:  # no log, a folder it may not write; a log of a newer release
        print(f"companion backup: {err}", file=sys.stderr)
        return 1
    except sqlite3.Error as err:  # not a database, or a folder SQLite may not write in
        print(f"companion backup: cannot copy the session log in {args.data}: {err} (a damaged log is moved aside "
              "when the companion starts; a folder must be writable by this user)", file=sys.stderr)
        return 1
    print(f"backed up to {target}")
    return 0

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
    log = EventLog(source)
    try:
        target = _new_name(data_dir / "backups", f"{PREFIX}{stamp}")
        try:
            log.backup(target)
        except BaseException:  # nothing half-written is left under a backup's name
            target.unlink(missing_ok=True)
            raise
    finally:
        log.close()
    copies = sorted((data_dir / "backups").glob(f"{PREFIX}*.sqlite3"), key=_order)
    for old in copies[:-keep]:
        if old != target:  # another backup under way meanwhile never removes this one
            old.unlink(missing_ok=True)  # nor fails for one that backup removed first
    return target


def _new_name(folder: Path, stem: str) -> Path:
    """A file of its own in ``folder`` for a new copy: STEM.sqlite3, else STEM_2.sqlite3, STEM_3.sqlite3 ... (two
    backups in the same second: a manual one meeting the nightly timer or an update), numbered after every copy of
    that second still kept (never a lower number freed by keeping the last N). Created empty at once, so that two
    processes never take the same name."""
    folder.mkdir(parents=True, exist_ok=True)
    number = 1 + max((n for s, n in map(_order, folder.glob(f"{stem}*.sqlite3")) if s == stem), default=0)
    while True:
        target = folder / (f"{stem}.sqlite3" if number == 1 else f"{stem}_{number}.sqlite3")
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            number += 1
            continue
        return target


def _order(copy: Path) -> tuple[str, int]:
    """Oldest first: by the time in the name, then by the number a copy of the same second carries (STEM_2 after
    STEM, STEM_10 after STEM_9)."""
    stem, _, number = copy.stem.rpartition("_")
    return (stem, int(number)) if stem and number.isdigit() else (copy.stem, 1)


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

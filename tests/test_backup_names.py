"""`companion backup` twice in the same second (a manual backup meeting the nightly timer or an update): each copy is
a file of its own, none overwrites another, and keeping the last N still keeps the newest."""
from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from companion.backup import backup
from companion.log import EventLog
from tests.test_log import GAME, OPTIONS, PLAYERS, marble

SECOND = 1_796_640_000.0
"""One moment, for backups taken in the same second."""


def _data(tmp_path: Path) -> Path:
    """A data folder whose session log holds one game with a marble in gate 3."""
    data = tmp_path / "data"
    log = EventLog(data / "companion.sqlite3")
    marble(log, log.create_session(GAME.id, PLAYERS, OPTIONS).id, 3)
    log.close()
    return data


def _gates(copy: Path) -> list[dict[str, int]]:
    log = EventLog(copy)
    try:
        return [e.payload for s in log.sessions() for e in log.events(s.id)]
    finally:
        log.close()


def test_backups_in_the_same_second_each_keep_a_copy(tmp_path: Path) -> None:
    data = _data(tmp_path)
    first, second, third = (backup(data, now=SECOND) for _ in range(3))
    assert len({first, second, third}) == 3
    assert second.name == first.name.replace(".sqlite3", "_2.sqlite3")
    assert sorted((data / "backups").iterdir()) == sorted([first, second, third])
    assert all(_gates(copy) == [{"gate": 3}] for copy in (first, second, third))


def test_keeping_the_last_counts_copies_of_the_same_second_in_the_order_taken(tmp_path: Path) -> None:
    data = _data(tmp_path)
    earlier = backup(data, keep=3, now=SECOND - 60)
    same = [backup(data, keep=3, now=SECOND) for _ in range(11)]  # the 10th and 11th: _10 and _11, after _9
    assert earlier.exists() is False
    assert sorted((data / "backups").iterdir()) == sorted(same[-3:])
    assert [p.name[-10:] for p in same[-3:]] == ["_9.sqlite3", "10.sqlite3", "11.sqlite3"]


def test_backups_taken_at_once_never_share_a_name(tmp_path: Path) -> None:
    """Threads racing for the same second's name: each gets its own file, each a whole copy."""
    data = _data(tmp_path)
    with ThreadPoolExecutor(max_workers=6) as pool:
        copies = list(pool.map(lambda _: backup(data, keep=20, now=SECOND), range(6)))
    assert len(set(copies)) == 6 and all(_gates(copy) == [{"gate": 3}] for copy in copies)


def test_two_backup_commands_at_once_each_report_a_copy_of_their_own(tmp_path: Path) -> None:
    data = _data(tmp_path)
    command = [sys.executable, "-m", "web.cli", "backup", "--data", str(data)]
    started = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=Path(__file__).parent.parent) for _ in range(2)]
    said = [run.communicate(timeout=60) for run in started]
    assert [run.returncode for run in started] == [0, 0], said
    copies = {Path(out.strip().removeprefix("backed up to ")) for out, _ in said}
    assert len(copies) == 2 and copies == set((data / "backups").iterdir())

"""Small files the companion keeps beside its data (calibration, settings chosen on a page, kept photos).

Every one is replaced the same way, here: a temporary file beside it, flushed to the disk, renamed over it, and
the folder's entry flushed too, so that a power cut leaves the old file or the new one, whole (without the
flushes a file renamed just before the cut can come back empty).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def sync_folder(folder: str | Path) -> None:
    """Flush a folder's entries (a file renamed into it) to the disk."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes(path: str | Path, data: bytes, mtime: float | None = None) -> None:
    """Replace the file at `path` with `data` (modified at `mtime`, when given), atomically and durably; on an
    error the old file stays as it was and no temporary file is left."""
    path = Path(path)
    # a name of its own: two threads replacing one file (a page's save, the camera's own) never share it
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            if mtime is not None:
                os.utime(file.fileno(), (mtime, mtime))
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def write_json(path: str | Path, data: Any, indent: int | None = 1) -> None:
    """Write `data` as JSON, atomically and durably (`write_bytes`)."""
    write_bytes(path, (json.dumps(data, indent=indent) + "\n").encode("utf-8"))


def read_json(path: str | Path, error: type[Exception], what: str, missing: str) -> Any:
    """The JSON kept in `path`. Raises `error(missing)` when there is no such file, and `error` naming
    `what` and the reason when it cannot be read or is not JSON."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(missing) from None
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: lists nested thousands deep
        raise error(f"cannot read {what} {path}: {exc}") from None

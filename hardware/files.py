"""Small files the companion keeps beside its data (calibration, settings chosen on a page)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_json(path: str | Path, data: Any, indent: int | None = 1) -> None:
    """Write `data` as JSON atomically: a temporary file, then a rename, so a power cut leaves the old file
    or the new one, never half of one."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_json(path: str | Path, error: type[Exception], what: str, missing: str) -> Any:
    """The JSON kept in `path`. Raises `error(missing)` when there is no such file, and `error` naming
    `what` and the reason when it cannot be read or is not JSON."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(missing) from None
    except (OSError, ValueError) as exc:
        raise error(f"cannot read {what} {path}: {exc}") from None

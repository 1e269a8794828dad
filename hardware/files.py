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

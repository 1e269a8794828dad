"""Marble vision: gate regions, marble detection per gate, overlays, the `companion detect` command.

Importing this package loads neither cv2 nor numpy: the names below load their module when first used.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    **{name: "hardware.vision.detect" for name in ("Detection", "Marble", "MarbleDetector", "count_marbles")},
    **{name: "hardware.vision.regions" for name in ("GateRegion", "GateRegions", "RegionsError", "load_regions",
                                                    "save_regions")},
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

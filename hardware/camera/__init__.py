"""Camera: frame sources, a background camera service with retry, marker calibration, empty reference.

Submodules are imported on demand; importing this package touches no camera and no disk, and loads
neither cv2 nor numpy (the names below load their module when first used).
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {name: "hardware.camera.sources" for name in (
    "CameraError", "FileSource", "FrameSource", "Picamera2Source", "VideoCaptureSource", "open_source")}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

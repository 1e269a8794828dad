"""Camera: frame sources, a background camera service with retry, marker calibration, empty reference.

Submodules are imported on demand; importing this package touches no camera and no disk.
"""

from hardware.camera.sources import (
    CameraError,
    FileSource,
    FrameSource,
    Picamera2Source,
    VideoCaptureSource,
    open_source,
)

__all__ = [
    "CameraError",
    "FileSource",
    "FrameSource",
    "Picamera2Source",
    "VideoCaptureSource",
    "open_source",
]

"""Camera benchmarks: lores I420 -> BGR conversion and preview JPEG encoding, on one core; the kept photos'
zip download (throughput, and the memory it takes while it is sent)."""

from __future__ import annotations

import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from hardware.camera.keeping import Sample, kept_samples, write_sample, zipped_samples
from hardware.camera.service import encode_preview_jpeg
from hardware.camera.sources import i420_to_bgr

REPEATS = 300


def _scene(width: int, height: int) -> np.ndarray:
    """A textured BGR test frame (JPEG cost depends on content, so not a flat colour)."""
    rng = np.random.default_rng(7)
    frame = cv2.GaussianBlur(rng.integers(0, 256, (height, width, 3), dtype=np.uint8), (0, 0), 3)
    for i in range(6):
        cv2.circle(frame, (width * (2 * i + 1) // 12, height // 2), height // 12, (40, 200, 240), -1)
    return frame


def _times_ms(action: Callable[[], object], repeats: int = REPEATS) -> list[float]:
    for _ in range(10):
        action()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def _line(label: str, times: list[float]) -> str:
    p99 = sorted(times)[int(len(times) * 0.99) - 1]
    return f"{label} median {statistics.median(times):.3f} ms, p99 {p99:.3f} ms ({len(times)} runs)"


def _photos_download(samples: int = 40) -> str:
    """Zip ``samples`` kept rounds (640x480 frame and reference, PNG) as the download does: MB/s, and the
    peak of Python's allocations while it is sent (the zip is built piece by piece, so it stays flat)."""
    frame = _scene(640, 480)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for number in range(samples):
            write_sample(folder, Sample(frame=frame, reference=frame, gates={"gates": []}, counts=(1, 0, 0, 0, 0, 0),
                                        camera_counts=(1, 0, 0, 0, 0, 0), marble_radius=10.0, session=1,
                                        round=number, confirmed_at=1.8e9 + number))
        kept = kept_samples(folder)
        tracemalloc.start()
        start = time.perf_counter()
        sent = sum(len(piece) for piece in zipped_samples(kept, "photos"))
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return (f"camera: kept photos zip download, {len(kept)} rounds ({sent / 1e6:.1f} MB): "
            f"{sent / 1e6 / seconds:.0f} MB/s, peak allocations while sent {peak / 1e6:.2f} MB")


def _checks() -> str:
    """The checks the camera hub makes every few seconds beside the vision: the markers' edge blur, and the
    picture's shift against the empty reference (without markers), on a rendered castle scene."""
    from hardware.camera.drift import picture_shift
    from hardware.camera.focus import edge_blur_px
    from hardware.camera.markers import detect_markers
    from tests.conditions import nudged, photographed_sheet
    from tests.scenes import make_scene

    picture = photographed_sheet(1.0)
    markers = detect_markers(picture)
    scene = make_scene(70012, case="clutter")
    moved = nudged(scene.image, 4.0, -3.0)
    box = scene.regions.bounds()
    blur = _times_ms(lambda: edge_blur_px(picture, markers), 100)
    shift = _times_ms(lambda: picture_shift(scene.reference, moved, box, scene.marble_radius_px), 100)
    return (f"camera: checks every few seconds, one core: the {len(markers)} markers' edge blur median "
            f"{statistics.median(blur):.2f} ms; the picture's shift against the empty reference median "
            f"{statistics.median(shift):.2f} ms")


def main() -> None:
    previous = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        lores = cv2.cvtColor(_scene(320, 240), cv2.COLOR_BGR2YUV_I420)
        print(_line("camera: lores 320x240 I420->BGR", _times_ms(lambda: i420_to_bgr(lores, (320, 240)))))
        preview = _scene(640, 480)
        size = len(encode_preview_jpeg(preview))
        print(_line(f"camera: preview 640x480 JPEG encode ({size // 1024} KiB)",
                    _times_ms(lambda: encode_preview_jpeg(preview))))
        print(_photos_download())
        print(_checks())
    finally:
        cv2.setNumThreads(previous)


if __name__ == "__main__":
    main()

"""The camera hub: preview with overlay, calibration, the empty reference and the confirmation frames
that confirm or correct the beams (rulings D3, D4).

Beams fitted: a marble seen by a gate schedules a confirmation frame once the marbles have settled
(sooner after the third). No beams: a watcher reports the marbles once they rest. Either way the reading
goes to `on_reading`, which the composition root turns into a Diego "camera" event.

Importing this module loads neither cv2 nor numpy (the web layer imports it for its error types); they
load with the first hub.
"""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from hardware.camera.markers import MarkerAnchor, MarkerError
from hardware.vision.regions import GateRegion, GateRegions, RegionsError, load_regions, save_regions
from hardware.vision.rest import RestWatcher

if TYPE_CHECKING:
    import numpy as np

    from hardware.camera.service import CameraService
    from hardware.vision.detect import Detection, MarbleDetector

log = logging.getLogger(__name__)

Reading = Callable[["Detection", bytes], None]


class NoPicture(RuntimeError):
    """The camera has not delivered a picture yet (starting, or down)."""

MARKER_CHECK_S = 5.0  # how often the preview looks for the markers again
CAMERA_MOVED_PX = 3.0  # a shift of the regions beyond this makes the empty reference stale


def _shift_px(a: GateRegions, b: GateRegions) -> float:
    """The largest displacement (|dx| + |dy|, pixels) between corresponding corners of two region sets."""
    return max((abs(p[0] - q[0]) + abs(p[1] - q[1]) for ra, rb in zip(a.gates, b.gates)
                for p, q in zip(ra.polygon, rb.polygon)), default=0.0)


def _overlay_jpeg(frame: np.ndarray, regions: GateRegions, detection: Detection) -> bytes:
    """JPEG of `frame` with the gate regions and the detection drawn on it (b"" if it cannot be encoded)."""
    import cv2

    from hardware.vision.overlay import draw_overlay

    ok, jpeg = cv2.imencode(".jpg", draw_overlay(frame, regions, detection), [cv2.IMWRITE_JPEG_QUALITY, 80])
    return jpeg.tobytes() if ok else b""


class CameraHub:
    """Runs the vision loop beside a CameraService and keeps the calibration and the empty reference."""

    def __init__(self, service: CameraService, data_dir: Path, *, on_reading: Reading,
                 default_regions: GateRegions | None = None, camera_only: bool = False,
                 settle_s: float = 1.5, last_marble_settle_s: float = 0.6, vision_fps: float = 3.0,
                 beams_idle: Callable[[], bool] = lambda: True,
                 round_empty: Callable[[], bool] = lambda: True) -> None:
        self.service = service
        self.camera_only = camera_only
        self.settle_s = settle_s
        self.last_marble_settle_s = last_marble_settle_s
        self._on_reading = on_reading
        self._beams_idle = beams_idle
        self._round_empty = round_empty
        from hardware.camera.reference import ReferenceStore

        self._interval = 1.0 / vision_fps
        self.regions_path = data_dir / "gates.json"
        self.anchor_path = data_dir / "markers.json"
        # Refreshed at most every 5 minutes: light drifts slowly, and the SD card is spared.
        self.reference = ReferenceStore(data_dir / "empty-reference.png", min_interval=300.0)
        self._lock = threading.RLock()
        self._default_regions = default_regions
        self._regions: GateRegions | None = None
        self._regions_source = "none"
        self._anchor: MarkerAnchor | None = None
        self._marker_check: dict[str, Any] | None = None
        self._moved: GateRegions | None = None  # the regions moved by the last marker check
        self._reference_regions: GateRegions | None = None  # where they were when the reference was taken
        self._detector: MarbleDetector | None = None
        self._detector_inputs: tuple[Any, Any] = (None, None)  # the regions and reference it was built from
        self._last: Detection | None = None
        #: What the preview draws (the frame, its regions, its detection), and the preview once drawn: the
        #: overlay and its JPEG are made when a page asks for them, not for every frame the vision reads.
        self._seen: tuple[np.ndarray, GateRegions, Detection] | None = None
        self._preview: bytes | None = None
        self._error: str | None = None
        self._timer: threading.Timer | None = None
        self._rest = RestWatcher()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._load_calibration()

    # lifecycle
    def start(self) -> None:
        self.service.start()
        self._thread = threading.Thread(target=self._loop, name="camera-vision", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.service.close()

    # calibration
    def _load_calibration(self) -> None:
        try:
            if self.regions_path.exists():
                self._regions, self._regions_source = load_regions(self.regions_path), "tap"
            elif self._default_regions is not None:
                self._regions, self._regions_source = self._default_regions, "simulation"
            if self.anchor_path.exists():
                self._anchor = MarkerAnchor.load(self.anchor_path)
                self._regions_source = "markers"
        except (RegionsError, MarkerError, OSError) as err:
            self._error = f"calibration could not be read: {err}; calibrate again on the camera page"
            log.error("%s", self._error)

    def set_regions(self, data: Any) -> GateRegions:
        """Save gate polygons tapped on a snapshot; RegionsError names what is wrong."""
        regions = GateRegions.from_json(data)
        save_regions(regions, self.regions_path)
        with self._lock:
            self._regions, self._regions_source = regions, "tap"
            self._anchor = self._moved = None
        self.anchor_path.unlink(missing_ok=True)
        return regions

    def anchor_to_markers(self) -> dict[str, Any]:
        """Anchor the saved regions to the four ArUco markers seen now (the regions then follow the camera)."""
        frame = self.service.latest()
        if frame is None:
            raise NoPicture("the camera has no picture yet")
        if self._regions is None:
            raise MarkerError("tap the gate regions first, then anchor them to the markers")
        anchor = MarkerAnchor.from_frame(frame)
        anchor.save(self.anchor_path)
        with self._lock:
            self._anchor, self._regions_source, self._moved = anchor, "markers", None
        self.current_regions(frame)
        return self._marker_check or {}

    def capture_reference(self) -> dict[str, Any]:
        """Take the current picture as the empty reference (a person says the gates are empty)."""
        frame = self.service.latest()
        if frame is None:
            raise NoPicture("the camera has no picture yet")
        self.reference.clear()  # a person's word replaces the old reference at once
        self.reference.offer(frame, beams_idle=True, regions_empty=True, now=time.time())
        self._reference_regions = self._moved
        return self.reference.status()

    def current_regions(self, frame: np.ndarray | None = None, *, recheck: bool = True) -> GateRegions | None:
        """The gate regions in the current frame: moved by the markers when anchored.

        The markers are looked for again when `recheck` (a confirmation frame, or every few seconds for
        the preview), so a bumped camera is followed; in between the last homography is reused.
        """
        with self._lock:
            regions, anchor, moved = self._regions, self._anchor, self._moved
        if regions is None or anchor is None or frame is None:
            return regions
        if recheck or moved is None:
            check = anchor.check(frame)
            self._marker_check = check.to_dict()
            polygons = anchor.project([r.polygon for r in regions.gates], check)
            moved = regions if polygons is None else GateRegions(tuple(
                GateRegion(r.gate, tuple((float(x), float(y)) for x, y in p))
                for r, p in zip(regions.gates, polygons)))
            with self._lock:
                self._moved = moved
        return moved

    # detection
    def _detector_for(self, regions: GateRegions) -> MarbleDetector:
        """A detector for these regions and the current reference, rebuilt only when either changes."""
        from hardware.vision.detect import MarbleDetector

        reference = self.reference.get()
        with self._lock:
            built_for = self._detector_inputs
            if self._detector is None or built_for[0] is not regions or built_for[1] is not reference:
                self._detector = MarbleDetector(regions, reference)
                self._detector_inputs = (regions, reference)
            return self._detector

    def detect(self, frame: np.ndarray, *, recheck_markers: bool = True) -> tuple[Detection, GateRegions] | None:
        """Count the marbles in `frame`; returns the detection and the regions it used (None: no calibration)."""
        regions = self.current_regions(frame, recheck=recheck_markers)
        if regions is None:
            return None
        return self._detector_for(regions).detect(frame), regions

    def marble_seen(self, marbles_in_round: int) -> None:
        """A gate saw a marble: take a confirmation frame once the marbles have settled."""
        delay = self.last_marble_settle_s if marbles_in_round >= 3 else self.settle_s
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(delay, self.confirm_now)
            self._timer.daemon = True
            self._timer.start()

    def confirm_now(self) -> Detection | None:
        """Take a settled frame, count the marbles and report the reading; None if the camera is down."""
        frame = self.service.settled_frame(timeout=3.0)
        if frame is None:
            return None  # the beams stay the live signal (ruling D3)
        result = self.detect(frame)
        if result is None or self._stop.is_set():  # closed meanwhile: the table may be gone
            return None
        detection, regions = result
        self._on_reading(detection, _overlay_jpeg(frame, regions, detection))
        return detection

    def _loop(self) -> None:
        reference_checked = markers_checked = 0.0
        while not self._stop.wait(self._interval):
            frame = self.service.latest()
            if frame is None:
                continue
            recheck = time.monotonic() - markers_checked > MARKER_CHECK_S
            if recheck:
                markers_checked = time.monotonic()
            try:
                result = self.detect(frame, recheck_markers=recheck)
            except Exception as err:  # a bad frame must not end the loop
                self._error = f"vision failed on a frame: {err}"
                log.exception("vision failed")
                continue
            if result is None:
                continue
            detection, regions = result
            with self._lock:
                self._last, self._error = detection, None
                self._seen, self._preview = (frame, regions, detection), None
            if now_checked := self._refresh_reference(frame, detection, reference_checked):
                reference_checked = now_checked
            if self.camera_only:
                resting = self._rest.update(tuple(detection.counts), detection.outside, time.monotonic())
                if resting is not None:
                    self._on_reading(detection, _overlay_jpeg(frame, regions, detection))

    def _refresh_reference(self, frame: np.ndarray, detection: Detection, last_check: float) -> float | None:
        """Take or refresh the empty reference; returns the time of this check, None if not due.

        Taken when the beams are idle and the round has no marbles; refreshed only when the picture
        agrees it is empty. Without one the game state alone decides, since detection without a
        reference is less sure. When the markers show that the camera moved, the old reference no longer
        lines up with the picture: it is dropped and taken again.
        """
        now = time.time()
        moved = self._moved
        if moved is not None and self._reference_regions is not None \
                and _shift_px(moved, self._reference_regions) > CAMERA_MOVED_PX:
            log.info("the camera moved: the empty reference will be taken again")
            self.reference.clear()
            self._reference_regions = None
        has_reference = self.reference.get() is not None
        looks_empty = detection.total == 0 and detection.outside == 0
        if not (looks_empty or not has_reference) or now - last_check <= (5 if has_reference else 0.5):
            return None
        if self.reference.offer(frame, self._beams_idle(), self._round_empty(), now):
            self._reference_regions = moved
            log.info("empty reference %s", "refreshed" if has_reference else "taken")
        return now

    # what the page shows
    def preview_jpeg(self) -> bytes | None:
        """The last frame the vision read, with its regions and counts drawn on it (drawn once per frame)."""
        with self._lock:
            if self._preview is None and self._seen is not None:
                self._preview = _overlay_jpeg(*self._seen)
            return self._preview

    def status(self) -> dict[str, Any]:
        with self._lock:
            last = self._last.to_json() if self._last is not None else None
            regions = self._regions.to_json() if self._regions is not None else None
            return {
                "camera": self.service.status(),
                "calibrated": regions is not None,
                "calibration": self._regions_source,
                "regions": regions,
                "markers": self._marker_check,
                "reference": self.reference.status(),
                "camera_only": self.camera_only,
                "last_detection": last,
                "error": self._error,
            }

"""The empty reference: a frame of the gate area with no marbles, for marble vision to compare against.

It is taken only while the beams are idle and the regions are empty, and refreshed only then, at
most every ``min_interval`` seconds, so slow light changes are followed without ever learning a
marble as background. ``now`` is wall-clock seconds (``time.time()``), so the age survives a restart
(a reference loaded from disk is dated by its file's modification time). Nothing touches the disk
until the first ``get()``, ``status()``, ``offer()`` or ``save()``.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np

from hardware.files import write_bytes

DEFAULT_MIN_INTERVAL_S = 30.0


class ReferenceStore:
    """Holds the empty reference frame and its capture time; saved as PNG or JPEG at ``path``."""

    def __init__(
        self, path: str | Path, *, min_interval: float = DEFAULT_MIN_INTERVAL_S, save_on_update: bool = True
    ) -> None:
        path = Path(path)
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            raise ValueError(f"empty reference must be a .png or .jpg file, got {path.name!r}")
        if min_interval < 0:
            raise ValueError(f"min_interval must not be negative, got {min_interval}")
        self.path = path
        self.min_interval = min_interval
        self.save_on_update = save_on_update
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()  # one writer of the file (and its .tmp) at a time
        self._frame: np.ndarray | None = None
        self._captured_at: float | None = None
        self._loaded = False
        self._load_error: str | None = None

    def _load_once(self) -> None:
        """Read the saved reference the first time it is needed (caller holds the lock)."""
        if self._loaded:
            return
        self._loaded = True
        if not self.path.exists():
            return
        frame = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if frame is None:
            self._load_error = f"cannot read empty reference {self.path} (damaged?); it will be taken again"
            return
        frame.flags.writeable = False
        self._frame = frame
        self._captured_at = self.path.stat().st_mtime

    def offer(self, frame: np.ndarray, beams_idle: bool, regions_empty: bool, now: float, stale: bool = False) -> bool:
        """Take ``frame`` as the new reference if the beams are idle, the regions are empty and the
        last one is at least ``min_interval`` old (or there is none, or its size differs, or it is known ``stale``:
        it holds marbles no longer there). Returns True when it was taken."""
        if not (beams_idle and regions_empty):
            return False
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"empty reference must be a BGR uint8 frame, got {getattr(frame, 'shape', frame)}")
        with self._lock:
            self._load_once()
            same_size = self._frame is not None and self._frame.shape == frame.shape
            young = self._captured_at is not None and now - self._captured_at < self.min_interval
            if same_size and young and not stale:
                return False
            copy = frame.copy()
            copy.flags.writeable = False
            self._frame, self._captured_at, self._load_error = copy, now, None
        if self.save_on_update:
            self.save()
        return True

    def get(self) -> np.ndarray | None:
        """The reference frame (read-only BGR), or None if none was taken yet."""
        with self._lock:
            self._load_once()
            return self._frame

    def clear(self) -> None:
        """Forget the reference (e.g. after re-calibration) and delete the saved file."""
        with self._lock:
            self._loaded = True
            self._frame = self._captured_at = None
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def save(self) -> bool:
        """Write the reference to ``path`` (atomically); False if there is none yet.

        Saves from several threads (a person's tap, the vision loop's refresh) take turns, and each writes the
        reference current when its turn comes, so the file ends with the newest."""
        with self._save_lock:
            with self._lock:
                self._load_once()
                frame, captured_at = self._frame, self._captured_at
            if frame is None:
                return False
            ok, data = cv2.imencode(self.path.suffix.lower(), frame)
            if not ok:
                raise ValueError(f"cannot encode the empty reference as {self.path.suffix}")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(self.path, data.tobytes(), mtime=captured_at)
            return True

    def status(self, now: float | None = None) -> dict:
        """``{"captured", "captured_at", "age", "size", "path", "error"}``; age in seconds."""
        now = time.time() if now is None else now
        with self._lock:
            self._load_once()
            frame, captured_at, error = self._frame, self._captured_at, self._load_error
        return {
            "captured": frame is not None,
            "captured_at": captured_at,
            "age": None if captured_at is None else round(max(0.0, now - captured_at), 1),
            "size": None if frame is None else [frame.shape[1], frame.shape[0]],
            "path": str(self.path),
            "error": error,
        }

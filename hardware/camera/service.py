"""The camera service: runs a frame source in a background thread and never lets it stop the companion.

It keeps the latest frame (and, on demand, a JPEG of it for the kiosk preview), reports a status,
and reopens a failing source with exponential back-off. Only the worker thread touches the source.

While the camera is down, ``latest()`` and ``latest_jpeg()`` keep the last good frame (so the
preview does not go blank on a hiccup); ``status()["ok"]`` and ``status()["age"]`` say whether it
is current. ``settled_frame()`` never returns a stale frame: it gives None while the camera is down.

A source that hangs (a read that never returns: a loose ribbon cable can leave picamera2 waiting for ever)
cannot be interrupted, but it is not reported as working: once no frame has come for ``stall_s`` seconds (after
the last frame, the start, or a retry that was due), ``status()`` says "stalled" with what to check, until the
next frame comes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from hardware.camera.allocator import release_freed_frames
from hardware.camera.sources import FrameSource

log = logging.getLogger(__name__)

PREVIEW_MAX_WIDTH = 640
PREVIEW_JPEG_QUALITY = 70
JOIN_TIMEOUT_S = 5.0
STALL_S = 5.0  # no frame for this long (starting, or after the last one) is a camera that hangs


@dataclass
class _SettleRequest:
    done: threading.Event = field(default_factory=threading.Event)
    frame: np.ndarray | None = None


def encode_preview_jpeg(
    frame: np.ndarray, *, max_width: int = PREVIEW_MAX_WIDTH, quality: int = PREVIEW_JPEG_QUALITY
) -> bytes:
    """JPEG bytes of ``frame``, shrunk to at most ``max_width`` pixels wide."""
    height, width = frame.shape[:2]
    if width > max_width:
        frame = cv2.resize(frame, (max_width, round(height * max_width / width)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"cannot JPEG-encode a frame of shape {frame.shape}")
    return data.tobytes()


class CameraService:
    """Reads ``source`` at ``fps`` in a daemon thread; survives a missing or failing camera.

    ``clock`` and ``sleep`` are injectable so tests need not wait; with the default ``time.sleep``
    the thread waits on an event instead, so ``close()`` and ``settled_frame()`` wake it at once.
    ``on_change`` is called (from the worker thread) whenever ``status()["state"]`` or its error
    changes, not on every frame.
    """

    def __init__(
        self,
        source: FrameSource,
        *,
        fps: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        backoff_start: float = 0.5,
        backoff_max: float = 30.0,
        on_change: Callable[[], None] | None = None,
        stall_s: float | None = None,
    ) -> None:
        if fps <= 0:
            raise ValueError(f"camera fps must be positive, got {fps}")
        if backoff_start <= 0 or backoff_max < backoff_start:
            raise ValueError(f"camera back-off must satisfy 0 < start <= max, got {backoff_start}, {backoff_max}")
        self._source = source
        self._interval = 1.0 / fps
        self._clock = clock
        self._sleep = sleep
        self._backoff_start = backoff_start
        self._backoff_max = backoff_max
        self._on_change = on_change
        self._stall_s = max(STALL_S if stall_s is None else stall_s, 5.0 / fps)  # never less than five frames' time

        self._lock = threading.Lock()
        self._jpeg_lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._opened = False
        self._settle_requests: list[_SettleRequest] = []

        self._state = "stopped"
        self._error: str | None = None
        self._retry_at: float | None = None
        self._state_at: float | None = None  # when the state last changed
        self._frames = 0
        self._frame: np.ndarray | None = None
        self._frame_at: float | None = None
        self._jpeg: bytes | None = None
        self._jpeg_frame_no = -1

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker thread; does nothing if it is running."""
        if self._thread is not None and self._thread.is_alive():
            return
        release_freed_frames()
        self._stop.clear()
        self._set_state("starting", None, None)
        self._thread = threading.Thread(target=self._run, name=f"camera[{self._source.name}]", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the worker thread, join it and release the camera; safe to call twice."""
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(JOIN_TIMEOUT_S)
            if thread.is_alive():
                log.warning("camera thread %s did not stop within %.0f s", thread.name, JOIN_TIMEOUT_S)
        self._close_source()
        self._answer_settle_requests(None)
        if self._state != "stopped":
            self._set_state("stopped", self._error, None)

    def __enter__(self) -> CameraService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what the rest of the companion reads ---------------------------------------------------

    def latest(self) -> np.ndarray | None:
        """The last good frame (read-only BGR), or None before the first one."""
        with self._lock:
            return self._frame

    def latest_jpeg(self) -> bytes | None:
        """JPEG of the last good frame for the kiosk preview (encoded once per frame, on demand)."""
        with self._jpeg_lock:
            with self._lock:
                frame, number = self._frame, self._frames
            if frame is None:
                return None
            if number != self._jpeg_frame_no:
                self._jpeg = encode_preview_jpeg(frame)
                self._jpeg_frame_no = number
            return self._jpeg

    def settled_frame(self, timeout: float = 2.0) -> np.ndarray | None:
        """A frame taken after this call (queued frames flushed); None if the camera is down."""
        thread = self._thread
        with self._lock:
            down = self._state in ("retrying", "stopped")
            if down or thread is None or not thread.is_alive():
                return None
            request = _SettleRequest()
            self._settle_requests.append(request)
        self._wake.set()
        if not request.done.wait(timeout):
            with self._lock:
                if request in self._settle_requests:
                    self._settle_requests.remove(request)
            return request.frame if request.done.is_set() else None
        return request.frame

    def status(self) -> dict:
        """``{"ok", "state", "source", "error", "retry_in", "frames", "age"}``; state is
        starting / ok / retrying / stalled / stopped, retry_in and age are seconds (or None). "stalled": the
        camera started, gave frames or was due to be retried, but none has come for ``stall_s`` seconds since (it
        hangs: a reopen that never returns is no retry still to come)."""
        now = self._clock()
        with self._lock:
            retry_in = None if self._retry_at is None else round(max(0.0, self._retry_at - now), 3)
            age = None if self._frame_at is None else round(max(0.0, now - self._frame_at), 3)
            state, error = self._state, self._error
            since = {"ok": self._frame_at, "starting": self._state_at, "retrying": self._retry_at}.get(state)
            if since is not None and now - since > self._stall_s:
                state, error = "stalled", (
                    f"the camera has given no picture for {now - since:.0f} s: it hangs. Check its cable; "
                    "restart the companion if it does not come back (the beams and taps go on)")
            return {
                "ok": state == "ok",
                "state": state,
                "source": self._source.name,
                "error": error,
                "retry_in": retry_in,
                "frames": self._frames,
                "age": age,
            }

    # -- worker thread -------------------------------------------------------------------------

    def _run(self) -> None:
        delay = self._backoff_start
        while not self._stop.is_set():
            self._wake.clear()
            started = self._clock()
            with self._lock:
                pending, self._settle_requests = self._settle_requests, []
            try:
                if not self._opened:
                    self._source.open()
                    self._opened = True
                frame = self._source.read_settled() if pending else self._source.read()
                self._check_frame(frame)
            except Exception as exc:  # any failure: report, release, back off, retry
                self._answer(pending, None)
                self._close_source()
                self._fail(exc, delay)
                delay = min(delay * 2, self._backoff_max)
                continue
            delay = self._backoff_start
            self._store(frame)
            self._answer(pending, frame)
            self._pause(max(0.0, started + self._interval - self._clock()))

    @staticmethod
    def _check_frame(frame: object) -> None:
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            shape = getattr(frame, "shape", type(frame).__name__)
            raise ValueError(f"source gave {shape}, expected a BGR uint8 frame")

    def _store(self, frame: np.ndarray) -> None:
        frame.flags.writeable = False  # shared with readers in other threads
        with self._lock:
            self._frame = frame
            self._frame_at = self._clock()
            self._frames += 1
        self._set_state("ok", None, None)

    def _fail(self, exc: Exception, delay: float) -> None:
        message = str(exc) or type(exc).__name__
        if not isinstance(exc, RuntimeError):  # CameraError is a RuntimeError with a full message
            message = f"{type(exc).__name__}: {message}"
        level = logging.DEBUG if message == self._error else logging.WARNING  # say it once, not every retry
        log.log(level, "camera %s: %s; retrying in %.1f s", self._source.name, message, delay)
        self._set_state("retrying", message, self._clock() + delay)
        self._pause(delay)

    def _pause(self, seconds: float) -> None:
        if self._stop.is_set():
            return
        if self._sleep is time.sleep:
            self._wake.wait(seconds)
        else:
            self._sleep(seconds)

    def _answer(self, requests: list[_SettleRequest], frame: np.ndarray | None) -> None:
        for request in requests:
            request.frame = frame
            request.done.set()

    def _answer_settle_requests(self, frame: np.ndarray | None) -> None:
        with self._lock:
            pending, self._settle_requests = self._settle_requests, []
        self._answer(pending, frame)

    def _close_source(self) -> None:
        if self._opened:
            self._opened = False
            try:
                self._source.close()
            except Exception as exc:
                log.warning("camera %s: error while closing: %s", self._source.name, exc)

    def _set_state(self, state: str, error: str | None, retry_at: float | None) -> None:
        with self._lock:
            changed = (state, error) != (self._state, self._error)
            if state != self._state:
                self._state_at = self._clock()
            self._state, self._error, self._retry_at = state, error, retry_at
        if changed and self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                log.exception("camera on_change callback failed")

"""CameraService: retry with back-off, status, latest frame, settled frame, clean shutdown."""

from __future__ import annotations

import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.service import CameraService, encode_preview_jpeg
from hardware.camera.sources import CameraError

WAIT_S = 10.0  # generous upper bound for the worker thread to get somewhere; not a timing assertion


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.002)


class ScriptedSource:
    """A source whose open()/read() fail as scripted; frames carry an increasing value."""

    name = "scripted"

    def __init__(self, open_failures: int = 0, read_failures_after: int | None = None) -> None:
        self.open_failures = open_failures
        self.read_failures_after = read_failures_after
        self.opens = 0
        self.closes = 0
        self.reads = 0
        self.settled_reads = 0
        self.lock = threading.Lock()
        self.broken = threading.Event()

    def open(self) -> None:
        with self.lock:
            self.opens += 1
            if self.opens <= self.open_failures:
                raise CameraError(f"camera unplugged (attempt {self.opens})")

    def read(self) -> np.ndarray:
        with self.lock:
            if self.broken.is_set():
                raise CameraError("camera stopped answering")
            self.reads += 1
            return np.full((48, 64, 3), self.reads % 256, np.uint8)

    def read_settled(self) -> np.ndarray:
        with self.lock:
            if self.broken.is_set():
                raise CameraError("camera stopped answering")
            self.settled_reads += 1
            return np.full((48, 64, 3), 250, np.uint8)

    def close(self) -> None:
        with self.lock:
            self.closes += 1


class FakeTime:
    """Injected clock and sleep: sleeping advances the clock; the real pause is tiny."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.lock = threading.Lock()

    def clock(self) -> float:
        with self.lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.sleeps.append(round(seconds, 6))
        self.between(len(self.sleeps))
        with self.lock:
            self.now += seconds
        time.sleep(0.001)

    def between(self, count: int) -> None:
        """Hook run after recording the count-th sleep, before the clock advances."""


def make_service(source: ScriptedSource, fake: FakeTime, **kwargs: object) -> CameraService:
    return CameraService(source, fps=5.0, clock=fake.clock, sleep=fake.sleep, **kwargs)  # type: ignore[arg-type]


def test_a_source_that_fails_twice_recovers_with_doubling_back_off() -> None:
    source = ScriptedSource(open_failures=2)
    fake = FakeTime()
    changes: list[dict] = []
    service = make_service(source, fake)
    service._on_change = lambda: changes.append(service.status())
    service.start()
    try:
        wait_until(lambda: service.status()["frames"] >= 3)
    finally:
        service.close()
    assert fake.sleeps[:2] == [0.5, 1.0]
    assert all(s == pytest.approx(0.2) for s in fake.sleeps[2:])  # then frame pacing at 5 fps
    assert source.opens == 3
    states = [(c["state"], c["error"]) for c in changes]
    assert states[:4] == [
        ("starting", None),
        ("retrying", "camera unplugged (attempt 1)"),
        ("retrying", "camera unplugged (attempt 2)"),
        ("ok", None),
    ]
    assert states[-1][0] == "stopped"


def test_back_off_is_capped_and_resets_after_a_good_frame() -> None:
    source = ScriptedSource(open_failures=7)
    fake = FakeTime()
    service = make_service(source, fake, backoff_start=0.5, backoff_max=4.0)
    service.start()
    try:
        wait_until(lambda: service.status()["frames"] >= 1)
        source.broken.set()
        wait_until(lambda: service.status()["state"] == "retrying")
        wait_until(lambda: len([s for s in fake.sleeps if s != pytest.approx(0.2)]) >= 9)
    finally:
        service.close()
    back_offs = [s for s in fake.sleeps if s != pytest.approx(0.2)]
    assert back_offs[:7] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0]
    assert back_offs[7:9] == [0.5, 1.0]  # a good frame in between reset the back-off


class GateTime(FakeTime):
    """Like FakeTime, but the worker blocks in the chosen sleeps until the test releases it."""

    def __init__(self, *gates: int) -> None:
        super().__init__()
        self.blocked = {n: threading.Event() for n in gates}
        self.released = {n: threading.Event() for n in gates}

    def between(self, count: int) -> None:
        if count in self.blocked:
            self.blocked[count].set()
            self.released[count].wait(WAIT_S)

    def release_all(self) -> None:
        for event in self.released.values():
            event.set()


def test_status_shows_the_error_and_retry_while_down_and_keeps_the_last_frame() -> None:
    source = ScriptedSource()
    fake = GateTime(1, 2)  # 1st sleep: frame pacing; 2nd: back-off after the failure
    service = make_service(source, fake)
    service.start()
    try:
        assert fake.blocked[1].wait(WAIT_S)
        good = service.latest()
        assert good is not None and service.status()["ok"] is True
        source.broken.set()
        fake.released[1].set()
        assert fake.blocked[2].wait(WAIT_S)
        assert service.status() == {
            "ok": False,
            "state": "retrying",
            "source": "scripted",
            "error": "camera stopped answering",
            "retry_in": 0.5,
            "frames": 1,
            "age": 0.2,
        }
        with fake.lock:
            fake.now += 0.3
        assert service.status()["retry_in"] == pytest.approx(0.2)
        # documented choice: the last good frame is kept (and marked stale by ok/age)
        assert service.latest() is good and int(good[0, 0, 0]) == 1
        assert service.latest_jpeg() is not None
        assert service.settled_frame(timeout=0.05) is None  # never a stale frame for confirmation
    finally:
        fake.release_all()
        service.close()
    assert source.closes >= 1


def test_latest_is_none_before_the_first_frame_and_frames_are_read_only() -> None:
    source = ScriptedSource(open_failures=10**6)
    fake = FakeTime()
    service = make_service(source, fake)
    assert service.latest() is None and service.latest_jpeg() is None
    assert service.status()["state"] == "stopped"
    service.start()
    try:
        wait_until(lambda: source.opens >= 2)
        assert service.latest() is None and service.latest_jpeg() is None
        assert service.status()["ok"] is False
    finally:
        service.close()

    working = ScriptedSource()
    service = make_service(working, FakeTime())
    service.start()
    try:
        wait_until(lambda: service.latest() is not None)
        frame = service.latest()
        assert frame is not None
        with pytest.raises(ValueError):
            frame[0, 0, 0] = 1
    finally:
        service.close()


def test_latest_jpeg_decodes_to_the_latest_frame_and_is_cached() -> None:
    source = ScriptedSource()
    fake = GateTime(1)
    service = make_service(source, fake)
    service.start()
    try:
        assert fake.blocked[1].wait(WAIT_S)
        first = service.latest_jpeg()
        assert first is not None and service.latest_jpeg() is first
        decoded = cv2.imdecode(np.frombuffer(first, np.uint8), cv2.IMREAD_COLOR)
        assert decoded.shape == (48, 64, 3) and abs(int(decoded[10, 10, 0]) - 1) <= 3
    finally:
        fake.release_all()
        service.close()


def test_preview_jpeg_is_shrunk_to_640_wide() -> None:
    data = encode_preview_jpeg(np.zeros((960, 1280, 3), np.uint8))
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape == (480, 640, 3)


def test_settled_frame_comes_from_read_settled() -> None:
    source = ScriptedSource()
    service = CameraService(source, fps=50.0)  # real clock and sleep: the event wakes the thread
    service.start()
    try:
        wait_until(lambda: service.status()["ok"])
        frame = service.settled_frame(timeout=WAIT_S)
        assert frame is not None and int(frame[0, 0, 0]) == 250
        assert source.settled_reads == 1
        assert service.status()["frames"] >= 2  # the settled frame also counts as the latest
    finally:
        service.close()


def test_settled_frame_is_none_when_not_started_or_down() -> None:
    source = ScriptedSource(open_failures=10**6)
    service = make_service(source, FakeTime())
    assert service.settled_frame(timeout=0.01) is None
    service.start()
    try:
        wait_until(lambda: service.status()["state"] == "retrying")
        assert service.settled_frame(timeout=0.01) is None
    finally:
        service.close()


def test_close_stops_the_thread_is_idempotent_and_closes_the_source() -> None:
    source = ScriptedSource()
    service = CameraService(source, fps=5.0, backoff_max=30.0)
    service.start()
    service.start()  # idempotent: still one thread
    wait_until(lambda: service.status()["frames"] >= 1)
    threads = [t for t in threading.enumerate() if t.name == "camera[scripted]"]
    assert len(threads) == 1
    service.close()
    service.close()
    assert not threads[0].is_alive()
    assert source.closes == 1
    assert service.status()["state"] == "stopped"
    frames = service.status()["frames"]
    time.sleep(0.05)
    assert service.status()["frames"] == frames


def test_close_interrupts_a_long_back_off() -> None:
    source = ScriptedSource(open_failures=10**6)
    service = CameraService(source, backoff_start=30.0, backoff_max=30.0)
    service.start()
    wait_until(lambda: service.status()["state"] == "retrying")
    thread = service._thread
    service.close()
    assert thread is not None and not thread.is_alive()


class HangingSource(ScriptedSource):
    """A source whose read never returns while `hang` is set (a camera whose cable came loose), until `release`."""

    def __init__(self, open_hangs: bool = False) -> None:
        super().__init__()
        self.hang, self.inside, self.release = threading.Event(), threading.Event(), threading.Event()
        if open_hangs:
            self.hang.set()

    def _maybe_hang(self) -> None:
        if self.hang.is_set():
            self.inside.set()
            self.release.wait(WAIT_S)

    def open(self) -> None:
        self._maybe_hang()
        super().open()

    def read(self) -> np.ndarray:
        self._maybe_hang()
        return super().read()


def test_a_camera_that_hangs_is_reported_stalled_until_its_next_frame() -> None:
    source = HangingSource()
    fake = FakeTime()
    changes: list[str] = []
    service = make_service(source, fake, stall_s=3.0)
    service._on_change = lambda: changes.append(service.status()["state"])
    service.start()
    try:
        wait_until(lambda: service.status()["frames"] >= 1)
        source.hang.set()
        wait_until(source.inside.is_set)  # the worker waits in read() for good
        assert service.status()["state"] == "ok"  # no frame missed yet
        with fake.lock:
            fake.now += 3.5
        status = service.status()
        assert status["state"] == "stalled" and status["ok"] is False
        assert "no picture for" in status["error"] and "cable" in status["error"]
        assert service.latest() is not None  # the last frame stays for the preview
        source.hang.clear()
        source.release.set()
        wait_until(lambda: service.status()["ok"])
        assert service.status()["error"] is None
    finally:
        source.release.set()
        service.close()
    assert "stalled" not in changes  # worked out when asked: the worker could tell nobody


def test_a_camera_whose_open_never_returns_is_reported_stalled() -> None:
    source = HangingSource(open_hangs=True)
    fake = FakeTime()
    service = make_service(source, fake, stall_s=3.0)
    service.start()
    try:
        wait_until(source.inside.is_set)
        assert service.status()["state"] == "starting"
        with fake.lock:
            fake.now += 3.5
        assert service.status()["state"] == "stalled" and service.status()["ok"] is False
    finally:
        source.release.set()
        service.close()


def test_a_camera_whose_reopen_never_returns_is_reported_stalled_not_retrying() -> None:
    """A retry that hangs (the cable came loose after a failure) is not a retry still to come "in 0 s"."""
    source = HangingSource()
    source.open_failures = 1
    fake = FakeTime()
    fake.between = lambda count: source.hang.set()  # after the failed open's back-off, the next open hangs
    service = make_service(source, fake, stall_s=3.0)
    service.start()
    try:
        wait_until(source.inside.is_set)
        assert service.status()["state"] == "retrying"
        with fake.lock:
            fake.now += 3.5
        status = service.status()
        assert status["state"] == "stalled" and status["ok"] is False
        assert "no picture for" in status["error"] and "cable" in status["error"]
    finally:
        source.release.set()
        service.close()


def test_unexpected_exceptions_and_bad_frames_are_reported_not_fatal() -> None:
    class Odd(ScriptedSource):
        def read(self) -> np.ndarray:
            self.reads += 1
            if self.reads == 1:
                raise OSError("device vanished")
            if self.reads == 2:
                return np.zeros((4, 4), np.float32)
            return super().read()

    source = Odd()
    fake = FakeTime()
    errors: list[str | None] = []
    service = make_service(source, fake)
    service._on_change = lambda: errors.append(service.status()["error"])
    service.start()
    try:
        wait_until(lambda: service.status()["ok"])
    finally:
        service.close()
    assert "OSError: device vanished" in errors
    assert any(e and "expected a BGR uint8 frame" in e for e in errors)
    assert fake.sleeps[:2] == [0.5, 1.0]


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="fps"):
        CameraService(ScriptedSource(), fps=0)
    with pytest.raises(ValueError, match="back-off"):
        CameraService(ScriptedSource(), backoff_start=2.0, backoff_max=1.0)


needs_glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc",
                                 reason="the allocator's thresholds are glibc settings")


@needs_glibc
def test_freed_frames_go_back_to_the_system_on_glibc() -> None:
    from hardware.camera.allocator import release_freed_frames

    assert release_freed_frames() is True
    assert release_freed_frames() is True  # once per process; asking again is harmless


READ_ON_A_THREAD = """
from bench.bench_vision import on_a_thread
from hardware.camera.allocator import release_freed_frames
from hardware.vision.detect import MarbleDetector
from tests.scenes import make_scene

release_freed_frames()
scene = make_scene(900)
print(on_a_thread([(MarbleDetector(scene.regions, scene.reference), scene.image)], rounds=10)[1])
"""


@needs_glibc
def test_a_castle_reading_maps_no_fresh_memory_once_warm() -> None:
    """With the allocator set as the service sets it, the detector's planes and vote stacks are reused from frame to
    frame on a thread of its own, as the camera hub reads: counted as the fresh pages that thread faults in (with the
    mmap threshold at 1 MiB and the trim threshold left at 128 KiB, over 500 a frame). In a process of its own, so that
    no other thread shares the reader's heap."""
    done = subprocess.run([sys.executable, "-c", READ_ON_A_THREAD], cwd=Path(__file__).parent.parent,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 50

"""Frame sources: files, a fake USB capture and a fake picamera2, and the spec parser."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from hardware.camera.sources import (
    CameraError,
    FileSource,
    FrameSource,
    Picamera2Source,
    VideoCaptureSource,
    i420_to_bgr,
    open_source,
)


def solid(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    return np.full((size[1], size[0], 3), value, np.uint8)


@pytest.fixture
def images(tmp_path: Path) -> list[Path]:
    paths = []
    for i, value in enumerate((10, 120, 240)):
        path = tmp_path / f"frame{i}.png"
        cv2.imwrite(str(path), solid(value))
        paths.append(path)
    return paths


# -- files ---------------------------------------------------------------------------------------


def test_file_source_reads_images_in_order_and_loops(images: list[Path]) -> None:
    source = FileSource(images)
    assert isinstance(source, FrameSource)
    source.open()
    values = [int(source.read()[0, 0, 0]) for _ in range(5)]
    source.close()
    assert values == [10, 120, 240, 10, 120]


def test_file_source_without_loop_reports_the_end(images: list[Path]) -> None:
    source = FileSource(images[:2], loop=False)
    source.open()
    source.read()
    source.read()
    with pytest.raises(CameraError, match="no more images"):
        source.read()


def test_file_source_names_missing_files(tmp_path: Path, images: list[Path]) -> None:
    missing = tmp_path / "nope.jpg"
    source = FileSource([images[0], missing])
    with pytest.raises(CameraError, match="not found: .*nope.jpg"):
        source.open()


def test_file_source_reports_an_undecodable_image(tmp_path: Path) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    source = FileSource([bad])
    source.open()
    with pytest.raises(CameraError, match="cannot read image .*bad.png"):
        source.read()


def test_file_source_converts_grey_and_alpha_to_bgr(tmp_path: Path) -> None:
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((20, 30), 77, np.uint8))
    rgba = tmp_path / "alpha.png"
    cv2.imwrite(str(rgba), np.dstack([solid(5, (30, 20)), np.full((20, 30), 255, np.uint8)]))
    source = FileSource([grey, rgba])
    source.open()
    first, second = source.read(), source.read()
    assert first.shape == second.shape == (20, 30, 3)
    assert first.dtype == np.uint8 and int(first[0, 0, 1]) == 77
    assert int(second[0, 0, 2]) == 5


def test_file_source_reads_a_directory_sorted(tmp_path: Path, images: list[Path]) -> None:
    source = FileSource([tmp_path])
    source.open()
    assert [int(source.read()[0, 0, 0]) for _ in range(3)] == [10, 120, 240]


def test_file_source_replays_a_video_and_loops(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for value in (0, 100, 200):
        writer.write(solid(value))
    writer.release()
    source = FileSource([path])
    source.open()
    values = [int(source.read()[10, 10, 0]) for _ in range(4)]
    source.close()
    assert [abs(v - e) < 12 for v, e in zip(values, (0, 100, 200, 0))] == [True] * 4


def test_file_source_paces_reads_at_fps(images: list[Path]) -> None:
    now = [100.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    source = FileSource(images, fps=4.0, clock=lambda: now[0], sleep=sleep)
    source.open()
    source.read()
    now[0] += 0.1
    source.read()
    source.read()
    assert waits == pytest.approx([0.15, 0.25])


# -- USB capture ---------------------------------------------------------------------------------


class FakeCapture:
    def __init__(self, opened: bool = True, frames: list[np.ndarray | None] | None = None) -> None:
        self.opened = opened
        self.frames = list(frames or [])
        self.props: dict[int, float] = {}
        self.grabs = 0
        self.released = False

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def grab(self) -> bool:
        self.grabs += 1
        if self.frames:
            self.frames.pop(0)
            return True
        return False

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.frames:
            return False, None
        frame = self.frames.pop(0)
        return frame is not None, frame

    def release(self) -> None:
        self.released = True


def test_usb_source_open_failure_is_a_clear_camera_error() -> None:
    fake = FakeCapture(opened=False)
    source = VideoCaptureSource(3, capture_factory=lambda device: fake)
    with pytest.raises(CameraError, match="cannot open USB camera 3"):
        source.open()
    assert fake.released


def test_usb_source_sets_size_reads_and_fails_clearly() -> None:
    fake = FakeCapture(frames=[solid(50), None])
    devices: list[object] = []
    source = VideoCaptureSource(1, size=(320, 240), capture_factory=lambda d: devices.append(d) or fake)
    source.open()
    assert devices == [1]
    assert fake.props == {cv2.CAP_PROP_FRAME_WIDTH: 320, cv2.CAP_PROP_FRAME_HEIGHT: 240}
    assert int(source.read()[0, 0, 0]) == 50
    with pytest.raises(CameraError, match="gave no frame"):
        source.read()
    source.close()
    assert fake.released


def test_usb_source_settled_frame_drops_queued_frames() -> None:
    fake = FakeCapture(frames=[solid(v) for v in (1, 2, 3, 4, 5, 6)])
    source = VideoCaptureSource(0, capture_factory=lambda d: fake, flush_frames=4)
    source.open()
    assert int(source.read_settled()[0, 0, 0]) == 5
    assert fake.grabs == 4


def test_usb_source_read_before_open_is_an_error() -> None:
    with pytest.raises(CameraError, match="not open"):
        VideoCaptureSource(0, capture_factory=lambda d: FakeCapture()).read()


# -- picamera2 -----------------------------------------------------------------------------------


def i420_of(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)


class FakeRequest:
    def __init__(self, camera: FakePicamera2, value: int) -> None:
        self.camera = camera
        self.value = value
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        assert name == "lores"
        return self.camera.lores(self.value)

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    """Just enough of picamera2.Picamera2: a lores YUV420 stream of solid grey frames."""

    instances: list[FakePicamera2] = []

    #: the controls this libcamera knows (a newer one knows the flicker controls)
    camera_controls: dict = {"AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1000000, 10000)}

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.controls: dict = {}
        self.config: dict = {}
        self.requests: list[FakeRequest] = []
        self.flushes: list[object] = []
        self.counter = 0
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict, lores: dict) -> dict:
        return {"main": main, "lores": lores}

    def configure(self, config: dict) -> None:
        self.calls.append("configure")
        self.config = config

    def start(self) -> None:
        self.calls.append("start")

    def set_controls(self, controls: dict) -> None:
        self.calls.append("set_controls")
        self.controls.update(controls)

    def lores(self, value: int) -> np.ndarray:
        width, height = self.config["lores"]["size"]
        return i420_of(np.full((height, width, 3), value, np.uint8))

    def capture_array(self, name: str = "main") -> np.ndarray:
        assert name == "lores"
        self.counter += 10
        return self.lores(self.counter)

    def capture_request(self, flush: object = None) -> FakeRequest:
        self.flushes.append(flush)
        request = FakeRequest(self, 200)
        self.requests.append(request)
        return request

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")

    # a camera with a focus motor (Camera Module 3): one cycle moves the lens to `settles_at`
    settles_at: float = 3.2
    focus_fails: BaseException | None = None

    def autofocus_cycle(self, wait: object = None) -> str:
        assert wait is False  # a job, waited for with a timeout
        self.calls.append("autofocus_cycle")
        self.controls.update({"AfMode": 1, "AfTrigger": 0, "LensPosition": self.settles_at})
        return "af-job"

    def wait(self, job: str, timeout: float | None = None) -> bool:
        assert job == "af-job" and timeout is not None
        if self.focus_fails is not None:
            raise self.focus_fails
        return True

    def capture_metadata(self) -> dict:
        return {"LensPosition": self.controls.get("LensPosition", 1.0), "AfState": 2}


def fake_module() -> SimpleNamespace:
    FakePicamera2.instances = []
    return SimpleNamespace(Picamera2=FakePicamera2)


def test_picamera2_source_configures_main_and_lores_and_returns_bgr() -> None:
    source = Picamera2Source(main_size=(1280, 960), lores_size=(320, 240), module=fake_module())
    source.open()
    camera = FakePicamera2.instances[0]
    assert camera.config == {
        "main": {"size": (1280, 960), "format": "RGB888"},
        "lores": {"size": (320, 240), "format": "YUV420"},
    }
    assert camera.calls == ["configure", "set_controls", "start"]
    frame = source.read()
    assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8
    assert abs(int(frame[100, 100, 1]) - 10) <= 2
    source.close()
    assert camera.calls[-2:] == ["stop", "close"]


@pytest.mark.parametrize("mains_hz, controls", [(50, {"AeFlickerMode": 1, "AeFlickerPeriod": 10000}),
                                                 (60, {"AeFlickerMode": 1, "AeFlickerPeriod": 8333}), (0, {})])
def test_picamera2_exposure_avoids_the_lamps_flicker(mains_hz: int, controls: dict) -> None:
    """Lamps flicker at twice the mains frequency: the exposure is kept to whole flicker periods, so a rolling
    shutter records no bands; 0 leaves the exposure to the camera."""
    assert open_source("picamera2:640x480", mains_hz=mains_hz).mains_hz == mains_hz  # as the config names it
    source = Picamera2Source(lores_size=(320, 240), mains_hz=mains_hz, module=fake_module())
    source.open()
    assert FakePicamera2.instances[0].controls == controls


def test_picamera2_without_the_flicker_controls_starts_all_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FakePicamera2, "camera_controls", {"ExposureTime": (0, 66666, 20000)})  # an older libcamera
    source = Picamera2Source(lores_size=(320, 240), module=fake_module())
    source.open()
    camera = FakePicamera2.instances[0]
    assert camera.calls == ["configure", "start"] and camera.controls == {}
    assert source.read().shape == (240, 320, 3)


def test_a_mains_frequency_other_than_50_or_60_is_refused() -> None:
    with pytest.raises(ValueError, match="mains frequency must be one of 0, 50, 60 Hz, got 55"):
        Picamera2Source(mains_hz=55)


def test_picamera2_settled_frame_uses_a_flushed_request_and_releases_it() -> None:
    source = Picamera2Source(lores_size=(320, 240), module=fake_module())
    source.open()
    frame = source.read_settled()
    camera = FakePicamera2.instances[0]
    assert camera.flushes == [True]
    assert camera.requests[0].released
    assert frame.shape == (240, 320, 3) and abs(int(frame[5, 5, 0]) - 200) <= 2


def test_picamera2_missing_module_is_a_clear_camera_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_picamera2(name: str, *args: object, **kwargs: object) -> object:
        if name == "picamera2":
            raise ImportError("No module named 'picamera2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_picamera2)
    monkeypatch.delitem(__import__("sys").modules, "picamera2", raising=False)
    with pytest.raises(CameraError, match="picamera2 is not available"):
        Picamera2Source().open()


def test_picamera2_no_camera_attached_is_a_camera_error() -> None:
    def no_camera() -> None:
        raise IndexError("list index out of range")

    with pytest.raises(CameraError, match="no Pi camera found"):
        Picamera2Source(module=SimpleNamespace(Picamera2=no_camera)).open()


def test_i420_with_padded_stride_is_cropped_plane_by_plane() -> None:
    width, height, stride = 40, 8, 64
    bgr = np.zeros((height, width, 3), np.uint8)
    bgr[:, :20] = (255, 0, 0)
    bgr[:, 20:] = (0, 0, 255)
    packed = i420_of(bgr)
    y, u, v = packed[:height], packed[height : height + height // 4], packed[height + height // 4 :]
    padded = np.zeros((height * 3 // 2, stride), np.uint8)
    padded[:height, :width] = y
    for plane, start in ((u, height), (v, height + height // 4)):
        rows = plane.reshape(height // 2, width // 2)
        target = padded[start : start + height // 4].reshape(height // 2, stride // 2)
        target[:, : width // 2] = rows
    assert np.abs(i420_to_bgr(padded, (width, height)).astype(int) - i420_to_bgr(packed, (width, height))).max() == 0


def test_i420_with_wrong_shape_is_reported() -> None:
    with pytest.raises(CameraError, match="expected \\(360, 320\\)"):
        i420_to_bgr(np.zeros((240, 320), np.uint8), (320, 240))


# -- spec parsing --------------------------------------------------------------------------------


def test_open_source_parses_specs() -> None:
    pi = open_source("picamera2")
    assert isinstance(pi, Picamera2Source) and pi.lores_size == (320, 240)
    assert open_source("picamera2:640x480").lores_size == (640, 480)
    usb = open_source("usb:2")
    assert isinstance(usb, VideoCaptureSource) and usb.device == 2 and usb.size == (640, 480)
    named = open_source("usb:/dev/video4@1280x720")
    assert named.device == "/dev/video4" and named.size == (1280, 720)
    files = open_source("file:/x/a.jpg, /x/b.jpg")
    assert isinstance(files, FileSource) and [p.name for p in files.paths] == ["a.jpg", "b.jpg"]
    video = open_source("file:/x/clip.mp4")
    assert isinstance(video, FileSource) and video.is_video


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty camera spec"),
        ("webcam", "unknown camera spec 'webcam'"),
        ("usb:", "name a device"),
        ("usb:zero", "name a device by its number or its path"),
        ("usb:0@big", "must look like 640x480"),
        ("picamera2:0x240", "must be positive"),
        ("file:", "at least one image"),
        ("file:a.mp4,b.jpg", "video must be the only file"),
    ],
)
def test_open_source_rejects_bad_specs_clearly(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        open_source(spec)


AUTOFOCUS = {"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0)}


def test_a_camera_with_autofocus_focuses_once_then_holds_the_lens(monkeypatch: pytest.MonkeyPatch,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(FakePicamera2, "camera_controls", {**FakePicamera2.camera_controls, **AUTOFOCUS})
    source = Picamera2Source(lores_size=(320, 240), mains_hz=0, module=fake_module())
    with caplog.at_level("INFO", logger="hardware.camera.sources"):
        source.open()
    camera = FakePicamera2.instances[0]
    assert camera.calls == ["configure", "start", "autofocus_cycle", "set_controls"]  # after the start
    assert camera.controls["AfMode"] == 0 and camera.controls["LensPosition"] == 3.2  # manual, where it settled
    assert "camera focused; lens held at 3.20 dioptres (about 31 cm)" in caplog.text
    assert source.read().shape == (240, 320, 3)


def test_a_camera_without_autofocus_is_not_focused() -> None:
    source = Picamera2Source(lores_size=(320, 240), module=fake_module())  # the fake's controls: no AfMode
    source.open()
    camera = FakePicamera2.instances[0]
    assert "autofocus_cycle" not in camera.calls and "AfMode" not in camera.controls


def test_an_autofocus_that_does_not_finish_holds_the_lens_where_it_is(monkeypatch: pytest.MonkeyPatch,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(FakePicamera2, "camera_controls", {**FakePicamera2.camera_controls, **AUTOFOCUS})
    monkeypatch.setattr(FakePicamera2, "focus_fails", TimeoutError("no answer"))
    source = Picamera2Source(lores_size=(320, 240), mains_hz=0, module=fake_module())
    with caplog.at_level("INFO", logger="hardware.camera.sources"):
        source.open()  # the camera runs all the same
    camera = FakePicamera2.instances[0]
    assert camera.controls["AfMode"] == 0 and camera.controls["LensPosition"] == 3.2
    assert "camera autofocus did not finish (TimeoutError: no answer)" in caplog.text
    assert "camera autofocus did not finish; lens held at 3.20 dioptres" in caplog.text
    assert source.read().shape == (240, 320, 3)

"""Frame sources: picamera2 (Pi), OpenCV VideoCapture (USB webcam) and files (replay, demo, tests).

Every source returns BGR ``uint8`` frames of shape ``(h, w, 3)`` and raises :class:`CameraError`
with a message a person can act on. Nothing here touches a camera or the disk before ``open()``;
picamera2 is imported only inside :meth:`Picamera2Source.open`.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

log = logging.getLogger(__name__)

MAINS_HZ = 50
"""The mains frequency lamps flicker with (twice a period): 50 Hz in Europe, 60 in the Americas."""

MAINS_CHOICES = (0, 50, 60)
"""The mains frequencies a camera may be told of; 0 leaves its exposure to the camera."""

FLICKER_MANUAL = 1
"""libcamera's ``AeFlickerModeEnum.Manual``: the exposure avoids the flicker period given."""

AF_MANUAL = 0
"""libcamera's ``AfModeEnum.Manual``: the lens stays at the ``LensPosition`` given."""

FOCUS_TIMEOUT_S = 10.0
"""How long the autofocus cycle at start may take before the lens is held where it is."""

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".webm", ".h264", ".mjpeg", ".mjpg", ".m4v"})


#: What to do when apt's picamera2 cannot load next to a numpy 2 from pip ("numpy.dtype size changed").
NUMPY_ABI_FIX = ("keep apt's numpy: sudo ./systemd/install.sh (installs with numpy<2), or in the venv: "
                 "pip install 'numpy<2' 'opencv-python-headless<4.12'")


class CameraError(RuntimeError):
    """A camera could not be opened or read; the message says what and why."""


@runtime_checkable
class FrameSource(Protocol):
    """What the camera service needs from a camera."""

    name: str

    def open(self) -> None:
        """Acquire the camera; raises CameraError."""

    def read(self) -> np.ndarray:
        """The next BGR frame; raises CameraError."""

    def read_settled(self) -> np.ndarray:
        """A frame taken now (queued frames flushed), for confirming where marbles rest."""

    def close(self) -> None:
        """Release the camera; safe to call twice or before open()."""


def to_bgr(frame: np.ndarray) -> np.ndarray:
    """Return ``frame`` as contiguous 3-channel BGR uint8 (grey and BGRA are converted)."""
    if frame.dtype != np.uint8:
        raise CameraError(f"camera gave {frame.dtype} pixels, expected uint8")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim == 3 and frame.shape[2] == 3:
        return np.ascontiguousarray(frame)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    raise CameraError(f"camera gave a frame of shape {frame.shape}, expected (h, w, 3)")


def i420_to_bgr(yuv: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Convert a picamera2 YUV420 (I420) array of shape ``(h*3/2, stride)`` to BGR of ``size``.

    picamera2 pads each row to the stride; when the stride is wider than the image, the Y, U and
    V planes are cropped one by one before conversion.
    """
    width, height = size
    if yuv.ndim != 2 or yuv.dtype != np.uint8:
        raise CameraError(f"lores frame has shape {yuv.shape} {yuv.dtype}, expected 2-D uint8 I420")
    rows, stride = yuv.shape
    if rows != height * 3 // 2 or stride < width:
        raise CameraError(
            f"lores frame has shape {yuv.shape}, expected ({height * 3 // 2}, {width}) for {width}x{height} I420"
        )
    if stride != width:
        quarter = height // 4
        y = yuv[:height, :width]
        u = yuv[height : height + quarter].reshape(height // 2, stride // 2)[:, : width // 2]
        v = yuv[height + quarter : height + 2 * quarter].reshape(height // 2, stride // 2)[:, : width // 2]
        yuv = np.concatenate([y.ravel(), u.ravel(), v.ravel()]).reshape(height * 3 // 2, width)
    return cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420)


class FileSource:
    """Frames from image files (in order) or from one video file, looping by default.

    ``paths`` may name images, directories of images, or a single video. With ``fps`` set, ``read``
    waits so frames come no faster than a camera at that rate would give them.
    """

    def __init__(
        self,
        paths: Sequence[str | Path],
        *,
        loop: bool = True,
        fps: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if isinstance(paths, (str, Path)):
            paths = [paths]
        if not paths:
            raise ValueError("file source needs at least one image or video path")
        if fps is not None and fps <= 0:
            raise ValueError(f"file source fps must be positive, got {fps}")
        self.paths = [Path(p) for p in paths]
        self.loop = loop
        self.fps = fps
        self._clock = clock
        self._sleep = sleep
        self._images: list[Path] = []
        self._video: Any = None
        self._index = 0
        self._due: float | None = None
        self._opened = False
        first = self.paths[0].name or str(self.paths[0])
        self.name = f"file:{first}" + (f" (+{len(self.paths) - 1})" if len(self.paths) > 1 else "")

    @property
    def is_video(self) -> bool:
        """True when the source replays one video file."""
        return len(self.paths) == 1 and self.paths[0].suffix.lower() in VIDEO_SUFFIXES

    def open(self) -> None:
        self.close()
        if self.is_video:
            path = self.paths[0]
            if not path.is_file():
                raise CameraError(f"video file not found: {path}")
            capture = cv2.VideoCapture(str(path))
            if not capture.isOpened():
                capture.release()
                raise CameraError(f"cannot open video file {path} (unsupported format or damaged)")
            self._video = capture
        else:
            self._images = self._resolve_images()
        self._index = 0
        self._due = None
        self._opened = True

    def _resolve_images(self) -> list[Path]:
        images: list[Path] = []
        missing = [str(p) for p in self.paths if not p.exists()]
        if missing:
            raise CameraError(f"image file(s) not found: {', '.join(missing)}")
        for path in self.paths:
            if path.is_dir():
                found = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
                if not found:
                    raise CameraError(f"no images in directory {path}")
                images.extend(found)
            elif path.suffix.lower() in VIDEO_SUFFIXES:
                raise CameraError(f"a video ({path}) must be the only path of a file source")
            else:
                images.append(path)
        return images

    def _pace(self) -> None:
        if self.fps is None:
            return
        now = self._clock()
        if self._due is not None and now < self._due:
            self._sleep(self._due - now)
            now = self._due
        self._due = now + 1.0 / self.fps

    def read(self) -> np.ndarray:
        if not self._opened:
            raise CameraError(f"{self.name} is not open")
        self._pace()
        if self._video is not None:
            return self._read_video()
        if self._index >= len(self._images):
            if not self.loop:
                raise CameraError(f"{self.name}: no more images (loop is off)")
            self._index = 0
        path = self._images[self._index]
        self._index += 1
        frame = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if frame is None:
            raise CameraError(f"cannot read image {path} (missing, unsupported or damaged)")
        if frame.dtype == np.uint16:
            frame = np.right_shift(frame, 8).astype(np.uint8)
        return to_bgr(frame)

    def _read_video(self) -> np.ndarray:
        ok, frame = self._video.read()
        if not ok and self.loop:
            self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._video.read()
        if not ok or frame is None:
            end = "no frames" if self.loop else "end of video (loop is off)"
            raise CameraError(f"{self.name}: {end}")
        return to_bgr(frame)

    def read_settled(self) -> np.ndarray:
        """Files do not move on their own: the next frame is as settled as any."""
        return self.read()

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None
        self._opened = False


class VideoCaptureSource:
    """A USB webcam (or any OpenCV ``VideoCapture`` device or URL)."""

    def __init__(
        self,
        device: int | str = 0,
        *,
        size: tuple[int, int] | None = (640, 480),
        capture_factory: Callable[..., Any] = cv2.VideoCapture,
        flush_frames: int = 4,
    ) -> None:
        self.device = device
        self.size = size
        self.flush_frames = flush_frames
        self._factory = capture_factory
        self._capture: Any = None
        self.name = f"usb:{device}"

    def open(self) -> None:
        self.close()
        try:
            capture = self._factory(self.device)
        except Exception as exc:  # a driver error must not escape as anything but CameraError
            raise CameraError(f"cannot open USB camera {self.device!r}: {exc}") from exc
        if capture is None or not capture.isOpened():
            if capture is not None:
                capture.release()
            raise CameraError(
                f"cannot open USB camera {self.device!r}: no such device, or it is busy "
                "(check the cable and that no other program uses it)"
            )
        if self.size is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._capture = capture

    def read(self) -> np.ndarray:
        if self._capture is None:
            raise CameraError(f"{self.name} is not open")
        try:
            ok, frame = self._capture.read()
        except cv2.error as exc:
            raise CameraError(f"USB camera {self.device!r} failed: {exc}") from exc
        if not ok or frame is None:
            raise CameraError(f"USB camera {self.device!r} gave no frame (unplugged?)")
        return to_bgr(frame)

    def read_settled(self) -> np.ndarray:
        """Drop the frames the driver has queued, then read one taken now."""
        if self._capture is None:
            raise CameraError(f"{self.name} is not open")
        for _ in range(self.flush_frames):
            if not self._capture.grab():
                break
        return self.read()

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class Picamera2Source:
    """The Pi camera through picamera2: a main stream plus a small YUV420 lores stream for vision.

    Frames come from the lores stream, converted to BGR of ``lores_size``. ``module`` replaces the
    ``picamera2`` module (tests pass a fake); by default it is imported when the source opens.
    """

    def __init__(
        self,
        *,
        main_size: tuple[int, int] = (1280, 960),
        lores_size: tuple[int, int] = (320, 240),
        mains_hz: int = MAINS_HZ,
        module: ModuleType | Any | None = None,
    ) -> None:
        if mains_hz not in MAINS_CHOICES:
            raise ValueError(f"mains frequency must be one of {', '.join(map(str, MAINS_CHOICES))} Hz, got {mains_hz}")
        if lores_size[0] > main_size[0] or lores_size[1] > main_size[1]:
            raise ValueError(f"lores size {lores_size} must not exceed main size {main_size}")
        if lores_size[0] % 2 or lores_size[1] % 2:
            raise ValueError(f"lores size {lores_size} must have even width and height (YUV420)")
        self.main_size = main_size
        self.lores_size = lores_size
        self.mains_hz = mains_hz
        self._module = module
        self._camera: Any = None
        self.name = "picamera2"

    def _import(self) -> Any:
        if self._module is not None:
            return self._module
        try:
            return importlib.import_module("picamera2")
        except ImportError as exc:
            raise CameraError(
                "picamera2 is not available (on Raspberry Pi OS: sudo apt install python3-picamera2, "
                "and create the venv with --system-site-packages)"
            ) from exc
        except ValueError as exc:  # apt's simplejpeg, built for numpy 1, meets a numpy 2 from pip
            if "numpy.dtype size changed" not in str(exc):
                raise
            raise CameraError(f"picamera2 cannot load: numpy {np.__version__} from the venv hides the numpy "
                              f"apt's picamera2 was built for; {NUMPY_ABI_FIX}") from exc

    def open(self) -> None:
        self.close()
        module = self._import()
        try:
            camera = module.Picamera2()
        except Exception as exc:  # picamera2 raises IndexError/RuntimeError when no camera is attached
            raise CameraError(f"no Pi camera found ({type(exc).__name__}: {exc}); check the ribbon cable") from exc
        try:
            config = camera.create_video_configuration(
                main={"size": tuple(self.main_size), "format": "RGB888"},
                lores={"size": tuple(self.lores_size), "format": "YUV420"},
            )
            camera.configure(config)
            self._avoid_flicker(camera)
            camera.start()
        except Exception as exc:
            _quietly(camera.close)
            raise CameraError(f"cannot start the Pi camera: {type(exc).__name__}: {exc}") from exc
        self._focus_once(camera)
        self._camera = camera

    def _focus_once(self, camera: Any) -> None:
        """A camera with a focus motor (Camera Module 3: ``AfMode`` among its controls) runs one autofocus cycle
        at start, then holds the lens where it settled (``AfMode`` manual at that ``LensPosition``), so that the
        sharpness never shifts under the vision. picamera2 focuses nothing by itself: left alone a Module 3
        stays at its default lens position, soft at the castle's distance. A camera without autofocus (Camera
        Module 2, the HQ camera) is left as it is; a focus that fails leaves the camera running all the same."""
        if "AfMode" not in (getattr(camera, "camera_controls", None) or {}):
            return
        try:
            focused = bool(camera.wait(camera.autofocus_cycle(wait=False), timeout=FOCUS_TIMEOUT_S))
            outcome = "focused" if focused else "autofocus found no sharp picture"
        except Exception as exc:
            outcome = "autofocus did not finish"
            log.warning("camera autofocus did not finish (%s: %s)", type(exc).__name__, exc)
        try:
            position = float(camera.capture_metadata()["LensPosition"])
            camera.set_controls({"AfMode": AF_MANUAL, "LensPosition": position})
        except Exception as exc:
            log.warning("camera focus: cannot hold the lens in place (%s: %s)", type(exc).__name__, exc)
            return
        distance = f"about {100 / position:.0f} cm" if position > 0 else "infinity"
        log.info("camera %s; lens held at %.2f dioptres (%s)", outcome, position, distance)

    def _avoid_flicker(self, camera: Any) -> None:
        """Lamps on the mains flicker at twice its frequency; a rolling shutter then records bands of light.
        Exposures of whole flicker periods record none: libcamera's ``AeFlickerMode`` (manual) with
        ``AeFlickerPeriod`` asks the exposure control for them, where this libcamera knows those controls."""
        if not self.mains_hz:
            return
        known = getattr(camera, "camera_controls", None) or {}
        if "AeFlickerMode" not in known or "AeFlickerPeriod" not in known:
            log.info("this libcamera cannot keep the exposure to whole flicker periods: a flickering lamp's "
                     "bands are left to the vision's light correction")
            return
        camera.set_controls({"AeFlickerMode": FLICKER_MANUAL, "AeFlickerPeriod": round(1e6 / (2 * self.mains_hz))})
        log.info("camera exposure kept to whole flicker periods of a %d Hz mains", self.mains_hz)

    def _require(self) -> Any:
        if self._camera is None:
            raise CameraError("picamera2 source is not open")
        return self._camera

    def read(self) -> np.ndarray:
        camera = self._require()
        try:
            yuv = camera.capture_array("lores")
        except Exception as exc:
            raise CameraError(f"Pi camera capture failed: {type(exc).__name__}: {exc}") from exc
        return i420_to_bgr(np.asarray(yuv), self.lores_size)

    def read_settled(self) -> np.ndarray:
        """A lores frame whose exposure started after this call (``capture_request(flush=True)``)."""
        camera = self._require()
        try:
            try:
                request = camera.capture_request(flush=True)
            except TypeError:  # picamera2 older than 0.3.13 has no flush: drop queued frames by hand
                for _ in range(3):
                    camera.capture_request().release()
                request = camera.capture_request()
            try:
                yuv = request.make_array("lores")
            finally:
                request.release()
        except Exception as exc:
            raise CameraError(f"Pi camera capture failed: {type(exc).__name__}: {exc}") from exc
        return i420_to_bgr(np.asarray(yuv), self.lores_size)

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            _quietly(camera.stop)
            _quietly(camera.close)


def _quietly(action: Callable[[], object]) -> None:
    """Run a clean-up step whose failure must not hide the error being reported."""
    try:
        action()
    except Exception:
        pass


def _parse_size(text: str, spec: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"camera spec {spec!r}: size {text!r} must look like 640x480") from None
    if width <= 0 or height <= 0:
        raise ValueError(f"camera spec {spec!r}: size {text!r} must be positive")
    return width, height


SPEC_HELP = (
    '"picamera2", "picamera2:320x240" (lores size), "usb:0", "usb:0@1280x720", "usb:/dev/video2", '
    '"file:a.jpg,b.jpg", "file:/dir/of/images", "file:video.mp4"'
)


def open_source(spec: str, *, mains_hz: int = MAINS_HZ) -> FrameSource:
    """Build (not open) a frame source from a spec string; raises ValueError naming the problem. ``mains_hz``:
    the mains frequency whose lamps' flicker the Pi camera's exposure avoids (0: leave it to the camera)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty camera spec; use one of {SPEC_HELP}")
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "picamera2":
        if not rest:
            return Picamera2Source(mains_hz=mains_hz)
        return Picamera2Source(lores_size=_parse_size(rest, spec), mains_hz=mains_hz)
    if kind == "usb":
        device_text, _, size_text = rest.partition("@")
        if not device_text.isdigit() and not device_text.startswith("/"):  # empty, or "zero": no device
            raise ValueError(f"camera spec {spec!r}: name a device by its number or its path, e.g. usb:0 or "
                             "usb:/dev/video0")
        device: int | str = int(device_text) if device_text.isdigit() else device_text
        if size_text:
            return VideoCaptureSource(device, size=_parse_size(size_text, spec))
        return VideoCaptureSource(device)
    if kind == "file":
        paths = [p.strip() for p in rest.split(",") if p.strip()]
        if not paths:
            raise ValueError(f"camera spec {spec!r}: name at least one image or video after 'file:'")
        videos = [p for p in paths if Path(p).suffix.lower() in VIDEO_SUFFIXES]
        if videos and len(paths) > 1:
            raise ValueError(f"camera spec {spec!r}: a video must be the only file")
        return FileSource(paths)
    raise ValueError(f"unknown camera spec {spec!r}; use one of {SPEC_HELP}")

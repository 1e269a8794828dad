"""The marble's size in camera pixels, measured once and saved with the calibration (``marble.json``).

Two ways to know it, instead of guessing it from the size of the gate regions:

* from the four printed markers: their corners give pixels per millimetre on the castle's plane, and the
  marble's real diameter (a setting, measured once) turns that into a radius in pixels;
* from a tap on one resting marble in the camera frame: the blob under the tap that changed against the
  empty reference, and the largest circle inside it that covers the tap, give the radius there.

Importing this module loads neither cv2 nor numpy.
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hardware.files import read_json, write_json

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MARBLE_MM = 16.0
"""Diameter of the Diego Drachenzahn marbles (the rulebook gives none; measured on the game's marbles)."""
MIN_RADIUS_PX, MAX_RADIUS_PX = 2.0, 60.0
SOURCES = ("markers", "tap")
"""How a saved size was measured (the simulated castle's known size, source "simulation", is never saved)."""
TAP_REACH_PX = 6
"""A tap this close to a changed blob still counts as a tap on it (fingers are wider than pixels)."""


class MarbleSizeError(ValueError):
    """A saved marble size that cannot be used, or a measurement that failed; the message says why."""


@dataclass(frozen=True)
class MarbleSize:
    """The marble radius in frame pixels, how it was measured, and when."""

    radius_px: float
    source: str
    measured_at: float
    px_per_mm: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"radius_px": round(self.radius_px, 2), "source": self.source,
                "measured_at": self.measured_at,
                "px_per_mm": None if self.px_per_mm is None else round(self.px_per_mm, 4)}

    @classmethod
    def from_dict(cls, data: Any, origin: str = "marble size") -> MarbleSize:
        try:
            radius = float(data["radius_px"])
            source = str(data["source"])
            measured_at = float(data.get("measured_at", 0.0))
            px_per_mm = None if data.get("px_per_mm") is None else float(data["px_per_mm"])
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise MarbleSizeError(f"{origin}: not a marble size ({type(exc).__name__}: {exc})") from None
        if not (math.isfinite(radius) and MIN_RADIUS_PX <= radius <= MAX_RADIUS_PX) or source not in SOURCES:
            raise MarbleSizeError(f"{origin}: radius {radius} px from {source!r} is not a marble size")
        return cls(radius, source, measured_at, px_per_mm)

    def save(self, path: str | Path) -> None:
        """Write atomically (temp file, then rename)."""
        write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: str | Path) -> MarbleSize:
        data = read_json(path, MarbleSizeError, "marble size", f"no marble size saved at {path}")
        return cls.from_dict(data, origin=str(path))


def marker_px_per_mm(markers: Mapping[int, np.ndarray], marker_mm: float) -> float:
    """Pixels per millimetre on the markers' plane: the mean side of the detected markers over their printed
    side (the outer edge of the black square, as ``companion markers --size-mm`` prints it)."""
    import numpy as np

    if not marker_mm > 0:
        raise MarbleSizeError(f"the printed marker size must be positive, got {marker_mm}")
    sides = [float(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).mean())
             for quad in (np.asarray(q, np.float64).reshape(4, 2) for q in markers.values())]
    if not sides:
        raise MarbleSizeError("no marker to measure the scale on")
    return float(np.mean(sides)) / marker_mm


def size_from_markers(markers: Mapping[int, np.ndarray], *, marker_mm: float, marble_mm: float,
                      now: float | None = None) -> MarbleSize:
    """The marble radius in pixels from the markers' known printed size and the marble's real diameter."""
    if not marble_mm > 0:
        raise MarbleSizeError(f"the marble diameter must be positive, got {marble_mm}")
    scale = marker_px_per_mm(markers, marker_mm)
    radius = scale * marble_mm / 2.0
    if not MIN_RADIUS_PX <= radius <= MAX_RADIUS_PX:
        raise MarbleSizeError(f"the markers give a marble radius of {radius:.1f} px, outside "
                              f"{MIN_RADIUS_PX:g}-{MAX_RADIUS_PX:g}: check the marker and marble sizes")
    return MarbleSize(radius, "markers", time.time() if now is None else now, scale)


def _change(frame: np.ndarray, reference: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """Per-pixel change (0..255) in ``box`` against the empty reference, after the overall light change."""
    import cv2
    import numpy as np

    x0, y0, x1, y1 = box
    crop, base = frame[y0:y1, x0:x1].astype(np.float32), reference[y0:y1, x0:x1].astype(np.float32)
    offset = np.median(crop - base, axis=(0, 1))
    change = np.abs(crop - base - offset).max(axis=2)
    return cv2.GaussianBlur(np.clip(change, 0, 255).astype(np.uint8), (3, 3), 0)


def measure_radius_at(frame: np.ndarray, x: float, y: float, reference: np.ndarray | None,
                      *, now: float | None = None) -> MarbleSize | None:
    """The radius of the marble under the tap at (x, y) in frame pixels, or None when nothing marble-sized
    lies there. It needs the empty reference (without one a printed circle looks like a marble):
    MarbleSizeError without it; ValueError for a point outside the frame or a frame that is not BGR."""
    import cv2
    import numpy as np

    if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"the marble is measured on a BGR frame, got {getattr(frame, 'shape', frame)}")
    if reference is None or reference.shape != frame.shape:
        raise MarbleSizeError("the marble is measured against the empty reference: clear the gates, take the "
                              "reference, then put one marble in a gate and tap it")
    h, w = frame.shape[:2]
    if not (math.isfinite(x) and math.isfinite(y) and 0 <= x < w and 0 <= y < h):
        raise ValueError(f"({x}, {y}) lies outside the {w}x{h} frame")
    reach = int(3 * MAX_RADIUS_PX)
    box = (max(0, int(x) - reach), max(0, int(y) - reach), min(w, int(x) + reach + 1), min(h, int(y) + reach + 1))
    change = _change(frame, reference, box)
    otsu, _ = cv2.threshold(change, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    changed = (change > max(18.0, otsu)).astype(np.uint8)
    mask = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    filled = mask.copy()  # clear glass can look like the board inside its rim: fill the holes
    holes = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), np.uint8)
    background = filled.copy()
    cv2.floodFill(background, holes, (0, 0), 1)
    filled[background == 0] = 1
    count, labels = cv2.connectedComponents(filled, connectivity=8)
    tx, ty = int(x) - box[0], int(y) - box[1]
    near = labels[max(0, ty - TAP_REACH_PX):ty + TAP_REACH_PX + 1, max(0, tx - TAP_REACH_PX):tx + TAP_REACH_PX + 1]
    label = int(labels[ty, tx]) or (int(np.bincount(near[near > 0]).argmax()) if (near > 0).any() else 0)
    if count < 2 or label == 0:
        return None
    blob = (labels == label).astype(np.uint8)
    distance = cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
    ys, xs = np.nonzero(blob)
    inside = distance[ys, xs]
    # the largest circle inside the blob that covers the tap (touching marbles keep their own circle)
    covers = np.hypot(xs - tx, ys - ty) <= inside + TAP_REACH_PX
    if not covers.any():
        return None
    radius = float(inside[covers].max())
    touches_edge = ys.min() == 0 or xs.min() == 0 or ys.max() == blob.shape[0] - 1 or xs.max() == blob.shape[1] - 1
    if not MIN_RADIUS_PX <= radius <= MAX_RADIUS_PX or (touches_edge and radius > MAX_RADIUS_PX / 2):
        return None
    return MarbleSize(radius, "tap", time.time() if now is None else now)

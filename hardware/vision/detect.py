"""Count the marbles resting in each gate region of a camera frame.

Method (no learned parameters, nothing tuned to one scene generator):

1. Work on the gate area only (regions' bounding box plus a margin of a few marble radii), scaled
   so that a marble has a radius of about ``WORK_RADIUS`` pixels.
2. Change evidence: per-pixel difference to an empty reference image of the same scene in log-RGB
   (so a light change is an additive offset), after removing the light change with a robust,
   smooth offset field (normalised convolution over pixels that did not change). The difference
   is split into brightness and colour; darkening without a colour change (a shadow) is weighted
   down. Without a reference the frame is compared with a median-filtered copy of itself (a local
   background estimate), which is less sure: printed shapes of marble size can pass for marbles.
3. Shape prior from the expected marble radius (given, or inferred from the region size): the
   fraction of changed pixels inside a disc of marble radius around each pixel. A marble gives a
   peak near 1 at its centre; touching marbles give separate peaks (the contact point is a saddle),
   thin printed edges and noise give low values. Peaks are kept greedily at least about one
   marble radius apart.
4. A marble counts for the gate whose polygon contains its centre; otherwise it is "outside".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.vision.regions import GateRegions

WORK_RADIUS = 6.0
"""Marble radius in pixels of the internal working image (frames are scaled down to this)."""

RADIUS_PER_REGION_SIDE = 1.0 / 7.0
"""Default marble radius as a fraction of sqrt(median region area) when no radius is given."""


@dataclass(frozen=True)
class Marble:
    """One detected marble: centre and radius in frame pixels, gate 1..6 or None (outside)."""

    x: float
    y: float
    r: float
    gate: int | None

    def to_json(self) -> dict:
        return {"x": round(self.x, 1), "y": round(self.y, 1), "r": round(self.r, 1), "gate": self.gate}


@dataclass(frozen=True)
class Detection:
    """Counts per gate (gate 1 first), marbles outside every region, and the marbles found."""

    counts: tuple[int, int, int, int, int, int]
    outside: int
    marbles: tuple[Marble, ...]

    @property
    def total(self) -> int:
        return sum(self.counts) + self.outside

    def to_json(self) -> dict:
        return {"counts": list(self.counts), "outside": self.outside,
                "marbles": [m.to_json() for m in self.marbles]}


def estimate_marble_radius(regions: GateRegions) -> float:
    """Expected marble radius in pixels from the size of the gate regions."""
    areas = sorted(g.area() for g in regions.gates)
    median = 0.5 * (areas[2] + areas[3])
    return max(1.5, math.sqrt(median) * RADIUS_PER_REGION_SIDE)


def _disc(radius: float) -> np.ndarray:
    """Normalised disc kernel (sums to 1)."""
    n = int(math.ceil(radius))
    yy, xx = np.mgrid[-n:n + 1, -n:n + 1].astype(np.float32)
    k = np.clip(radius + 0.5 - np.sqrt(xx * xx + yy * yy), 0.0, 1.0)
    return (k / k.sum()).astype(np.float32)


class MarbleDetector:
    """Reusable detector for one camera set-up (regions, optional empty reference)."""

    def __init__(self, regions: GateRegions, reference: np.ndarray | None = None, *,
                 marble_radius_px: float | None = None, roi_margin_radii: float = 8.0) -> None:
        if marble_radius_px is not None and not marble_radius_px > 0:
            raise ValueError(f"marble_radius_px must be positive, got {marble_radius_px}")
        self.regions = regions
        self.radius_px = float(marble_radius_px) if marble_radius_px else estimate_marble_radius(regions)
        self.scale = min(1.0, WORK_RADIUS / self.radius_px)
        self.roi_margin_radii = roi_margin_radii
        self._work_r = self.radius_px * self.scale
        self._kernel = _disc(self._work_r * 0.9)
        self._t_ref, self._t_noref, self._min_fill = 0.06, 0.35, 0.6
        self._ref_lin: np.ndarray | None = None
        self._ref_lo: np.ndarray | None = None
        self._ref_hi: np.ndarray | None = None
        self._ref_shape: tuple[int, int] | None = None
        self._roi_cache: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self.set_reference(reference)

    # ----------------------------------------------------------------- set-up

    def set_reference(self, reference_bgr: np.ndarray | None) -> None:
        """Use ``reference_bgr`` (same camera, no marbles) as the empty scene; None for none."""
        if reference_bgr is None:
            self._ref_lin = self._ref_lo = self._ref_hi = None
            self._ref_shape = None
            return
        _check_image(reference_bgr, "reference")
        self._ref_shape = reference_bgr.shape[:2]
        self._ref_lin = self._prepare(reference_bgr)
        # envelope over a 3x3 neighbourhood: tolerance to a camera nudge of about a pixel
        box = np.ones((3, 3), np.uint8)
        self._ref_lo = cv2.erode(self._ref_lin, box)
        self._ref_hi = cv2.dilate(self._ref_lin, box)
        self._ref_hi[self._ref_hi >= 250.0] = 1e4  # saturated: the true value may be higher

    def _roi(self, h: int, w: int) -> tuple[int, int, int, int]:
        """Gate area (x0, y0, x1, y1) in frame pixels, clipped to the frame."""
        key = (h, w)
        if key not in self._roi_cache:
            x0, y0, x1, y1 = self.regions.bounds()
            m = self.roi_margin_radii * self.radius_px
            box = (max(0, int(math.floor(x0 - m))), max(0, int(math.floor(y0 - m))),
                   min(w, int(math.ceil(x1 + m))), min(h, int(math.ceil(y1 + m))))
            if box[2] - box[0] < 4 or box[3] - box[1] < 4:
                raise ValueError(f"gate regions lie outside the {w}x{h} frame")
            self._roi_cache[key] = box
        return self._roi_cache[key]

    def _prepare(self, img: np.ndarray) -> np.ndarray:
        """Crop to the gate area and scale to the working size (float32 BGR, linear)."""
        h, w = img.shape[:2]
        x0, y0, x1, y1 = self._roi(h, w)
        crop = img[y0:y1, x0:x1]
        if self.scale < 1.0:
            size = (max(1, int(round((x1 - x0) * self.scale))), max(1, int(round((y1 - y0) * self.scale))))
            crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
        return crop.astype(np.float32)

    # ----------------------------------------------------------------- detection

    def detect(self, frame_bgr: np.ndarray) -> Detection:
        """Find the marbles in ``frame_bgr`` and count them per gate region."""
        _check_image(frame_bgr, "frame")
        h, w = frame_bgr.shape[:2]
        cur = self._prepare(frame_bgr)
        if self._ref_lin is not None and self._ref_shape == (h, w):
            gain = _light_gain(cur, self._ref_lin, self._work_r)
            # the camera clips at 255: so does the expected value
            expected = np.minimum(np.clip(cur, self._ref_lo * gain, self._ref_hi * gain), 255.0)
            t_min = self._t_ref
        else:
            expected = _background_estimate(cur, self._work_r)
            t_min = self._t_noref
        score = _change_score(cur, expected)
        mask = _threshold(score, t_min)
        fill = cv2.filter2D(mask, -1, self._kernel, borderType=cv2.BORDER_CONSTANT)
        centres = _peaks(fill, min_value=self._min_fill, min_dist=PEAK_SEPARATION * self._work_r)
        x0, y0, _, _ = self._roi(h, w)
        marbles = []
        for cx, cy in centres:
            fx, fy = x0 + (cx + 0.5) / self.scale - 0.5, y0 + (cy + 0.5) / self.scale - 0.5
            marbles.append(Marble(fx, fy, self.radius_px, self.regions.gate_at(fx, fy)))
        counts = [0] * 6
        outside = 0
        for m in marbles:
            if m.gate is None:
                outside += 1
            else:
                counts[m.gate - 1] += 1
        return Detection(tuple(counts), outside, tuple(marbles))  # type: ignore[arg-type]


def _check_image(img: object, what: str) -> None:
    if not isinstance(img, np.ndarray) or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        desc = f"array {img.dtype} {img.shape}" if isinstance(img, np.ndarray) else type(img).__name__
        raise ValueError(f"{what} must be a BGR uint8 image (h, w, 3), got {desc}")


LOG_OFFSET = 16.0
"""log(v + LOG_OFFSET): relative (light-invariant) for bright values, tame noise in the dark."""


def _log(img: np.ndarray) -> np.ndarray:
    return cv2.log(img + LOG_OFFSET)


def _light_gain(cur: np.ndarray, ref: np.ndarray, r: float) -> np.ndarray:
    """Smooth per-channel gain field (the light change, frame / reference) from block medians.

    Blocks are about 7 marble radii wide, so a few marbles in a block leave its median unchanged.
    """
    h, w = cur.shape[:2]
    b = max(4, int(round(7 * r)))
    ny, nx = max(1, round(h / b)), max(1, round(w / b))
    ys = np.linspace(0, h, ny + 1).astype(int)
    xs = np.linspace(0, w, nx + 1).astype(int)
    ratio = (cur + 4.0) / (ref + 4.0)
    grid = np.empty((ny, nx, 3), np.float32)
    for i in range(ny):
        for j in range(nx):
            grid[i, j] = np.median(ratio[ys[i]:ys[i + 1]:2, xs[j]:xs[j + 1]:2].reshape(-1, 3), axis=0)
    grid = np.clip(grid, 0.2, 5.0)
    if ny == 1 and nx == 1:
        return np.broadcast_to(grid[0, 0], cur.shape)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR)


def _background_estimate(cur: np.ndarray, r: float) -> np.ndarray:
    """Local background of a frame without reference: median over a window of a few marbles."""
    k = int(4 * r) | 1
    return cv2.medianBlur(np.clip(cur, 0, 255).astype(np.uint8), k).astype(np.float32)


DARK_WEIGHT = 0.4
"""Weight of pure darkening (brightness drop without colour change: what a shadow does)."""

CHROMA_WEIGHT = 1.5
"""Weight of the colour change (distortion not explained by a brightness factor)."""


def _change_score(cur: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Per-pixel change of ``cur`` against ``expected`` (both linear BGR float32).

    Split as in shadow-aware background subtraction: a brightness factor alpha (best fit of
    cur ~ alpha * expected) and the colour distortion left over, relative to brightness. Darkening
    alone (shadow-like) is weighted down by DARK_WEIGHT.
    """
    dot = (cur * expected).sum(axis=2)
    ee = (expected * expected).sum(axis=2)
    alpha = dot / (ee + 1.0)
    resid = cur - alpha[..., None] * expected
    norm_e = np.sqrt(ee)
    chroma = np.sqrt((resid * resid).sum(axis=2)) / (norm_e + 3.0 * LOG_OFFSET)
    lum = _log(np.sqrt((cur * cur).sum(axis=2))) - _log(norm_e)
    lum = np.where(lum < 0, lum * DARK_WEIGHT, lum)
    return np.sqrt((CHROMA_WEIGHT * chroma) ** 2 + lum * lum)


NOISE_FACTOR = 3.0
"""Threshold at least this multiple of the 90th percentile of the change score (noise level)."""


def _threshold(score: np.ndarray, t_min: float) -> np.ndarray:
    """Binary change mask (float32 0/1), threshold adapted to the noise level, small gaps closed."""
    t = max(t_min, NOISE_FACTOR * float(np.percentile(score[::2, ::2], 90)))
    mask = (score > t).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return mask.astype(np.float32)


PEAK_SEPARATION = 1.6
"""Minimum distance between two marble centres, in marble radii (touching marbles: 2)."""


def _peaks(fill: np.ndarray, min_value: float, min_dist: float) -> list[tuple[float, float]]:
    """Local maxima of ``fill`` above ``min_value``, greedily kept ``min_dist`` apart."""
    dil = cv2.dilate(fill, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((fill >= dil) & (fill >= min_value))
    if len(xs) == 0:
        return []
    vals = fill[ys, xs]
    order = np.argsort(-vals, kind="stable")
    kept: list[tuple[float, float]] = []
    d2 = min_dist * min_dist
    for i in order:
        x, y = float(xs[i]), float(ys[i])
        if all((x - kx) ** 2 + (y - ky) ** 2 >= d2 for kx, ky in kept):
            kept.append((x, y))
    return kept


def count_marbles(frame_bgr: np.ndarray, regions: GateRegions, reference: np.ndarray | None = None) -> Detection:
    """One-off detection (builds a detector each call; reuse MarbleDetector for a stream)."""
    return MarbleDetector(regions, reference).detect(frame_bgr)

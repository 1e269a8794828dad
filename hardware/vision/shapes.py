"""Does a marble found look like a die? The outline of its change against the empty reference, at full resolution.

A die (from another game on the same table) left in a gate after the empty reference was taken is a bright or
dark blob of a marble's size with a highlight, and the detector counts it as a marble. Its outline is a square:
along it the change's gradient turns in four directions, 90 degrees apart, where a marble's turns evenly. Taken
over the blob's outline (its holes, a die's pips, filled), the fourth angular harmonic of the gradient's direction
(``s4``, 0 for a circle, up to 1 for a square) tells the two apart, and the second (``s2``, 0 for a square, a
circle or any shape symmetric under a half turn, near 1 for a line) leaves out a marble merged with its shadow or a
neighbour, whose outline is long, not square.

Measured on dice pasted into rendered scenes (0.7 to 1.2 marble diameters; white, ivory, red, black and green;
turned, with pips and a soft shadow) and on the kept marbles matching a true one (training seeds 62000..62299 of
every case): a marble's ``s4`` has a median of 0.09 to 0.13 by case, a die's 0.67. With ``SQUARE_MIN`` 0.35 and
``ROUND_MAX`` 0.1, 0.73 of the dice the detector counted as sure marbles (seeds 62300..62449) are flagged: 0.83 of
those lying apart from every marble, 0.60 of those touching one (merged with it, the blob is no square); every
white die of the simulated castle (30 castles). On seeds 62300..62599 (not those the thresholds were chosen on) it
flags 0.3 % more ordinary scenes, 1.0 % more touching ones, 0.3 % or none more of the other cases. It only flags
(ruling D4): a count reads as before.

It costs about 0.28 ms a marble checked (median, one core; 0.46 when the harmonics were worked out in complex numbers
and numpy's median and percentile, for the same readings to 1e-6). So it reads the reading the camera alone reports
(``MarbleDetector.flag_squares``), not every frame the camera reads (bench/bench_vision.py).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from hardware.vision.circles import change_magnitude, median, to_log

SQUARE_MIN = 0.35
"""A kept marble whose outline's fourth harmonic (``s4``) exceeds this, while ``ROUND_MAX`` holds, looks square."""

ROUND_MAX = 0.1
"""... and whose outline's second harmonic (``s2``) stays under this (not elongated: no marble merged with its
shadow or a neighbour)."""

WINDOW_RADII = 1.8
"""Half width (radii) of the window read around a kept marble."""

OUTLINE_RADII = 1.55
"""The outline is read within this many radii of the kept marble's centre."""

_K3 = np.ones((3, 3), np.uint8)


def _percentile_80(values: np.ndarray) -> float:
    """``np.percentile(values, 80)`` of a non-empty 1-D float32 array, to the bit (numpy's linear interpolation
    between the two nearest places), from a sort: a few hundred values sort in a twentieth of its time."""
    if values.size == 1:
        return float(values[0])
    at = (values.size - 1) * 0.8
    k = math.floor(at)
    t = at - k
    ordered = np.sort(values)
    a, b = ordered[k], ordered[k + 1]
    return float(b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t)


def outline_harmonics(frame: np.ndarray, reference: np.ndarray, fx: float, fy: float,
                      radius: float) -> tuple[float, float]:
    """(``s4``, ``s2``) of the changed blob at (fx, fy) (frame pixels) against ``reference``, for marbles of
    ``radius`` pixels; (0, 1) when no blob lies there.

    With the gradient g = (gx, gy) = |g| (cos a, sin a) of the softened outline: ``s4`` = |sum |g| e^(4ia)| /
    sum |g|, ``s2`` the same with 2a, over the pixels within ``OUTLINE_RADII``; worked out in float32 from
    cos 2a = (gx^2 - gy^2) / |g|^2 and sin 2a = 2 gx gy / |g|^2 (then 4a from 2a), not in complex numbers."""
    h, w = frame.shape[:2]
    half = int(math.ceil(WINDOW_RADII * radius)) + 2
    x0, y0 = max(0, int(fx) - half), max(0, int(fy) - half)
    x1, y1 = min(w, int(fx) + half + 1), min(h, int(fy) + half + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0, 1.0
    diff = cv2.subtract(to_log(frame[y0:y1, x0:x1]), to_log(reference[y0:y1, x0:x1]))
    dx, dy = np.arange(x0, x1) - fx, np.arange(y0, y1) - fy
    rho = np.add.outer(dy * dy, dx * dx).astype(np.float32)  # distance from the centre, in radii
    np.sqrt(rho, out=rho)
    rho /= np.float32(radius)
    ring = rho > 1.5
    if np.count_nonzero(ring) > 10:
        diff -= np.array([median(diff[:, :, c][ring]) for c in range(3)], np.float32)  # the change of light around it
    mag, _ = change_magnitude(diff, 0.5)
    inner = mag[rho < 0.6]
    threshold = max(0.08, 0.4 * _percentile_80(inner)) if inner.size else 0.08
    _, labels = cv2.connectedComponents((mag > threshold).view(np.uint8), connectivity=8)
    middle = labels[rho < 0.5]
    middle = middle[middle > 0]
    if not middle.size:
        return 0.0, 1.0
    blob = (labels == np.bincount(middle).argmax()).view(np.uint8)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, contours, -1, 1, -1)  # holes (a die's pips) filled
    edge = mag / threshold  # the outline between pixels: 0 at half the threshold, 1 at one and a half times it,
    edge -= 0.5
    np.clip(edge, 0.0, 1.0, out=edge)
    edge *= cv2.dilate(filled, _K3)  # next to the blob; 1 inside it
    edge[cv2.erode(filled, _K3).view(bool)] = 1.0
    soft = cv2.GaussianBlur(edge, (0, 0), 0.7)
    outline = rho < OUTLINE_RADII
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)[outline]
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)[outline]
    m = gx * gx
    m += gy * gy
    np.sqrt(m, out=m)
    m += np.float32(1e-12)  # |g|
    cos2 = gx * gx
    cos2 -= gy * gy
    cos2 /= m  # |g| cos 2a
    sin2 = gx * gy
    sin2 /= m
    sin2 *= 2.0  # |g| sin 2a
    inverse = 1.0 / m
    cos4 = float(np.dot(cos2 * cos2 - sin2 * sin2, inverse))  # sum |g| cos 4a
    sin4 = 2.0 * float(np.dot(cos2 * sin2, inverse))  # sum |g| sin 4a
    total = float(m.sum())
    return math.hypot(cos4, sin4) / total, math.hypot(float(cos2.sum()), float(sin2.sum())) / total


def looks_square(frame: np.ndarray, reference: np.ndarray, fx: float, fy: float, radius: float) -> bool:
    """True when the marble found at (fx, fy) has a square outline (a die, a square token): see the module."""
    s4, s2 = outline_harmonics(frame, reference, fx, fy, radius)
    return s4 > SQUARE_MIN and s2 < ROUND_MAX

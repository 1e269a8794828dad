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
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from hardware.vision.circles import change_magnitude, to_log

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


def outline_harmonics(frame: np.ndarray, reference: np.ndarray, fx: float, fy: float,
                      radius: float) -> tuple[float, float]:
    """(``s4``, ``s2``) of the changed blob at (fx, fy) (frame pixels) against ``reference``, for marbles of
    ``radius`` pixels; (0, 1) when no blob lies there."""
    h, w = frame.shape[:2]
    half = int(math.ceil(WINDOW_RADII * radius)) + 2
    x0, y0 = max(0, int(fx) - half), max(0, int(fy) - half)
    x1, y1 = min(w, int(fx) + half + 1), min(h, int(fy) + half + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0, 1.0
    diff = cv2.subtract(to_log(frame[y0:y1, x0:x1]), to_log(reference[y0:y1, x0:x1]))
    yy, xx = np.ogrid[y0:y1, x0:x1]
    rho = np.sqrt(((xx - fx) ** 2 + (yy - fy) ** 2).astype(np.float32)) / np.float32(radius)
    ring = rho > 1.5
    if ring.sum() > 10:
        diff -= np.median(diff[ring], axis=0).astype(np.float32)  # the change of light around it
    mag, _ = change_magnitude(diff, 0.5)
    inner = mag[rho < 0.6]
    threshold = max(0.08, 0.4 * float(np.percentile(inner, 80))) if inner.size else 0.08
    _, labels = cv2.connectedComponents((mag > threshold).view(np.uint8), connectivity=8)
    middle = labels[rho < 0.5]
    middle = middle[middle > 0]
    if not middle.size:
        return 0.0, 1.0
    blob = (labels == np.bincount(middle).argmax()).astype(np.uint8)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, contours, -1, 1, -1)  # holes (a die's pips) filled
    edge = (np.clip(mag / threshold - 0.5, 0.0, 1.0) * cv2.dilate(filled, _K3)).astype(np.float32)  # between pixels
    edge[cv2.erode(filled, _K3) > 0] = 1.0
    soft = cv2.GaussianBlur(edge, (0, 0), 0.7)
    gx, gy = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    z = (gx + 1j * gy)[rho < OUTLINE_RADII]
    m = np.abs(z) + 1e-12
    total = float(m.sum())
    return float(abs((z ** 4 / m ** 3).sum()) / total), float(abs((z ** 2 / m).sum()) / total)


def looks_square(frame: np.ndarray, reference: np.ndarray, fx: float, fy: float, radius: float) -> bool:
    """True when the marble found at (fx, fy) has a square outline (a die, a square token): see the module."""
    s4, s2 = outline_harmonics(frame, reference, fx, fy, radius)
    return s4 > SQUARE_MIN and s2 < ROUND_MAX

"""Where a marble found near the border between two gates lies: a circle fitted to its outline in the frame itself.

The circle votes' peak (``detect._subpixel``) is read on the working image (a marble radius of 6 pixels) and is pulled
by all that votes near it. On a table with a 3 x 2 grid of gates (``tests.scenes`` case "table": marbles by a line
between gates as often as anywhere, which the castle's walls never allow) half of the scenes read wrong were a marble
by a line put on its other side. Fitted to the outline itself, in the frame's own pixels, the centre moves toward the
outline's own centre.

The outline is the edge of the change from the reference (log values, the window's median change taken off as the
light's) whose gradient points along the line to the peak, ``FIT_BAND`` radii from it, each pixel nearer to it than to
another marble found; the circle is fitted by least squares weighted by that gradient, then again without the pixels
more than ``FIT_KEEP`` radii off the first. A fit with too few pixels, too few of them on its circle (``FIT_SHARE``), a
radius more than ``FIT_RADIUS`` from the marble's, or a centre more than ``FIT_MOVE`` radii from the peak (a
neighbour's outline, a shadow's edge) leaves the peak where it was.

Measured on rendered training scenes (the table case's 62000..62249, and 240 scenes of 62000..62059, ordinary and every
other case), every resting marble found placed so: 0.052 radii from where it lies on average against 0.063 at the peak,
median 0.020 against 0.038, the 90th percentile 0.130 either way (with a radius within 0.3 of the marble's instead of
0.15: 0.053, 0.019, 0.141). Its weakness: a board whose print under the marble is as dark as the marble's rim hides part
of its outer edge, and the fit leans away from there (by 0.1 radii under stripes of 40 grey levels either way, in a
test). About 0.15 ms a marble here, so only a marble whose fitted centre could change its gate or its border's flag is
fitted (``detect``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from hardware.vision.circles import SUM3, channel_medians, to_log

FIT_BAND = (0.6, 1.35)
"""The outline is looked for this far from the peak, in marble radii."""

FIT_KEEP = 0.15
"""Pixels farther than this (marble radii) from the first circle fitted are left out of the second."""

FIT_MOVE = 0.2
"""A fitted centre farther than this (marble radii) from the peak is not taken."""

FIT_RADIUS = 0.15
"""A fitted circle's radius may differ from the marble's by this share of it."""

FIT_SHARE = 0.6
"""The share of the outline's pixels the first circle must pass within ``FIT_KEEP`` of."""

FIT_LEAST = 12
"""The fewest outline pixels a fit needs."""


@lru_cache(maxsize=32)
def _offsets(k: int) -> tuple[np.ndarray, np.ndarray]:
    """x and y of each pixel of a (2k + 1)-pixel square from its centre."""
    yy, xx = np.mgrid[-k:k + 1, -k:k + 1].astype(np.float32)
    return xx, yy


def _circle(xs: np.ndarray, ys: np.ndarray, weights: np.ndarray) -> tuple[float, float, float] | None:
    """Centre and radius of the circle through (xs, ys), by weighted least squares on x² + y² + Dx + Ey + F = 0
    (its 3 x 3 normal equations, solved by Cramer's rule)."""
    a = np.empty((4, len(xs)), np.float64)
    a[0], a[1], a[2], a[3] = xs, ys, 1.0, xs * xs + ys * ys
    (sxx, sxy, sx, sxz), (_, syy, sy, syz), (_, _, sw, sz), _ = ((a * weights) @ a.T).tolist()  # the weighted moments
    # the normal equations [[sxx, sxy, sx], [sxy, syy, sy], [sx, sy, sw]] (D, E, F) = -(sxz, syz, sz), by Cramer's rule
    m11, m12, m22 = syy * sw - sy * sy, sxy * sw - sy * sx, sxx * sw - sx * sx
    m13, m23 = sxy * sy - syy * sx, sxx * sy - sxy * sx
    whole = sxx * m11 - sxy * m12 + sx * m13
    if abs(whole) < 1e-9:
        return None
    d = -(sxz * m11 - syz * m12 + sz * m13) / whole
    e = -(-sxz * m12 + syz * m22 - sz * m23) / whole
    f = -(sxz * m13 - syz * m23 + sz * (sxx * syy - sxy * sxy)) / whole
    cx, cy = -0.5 * d, -0.5 * e
    r2 = cx * cx + cy * cy - f
    return (cx, cy, math.sqrt(r2)) if r2 > 0 else None


def fitted_centre(frame: np.ndarray, reference: np.ndarray, x: float, y: float, radius: float,
                  others: list[tuple[float, float]]) -> tuple[float, float] | None:
    """The centre of the marble found at (x, y) of BGR ``frame`` (frame pixels; ``radius`` its radius), fitted to its
    outline against the empty ``reference``; ``others``: the other marbles found (their outlines are theirs). None
    when no fit holds: the peak stays where it was, and is known to less."""
    h, w = frame.shape[:2]
    k = int(math.ceil(FIT_BAND[1] * radius)) + 2
    x0, y0 = int(round(x)) - k, int(round(y)) - k
    if x0 < 0 or y0 < 0 or x0 + 2 * k + 1 > w or y0 + 2 * k + 1 > h:
        return None
    box = (slice(y0, y0 + 2 * k + 1), slice(x0, x0 + 2 * k + 1))
    change = cv2.subtract(to_log(frame[box]), to_log(reference[box]))
    change -= channel_medians(change[::2, ::2])  # the light's change
    change = cv2.GaussianBlur(cv2.sqrt(cv2.transform(change * change, SUM3)), (0, 0), 0.7)
    gx = cv2.Sobel(change, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(change, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    ox, oy = _offsets(k)
    dx, dy = ox - np.float32(x - x0 - k), oy - np.float32(y - y0 - k)  # from the peak
    rho = cv2.magnitude(dx, dy) + np.float32(1e-6)
    along = np.abs(gx * dx + gy * dy)  # the gradient's part along the line to the peak, times rho
    pick = ((rho > FIT_BAND[0] * radius) & (rho < FIT_BAND[1] * radius) & (along > 0.8 * mag * rho)
            & (mag > 0.3 * float(mag.max())))
    for px, py in others:
        if abs(px - x) < 3 * k and abs(py - y) < 3 * k:
            pick &= cv2.magnitude(dx - np.float32(px - x), dy - np.float32(py - y)) > rho
    if int(np.count_nonzero(pick)) < FIT_LEAST:
        return None
    xs, ys, weights = dx[pick], dy[pick], mag[pick]  # from the peak
    first = _circle(xs, ys, weights)
    if first is None:
        return None
    on = np.abs(np.hypot(xs - first[0], ys - first[1]) - first[2]) < FIT_KEEP * radius
    kept = int(np.count_nonzero(on))
    if kept < FIT_SHARE * len(on) or kept < FIT_LEAST:
        return None
    fit = first if kept == len(on) else _circle(xs[on], ys[on], weights[on])
    if fit is None or abs(fit[2] - radius) > FIT_RADIUS * radius or math.hypot(fit[0], fit[1]) > FIT_MOVE * radius:
        return None
    return x + fit[0], y + fit[1]

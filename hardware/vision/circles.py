"""Image helpers for marble detection: log table, light correction, circle votes, peaks.

Pure numpy/cv2 functions on small working images (float32); no state, no I/O.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

LOG_OFFSET = 16.0
"""log(v + LOG_OFFSET): relative (light-invariant) for bright values, tame noise in the dark."""

LOG_TABLE = np.log(np.arange(256, dtype=np.float32) + LOG_OFFSET).astype(np.float32)
"""uint8 -> log value, applied with cv2.LUT (no per-pixel log at detection time)."""

RATIO_OFFSET = 4.0
"""The light change is measured on log(v + RATIO_OFFSET) (``RATIO_TABLE``), nearly the log of a pure ratio, so
that the gain found is the one the light applied to every value, dark or bright. Measured on ``LOG_TABLE`` it
fell short of a change of light (a board of 120 shaded to 60 changes log(v + 16) by log 0.56), and the values
far from the board's changed otherwise than the gain said: a printed ring of a marble's size in a shade read
as a marble. With the shade before the sensor (its noise as it was), on training scenes 62000..62149, all six
exact / flagged / a gate wrong and not flagged:

- a shade 50 % darker: ordinary scenes 0.800 / 0.78 / 0.040 on ``LOG_TABLE``, 0.913 / 0.29 / 0.013 at an
  offset of 8, 0.967 / 0.14 / 0.000 at 4, 0.987 / 0.14 / 0.000 at 2; traced glass 0.760 / 0.87 / 0.040,
  0.893 / 0.52 / 0.027, 0.920 / 0.39 / 0.013 and 0.913 / 0.36 / 0.020; clear glass 0.847, 0.973, 0.993 and
  0.980 exact;
- a shade 30 % darker: ordinary scenes 0.980 / 0.19 / 0.007 on ``LOG_TABLE``, 0.987 / 0.09 / 0.000 at 4;
  traced glass 0.927 / 0.40 / 0.007 and 0.940 / 0.31 / 0.013;
- a shade 50 % darker seen by a camera with sRGB's tone curve (a pure gain of light is then no pure ratio of
  the values; ``tests.conditions.through_srgb``), ``LOG_TABLE`` against this one: ordinary scenes 0.960 / 0.33
  / 0.000 and 0.980 / 0.14 / 0.000, faint glass 0.880 / 0.35 / 0.047 and 0.947 / 0.17 / 0.020, clear glass
  0.933 / 0.21 / 0.020 and 0.973 / 0.09 / 0.007, traced glass 0.833 / 0.50 / 0.053 and 0.927 / 0.33 / 0.033,
  touching, rolling marbles and clutter 0.933, 0.927 and 0.973 exact and 0.967, 0.947 and 0.987.

Without a shade, on training scenes out of every tuning (66000..66299, every case and ordinary, 2,100 scenes)
5 read wrong that read right on ``LOG_TABLE`` (faint 2, touching 1, traced glass 2, one of them not flagged),
none the other way; 1 at an offset of 8; on 62000..62149 one rolling-marble scene read right that did not.
Held out (70000..70499) the six cases read exactly as often as before; read wrong with no gate flagged 0.004
against 0.003, flagged 0.095 against 0.096. The real sequence of bench/bench_real_sequence.py reads as before.
Leaving out the pixels darker than 24 in the reference (noise more than ratio) read 3 of those 2,100 worse,
under the shade the same: not kept."""

RATIO_TABLE = np.log(np.arange(256, dtype=np.float32) + RATIO_OFFSET).astype(np.float32)
"""uint8 -> log value nearly a pure ratio's, for the light change (``light_gain``)."""

MEAN3 = np.full((1, 3), 1.0 / 3.0, np.float32)
SUM3 = np.ones((1, 3), np.float32)

INNER_WEIGHT = 0.6
"""Weight of the votes against the gradient (the inner edge of a thin ring, e.g. clear glass's rim)."""

RADIUS_FACTORS = (0.75, 0.85, 0.95, 1.05, 1.15, 1.25)
"""Radii voted for, as fractions of the expected marble radius (perspective, estimate error)."""


Peak = tuple[int, int, float, float, float, float]
"""A candidate marble in working pixels: x, y, radius, score, highlight offset dx, dy."""


def nonzero_xy(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(xs, ys) of the non-zero pixels of a 2-D bool or uint8 ``mask``, in row-major order (as
    ``np.nonzero``, which is several times slower on a 2-D image)."""
    points = cv2.findNonZero(mask.view(np.uint8) if mask.dtype == np.bool_ else mask)
    if points is None:
        empty = np.zeros(0, np.int32)
        return empty, empty
    points = points.reshape(-1, 2)
    return points[:, 0], points[:, 1]


def to_log(img_u8: np.ndarray, table: np.ndarray = LOG_TABLE) -> np.ndarray:
    """uint8 BGR -> float32 log BGR (``LOG_TABLE``, or ``RATIO_TABLE`` for the light change)."""
    return cv2.LUT(img_u8, table)


PAIR_FROM = 512
"""From this many values a row on, its median is partitioned at both middle places at once, not at one."""


def _row_medians(rows: np.ndarray) -> np.ndarray:
    """The median of each row of a 2-D array, to the bit as ``np.median`` gives it, by one partial sort:
    ``np.median`` costs tens of microseconds even on the few pixels of one marble's disc. Numpy's partition at
    one place is the faster on a few hundred values, at both middle places from ``PAIR_FROM`` on: two to three
    times on a thousand random values or more, seven times on the noise's sample of a frame's brightness change
    (2,370 values, 53 against 7 microseconds)."""
    n = rows.shape[1]
    k = n // 2
    if n >= PAIR_FROM:
        p = np.partition(rows, (k - 1, k), axis=1)
        return p[:, k] if n % 2 else (p[:, k - 1] + p[:, k]) * 0.5
    p = np.partition(rows, k, axis=1)
    if n % 2:
        return p[:, k]
    return (p[:, :k].max(axis=1) + p[:, k]) * 0.5  # the largest of the lower half: the other middle value


def median(values: np.ndarray) -> float:
    """The median of all of ``values`` (as ``np.median``)."""
    return float(_row_medians(values.reshape(1, -1))[0])


def channel_medians(img: np.ndarray) -> np.ndarray:
    """The median of each channel of a (h, w, 3) float32 image (as ``np.median`` per channel), from a
    contiguous copy: several times faster than on a strided view."""
    return _row_medians(np.ascontiguousarray(img.reshape(-1, 3).T))


def every_second(img: np.ndarray) -> np.ndarray:
    """``img[::2, ::2]`` as a contiguous array: a nearest-neighbour halving of the even part (several times
    faster than copying the strided view), then the last row and column of an odd size from the view."""
    h, w = img.shape[:2]
    if min(h, w) < 2:
        return np.ascontiguousarray(img[::2, ::2])
    even = cv2.resize(img[:h - h % 2, :w - w % 2], (w // 2, h // 2), interpolation=cv2.INTER_NEAREST)
    if not (h % 2 or w % 2):
        return even
    out = np.empty(((h + 1) // 2, (w + 1) // 2) + img.shape[2:], img.dtype)
    out[:h // 2, :w // 2] = even
    if h % 2:
        out[-1] = img[-1, ::2]
    if w % 2:
        out[:h // 2, -1] = img[:h - 1:2, -1]
    return out


ROW_PRIOR = 8.0
"""A row's band is estimated as if this many unchanged pixels more read no offset: a row that few
unchanged pixels cross (a marble along it, a shadow) keeps nearly none."""


ROW_NEAR = 0.03
"""The second estimate of a row's band counts only pixels within this (log units) of the first."""


def _row_means(lum: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Each row's weighted mean of ``lum``, drawn toward 0 by ``ROW_PRIOR`` pixels' worth (column vector)."""
    counted = cv2.reduce(weight, 1, cv2.REDUCE_SUM)
    return cv2.reduce(lum * weight, 1, cv2.REDUCE_SUM) / (counted + np.float32(ROW_PRIOR))


def light_gain(diff: np.ndarray, radius: float, inlier: float = 0.12, unknown: np.ndarray | None = None) -> np.ndarray:
    """The light change in a log difference image (``RATIO_TABLE``), as a per-pixel, per-channel gain (linear):
    global per-channel median plus a smooth correction (normalised convolution on a coarse grid of cells
    about 8 marble radii wide), the edge of a large shade those cells are too coarse for (``_shade``: a
    person leaning over the castle), then an offset per picture row from what is left (the bands a rolling
    shutter records under a flickering lamp, the reference taken at another moment of its flicker); each
    estimated so that marbles and their shadows do not bias it, and on every second pixel (the light
    varies over many marble radii, bands over many rows). ``unknown``: a mask (uint8, working resolution),
    not 0 where the frame is over-exposed, whose change is only a lower bound.

    Both, and a nudged camera and a soft focus, as ``python -m tests.vision_fit conditions`` measures them.
    The shade (laid over the camera's picture, as these figures were first measured; a shade before the
    sensor and ``RATIO_TABLE``: see ``RATIO_OFFSET``): under a shade 30 % darker whose soft edge (4 marble
    radii) crosses the gate area, ordinary training scenes (62000..62149) read all six counts exact in 0.980
    against 0.313 before, 0.000 read wrong and sure against 0.047 (traced glass 0.960 against 0.367, 0.007
    against 0.060); under one 50 % darker 0.893 against 0.187 (0.027 and 0.107 wrong and sure), with 0.73
    of them flagged unsure. Without
    a shade it changes nothing: the same readings on 2,100 training scenes out of every tuning
    (66000..66299, every case and ordinary) and one rolling-marble scene in 300 worse, flagged, on those the
    thresholds were chosen on (62000..62299). About 0.15 ms a frame of the castle's gate area (most of it
    the median): the light correction went from about 14 % of a frame's time to 23 % (bench_vision).

    The rows' offsets: with bands of 6 % every 120 rows, ordinary training scenes (62000..62149) were
    flagged unsure in 0.040 to 0.047 (0.047 without bands), against 0.387 before the rows were followed; with bands of
    10 % they read all six counts exact in 0.987, as without bands, against 0.873 (traced glass 0.973
    against 0.720). Without bands, on training seeds out of every tuning (66000..66399, 400 scenes a
    hard case, and ordinary 46000..46599), no scene read worse and 2 better; on the seeds the thresholds
    were chosen on (62000..62299) traced glass and rolling marbles read 3 and 3 scenes worse and 1 and 1
    better, as a nudge of the picture moves them (see tests/vision_fit.py ``measure``). 0.07 ms a frame
    of the castle's gate area.

    Measured and not kept: leaving the over-exposed pixels (``unknown``) out of the smooth correction's
    weights, and out of the global median. On a white board clipped in both pictures only the printed
    symbols tell the light's change, and a symbol the size of a marble brightened by it can read as a marble
    (the streak case's pale tables). On training seeds 62000..62299 the streak case read 274 scenes right
    against 269, 13 wrong and sure against 17; on 66000..66299, 256 against 256 and 19 against 18; the other
    cases the same both times, and the median from the unclipped pixels added nothing. Nor a marble found whose
surroundings (1.3 to 2.5 radii) are over-exposed in the reference for 0.7 of their pixels made its gate unsure
(where the light's change cannot be told): on 62000..62299 it caught 1 of the 21 scenes read wrong and sure,
for 10 more flagged."""
    h, w = diff.shape[:2]
    g0 = channel_medians(diff[::4, ::4])
    res = every_second(diff) - g0
    weight = cv2.inRange(res, (-inlier,) * 3, (inlier,) * 3).astype(np.float32) * np.float32(1.0 / 255.0)
    cell = max(4, int(8 * radius))
    nx, ny = max(2, round(w / cell)), max(2, round(h / cell))
    num = cv2.resize(res * weight[..., None], (nx, ny), interpolation=cv2.INTER_AREA)
    den = cv2.resize(weight, (nx, ny), interpolation=cv2.INTER_AREA)[..., None]
    corr = np.where(den > 0.05, num / np.maximum(den, 1e-3), 0.0).astype(np.float32)
    field = cv2.resize(corr + g0, res.shape[1::-1], interpolation=cv2.INTER_LINEAR)
    smooth = cv2.transform(field, MEAN3) - np.float32(g0.mean())
    lum = cv2.transform(res, MEAN3)
    bounded = lum if unknown is None else np.where(every_second(unknown) > 0, np.maximum(lum, smooth), lum)
    shade = _shade(bounded, smooth, radius)
    # what that leaves, row by row: the bands of a flickering lamp
    left = lum - smooth - shade
    rows = _row_means(left, weight)
    near = cv2.inRange(left - rows, -ROW_NEAR, ROW_NEAR).astype(np.float32) * np.float32(1.0 / 255.0)
    rows = _row_means(left, weight * near)  # again from the pixels near their row's band: no shadow's edge
    shade += rows
    field = cv2.add(field, cv2.merge((shade, shade, shade)))
    return cv2.exp(cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR))


SHADE_RADII = 8.0
"""Side (marble radii) of the window whose median brightness change follows a large shade's edge."""

SHADE_MIN, SHADE_FULL = 0.04, 0.08
"""Where that median differs from the smooth correction by less than ``SHADE_MIN`` (log units) the smooth
correction stands; from ``SHADE_FULL`` on the median does (a person leaning over the castle)."""

SHADE_SCALE = 100.0
"""Median filtering works on 8-bit values: log units times this, about 128 (a hundredth of a log unit)."""


def _shade(lum: np.ndarray, smooth: np.ndarray, radius: float) -> np.ndarray:
    """What a large shade adds to the smooth correction ``smooth`` of the brightness change ``lum`` (both
    half resolution, log units): the median of ``lum`` over a window ``SHADE_RADII`` marble radii wide keeps
    a shade's edge where it is (a marble, its shadow and a few touching neighbours fill less than half of
    it), taken where it differs clearly from the smooth correction, whose cells are too coarse for such an
    edge. Where no window has most of its pixels more than half ``SHADE_MIN`` apart from the smooth correction, no
    median can be ``SHADE_MIN`` apart (while that correction varies by less than half of it across a window: its cells
    are as wide), and the median is not taken: most pictures have no shade, and the median was 0.15 ms of a frame's
    2.8 (every reading the same on 2,880 training pictures, 62000..62059 of every case, shaded, banded, nudged and
    noisier ones among them)."""
    k = max(3, int(SHADE_RADII * radius / 2) | 1)  # lum is at half the working resolution
    apart = cv2.boxFilter((cv2.absdiff(lum, smooth) > np.float32(0.5 * SHADE_MIN)).view(np.uint8), cv2.CV_32F, (k, k),
                          normalize=True)
    if float(apart.max()) < 0.5:  # no window where most of the picture lies apart from the smooth correction
        return np.zeros_like(lum)
    coded = np.clip(lum * np.float32(SHADE_SCALE) + np.float32(128.5), 0.0, 255.0).astype(np.uint8)
    median = cv2.medianBlur(coded, min(k, 255)).astype(np.float32) * np.float32(1.0 / SHADE_SCALE)
    gap = median - np.float32(128.0 / SHADE_SCALE) - smooth
    return gap * np.clip((np.abs(gap) - SHADE_MIN) / (SHADE_FULL - SHADE_MIN), 0.0, 1.0)


def change_magnitude(e: np.ndarray, dark_weight: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel change from a log difference ``e`` (h, w, 3): (magnitude, brightness change).

    Colour change (the part of ``e`` that differs between channels) counts fully; brightness
    change counts fully when brighter, ``dark_weight`` (0..1) times when darker (a shadow only darkens).
    """
    lum = cv2.transform(e, MEAN3)
    chroma2 = np.maximum(cv2.transform(e * e, SUM3) - 3.0 * lum * lum, 0.0)
    wl = np.maximum(lum, lum * dark_weight)  # a weight of at most 1 shrinks only what is below 0
    return np.sqrt(chroma2 + 3.0 * wl * wl), lum


def circle_votes(change: np.ndarray, radius: float, grad_min: float,
                 factors: tuple[float, ...] = RADIUS_FACTORS) -> tuple[np.ndarray, np.ndarray]:
    """Votes for circle centres of ``radius`` (times each factor) from the edges of ``change``.

    An edge pixel (gradient at least ``grad_min``) votes for the point ``f * radius`` along its
    gradient, i.e. into the changed area, and with ``INNER_WEIGHT`` for the point against it
    (a thin changed ring: its inner edge faces the centre). Per radius the votes are divided by the
    circumference; the result (mean over radii, smoothed) is about the fraction of a marble's
    outline that agrees. Also returns the per-radius vote maps (unsmoothed, shape
    (len(factors), h, w)) for the choice of each marble's radius. (They are read only around the peaks: kept
    as the votes themselves instead, and added up there, the castle's reading took 1.50 to 1.65 ms against
    1.44 to 1.47, a 3 x 2 grid over a 640x480 frame at a marble radius of 8 px 8.1 ms against 8.75, for the
    same readings: not kept.)
    """
    h, w = change.shape
    gx = cv2.Sobel(change, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(change, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    mag = cv2.magnitude(gx, gy)
    xs, ys = nonzero_xy(mag > grad_min)
    m = mag[ys, xs]
    ux, uy = gx[ys, xs] / m, gy[ys, xs] / m
    n = len(xs)
    if INNER_WEIGHT > 0:
        xs, ys = np.concatenate([xs, xs]), np.concatenate([ys, ys])
        ux, uy = np.concatenate([ux, -ux]), np.concatenate([uy, -uy])
    f = np.asarray(factors, np.float32)[:, None] * np.float32(radius)
    vx = np.rint(xs.astype(np.float32) + f * ux).astype(np.int32)
    vy = np.rint(ys.astype(np.float32) + f * uy).astype(np.int32)
    ok = (vx >= 0) & (vx < w) & (vy >= 0) & (vy < h)
    # each vote weighs 1 / circumference (INNER_WEIGHT / circumference against the gradient)
    wts = np.repeat(1.0 / (2.0 * math.pi * f), len(xs), axis=1)
    wts[:, n:] *= INNER_WEIGHT
    pix = vy * w + vx
    layer = np.arange(len(factors), dtype=np.int32)[:, None] * (h * w)
    wts = wts[ok]
    per_radius = np.bincount((pix + layer)[ok], weights=wts, minlength=len(factors) * h * w).reshape(len(factors), h, w)
    total = np.bincount(pix[ok], weights=wts, minlength=h * w).astype(np.float32).reshape(h, w)
    sigma = 0.8
    total = cv2.GaussianBlur(total, (0, 0), sigma) * (2.0 * math.pi * sigma * sigma / len(factors))
    return total, per_radius


def neighbourhood_votes(per_radius: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Votes per radius summed over the 3x3 neighbourhood of each (x, y): shape (radii, points)."""
    radii, h, w = per_radius.shape
    near = np.array([-1, 0, 1])
    # (3, points), clamped to the image (np.clip costs ten times more on a few points)
    rows = np.minimum(np.maximum(np.asarray(ys)[None, :] + near[:, None], 0), h - 1)
    cols = np.minimum(np.maximum(np.asarray(xs)[None, :] + near[:, None], 0), w - 1)
    pixels = (rows[:, None, :] * w + cols[None, :, :]).reshape(9, -1)  # the 3x3, row by row
    return per_radius.reshape(radii, -1)[:, pixels].sum(axis=1)  # added one neighbour at a time


def best_radius(per_radius: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Index of the radius with most votes in the 3x3 neighbourhood of each (x, y)."""
    return np.argmax(neighbourhood_votes(per_radius, xs, ys), axis=0)


def local_maxima(score: np.ndarray, min_value: float) -> tuple[np.ndarray, np.ndarray]:
    """(xs, ys) of 3x3 local maxima of ``score`` at least ``min_value``, strongest first."""
    dil = cv2.dilate(score, np.ones((3, 3), np.uint8))
    xs, ys = nonzero_xy((score >= dil) & (score >= min_value))
    order = np.argsort(-score[ys, xs], kind="stable")
    return xs[order], ys[order]


@lru_cache(maxsize=8)
def _disc(reach: int) -> np.ndarray:
    yy, xx = np.ogrid[-reach:reach + 1, -reach:reach + 1]
    return xx * xx + yy * yy <= reach * reach


def disc_window(img: np.ndarray, x: int, y: int, reach: int) -> tuple[np.ndarray, int, int]:
    """The pixels of the 2-D ``img`` within ``reach`` of (x, y), clipped to the image, as a window
    whose pixels outside that disc are -1; and the window's top-left corner (xa, ya) in ``img``."""
    h, w = img.shape
    ya, xa = max(0, y - reach), max(0, x - reach)
    win = img[ya:min(h, y + reach + 1), xa:min(w, x + reach + 1)]
    dy, dx = ya - y + reach, xa - x + reach
    return np.where(_disc(reach)[dy:dy + win.shape[0], dx:dx + win.shape[1]], win, -1.0), xa, ya


def local_background(img_u8: np.ndarray, radius: float) -> np.ndarray:
    """The background of a frame without a reference: a median about 4 marble radii wide, taken at
    a quarter of the resolution (a sixteenth of the cost; the background varies over many radii)
    and scaled back."""
    h, w = img_u8.shape[:2]
    if min(h, w) < 32:
        return cv2.medianBlur(img_u8, int(4 * radius) | 1)
    small = cv2.resize(img_u8, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.medianBlur(small, int(radius) | 1), (w, h), interpolation=cv2.INTER_LINEAR)

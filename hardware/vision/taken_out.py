"""Was a marble found put into the picture, or taken out of it? The empty reference may hold a marble, and a print
on the board may look like one under a change of light (``unchanged``).

A reference taken with a marble in a gate (a person said the gates were empty, or the refresh read a marble it
missed as none) shows, once that marble is taken out, a marble's change where it lay: the detector finds a marble
there, in every later picture, and sure of it. Which of the two pictures holds the marble tells them apart: a marble
stands out of the board around it (its outline, glare and colour), the bare board does not. Measured in each picture
as the mean change over the disc (within ``DISC_RADII``) from the median of the ring around it (``RING_RADII``), in
log units summed over the colour channels (``own_contrast``).

With ``TAKEN_OUT_SHARE`` 0.3: of the simulated castle's marbles baked into a reference and then taken out (12
castles, 84 marbles), 72 read below it (median 0.025 of the reference's contrast); the other 12 lie where the bare
castle stands out of its own ring too (a trough's wall, its print), at 0.31 to 0.67. The sign of the disc's change, or
its brightest spot, told the 12 apart no better; a marble's outline does: the median over its circle of the
brightness's gradient across it (``outline``), which the bare castle's wall or print lacks. Read in both pictures, those
12 show 0.00 to 0.11 of the reference's outline, the marbles the detector found in rendered scenes 0.52 or more (747
marbles, training seeds 62000..62059; 1.63 at the first percentile). With ``OUTLINE_SHARE`` 0.2 as well, all 84 are
caught (82 and 83 with the light 20 % brighter or dimmer than at the reference and the sensor's noise added; none
counted). Of the 3,884 marbles the detector found in rendered scenes (training seeds 62000..62199, ordinary and every
hard case), 1 reads as taken out (a marble smeared by its roll), which then waits for a tap (ruling D4), as with the
contrast alone; at 0.3, one more did (an opaque marble on a printed ring of its size, its outline 0.27 of the ring's).
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from hardware.vision.circles import MEAN3, channel_medians, to_log

TAKEN_OUT_SHARE = 0.3
"""A marble found whose disc stands out of its ring in the picture by less than this share of how much it does in the
reference was taken out after the reference was taken: the reference holds it."""

OUTLINE_SHARE = 0.2
"""... or whose outline in the picture is less sharp than this share of the reference's there (``outline``)."""

OUTLINE_POINTS = 48
"""The places on a marble's circle where its outline is read."""

DISC_RADII = 0.9
"""The disc read, in marble radii."""

RING_RADII = (1.3, 2.0)
"""The ring of board around it, in marble radii."""

BARE_CONTRAST = 0.25
"""Where the reference's disc stands out of its ring by less than this, the reference holds no marble and the picture
is not read (``taken_out``): the bare board reads a median 0.12 where rendered scenes' marbles are found (training seeds
62000..62029, every case: 589 marbles), the simulated castle's marbles baked into a reference 1.9 or more, and 99 % of
the marbles found in those scenes (faint glass among them) 0.27 or more in their own picture."""

UNCHANGED_RADII = 1.4
"""The square read by ``unchanged``: its half side, in marble radii (the disc and a ring of board around it)."""

UNCHANGED_CORRELATION = 0.985
"""A marble found where the picture's brightness correlates with the reference's by this much or more is no marble
(``unchanged``): a printed disc of a marble's size on a pale table, clipped to white around it by more light than
when the reference was taken, changes as a marble would, but its pattern stays the reference's. Of 3,217 marbles the
detector found in rendered scenes (training seeds 50000..50149, every hard case), none reached 0.976 (glass on a
pale table, rolling); of 28 found where no marble was, 4 reached 0.987 to 0.997: three printed discs under more light,
and a rolling marble's faint streak found a radius and a half from where it was drawn, in a scene already flagged. On
training seeds 62000..62199 (every hard case, 1,600 scenes) one streak scene more read right and none less; under
``tests.vision_fit.CONDITIONS`` (62100..62139, ordinary and every case) six readings more right (a shade through an sRGB
camera, bands, more noise), none less, and one fewer with a gate wrong and not flagged."""

SAMPLE_RADIUS = 4.0
"""Pixels are read a step apart so that a radius spans about this many steps (every pixel of a marble this size or
smaller): the measure is a mean and a median, and reading every pixel of a large marble only costs time."""


@lru_cache(maxsize=16)
def _places(radius: float, step: int) -> tuple[int, np.ndarray, np.ndarray]:
    """For a marble of ``radius`` read every ``step`` pixels: the half width of the square read around its centre
    (in steps), and the flat indices of its disc's and its ring's places in that square."""
    half = int(math.ceil(RING_RADII[1] * radius / step))
    offsets = np.arange(-half, half + 1, dtype=np.float32) * (step / radius)
    rho2 = np.add.outer(offsets * offsets, offsets * offsets).ravel()
    disc = np.flatnonzero(rho2 < DISC_RADII ** 2)
    ring = np.flatnonzero((rho2 > RING_RADII[0] ** 2) & (rho2 < RING_RADII[1] ** 2))
    return half, disc, ring


def own_contrast(image: np.ndarray, x: float, y: float, radius: float) -> float:
    """How much the disc of ``radius`` at (x, y) of BGR ``image`` stands out of the ring around it (see the module),
    read about the pixel nearest its centre; 0 where the ring reaches beyond the picture."""
    h, w = image.shape[:2]
    step = max(1, int(radius / SAMPLE_RADIUS))
    half, disc, ring = _places(round(radius, 2), step)
    cx, cy, reach = int(round(x)), int(round(y)), half * step
    if cx - reach < 0 or cy - reach < 0 or cx + reach >= w or cy + reach >= h:
        return 0.0
    patch = to_log(image[cy - reach:cy + reach + 1:step, cx - reach:cx + reach + 1:step]).reshape(-1, 3)
    board = channel_medians(patch[ring][None])
    return float(np.abs(patch[disc] - board).sum(axis=1).mean())


@lru_cache(maxsize=16)
def _circle(radius: float) -> tuple[np.ndarray, np.ndarray, int]:
    """``OUTLINE_POINTS`` places on a circle of ``radius`` (x and y offsets, whole pixels), their unit normals, and
    the half width of the square that holds them with a pixel to spare."""
    angle = np.linspace(0.0, 2.0 * math.pi, OUTLINE_POINTS, endpoint=False)
    normals = np.stack([np.cos(angle), np.sin(angle)])
    return np.rint(radius * normals).astype(np.int32), normals.astype(np.float32), int(math.ceil(radius)) + 2


def outline(image: np.ndarray, x: float, y: float, radius: float) -> float:
    """How sharply a circle of ``radius`` at (x, y) of BGR ``image`` is outlined: the median over its places of the
    brightness's gradient across it (log units a pixel); 0 where it reaches beyond the picture."""
    h, w = image.shape[:2]
    offsets, normals, half = _circle(round(radius, 2))
    cx, cy = int(round(x)), int(round(y))
    if cx - half < 0 or cy - half < 0 or cx + half >= w or cy + half >= h:
        return 0.0
    lum = cv2.transform(to_log(image[cy - half:cy + half + 1, cx - half:cx + half + 1]), MEAN3)
    gx = cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    px, py = offsets[0] + half, offsets[1] + half
    return float(np.median(np.abs(gx[py, px] * normals[0] + gy[py, px] * normals[1])))


def taken_out(frame: np.ndarray, reference: np.ndarray, x: float, y: float, radius: float, *,
              held: tuple[float, float] | None = None) -> bool:
    """True when the marble found at (x, y) stands out far less in ``frame`` than in ``reference``, or is outlined far
    less sharply: the reference holds it, and the frame shows the board it left. ``held``: the reference's side there
    (``reference_side``), when the caller kept it (the reference does not change from frame to frame)."""
    contrast, edge = held if held is not None else reference_side(reference, x, y, radius)
    if contrast < BARE_CONTRAST:  # the bare board: no marble to take out
        return False
    if own_contrast(frame, x, y, radius) < TAKEN_OUT_SHARE * contrast:
        return True
    return edge > 0.0 and outline(frame, x, y, radius) < OUTLINE_SHARE * edge


def unchanged(frame: np.ndarray, reference: np.ndarray, x: float, y: float, radius: float) -> bool:
    """True when the picture shows about (x, y) what the reference showed there but for the light: the brightness
    (log units) within ``UNCHANGED_RADII`` radii correlates with the reference's by ``UNCHANGED_CORRELATION`` or more.
    Nothing was put there; the change found is the light's on a print of a marble's size."""
    h, w = frame.shape[:2]
    half, cx, cy = int(math.ceil(UNCHANGED_RADII * radius)), int(round(x)), int(round(y))
    if cx - half < 0 or cy - half < 0 or cx + half >= w or cy + half >= h:
        return False
    window = np.s_[cy - half:cy + half + 1, cx - half:cx + half + 1]
    now, then = (cv2.transform(to_log(image[window]), MEAN3).ravel() for image in (frame, reference))
    now, then = now - now.mean(), then - then.mean()
    spread = float(np.sqrt(float(now @ now) * float(then @ then)))
    return spread > 0.0 and float(now @ then) >= UNCHANGED_CORRELATION * spread


def reference_side(reference: np.ndarray, x: float, y: float, radius: float) -> tuple[float, float]:
    """What ``taken_out`` reads of the reference at (x, y): its ``own_contrast`` and its ``outline``."""
    return own_contrast(reference, x, y, radius), outline(reference, x, y, radius)

"""Was a marble found put into the picture, or taken out of it? The empty reference may hold a marble.

A reference taken with a marble in a gate (a person said the gates were empty, or the refresh read a marble it
missed as none) shows, once that marble is taken out, a marble's change where it lay: the detector finds a marble
there, in every later picture, and sure of it. Which of the two pictures holds the marble tells them apart: a marble
stands out of the board around it (its outline, glare and colour), the bare board does not. Measured in each picture
as the mean change over the disc (within ``DISC_RADII``) from the median of the ring around it (``RING_RADII``), in
log units summed over the colour channels (``own_contrast``).

With ``TAKEN_OUT_SHARE`` 0.3: of the simulated castle's marbles baked into a reference and then taken out (12
castles, 84 marbles), 72 read below it (median 0.025 of the reference's contrast); the other 12 lie where the bare
castle stands out of its own ring too (a trough's wall, its print), at 0.31 to 0.67, and are still counted. Of the
3,884 marbles the detector found in rendered scenes (training seeds 62000..62199, ordinary and every hard case), 1
reads below it (a marble smeared by its roll), which then waits for a tap (ruling D4). The sign of the disc's change,
or its brightest spot, told the 12 apart no better.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from hardware.vision.circles import channel_medians, to_log

TAKEN_OUT_SHARE = 0.3
"""A marble found whose disc stands out of its ring in the picture by less than this share of how much it does in the
reference was taken out after the reference was taken: the reference holds it."""

DISC_RADII = 0.9
"""The disc read, in marble radii."""

RING_RADII = (1.3, 2.0)
"""The ring of board around it, in marble radii."""

BARE_CONTRAST = 0.25
"""Where the reference's disc stands out of its ring by less than this, the reference holds no marble and the picture
is not read (``taken_out``): the bare board reads a median 0.12 where rendered scenes' marbles are found (training seeds
62000..62029, every case: 589 marbles), the simulated castle's marbles baked into a reference 1.9 or more, and 99 % of
the marbles found in those scenes (faint glass among them) 0.27 or more in their own picture."""

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


def taken_out(frame: np.ndarray, reference: np.ndarray, x: float, y: float, radius: float, *,
              reference_contrast: float | None = None) -> bool:
    """True when the marble found at (x, y) stands out far less in ``frame`` than in ``reference``: the reference
    holds it, and the frame shows the board it left. ``reference_contrast``: the reference's ``own_contrast`` there,
    when the caller kept it (the reference does not change from frame to frame)."""
    if reference_contrast is None:
        reference_contrast = own_contrast(reference, x, y, radius)
    if reference_contrast < BARE_CONTRAST:  # the bare board: no marble to take out
        return False
    return own_contrast(frame, x, y, radius) < TAKEN_OUT_SHARE * reference_contrast

"""Keep-or-reject review of ambiguous marble candidates with a tiny logistic model.

A candidate is ambiguous when the nearest stronger marble kept lies ``REVIEW_NEAR``..``REVIEW_FAR``
radii away: there a real touching marble (its votes pulled toward the neighbour) and a shadow with
a glass caustic look alike to single thresholds. The model weighs a few relative measurements
(``features``); its weights were fitted by logistic regression on the candidates of the training
seeds of tests/scenes.py only, 0..2999 and 40000..47999 (``tests/vision_fit.py``: ``fit_logistic``
on ``collect``); the accuracy test's seeds and every range reported are held out.
"""

from __future__ import annotations

import math

import numpy as np

REVIEW_NEAR = 1.55
"""Closest distance (radii) to a stronger kept marble at which a candidate is reviewed."""

REVIEW_FAR = 2.3
"""Farthest distance (radii) to a stronger kept marble at which a candidate is reviewed."""

FEATURE_NAMES = ("bias", "distance", "shadow_cos", "shadow_near", "score", "score_ratio",
                 "own_fill", "own_chroma", "own_lum", "highlight", "highlight_new")

WEIGHTS = np.array([-20.54, 8.276, -1.501, -1.942, 5.888, 0.2533, 1.519, 8.2, 3.426, 0.6872, 1.036])
"""Logistic weights in FEATURE_NAMES order; keep when the weighted sum is positive. Printed by
``python -m tests.vision_fit`` (training seeds: 3807 reviewed candidates, 3339 real marbles; the
rules decided 0.959 of them right, this model 0.983)."""


def features(c: tuple, k: tuple, diff: np.ndarray, spot: np.ndarray, lum_change: np.ndarray,
             radius: float, light: tuple[float, float] | None, highlight: float,
             fill_change: float, dark_weight: float) -> np.ndarray:
    """Feature vector of candidate ``c`` against its nearest stronger kept marble ``k``.

    distance (radii); cosine between (c - k) and the shadow direction (away from the frame's
    light, else from k's own highlight; 0 when unknown) and that cosine where the distance is
    under 2.1 radii; score and c/k score ratio; changed fraction, median colour change and median
    brightness change of c's disc outside k's; highlight strength (in units of ``highlight``)
    and how much of it is new (brightened versus the reference)."""
    x, y, kx, ky = c[0], c[1], k[0], k[1]
    vx, vy = x - kx, y - ky
    d = math.hypot(vx, vy)
    if light is not None:
        hx, hy = light
    else:
        hl = math.hypot(k[4], k[5])
        hx, hy = (k[4] / hl, k[5] / hl) if hl > 0.15 * radius else (0.0, 0.0)
    cos = -(vx * hx + vy * hy) / d if d > 0 else 0.0
    dr = d / radius
    fill, med_c, med_l = own_part(c, k, diff, radius, fill_change, dark_weight) or (0.0, 0.0, 0.0)
    h, w = spot.shape
    px, py = min(w - 1, max(0, int(x + c[4]))), min(h - 1, max(0, int(y + c[5])))
    hs = float(spot[py, px]) / highlight
    new = float(min(lum_change[py, px], spot[py, px])) / highlight
    return np.array([1.0, dr, cos, cos * max(0.0, 2.1 - dr), c[3], c[3] / max(k[3], 1e-6),
                     fill, med_c, med_l, min(hs, 3.0), max(-3.0, min(new, 3.0))])


def own_part(c: tuple, k: tuple, diff: np.ndarray, radius: float, fill_change: float,
             dark_weight: float) -> tuple[float, float, float] | None:
    """How the part of c's disc outside k's disc changed (``diff``: log difference image): the
    fraction changed by ``fill_change`` (darkening weighted by ``dark_weight``), the median colour
    change and the median brightness change; None when that part has fewer than 3 pixels."""
    x, y, kx, ky = c[0], c[1], k[0], k[1]
    ri = int(math.ceil(radius))
    ya, xa = max(0, y - ri), max(0, x - ri)
    patch = diff[ya:y + ri + 1, xa:x + ri + 1]
    yy, xx = np.ogrid[ya:ya + patch.shape[0], xa:xa + patch.shape[1]]
    own = ((xx - x) ** 2 + (yy - y) ** 2 <= radius * radius) & ((xx - kx) ** 2 + (yy - ky) ** 2 > radius * radius)
    if own.sum() < 3:
        return None
    e = patch[own]
    lum = e.mean(axis=1)
    chroma = np.sqrt(np.maximum((e * e).sum(axis=1) - 3.0 * lum * lum, 0.0))
    change = np.sqrt(chroma * chroma + 3.0 * np.where(lum < 0, lum * dark_weight, lum) ** 2)
    return float((change > fill_change).mean()), float(np.median(chroma)), float(np.median(lum))


def log_odds(f: np.ndarray) -> float:
    """The model's log-odds that the candidate of feature vector ``f`` is a marble."""
    return float(f @ WEIGHTS)


def keep(f: np.ndarray) -> bool:
    """The model's decision for one feature vector."""
    return log_odds(f) > 0.0

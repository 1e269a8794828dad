"""Keep-or-reject review of ambiguous marble candidates with a tiny logistic model.

A candidate is ambiguous when the nearest stronger marble kept lies ``REVIEW_NEAR``..``REVIEW_FAR``
radii away: there a real touching marble (its votes pulled toward the neighbour) and a shadow with
a glass caustic look alike to single thresholds. The model weighs a few relative measurements
(``features``); its weights were fitted by logistic regression on the candidates of the training
seeds of tests/scenes.py only: ordinary scenes 0..2999 and 40000..47999, and every hard case,
painted and traced glass, on 50000..51499 (``tests/vision_fit.py``: ``fit_logistic`` on
``collect``); the accuracy test's seeds and every range reported are held out. Painted and traced
scenes disagree on one thing: a painted caustic is dimmer than the lit board, a traced one (like a
real lens focusing a lamp) brighter, so a new bright spot means a marble in one and a shadow in the
other. What both show alike carries the weight: how spread that spot is, whether the candidate
casts its own shadow, where its glare sits.
"""

from __future__ import annotations

import math

import numpy as np

REVIEW_NEAR = 1.55
"""Closest distance (radii) to a stronger kept marble at which a candidate is reviewed."""

REVIEW_FAR = 2.3
"""Farthest distance (radii) to a stronger kept marble at which a candidate is reviewed."""

FEATURE_NAMES = ("bias", "distance", "shadow_cos", "shadow_near", "score", "score_ratio",
                 "own_fill", "own_chroma", "own_lum", "highlight", "highlight_new",
                 "spot_spread", "shadow_beyond", "glare_along", "glare_step", "glare_k")

SPREAD_WINDOW = 3
"""Half width (working pixels) of the window in which the bright spot's spread is measured."""

BEYOND_RADIUS = 0.6
"""Half width (radii) of the window whose median brightness change is read where a shadow falls."""

BEYOND_NEAR, BEYOND_FAR = 1.0, 2.5
"""Nearest and farthest (radii) a marble's shadow centre is looked for beyond it."""

GLARE_MAX_OFFSET = 0.6
"""Largest glare offset (radii) read as the lamp's height (a lamp 74 degrees from the zenith)."""

WEIGHTS = np.array([-15.42, 8.595, -1.742, -1.083, 4.572, 1.673, -0.2514, 8.111, 4.045, 0.1526, 0.3684,
                    -4.786, -1.298, -1.791, -0.08249, -3.501])
"""Logistic weights in FEATURE_NAMES order; keep when the weighted sum is positive. Printed by
``python -m tests.vision_fit``, collected with the earlier weights active (fitted on ordinary
scenes alone, without the lamp's physics; training seeds: 8687 reviewed candidates, 7660 real
marbles; the rules decided 0.952 of them right, this model 0.974; it was also fitted with the
darkening beyond the stronger marble, which got a weight of -0.009, nothing, and is left out; the
earlier model, on ordinary scenes alone, 0.983 of 3807; on the traced glass candidates of other
training seeds the earlier model decided about 0.80 right, this one 0.93)."""


def features(c: tuple, k: tuple, diff: np.ndarray, spot: np.ndarray, lum_change: np.ndarray,
             radius: float, light: tuple[float, float] | None, highlight: float,
             fill_change: float, dark_weight: float) -> np.ndarray:
    """Feature vector of candidate ``c`` against its nearest stronger kept marble ``k``.

    distance (radii); cosine between (c - k) and the shadow direction (away from the frame's
    light, else from k's own highlight; 0 when unknown) and that cosine where the distance is
    under 2.1 radii; score and c/k score ratio; changed fraction, median colour change and median
    brightness change of c's disc outside k's; highlight strength (in units of ``highlight``)
    and how much of it is new (brightened versus the reference); then the physics of a lamp:
    ``spot_spread``, how spread c's bright spot is (a glare on a sphere is a point, the caustic a
    glass marble focuses into its shadow is spread); ``shadow_beyond``, the median brightness
    change where c's own shadow would fall (a real marble casts one, a shadow does not);
    ``glare_along``, ``glare_k`` and ``glare_step``, c's and k's glare offsets toward the light
    and their difference (one lamp puts every marble's glare at the same offset; a caustic's spot
    sits anywhere)."""
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
    v = float(spot[py, px])
    hs = v / highlight
    new = float(min(lum_change[py, px], v)) / highlight
    sw = SPREAD_WINDOW
    window = spot[max(0, py - sw):py + sw + 1, max(0, px - sw):px + sw + 1]
    spread = float((window > 0.5 * v).sum()) / (radius * radius) if v > 0 else 0.0
    # where a shadow falls (from k's glare: the stronger marble's is the clearer)
    t = min(BEYOND_FAR, max(BEYOND_NEAR, shadow_distance(math.hypot(k[4], k[5]) / radius))) * radius
    beyond = _median_near(lum_change, x - hx * t, y - hy * t, BEYOND_RADIUS * radius) if hx or hy else 0.0
    along, along_k = (c[4] * hx + c[5] * hy) / radius, (k[4] * hx + k[5] * hy) / radius
    return np.array([1.0, dr, cos, cos * max(0.0, 2.1 - dr), c[3], c[3] / max(k[3], 1e-6),
                     fill, med_c, med_l, min(hs, 3.0), max(-3.0, min(new, 3.0)),
                     spread, beyond, along, along - along_k, along_k])


def shadow_distance(glare_offset: float) -> float:
    """How far (radii) a marble's shadow centre lies from it, from its glare's offset from its centre
    (radii): a sphere's glare sits where its surface faces halfway between the camera (above) and
    the lamp, ``sin(z / 2)`` radii off centre for a lamp ``z`` from the zenith, and its shadow's
    centre lies ``tan(z)`` radii away. Offsets past ``GLARE_MAX_OFFSET`` read as that."""
    return math.tan(2.0 * math.asin(min(GLARE_MAX_OFFSET, max(0.0, glare_offset))))


def _median_near(img: np.ndarray, x: float, y: float, half: float) -> float:
    """Median of ``img`` in the square of half width ``half`` around (x, y); 0 when it leaves the image."""
    r = max(1, int(half))
    xa, ya = int(round(x)) - r, int(round(y)) - r
    h, w = img.shape
    if xa < 0 or ya < 0 or xa + 2 * r + 1 > w or ya + 2 * r + 1 > h:
        return 0.0
    return float(np.median(img[ya:ya + 2 * r + 1, xa:xa + 2 * r + 1]))


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

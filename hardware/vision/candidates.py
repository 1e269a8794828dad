"""Keep-or-reject review of ambiguous marble candidates with a tiny model.

A candidate is ambiguous when the nearest stronger marble kept lies ``REVIEW_NEAR``..``REVIEW_FAR``
radii away: there a real touching marble (its votes pulled toward the neighbour) and a shadow with
a glass caustic look alike to single thresholds. The model weighs a few relative measurements
(``features``) in a network of 8 tanh units (``log_odds``), fitted on the candidates of
the training seeds of tests/scenes.py only: ordinary scenes 0..2999 and 40000..47999, and every
hard case, painted and traced glass, on 50000..51499 (``tests/vision_fit.py``: ``fit_network`` on
``collect``); the accuracy test's seeds and every range reported are held out. The measurements
mean different things in different light, which a weighted sum cannot say: a painted caustic is
dimmer than the lit board, a traced one (like a real lens focusing a lamp) brighter; a spread
bright spot is a caustic only where it is bright; one lamp puts every glare at the same offset,
whichever side of it a caustic's spot lies. Fitted on the even training seeds and judged on the odd
ones (4,340 candidates), a logistic model (a weighted sum of the same measurements) decides 0.973 of
them right and the network 0.983; of the traced glass candidates (508) 0.925 and 0.970.

A second network, of 4 units (``unlit_log_odds``), decides the clear circles that lack the glare
they needed, farther than ``REVIEW_NEAR`` from every marble kept: clear glass under soft light, a
marble whose glare a roll smeared, and the shadows, caustics and printed edges that look alike
(``unlit_features``). The rules left all of them out. Fitted the same way on the training seeds and
the hard cases' 53000..56999 too (such circles are rare: 1,011 of them, 332 real), on even seeds and
judged on odd ones (539) it decides 0.915 of them right (a logistic model 0.868, the rules 0.685).
Collected once more with it active, adding 57000..60999 (1,600 circles in all), the refit read the training
seeds no better (rolling marbles 2 scenes in 300 fewer), so these weights stay.

Both were fitted while distances were in the marble radius measured in the frame. Since a radius
given is the least the frame may measure (``detect.RADIUS_FLOOR``), the review's candidates were
collected again (9,657 of them, with the floor at the whole radius) and refitted: on odd seeds it
decided 0.984 of them right, and the training seeds read the same end to end, so these weights stay.
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

OVERHEAD_OFFSET = 0.15
"""A glare offset (radii) below which a marble's own glare gives no light direction (overhead)."""

GLARE_MAX_OFFSET = 0.6
"""Largest glare offset (radii) read as the lamp's height (a lamp 74 degrees from the zenith)."""

INPUT_WEIGHTS = np.array([
    [-1.464, 5.418, -10.04, -2.413, 2.881, 4.325, 1.225, -4.078],
    [0.5033, -1.141, 4.866, 0.1519, -0.9804, -0.7876, -1.376, 1.108],
    [-0.3642, -1.053, 0.1066, 0.6618, 0.5417, 0.1274, 0.3026, 0.07388],
    [-1.83, -5.102, -0.647, 4.281, -0.9395, -0.5923, -0.6716, 2.734],
    [2.386, -0.1549, 0.4638, -0.9621, -1.793, -0.4265, -1.808, 1.046],
    [-1.006, -1.046, 1.372, 0.2232, -1.666, -1.367, -0.4673, -1.474],
    [-0.1655, -0.01409, -0.08793, 0.1794, 1.202, 0.3239, 0.8258, 1.81],
    [2.372, 2.186, -0.1247, -2.191, -2.457, -2.596, -1.547, 2.639],
    [-0.3578, 0.4858, 1.166, -1.593, -4.147, 0.8721, -2.989, -0.08524],
    [0.04194, 0.2275, 0.1592, 0.1415, 0.0376, -1.331, 0.834, -0.1025],
    [-0.4241, -0.2071, 0.08272, -0.06946, -0.06037, 0.04689, -0.3875, 0.5702],
    [0.4245, -1.012, 0.1249, 2.316, -2.94, 6.228, 2.28, 1.46],
    [-0.1581, -1.944, 0.171, 2.968, -0.05587, -0.6742, 1.039, -0.7815],
    [0.6105, -1.933, 0.09272, 1.615, 0.8955, 0.8638, -0.1794, 1.043],
    [1.206, -2.115, -0.008496, 2, 0.08797, 0.554, -0.4101, 0.726],
    [-1.251, 0.421, 0.2087, -0.8362, 1.659, 0.6251, 0.4828, 0.6361]])
"""Weights from the features (rows, FEATURE_NAMES order; the first, always 1, is each unit's bias)
to the hidden tanh units (columns). Printed by ``python -m tests.vision_fit``, collected with the earlier
model active (a logistic one over the same measurements): 8722 reviewed candidates, 7688 real
marbles; the rules decide 0.951 of them right, this network 0.988. Collected once more with this
network active and refitted (8742 candidates), it read the training seeds no better (traced glass 2
scenes in 600 fewer, touching 2 more), so these stay."""

OUTPUT_WEIGHTS = np.array([0.9683, 1.445, 1.635, 1.097, -1.467, -1.536, -1.627, -1.486, 1.614])
"""The output's bias, then its weight of each hidden unit; the log-odds that a candidate is a marble."""


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
    hx, hy = toward_light(k, light, radius)
    cos = -(vx * hx + vy * hy) / d if d > 0 else 0.0
    dr = d / radius
    fill, med_c, med_l = own_part(c, k, diff, radius, fill_change, dark_weight) or (0.0, 0.0, 0.0)
    hs, new, spread = _glare(c, spot, lum_change, radius, highlight)
    # where a shadow falls (from k's glare: the stronger marble's is the clearer)
    t = min(BEYOND_FAR, max(BEYOND_NEAR, shadow_distance(math.hypot(k[4], k[5]) / radius))) * radius
    beyond = _median_near(lum_change, x - hx * t, y - hy * t, BEYOND_RADIUS * radius) if hx or hy else 0.0
    along, along_k = (c[4] * hx + c[5] * hy) / radius, (k[4] * hx + k[5] * hy) / radius
    return np.array([1.0, dr, cos, cos * max(0.0, 2.1 - dr), c[3], c[3] / max(k[3], 1e-6),
                     fill, med_c, med_l, hs, new, spread, beyond, along, along - along_k, along_k])


UNLIT_FEATURE_NAMES = ("bias", "score", "fill", "chroma", "lum", "rim", "around", "highlight",
                       "highlight_new", "spot_spread", "glare_offset", "glare_along", "nearest",
                       "shadow_cos", "soft")

RIM = (0.75, 1.05)
"""Inner and outer radius (radii) of the ring where clear glass shows its dark rim."""

AROUND = (1.3, 1.7)
"""Inner and outer radius (radii) of the ring just outside a marble (its shadow, or a blob larger than it)."""

NEAREST_CAP = 4.0
"""Distances to the nearest kept marble beyond this many radii read as this."""


UNLIT_INPUT_WEIGHTS = np.array([
    [-2.246, -0.1725, 4.317, 1.917],
    [0.8296, 2.998, -2.079, -3.684],
    [-0.7808, 0.4531, -0.8175, 0.05971],
    [6.686, -9.515, -2.052, 2.642],
    [1.334, -4.886, 0.2397, -0.8119],
    [0.1819, 0.7307, -0.807, 6.001],
    [0.9466, 4.072, 3.578, -1.169],
    [-0.3754, 2.261, -2.183, -0.9239],
    [0.1637, -0.1311, -0.191, -0.2808],
    [-0.5127, -0.8479, -0.7314, 1.494],
    [-0.03208, -1.64, -0.07919, 0.6196],
    [0.1479, 0.165, -0.1173, 0.2157],
    [1.371, -0.08833, -0.4156, -0.1146],
    [-0.4641, 0.3189, 0.4015, -0.09294],
    [0.6435, 0.3591, -0.4643, -1.253]])
"""Weights from the features (rows, UNLIT_FEATURE_NAMES order; the first, always 1, is each unit's
bias) to the unlit network's hidden tanh units (columns). Printed by ``python -m tests.vision_fit
unlit``: 1,011 glareless circles reviewed, 332 of them real marbles (most traced glass and rolling
marbles), which the rules all left out."""

UNLIT_OUTPUT_WEIGHTS = np.array([-1.418, 1.872, 1.64, -1.223, -1.388])
"""The unlit network's output bias, then its weight of each hidden unit."""


def unlit_features(c: tuple, kept: list, diff: np.ndarray, spot: np.ndarray, lum_change: np.ndarray,
                   radius: float, light: tuple[float, float] | None, highlight: float, soft: bool,
                   fill_change: float, dark_weight: float) -> np.ndarray:
    """Feature vector of a clear circle ``c`` that lacks the glare it needed, among the marbles
    ``kept``: its score; its disc's changed fraction, median colour and brightness change; ``rim``, the
    median brightness change on the ring at the radius less that of the disc's centre (clear glass
    shows the board through it, framed by a thin dark rim); ``around``, that just outside it; its
    glare (as in ``features``), that glare's offset from the centre and along the light; the distance
    to the nearest kept marble (radii, at most ``NEAREST_CAP``) and the cosine of that direction
    with the shadow's (0 farther than 3 radii); whether the frame is lit softly (no sharp glare)."""
    fill, med_c, med_l = own_part(c, (-1e9, -1e9), diff, radius, fill_change, dark_weight) or (0.0, 0.0, 0.0)
    centre = _ring_median(lum_change, c[0], c[1], 0.0, 0.5 * radius)
    rim = _ring_median(lum_change, c[0], c[1], RIM[0] * radius, RIM[1] * radius) - centre
    around = _ring_median(lum_change, c[0], c[1], AROUND[0] * radius, AROUND[1] * radius)
    hs, new, spread = _glare(c, spot, lum_change, radius, highlight)
    along = (c[4] * light[0] + c[5] * light[1]) / radius if light is not None else 0.0
    nearest, cos = NEAREST_CAP, 0.0
    if kept:
        k = min(kept, key=lambda q: (q[0] - c[0]) ** 2 + (q[1] - c[1]) ** 2)
        vx, vy = c[0] - k[0], c[1] - k[1]
        d = math.hypot(vx, vy)
        nearest = min(NEAREST_CAP, d / radius)
        hx, hy = toward_light(k, light, radius)
        cos = -(vx * hx + vy * hy) / d if 0 < d < 3.0 * radius else 0.0
    return np.array([1.0, c[3], fill, med_c, med_l, rim, around, hs, new, spread,
                     math.hypot(c[4], c[5]) / radius, along, nearest, cos, float(soft)])


def toward_light(k: tuple, light: tuple[float, float] | None, radius: float) -> tuple[float, float]:
    """Unit vector toward the light: the frame's ``light``, else where marble ``k``'s own glare sits
    (0, 0 when that glare is within ``OVERHEAD_OFFSET`` radii of its centre: the light overhead)."""
    if light is not None:
        return light
    n = math.hypot(k[4], k[5])
    return (k[4] / n, k[5] / n) if n > OVERHEAD_OFFSET * radius else (0.0, 0.0)


def _ring_median(img: np.ndarray, x: float, y: float, inner: float, outer: float) -> float:
    """Median of ``img`` on the ring between ``inner`` and ``outer`` (pixels) around (x, y), within
    the image; 0 when no pixel of it is."""
    ro = int(math.ceil(outer))
    xa, ya = max(0, int(x) - ro), max(0, int(y) - ro)
    patch = img[ya:int(y) + ro + 1, xa:int(x) + ro + 1]
    yy, xx = np.ogrid[ya:ya + patch.shape[0], xa:xa + patch.shape[1]]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    ring = patch[(d2 >= inner * inner) & (d2 <= outer * outer)]
    return float(np.median(ring)) if ring.size else 0.0


def _glare(c: tuple, spot: np.ndarray, lum_change: np.ndarray, radius: float,
           highlight: float) -> tuple[float, float, float]:
    """Candidate ``c``'s bright spot: how it stands out (units of ``highlight``, at most 3), how much
    of that is new (brightened versus the reference, -3..3), and how spread it is (``SPREAD_WINDOW``
    pixels above half its height, per radius squared)."""
    h, w = spot.shape
    px, py = min(w - 1, max(0, int(c[0] + c[4]))), min(h - 1, max(0, int(c[1] + c[5])))
    v = float(spot[py, px])
    new = float(min(lum_change[py, px], v)) / highlight
    sw = SPREAD_WINDOW
    window = spot[max(0, py - sw):py + sw + 1, max(0, px - sw):px + sw + 1]
    spread = float((window > 0.5 * v).sum()) / (radius * radius) if v > 0 else 0.0
    return min(v / highlight, 3.0), max(-3.0, min(new, 3.0)), spread


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


def network_log_odds(f: np.ndarray, w_in: np.ndarray, w_out: np.ndarray) -> np.ndarray:
    """Log-odds of a network of input weights ``w_in`` and output weights ``w_out`` (see
    ``INPUT_WEIGHTS``, ``OUTPUT_WEIGHTS``) for one feature vector ``f`` or a row of them each."""
    return w_out[0] + np.tanh(f @ w_in) @ w_out[1:]


def log_odds(f: np.ndarray) -> float:
    """The model's log-odds that the candidate of feature vector ``f`` is a marble."""
    return float(network_log_odds(f, INPUT_WEIGHTS, OUTPUT_WEIGHTS))


def unlit_log_odds(f: np.ndarray) -> float:
    """The unlit model's log-odds that the glareless circle of feature vector ``f`` is a marble."""
    return float(network_log_odds(f, UNLIT_INPUT_WEIGHTS, UNLIT_OUTPUT_WEIGHTS))


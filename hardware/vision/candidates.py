"""Keep-or-reject review of ambiguous marble candidates with a tiny model.

A candidate is ambiguous when the nearest stronger marble kept lies ``REVIEW_NEAR``..``REVIEW_FAR``
radii away: there a real touching marble (its votes pulled toward the neighbour) and a shadow with
a glass caustic look alike to single thresholds. The model weighs a few relative measurements
(``features``) in a network of 16 tanh units (``log_odds``), fitted on the candidates of
the training seeds of tests/scenes.py only: ordinary scenes 0..2999 and 40000..47999, and every
hard case, painted and traced glass, on 50000..53999 (``tests/vision_fit.py``: ``fit_network`` on
``collect``); the accuracy test's seeds and every range reported are held out. The measurements
mean different things in different light, which a weighted sum cannot say: a painted caustic is
dimmer than the lit board, a traced one (like a real lens focusing a lamp) brighter; a spread
bright spot is a caustic only where it is bright; one lamp puts every glare at the same offset,
whichever side of it a caustic's spot lies. Fitted on the even training seeds and judged on the odd
ones (9,423 candidates), a logistic model (a weighted sum of the same measurements) decides 0.974 of
them right and the network 0.984; of the traced glass candidates (1,881) 0.939 and 0.972.

A second network, of 4 units (``unlit_log_odds``), decides the clear circles that lack the glare
they needed, farther than ``REVIEW_NEAR`` from every marble kept: clear glass under soft light, a
marble whose glare a roll smeared, and the shadows, caustics and printed edges that look alike
(``unlit_features``). The rules left all of them out. Fitted the same way on the training seeds and
the hard cases' 53000..56999 too (such circles are rare: 1,011 of them, 332 real), on even seeds and
judged on odd ones (539) it decides 0.915 of them right (a logistic model 0.868, the rules 0.685).
Collected once more with it active, adding 57000..60999 (1,600 circles in all), the refit read the training
seeds no better (rolling marbles 2 scenes in 300 fewer), so these weights stay.

The unlit network was fitted while distances were in the marble radius measured in the frame; the
review was refitted in the radius given (``detect.RADIUS_FLOOR``), on more seeds and with 16 units
(see ``INPUT_WEIGHTS``). An oriented patch of the change around each candidate, added to the
measurements, decided 0.987 right and read traced glass 0.978, rolling marbles 0.980 on the seeds
``INPUT_WEIGHTS`` is judged on: not enough more to carry 11,000 weights.

Tried and not kept either, judged end to end on hard seeds 62000..63999 (2,000 scenes a case, out
of every fit): the review refitted on twice the hard seeds (50000..57999, 43,764 candidates) read
traced glass, rolling and touching marbles within a scene of these weights. Reviewing a kept
candidate's stronger neighbour again with the roles swapped, where it lies on the candidate's
shadow side (a clear marble's shadow and caustic can vote more strongly than the marble), and
dropping it when the network says so, read traced glass 3 or 4 scenes better and rolling marbles
3 or 4 worse (a touching pair smeared by a roll reads alike), fitted on such swapped examples or
not; made a flag only, it caught one more wrong scene in 2,000. The unlit network's ring medians
(centre, rim, around) added to the measurements decided 0.9836 of the candidates right against
0.9824 (hard seeds 50000..51999, fitted on even, judged on odd): within what two initialisations
differ by. Reviewing out to 2.5 radii (``REVIEW_FAR``) instead: of the 3,183 candidates collected
between 2.3 and 2.6 radii on the review's training seeds, these weights decide 0.986 right, and a
refit on all 22,054 candidates out to 2.6 radii the same; end to end traced glass read 3 scenes in
1,000 better on 62000..62999 and none on 63000..63999 (one more wrong and not flagged). Reading
each frame four times, moved by a frame pixel (half a working pixel) right, down and both, and
counting each gate's majority read traced glass 0.976 against 0.974 alone, rolling marbles 0.970
against 0.968, touching marbles the same (63200..63699, 500 scenes a case), at four times the cost;
flagging the gates where the four disagree left 0.002 fewer scenes with a gate wrong and sure, for
0.002 to 0.018 more scenes flagged: the errors left are not chance but the same at every shift.
Flagging a candidate whose network verdict differs from the rules' (on 62000..62399, 400 scenes a
case) left traced glass wrong and sure in 1 scene instead of 2, for 6 more flagged (0.265 to 0.280),
and touching, clear and rolling marbles 0.011, 0.005 and 0.003 more flagged, none caught. A small
convolutional network (8, 16 and 16 channels of 3x3, a 25x25 working-pixel patch of the change,
glare and brightness change turned so that the stronger marble lies to its left, beside these
measurements), fitted on the even seeds of ordinary 0..999 and hard 50000..51499 (2,973
candidates) and judged on the odd ones (2,973), decided 0.987 right against 0.980 for the
measurements alone fitted on the same: traced glass 0.976 against 0.974, rolling marbles 0.977
against 0.959, touching 0.995 against 0.987; 0.7 ms a candidate in numpy. Of the 11 marbles traced
glass read wrong on 62000..62299, 6 were this review's decisions; 3 touching clear marbles left no
peak, one glareless circle was the unlit network's and one extra was never reviewed. And 1 scene in
400 (62300..62699) holds a clear marble on an over-exposed white board that changes no pixel of its
disc by more than 2 levels: no detector sees it. Handing this review the circles without the glare
they needed that lie ``REVIEW_NEAR``..``REVIEW_FAR`` from a marble too (the rules drop them unseen)
read every case within a scene of 400 of what it read without, over three crops of the picture a
frame pixel apart (62000..62399): traced glass 0, +1 and -1 scenes, rolling marbles +1, 0 and 0,
touching -1, 0 and -1.

Reviewing from 1.3 radii instead of ``REVIEW_NEAR`` (a rolling marble's peak, pulled toward a neighbour,
often lies 1.2 to 1.55 radii from it, where the rules drop it unseen), refitted on these training scenes
with the wider band (22,404 candidates; fitted on even seeds, judged on odd: 0.981 right, rolling marbles
0.946, traced glass 0.970), read 62000..62999 end to end (1,000 scenes a case) rolling marbles 981
against 978, traced glass 966 against 970, clutter 996 against 998, ordinary scenes and faint glass one
better, touching and clear marbles the same: one scene fewer right in 7,000, though 17 read wrong and
sure against 21. These weights on the wider band, unrefitted: rolling marbles 3 better, traced glass 3
worse, touching 1 better. A marble is what the network gives log-odds above 0: at -0.4 and 0.4 instead,
rolling marbles read 980 and 976, traced glass 968 and 971, touching 991 and 991 (against 978, 970, 992).

The glare measured in the frame itself, not the working image (how its brightest pixel stands out of the
ring around it and brightened since the reference, the area above half its height, clipped or not, each
beside the stronger marble's): a caustic's spot is spread (a median 0.24 square radii above half its
height on traced glass, a real marble's glare 0.07) and stands out less than its marble's glare. Added to
the measurements, fitted on the even seeds of ordinary 0..1499 and hard 50000..51499 (traced glass
50000..51999; 6,601 candidates) and judged on the odd ones, decided 0.9839 right against 0.9815 (traced
glass 0.974 against 0.970, over two initialisations): about 8 candidates in 3,300, not enough to hand the
review the frame and its reference as well.
"""

from __future__ import annotations

import math

import numpy as np

from hardware.vision.circles import median

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
    [-6.166, 1.454, -0.6831, -3.262, -1.949, -3.625, -4.213, -0.4491,
     1.167, 1.86, 4.038, -3.627, -2.349, 3.532, -6.894, 2.27],
    [3.068, -1.391, 0.8031, 0.4622, 0.7317, 0.383, -0.1766, 0.364,
     -1.119, -0.6698, -1.124, 0.3522, 0.8679, -0.9874, 3.466, -0.8315],
    [0.07707, 0.4919, -0.2562, 0.8074, -0.5367, 0.2651, 0.4002, -0.09689,
     0.3185, 0.3921, 0.1197, 0.7788, 0.2982, 0.05702, 0.06694, -0.1766],
    [-0.8458, 1.946, 1.146, 3.578, 0.2656, 0.01111, 1.52, -1.052,
     -0.8161, 1.25, -0.3228, 3.581, 1.729, -0.3781, -0.5022, 3.174],
    [0.6428, -0.388, 0.9411, 0.1488, 1.441, 0.5785, 0.31, 0.6125,
     -0.7859, -1.482, -1.041, 0.7538, 0.6724, -0.9023, 0.4563, 0.9875],
    [-0.8866, 0.01259, 0.417, -0.1873, 0.8803, 0.5243, -0.5097, -0.08722,
     -0.2799, 1.195, 0.6757, -0.5245, -0.6807, 0.6103, 0.6675, 0.8019],
    [0.6518, 0.1413, -0.4671, 0.07993, -1.352, -0.02041, 1.153, 0.05207,
     1.152, -0.07043, -1.915, 0.03547, 0.1461, -1.618, 0.2356, 0.3087],
    [0.7954, -1.688, 1.415, -1.967, 2.128, 1.468, -0.6153, 1.465,
     -1.486, -1.425, -1.412, -1.623, 1.351, -1.229, 0.7689, 0.8729],
    [0.2837, -0.6057, 2.876, -0.7229, 2.156, -0.5518, -0.08229, -0.3298,
     -2.592, 0.1441, -0.3613, -0.2062, 0.7206, -0.3013, 0.5077, -0.02092],
    [0.003325, 0.02882, -0.77, 0.06898, -0.05265, 0.9449, 0.1654, 0.03155,
     -0.03676, -0.1386, -0.2405, -0.06108, -0.1253, -0.1955, -0.0429, -0.1713],
    [-0.01589, -0.07931, 0.3312, -0.06384, 0.02932, -0.006073, 0.3184, -0.0431,
     -0.1181, 0.3742, -0.2311, 0.157, 0.2871, -0.2048, 0.1185, -0.05618],
    [0.4835, 3.208, -1.828, 1.085, 3.393, -4.184, 1.087, -5.302,
     -0.328, -0.1159, -0.5147, 0.5904, 1.316, -0.5532, 0.5806, -0.574],
    [0.6095, 2.604, -0.5144, 2.322, 0.1167, -0.3605, 0.9692, 0.09576,
     -0.3753, 0.2451, -0.1138, 1.454, -0.3144, -0.06911, 0.001608, -1.08],
    [0.2929, 1.643, 0.3074, 1.811, -0.8777, -0.7742, 1.881, 0.9919,
     0.4624, -0.7662, -0.4203, 1.78, 1.331, -0.4025, -0.01805, -0.5226],
    [-0.04616, 2.341, -0.02857, 1.838, -0.226, -0.8821, 1.236, 1.156,
     -0.7952, -1.03, -0.1045, 1.398, 1.057, -0.1246, 0.09387, 0.2224],
    [0.7313, -1.488, 0.7244, -0.04373, -1.407, 0.2265, 1.401, -0.3476,
     2.707, 0.5617, -0.6821, 0.8344, 0.5994, -0.6004, -0.2407, -1.607]])
"""Weights from the features (rows, FEATURE_NAMES order; the first, always 1, is each unit's bias)
to the hidden tanh units (columns). Printed by ``python -m tests.vision_fit``, collected with the
8-unit network before it active: 18,925 reviewed candidates, 17,045 real marbles (9,452 with the
hard seeds 50000..51499 only; odd-seed figures in the module's docstring). End to end on the hard
cases' training seeds outside the fit (54000..54399 and 55000..55399, 800 scenes a case), the six
counts of traced glass were exact in 0.965 of them with the 8 units (fitted on 50000..51499) and
0.974 with these, rolling marbles 0.974 and 0.976, touching 0.990 and 0.991."""

OUTPUT_WEIGHTS = np.array([0.1573, 0.6757, -1.037, 1.225, -1.114, 1.122, 1.089, -0.9228,
     0.8732, -1.027, -1.007, -0.8631, -1.046, 0.887, -0.7436, 0.7223,
     0.7083])
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
    return median(ring) if ring.size else 0.0


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
    return median(img[ya:ya + 2 * r + 1, xa:xa + 2 * r + 1])


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
    return float((change > fill_change).mean()), median(chroma), median(lum)


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


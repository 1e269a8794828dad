"""The measurements of the candidate review (hardware/vision/candidates.py) on hand-made images,
and its network."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hardware.vision import candidates

R = 6.0
LIGHT = (1.0, 0.0)  # the lamp lies toward +x: shadows fall toward -x
GLARE = 0.38 * R  # a lamp 45 degrees from the zenith: tan(45) = 1 radius from a marble to its shadow


def _measure(c: tuple, k: tuple, spot: np.ndarray | None = None, lum: np.ndarray | None = None,
             light: tuple[float, float] | None = LIGHT) -> dict[str, float]:
    h, w = 80, 120
    spot = np.zeros((h, w), np.float32) if spot is None else spot
    lum = np.zeros((h, w), np.float32) if lum is None else lum
    f = candidates.features(c, k, np.zeros((h, w, 3), np.float32), spot, lum, R, light, 0.14, 0.15, 0.5)
    assert len(f) == len(candidates.FEATURE_NAMES) == len(candidates.INPUT_WEIGHTS)
    assert candidates.OUTPUT_WEIGHTS.shape == (candidates.INPUT_WEIGHTS.shape[1] + 1,)  # a bias, one per unit
    return dict(zip(candidates.FEATURE_NAMES, f.tolist()))


K = (60, 40, R, 1.0, GLARE, 0.0)  # the stronger marble kept
C = (48, 40, R, 0.5, GLARE, 0.0)  # a candidate two radii from it, on its shadow side


def test_a_glare_is_a_point_a_caustic_is_spread() -> None:
    gx, gy = int(C[0] + C[4]), C[1]
    point = np.zeros((80, 120), np.float32)
    point[gy, gx] = 0.5
    point[gy, gx + 1] = 0.3  # a glare: one or two pixels
    spread = np.zeros((80, 120), np.float32)
    spread[gy - 2:gy + 3, gx - 2:gx + 3] = 0.4  # a caustic: a patch of light
    spread[gy, gx] = 0.5
    a, b = _measure(C, K, spot=point)["spot_spread"], _measure(C, K, spot=spread)["spot_spread"]
    assert math.isclose(a, 2 / R ** 2) and math.isclose(b, 25 / R ** 2)
    assert _measure(C, K)["spot_spread"] == 0.0  # no bright spot: nothing spread


def test_a_marble_s_own_shadow_is_read_where_the_lamp_puts_it() -> None:
    """One radius beyond each marble, away from the lamp (its glare 0.38 radii off centre: 45
    degrees): a real marble casts a shadow there, a shadow read as a marble does not."""
    lum = np.zeros((80, 120), np.float32)
    lum[36:45, 38:47] = -0.3  # darkened around (42, 40): one radius beyond the candidate
    f = _measure(C, K, lum=lum)
    assert f["shadow_beyond"] == pytest.approx(-0.3)
    assert _measure(C, K)["shadow_beyond"] == 0.0
    assert _measure(C, K, lum=lum, light=None)["shadow_beyond"] == pytest.approx(-0.3)  # k's own glare gives the light
    overhead = (60, 40, R, 1.0, 0.0, 0.0)  # glare at the centre: the light overhead, no shadow side
    assert _measure(C, overhead, lum=lum, light=None)["shadow_beyond"] == 0.0


def test_a_low_lamp_puts_the_shadow_farther() -> None:
    """A glare 0.5 radii off centre: the lamp 60 degrees from the zenith, the shadow tan(60) = 1.73
    radii beyond; nothing of it is read one radius away."""
    low = (60, 40, R, 1.0, 0.5 * R, 0.0)
    lum = np.zeros((80, 120), np.float32)
    x = int(round(C[0] - math.sqrt(3) * R))
    lum[36:45, x - 3:x + 4] = -0.3
    assert _measure(C, low, lum=lum)["shadow_beyond"] == pytest.approx(-0.3)
    assert _measure(C, K, lum=lum)["shadow_beyond"] == 0.0


def test_glare_offsets_along_the_light() -> None:
    same = _measure(C, K)
    assert math.isclose(same["glare_k"], 0.38) and math.isclose(same["glare_along"], 0.38)
    assert same["glare_step"] == 0.0  # one lamp: the same offset on every marble
    caustic = _measure((48, 40, R, 0.5, -1.0, 1.0), K)  # a spot away from the light
    assert math.isclose(caustic["glare_step"], -1.0 / R - 0.38)


def test_a_shadow_window_outside_the_image_reads_nothing() -> None:
    lum = np.full((80, 120), -0.3, np.float32)
    edge = (5, 40, R, 0.5, GLARE, 0.0)
    assert _measure(edge, (17, 40, R, 1.0, GLARE, 0.0), lum=lum)["shadow_beyond"] == 0.0
    assert _measure(C, K, lum=lum)["shadow_beyond"] == pytest.approx(-0.3)


def test_the_network_weighs_what_a_weighted_sum_cannot() -> None:
    """One lamp puts every glare at the same offset, whichever side a caustic's spot lies: a marble
    when the glare step is near 0 either way. A weighted sum of the step cannot say so; the review's
    network, fitted the way tests/vision_fit.py fits it, can."""
    from tests import vision_fit

    rng = np.random.default_rng(0)
    step = rng.uniform(-1.0, 1.0, 600)
    x = np.column_stack([np.ones_like(step), step, rng.normal(0.0, 1.0, 600)])  # bias, step, noise
    y = (np.abs(step) < 0.4).astype(float)
    logistic = x @ vision_fit.fit_logistic(x, y, l2=0.001) > 0
    weights = vision_fit.fit_network(x, y, hidden=4, steps=1500)
    network = candidates.network_log_odds(x, *weights) > 0
    assert np.mean(logistic == y) < 0.7
    assert np.mean(network == y) > 0.95
    assert np.ndim(candidates.network_log_odds(x[0], *weights)) == 0  # one feature vector: one log-odds


def _unlit(c: tuple, kept: list, lum: np.ndarray | None = None, light: tuple[float, float] | None = LIGHT,
           soft: bool = False) -> dict[str, float]:
    h, w = 80, 120
    lum = np.zeros((h, w), np.float32) if lum is None else lum
    diff = np.repeat(lum[:, :, None], 3, axis=2)
    f = candidates.unlit_features(c, kept, diff, np.zeros((h, w), np.float32), lum, R, light, 0.14, soft, 0.15, 0.5)
    assert len(f) == len(candidates.UNLIT_FEATURE_NAMES) == len(candidates.UNLIT_INPUT_WEIGHTS)
    assert candidates.UNLIT_OUTPUT_WEIGHTS.shape == (candidates.UNLIT_INPUT_WEIGHTS.shape[1] + 1,)
    return dict(zip(candidates.UNLIT_FEATURE_NAMES, f.tolist()))


def test_clear_glass_shows_the_board_framed_by_a_dark_rim() -> None:
    """A clear marble: its centre shows the board as it was (no change), its rim is a thin dark ring."""
    yy, xx = np.mgrid[0:80, 0:120]
    d = np.hypot(xx - 40, yy - 40)
    lum = np.where((d >= 0.8 * R) & (d <= R), -0.4, 0.0).astype(np.float32)
    clear = _unlit((40, 40, R, 0.4, 0.0, 0.0), [], lum=lum)
    assert clear["rim"] == pytest.approx(-0.4)
    assert clear["around"] == 0.0 and clear["lum"] == 0.0  # a thin ring: most of the disc unchanged
    shadow = _unlit((40, 40, R, 0.4, 0.0, 0.0), [], lum=np.where(d <= 1.8 * R, -0.4, 0.0).astype(np.float32))
    assert shadow["rim"] == 0.0 and shadow["around"] == pytest.approx(-0.4)  # an even blob larger than a marble
    assert shadow["fill"] == 1.0 and shadow["lum"] == pytest.approx(-0.4)


def test_an_unlit_circle_knows_where_the_nearest_marble_and_its_shadow_lie() -> None:
    alone = _unlit(C, [])
    assert alone["nearest"] == candidates.NEAREST_CAP and alone["shadow_cos"] == 0.0
    behind = _unlit(C, [K, (110, 70, R, 1.0, GLARE, 0.0)])  # K two radii toward the lamp
    assert behind["nearest"] == pytest.approx(2.0) and behind["shadow_cos"] == pytest.approx(1.0)
    beside = _unlit((60, 52, R, 0.5, 0.0, 0.0), [K], light=None)  # below K; K's own glare gives the light
    assert beside["shadow_cos"] == pytest.approx(0.0, abs=1e-9)
    assert _unlit(C, [(C[0] + 4 * R, 40, R, 1.0, GLARE, 0.0)])["shadow_cos"] == 0.0  # too far to shade it
    assert _unlit(C, [], soft=True)["soft"] == 1.0 and alone["soft"] == 0.0
    assert _unlit(C, [])["glare_along"] == pytest.approx(0.38) and _unlit(C, [], light=None)["glare_along"] == 0.0

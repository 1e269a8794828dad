"""The traced glass marbles of tests/glass.py obey the optics they claim (they stand in for real
glass in the vision tests, so a wrong lens would mislead every figure measured on them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests import glass

CLEAR = glass.Glass((1.0, 1.0, 1.0))


def _room(elevation_deg: float, ambient: float = 0.5) -> glass.Room:
    el = math.radians(elevation_deg)
    return glass.Room((math.cos(el), 0.0, math.sin(el)), lamp_size=0.05, ambient=ambient)


def test_fresnel_of_glass_at_normal_and_grazing_incidence() -> None:
    f = glass._fresnel(np.array([1.0, 0.5, 1e-4]), glass.IOR)
    assert f[0] == pytest.approx(0.04, abs=1e-4)  # ((n - 1) / (n + 1)) ** 2
    assert f[0] < f[1] < f[2] and f[2] > 0.99


def test_a_ray_through_the_centre_passes_straight_and_a_tint_absorbs() -> None:
    d = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, -1.0]])
    n1 = np.array([[0.0, 0.0, 1.0], [0.6, 0.0, 0.8]])
    f, n2, e, kept = glass._through(d, n1, glass._absorb(glass.Glass((0.25, 1.0, 1.0))))
    assert np.allclose(n2[0], [0, 0, -1]) and np.allclose(e[0], [0, 0, -1])
    assert kept[0] == pytest.approx([0.96 ** 2 * 0.25, 0.96 ** 2, 0.96 ** 2], rel=1e-3)
    assert e[1, 0] < 0  # an off-centre ray bends toward the axis (a ball lens)
    assert np.linalg.norm(n2[1]) == pytest.approx(1.0)


@pytest.mark.parametrize("elevation", [40.0, 60.0, 85.0])
def test_the_shadow_falls_away_from_the_lamp_and_the_light_through_the_glass_is_conserved(elevation: float) -> None:
    r, size = 12.0, 160
    light_map, sky_map = np.ones((size, size, 3), np.float32), np.ones((size, size, 3), np.float32)
    glass.shade_table(light_map, sky_map, 80.0, 80.0, r, CLEAR, _room(elevation))
    lum = light_map[..., 1]
    dark = lum < 0.5
    yy, xx = np.nonzero(dark)
    offset = r / math.tan(math.radians(elevation))  # the shadow's centre: where the centre's ray lands
    assert xx.mean() + 0.5 - 80.0 == pytest.approx(-offset, abs=0.15 * r + 1.0)
    assert abs(yy.mean() + 0.5 - 80.0) < 1.0
    lz = math.sin(math.radians(elevation))
    shadow_area = math.pi * r * r / lz
    lost = float((1.0 - lum).sum()) / shadow_area  # light that never reaches the table
    rho = (np.arange(2000) + 0.5) / 2000  # the two surfaces reflect, averaged over the lamp's beam
    reflected = float(np.average(1.0 - (1.0 - glass._fresnel(np.sqrt(1.0 - rho * rho), glass.IOR)) ** 2, weights=rho))
    if elevation > 80:  # a high lamp: every ray through the glass reaches the table
        assert lost == pytest.approx(reflected, abs=0.01)
    else:  # a lower one: rays bent upward by the glass leave the table too
        assert reflected < lost < reflected + 0.2
    assert lum.max() > 1.5  # the caustic: light the sphere focuses
    assert np.all(sky_map <= 1.0) and sky_map.min() > 0.85  # clear glass lets the room's light through


def test_a_clear_marble_shows_a_clipped_glare_toward_the_lamp_and_tinted_glass_its_colour() -> None:
    size, r = 80, 12.0
    table = np.full((size, size, 3), 0.5, np.float32)
    room = _room(50.0)
    level = np.float32([1.0, 1.0, 1.0])
    clear = table.copy()
    glass.trace_marble(clear, table, 40.0, 40.0, r, CLEAR, room, level)
    lum = clear.mean(axis=2)
    y, x = np.unravel_index(int(np.argmax(lum)), lum.shape)
    assert lum[y, x] > 1.0 and x > 40  # the lamp lies toward +x
    assert np.array_equal(clear[:, :20], table[:, :20])  # nothing painted outside the disc
    red = table.copy()
    glass.trace_marble(red, table, 40.0, 40.0, r, glass.Glass((0.3, 0.3, 1.0)), room, level)
    centre = red[34:46, 34:46].reshape(-1, 3).mean(axis=0)
    assert centre[2] > 1.5 * centre[0] and centre[2] > 1.5 * centre[1]  # BGR: red glass looks red


@pytest.mark.parametrize("cx, cy", [(40.0, 40.0), (40.3, 39.6)])
def test_a_marble_is_drawn_where_its_centre_is_pixel_centres_counting_from_0(cx: float, cy: float) -> None:
    """As in the painted scenes and the detector, pixel i's centre lies at i: under a lamp straight
    overhead, the traced marble and its shadow are centred on (cx, cy), not half a pixel off."""
    size, r = 80, 10.0
    room = glass.Room((0.0, 0.0, 1.0), lamp_size=0.05, ambient=0.5)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)

    def centroid(weight: np.ndarray) -> tuple[float, float]:
        return float((weight * xx).sum() / weight.sum()), float((weight * yy).sum() / weight.sum())

    table = np.full((size, size, 3), 0.5, np.float32)
    seen = table.copy()
    glass.trace_marble(seen, table, cx, cy, r, glass.Glass((0.3, 0.5, 0.9)), room, np.float32([1.0, 1.0, 1.0]))
    assert centroid(np.abs(seen - table).sum(axis=2)) == pytest.approx((cx, cy), abs=0.05)
    light_map, sky_map = np.ones((size, size, 3), np.float32), np.ones((size, size, 3), np.float32)
    glass.shade_table(light_map, sky_map, cx, cy, r, glass.Glass((0.3, 0.5, 0.9)), room)
    assert centroid(np.abs(1.0 - light_map).sum(axis=2)) == pytest.approx((cx, cy), abs=0.05)

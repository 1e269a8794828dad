"""The image helpers of marble vision (hardware/vision/circles.py) against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.vision.circles import (
    change_magnitude,
    channel_medians,
    disc_window,
    every_second,
    light_gain,
    local_background,
    median,
    neighbourhood_votes,
    nonzero_xy,
)


@pytest.mark.parametrize("x, y", [(0, 0), (5, 7), (39, 29), (20, 0), (0, 15), (38, 28)])
def test_disc_window_is_the_disc_clipped_to_the_image(x, y) -> None:
    rng = np.random.default_rng(1)
    img = rng.random((30, 40)).astype(np.float32)
    reach = 4
    win, xa, ya = disc_window(img, x, y, reach)
    assert (xa, ya) == (max(0, x - reach), max(0, y - reach))
    for j in range(win.shape[0]):
        for i in range(win.shape[1]):
            px, py = xa + i, ya + j
            inside = (px - x) ** 2 + (py - y) ** 2 <= reach * reach
            assert win[j, i] == (img[py, px] if inside else -1.0)
    # every pixel of the disc inside the image is in the window
    yy, xx = np.mgrid[0:30, 0:40]
    assert (win >= 0).sum() == ((xx - x) ** 2 + (yy - y) ** 2 <= reach * reach).sum()


def test_local_background_drops_a_marble_and_keeps_the_light() -> None:
    """A marble-sized dark disc on a smooth light gradient: the background is the gradient."""
    import cv2

    h, w, radius = 120, 320, 6.0
    ramp = np.linspace(60, 200, w, dtype=np.float32)[None, :, None].repeat(h, axis=0).repeat(3, axis=2)
    img = ramp.astype(np.uint8)
    cv2.circle(img, (160, 60), int(radius), (10, 10, 10), -1)
    back = local_background(img, radius)
    assert back.shape == img.shape and back.dtype == np.uint8
    inner = np.abs(back.astype(int) - ramp.astype(int))[10:-10, 20:-20]
    assert inner.max() <= 8  # the marble is gone, the gradient stays
    assert abs(int(back[60, 160, 0]) - int(ramp[60, 160, 0])) <= 8
    tiny = img[:20, :20]
    assert local_background(tiny, radius).shape == tiny.shape  # too small to scale down: a plain median


@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
def test_nonzero_xy_is_numpy_s_nonzero_in_the_same_order(density) -> None:
    rng = np.random.default_rng(2)
    mask = rng.random((37, 53)) < density
    ys, xs = np.nonzero(mask)
    for m in (mask, mask.astype(np.uint8) * 7):
        gx, gy = nonzero_xy(m)
        assert gx.tolist() == xs.tolist() and gy.tolist() == ys.tolist()


def test_neighbourhood_votes_sum_the_3x3_clipped_to_the_image() -> None:
    rng = np.random.default_rng(3)
    per_radius = rng.random((6, 20, 30))
    xs, ys = np.array([0, 29, 15, 3]), np.array([0, 19, 10, 19])
    got = neighbourhood_votes(per_radius, xs, ys)
    assert got.shape == (6, 4)
    for j, (x, y) in enumerate(zip(xs, ys)):
        want = np.zeros(6)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):  # a neighbour off the image counts as the edge pixel
                want += per_radius[:, min(19, max(0, y + dy)), min(29, max(0, x + dx))]
        assert np.allclose(got[:, j], want)


def test_change_magnitude_counts_darkening_at_its_weight() -> None:
    rng = np.random.default_rng(4)
    e = rng.normal(0.0, 0.3, (16, 24, 3)).astype(np.float32)
    change, lum = change_magnitude(e, 0.5)
    mean = e.mean(axis=2)
    chroma2 = np.maximum((e * e).sum(axis=2) - 3.0 * mean * mean, 0.0)
    weighted = np.where(mean < 0, 0.5 * mean, mean)
    assert np.allclose(lum, mean, atol=1e-6)
    assert np.allclose(change, np.sqrt(chroma2 + 3.0 * weighted * weighted), atol=1e-5)
    grey = np.full((2, 2, 3), -0.2, np.float32)  # pure darkening: half its brightness change
    assert np.allclose(change_magnitude(grey, 0.5)[0], np.sqrt(3.0) * 0.1, atol=1e-6)


@pytest.mark.parametrize("h, w", [(5, 7), (6, 8), (131, 308), (133, 315), (1, 1), (2, 3)])
def test_every_second_and_channel_medians_match_numpy(h, w) -> None:
    img = np.random.default_rng(h * w).normal(0.0, 1.0, (h, w, 3)).astype(np.float32)
    half = every_second(img)
    assert half.flags.c_contiguous and np.array_equal(half, img[::2, ::2])
    for view in (img, img[::4, ::4]):
        want = np.median(view.reshape(-1, 3), axis=0).astype(np.float32)
        assert np.array_equal(channel_medians(view), want)


@pytest.mark.parametrize("shape", [(1,), (2,), (7,), (8,), (9, 9), (13, 12), (60, 3), (511,), (512,), (513,),
                                   (30, 79), (31, 79)])  # around PAIR_FROM, and a frame's noise sample
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_median_is_numpy_s_to_the_bit(shape, dtype) -> None:
    values = np.random.default_rng(sum(shape)).normal(0.0, 1.0, shape).astype(dtype)
    view = values[::-1]  # a strided view, as a disc's pixels are
    for v in (values, view):
        assert median(v) == float(np.median(v))
    assert median(values) == median(values.copy())  # it leaves its input as it was
    assert np.array_equal(values, np.random.default_rng(sum(shape)).normal(0.0, 1.0, shape).astype(dtype))


def test_the_light_gain_follows_a_flickering_lamp_s_bands_row_by_row() -> None:
    """A rolling shutter under a flickering lamp records bands of light, row after row: the gain follows
    them, and a smooth slope across the picture, wherever the picture did not change; a marble and its
    shadow do not pull it. (Before it followed rows, the bands were left in the change: 0.06 log units.)"""
    h, w, radius = 150, 330, 6.0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 0.06 * np.sin(2 * np.pi * yy / 50 + 1.0) + 0.1 * xx / w  # bands 50 rows apart, a slope
    diff = np.repeat(light[..., None], 3, axis=2) + np.random.default_rng(3).normal(0, 0.01, (h, w, 3))
    marble = (xx - 100) ** 2 + (yy - 70) ** 2 <= radius ** 2
    shadow = (xx - 108) ** 2 + (yy - 80) ** 2 <= (1.3 * radius) ** 2
    diff[shadow & ~marble] -= 0.3
    diff[marble] += (0.5, 0.1, -0.2)
    error = np.abs(np.log(light_gain(diff.astype(np.float32), radius)) - light[..., None])
    far = (xx - 104) ** 2 + (yy - 75) ** 2 > (4 * radius) ** 2
    assert error[far].max() < 0.02, error[far].max()
    assert np.median(error[far]) < 0.006


def test_the_light_gain_follows_the_edge_of_a_large_shade() -> None:
    """A person leaning over the castle: half the picture 30 % darker, its soft edge four marble radii wide
    across the gate area. The gain follows that edge wherever the picture did not change; a few marbles
    and their shadows do not pull it. (Before the shade's median was taken, the coarse correction left
    up to 0.3 log units of it in the change, and the light beside it read as marbles.)"""
    h, w, radius = 140, 330, 6.0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = (xx - 150) * 0.8 + (yy - 70) * 0.6
    light = np.log(1.0 - 0.3 * np.clip(0.5 + across / (4 * radius), 0.0, 1.0))
    diff = np.repeat(light[..., None], 3, axis=2) + np.random.default_rng(4).normal(0, 0.01, (h, w, 3))
    marbles = [(60, 40), (200, 90), (214, 96), (120, 110)]
    near = np.zeros((h, w), bool)
    for mx, my in marbles:
        disc = (xx - mx) ** 2 + (yy - my) ** 2 <= radius ** 2
        diff[((xx - mx - 6) ** 2 + (yy - my - 8) ** 2 <= (1.3 * radius) ** 2) & ~disc] -= 0.3
        diff[disc] += (0.5, 0.1, -0.2)
        near |= (xx - mx) ** 2 + (yy - my) ** 2 <= (4 * radius) ** 2
    error = np.abs(np.log(light_gain(diff.astype(np.float32), radius)) - light[..., None])
    assert np.percentile(error[~near], 99) < 0.05, np.percentile(error[~near], 99)
    assert np.median(error[~near]) < 0.01

"""The image helpers of marble vision (hardware/vision/circles.py) against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.vision.circles import disc_window, local_background


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

"""How far the picture moved against the empty reference (hardware/camera/drift.py)."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from hardware.camera.drift import picture_shift
from tests.conditions import nudged, shaded
from tests.scenes import make_scene


@pytest.mark.parametrize("seed, case", [(70010, None), (70011, "glass"), (70012, "clutter"), (70013, "touching")])
@pytest.mark.parametrize("dx, dy", [(0.0, 0.0), (2.4, -1.8), (-6.0, 4.0), (12.0, 9.0)])
def test_the_shift_is_measured_with_marbles_in_the_gates(seed: int, case: str | None, dx: float, dy: float) -> None:
    """Held-out scenes, marbles in the gates (the reference has none): the shift to about a pixel."""
    sc = make_scene(seed, case=case)
    assert sc.marbles
    shift = picture_shift(sc.reference, nudged(sc.image, dx, dy), sc.regions.bounds(), sc.marble_radius_px)
    assert shift is not None and np.hypot(shift[0] - dx, shift[1] - dy) < 1.2, shift


def test_no_shift_is_trusted_on_a_bare_board_or_between_pictures_of_two_sizes() -> None:
    rng = np.random.default_rng(5)
    bare = [np.clip(120 + rng.normal(0, 3, (480, 640, 3)), 0, 255).astype(np.uint8) for _ in range(2)]
    box = (100.0, 150.0, 540.0, 330.0)
    assert picture_shift(bare[0], bare[1], box, 12.0) is None  # sensor noise alone: nothing to follow
    sc = make_scene(70010)
    assert picture_shift(sc.reference, cv2.resize(sc.image, (320, 240)), box, 12.0) is None


def test_a_shade_or_a_hand_over_the_castle_is_no_move() -> None:
    """What changes without the camera moving: a person's shade across the gate area (60 % darker, its edge
    sharp), a hand reaching in. Neither reads as a shift the gates would follow (the hub's threshold is
    3 px, |dx| + |dy|)."""
    for seed, case in [(70010, None), (70011, "glass"), (70012, "clutter"), (70013, "touching")]:
        sc = make_scene(seed, case=case)
        x0, y0, x1, y1 = sc.regions.bounds()
        shade = shaded(sc.image, (0.5 * (x0 + x1), y0), math.atan2(0.5, 1.0), 1.0, depth=0.6)
        hand = sc.image.copy()
        cv2.ellipse(hand, (int(x0 + 0.3 * (x1 - x0)), int(y1)), (int(0.3 * (x1 - x0)), 80), 20.0, 0, 360,
                    (120, 150, 200), -1)
        for picture in (shade, hand):
            shift = picture_shift(sc.reference, picture, sc.regions.bounds(), sc.marble_radius_px)
            assert shift is None or abs(shift[0]) + abs(shift[1]) < 2.0, (seed, shift)

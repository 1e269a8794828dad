"""A die left in a gate, found as a marble, makes its gate unsure when the camera reads alone (ruling D4;
hardware/vision/shapes.py): its outline is square, a marble's is round."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.simulated import SimulatedCastle, gate_centre_x
from hardware.vision.detect import MarbleDetector
from hardware.vision.shapes import ROUND_MAX, SQUARE_MIN, outline_harmonics


def _board() -> np.ndarray:
    return np.full((240, 320, 3), (150, 160, 165), np.uint8)


def test_a_square_outline_reads_square_and_a_disc_or_a_pair_of_discs_does_not() -> None:
    board = _board()
    square, disc, pair = board.copy(), board.copy(), board.copy()
    cv2.rectangle(square, (145, 105), (175, 135), (240, 240, 240), -1)
    cv2.circle(disc, (160, 120), 15, (240, 240, 240), -1, cv2.LINE_AA)
    cv2.circle(pair, (147, 120), 13, (240, 240, 240), -1, cv2.LINE_AA)
    cv2.circle(pair, (173, 120), 13, (240, 240, 240), -1, cv2.LINE_AA)
    s4, s2 = outline_harmonics(square, board, 160.0, 120.0, 15.5)
    assert s4 > SQUARE_MIN and s2 < ROUND_MAX
    s4, s2 = outline_harmonics(disc, board, 160.0, 120.0, 15.5)
    assert s4 < SQUARE_MIN / 2 and s2 < ROUND_MAX
    s4, s2 = outline_harmonics(pair, board, 147.0, 120.0, 13.0)
    assert s2 > ROUND_MAX  # two touching marbles: a long outline, not a square one
    assert outline_harmonics(board, board, 160.0, 120.0, 15.5) == (0.0, 1.0)  # nothing changed there


def _die(frame: np.ndarray, x: int, y: int, body: tuple[int, int, int], pips: tuple[int, int, int],
         turned: float = 0.0, side: int = 29) -> np.ndarray:
    """A die of ``side`` pixels seen from above, turned by ``turned`` degrees, with five pips."""
    out = frame.copy()
    corners = cv2.boxPoints(((x, y), (side, side), turned)).astype(np.int32)
    cv2.fillConvexPoly(out, corners, body, cv2.LINE_AA)
    c, s = np.cos(np.radians(turned)), np.sin(np.radians(turned))
    for dx, dy in ((-6, -6), (6, 6), (0, 0), (-6, 6), (6, -6)):
        cv2.circle(out, (round(x + c * dx - s * dy), round(y + s * dx + c * dy)), 2, pips, -1, cv2.LINE_AA)
    return out


@pytest.mark.parametrize(("body", "pips", "turned"), [
    ((235, 235, 240), (20, 20, 20), 0.0), ((40, 40, 200), (240, 240, 240), 20.0), ((30, 30, 30), (230, 230, 230), 45.0),
], ids=["white", "red-turned", "black-corner-on"])
def test_a_die_in_a_gate_makes_it_unsure_when_the_camera_reads_alone(body, pips, turned) -> None:
    castle = SimulatedCastle(seed=1)
    reference = castle.render_empty()
    castle.add_marble(2)
    castle.add_marble(5)
    frame = _die(castle.render(), int(gate_centre_x(3)), 260, body, pips, turned)
    radius = castle.marble_size().radius_px
    alone = MarbleDetector(castle.regions(), reference, marble_radius_px=radius, square_check=True)
    with_beams = MarbleDetector(castle.regions(), reference, marble_radius_px=radius)
    read = alone.detect(frame)
    assert read.counts == with_beams.detect(frame).counts  # the count reads as before: only its gate waits
    assert read.counts[2] == 1 and read.unsure == (False, False, True, False, False, False)
    assert not any(with_beams.detect(frame).unsure)  # the beams disagree instead (tests/test_camera_trouble.py)
    marbles_only = alone.detect(castle.render())
    assert marbles_only.counts == (0, 1, 0, 0, 1, 0) and not marbles_only.is_unsure  # real marbles stay sure

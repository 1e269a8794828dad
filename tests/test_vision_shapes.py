"""A die left in a gate, found as a marble, makes its gate unsure when the camera reads alone (ruling D4;
hardware/vision/shapes.py): its outline is square, a marble's is round."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from hardware.camera.simulated import SimulatedCastle, gate_centre_x
from hardware.vision.circles import change_magnitude, to_log
from hardware.vision.detect import MarbleDetector
from hardware.vision.shapes import OUTLINE_RADII, ROUND_MAX, SQUARE_MIN, WINDOW_RADII, _percentile_80, outline_harmonics
from tests.scenes import make_scene


def _shapes() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A bare board, and the board with a drawn square, a disc and a pair of touching discs about (160, 120)."""
    board = np.full((240, 320, 3), (150, 160, 165), np.uint8)
    square, disc, pair = board.copy(), board.copy(), board.copy()
    cv2.rectangle(square, (145, 105), (175, 135), (240, 240, 240), -1)
    cv2.circle(disc, (160, 120), 15, (240, 240, 240), -1, cv2.LINE_AA)
    cv2.circle(pair, (147, 120), 13, (240, 240, 240), -1, cv2.LINE_AA)
    cv2.circle(pair, (173, 120), 13, (240, 240, 240), -1, cv2.LINE_AA)
    return board, square, disc, pair


def test_a_square_outline_reads_square_and_a_disc_or_a_pair_of_discs_does_not() -> None:
    board, square, disc, pair = _shapes()
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
    detector = MarbleDetector(castle.regions(), reference, marble_radius_px=radius)
    plain = detector.detect(frame)
    assert plain.counts[2] == 1 and not plain.is_unsure  # the beams disagree instead (tests/test_camera_trouble.py)
    read = detector.flag_squares(frame, plain)  # the reading the camera alone reports
    assert read.counts == plain.counts  # the count reads as before: only its gate waits
    assert read.unsure == (False, False, True, False, False, False)
    marbles = castle.render()
    marbles_only = detector.flag_squares(marbles, detector.detect(marbles))
    assert marbles_only.counts == (0, 1, 0, 0, 1, 0) and not marbles_only.is_unsure  # real marbles stay sure


def _plain_harmonics(frame: np.ndarray, reference: np.ndarray, fx: float, fy: float,
                     radius: float) -> tuple[float, float]:
    """``outline_harmonics`` written plainly: numpy's median and percentile, the gradient as complex numbers."""
    h, w = frame.shape[:2]
    half = int(math.ceil(WINDOW_RADII * radius)) + 2
    x0, y0 = max(0, int(fx) - half), max(0, int(fy) - half)
    x1, y1 = min(w, int(fx) + half + 1), min(h, int(fy) + half + 1)
    diff = cv2.subtract(to_log(frame[y0:y1, x0:x1]), to_log(reference[y0:y1, x0:x1]))
    yy, xx = np.ogrid[y0:y1, x0:x1]
    rho = np.sqrt(((xx - fx) ** 2 + (yy - fy) ** 2).astype(np.float32)) / np.float32(radius)
    ring = rho > 1.5
    if ring.sum() > 10:
        diff -= np.median(diff[ring], axis=0).astype(np.float32)
    mag, _ = change_magnitude(diff, 0.5)
    inner = mag[rho < 0.6]
    threshold = max(0.08, 0.4 * float(np.percentile(inner, 80))) if inner.size else 0.08
    _, labels = cv2.connectedComponents((mag > threshold).view(np.uint8), connectivity=8)
    middle = labels[rho < 0.5]
    middle = middle[middle > 0]
    if not middle.size:
        return 0.0, 1.0
    blob = (labels == np.bincount(middle).argmax()).astype(np.uint8)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, contours, -1, 1, -1)
    k3 = np.ones((3, 3), np.uint8)
    edge = (np.clip(mag / threshold - 0.5, 0.0, 1.0) * cv2.dilate(filled, k3)).astype(np.float32)
    edge[cv2.erode(filled, k3) > 0] = 1.0
    soft = cv2.GaussianBlur(edge, (0, 0), 0.7)
    gx, gy = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    z = (gx + 1j * gy)[rho < OUTLINE_RADII]
    m = np.abs(z) + 1e-12
    total = float(m.sum())
    return float(abs((z ** 4 / m ** 3).sum()) / total), float(abs((z ** 2 / m).sum()) / total)


def _windows() -> list[tuple[str, np.ndarray, np.ndarray, float, float, float]]:
    """(name, frame, reference, fx, fy, radius): drawn shapes, dice on the simulated castle, rendered marbles."""
    board, square, disc, pair = _shapes()
    out = [("square", square, board, 160.0, 120.0, 15.5), ("disc", disc, board, 160.3, 119.6, 15.5),
           ("touching discs", pair, board, 147.0, 120.0, 13.0), ("nothing", board, board, 160.0, 120.0, 15.5),
           ("square at the corner", square[100:, 140:], board[100:, 140:], 20.0, 20.0, 15.5)]
    castle = SimulatedCastle(seed=1)
    reference = castle.render_empty()
    castle.add_marble(2)
    radius = castle.marble_size().radius_px
    for body, pips, turned in (((235, 235, 240), (20, 20, 20), 0.0), ((40, 40, 200), (240, 240, 240), 20.0),
                               ((30, 30, 30), (230, 230, 230), 45.0)):
        frame = _die(castle.render(), int(gate_centre_x(3)), 260, body, pips, turned)
        out.append((f"die turned {turned:.0f}", frame, reference, gate_centre_x(3) + 0.4, 259.7, radius))
    for seed, case in ((0, None), (1, None), (2, None), (62000, "touching"), (62001, "glass")):
        scene = make_scene(seed, case=case)
        out += [(f"marble of scene {seed} {case or ''}", scene.image, scene.reference, m.x, m.y, m.r)
                for m in scene.marbles[:4]]
    scene = make_scene(3)
    out += [(f"board of scene 3 at {x}, {y}", scene.image, scene.reference, x + 0.25, y + 0.75, scene.marble_radius_px)
            for x, y in ((100, 100), (320, 240), (600, 50))]  # the board's own change: some blob or none
    return out


def test_the_outline_s_harmonics_are_the_plain_complex_formula_s() -> None:
    windows = _windows()
    assert len(windows) > 20
    for name, frame, reference, fx, fy, radius in windows:
        s4, s2 = outline_harmonics(frame, reference, fx, fy, radius)
        plain = _plain_harmonics(frame, reference, fx, fy, radius)
        assert abs(s4 - plain[0]) < 1e-3 and abs(s2 - plain[1]) < 1e-3, name


def test_the_80th_percentile_is_numpy_s_to_the_bit() -> None:
    rng = np.random.default_rng(7)
    for size in (*range(1, 12), 200, 201, 1000):
        values = (rng.random(size) * rng.uniform(0.1, 3.0)).astype(np.float32)
        values[: size // 4] = values[-1]  # ties
        assert _percentile_80(values) == float(np.percentile(values, 80)), size

"""What a real table does to a picture after the empty reference was taken, for the vision tests and
``python -m tests.vision_fit conditions``: the bands of a flickering lamp recorded by a rolling shutter, a
person's shade across the castle, a nudged camera, a camera out of focus. Each takes a BGR uint8 picture
and returns another; the reference is left as it was."""

from __future__ import annotations

import cv2
import numpy as np


def banded(image: np.ndarray, seed: int, depth: float = 0.08, period: float = 100.0) -> np.ndarray:
    """``image`` as a rolling shutter records it under a flickering lamp: the light of each row rises and
    falls by ``depth`` every ``period`` rows, at a phase of its own (from ``seed``)."""
    phase = np.random.default_rng(seed).uniform(0.0, 2.0 * np.pi)
    rows = 1.0 + depth * np.sin(2.0 * np.pi * np.arange(image.shape[0]) / period + phase)
    return np.clip(image * rows[:, None, None], 0, 255).astype(np.uint8)


def shaded(image: np.ndarray, through: tuple[float, float], angle: float, edge: float,
           depth: float = 0.3) -> np.ndarray:
    """``image`` with a large shade ``depth`` darker on one side of a straight edge through ``through`` at
    ``angle`` (radians), its penumbra ``edge`` pixels wide: a person leaning over the castle."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = (xx - through[0]) * np.cos(angle) + (yy - through[1]) * np.sin(angle)
    light = 1.0 - depth * np.clip(0.5 + across / edge, 0.0, 1.0)
    return np.clip(image * light[..., None], 0, 255).astype(np.uint8)


def nudged(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``image`` as a camera nudged by (dx, dy) pixels sees it (its content moved right and down)."""
    h, w = image.shape[:2]
    return cv2.warpAffine(image, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REFLECT)


def defocused(image: np.ndarray, sigma: float) -> np.ndarray:
    """``image`` blurred further by a Gaussian of ``sigma`` pixels: a camera out of focus."""
    return cv2.GaussianBlur(image, (0, 0), sigma)

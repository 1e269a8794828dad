"""What a real table does to a picture after the empty reference was taken, for the vision tests and
``python -m tests.vision_fit conditions``: the bands of a flickering lamp recorded by a rolling shutter, a
person's shade across the castle, a nudged camera, a camera out of focus, a noisier picture (a room gone
dim). Each takes a BGR picture and returns another of its type: the light reaching the sensor (float,
``tests.scenes.make_scene``'s ``optics``: before the sensor's noise and clipping, as at a real table), or a
camera's uint8 picture (after them: a clipped channel darkens with the rest, the noise is shaded and blurred
too). The reference is left as it was. And a scene whose picture's edge cuts a marble (``cut_by_edge``: a camera
whose gates reach the picture's edge)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera import markers
from hardware.vision.regions import GateRegion, GateRegions
from tests.scenes import Scene, SceneMarble


def banded(image: np.ndarray, seed: int, depth: float = 0.08, period: float = 100.0) -> np.ndarray:
    """``image`` as a rolling shutter records it under a flickering lamp: the light of each row rises and
    falls by ``depth`` every ``period`` rows, at a phase of its own (from ``seed``)."""
    phase = np.random.default_rng(seed).uniform(0.0, 2.0 * np.pi)
    rows = 1.0 + depth * np.sin(2.0 * np.pi * np.arange(image.shape[0]) / period + phase)
    return _lit(image, rows[:, None, None])


def shaded(image: np.ndarray, through: tuple[float, float], angle: float, edge: float,
           depth: float = 0.3) -> np.ndarray:
    """``image`` with a large shade ``depth`` darker on one side of a straight edge through ``through`` at
    ``angle`` (radians), its penumbra ``edge`` pixels wide: a person leaning over the castle."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = (xx - through[0]) * np.cos(angle) + (yy - through[1]) * np.sin(angle)
    light = 1.0 - depth * np.clip(0.5 + across / edge, 0.0, 1.0)
    return _lit(image, light[..., None])


def _lit(image: np.ndarray, light: np.ndarray) -> np.ndarray:
    """``image`` times ``light``, of ``image``'s type."""
    if image.dtype != np.uint8:
        return (image * light).astype(image.dtype)
    return np.clip(image * light, 0, 255).astype(np.uint8)


def through_srgb(light: np.ndarray, change: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``change`` (one of these) as a camera with sRGB's tone curve records it: ``light`` (the rendered scene,
    float, 1.0 full scale) taken as that camera's encoded values, changed in the linear light they encode, and
    encoded again. A pure gain of light is then no pure ratio of the values: the curve is steeper in the dark."""
    linear = np.where(light <= 0.04045, light / 12.92, ((np.maximum(light, 0.0) + 0.055) / 1.055) ** 2.4)
    changed = np.maximum(change(linear.astype(np.float32)), 0.0)
    return np.where(changed <= 0.0031308, changed * 12.92, 1.055 * changed ** (1 / 2.4) - 0.055).astype(np.float32)


def noisier(image: np.ndarray, seed: int, sigma: float, smoothed: float = 0.0) -> np.ndarray:
    """``image`` with more of the sensor's noise, ``sigma`` 8-bit steps more (its own draw, from ``seed``): a room
    gone dim, the camera's gain turned up after the reference was taken. ``smoothed``: the noise blurred by a
    Gaussian this many pixels wide first (``sigma`` steps a pixel after it), as a camera's own denoising leaves
    it: grains a few pixels across, which scaling the picture down averages out less."""
    light = image.dtype != np.uint8
    scale = sigma / 255.0 if light else sigma
    noise = np.random.default_rng([seed, 99]).normal(0.0, scale, image.shape)
    if smoothed > 0:
        noise = cv2.GaussianBlur(noise, (0, 0), smoothed)
        noise *= scale / max(float(noise.std()), 1e-12)
    changed = image.astype(np.float32) + noise.astype(np.float32)
    return changed.astype(image.dtype) if light else np.clip(changed, 0, 255).astype(np.uint8)


def nudged(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``image`` as a camera nudged by (dx, dy) pixels sees it (its content moved right and down)."""
    h, w = image.shape[:2]
    return cv2.warpAffine(image, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REFLECT)


def sleeved(frame: np.ndarray) -> np.ndarray:
    """A camera's picture of the simulated castle with a sleeve reaching in from the front over gates 1 and 2 (the
    marbles there hidden), held still."""
    out = frame.copy()
    cv2.ellipse(out, (160, 440), (110, 190), 15.0, 0, 360, (120, 150, 200), -1, cv2.LINE_AA)
    return out


def defocused(image: np.ndarray, sigma: float) -> np.ndarray:
    """``image`` blurred further by a Gaussian of ``sigma`` pixels: a camera out of focus."""
    return cv2.GaussianBlur(image, (0, 0), sigma)


def photographed_sheet(blur: float, *, contrast: float = 1.0) -> np.ndarray:
    """The marker sheet as a camera above the castle sees it: 640x480, tilted in perspective (markers about
    85 px wide), blurred by a Gaussian of ``blur`` px, its contrast scaled by ``contrast``, with sensor noise."""
    sheet = markers.render_sheet(dpi=100)
    h, w = sheet.shape
    tilt = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]),
                                       np.float32([[120, 40], [470, 60], [500, 450], [100, 430]]))
    picture = cv2.warpPerspective(sheet, tilt, (640, 480), flags=cv2.INTER_AREA, borderValue=200).astype(np.float32)
    picture = 128 + (picture - 128) * contrast
    if blur:
        picture = cv2.GaussianBlur(picture, (0, 0), blur)
    picture += np.random.default_rng(7).normal(0.0, 2.0, picture.shape)
    return cv2.cvtColor(np.clip(picture, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


@dataclass(frozen=True)
class Cut:
    """A scene's picture and reference cropped, their gates cropped with them, with what lies in view."""

    image: np.ndarray
    reference: np.ndarray
    regions: GateRegions
    counts: tuple[int, ...]
    """The marbles per gate whose centre lies in the cropped picture (a marble more than half outside is not in
    view)."""
    inside: float = 0.0
    """``cut_by_edge``: how far (radii) inside the new edge the cut marble's centre lies; below 0 beyond it."""


def cropped(scene: Scene, box: tuple[int, int, int, int], inside: float = 0.0) -> Cut:
    """``scene``'s picture and reference cropped to ``box`` (x0, y0, x1, y1), its gates cropped with them."""
    x0, y0, x1, y1 = box
    width, height = x1 - x0, y1 - y0

    def within(p: tuple[float, float]) -> tuple[float, float]:
        return min(max(p[0] - x0, 0.0), float(width)), min(max(p[1] - y0, 0.0), float(height))

    regions = GateRegions(tuple(GateRegion(g.gate, tuple(within(p) for p in g.polygon)) for g in scene.regions.gates))
    counts = [0] * 6
    for marble in scene.marbles:
        x, y = marble.x - x0, marble.y - y0
        if marble.gate is not None and -0.5 <= x < width - 0.5 and -0.5 <= y < height - 0.5:
            counts[marble.gate - 1] += 1
    return Cut(scene.image[y0:y1, x0:x1], scene.reference[y0:y1, x0:x1], regions, tuple(counts), inside)


def cut_at(scene: Scene, marble: SceneMarble, side: str, inside: float) -> Cut:
    """``scene`` cropped on ``side`` ("top", "bottom", "left" or "right") so that the picture's new edge lies
    ``inside`` radii inside ``marble``'s centre (below 0: beyond it)."""
    h, w = scene.image.shape[:2]
    x0, y0, x1, y1 = 0, 0, w, h
    if side == "top":
        y0 = int(round(marble.y - inside * marble.r))
    elif side == "bottom":
        y1 = int(round(marble.y + inside * marble.r)) + 1
    elif side == "left":
        x0 = int(round(marble.x - inside * marble.r))
    else:
        x1 = int(round(marble.x + inside * marble.r)) + 1
    return cropped(scene, (max(0, x0), max(0, y0), x1, y1), inside)


SIDES = ("top", "bottom", "left", "right")


def cut_by_edge(scene: Scene, seed: int) -> Cut | None:
    """``scene`` cropped on one side (from ``seed``) so that the picture's new edge cuts a marble in a gate (also
    from ``seed``) between a radius beyond its centre and a radius inside it (``cut_at``). None for a scene
    without a marble in a gate."""
    held = [m for m in scene.marbles if m.gate is not None]
    if not held:
        return None
    rng = np.random.default_rng([seed, 7])
    marble = held[int(rng.integers(len(held)))]
    side = SIDES[int(rng.integers(4))]
    return cut_at(scene, marble, side, float(rng.uniform(-1.0, 1.0)))

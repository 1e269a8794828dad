"""Seeded synthetic scenes of the castle's gate area, with ground truth, for marble vision tests.

A scene is a top-down-ish camera view of a textured board with six gate regions in a row (printed
gate symbols, coloured mats, castle walls between gates), seen through a mild perspective, under
changing light, with marbles of every kind (clear glass, tinted glass, cat's-eye, opaque), their
glare highlights, shadows and caustics, touching marbles, and misses (marbles outside every
region). Each scene comes with an empty reference image of the same board (same camera, no
marbles) whose light differs slightly, and ground truth: counts per gate, outside count, regions.

Hard cases (``make_scene(seed, case=...)``, see ``CASES``): faint translucent glass of a colour
close to the board's, touching pairs and small clusters, marbles still rolling (motion blur along
their path), static clutter on the table (a roll of tape, a cup; in the reference too), clear
and cat's-eye glass only, and "glass": clear, tinted and faint glass traced as spheres
(tests/glass.py: refraction, Fresnel glare, a room's light and sometimes a window's, and in half
the scenes a lamp's sharp glare, shadows and caustics, in the others soft light), half of the
scenes in touching pairs and clusters; "streak": that traced glass, on a pale table half the time, about
half of it still rolling fast, smeared ``STREAK_RADII`` along its path while the shutter was open (what
a real camera shows of a marble that has not come to rest: a faint streak, no outline, no sharp glare);
"table": no castle, the six gates a 3 x 2 grid over a plain table (the layout of a set of real photographs: glass
marbles anywhere on it, a marble by a line between gates as likely as anywhere else, its gate the one its centre
lies in), 2 to 8 marbles, painted (clear, tinted, cat's-eye; a few still rolling) or, in half the scenes, traced glass.
Without ``case`` a
scene is exactly what it always was.

Everything is derived from ``seed`` (and ``case``) alone (numpy PCG64), so a seed always gives the
same scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Iterator

import cv2
import numpy as np

from hardware.vision.regions import GateRegion, GateRegions
from tests import glass

KINDS = ("clear", "tinted", "catseye", "opaque")
"""Marble kinds of the ordinary scenes."""

CASES = ("faint", "touching", "blur", "clutter", "clear", "glass", "streak", "table")
"""Hard cases: ``make_scene(seed, case=name)``."""

FAINT_TINTS = {  # BGR transmission of translucent glass: red, orange, pale blue
    "red": ((0.30, 0.55), (0.30, 0.55), (0.95, 1.0)),
    "orange": ((0.25, 0.45), (0.60, 0.80), (0.95, 1.0)),
    "pale blue": ((0.95, 1.0), (0.85, 0.95), (0.70, 0.85)),
}
"""Channel ranges of each faint glass tint; a faint scene's board often has the same hue."""

# Seeds. Every threshold and weight of hardware/vision was chosen on TRAINING_SEEDS only (tuning,
# tests/vision_fit.py). HELD_OUT_SEEDS are never used for tuning or fitting: only to measure (the
# accuracy tests, the figures reported). tests/test_vision_hard.py checks the two never overlap.
TRAINING_SEEDS: tuple[range, ...] = (range(0, 3000), range(40000, 48000), range(50000, 70000))
"""Ordinary scenes 0..2999 and 40000..47999; hard cases (every case) 50000..69999."""

HELD_OUT_SEEDS: tuple[range, ...] = (range(5000, 5300), range(9000, 9300), range(12000, 12300),
                                     range(15000, 15300), range(20000, 20600), range(30000, 32000),
                                     range(70000, 73000))
"""Ordinary scenes 5000.., 9000.., 12000.., 15000.., 20000.., 30000..; hard cases 70000..72999."""


def seeds(ranges: tuple[range, ...]) -> list[int]:
    """The seeds of ``ranges`` as one list."""
    return [s for r in ranges for s in r]


@dataclass(frozen=True)
class SceneMarble:
    """Ground truth for one marble: centre and radius in image pixels, kind, gate (None = outside);
    ``blur``: length in pixels of its motion blur (0 when at rest)."""

    x: float
    y: float
    r: float
    kind: str
    gate: int | None
    blur: float = 0.0


@dataclass(frozen=True)
class Scene:
    """One synthetic scene: the frame, its empty reference and the ground truth."""

    seed: int
    image: np.ndarray
    reference: np.ndarray
    regions: GateRegions
    counts: tuple[int, int, int, int, int, int]
    outside: int
    marbles: tuple[SceneMarble, ...]
    marble_radius_px: float
    case: str | None = None
    retakes: tuple[np.ndarray, ...] = ()
    """More frames of the same resting scene, each with the camera's own fresh noise (``make_scene``'s
    ``retakes``): what a camera gives when it is asked for a few frames in a row."""


# --------------------------------------------------------------------------- board

@lru_cache(maxsize=4)
def _pixel_grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every pixel of an h x w image (float32, read-only: shared by every scene)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    yy.flags.writeable = xx.flags.writeable = False
    return yy, xx


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Smooth random field in [-1, 1] with about ``cells`` bumps along the long side."""
    cw = max(2, cells)
    ch = max(2, int(round(cells * h / w)))
    grid = rng.uniform(-1.0, 1.0, (ch, cw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _per_channel(field: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """(h, w, 3): the 2-D ``field`` times each channel's gain (as numpy's broadcast gives it, several
    times faster)."""
    return cv2.merge([field * g for g in gains])


def _random_colour(rng: np.random.Generator, sat: tuple[float, float], val: tuple[float, float]) -> np.ndarray:
    """A BGR colour in [0, 1] from random hue and the given saturation/value ranges."""
    hsv = np.uint8([[[rng.integers(0, 180), int(255 * rng.uniform(*sat)), int(255 * rng.uniform(*val))]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32) / 255.0


def _symbol(img: np.ndarray, rng: np.random.Generator, cx: float, cy: float, size: float,
            colour: tuple[int, int, int]) -> None:
    """Draw one printed symbol (star, disc, ring, triangle, diamond, moon, cross, heart)."""
    kind = rng.choice(["star", "disc", "ring", "triangle", "diamond", "moon", "cross", "heart"])
    rot = rng.uniform(0, 2 * math.pi)
    s = size

    def poly(points: list[tuple[float, float]]) -> np.ndarray:
        c, si = math.cos(rot), math.sin(rot)
        return np.int32([[cx + x * c - y * si, cy + x * si + y * c] for x, y in points]).reshape(-1, 1, 2)

    if kind == "star":
        pts = [((s if i % 2 == 0 else s * 0.45) * math.cos(i * math.pi / 5),
                (s if i % 2 == 0 else s * 0.45) * math.sin(i * math.pi / 5)) for i in range(10)]
        cv2.fillPoly(img, [poly(pts)], colour, cv2.LINE_AA)
    elif kind == "disc":
        cv2.circle(img, (int(cx), int(cy)), int(s * 0.8), colour, -1, cv2.LINE_AA)
    elif kind == "ring":
        cv2.circle(img, (int(cx), int(cy)), int(s * 0.8), colour, max(2, int(s * 0.2)), cv2.LINE_AA)
    elif kind == "triangle":
        pts = [(s * math.cos(a), s * math.sin(a)) for a in (0, 2 * math.pi / 3, 4 * math.pi / 3)]
        cv2.fillPoly(img, [poly(pts)], colour, cv2.LINE_AA)
    elif kind == "diamond":
        cv2.fillPoly(img, [poly([(s, 0), (0, s * 0.6), (-s, 0), (0, -s * 0.6)])], colour, cv2.LINE_AA)
    elif kind == "moon":
        cv2.circle(img, (int(cx), int(cy)), int(s * 0.8), colour, -1, cv2.LINE_AA)
        off = poly([(s * 0.4, 0)])[0, 0]
        bg = tuple(int(v) for v in img[int(min(max(cy - s, 0), img.shape[0] - 1)),
                                       int(min(max(cx - s, 0), img.shape[1] - 1))])
        cv2.circle(img, (int(off[0]), int(off[1])), int(s * 0.7), bg, -1, cv2.LINE_AA)
    elif kind == "cross":
        t = s * 0.25
        cv2.fillPoly(img, [poly([(-s, -t), (s, -t), (s, t), (-s, t)])], colour, cv2.LINE_AA)
        cv2.fillPoly(img, [poly([(-t, -s), (t, -s), (t, s), (-t, s)])], colour, cv2.LINE_AA)
    else:  # heart
        cv2.circle(img, tuple(poly([(-s * 0.3, -s * 0.25)])[0, 0]), int(s * 0.4), colour, -1, cv2.LINE_AA)
        cv2.circle(img, tuple(poly([(s * 0.3, -s * 0.25)])[0, 0]), int(s * 0.4), colour, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [poly([(-s * 0.68, -s * 0.1), (s * 0.68, -s * 0.1), (0, s * 0.75)])], colour, cv2.LINE_AA)


def _board(rng: np.random.Generator, w: int, h: int, rects: list[tuple[float, float, float, float]],
           r: float, base: np.ndarray | None = None, table: bool = False) -> np.ndarray:
    """Canonical (top-down) board texture as uint8 BGR, with mats, walls and symbols; ``base`` is
    the board's colour (BGR in [0, 1]; random when None); ``table``: a table's top, no castle (its texture and
    scattered print only)."""
    drawn = _random_colour(rng, (0.05, 0.6), (0.35, 0.85))
    matched = base is not None  # a board matched to the glass: no coloured mats over it
    base = drawn if base is None else base
    board = _per_channel(1.0 + 0.12 * _smooth_noise(rng, h, w, 5), base)
    style = rng.choice(["wood", "felt", "bricks", "plain"])
    yy, xx = _pixel_grid(h, w)
    if style == "wood":
        warp = _smooth_noise(rng, h, w, 8) * 12
        board *= (1.0 + 0.07 * np.sin((yy + warp) * rng.uniform(0.15, 0.4)))[..., None]
    elif style == "felt":
        fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.0)
        board *= (1.0 + 0.05 * fine)[..., None]
    board = np.clip(board * 255, 0, 255).astype(np.uint8)
    if style == "bricks":
        line = tuple(int(v * 0.7) for v in board[h // 2, w // 2])
        bh = int(rng.uniform(2.0, 4.0) * r)
        for row, y in enumerate(range(0, h, bh)):
            cv2.line(board, (0, y), (w, y), line, 2, cv2.LINE_AA)
            for x in range((row % 2) * bh, w, 2 * bh):
                cv2.line(board, (x, y), (x, y + bh), line, 2, cv2.LINE_AA)
    # printed distractors scattered over the board (also near the gates)
    for _ in range(int(rng.integers(2, 9))):
        col = tuple(int(v) for v in (_random_colour(rng, (0.2, 1.0), (0.1, 0.95)) * 255))
        _symbol(board, rng, rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.5, 1.6) * r, col)
    if table:
        return board
    mats = rng.random() < 0.5 and not matched
    y0 = min(rc[1] for rc in rects)
    for i, (x0, ry0, x1, ry1) in enumerate(rects):
        if mats:
            col = tuple(int(v) for v in (_random_colour(rng, (0.1, 0.7), (0.3, 0.9)) * 255))
            cv2.rectangle(board, (int(x0), int(ry0)), (int(x1), int(ry1)), col, -1, cv2.LINE_AA)
        if i < len(rects) - 1:  # castle wall stub between gates, behind the row
            nx0 = rects[i + 1][0]
            wall = tuple(int(v) for v in (_random_colour(rng, (0.0, 0.3), (0.2, 0.7)) * 255))
            cv2.rectangle(board, (int(x1 + 1), int(y0 - 4 * r)), (int(nx0 - 1), int(y0 + 1.5 * r)), wall, -1)
        # printed gate symbol inside the region, where marbles rest
        col = tuple(int(v) for v in (_random_colour(rng, (0.4, 1.0), (0.15, 0.95)) * 255))
        _symbol(board, rng, rng.uniform(x0 + 0.3 * (x1 - x0), x0 + 0.7 * (x1 - x0)),
                rng.uniform(ry0 + 0.25 * (ry1 - ry0), ry0 + 0.75 * (ry1 - ry0)), rng.uniform(1.0, 2.2) * r, col)
    # the castle front behind the gate row
    castle = tuple(int(v) for v in (_random_colour(rng, (0.0, 0.4), (0.15, 0.6)) * 255))
    cv2.rectangle(board, (0, 0), (w, int(y0 - 4 * r)), castle, -1)
    return board


def _clutter(board: np.ndarray, rng: np.random.Generator, rects: list[tuple[float, float, float, float]],
             r: float) -> list[tuple[float, float, float]]:
    """Draw one or two static objects on the table near the gate row (a roll of tape: a ring with
    a hole the size of a few marbles; a cup: a disc with a bright rim), each with its soft shadow
    and glossy glints. Returns their canonical discs (x, y, radius), where no marble can rest."""
    h, w = board.shape[:2]
    row_x0, row_x1 = rects[0][0], rects[-1][2]
    ry0, ry1 = min(rc[1] for rc in rects), max(rc[3] for rc in rects)
    discs: list[tuple[float, float, float]] = []
    for _ in range(int(rng.integers(1, 3))):
        kind = rng.choice(["tape", "cup"])
        outer = rng.uniform(2.2, 3.2) * r if kind == "tape" else rng.uniform(2.5, 3.5) * r
        for _attempt in range(20):
            cx, cy = rng.uniform(row_x0, row_x1), rng.uniform(ry0 + 0.5 * (ry1 - ry0), ry1 + 3.0 * r)
            if all(math.hypot(cx - x, cy - y) > outer + o + r for x, y, o in discs):
                break
        centre = (int(cx), int(cy))
        sx, sy = rng.uniform(-0.4, 0.4, 2) * outer
        shade = board.copy()
        cv2.circle(shade, (int(cx + sx), int(cy + sy)), int(outer * 1.05), (0, 0, 0), -1, cv2.LINE_AA)
        shade = cv2.GaussianBlur(shade, (0, 0), 0.3 * outer)
        cv2.addWeighted(board, 0.7, shade, 0.3, 0.0, board)
        col = tuple(int(v) for v in (_random_colour(rng, (0.0, 0.8), (0.2, 0.95)) * 255))
        light = tuple(min(255, int(v * 1.3 + 30)) for v in col)
        dark = tuple(int(v * 0.6) for v in col)
        if kind == "tape":
            hole = outer * rng.uniform(0.55, 0.72)
            ring = outer - hole
            cv2.circle(board, centre, int(outer - ring / 2), col, max(2, int(ring)), cv2.LINE_AA)
            cv2.circle(board, centre, int(outer), dark, 2, cv2.LINE_AA)
            cv2.circle(board, centre, int(hole), light, 2, cv2.LINE_AA)
            glint_r = outer - ring / 2
        else:
            cv2.circle(board, centre, int(outer), col, -1, cv2.LINE_AA)
            inside = tuple(int(v) for v in (_random_colour(rng, (0.0, 0.9), (0.05, 0.5)) * 255))
            cv2.circle(board, centre, int(outer * 0.82), inside, -1, cv2.LINE_AA)
            cv2.circle(board, centre, int(outer * 0.91), light, max(2, int(0.08 * outer)), cv2.LINE_AA)
            glint_r = outer * 0.91
        for _g in range(int(rng.integers(1, 4))):  # glossy glints, small and bright like a marble's
            a = rng.uniform(0, 2 * math.pi)
            gx, gy = cx + glint_r * math.cos(a), cy + glint_r * math.sin(a)
            cv2.circle(board, (int(gx), int(gy)), max(1, int(rng.uniform(0.12, 0.3) * r)), (250, 250, 250), -1,
                       cv2.LINE_AA)
        discs.append((cx, cy, outer))
    return discs


def _illumination(rng: np.random.Generator, h: int, w: int, gain: np.ndarray, ripple: float) -> np.ndarray:
    """Light field (h, w, 3): per-channel gain times a smooth gradient and vignette."""
    yy, xx = _pixel_grid(h, w)
    gx, gy = rng.uniform(-0.25, 0.25, 2)
    field = 1.0 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    field *= 1.0 - rng.uniform(0.0, 0.25) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    field *= 1.0 + ripple * _smooth_noise(rng, h, w, 3)
    return _per_channel(field, gain)


# --------------------------------------------------------------------------- marbles

def _shadow(img: np.ndarray, cx: float, cy: float, R: float, light: tuple[float, float, float],
            kind: str, rng: np.random.Generator) -> None:
    """Darken the board under and beside a marble (soft ellipse); glass adds a caustic."""
    lx, ly, lz = light
    horiz = math.hypot(lx, ly) + 1e-9
    dx, dy = -lx / horiz, -ly / horiz
    length = min(2.0, horiz / max(lz, 0.2))
    ox, oy = cx + dx * R * 0.6 * length, cy + dy * R * 0.6 * length
    a, b = R * (1.0 + 0.5 * length), R * 0.95
    pad = int(a * 2 + 3)
    x0, y0 = max(0, int(ox) - pad), max(0, int(oy) - pad)
    x1, y1 = min(img.shape[1], int(ox) + pad), min(img.shape[0], int(oy) + pad)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    px, py = xx - ox, yy - oy
    along, perp = px * dx + py * dy, -px * dy + py * dx
    q = np.sqrt((along / a) ** 2 + (perp / b) ** 2)
    soft = rng.uniform(5.0, 12.0)
    mask = 1.0 / (1.0 + np.exp((q - 1.0) * soft))
    dark = rng.uniform(0.12, 0.35) if kind != "opaque" else rng.uniform(0.3, 0.6)
    patch = img[y0:y1, x0:x1]
    patch *= (1.0 - dark * mask)[..., None]
    if kind != "opaque":
        cxs, cys = cx + dx * R * 0.9 * length, cy + dy * R * 0.9 * length
        caustic = np.exp(-((xx - cxs) ** 2 + (yy - cys) ** 2) / (2 * (0.25 * R) ** 2))
        patch *= (1.0 + rng.uniform(0.2, 0.9) * caustic)[..., None]


def _marble(img: np.ndarray, cx: float, cy: float, R: float, kind: str, light: tuple[float, float, float],
            illum: np.ndarray, rng: np.random.Generator, tint_name: str = "red") -> None:
    """Paint one marble (sphere shading, refraction, rim, vanes, glare) onto ``img`` in place;
    a "faint" marble is translucent glass of ``FAINT_TINTS[tint_name]`` with a weak rim and glare."""
    pad = int(R + 2)
    x0, y0 = max(0, int(cx) - pad), max(0, int(cy) - pad)
    x1, y1 = min(img.shape[1], int(cx) + pad + 2), min(img.shape[0], int(cy) + pad + 2)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    u, v = (xx - cx) / R, (yy - cy) / R
    rho = np.sqrt(u * u + v * v)
    alpha = np.clip((1.0 - rho) * R + 0.5, 0.0, 1.0)[..., None]
    rr = np.minimum(rho, 1.0)
    nz = np.sqrt(np.maximum(0.0, 1.0 - rr * rr))
    lx, ly, lz = light
    lam = np.maximum(0.0, u * lx + v * ly + nz * lz)
    local = illum[int(min(cy, img.shape[0] - 1)), int(min(cx, img.shape[1] - 1))]
    patch = img[y0:y1, x0:x1]
    if kind == "opaque":
        base = _random_colour(rng, (0.0, 1.0), (0.08, 1.0))
        body = np.broadcast_to(base, patch.shape).copy()
        if rng.random() < 0.5:
            second = _random_colour(rng, (0.2, 1.0), (0.1, 1.0))
            swirl = np.sin(rng.integers(2, 6) * np.arctan2(v, u) + 7 * rho + rng.uniform(0, 6)) > 0.3
            body[swirl] = second
        body *= (0.3 + 0.7 * lam)[..., None] * local
    else:
        k = rng.uniform(0.35, 0.75)
        mapx = (cx - k * (xx - cx)).astype(np.float32)
        mapy = (cy - k * (yy - cy)).astype(np.float32)
        refr = cv2.remap(img, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if kind == "tinted":
            tint = _random_colour(rng, (0.45, 1.0), (0.55, 1.0))
        elif kind == "faint":
            tint = np.float32([rng.uniform(*band) for band in FAINT_TINTS[tint_name]])
        else:
            tint = np.float32([1.0, 1.0, 1.0]) - np.float32(rng.uniform(0.0, 0.12, 3))
        mean_bg = patch.reshape(-1, 3).mean(axis=0)
        body = tint * (0.7 * refr + 0.3 * mean_bg) * rng.uniform(0.95, 1.35)
        rim = rng.uniform(0.25, 0.7) if kind != "faint" else rng.uniform(0.08, 0.3)
        body *= (1.0 - rim * np.clip((rho - 0.6) / 0.4, 0.0, 1.0) ** 2)[..., None]
        if kind == "catseye":
            n_vanes = int(rng.integers(1, 4))
            a0, bend = rng.uniform(0, math.pi), rng.uniform(-0.8, 0.8)
            for i in range(n_vanes):
                col = _random_colour(rng, (0.5, 1.0), (0.3, 1.0))
                ang = a0 + i * math.pi / n_vanes + bend * rho
                dist = np.abs(-u * np.sin(ang) + v * np.cos(ang))
                vane = (dist < 0.2 * (1.0 - rho ** 2)) & (rho < 0.85)
                body[vane] = (col * (0.5 + 0.5 * lam[vane])[:, None] * local)
    # glare: specular highlight toward the light, sometimes a second reflection (window)
    hx, hy = 0.5 * lx, 0.5 * ly
    sig = rng.uniform(0.07, 0.16)
    spec = np.exp(-((u - hx) ** 2 + (v - hy) ** 2) / (2 * sig * sig)) * rng.uniform(0.5, 1.2)
    if kind == "faint":
        spec *= rng.uniform(0.4, 0.8)
    if rng.random() < 0.4:
        a = rng.uniform(0, 2 * math.pi)
        spec += np.exp(-((u - 0.55 * math.cos(a)) ** 2 + (v - 0.55 * math.sin(a)) ** 2) / 0.004) * 0.6
    body = body + (spec * (rho < 1.0))[..., None]
    patch[:] = patch * (1.0 - alpha) + body * alpha


# --------------------------------------------------------------------------- scene

def _homography(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Canonical board (0..w, 0..h) -> image: mild tilt, rotation, zoom and shift."""
    m = rng.uniform(0.0, 0.08, 4) * np.float32([w, h, w, h])
    tilt = rng.uniform(0.0, 0.12) * w
    dst = np.float32([[-m[0] + tilt, -m[1]], [w + m[2] - tilt, -m[1]], [w + m[2], h + m[3]], [-m[0], h + m[3]]])
    dst += rng.uniform(-0.02, 0.02, (4, 2)).astype(np.float32) * np.float32([w, h])
    ang = math.radians(rng.uniform(-5, 5))
    c, s = math.cos(ang), math.sin(ang)
    centre = np.float32([w / 2, h / 2])
    dst = (dst - centre) @ np.float32([[c, s], [-s, c]]) + centre
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def _project(H: np.ndarray, x: float, y: float) -> tuple[float, float]:
    p = H @ np.array([x, y, 1.0])
    return float(p[0] / p[2]), float(p[1] / p[2])


def _local_scale(H: np.ndarray, x: float, y: float) -> float:
    """Linear scale of the homography at canonical point (x, y)."""
    p0, px, py = _project(H, x, y), _project(H, x + 1, y), _project(H, x, y + 1)
    jac = abs((px[0] - p0[0]) * (py[1] - p0[1]) - (px[1] - p0[1]) * (py[0] - p0[0]))
    return math.sqrt(jac)


def _camera(img: np.ndarray, rng: np.random.Generator, blur: float, noise: float, quality: int) -> np.ndarray:
    """Blur, sensor noise and JPEG compression; float [0,1] in, uint8 BGR out."""
    out = img * 255.0
    if blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    grain = rng.standard_normal(out.shape)  # rng.normal(0, noise) as it draws it: noise times these
    grain *= noise
    out += grain.astype(np.float32)
    np.clip(out, 0, 255, out=out)
    out = out.astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _place_marbles(rng: np.random.Generator, rects: list[tuple[float, float, float, float]], r: float,
                   w: int, h: int, H: np.ndarray, touching: bool = False,
                   blocked: list[tuple[float, float, float]] = ()) -> list[tuple[float, float, int | None]]:
    """Canonical marble centres with their gate (None = outside), non-overlapping, some touching,
    each wholly in view once projected by ``H`` (a marble the camera cannot see has no truth).
    ``touching``: 2..5 marbles, nearly all in touching pairs and clusters (gaps under a pixel or
    two); ``blocked``: discs (x, y, radius) of objects no marble overlaps."""
    if touching:
        n = int(rng.choice([2, 3, 4, 5], p=[0.3, 0.3, 0.25, 0.15]))
    else:
        n = int(rng.choice([0, 1, 2, 3, 4, 5], p=[0.08, 0.22, 0.27, 0.33, 0.06, 0.04]))
    p_touch, gap = (0.85, (0.05, 0.6)) if touching else (0.4, (0.3, 1.2))
    placed: list[tuple[float, float, int | None]] = []
    margin = 0.45 * r  # centres stay clear of region edges so the truth is unambiguous
    row_x0, row_y0 = rects[0][0], min(rc[1] for rc in rects)
    row_x1, row_y1 = rects[-1][2], max(rc[3] for rc in rects)

    def gate_of(x: float, y: float) -> int | None | str:
        for i, (x0, y0, x1, y1) in enumerate(rects):
            if x0 + margin <= x <= x1 - margin and y0 + margin <= y <= y1 - margin:
                return i + 1
            if x0 - margin <= x <= x1 + margin and y0 - margin <= y <= y1 + margin:
                return "edge"
        return None

    def free(x: float, y: float) -> bool:
        return all((x - px) ** 2 + (y - py) ** 2 >= (2 * r + gap[0]) ** 2 for px, py, _ in placed) \
            and all(math.hypot(x - bx, y - by) >= br + r + 1.0 for bx, by, br in blocked)

    for _ in range(n):
        for _attempt in range(60):
            if placed and rng.random() < p_touch:  # touching an existing marble
                bx, by, _ = placed[int(rng.integers(len(placed)))]
                a = rng.uniform(0, 2 * math.pi)
                d = 2 * r + rng.uniform(*gap)
                x, y = bx + d * math.cos(a), by + d * math.sin(a)
            elif rng.random() < 0.15:  # a miss: in front of the row or beside it
                x = rng.uniform(row_x0 - 3 * r, row_x1 + 3 * r)
                y = rng.uniform(row_y1 + 1.2 * r, row_y1 + 4 * r)
            else:
                x0, y0, x1, y1 = rects[int(rng.integers(len(rects)))]
                x, y = rng.uniform(x0 + r, x1 - r), rng.uniform(y0 + r, y1 - r)
            if not (2 * r < x < w - 2 * r and row_y0 - 3 * r < y < h - 2 * r):
                continue
            ix, iy = _project(H, x, y)
            if not (2 * r < ix < w - 2 * r and 2 * r < iy < h - 2 * r):
                continue
            g = gate_of(x, y)
            if g == "edge" or not free(x, y):
                continue
            if g is None and y < row_y1:  # nothing rests behind/between the gates
                continue
            placed.append((x, y, g))  # type: ignore[arg-type]
            break
    return placed


TABLE_KINDS = ("clear", "tinted", "catseye")
"""Marble kinds of the table case's painted scenes: glass, clear, coloured and cat's-eye."""


def _table_grid(rng: np.random.Generator, w: int, h: int, r: float) -> list[tuple[float, float, float, float]]:
    """The table case's six gates (canonical rectangles, gate 1 top left, row by row): a 3 x 2 grid over the picture,
    2.5 to 4 marble radii in from its edges."""
    m = rng.uniform(2.5, 4.0) * r
    xs, ys = np.linspace(m, w - m, 4).tolist(), np.linspace(m, h - m, 3).tolist()
    return [(xs[c], ys[row], xs[c + 1], ys[row + 1]) for row in range(2) for c in range(3)]


def _place_on_table(rng: np.random.Generator, rects: list[tuple[float, float, float, float]], r: float,
                    w: int, h: int, H: np.ndarray) -> list[tuple[float, float]]:
    """Canonical centres of 2 to 8 marbles anywhere over the table case's grid and up to 1.5 radii beyond it,
    non-overlapping, some touching, each wholly in view once projected by ``H``."""
    x0, y0, x1, y1 = rects[0][0], rects[0][1], rects[-1][2], rects[-1][3]
    placed: list[tuple[float, float]] = []
    for _ in range(int(rng.integers(2, 9))):
        for _attempt in range(60):
            if placed and rng.random() < 0.3:  # touching an existing marble
                bx, by = placed[int(rng.integers(len(placed)))]
                a, d = rng.uniform(0, 2 * math.pi), 2 * r + rng.uniform(0.3, 1.2)
                x, y = bx + d * math.cos(a), by + d * math.sin(a)
            else:
                x, y = rng.uniform(x0 - 1.5 * r, x1 + 1.5 * r), rng.uniform(y0 - 1.5 * r, y1 + 1.5 * r)
            ix, iy = _project(H, x, y)
            if not (2 * r < ix < w - 2 * r and 2 * r < iy < h - 2 * r):
                continue
            if all((x - px) ** 2 + (y - py) ** 2 >= (2 * r + 0.3) ** 2 for px, py in placed):
                placed.append((x, y))
                break
    return placed


def _rolling_marble(scene: np.ndarray, m: SceneMarble, light: tuple[float, float, float], illum: np.ndarray,
                    rng: np.random.Generator, tint_name: str, on: float = 0.0) -> None:
    """Paint marble ``m`` (with its shadow) still rolling, in a direction drawn from ``rng``: the mean of the
    marble drawn at 9 points of a path ``m.blur`` pixels long through its centre (its resting place is the
    path's middle), or ``on`` radii further along its way."""
    angle = rng.uniform(0, 2 * math.pi)
    dx, dy = math.cos(angle), math.sin(angle)
    m = replace(m, x=m.x + on * m.r * dx, y=m.y + on * m.r * dy)
    pad = int(2.5 * m.r + m.blur) + 3
    h, w = scene.shape[:2]
    x0, y0, x1, y1 = max(0, int(m.x) - pad), max(0, int(m.y) - pad), min(w, int(m.x) + pad), min(h, int(m.y) + pad)
    base = scene[y0:y1, x0:x1].copy()
    acc = np.zeros_like(base)
    state = rng.bit_generator.state
    steps = np.linspace(-0.5, 0.5, 9)
    for t in steps:
        rng.bit_generator.state = state  # the same marble at every point of its path
        work = base.copy()
        cx, cy = m.x - x0 + t * m.blur * dx, m.y - y0 + t * m.blur * dy
        _shadow(work, cx, cy, m.r, light, m.kind, rng)
        _marble(work, cx, cy, m.r, m.kind, light, illum[y0:y1, x0:x1], rng, tint_name)
        acc += work
    scene[y0:y1, x0:x1] = acc / len(steps)


GLASS_KINDS = ("clear", "tinted", "faint")
"""Marble kinds of the traced glass case: clear, strongly tinted, and faint translucent glass."""


STREAK_RADII = (1.0, 2.5)
"""How far (marble radii) a marble of the streak case still rolling moves while the shutter is open."""

STREAK_STEP = 0.25
"""Spacing (marble radii) of the places along its path at which a rolling traced marble is drawn."""


def _traced(scene: np.ndarray, marbles: list[SceneMarble], light: tuple[float, float, float],
            illum: np.ndarray, rng: np.random.Generator, rolled: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``scene`` with ``marbles`` traced as glass spheres (tests/glass.py) in a room lit toward
    ``light`` by a lamp or, in half the scenes, by a soft light (a window, a large shade: no sharp
    glare, soft shadows); their shadows and caustics first, then each marble seeing the lit table. A
    marble with a ``blur`` is still rolling, in a direction drawn from ``rng``: the picture is the mean
    of the scene with it at places ``STREAK_STEP`` radii apart along a path that long through its
    centre (its resting place is the path's middle). Returns that picture and the one a moment later,
    each rolling marble ``rolled`` radii further along its way (the same picture when none rolls on)."""
    az = rng.uniform(0, 2 * math.pi)
    el = math.radians(rng.uniform(10, 40))
    window = (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)) if rng.random() < 0.4 else None
    if rng.random() < 0.5:  # soft light (a window, a large shade): the room gives most of it
        lamp_size, ambient = rng.uniform(0.25, 0.6), rng.uniform(0.75, 0.95)
    else:  # a lamp
        lamp_size, ambient = rng.uniform(0.04, 0.15), rng.uniform(0.4, 0.9)
    room = glass.Room(light, lamp_size=float(lamp_size), ambient=float(ambient),
                      window=window, window_size=float(rng.uniform(0.15, 0.4)),
                      window_level=float(rng.uniform(2.0, 5.0)))
    kinds = []
    for m in marbles:
        if m.kind == "clear":
            tr = 1.0 - rng.uniform(0.0, 0.1, 3)
        elif m.kind == "faint":
            tr = [rng.uniform(*band) for band in FAINT_TINTS[str(rng.choice(sorted(FAINT_TINTS)))]]
        else:
            tr = _random_colour(rng, (0.5, 1.0), (0.8, 1.0))
        kinds.append(glass.Glass(tuple(float(t) for t in tr)))  # type: ignore[arg-type]
    h, w = scene.shape[:2]

    def at(places: list[tuple[float, float]]) -> np.ndarray:
        light_map, sky_map = np.ones_like(scene), np.ones_like(scene)
        for (x, y), m, g in zip(places, marbles, kinds):
            glass.shade_table(light_map, sky_map, x, y, m.r, g, room)
        table = scene * (room.ambient * sky_map + (1.0 - room.ambient) * light_map)
        out = table.copy()
        for (x, y), m, g in zip(places, marbles, kinds):
            level = illum[min(h - 1, max(0, int(y + 0.5))), min(w - 1, max(0, int(x + 0.5)))]  # its centre's pixel
            glass.trace_marble(out, table, x, y, m.r, g, room, level)
        return out

    ways = []  # each marble's path while the shutter was open
    for m in marbles:
        a = rng.uniform(0, 2 * math.pi) if m.blur else 0.0
        ways.append((m.blur * math.cos(a), m.blur * math.sin(a)))
    steps = max([1] + [1 + math.ceil(m.blur / (STREAK_STEP * m.r)) for m in marbles if m.blur])
    if steps == 1:  # every marble at rest
        picture = at([(m.x, m.y) for m in marbles])
        return picture, picture

    def smeared(on: float) -> np.ndarray:
        """The mean over the shutter's time, each rolling marble ``on`` radii further along its way."""
        ahead = [(on * m.r * dx / m.blur, on * m.r * dy / m.blur) if m.blur else (0.0, 0.0)
                 for m, (dx, dy) in zip(marbles, ways)]
        return np.mean([at([(m.x + t * dx + ax, m.y + t * dy + ay) for m, (dx, dy), (ax, ay) in
                            zip(marbles, ways, ahead)]) for t in np.linspace(-0.5, 0.5, steps)], axis=0)

    picture = smeared(0.0)
    return picture, smeared(rolled) if rolled else picture


@dataclass(frozen=True)
class _Lit:
    """A scene's light as it reaches the camera, before the camera's blur, noise and JPEG (``make_scene``)."""

    scene: np.ndarray
    later: np.ndarray  # the light of the retakes (each rolling marble further on)
    reference: np.ndarray
    regions: GateRegions
    marbles: tuple[SceneMarble, ...]
    mean_r: float
    rng_state: dict  # the scene's generator where the camera takes over


@lru_cache(maxsize=12)
def _lit(seed: int, size: tuple[int, int], case: str | None, rolled: float) -> _Lit:
    """The light of scene ``seed`` (``make_scene``), kept for the few scenes lit again soon after (the same scene
    under a shade, a flickering lamp, more noise: ``optics``), its arrays read-only."""
    rng = np.random.default_rng(seed if case is None else [seed, CASES.index(case) + 1])
    w, h = size
    k = w / 640.0
    r = rng.uniform(10.0, 15.0) * k  # canonical marble radius
    # six gate regions in a row, walls between them
    row_x0, row_x1 = rng.uniform(0.04, 0.1) * w, rng.uniform(0.9, 0.96) * w
    gap = rng.uniform(0.3, 1.0) * r
    slot = (row_x1 - row_x0 + gap) / 6
    ry0 = rng.uniform(0.28, 0.38) * h
    ry1 = ry0 + rng.uniform(5.5, 8.5) * r
    rects = [(row_x0 + i * slot, ry0, row_x0 + i * slot + slot - gap, ry1) for i in range(6)]
    table = case == "table"
    if table:
        r = rng.uniform(8.0, 15.0) * k
        rects = _table_grid(rng, w, h, r)
        ry0 = rects[0][1]
    tint_name = str(rng.choice(sorted(FAINT_TINTS))) if case == "faint" else "red"
    base = None
    if case == "faint" and rng.random() < 0.6:  # a board of nearly the glass's own colour
        base = np.float32([rng.uniform(*band) for band in FAINT_TINTS[tint_name]]) * np.float32(rng.uniform(0.5, 0.85))
    if case == "streak" and rng.random() < 0.5:  # a pale table, white to light grey
        base = np.float32(rng.uniform(0.8, 0.98) * (1 + rng.uniform(-0.03, 0.03, 3)))
    board = _board(rng, w, h, rects, r, base, table=table)
    blocked = _clutter(board, rng, rects, r) if case == "clutter" else []
    board = board.astype(np.float32) / 255.0
    H = _homography(rng, w, h)
    view = cv2.warpPerspective(board, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    regions = GateRegions(tuple(
        GateRegion(i + 1, tuple(_project(H, x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))))
        for i, (x0, y0, x1, y1) in enumerate(rects)))
    # light: reference and scene differ a little (exposure, colour, gradient)
    gain = np.float32(rng.uniform(0.75, 1.2) * (1 + rng.uniform(-0.06, 0.06, 3)))
    ref_illum = _illumination(rng, h, w, gain, 0.04)
    illum = ref_illum.copy()  # same light shape, then a small change on top
    change = np.float32(rng.uniform(0.85, 1.15) * (1 + rng.uniform(-0.04, 0.04, 3)))
    illum *= _per_channel(1 + 0.06 * _smooth_noise(rng, h, w, 3), change)
    board_glare = rng.random() < 0.4
    if board_glare:  # broad specular patch on a glossy board, in both images
        gx, gy, gs = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h, rng.uniform(0.08, 0.2) * w
        yy, xx = _pixel_grid(h, w)
        glare = cv2.merge([rng.uniform(0.1, 0.35) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gs * gs))] * 3)
    ref_img = view * ref_illum + (glare if board_glare else 0.0)
    # a sub-pixel camera nudge between reference and scene
    shift = rng.uniform(-0.5, 0.5, 2) if rng.random() < 0.5 else np.zeros(2)
    M = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    view_s = cv2.warpAffine(view, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    scene = view_s * illum + (glare if board_glare else 0.0)
    # light direction (toward the light), elevation 35..85 degrees
    az, el = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(35, 85))
    light = (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))
    touching = case == "touching" or (case == "glass" and rng.random() < 0.5)
    traced = case in ("glass", "streak") or (table and rng.random() < 0.5)
    if table:
        placed = [(x, y, None) for x, y in _place_on_table(rng, rects, r, w, h, H)]
    else:
        placed = _place_marbles(rng, rects, r, w, h, H, touching=touching, blocked=blocked)
    kinds = GLASS_KINDS if traced else {"faint": ("faint",), "clear": ("clear", "catseye"),
                                        "table": TABLE_KINDS}.get(case or "", KINDS)
    marbles: list[SceneMarble] = []
    for x, y, g in placed:
        ix, iy = _project(H, x, y)
        mr = r * _local_scale(H, x, y)
        blur = mr * rng.uniform(0.4, 1.5) if case == "blur" and rng.random() < 0.8 else 0.0
        if table and not traced and rng.random() < 0.15:
            blur = mr * rng.uniform(0.4, 1.5)
        if case == "streak" and rng.random() < 0.5:
            blur = mr * rng.uniform(*STREAK_RADII)
        # traced glass rests half a pixel up and left of its placement: so it was drawn while the tracer
        # counted pixel i from its corner, and so it stays (every traced scene as before), recorded where drawn
        drawn = -0.5 if case == "glass" else 0.0
        x, y = ix + float(shift[0]) + drawn, iy + float(shift[1]) + drawn
        if table:  # its gate is the one its centre lies in, as a person labels a photograph
            g = regions.gate_at(x, y)
        marbles.append(SceneMarble(x, y, mr, str(rng.choice(kinds)), g, blur))
    traced_later = scene
    if traced:
        scene, traced_later = _traced(scene, marbles, light, illum, rng, rolled)
    else:
        resting = [m for m in marbles if not m.blur]
        for m in resting:
            _shadow(scene, m.x, m.y, m.r, light, m.kind, rng)
        for m in resting:
            _marble(scene, m.x, m.y, m.r, m.kind, light, illum, rng, tint_name)
    rolling = [m for m in marbles if m.blur and not traced]  # painted (the tracer drew its own)
    unrolled, roll_state = scene.copy() if rolled else None, rng.bit_generator.state
    for m in rolling:
        _rolling_marble(scene, m, light, illum, rng, tint_name)
    later = traced_later if traced else scene
    if unrolled is not None and rolling:  # the same draws again, each rolling marble further on its way
        later, replay = unrolled, np.random.default_rng()
        replay.bit_generator.state = roll_state
        for m in rolling:
            _rolling_marble(later, m, light, illum, replay, tint_name, rolled)
    mean_r = float(np.mean([m.r for m in marbles])) if marbles else r * _local_scale(H, w / 2, ry0)
    for light in (scene, later, ref_img):
        light.setflags(write=False)
    return _Lit(scene, later, ref_img, regions, tuple(marbles), mean_r, rng.bit_generator.state)


def make_scene(seed: int, size: tuple[int, int] = (640, 480), case: str | None = None, retakes: int = 0,
               optics: Callable[[np.ndarray], np.ndarray] | None = None, rolled: float = 0.0) -> Scene:
    """Build the scene for ``seed`` at image ``size`` (width, height); ``case``: one of ``CASES``
    (a hard case) or None (an ordinary scene); with ``retakes`` more frames of it (their noise from a
    generator of their own: the scene and its first frame are the same with or without them).
    ``optics``: what happened to the scene's light after the reference was taken (tests/conditions.py: a
    shade, a flickering lamp, a nudge, a soft focus), applied to the light that reaches the sensor (float
    BGR, 1.0 its full scale) before the camera's blur, noise, clipping and JPEG; the reference and the
    truth stay as they were. ``rolled``: in the retakes, each marble still rolling (the blur case's painted
    marbles, the streak case's traced glass) has rolled on this many radii along its way (the truth is the first
    frame's)."""
    if case is not None and case not in CASES:
        raise ValueError(f"unknown scene case {case!r}; one of {', '.join(CASES)}")
    lit = _lit(seed, size, case, rolled)
    rng = np.random.default_rng()
    rng.bit_generator.state = lit.rng_state
    scene, later, marbles = lit.scene, lit.later, lit.marbles
    blur = rng.uniform(0.0, 1.2) if rng.random() < 0.7 else 0.0
    noise = rng.uniform(1.0, 5.0)
    quality = int(rng.integers(50, 96))
    if optics is not None:
        rolled_on = later is not scene
        scene = optics(scene)
        later = optics(later) if rolled_on else scene
    image = _camera(scene, rng, blur, noise, quality)
    reference = _camera(lit.reference, rng, blur, noise, quality)
    again = np.random.default_rng([seed, CASES.index(case) + 1 if case else 0, 1])  # the retakes' own noise
    frames = tuple(_camera(later, again, blur, noise, quality) for _ in range(retakes))
    counts = [0] * 6
    for m in marbles:
        if m.gate is not None:
            counts[m.gate - 1] += 1
    return Scene(seed, image, reference, lit.regions, tuple(counts),  # type: ignore[arg-type]
                 sum(m.gate is None for m in marbles), marbles, lit.mean_r, case, frames)


def make_scenes(n: int, start: int = 0, size: tuple[int, int] = (640, 480),
                case: str | None = None) -> Iterator[Scene]:
    """Scenes for seeds start .. start+n-1 (of hard case ``case``, if given)."""
    for seed in range(start, start + n):
        yield make_scene(seed, size, case)

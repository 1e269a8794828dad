"""Glass marbles traced as spheres: refraction, Fresnel reflection, absorption, shadow and caustic.

A model of real glass independent of the hand-painted marbles of tests/scenes.py, for the
vision tests: the camera looks straight down (orthographic) on a table at z = 0, and a marble is a
glass sphere (refractive index ``IOR``) of radius R resting on it. Each camera ray (``SAMPLES``
squared per pixel) splits at the sphere into a reflected part (exact Fresnel) that sees the room or
the table, and a refracted part that crosses the glass (absorbing per channel, Beer-Lambert),
refracts again on the way out and sees the lit table below it, or the room. The room is a
uniform ceiling (the table's ambient light), a lamp of small angular size (the table's direct
light; its reflection is the glare) and sometimes a window. The lamp's light through the marble is
traced forward onto the table: the shadow, with the caustic the sphere focuses into it, and the
penumbra of a lamp of that size.

Units: image pixels, pixel i's centre at i as everywhere in the project (the tracer itself works
in continuous coordinates, where pixel i covers [i, i + 1): ``_continuous``); radiance in the
scene's units, where a white table under the local light (``level``, per channel) reads ``level``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

IOR = 1.5
"""Refractive index of soda-lime glass."""

SAMPLES = 4
"""Camera rays per pixel along each axis (a lamp's glare is smaller than a pixel)."""

CAUSTIC_STEP = 0.2
"""Spacing (pixels) of the lamp's rays traced through a marble onto the table."""


@dataclass(frozen=True)
class Room:
    """The light around the table, the same for every marble of a scene."""

    light: tuple[float, float, float]  # unit vector toward the lamp (z up)
    lamp_size: float  # angular radius of the lamp (radians)
    ambient: float  # fraction of the table's light that comes from the room, not the lamp
    window: tuple[float, float, float] | None = None  # unit vector toward a window, if any
    window_size: float = 0.3  # its angular radius (radians)
    window_level: float = 3.0  # its radiance, in units of the ceiling's


@dataclass(frozen=True)
class Glass:
    """One marble's glass: transmission per channel (BGR) across its diameter."""

    transmission: tuple[float, float, float]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _fresnel(cos_i: np.ndarray, n: float) -> np.ndarray:
    """Unpolarised Fresnel reflectance from air into glass of index ``n`` (cos of incidence)."""
    cos_i = np.clip(cos_i, 0.0, 1.0)
    sin_t = np.sqrt(np.maximum(0.0, 1.0 - cos_i * cos_i)) / n
    cos_t = np.sqrt(np.maximum(0.0, 1.0 - sin_t * sin_t))
    rs = ((cos_i - n * cos_t) / (cos_i + n * cos_t)) ** 2
    rp = ((cos_t - n * cos_i) / (cos_t + n * cos_i)) ** 2
    return 0.5 * (rs + rp)


_Rays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _through(d: np.ndarray, n1: np.ndarray, absorb: np.ndarray) -> _Rays:
    """Rays of direction ``d`` entering the unit sphere (centre 0) at ``n1`` (its outward normal
    there): reflectance at entry, exit point, exit direction, and the fraction transmitted per
    channel (both surfaces, and the glass's absorption ``absorb`` per unit radius)."""
    cos_i = -(d * n1).sum(axis=-1)
    f = _fresnel(cos_i, IOR)
    eta = 1.0 / IOR
    cos_t = np.sqrt(np.maximum(0.0, 1.0 - eta * eta * (1.0 - cos_i * cos_i)))
    t = _unit(eta * d + (eta * cos_i - cos_t)[..., None] * n1)
    chord = -2.0 * (t * n1).sum(axis=-1)
    n2 = _unit(n1 + chord[..., None] * t)
    cos_i2 = (t * n2).sum(axis=-1)  # the same angle as at entry: a sphere has no total reflection
    cos_t2 = np.sqrt(np.maximum(0.0, 1.0 - IOR * IOR * (1.0 - cos_i2 * cos_i2)))
    e = _unit(IOR * t - (IOR * cos_i2 - cos_t2)[..., None] * n2)
    kept = ((1.0 - f) ** 2)[..., None] * np.exp(-absorb * chord[..., None])
    return f, n2, e, kept


def _absorb(glass: Glass) -> np.ndarray:
    return -np.log(np.clip(np.float32(glass.transmission), 0.02, 1.0)) / 2.0  # per radius


def _room(dirs: np.ndarray, room: Room, level: np.ndarray) -> np.ndarray:
    """Radiance (per channel) seen looking along the upward unit ``dirs``."""
    ceiling = room.ambient * level  # a uniform sky of radiance L gives the table pi * L
    lz = max(0.05, room.light[2])
    lamp = (1.0 - room.ambient) * level / (room.lamp_size ** 2 * lz)
    angle = np.arccos(np.clip(dirs @ np.float32(room.light), -1.0, 1.0))
    edge = np.clip((room.lamp_size - angle) / (0.3 * room.lamp_size) + 0.5, 0.0, 1.0)
    out = ceiling * (0.8 + 0.4 * np.clip(dirs[..., 2:3], 0.0, 1.0)) + edge[..., None] * lamp
    if room.window is not None:
        wa = np.arccos(np.clip(dirs @ np.float32(room.window), -1.0, 1.0))
        soft = np.clip((room.window_size - wa) / (0.2 * room.window_size) + 0.5, 0.0, 1.0)
        out = out + soft[..., None] * (room.window_level - 1.0) * ceiling
    return out


def _table(img: np.ndarray, points: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Radiance of the table (``img``, bilinear) where rays from ``points`` along downward ``dirs``
    meet it (clamped to the image's border)."""
    s = -points[:, 2] / dirs[:, 2]
    h, w = img.shape[:2]
    x = np.clip(points[:, 0] + s * dirs[:, 0] - 0.5, 0.0, w - 1.001)
    y = np.clip(points[:, 1] + s * dirs[:, 1] - 0.5, 0.0, h - 1.001)
    ix, iy = x.astype(int), y.astype(int)
    fx, fy = (x - ix)[:, None], (y - iy)[:, None]
    return ((img[iy, ix] * (1 - fx) + img[iy, ix + 1] * fx) * (1 - fy)
            + (img[iy + 1, ix] * (1 - fx) + img[iy + 1, ix + 1] * fx) * fy)


def _look(img: np.ndarray, points: np.ndarray, dirs: np.ndarray, room: Room, level: np.ndarray) -> np.ndarray:
    """Radiance along ``dirs`` from ``points``: the table below, the room above."""
    out = np.empty(points.shape[:-1] + (3,), np.float32)
    down = dirs[..., 2] < -1e-4
    if down.any():
        out[down] = _table(img, points[down], dirs[down])
    if (~down).any():
        out[~down] = _room(dirs[~down], room, level)
    return out


def _continuous(x: float, y: float) -> tuple[float, float]:
    """The tracer's coordinates (pixel i covers [i, i + 1)) of the point at (x, y) in pixel-centre
    coordinates (pixel i's centre at i): a marble is drawn where its centre is."""
    return x + 0.5, y + 0.5


def shade_table(light_map: np.ndarray, sky_map: np.ndarray, cx: float, cy: float, r: float, glass: Glass,
                room: Room) -> None:
    """Add one marble's shadow and caustic to ``light_map`` and its share of the room's light to
    ``sky_map`` (both h, w, 3: the lamp's and the room's light on the table relative to an open
    table, 1.0; in place; several marbles multiply). The room's light reaches the table under a
    marble through its glass: the part of the sky the sphere covers (its cosine-weighted share,
    (R / D) ** 3 at distance D from its centre) arrives tinted by the glass."""
    cx, cy = _continuous(cx, cy)
    lx, ly, lz = room.light
    lz = max(0.05, lz)
    h, w = light_map.shape[:2]
    reach = r * (1.0 + 2.0 * math.hypot(lx, ly) / lz) + 3.0
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    x1, y1 = min(w, int(cx + reach) + 2), min(h, int(cy + reach) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    light = np.float32(room.light)
    centre = np.float32([cx, cy, r])
    # direct light: blocked where the ray toward the lamp meets the sphere (soft at its size)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32) + 0.5
    rel = np.stack([cx - xx, cy - yy, np.full_like(xx, r)], axis=-1)
    along = rel @ light
    miss = np.sqrt(np.maximum(0.0, (rel * rel).sum(axis=-1) - along * along))
    penumbra = np.maximum(0.7, 2.0 * room.lamp_size * np.maximum(along, 0.0))
    open_ = np.where(along > 0, np.clip((miss - r) / penumbra + 0.5, 0.0, 1.0), 1.0)
    # the lamp's rays through the glass, traced onto the table (caustic)
    e1 = _unit(np.cross(light, np.float32([0.0, 0.0, 1.0]) if abs(lz) < 0.999 else np.float32([1.0, 0.0, 0.0])))
    e2 = np.cross(light, e1)
    k = np.arange(-1.0, 1.0, CAUSTIC_STEP / r, dtype=np.float32) + 0.5 * CAUSTIC_STEP / r
    a, b = np.meshgrid(k, k)
    inside = a * a + b * b < 1.0
    a, b = a[inside], b[inside]
    n1 = a[:, None] * e1 + b[:, None] * e2 + np.sqrt(1.0 - a * a - b * b)[:, None] * light
    _, n2, e, kept = _through(np.broadcast_to(-light, n1.shape), n1, _absorb(glass))
    exit_ = centre + r * n2
    down = e[:, 2] < -1e-4
    s = -exit_[down, 2] / e[down, 2]
    hx = exit_[down, 0] + s * e[down, 0] - x0 - 0.5
    hy = exit_[down, 1] + s * e[down, 1] - y0 - 0.5
    energy = kept[down] * (CAUSTIC_STEP ** 2 / lz)  # per table pixel, relative to the open table
    caustic = np.zeros((y1 - y0) * (x1 - x0) * 3, np.float32)  # flat: numpy adds at flat indices fastest
    ix, iy = np.floor(hx).astype(int), np.floor(hy).astype(int)
    fx, fy = (hx - ix)[:, None], (hy - iy)[:, None]
    for ox, oy, wgt in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
        jx, jy = ix + ox, iy + oy
        ok = (jx >= 0) & (jx < x1 - x0) & (jy >= 0) & (jy < y1 - y0)
        at = (jy[ok] * (x1 - x0) + jx[ok])[:, None] * 3 + np.arange(3)
        np.add.at(caustic, at.ravel(), (energy[ok] * wgt[ok]).ravel())
    caustic = caustic.reshape(y1 - y0, x1 - x0, 3)
    sigma = max(0.5, room.lamp_size * 2.0 * r)
    caustic = cv2.GaussianBlur(caustic, (0, 0), sigma)
    patch = light_map[y0:y1, x0:x1]
    patch[:] = patch * open_[..., None] + caustic
    covered = (r * r / (rel * rel).sum(axis=-1)) ** 1.5
    tint = np.float32(glass.transmission) * np.float32(1.0 - _fresnel(np.float32(1.0), IOR)) ** 2
    sky_map[y0:y1, x0:x1] *= 1.0 - covered[..., None] * (1.0 - tint)


def trace_marble(img: np.ndarray, table: np.ndarray, cx: float, cy: float, r: float, glass: Glass,
                 room: Room, level: np.ndarray) -> None:
    """Paint one glass marble into ``img`` (in place), seeing the lit table ``table`` through it;
    ``level``: the local light (per channel) a white table would show there."""
    cx, cy = _continuous(cx, cy)
    h, w = img.shape[:2]
    x0, y0 = max(0, int(cx - r) - 1), max(0, int(cy - r) - 1)
    x1, y1 = min(w, int(cx + r) + 2), min(h, int(cy + r) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    sub = (np.arange(SAMPLES, dtype=np.float32) + 0.5) / SAMPLES
    ys = (np.arange(y0, y1, dtype=np.float32)[:, None] + sub[None, :]).ravel()
    xs = (np.arange(x0, x1, dtype=np.float32)[:, None] + sub[None, :]).ravel()
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    u, v = (gx - cx) / r, (gy - cy) / r
    inside = u * u + v * v < 1.0
    colour = np.zeros(gx.shape + (3,), np.float32)
    if inside.any():
        uu, vv = u[inside], v[inside]
        n1 = np.stack([uu, vv, np.sqrt(1.0 - uu * uu - vv * vv)], axis=-1).astype(np.float32)
        d = np.broadcast_to(np.float32([0.0, 0.0, -1.0]), n1.shape)
        f, n2, e, kept = _through(d, n1, _absorb(glass))
        centre = np.float32([cx, cy, r])
        refl = _unit(d + 2.0 * (n1[:, 2:3]) * n1)
        seen = f[:, None] * _look(table, centre + r * n1, refl, room, level)
        seen += kept * _look(table, centre + r * n2, e, room, level)
        colour[inside] = seen
    cover = inside.reshape(y1 - y0, SAMPLES, x1 - x0, SAMPLES).mean(axis=(1, 3))[..., None]
    body = colour.reshape(y1 - y0, SAMPLES, x1 - x0, SAMPLES, 3).sum(axis=(1, 3)) / SAMPLES ** 2
    patch = img[y0:y1, x0:x1]
    patch[:] = patch * (1.0 - cover) + body

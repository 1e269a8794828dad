"""A simulated castle and camera, so the whole camera path runs with no Pi and no camera.

:class:`SimulatedCastle` remembers where marbles rest (the sensor simulator rolls a marble into
gate N, the caller adds it here) and renders the castle's gate area as a camera would see it:
a wooden table, the castle wall with six arches, a trapezoid trough behind each arch with a
printed symbol, and glass marbles (tinted, refracting, with rim, glare and shadow). Positions are
chosen when a marble is added (seeded), so a marble does not jump between frames; each frame gets
fresh sensor noise. :class:`SimulatedCameraSource` is the :class:`~hardware.camera.sources.FrameSource`
that shows it. Nothing is drawn before the first render.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera.marble_size import MarbleSize
from hardware.camera.sources import CameraError
from hardware.vision.regions import GATE_COUNT, GateRegion, GateRegions

WIDTH, HEIGHT = 640, 480

# Layout (pixels). Troughs are trapezoids, narrow at the back (under the arches), wider in front.
GATE_PITCH = 100.0
TROUGH_TOP_Y, TROUGH_BOTTOM_Y = 150.0, 300.0
TROUGH_TOP_HALF, TROUGH_BOTTOM_HALF = 38.0, 46.0
WALL_TOP_Y = 42.0
BOARD_FRONT_Y = 318.0
# Misses rest on the table just in front of the castle, at most about 3 radii before the board: well within the
# detector's view (``detect.ROI_MARGIN_RADII`` around the gates) for any radius a tap on a trough's marble
# measures (misses out to 5 radii lay on its edge: a radius tapped at the troughs' small end lost some).
MISS_Y = (BOARD_FRONT_Y + 22.0, 370.0)
MISS_X = (40.0, WIDTH - 40.0)

# Marbles: radius grows a little toward the camera (the front of the image), from the troughs' back to FRONT_Y.
RADIUS_BACK, RADIUS_FRONT = 14.5, 17.5
FRONT_Y = 400.0
CLEARANCE = 2.0  # pixels between a resting marble and a trough wall or another marble
PLACEMENT_TRIES = 200

LIGHT = (-0.45, -0.55, 0.70)  # unit-ish vector toward the light: upper left, fairly high
NOISE_SIGMA = 1.6
RENDER_ROWS = 48  # a frame is made this many rows at a time: small buffers instead of whole float32 frames

GLASS_TINTS: tuple[tuple[float, float, float], ...] = (  # BGR transmission of coloured glass
    (1.00, 0.55, 0.25),  # blue
    (0.40, 0.90, 0.40),  # green
    (0.30, 0.32, 0.95),  # red
    (0.25, 0.70, 1.00),  # amber
    (0.90, 0.40, 0.75),  # purple
    (0.85, 0.85, 0.30),  # teal
)
# Untinted (clear) glass is left out: over the neutral grey trough of gate 6 the vision detector
# takes its grey darkening for a shadow and misses it now and then (about 1 placement in 90).


SYMBOL_COLOURS: tuple[tuple[int, int, int], ...] = (  # BGR, one per gate
    (40, 60, 200), (170, 90, 30), (40, 150, 60), (150, 50, 130), (30, 140, 200), (90, 90, 90),
)


@dataclass(frozen=True)
class RestingMarble:
    """Where and how one marble is drawn: centre, radius (pixels), tint, gate (None = a miss)."""

    gate: int | None
    x: float
    y: float
    r: float
    tint: tuple[float, float, float]
    glare: float


def gate_centre_x(gate: int) -> float:
    """Image x of the middle of ``gate`` (1..6, left to right)."""
    return WIDTH / 2 + (gate - (GATE_COUNT + 1) / 2) * GATE_PITCH


def trough_polygon(gate: int) -> tuple[tuple[float, float], ...]:
    """The trough of ``gate`` as a trapezoid (back left, back right, front right, front left)."""
    cx = gate_centre_x(gate)
    return ((cx - TROUGH_TOP_HALF, TROUGH_TOP_Y), (cx + TROUGH_TOP_HALF, TROUGH_TOP_Y),
            (cx + TROUGH_BOTTOM_HALF, TROUGH_BOTTOM_Y), (cx - TROUGH_BOTTOM_HALF, TROUGH_BOTTOM_Y))


def _radius_at(y: float) -> float:
    t = (y - TROUGH_TOP_Y) / (FRONT_Y - TROUGH_TOP_Y)
    return RADIUS_BACK + (RADIUS_FRONT - RADIUS_BACK) * min(1.0, max(0.0, t))


def _trough_half_width(y: float) -> float:
    t = (y - TROUGH_TOP_Y) / (TROUGH_BOTTOM_Y - TROUGH_TOP_Y)
    return TROUGH_TOP_HALF + (TROUGH_BOTTOM_HALF - TROUGH_TOP_HALF) * t


def _check_gate(gate: object) -> int | None:
    if gate is None:
        return None
    if isinstance(gate, bool) or not isinstance(gate, (int, np.integer)) or not 1 <= gate <= GATE_COUNT:
        raise ValueError(f"gate must be 1..{GATE_COUNT} or None (a miss), got {gate!r}")
    return int(gate)


SCENE_STEP = 4.0 / 65535  # one unit of a stored scene: uint16 covers 0..4 (glare goes above 1)


def _stored(scene: np.ndarray) -> np.ndarray:
    """A float scene (1.0 = white at normal light) as uint16, the way scenes are kept between frames."""
    scene *= 1.0 / SCENE_STEP
    np.clip(scene, 0.0, 65535.0, out=scene)
    scene += 0.5
    return scene.astype(np.uint16)


# --------------------------------------------------------------------------- drawing the castle

def _smooth_field(rng: np.random.Generator, h: int, w: int, cells: tuple[int, int]) -> np.ndarray:
    """Smooth random field in about [-1, 1] (bicubic upscale of a coarse grid)."""
    grid = rng.uniform(-1.0, 1.0, cells).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _axes() -> tuple[np.ndarray, np.ndarray]:
    """Pixel row and column numbers as float32 (HEIGHT, 1) and (1, WIDTH) arrays: they broadcast to the
    image without a full-size grid of each."""
    return (np.arange(HEIGHT, dtype=np.float32)[:, None], np.arange(WIDTH, dtype=np.float32)[None, :])


def _table(rng: np.random.Generator) -> np.ndarray:
    """Wooden table top: warm brown with wavy grain, float32 BGR in [0, 1]."""
    yy, xx = _axes()
    warp = _smooth_field(rng, HEIGHT, WIDTH, (6, 10)) * 9.0
    grain = np.sin((yy + warp) * 0.21 + 0.8 * np.sin(xx * 0.01)) * 0.5 + 0.5
    del warp
    fine = cv2.GaussianBlur(rng.normal(0.0, 1.0, (HEIGHT, WIDTH)).astype(np.float32), (0, 0), sigmaX=3.0, sigmaY=0.6)
    tone = 1.0 + 0.10 * grain + 0.03 * fine + 0.05 * _smooth_field(rng, HEIGHT, WIDTH, (3, 4))
    del grain, fine
    base = np.array([0.22, 0.36, 0.52], np.float32)
    return base[None, None, :] * tone[..., None]


def _symbol(img: np.ndarray, shape: str, cx: float, cy: float, s: float, colour: tuple[int, int, int]) -> None:
    """Print one of the gate symbols (``SYMBOL_SHAPES``), of size ``s``, centred at (cx, cy) on a uint8 image."""
    def pts(*points: tuple[float, float]) -> list[np.ndarray]:
        return [np.array([[cx + x * s, cy + y * s] for x, y in points], np.int32).reshape(-1, 1, 2)]

    def at(x: float, y: float) -> tuple[int, int]:
        return round(cx + x * s), round(cy + y * s)

    thick = max(2, round(0.18 * s))
    if shape == "sun":  # a disc and eight rays
        cv2.circle(img, at(0, 0), round(0.45 * s), colour, -1, cv2.LINE_AA)
        for k in range(8):
            a = k * math.pi / 4
            cv2.line(img, at(0.62 * math.cos(a), 0.62 * math.sin(a)), at(0.95 * math.cos(a), 0.95 * math.sin(a)),
                     colour, thick, cv2.LINE_AA)
    elif shape == "moon":  # a crescent: the outer circle's arc, back along an inner one
        outer = [(0.85 * math.cos(a), 0.85 * math.sin(a)) for a in np.linspace(0.35 * math.pi, 1.65 * math.pi, 24)]
        inner = [(0.3 + 0.7 * math.cos(a), 0.7 * math.sin(a)) for a in np.linspace(1.55 * math.pi, 0.45 * math.pi, 24)]
        cv2.fillPoly(img, pts(*outer, *inner), colour, cv2.LINE_AA)
    elif shape == "star":
        cv2.fillPoly(img, pts(*[((1.0 if i % 2 == 0 else 0.42) * math.sin(i * math.pi / 5),
                                 -(1.0 if i % 2 == 0 else 0.42) * math.cos(i * math.pi / 5)) for i in range(10)]),
                     colour, cv2.LINE_AA)
    elif shape == "crown":
        cv2.fillPoly(img, pts((-0.9, 0.6), (0.9, 0.6), (0.9, -0.6), (0.45, -0.05), (0, -0.7), (-0.45, -0.05),
                              (-0.9, -0.6)), colour, cv2.LINE_AA)
    elif shape == "key":  # a bow (a diamond: a ring would look like a marble's rim), a shaft and two teeth
        cv2.fillPoly(img, pts((-0.9, 0), (-0.5, -0.38), (-0.1, 0), (-0.5, 0.38)), colour, cv2.LINE_AA)
        cv2.line(img, at(-0.15, 0), at(0.95, 0), colour, thick, cv2.LINE_AA)
        for x in (0.6, 0.85):
            cv2.line(img, at(x, 0), at(x, 0.35), colour, thick, cv2.LINE_AA)
    else:  # flame
        cv2.fillPoly(img, pts((0, -1.0), (0.35, -0.4), (0.65, 0.2), (0.5, 0.7), (0, 0.9), (-0.5, 0.7), (-0.65, 0.2),
                              (-0.35, -0.4)), colour, cv2.LINE_AA)


SYMBOL_SHAPES = ("sun", "moon", "star", "crown", "key", "flame")
"""The gates' printed symbols, gate 1 first: the Diego page's own by default (web/static/kit.js ``SYMBOLS``), so that
the simulated picture and the page name a gate alike."""


def _castle(rng: np.random.Generator) -> np.ndarray:
    """The empty scene (table, board, wall, arches, troughs, symbols), float32 BGR in [0, 1]."""
    scene = _table(rng)
    board = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    # board base: a green-grey printed card, slightly mottled
    cv2.rectangle(board, (8, round(WALL_TOP_Y) - 10), (WIDTH - 9, round(BOARD_FRONT_Y)), (120, 150, 140), -1)
    # castle wall with bricks
    wall_bottom = round(TROUGH_TOP_Y)
    cv2.rectangle(board, (8, round(WALL_TOP_Y)), (WIDTH - 9, wall_bottom), (150, 160, 170), -1)
    for row, y in enumerate(range(round(WALL_TOP_Y), wall_bottom, 18)):
        cv2.line(board, (8, y), (WIDTH - 9, y), (110, 118, 128), 2, cv2.LINE_AA)
        for x in range(28 + (row % 2) * 20, WIDTH - 29, 40):
            cv2.line(board, (x, y), (x, min(y + 18, wall_bottom)), (110, 118, 128), 2, cv2.LINE_AA)
    for x in range(8, WIDTH - 9, 32):  # battlements
        cv2.rectangle(board, (x, round(WALL_TOP_Y) - 14), (x + 16, round(WALL_TOP_Y)), (150, 160, 170), -1)
    floor_colours = [(170, 205, 215), (200, 200, 175), (175, 210, 190), (205, 185, 200), (165, 195, 225),
                     (195, 205, 205)]
    for gate in range(1, GATE_COUNT + 1):
        cx = gate_centre_x(gate)
        # arch: a dark opening at the foot of the wall, right above the trough
        top = round(TROUGH_TOP_Y) - 62
        cv2.rectangle(board, (round(cx - 30), top + 30), (round(cx + 30), wall_bottom), (40, 45, 50), -1)
        cv2.ellipse(board, (round(cx), top + 30), (30, 30), 0, 180, 360, (40, 45, 50), -1, cv2.LINE_AA)
        cv2.ellipse(board, (round(cx), top + 30), (36, 36), 0, 180, 360, (95, 100, 110), 5, cv2.LINE_AA)
        # trough floor, its raised rim, and the gate's printed symbol
        poly = [np.array(trough_polygon(gate), np.int32).reshape(-1, 1, 2)]
        cv2.fillPoly(board, poly, floor_colours[gate - 1], cv2.LINE_AA)
        cv2.polylines(board, poly, True, (80, 95, 100), 3, cv2.LINE_AA)
        _symbol(board, SYMBOL_SHAPES[gate - 1], cx, (TROUGH_TOP_Y + TROUGH_BOTTOM_Y) / 2, 21.0,
                SYMBOL_COLOURS[gate - 1])
    # a printed arrow on the board's front edge, between troughs and table
    for gate in range(1, GATE_COUNT + 1):
        cx = gate_centre_x(gate)
        cv2.fillPoly(board, [np.array([[cx - 8, 306], [cx + 8, 306], [cx, 314]], np.int32).reshape(-1, 1, 2)],
                     (70, 90, 90), cv2.LINE_AA)
    mask: np.ndarray = np.any(board, axis=2)
    card = board.astype(np.float32)
    del board
    card /= 255.0
    card *= (1.0 + 0.04 * _smooth_field(rng, HEIGHT, WIDTH, (6, 8)))[..., None]
    np.copyto(scene, card, where=mask[..., None])
    del card
    # the board casts a soft shadow onto the table in front of it
    shade: np.ndarray = np.zeros((HEIGHT, WIDTH), np.float32)
    shade[round(BOARD_FRONT_Y) + 1:round(BOARD_FRONT_Y) + 9, 8:WIDTH - 9] = 1.0
    shade = cv2.GaussianBlur(shade, (0, 0), 3.0) * ~mask
    scene *= (1.0 - 0.35 * shade)[..., None]
    # soft light: a gentle gradient from the upper left plus a vignette
    yy, xx = _axes()
    light = 1.05 - 0.10 * (xx / WIDTH) - 0.06 * (yy / HEIGHT)
    light *= 1.0 - 0.12 * (((xx / WIDTH - 0.5) ** 2 + (yy / HEIGHT - 0.5) ** 2) * 2)
    scene *= light[..., None]
    return scene


def _draw_shadow(scene: np.ndarray, m: RestingMarble) -> None:
    """Soft shadow away from the light, with the bright tinted caustic glass focuses into it."""
    lx, ly, lz = LIGHT
    horiz = math.hypot(lx, ly)
    dx, dy = -lx / horiz, -ly / horiz
    reach = 0.35 * m.r * horiz / lz
    ox, oy = m.x + dx * reach, m.y + dy * reach
    pad = int(2.2 * m.r) + 2
    x0, y0 = max(0, int(ox) - pad), max(0, int(oy) - pad)
    x1, y1 = min(WIDTH, int(ox) + pad), min(HEIGHT, int(oy) + pad)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    px, py = xx - ox, yy - oy
    along, across = px * dx + py * dy, -px * dy + py * dx
    q = np.sqrt((along / (1.25 * m.r)) ** 2 + (across / (1.0 * m.r)) ** 2)
    shadow = 1.0 / (1.0 + np.exp((q - 1.0) * 7.0))
    cx, cy = m.x + dx * 0.8 * m.r, m.y + dy * 0.8 * m.r
    caustic = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2.0 * (0.3 * m.r) ** 2))
    tint = np.array(m.tint, np.float32)
    patch = scene[y0:y1, x0:x1]
    patch *= (1.0 - 0.35 * shadow)[..., None]
    patch *= 1.0 + 0.6 * caustic[..., None] * tint


def _draw_marble(scene: np.ndarray, m: RestingMarble) -> None:
    """A tinted glass sphere: inverted, magnified view of what lies under it, darker rim, glare."""
    pad = int(m.r) + 2
    x0, y0 = max(0, int(m.x) - pad), max(0, int(m.y) - pad)
    x1, y1 = min(WIDTH, int(m.x) + pad + 2), min(HEIGHT, int(m.y) + pad + 2)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    u, v = (xx - m.x) / m.r, (yy - m.y) / m.r
    rho = np.sqrt(u * u + v * v)
    coverage = np.clip((1.0 - rho) * m.r + 0.5, 0.0, 1.0)[..., None]
    # a glass ball shows what is behind it upside down and magnified
    refracted = cv2.remap(scene, (m.x - 0.55 * (xx - m.x)).astype(np.float32),
                          (m.y - 0.55 * (yy - m.y)).astype(np.float32), cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
    patch = scene[y0:y1, x0:x1]
    ambient = patch.reshape(-1, 3).mean(axis=0)
    body = np.array(m.tint, np.float32) * (0.6 * refracted + 0.4 * ambient) * 0.95
    body *= (1.0 - 0.6 * np.clip((rho - 0.55) / 0.45, 0.0, 1.0) ** 1.5)[..., None]  # rim: light bends away
    lx, ly, _ = LIGHT
    glow = np.exp(-((u + 0.4 * lx) ** 2 + (v + 0.4 * ly) ** 2) / (2 * 0.28 ** 2))  # light focused inside
    body += (0.25 * glow)[..., None] * np.array(m.tint, np.float32)
    glare = np.exp(-((u - 0.45 * lx) ** 2 + (v - 0.45 * ly) ** 2) / (2 * 0.1 ** 2)) * m.glare
    body += glare[..., None]
    patch[:] = patch * (1.0 - coverage) + body * coverage


class SimulatedCastle:
    """Thread-safe model of the marbles resting in (or beside) the castle, and its camera view."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._lock = threading.Lock()
        self._place_rng = np.random.default_rng([seed, 1])
        self._noise_rng = np.random.default_rng([seed, 2])
        self._marbles: list[RestingMarble] = []
        self._regions = GateRegions(tuple(GateRegion(g, trough_polygon(g)) for g in range(1, GATE_COUNT + 1)))
        self._empty: np.ndarray | None = None
        self._cache_key: tuple[RestingMarble, ...] | None = None
        self._cache: np.ndarray | None = None
        self._strip: np.ndarray | None = None
        self._noise: np.ndarray | None = None

    # -- the model -----------------------------------------------------------------------------

    def add_marble(self, gate: int | None) -> None:
        """A marble comes to rest in ``gate`` (1..6), or on the table outside every gate (None)."""
        gate = _check_gate(gate)
        with self._lock:
            self._marbles.append(self._place(gate))

    def clear(self) -> None:
        """The active player takes all the marbles back."""
        with self._lock:
            self._marbles.clear()

    def marbles(self) -> list[int | None]:
        """The gate of each resting marble (None = a miss), in the order they came."""
        with self._lock:
            return [m.gate for m in self._marbles]

    def resting(self) -> list[RestingMarble]:
        """Where each resting marble is drawn (for tests and overlays)."""
        with self._lock:
            return list(self._marbles)

    def regions(self) -> GateRegions:
        """The six gate regions (trough polygons) of the rendered 640x480 image, gate 1 on the left."""
        return self._regions

    @staticmethod
    def marble_size() -> MarbleSize:
        """The radius of a marble resting in the middle of a trough, as a calibration would measure it (the
        simulated castle's marbles are drawn at a known size: there is nothing to measure)."""
        middle = (TROUGH_TOP_Y + TROUGH_BOTTOM_Y) / 2
        return MarbleSize(round(_radius_at(middle), 2), "simulation", 0.0)

    def _place(self, gate: int | None) -> RestingMarble:
        """Pick a free resting spot (caller holds the lock); the roomiest of many tries if none is free."""
        rng = self._place_rng
        best: tuple[float, float, float] | None = None
        best_gap = -math.inf
        for _ in range(PLACEMENT_TRIES):
            if gate is None:
                y = float(rng.uniform(*MISS_Y))
                r = _radius_at(y)
                x = float(rng.uniform(*MISS_X))
            else:
                y = float(rng.uniform(TROUGH_TOP_Y + RADIUS_BACK + 3 * CLEARANCE,
                                      TROUGH_BOTTOM_Y - RADIUS_FRONT - 3 * CLEARANCE))
                r = _radius_at(y)
                room = _trough_half_width(y) - r - 3 * CLEARANCE  # the rim is 3 px wide
                x = gate_centre_x(gate) + float(rng.uniform(-room, room))
            gap = min((math.hypot(x - m.x, y - m.y) - r - m.r for m in self._marbles), default=math.inf)
            if gap >= CLEARANCE:
                best = (x, y, r)
                break
            if gap > best_gap:
                best, best_gap = (x, y, r), gap
        assert best is not None
        x, y, r = best
        tint = GLASS_TINTS[int(rng.integers(len(GLASS_TINTS)))]
        return RestingMarble(gate, x, y, r, tint, float(rng.uniform(0.6, 0.9)))

    # -- the camera view -----------------------------------------------------------------------

    def _scene(self, marbles: tuple[RestingMarble, ...]) -> np.ndarray:
        """Noise-free scene with ``marbles`` (uint16 BGR in units of SCENE_STEP); cached for the last set.

        Kept as 16-bit integers, half the memory of float32, and finer than the 8-bit frame by far.
        """
        if self._empty is None:
            self._empty = _stored(_castle(np.random.default_rng([self.seed, 0])))
        if not marbles:
            return self._empty
        if self._cache_key != marbles or self._cache is None:
            self._cache = None  # the old set's scene goes before the new one is drawn
            scene = self._empty.astype(np.float32)
            scene *= SCENE_STEP
            for m in marbles:
                _draw_shadow(scene, m)
            for m in sorted(marbles, key=lambda m: m.y):  # nearer marbles drawn last
                _draw_marble(scene, m)
            self._cache_key, self._cache = marbles, _stored(scene)
        return self._cache

    def render(self, lighting: float = 1.0) -> np.ndarray:
        """A camera frame (BGR uint8, 640x480) of the castle with its resting marbles.

        ``lighting`` scales the light (1.0 normal, 0.5 dim room); every frame has fresh noise.
        """
        with self._lock:
            return self._render(tuple(self._marbles), lighting)

    def render_empty(self, lighting: float = 1.0) -> np.ndarray:
        """A camera frame of the castle with no marbles (an empty reference), whatever rests now."""
        with self._lock:
            return self._render((), lighting)

    def _render(self, marbles: tuple[RestingMarble, ...], lighting: float) -> np.ndarray:
        if isinstance(lighting, bool) or not isinstance(lighting, (int, float)) or not 0 < lighting <= 4:
            raise ValueError(f"lighting must be a number in (0, 4], got {lighting!r}")
        scene = self._scene(marbles)
        frame = np.empty(scene.shape, np.uint8)
        # two float32 strips of RENDER_ROWS rows, reused (the caller holds the lock)
        if self._strip is None or self._noise is None:
            self._strip, self._noise = (np.empty((RENDER_ROWS, *scene.shape[1:]), np.float32) for _ in range(2))
        for top in range(0, scene.shape[0], RENDER_ROWS):  # row by row, the noise drawn in the same order
            rows = slice(top, top + RENDER_ROWS)
            strip, noise = self._strip[:scene[rows].shape[0]], self._noise[:scene[rows].shape[0]]
            self._noise_rng.standard_normal(dtype=np.float32, out=noise)
            np.multiply(scene[rows], 255.0 * lighting * SCENE_STEP, out=strip)
            noise *= NOISE_SIGMA
            strip += noise
            np.clip(strip, 0.0, 255.0, out=strip)
            frame[rows] = strip  # truncates toward zero, as astype(np.uint8) does
        return frame


class SimulatedCameraSource:
    """FrameSource showing a :class:`SimulatedCastle` (name ``"simulation"``)."""

    def __init__(self, castle: SimulatedCastle, *, size: tuple[int, int] = (WIDTH, HEIGHT),
                 lighting: float = 1.0) -> None:
        if not isinstance(castle, SimulatedCastle):
            raise TypeError(f"the simulated camera needs a SimulatedCastle, got {type(castle).__name__}")
        if not isinstance(size, (tuple, list)) or len(size) != 2 \
                or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in size):
            raise ValueError(f"size must be (width, height) in positive pixels, got {size!r}")
        self.castle = castle
        self.size = (int(size[0]), int(size[1]))
        self.lighting = lighting
        self.name = "simulation"
        self._open = False

    def open(self) -> None:
        self._open = True

    def read(self) -> np.ndarray:
        if not self._open:
            raise CameraError(f"{self.name} camera is not open")
        frame = self.castle.render(self.lighting)
        if self.size != (WIDTH, HEIGHT):
            frame = cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)
        return frame

    def read_settled(self) -> np.ndarray:
        """The simulated camera has no queue: every frame is taken now."""
        return self.read()

    def close(self) -> None:
        self._open = False

"""Gate regions: one polygon per gate (1..6) in image pixels, saved as JSON.

File format: ``{"gates": [{"gate": 1, "polygon": [[x, y], ...]}, ...]}``.
Loading validates the data and raises :class:`RegionsError` naming the problem.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from hardware.files import write_json

if TYPE_CHECKING:
    import numpy as np

GATE_COUNT = 6
MAX_COORDINATE = 1e6
"""No picture reaches a million pixels across: a point further out is a typing slip (and overflows areas)."""


OVERLAP_SHARE = 0.05
"""Two gates overlapping by more than this share of the smaller one are refused when tapped: a marble there would
count in one of them only."""

OVERLAP_GRID = 400
"""Cells across the gates on which their overlap is drawn."""


class RegionsError(ValueError):
    """Gate regions data or file is invalid; the message names the problem."""


@dataclass(frozen=True)
class GateRegion:
    """One gate's region: a simple polygon of at least three (x, y) image points."""

    gate: int
    polygon: tuple[tuple[float, float], ...]

    def contains(self, x: float, y: float) -> bool:
        """True when (x, y) lies inside the polygon or on its edge."""
        x0, y0, x1, y1 = self.bounds
        slack = 1e-6  # wider than the edge test's tolerance: the box only rejects quickly
        if not (x0 - slack <= x <= x1 + slack and y0 - slack <= y <= y1 + slack):
            return False
        return _point_in_polygon(x, y, self.polygon)

    def border_within(self, x: float, y: float, reach: float) -> bool:
        """True when an edge of the polygon passes closer than ``reach`` to (x, y)."""
        x0, y0, x1, y1 = self.bounds
        if not (x0 - reach < x < x1 + reach and y0 - reach < y < y1 + reach):
            return False
        pts = self.polygon
        return any(_segment_distance(x, y, a, b) < reach for a, b in zip(pts, pts[1:] + pts[:1]))

    @cached_property
    def bounds(self) -> tuple[float, float, float, float]:
        """Bounding box (x0, y0, x1, y1) of the polygon."""
        xs, ys = [p[0] for p in self.polygon], [p[1] for p in self.polygon]
        return min(xs), min(ys), max(xs), max(ys)

    def area(self) -> float:
        """Absolute area of the polygon in square pixels (shoelace formula)."""
        pts = self.polygon
        s = 0.0
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
            s += x0 * y1 - x1 * y0
        return abs(s) / 2.0

    def as_array(self) -> np.ndarray:
        """The polygon as a float32 array of shape (n, 2)."""
        import numpy as np

        return np.asarray(self.polygon, dtype=np.float32)


@dataclass(frozen=True)
class GateRegions:
    """The six gate regions, sorted by gate number 1..6."""

    gates: tuple[GateRegion, ...]

    def __post_init__(self) -> None:
        numbers = [g.gate for g in self.gates]
        if sorted(numbers) != list(range(1, GATE_COUNT + 1)):
            raise RegionsError(f"gate regions must be gates 1..{GATE_COUNT} once each, got {numbers}")
        for g in self.gates:
            if len(g.polygon) < 3:
                raise RegionsError(f"gate {g.gate}: polygon needs at least 3 points, got {len(g.polygon)}")
        object.__setattr__(self, "gates", tuple(sorted(self.gates, key=lambda g: g.gate)))

    def region(self, gate: int) -> GateRegion:
        """The region of gate ``gate`` (1..6)."""
        return self.gates[gate - 1]

    def gate_at(self, x: float, y: float) -> int | None:
        """The gate whose polygon contains (x, y), or None when outside every region.

        Where polygons overlap, the lowest gate number wins.
        """
        for g in self.gates:
            if g.contains(x, y):
                return g.gate
        return None

    def borders_within(self, x: float, y: float, reach: float) -> set[int]:
        """The gates whose border passes closer than ``reach`` to (x, y)."""
        return {g.gate for g in self.gates if g.border_within(x, y, reach)}

    def near_picture_edge(self, width: int, height: int, reach: float) -> list[int]:
        """The gates that come closer than ``reach`` to the edge of a ``width`` x ``height`` picture (or
        leave it), in gate order."""
        return [g.gate for g in self.gates if edge_clearance(*g.bounds, width, height) < reach]

    def outside_picture(self, width: int, height: int) -> list[int]:
        """The gates wholly outside a ``width`` x ``height`` picture (drawn on another picture), in gate order."""
        return [g.gate for g in self.gates
                if g.bounds[0] > width - 0.5 or g.bounds[2] < -0.5 or g.bounds[1] > height - 0.5 or g.bounds[3] < -0.5]

    def overlapping(self) -> list[tuple[int, int, float]]:
        """The pairs of gates whose polygons overlap by more than ``OVERLAP_SHARE`` of the smaller one, with that
        share: a marble there would count in the first gate only (``gate_at``). Drawn on a grid of at most
        ``OVERLAP_GRID`` cells across the gates (tapped borders that meet within a cell or two do not count)."""
        import cv2
        import numpy as np

        x0, y0, x1, y1 = self.bounds()
        scale = OVERLAP_GRID / max(x1 - x0, y1 - y0, 1.0)
        size = (int(math.ceil((y1 - y0) * scale)) + 1, int(math.ceil((x1 - x0) * scale)) + 1)
        masks: list[np.ndarray] = []
        for g in self.gates:
            mask = np.zeros(size, np.uint8)
            points = np.round((np.array(g.polygon) - (x0, y0)) * scale).astype(np.int32)
            cv2.fillPoly(mask, [points.reshape(-1, 1, 2)], 1)
            masks.append(mask.astype(bool))
        areas = [int(np.count_nonzero(m)) for m in masks]
        pairs = []
        for i, a in enumerate(self.gates):
            for j in range(i + 1, len(self.gates)):
                share = int(np.count_nonzero(masks[i] & masks[j])) / max(1, min(areas[i], areas[j]))
                if share > OVERLAP_SHARE:
                    pairs.append((a.gate, self.gates[j].gate, share))
        return pairs

    def bounds(self) -> tuple[float, float, float, float]:
        """Bounding box (x0, y0, x1, y1) of all polygons."""
        boxes = [g.bounds for g in self.gates]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes),
                max(b[2] for b in boxes), max(b[3] for b in boxes))

    def scaled(self, sx: float, sy: float | None = None) -> GateRegions:
        """A copy with every point multiplied by (sx, sy) (for a resized image)."""
        return self._mapped(sx, sx if sy is None else sy, 0.0, 0.0)

    def shifted(self, dx: float, dy: float) -> GateRegions:
        """A copy with every point moved by (dx, dy) (for a camera that moved)."""
        return self._mapped(1.0, 1.0, dx, dy)

    def _mapped(self, sx: float, sy: float, dx: float, dy: float) -> GateRegions:
        """A copy with every point (x, y) at (x * sx + dx, y * sy + dy)."""
        return GateRegions(tuple(
            GateRegion(g.gate, tuple((x * sx + dx, y * sy + dy) for x, y in g.polygon)) for g in self.gates))

    def to_json(self) -> dict:
        """JSON-ready dict in the file format."""
        return {"gates": [
            {"gate": g.gate, "polygon": [[float(x), float(y)] for x, y in g.polygon]}
            for g in self.gates]}

    @classmethod
    def from_json(cls, data: object) -> GateRegions:
        """Parse and validate the file format; raises RegionsError naming what is wrong."""
        if not isinstance(data, dict):
            raise RegionsError("gate regions: expected a JSON object with a 'gates' list")
        gates = data.get("gates")
        if not isinstance(gates, list):
            raise RegionsError("gate regions: missing 'gates' list")
        parsed: dict[int, GateRegion] = {}
        for i, item in enumerate(gates):
            where = f"gates[{i}]"
            if not isinstance(item, dict):
                raise RegionsError(f"{where}: expected an object with 'gate' and 'polygon'")
            gate = item.get("gate")
            if isinstance(gate, bool) or not isinstance(gate, int):
                raise RegionsError(f"{where}: 'gate' must be an integer 1..{GATE_COUNT}, got {gate!r}")
            if not 1 <= gate <= GATE_COUNT:
                raise RegionsError(f"{where}: gate {gate} out of range 1..{GATE_COUNT}")
            if gate in parsed:
                raise RegionsError(f"{where}: gate {gate} appears twice")
            parsed[gate] = GateRegion(gate, _parse_polygon(item.get("polygon"), f"gate {gate}"))
        missing = [g for g in range(1, GATE_COUNT + 1) if g not in parsed]
        if missing:
            raise RegionsError("gate regions: missing gate " + ", ".join(str(g) for g in missing))
        return cls(tuple(parsed[g] for g in range(1, GATE_COUNT + 1)))


def edge_clearance(x0: float, y0: float, x1: float, y1: float, width: int, height: int) -> float:
    """How far the box (x0, y0, x1, y1), or a point (x0 = x1, y0 = y1), lies inside a ``width`` x ``height``
    picture: its distance to the picture's nearest edge, below 0 when it leaves the picture (pixel centres
    count from 0, so the picture spans -0.5 .. width - 0.5)."""
    return min(x0 + 0.5, y0 + 0.5, width - 0.5 - x1, height - 0.5 - y1)


def _parse_polygon(poly: object, where: str) -> tuple[tuple[float, float], ...]:
    if not isinstance(poly, list):
        raise RegionsError(f"{where}: 'polygon' must be a list of [x, y] points")
    if len(poly) < 3:
        raise RegionsError(f"{where}: polygon needs at least 3 points, got {len(poly)}")
    points: list[tuple[float, float]] = []
    for j, pt in enumerate(poly):
        if not isinstance(pt, (list, tuple)) or len(pt) != 2:
            raise RegionsError(f"{where}: point {j} must be [x, y], got {pt!r}")
        for v in pt:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or isinstance(v, float) and not math.isfinite(v):
                raise RegionsError(f"{where}: point {j} has a non-number coordinate {v!r}")
            if abs(v) > MAX_COORDINATE:  # compared exactly: a whole number of 400 digits is no float
                raise RegionsError(f"{where}: point {j} lies more than a million pixels out, beyond any picture")
        points.append((float(pt[0]), float(pt[1])))
    if GateRegion(0, tuple(points)).area() <= 0.0:
        raise RegionsError(f"{where}: polygon has zero area")
    return tuple(points)


def _segment_distance(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from (x, y) to the segment from ``a`` to ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0.0 else max(0.0, min(1.0, ((x - a[0]) * dx + (y - a[1]) * dy) / length2))
    return math.hypot(x - a[0] - t * dx, y - a[1] - t * dy)


def _point_in_polygon(x: float, y: float, poly: tuple[tuple[float, float], ...]) -> bool:
    """Even-odd ray casting; points on an edge count as inside."""
    inside = False
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        # on-edge test
        cross = (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
        if abs(cross) <= 1e-9 * max(1.0, abs(x1 - x0) + abs(y1 - y0)) and \
                min(x0, x1) - 1e-9 <= x <= max(x0, x1) + 1e-9 and min(y0, y1) - 1e-9 <= y <= max(y0, y1) + 1e-9:
            return True
        if (y0 > y) != (y1 > y):
            xi = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            if x < xi:
                inside = not inside
    return inside


def load_regions(path: str | Path) -> GateRegions:
    """Read and validate a gate regions JSON file, or the gates of a kept round's label.json; raises RegionsError
    naming the problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RegionsError(f"cannot read gate regions file {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RegionsError(f"gate regions file {p} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RegionsError(f"gate regions file {p} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    except ValueError:  # Python reads no whole number of thousands of digits
        raise RegionsError(f"gate regions file {p} is not valid JSON: a number too long") from None
    except RecursionError:
        raise RegionsError(f"gate regions file {p} is not valid JSON: lists nested too deep") from None
    if isinstance(data, dict) and isinstance(data.get("gates"), dict):  # a kept round's label.json holds its gates
        data = data["gates"]
    try:
        return GateRegions.from_json(data)
    except RegionsError as exc:
        raise RegionsError(f"{p}: {exc}") from None


def save_regions(regions: GateRegions, path: str | Path) -> None:
    """Write regions as JSON (atomically: temp file then rename)."""
    write_json(path, regions.to_json(), indent=2)

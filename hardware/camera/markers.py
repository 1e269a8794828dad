"""Calibration by four printed ArUco markers (DICT_4X4_50, ids 0-3) stuck on the castle.

The markers are detected in the calibration snapshot (saved as a :class:`MarkerAnchor`) and in
the current frame; the homography between the two moves the saved gate regions with the camera
when it is bumped. Homographies map *reference* (calibration snapshot) pixels to *current* pixels
and hold for the plane the markers lie on, so stick them flat, on the level of the gate exits.

``companion markers`` (``add_arguments`` / ``run``) writes a printable A4 sheet of the markers.
Importing this module loads neither cv2 nor numpy.
"""

from __future__ import annotations

import argparse
import struct
import sys
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hardware.camera.focus import edge_blur_px
from hardware.files import read_json, write_json

if TYPE_CHECKING:  # cv2 and numpy load when markers are first looked for or drawn, not on import
    import numpy as np

DICTIONARY_NAME = "DICT_4X4_50"
MARKER_IDS: tuple[int, ...] = (0, 1, 2, 3)
PLACEMENT = {0: "top left", 1: "top right", 2: "bottom right", 3: "bottom left"}
A4_MM = (210.0, 297.0)
MM_PER_INCH = 25.4
DEFAULT_MARKER_MM = 50.0
MIN_MARKER_MM, MAX_MARKER_MM = 20.0, 70.0
DEFAULT_MAX_ERROR_PX = 3.0

Polygon = Sequence[Sequence[float]]


class MarkerError(ValueError):
    """Markers missing, or a saved anchor file that cannot be used; the message says which."""


# -- detection and geometry -------------------------------------------------------------------


def _dictionary() -> Any:
    import cv2

    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY_NAME))


def _detector() -> Any:
    import cv2

    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(_dictionary(), parameters)


def detect_markers(frame_bgr: np.ndarray, ids: Sequence[int] = MARKER_IDS) -> dict[int, np.ndarray]:
    """Marker id -> its 4x2 float32 corners (marker's own order: TL, TR, BR, BL) for ``ids`` found.

    A marker seen twice (a stray print) is dropped: which copy is meant is unknowable.
    """
    import cv2
    import numpy as np

    if frame_bgr is None or frame_bgr.ndim not in (2, 3):
        raise ValueError(f"detect_markers needs an image, got {getattr(frame_bgr, 'shape', frame_bgr)}")
    grey = frame_bgr if frame_bgr.ndim == 2 else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    corners, found_ids, _rejected = _detector().detectMarkers(grey)
    if found_ids is None:
        return {}
    seen: dict[int, np.ndarray] = {}
    duplicates: set[int] = set()
    for marker_id, quad in zip(found_ids.ravel().tolist(), corners):
        if marker_id not in ids:
            continue
        if marker_id in seen:
            duplicates.add(marker_id)
        seen[marker_id] = np.asarray(quad, np.float32).reshape(4, 2)
    return {k: v for k, v in sorted(seen.items()) if k not in duplicates}


def _paired_corners(
    ref_markers: Mapping[int, np.ndarray], cur_markers: Mapping[int, np.ndarray]
) -> tuple[list[int], np.ndarray, np.ndarray]:
    import numpy as np

    common = sorted(set(ref_markers) & set(cur_markers))
    if not common:
        return [], np.empty((0, 2), np.float32), np.empty((0, 2), np.float32)
    src = np.concatenate([np.asarray(ref_markers[i], np.float32).reshape(4, 2) for i in common])
    dst = np.concatenate([np.asarray(cur_markers[i], np.float32).reshape(4, 2) for i in common])
    return common, src, dst


def homography_between(
    ref_markers: Mapping[int, np.ndarray], cur_markers: Mapping[int, np.ndarray], *, min_common: int = 2
) -> np.ndarray | None:
    """3x3 homography mapping reference pixels to current pixels, from all corners of the markers
    both frames share; None when fewer than ``min_common`` markers are shared (one small marker
    alone extrapolates badly to the gates) or the points are degenerate."""
    import cv2
    import numpy as np

    if min_common < 1:
        raise ValueError(f"min_common must be at least 1, got {min_common}")
    common, src, dst = _paired_corners(ref_markers, cur_markers)
    if len(common) < min_common:
        return None
    method = cv2.RANSAC if len(common) >= 3 else 0  # with 3+ markers, one misread marker is outvoted
    H, _mask = cv2.findHomography(src, dst, method, 3.0)
    if H is None or not np.all(np.isfinite(H)) or abs(H[2, 2]) < 1e-12:
        return None
    return H / H[2, 2]


def reprojection_error(
    ref_markers: Mapping[int, np.ndarray], cur_markers: Mapping[int, np.ndarray], H: np.ndarray
) -> float:
    """Mean distance in current-frame pixels between mapped reference corners and detected ones."""
    import cv2
    import numpy as np

    common, src, dst = _paired_corners(ref_markers, cur_markers)
    if not common:
        raise ValueError("no marker in common: nothing to measure the reprojection error on")
    mapped = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), np.asarray(H, np.float64))
    return float(np.linalg.norm(mapped.reshape(-1, 2) - dst, axis=1).mean())


def transform_polygons(polygons: Sequence[Polygon], H: np.ndarray) -> list[list[tuple[float, float]]]:
    """Map each polygon (a list of (x, y)) through homography ``H``; the result keeps the order."""
    import cv2
    import numpy as np

    H = np.asarray(H, np.float64)
    if H.shape != (3, 3):
        raise ValueError(f"homography must be 3x3, got {H.shape}")
    result: list[list[tuple[float, float]]] = []
    for number, polygon in enumerate(polygons, 1):
        points = np.asarray(polygon, np.float64)
        if points.ndim != 2 or points.shape[1] != 2:
            raise ValueError(f"polygon {number} must be a list of (x, y) points, got shape {points.shape}")
        if len(points) == 0:
            result.append([])
            continue
        mapped = cv2.perspectiveTransform(points.reshape(-1, 1, 2), H).reshape(-1, 2)
        result.append([(float(x), float(y)) for x, y in mapped])
    return result


# -- the saved anchor and the start-up check -------------------------------------------------------


@dataclass(frozen=True)
class MarkerCheck:
    """What the markers in the current frame say about the calibration."""

    found: list[int]
    missing: list[int]
    homography: np.ndarray | None
    error_px: float | None
    max_error_px: float = DEFAULT_MAX_ERROR_PX
    blur_px: float | None = None  # the picture's blur across the markers' edges (``hardware.camera.focus``)

    @property
    def all_found(self) -> bool:
        return not self.missing

    @property
    def ok(self) -> bool:
        """All markers seen and the saved ones line up with them within ``max_error_px``."""
        return self.all_found and self.error_px is not None and self.error_px <= self.max_error_px

    @property
    def message(self) -> str:
        names = ", ".join(f"{i} ({PLACEMENT.get(i, '?')})" for i in self.missing)
        if self.homography is None:
            found = ", ".join(map(str, self.found)) or "none"
            return (
                f"markers not found: {names}; found: {found}. Too few to follow the camera: "
                "check the markers are stuck on, lit and in view, or calibrate the regions again"
            )
        # the reprojection error, in a table owner's words: how far the markers seen lie from where they were anchored
        if self.missing:
            return (f"markers not found: {names}; following the camera with the others (they lie as they did when "
                    f"anchored, to within {self.error_px:.1f} px)")
        if not self.ok:
            return (f"all four markers found, but they lie {self.error_px:.1f} px off how they did when anchored "
                    f"(over {self.max_error_px:.1f}): a marker moved? calibrate again")
        return f"all four markers found; they lie as they did when anchored, to within {self.error_px:.1f} px"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary for the kiosk and the API."""
        return {
            "ok": self.ok,
            "all_found": self.all_found,
            "found": self.found,
            "missing": self.missing,
            "error_px": None if self.error_px is None else round(self.error_px, 2),
            "blur_px": None if self.blur_px is None else round(self.blur_px, 2),
            "message": self.message,
        }


@dataclass(frozen=True)
class MarkerAnchor:
    """The marker corners seen in the calibration snapshot, saved next to the gate regions."""

    image_size: tuple[int, int]
    markers: dict[int, np.ndarray] = field(default_factory=dict)

    @classmethod
    def from_frame(cls, frame_bgr: np.ndarray, *, min_markers: int = 4) -> MarkerAnchor:
        """Anchor the calibration snapshot; MarkerError when fewer than ``min_markers`` are seen."""
        markers = detect_markers(frame_bgr)
        if len(markers) < min_markers:
            missing = ", ".join(f"{i} ({PLACEMENT[i]})" for i in MARKER_IDS if i not in markers)
            raise MarkerError(f"calibration needs {min_markers} markers; not found: {missing}")
        height, width = frame_bgr.shape[:2]
        return cls(image_size=(width, height), markers=markers)

    def check(
        self, frame_bgr: np.ndarray, *, max_error_px: float = DEFAULT_MAX_ERROR_PX, min_common: int = 2
    ) -> MarkerCheck:
        """Detect the markers in ``frame_bgr`` and report whether all were found, how well they fit and how
        blurred their edges are."""
        found = detect_markers(frame_bgr)
        check = self.check_markers(found, max_error_px=max_error_px, min_common=min_common)
        return replace(check, blur_px=edge_blur_px(frame_bgr, found))

    def check_markers(
        self,
        cur_markers: Mapping[int, np.ndarray],
        *,
        max_error_px: float = DEFAULT_MAX_ERROR_PX,
        min_common: int = 2,
    ) -> MarkerCheck:
        """Like :meth:`check`, with markers already detected."""
        H = homography_between(self.markers, cur_markers, min_common=min_common)
        error = None if H is None else reprojection_error(self.markers, cur_markers, H)
        return MarkerCheck(
            found=sorted(i for i in cur_markers if i in MARKER_IDS),
            missing=[i for i in MARKER_IDS if i not in cur_markers],
            homography=H,
            error_px=error,
            max_error_px=max_error_px,
        )

    def project(self, polygons: Sequence[Polygon], check: MarkerCheck) -> list[list[tuple[float, float]]] | None:
        """The saved polygons moved into the current frame, or None if the markers are too few."""
        if check.homography is None:
            return None
        return transform_polygons(polygons, check.homography)

    def to_dict(self) -> dict[str, Any]:
        import numpy as np

        return {
            "version": 1,
            "dictionary": DICTIONARY_NAME,
            "image_size": list(self.image_size),
            "markers": {str(i): np.round(c, 3).tolist() for i, c in sorted(self.markers.items())},
        }

    @classmethod
    def from_dict(cls, data: Any, *, origin: str = "marker anchor") -> MarkerAnchor:
        """Parse :meth:`to_dict` output; MarkerError naming what is wrong."""
        import numpy as np

        try:
            if data.get("dictionary", DICTIONARY_NAME) != DICTIONARY_NAME:
                raise MarkerError(f"{origin}: markers are {data['dictionary']}, expected {DICTIONARY_NAME}")
            width, height = (int(v) for v in data["image_size"])
            markers = {}
            for key, corners in data["markers"].items():
                quad = np.asarray(corners, np.float32)
                if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
                    raise MarkerError(f"{origin}: marker {key} needs 4 (x, y) corners")
                markers[int(key)] = quad
        except MarkerError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise MarkerError(f"{origin}: not a marker anchor ({type(exc).__name__}: {exc})") from exc
        return cls(image_size=(width, height), markers=markers)

    def save(self, path: str | Path) -> None:
        write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: str | Path) -> MarkerAnchor:
        data = read_json(path, MarkerError, "marker anchor",
                         f"no marker anchor at {path}: calibrate the regions with the markers first")
        return cls.from_dict(data, origin=str(path))


# -- the printable sheet -----------------------------------------------------------------------------


def _px(mm: float, dpi: int) -> int:
    return int(round(mm / MM_PER_INCH * dpi))


def _text(sheet: np.ndarray, text: str, x: int, y: int, height_px: int, *, center: bool = False) -> None:
    import cv2

    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_px / 22.0
    thickness = max(1, round(height_px / 12))
    if center:
        (width, _h), _base = cv2.getTextSize(text, font, scale, thickness)
        x -= width // 2
    cv2.putText(sheet, text, (x, y), font, scale, 0, thickness, cv2.LINE_AA)


def _dashed_rect(sheet: np.ndarray, x0: int, y0: int, x1: int, y1: int, dash: int, thickness: int) -> None:
    import cv2
    import numpy as np

    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = int(np.hypot(b[0] - a[0], b[1] - a[1]))
        for start in range(0, length, 2 * dash):
            end = min(start + dash, length)
            p = (a[0] + (b[0] - a[0]) * start // length, a[1] + (b[1] - a[1]) * start // length)
            q = (a[0] + (b[0] - a[0]) * end // length, a[1] + (b[1] - a[1]) * end // length)
            cv2.line(sheet, p, q, 0, thickness)


def render_sheet(*, marker_mm: float = DEFAULT_MARKER_MM, dpi: int = 300) -> np.ndarray:
    """A4 portrait greyscale sheet: the four markers with ids, placement, cut lines and a scale bar."""
    import cv2
    import numpy as np

    if not MIN_MARKER_MM <= marker_mm <= MAX_MARKER_MM:
        raise ValueError(f"marker size must be {MIN_MARKER_MM:.0f}-{MAX_MARKER_MM:.0f} mm, got {marker_mm:g}")
    if not 72 <= dpi <= 1200:
        raise ValueError(f"dpi must be 72-1200, got {dpi}")
    width, height = _px(A4_MM[0], dpi), _px(A4_MM[1], dpi)
    sheet = np.full((height, width), 255, np.uint8)
    line = max(1, _px(0.3, dpi))
    _text(sheet, "Dragon table companion - castle markers", width // 2, _px(20, dpi), _px(6, dpi), center=True)
    _text(sheet, f"ArUco {DICTIONARY_NAME}, ids 0-3, {marker_mm:g} mm", width // 2, _px(29, dpi), _px(4, dpi),
          center=True)

    side = max(6, round(_px(marker_mm, dpi) / 6) * 6)  # 4x4 bits + 1-bit border = 6 modules
    cut_margin = _px(8, dpi)
    label_h = _px(4, dpi)
    cell_w, cell_h = width // 2, _px(marker_mm + 30, dpi)  # the marker, its cut margins and its label
    top = _px(38, dpi)
    for index, marker_id in enumerate(MARKER_IDS):
        row, col = divmod(index, 2)
        if marker_id in (2, 3):  # bottom row reads 3 (left), 2 (right), as the markers go on the castle
            col = 1 - col
        cx = col * cell_w + cell_w // 2
        y0 = top + row * cell_h + _px(8, dpi)
        x0 = cx - side // 2
        image = cv2.aruco.generateImageMarker(_dictionary(), marker_id, side, borderBits=1)
        sheet[y0 : y0 + side, x0 : x0 + side] = image
        label_y = y0 + side + cut_margin // 2 + label_h
        _text(sheet, f"id {marker_id} - {PLACEMENT[marker_id]}", cx, label_y, label_h, center=True)
        _dashed_rect(
            sheet, x0 - cut_margin, y0 - cut_margin, x0 + side + cut_margin, label_y + cut_margin // 2,
            _px(3, dpi), line,
        )

    y = top + 2 * cell_h + _px(4, dpi)
    bar = _px(50, dpi)
    x = _px(20, dpi)
    cv2.rectangle(sheet, (x, y), (x + bar, y + _px(2, dpi)), 0, -1)
    _text(sheet, "50 mm: measure to check the scale", x + bar + _px(4, dpi), y + _px(2, dpi), _px(3, dpi))
    lines = [
        "1. Print at 100 % (no 'fit to page').",
        "2. Cut along the dashed lines; keep the white edge around each marker.",
        "3. Stick them flat on the castle around the six gates, as labelled, spread wide,",
        "   where the camera sees all four and no marble can cover them.",
        "4. On the kiosk's Camera page: tap the gate corners, Save regions,",
        "   then Anchor to the 4 markers.",
        f"5. Markers {marker_mm:g} mm on a side: the companion's [camera] marker_mm must say {marker_mm:g}.",
    ]
    for number, text in enumerate(lines):
        _text(sheet, text, x, y + _px(11 + 5.5 * number, dpi), _px(3, dpi))
    return sheet


def _png_with_dpi(sheet: np.ndarray, dpi: int) -> bytes:
    import cv2

    ok, data = cv2.imencode(".png", sheet)
    if not ok:
        raise ValueError("cannot PNG-encode the marker sheet")
    png = data.tobytes()
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length/type, IHDR data, CRC
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def _pdf(sheet: np.ndarray) -> bytes:
    """A one-page A4 PDF with the greyscale sheet as a lossless (Flate) image."""
    import numpy as np

    height, width = sheet.shape
    page_w, page_h = (round(v / MM_PER_INCH * 72, 2) for v in A4_MM)
    pixels = zlib.compress(np.ascontiguousarray(sheet).tobytes(), 9)
    content = f"q {page_w} 0 0 {page_h} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w} {page_h}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n".encode()
        + pixels + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_sheet(path: str | Path, *, marker_mm: float = DEFAULT_MARKER_MM, dpi: int = 300) -> Path:
    """Render and write the sheet as PNG (with its dpi recorded) or PDF, chosen by the extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ValueError(f"marker sheet must be .png or .pdf, got {path.name!r}")
    sheet = render_sheet(marker_mm=marker_mm, dpi=dpi)
    path.write_bytes(_pdf(sheet) if suffix == ".pdf" else _png_with_dpi(sheet, dpi))
    return path


# -- `companion markers` ------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``companion markers``."""
    parser.add_argument("-o", "--output", default="markers.png",
                        help="sheet to write, .png or .pdf (default markers.png)")
    parser.add_argument(
        "--size-mm", type=float, default=DEFAULT_MARKER_MM,
        help=f"printed marker side in mm, {MIN_MARKER_MM:.0f}-{MAX_MARKER_MM:.0f} (default {DEFAULT_MARKER_MM:.0f})",
    )
    parser.add_argument("--dpi", type=int, default=300, help="sheet resolution (default 300)")


def run(args: argparse.Namespace) -> int:
    """Write the printable marker sheet; 0 on success, 2 with a message on bad input or I/O errors."""
    output = getattr(args, "output", "markers.png")
    marker_mm = getattr(args, "size_mm", DEFAULT_MARKER_MM)
    try:
        path = write_sheet(output, marker_mm=marker_mm, dpi=getattr(args, "dpi", 300))
    except ValueError as exc:
        print(f"companion markers: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"companion markers: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(
        f"wrote {path}: A4, four {marker_mm:g} mm markers ({DICTIONARY_NAME} ids 0-3). "
        "Print at 100 % and stick them on the castle as labelled."
    )
    return 0

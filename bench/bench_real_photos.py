"""Marble vision on real photographs: the public marble-unet set (black glass marbles on bedding).

Set COMPANION_REAL_PHOTOS to a copy of github.com/TrinityPandaLab/marble-unet (``make real-photos``
fetches it; ``inputs/N.tif``, 512x512 colour photos padded (white) below the picture;
``Labels-double/marbles/N.tif``, a mask that is black where a marble is visible). Nothing is
downloaded here: without the folder the figure is skipped. The repository states no licence, so none
of its photos is kept in this project.

The set has no empty frames, so the detector runs without a reference. Its gates are the picture
split 3 x 2 (the photos have no castle); the truth per gate is the connected components of the
mask (at least ``MIN_VISIBLE`` of a whole marble's area, so a marble buried but for a speck is not
counted) by their centre. The marble radius is measured once for the whole set (one camera) from
the median component area, as the table's calibration would give it.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.stats import rate

if TYPE_CHECKING:
    import numpy as np

    from hardware.vision.regions import GateRegions

MIN_VISIBLE = 0.3
"""Fraction of a whole marble's area a mask component needs to count as a marble."""


@dataclass(frozen=True)
class Photo:
    """One photo: name, picture (padding cropped), its 3 x 2 gates, the true count per gate."""

    name: str
    image: np.ndarray
    regions: GateRegions
    counts: tuple[int, ...]


PHOTO_PARTS = ("inputs", "Labels-double/marbles")
"""The folders of the marble-unet copy read here (``python -m bench.fetch_real`` fetches only these)."""


def is_photo_copy(root: Path) -> bool:
    """True when ``root`` holds the marble-unet folders read here."""
    return all((root / part).is_dir() for part in PHOTO_PARTS)


def photo_folder() -> Path | None:
    """The marble-unet copy named by COMPANION_REAL_PHOTOS, or None when absent."""
    value = os.environ.get("COMPANION_REAL_PHOTOS")
    if not value:
        return None
    root = Path(value)
    return root if is_photo_copy(root) else None


def _components(mask_path: Path) -> list[tuple[float, float, int]]:
    """(x, y, area) of the marble components of one mask (marble pixels are black)."""
    import cv2

    mask = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
    if mask is None:
        return []
    n, _, stats, centroids = cv2.connectedComponentsWithStats((mask < 128).astype("uint8"))
    return [(float(centroids[i][0]), float(centroids[i][1]), int(stats[i][4])) for i in range(1, n)]


def grid(w: int, h: int, margin: float = 0.0) -> GateRegions:
    """Six gates as a 3 x 2 grid over a w x h picture, ``margin`` pixels in from its edges."""
    from hardware.vision.regions import GateRegion, GateRegions

    cw, ch = (w - 2 * margin) / 3.0, (h - 2 * margin) / 2.0
    corners = ((0, 0), (1, 0), (1, 1), (0, 1))
    return GateRegions(tuple(
        GateRegion(1 + r * 3 + c, tuple((margin + (c + dx) * cw, margin + (r + dy) * ch) for dx, dy in corners))
        for r in range(2) for c in range(3)))


def load_photos(root: Path, limit: int | None = None) -> tuple[list[Photo], float]:
    """The photos of ``root`` (first ``limit`` by number) and the set's marble radius in pixels."""
    import cv2
    import numpy as np

    names = sorted((p.stem for p in (root / "inputs").glob("*.tif")), key=lambda s: (len(s), s))[:limit]
    comps = {n: _components(root / "Labels-double" / "marbles" / f"{n}.tif") for n in names}
    areas = [a for cs in comps.values() for *_, a in cs if a >= 20]
    whole = float(np.percentile(areas, 75)) if areas else 200.0  # a whole, unburied marble
    radius = math.sqrt(whole / math.pi)
    photos = []
    for n in names:
        img = cv2.imread(str(root / "inputs" / f"{n}.tif"), cv2.IMREAD_COLOR)
        if img is None:
            continue
        rows = np.nonzero(img.min(axis=(1, 2)) < 250)[0]  # the padding below the picture is white
        h = int(rows[-1]) + 1 if len(rows) else img.shape[0]
        img = np.ascontiguousarray(img[:h])
        regions = grid(img.shape[1], h)
        counts = [0] * 6
        for x, y, a in comps[n]:
            gate = regions.gate_at(x, y)
            if gate is not None and a >= MIN_VISIBLE * whole:
                counts[gate - 1] += 1
        photos.append(Photo(n, img, regions, tuple(counts)))
    return photos, radius


def evaluate(photos: list[Photo], radius: float) -> dict[str, float]:
    """Exact rates of the detector (no reference) on ``photos``; ms per photo."""
    from hardware.vision.detect import MarbleDetector

    gates = six = total = unsure = 0
    times = []
    for p in photos:
        detector = MarbleDetector(p.regions, None, marble_radius_px=radius)
        t0 = time.perf_counter()
        det = detector.detect(p.image)
        times.append((time.perf_counter() - t0) * 1000.0)
        gates += sum(a == b for a, b in zip(det.counts, p.counts))
        six += det.counts == p.counts
        total += sum(det.counts) == sum(p.counts)
        unsure += det.is_unsure
    n = max(1, len(photos))
    return {"photos": len(photos), "gates_exact": gates / (6 * n), "six_exact": six / n, "six": six,
            "total_exact": total / n,
            "unsure": unsure / n, "ms": statistics.median(times) if times else 0.0}


def main() -> None:
    """Print the figures when COMPANION_REAL_PHOTOS names a copy of the set."""
    import cv2

    root = photo_folder()
    if root is None:
        print("vision on real photos: skipped (set COMPANION_REAL_PHOTOS to a copy of TrinityPandaLab/marble-unet)")
        return
    cv2.setNumThreads(1)
    photos, radius = load_photos(root)
    r = evaluate(photos, radius)
    print(f"vision on real photos (marble-unet, no reference, radius {radius:.1f} px): {r['photos']} photos, "
          f"gates exact {r['gates_exact']:.3f}, all six exact {rate(r['six'], r['photos'])}, "
          f"total exact {r['total_exact']:.3f}, "
          f"flagged unsure {r['unsure']:.3f}; median {r['ms']:.2f} ms/photo")


if __name__ == "__main__":
    main()

"""How far the picture moved since the empty reference was taken: a camera nudged without markers to follow.

The edges of the castle and its board stay where they are while marbles come and go, and a camera that
moves moves them all at once. Phase correlation of the two pictures' edge strength (which a change of
light does not move) over the gate area gives that shift to about half a pixel, marbles in the gates
or not; a weak correlation (a bare board, a picture that changed too much) gives none.

A turn is not measured. The shifts of the gate area's left and right halves give one (and a change of
scale), but on rendered scenes turned by 0.5 to 1.5 degrees the gates' corners so placed erred by a median
1.5 px, 4.2 px at the 90th percentile and up to 9.4 px, and on pictures that had not moved at all by up to
1.8 px (100 scenes): too near the 3 px at which the gates are moved, and each such move would add its error
to the gates for good.

Importing this module loads neither cv2 nor numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MIN_RESPONSE = 0.3
"""Phase correlation's peak (0..1) below which the shift is not trusted."""

EDGE_SIGMA = 1.0
"""Smoothing (pixels) before the edge strength is taken: sensor noise makes no edges."""


def picture_shift(reference: np.ndarray, frame: np.ndarray, box: tuple[float, float, float, float],
                  marble_radius: float) -> tuple[float, float] | None:
    """The shift (dx, dy, frame pixels) of ``frame``'s content against ``reference`` in the gate area
    ``box`` (x0, y0, x1, y1) widened as the detector reads it (``detect.ROI_MARGIN_RADII`` marble radii);
    None when the two pictures differ in size, the area is too small or the correlation too weak to trust."""
    import cv2

    from hardware.vision.detect import ROI_MARGIN_RADII

    if reference.shape != frame.shape:
        return None
    h, w = frame.shape[:2]
    m = ROI_MARGIN_RADII * marble_radius
    x0, y0 = max(0, int(box[0] - m)), max(0, int(box[1] - m))
    x1, y1 = min(w, int(box[2] + m) + 1), min(h, int(box[3] + m) + 1)
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    edges = [_edges(image[y0:y1, x0:x1]) for image in (reference, frame)]
    window = cv2.createHanningWindow((x1 - x0, y1 - y0), cv2.CV_32F)
    (dx, dy), response = cv2.phaseCorrelate(edges[0], edges[1], window)
    return (float(dx), float(dy)) if response >= MIN_RESPONSE else None


def _edges(image: np.ndarray) -> np.ndarray:
    """Edge strength (gradient magnitude) of a BGR or grey picture, float32."""
    import cv2
    import numpy as np

    grey = cv2.GaussianBlur((cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image).astype(np.float32),
                            (0, 0), EDGE_SIGMA)
    return cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))

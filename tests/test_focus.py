"""The picture's blur, measured across the printed edges of the calibration markers (hardware/camera/focus.py)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.focus import SOFT_BLUR_RADII, edge_blur_px, soft_message
from hardware.camera.markers import detect_markers, render_sheet


def photographed_sheet(blur: float, *, contrast: float = 1.0) -> np.ndarray:
    """The marker sheet as a camera above the castle sees it: 640x480, tilted in perspective (markers about
    85 px wide), blurred by a Gaussian of ``blur`` px, its contrast scaled by ``contrast``, with sensor noise."""
    sheet = render_sheet(dpi=100)
    h, w = sheet.shape
    tilt = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]),
                                       np.float32([[120, 40], [470, 60], [500, 450], [100, 430]]))
    picture = cv2.warpPerspective(sheet, tilt, (640, 480), flags=cv2.INTER_AREA, borderValue=200).astype(np.float32)
    picture = 128 + (picture - 128) * contrast
    if blur:
        picture = cv2.GaussianBlur(picture, (0, 0), blur)
    picture += np.random.default_rng(7).normal(0.0, 2.0, picture.shape)
    return cv2.cvtColor(np.clip(picture, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize("blur", [1.0, 1.5, 2.0])
def test_the_blur_is_measured_across_the_markers_edges(blur: float) -> None:
    picture = photographed_sheet(blur)
    markers = detect_markers(picture)
    assert sorted(markers) == [0, 1, 2, 3]
    measured = edge_blur_px(picture, markers)
    assert measured is not None and abs(measured - blur) < 0.3, measured


def test_a_sharp_picture_measures_well_under_a_pixel() -> None:
    picture = photographed_sheet(0.0)
    measured = edge_blur_px(picture, detect_markers(picture))
    assert measured is not None and measured < 0.6, measured


def test_no_markers_or_faint_edges_measure_nothing() -> None:
    picture = photographed_sheet(0.0)
    assert edge_blur_px(picture, {}) is None
    faint = photographed_sheet(0.0, contrast=0.08)  # markers printed too pale or in deep shade: 20 grey levels
    markers = detect_markers(faint)
    assert markers, "the markers are still found"
    assert edge_blur_px(faint, markers) is None


def test_a_blur_beyond_a_share_of_the_marble_radius_is_a_plain_warning() -> None:
    radius = 12.0
    assert soft_message(None, radius) is None and soft_message(3.0, None) is None
    assert soft_message(SOFT_BLUR_RADII * radius, radius) is None
    message = soft_message(SOFT_BLUR_RADII * radius + 0.1, radius)
    assert message is not None and "out of focus" in message and "1.5 px" in message and "12.0 px" in message

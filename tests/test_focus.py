"""The picture's blur, measured across the printed edges of the calibration markers (hardware/camera/focus.py)."""
from __future__ import annotations

import pytest

from hardware.camera.focus import SOFT_BLUR_RADII, edge_blur_px, soft_message
from hardware.camera.markers import detect_markers
from tests.conditions import photographed_sheet


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

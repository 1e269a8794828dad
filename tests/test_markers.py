"""Marker calibration (sheet, detection, homography, anchor) and the empty reference store."""

from __future__ import annotations

import argparse
import re
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.markers import (
    MARKER_IDS,
    MAX_MARKER_MM,
    MIN_MARKER_MM,
    MarkerAnchor,
    MarkerCheck,
    MarkerError,
    add_arguments,
    detect_markers,
    homography_between,
    render_sheet,
    reprojection_error,
    run,
    transform_polygons,
)
from hardware.camera.reference import ReferenceStore

# A bumped camera: a perspective warp of the sheet (rendered at 100 dpi: 827 x 1169 px).
TRUE_H = np.array([[0.82, 0.06, 40.0], [-0.04, 0.78, 25.0], [0.00004, 0.00006, 1.0]])
OUT_SIZE = (900, 1050)
GATE_POLYGONS = [
    [(300.0, 500.0), (420.0, 500.0), (420.0, 620.0), (300.0, 620.0)],
    [(450.0, 480.0), (560.0, 470.0), (580.0, 600.0), (455.0, 610.0)],
]


@pytest.fixture(scope="module")
def sheet_bgr() -> np.ndarray:
    return cv2.cvtColor(render_sheet(dpi=100), cv2.COLOR_GRAY2BGR)


@pytest.fixture(scope="module")
def bumped(sheet_bgr: np.ndarray) -> np.ndarray:
    return cv2.warpPerspective(sheet_bgr, TRUE_H, OUT_SIZE, borderValue=(255, 255, 255))


def true_polygons(polygons: list[list[tuple[float, float]]]) -> np.ndarray:
    points = np.asarray(polygons, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(points, TRUE_H).reshape(len(polygons), -1, 2)


def test_sheet_is_a4_and_holds_the_four_markers_in_place(sheet_bgr: np.ndarray) -> None:
    assert render_sheet(dpi=300).shape == (3508, 2480)
    found = detect_markers(sheet_bgr)
    assert sorted(found) == list(MARKER_IDS)
    centres = {i: c.mean(axis=0) for i, c in found.items()}
    assert centres[0][0] < centres[1][0] and centres[3][0] < centres[2][0]  # left / right
    assert centres[0][1] < centres[3][1] and centres[1][1] < centres[2][1]  # top / bottom
    side = np.linalg.norm(found[0][0] - found[0][1])
    assert abs(side - 50 / 25.4 * 100) < 4  # 50 mm at 100 dpi


def test_homography_is_recovered_and_moves_a_polygon_within_2_px(sheet_bgr: np.ndarray, bumped: np.ndarray) -> None:
    ref, cur = detect_markers(sheet_bgr), detect_markers(bumped)
    assert sorted(cur) == list(MARKER_IDS)
    H = homography_between(ref, cur)
    assert H is not None
    moved = np.asarray(transform_polygons(GATE_POLYGONS, H))
    assert np.abs(moved - true_polygons(GATE_POLYGONS)).max() < 2.0
    assert reprojection_error(ref, cur, H) < 1.0


def test_two_markers_are_enough_one_is_not(sheet_bgr: np.ndarray, bumped: np.ndarray) -> None:
    ref, cur = detect_markers(sheet_bgr), detect_markers(bumped)
    two = {i: cur[i] for i in (0, 2)}
    H = homography_between(ref, two)
    assert H is not None
    moved = np.asarray(transform_polygons(GATE_POLYGONS, H))
    assert np.abs(moved - true_polygons(GATE_POLYGONS)).max() < 3.0
    assert homography_between(ref, {1: cur[1]}) is None
    assert homography_between(ref, {}) is None


def test_anchor_check_reports_all_found_and_error(sheet_bgr: np.ndarray, bumped: np.ndarray, tmp_path: Path) -> None:
    anchor = MarkerAnchor.from_frame(sheet_bgr)
    path = tmp_path / "anchor.json"
    anchor.save(path)
    loaded = MarkerAnchor.load(path)
    assert loaded.image_size == (827, 1169) and sorted(loaded.markers) == list(MARKER_IDS)
    check = loaded.check(bumped)
    assert check.ok and check.all_found and check.missing == []
    assert check.error_px is not None and check.error_px < 1.0
    assert check.message.startswith("all four markers found; they lie as they did when anchored, to within")
    projected = loaded.project(GATE_POLYGONS, check)
    assert projected is not None
    assert np.abs(np.asarray(projected) - true_polygons(GATE_POLYGONS)).max() < 2.0
    assert check.to_dict()["ok"] is True


def cover(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Paint over a marker (a hand, a marble bag...)."""
    out = frame.copy()
    x0, y0 = corners.min(axis=0).astype(int) - 5
    x1, y1 = corners.max(axis=0).astype(int) + 5
    out[y0:y1, x0:x1] = 180
    return out


def test_missing_markers_give_a_clear_report(sheet_bgr: np.ndarray, bumped: np.ndarray) -> None:
    anchor = MarkerAnchor.from_frame(sheet_bgr)
    cur = detect_markers(bumped)
    one_gone = cover(bumped, cur[3])
    check = anchor.check(one_gone)
    assert check.missing == [3] and check.found == [0, 1, 2] and not check.ok
    assert check.homography is not None
    assert "markers not found: 3 (bottom left)" in check.message and "following the camera" in check.message

    three_gone = cover(cover(one_gone, cur[1]), cur[2])
    check = anchor.check(three_gone)
    assert check.homography is None and check.error_px is None and not check.ok
    assert anchor.project(GATE_POLYGONS, check) is None
    assert "markers not found: 1 (top right), 2 (bottom right), 3 (bottom left); found: 0" in check.message
    assert "Too few" in check.message


def test_a_moved_marker_is_reported_by_its_reprojection_error(sheet_bgr: np.ndarray, bumped: np.ndarray) -> None:
    anchor = MarkerAnchor.from_frame(sheet_bgr)
    cur = detect_markers(bumped)
    cur[2] = cur[2] + np.float32([40.0, 25.0])  # someone re-stuck marker 2 elsewhere
    check = anchor.check_markers(cur)
    assert check.all_found and not check.ok
    assert check.error_px is not None and check.error_px > 3.0
    assert "a marker moved?" in check.message


def test_calibration_without_markers_is_refused_clearly() -> None:
    blank = np.full((240, 320, 3), 255, np.uint8)
    assert detect_markers(blank) == {}
    with pytest.raises(MarkerError, match="not found: 0 \\(top left\\), 1 \\(top right\\)"):
        MarkerAnchor.from_frame(blank)


def test_anchor_files_that_cannot_be_used_are_named(tmp_path: Path) -> None:
    with pytest.raises(MarkerError, match="no marker anchor at .*missing.json"):
        MarkerAnchor.load(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(MarkerError, match="cannot read marker anchor .*broken.json"):
        MarkerAnchor.load(broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"image_size": [10, 10], "markers": {"0": [[1, 2], [3, 4]]}}')
    with pytest.raises(MarkerError, match="marker 0 needs 4"):
        MarkerAnchor.load(wrong)


def test_transform_polygons_checks_its_input() -> None:
    shift = np.array([[1.0, 0, 5], [0, 1, -2], [0, 0, 1]])
    assert transform_polygons([[(0, 0), (10, 0), (10, 10)]], shift) == [[(5.0, -2.0), (15.0, -2.0), (15.0, 8.0)]]
    with pytest.raises(ValueError, match="polygon 1 must be a list of \\(x, y\\)"):
        transform_polygons([[1, 2, 3]], shift)
    with pytest.raises(ValueError, match="3x3"):
        transform_polygons([[(0, 0)]], np.eye(2))


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="companion markers")
    add_arguments(parser)
    return parser.parse_args(argv)


def test_markers_command_writes_a_png_at_300_dpi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = parse([])
    assert args.output == "markers.png"
    assert run(args) == 0
    data = (tmp_path / "markers.png").read_bytes()
    assert b"pHYs" in data[:64]
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image.shape == (3508, 2480)
    assert sorted(detect_markers(cv2.resize(image, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA))) == [0, 1, 2, 3]


def test_markers_command_writes_a_pdf_whose_image_is_the_sheet(tmp_path: Path) -> None:
    out = tmp_path / "markers.pdf"
    assert run(parse(["-o", str(out), "--dpi", "100"])) == 0
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    startxref = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
    assert pdf[startxref:].startswith(b"xref")
    offsets = [int(m) for m in re.findall(rb"(\d{10}) 00000 n", pdf)]
    assert [pdf[o:].split(b"\n", 1)[0] for o in offsets] == [f"{n} 0 obj".encode() for n in range(1, 6)]
    stream = re.search(rb"/Length (\d+) >>\nstream\n", pdf)
    pixels = zlib.decompress(pdf[stream.end() : stream.end() + int(stream.group(1))])
    assert np.array_equal(np.frombuffer(pixels, np.uint8).reshape(1169, 827), render_sheet(dpi=100))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-o", "sheet.gif"], "must be .png or .pdf"),
        (["--size-mm", "200"], "marker size must be 20-70 mm"),
        (["--dpi", "10"], "dpi must be 72-1200"),
        (["-o", "/nonexistent-dir/m.png"], "cannot write /nonexistent-dir/m.png"),
    ],
)
def test_markers_command_reports_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(parse(argv)) == 2
    assert message in capsys.readouterr().err


# -- empty reference ---------------------------------------------------------------------------------


def frame(value: int) -> np.ndarray:
    return np.full((24, 32, 3), value, np.uint8)


def test_reference_updates_only_when_beams_idle_and_regions_empty(tmp_path: Path) -> None:
    store = ReferenceStore(tmp_path / "empty.png", min_interval=10.0)
    assert store.get() is None and store.status(now=0.0)["captured"] is False
    assert store.offer(frame(1), beams_idle=False, regions_empty=True, now=100.0) is False
    assert store.offer(frame(2), beams_idle=True, regions_empty=False, now=100.0) is False
    assert store.get() is None and not (tmp_path / "empty.png").exists()
    assert store.offer(frame(3), beams_idle=True, regions_empty=True, now=100.0) is True
    assert int(store.get()[0, 0, 0]) == 3
    assert store.offer(frame(4), beams_idle=True, regions_empty=True, now=105.0) is False  # too soon
    assert store.offer(frame(5), beams_idle=False, regions_empty=True, now=200.0) is False  # beam busy
    assert int(store.get()[0, 0, 0]) == 3
    assert store.offer(frame(6), beams_idle=True, regions_empty=True, now=200.0) is True
    assert int(store.get()[0, 0, 0]) == 6
    assert store.status(now=230.0) == {
        "captured": True,
        "captured_at": 200.0,
        "age": 30.0,
        "size": [32, 24],
        "path": str(tmp_path / "empty.png"),
        "error": None,
    }


def test_reference_is_a_copy_saved_on_update_and_loaded_lazily(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "empty.png"
    store = ReferenceStore(path, min_interval=0.0)
    source = frame(9)
    store.offer(source, True, True, now=1_700_000_000.0)
    source[:] = 0
    assert int(store.get()[0, 0, 0]) == 9
    assert path.exists()
    again = ReferenceStore(path)  # a restart: nothing read until asked
    assert again._loaded is False
    assert int(again.get()[5, 5, 2]) == 9
    assert again.status(now=1_700_000_060.0)["age"] == 60.0


def test_reference_not_saved_unless_asked_and_jpeg_works(tmp_path: Path) -> None:
    path = tmp_path / "empty.jpg"
    store = ReferenceStore(path, save_on_update=False)
    assert store.save() is False
    store.offer(frame(120), True, True, now=5.0)
    assert not path.exists()
    assert store.save() is True
    assert abs(int(cv2.imread(str(path))[0, 0, 0]) - 120) <= 2


def test_reference_retakes_when_the_frame_size_changes_and_can_be_cleared(tmp_path: Path) -> None:
    store = ReferenceStore(tmp_path / "empty.png", min_interval=60.0)
    store.offer(frame(1), True, True, now=0.0)
    bigger = np.zeros((48, 64, 3), np.uint8)
    assert store.offer(bigger, True, True, now=1.0) is True  # another camera size: the old one is useless
    store.clear()
    assert store.get() is None and not (tmp_path / "empty.png").exists()


def test_reference_damaged_file_and_bad_input_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "empty.png"
    path.write_bytes(b"garbage")
    store = ReferenceStore(path)
    assert store.get() is None
    assert "cannot read empty reference" in store.status(now=0.0)["error"]
    with pytest.raises(ValueError, match="must be a .png or .jpg"):
        ReferenceStore(tmp_path / "empty.gif")
    with pytest.raises(ValueError, match="BGR uint8 frame"):
        store.offer(np.zeros((4, 4), np.float32), True, True, now=0.0)


@pytest.mark.parametrize("marker_mm", [MIN_MARKER_MM, 40.0, MAX_MARKER_MM])
def test_the_sheet_names_the_pages_steps_and_its_marker_size_above_the_pages_margin(
        monkeypatch: pytest.MonkeyPatch, marker_mm: float) -> None:
    import hardware.camera.markers as markers

    said: list[tuple[str, int]] = []
    real = markers._text
    monkeypatch.setattr(markers, "_text", lambda sheet, text, x, y, *a, **k: (said.append((text, y)),
                                                                              real(sheet, text, x, y, *a, **k)))
    sheet = render_sheet(marker_mm=marker_mm, dpi=100)
    assert sheet.shape == (1169, 827)
    text = " ".join(" ".join(t for t, _ in said).split())
    page = (Path(__file__).parents[1] / "web" / "templates" / "camera.html").read_text()
    for control in ("Save regions", "Anchor to the 4 markers"):
        assert control in text and control in page
    assert f"[camera] marker_mm must say {marker_mm:g}" in text
    assert max(y for _, y in said) < sheet.shape[0] - 10 / 25.4 * 100  # 10 mm clear of the page's bottom edge
    assert sorted(detect_markers(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR))) == list(MARKER_IDS)


@pytest.mark.parametrize("missing, error_px", [([], 0.4), ([3], 0.4), ([], 9.0)])
def test_the_markers_check_says_how_far_they_lie_in_a_table_owners_words(missing: list[int], error_px: float) -> None:
    """"all four markers found, reprojection error 0.0 px" was a developer's word on the Camera page."""
    check = MarkerCheck(found=[i for i in MARKER_IDS if i not in missing], missing=missing, homography=np.eye(3),
                        error_px=error_px)
    assert "reprojection" not in check.message
    assert f"{error_px:.1f} px" in check.message and "anchored" in check.message

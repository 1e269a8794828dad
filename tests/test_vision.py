"""Marble vision on synthetic scenes (tests/scenes.py): accuracy floors, CLI, overlay.

Accuracy is measured on 250 seeded scenes the detector was not tuned on scene by scene. The floors
sit a little under what was measured (see ACCURACY_* below); rulings D3/D4: the camera's reading
decides where marbles rest, a miss counts for no gate ("outside").
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.vision import detect_cli
from hardware.vision.detect import Detection, MarbleDetector, count_marbles
from hardware.vision.overlay import draw_overlay
from hardware.vision.regions import save_regions
from tests.scenes import KINDS, Scene, make_scene, make_scenes
from tests.test_vision_position import Tally, check_cut, check_placed, cut_reading, placed

N_SCENES = 250
FIRST_SEED = 5000
CUT_SCENES = 300  # 5000..5299, cut by the picture's edge
PLACED_SCENES = 60  # 5000..5059, where their marbles were found
# Parameters were chosen on training seeds only (tests/scenes.py TRAINING_SEEDS: 0..2999, and
# 40000..47999 for the weights of the candidate review, hardware/vision/candidates.py, from
# tests/vision_fit.py; the hard cases' 50000..69999). Measured on held-out (HELD_OUT_SEEDS)
# seeds (300 scenes per range, 2,000 for 30000..31999), with reference, the six gate counts exact
# (the measure) / six counts and the outside count exact:
#   5000..5299 0.997 / 0.993    9000..9299 0.997 / 0.997    12000..12299 0.997 / 0.987
#   15000..15299 0.997 / 0.993  20000..20599 0.993 / 0.990  30000..31999 0.992 / 0.989
#   all 3,800: 0.994 / 0.990 (9000..9299 1.000 / 1.000 and 30000..31999 0.992 / 0.988 with the
#   review of 8 units; the unlit network changed two: 31234 now right, 12273 an extra
#   marble, flagged; the misses left are faint clear glass, most of it touching another
#   marble, and shadows taken for marbles); a gate flagged unsure in 0.077 of them (0.076 with the
#   review of 8 units, 0.080 before an
#   over-exposed frame channel was a lower bound and a new highlight 1.8 radii from a marble could
#   seed one; the radius is not given here, so it is measured in the frame as before; 0.994 / 0.991
#   and 0.081 while the glare needed fell in two steps with the circle's score; 0.993 / 0.988 and
#   0.082 while the candidate review was a logistic model; 0.069 before a marble kept where a low
#   lamp puts another's shadow was flagged).
# Without reference: exact 0.266, total within +-2 0.953 (printed gate symbols of marble size still
# pass for marbles when they catch a bright spot; 0.189 and 0.676 while every weak edge of the
# board's print voted, grad_min 0.03). The floors: the 0.99 for the six counts, a little
# under what was measured for the rest (the test's 250 scenes: 0.244 and 0.964).
SIX_COUNTS_WITH_REFERENCE = 0.99
ACCURACY_WITH_REFERENCE = 0.985
EXACT_WITHOUT_REFERENCE = 0.22
TOTAL_WITHIN_2_WITHOUT_REFERENCE = 0.93


def _exact(det: Detection, scene) -> bool:
    return det.counts == scene.counts and det.outside == scene.outside


@pytest.fixture(scope="module")
def held_out() -> dict[str, Any]:
    """One pass over the held-out ordinary scenes 5000..5299 (each rendered once: the most costly part of these
    tests): the figures of the first ``N_SCENES`` (``_figures``), where the marbles of the first 60 were found
    (``tests.test_vision_position.placed``), and each scene cut by the picture's edge, read as the detector reads it
    and as it read marbles placed at their peaks (``tests.test_vision_position.cut_reading``)."""
    figures = Figures()
    dx: list[float] = []
    dy: list[float] = []
    cut = {"now": Tally(), "at peaks": Tally()}
    for sc in make_scenes(CUT_SCENES, FIRST_SEED):
        if sc.seed < FIRST_SEED + N_SCENES:
            figures.add(sc)
        if sc.seed < FIRST_SEED + PLACED_SCENES:
            placed(sc, dx, dy)
        cut_reading(sc, cut)
    return {"figures": figures.result(), "placed": (np.array(dx), np.array(dy)), "cut": cut}


@pytest.fixture(scope="module")
def results(held_out: dict[str, Any]) -> dict[str, float | list[int]]:
    return held_out["figures"]


@dataclasses.dataclass
class Figures:
    """The figures of the test's scenes, and the seeds of any scene with a marble out of view or whose empty
    reference, read as a frame, shows a marble."""

    ok_ref: int = 0
    six_ref: int = 0
    ok_noref: int = 0
    exact_noref: int = 0
    touching: int = 0
    kinds_seen: set[str] = dataclasses.field(default_factory=set)
    out_of_view: list[int] = dataclasses.field(default_factory=list)
    empty_not_empty: list[int] = dataclasses.field(default_factory=list)

    def add(self, sc: Scene) -> None:
        h, w = sc.image.shape[:2]
        if not all(m.r < m.x < w - m.r and m.r < m.y < h - m.r for m in sc.marbles):
            self.out_of_view.append(sc.seed)
        self.kinds_seen.update(m.kind for m in sc.marbles)
        self.touching += any(abs(np.hypot(a.x - b.x, a.y - b.y) - a.r - b.r) < 2.0
                             for i, a in enumerate(sc.marbles) for b in sc.marbles[i + 1:])
        detector = MarbleDetector(sc.regions, sc.reference)
        if detector.detect(sc.reference).total:
            self.empty_not_empty.append(sc.seed)
        with_ref = detector.detect(sc.image)
        self.ok_ref += _exact(with_ref, sc)
        self.six_ref += with_ref.counts == sc.counts
        noref = MarbleDetector(sc.regions).detect(sc.image)
        self.ok_noref += abs(noref.total - len(sc.marbles)) <= 2
        self.exact_noref += _exact(noref, sc)

    def result(self) -> dict[str, float | list[int]]:
        return {"ref": self.ok_ref / N_SCENES, "six_ref": self.six_ref / N_SCENES, "noref": self.ok_noref / N_SCENES,
                "noref_exact": self.exact_noref / N_SCENES, "kinds": float(len(self.kinds_seen)),
                "touching": float(self.touching), "out_of_view": self.out_of_view,
                "empty_not_empty": self.empty_not_empty}


def test_marbles_are_placed_to_a_fraction_of_a_pixel(held_out: dict[str, Any]) -> None:
    check_placed(*held_out["placed"])


def test_marbles_cut_by_the_pictures_edge_count_where_their_centre_lies(held_out: dict[str, Any]) -> None:
    check_cut(held_out["cut"])


def test_scenes_cover_every_case(results) -> None:
    assert results["kinds"] == len(KINDS)
    assert results["touching"] >= 20


def test_accuracy_with_reference(results) -> None:
    assert results["six_ref"] >= SIX_COUNTS_WITH_REFERENCE, results
    assert results["ref"] >= ACCURACY_WITH_REFERENCE, results


def test_accuracy_without_reference(results) -> None:
    assert results["noref"] >= TOTAL_WITHIN_2_WITHOUT_REFERENCE, results
    assert results["noref_exact"] >= EXACT_WITHOUT_REFERENCE, results


def test_reference_of_another_size_is_scaled() -> None:
    for seed in range(60, 70):
        sc = make_scene(seed)
        small = cv2.resize(sc.reference, (320, 240), interpolation=cv2.INTER_AREA)
        det = MarbleDetector(sc.regions, small)
        assert det.detect(sc.reference).total == 0
        full = MarbleDetector(sc.regions, sc.reference).detect(sc.image)
        assert abs(det.detect(sc.image).total - full.total) <= 1


def test_reference_of_another_aspect_ratio_is_refused() -> None:
    sc = make_scene(4)
    det = MarbleDetector(sc.regions, sc.reference[:, :400].copy())
    with pytest.raises(ValueError, match="aspect ratio"):
        det.detect(sc.image)


@pytest.mark.parametrize("radius", [math.inf, math.nan, 0.0, -3.0])
def test_a_marble_radius_that_is_no_number_of_pixels_is_refused(radius: float) -> None:
    with pytest.raises(ValueError, match="positive number of pixels"):
        MarbleDetector(make_scene(4).regions, marble_radius_px=radius)


@pytest.mark.parametrize("radius", [300.0, 3000.0, 1e9])
def test_a_marble_too_large_for_the_gate_area_is_refused_before_reading(radius: float) -> None:
    sc = make_scene(4)
    with pytest.raises(ValueError, match="does not fit in the gate area"):
        MarbleDetector(sc.regions, sc.reference, marble_radius_px=radius)
    with pytest.raises(ValueError, match="does not fit in the gate area"):
        MarbleDetector(sc.regions, marble_radius_px=radius).detect(sc.image)


def test_generator_is_deterministic() -> None:
    a, b = make_scene(7), make_scene(7)
    assert np.array_equal(a.image, b.image) and np.array_equal(a.reference, b.reference)
    assert a.counts == b.counts and a.outside == b.outside
    assert not np.array_equal(a.image, make_scene(8).image)


def test_one_detector_reads_frames_from_several_threads_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The camera's vision loop and a confirmation may read with the same detector at the same moment: a frame's
    close decisions (its unsure flags), light and radius belong to that frame alone. Here another frame is read
    while the first is half read (as its marbles are being chosen)."""
    import hardware.vision.detect as detect

    sc, other = make_scene(72002, case="touching"), make_scene(72000, case="touching").image
    detector = MarbleDetector(sc.regions, sc.reference, marble_radius_px=sc.marble_radius_px)
    alone, other_alone = detector.detect(sc.image), detector.detect(other)
    assert alone.unsure == (False, False, False, False, True, False)  # a touching pair in gate 5
    light_direction, meanwhile = detect._light_direction, []

    def read_another_frame_meanwhile(*args: object) -> tuple[float, float] | None:
        if not meanwhile:  # once: the frame read meanwhile comes here too
            meanwhile.append(None)
            meanwhile.append(detector.detect(other))
        return light_direction(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(detect, "_light_direction", read_another_frame_meanwhile)
    assert detector.detect(sc.image) == alone  # (when the detector kept them, every gate here came out unsure)
    assert meanwhile[1] == other_alone


def test_a_retake_is_the_same_scene_in_fresh_sensor_noise() -> None:
    """What a confirmation reads (hardware/vision/consensus.py): frames of the same resting scene."""
    plain, taken = make_scene(7, case="touching"), make_scene(7, case="touching", retakes=2)
    assert np.array_equal(plain.image, taken.image) and np.array_equal(plain.reference, taken.reference)
    assert plain.retakes == () and len(taken.retakes) == 2
    first, second = (frame.astype(np.int16) for frame in taken.retakes)
    for frame in (first, second):
        assert not np.array_equal(frame, taken.image)  # noise of its own
        assert np.abs(frame - taken.image).mean() < 6  # the same scene: differing by the noise alone
    assert not np.array_equal(first, second)
    assert np.array_equal(make_scene(7, case="touching", retakes=1).retakes[0], taken.retakes[0])  # seeded


def test_every_marble_of_a_scene_is_in_view(results) -> None:
    """A marble the camera cannot see has no ground truth: the generator keeps them all in frame."""
    assert results["out_of_view"] == []


def test_empty_scene_counts_nothing(results) -> None:
    assert results["empty_not_empty"] == []


def test_more_light_that_over_exposes_the_board_shows_no_marble() -> None:
    """A lamp brighter than when the reference was taken clips a pale board to white: only its one
    unclipped channel brightens, which looked like a colour change, and a printed ring of marble
    size around it was a marble (all six gates here). A clipped frame channel is only a lower bound
    of its light, so nothing changed there."""
    sc = make_scene(40)
    r = sc.marble_radius_px
    ref = sc.reference.copy()
    for g in sc.regions.gates:
        cx, cy = g.as_array().mean(axis=0)
        cv2.rectangle(ref, (int(cx - 3 * r), int(cy - 3 * r)), (int(cx + 3 * r), int(cy + 3 * r)),
                      (255, 255, 216), -1)
        cv2.circle(ref, (int(cx), int(cy)), int(round(1.3 * r)), (90, 50, 20), max(2, int(0.3 * r)))
    frame = np.clip(ref.astype(np.float32) * 1.15, 0, 255).astype(np.uint8)
    x, y = (int(v) for v in sc.regions.gates[0].as_array().mean(axis=0))
    assert frame[y, x].tolist() == [255, 255, 248]  # the pale board is over-exposed there
    det = MarbleDetector(sc.regions, ref, marble_radius_px=r).detect(frame)
    assert det.counts == (0, 0, 0, 0, 0, 0) and not det.is_unsure


def test_a_circle_nearly_clear_enough_with_its_glare_over_exposed_waits_for_a_tap(monkeypatch) -> None:
    """Clear glass at rest on a white board the lamp over-exposes: a faint rim, its inside as white as the board,
    so no glare can stand out of it. A circle just under the score needed there is a near miss: its gate waits
    for a tap (``detect.NEAR_MISS``; an over-exposed spot passes for the glare). It did not, while the near miss
    asked for a glare that stands out, and a clear marble at rest on clipped white was missed and sure (training
    seeds 62023 and 62073, the streak case)."""
    from hardware.vision import detect

    sc = make_scene(40)
    r = sc.marble_radius_px
    ref = sc.reference.copy()
    cx, cy = (int(v) for v in sc.regions.gates[0].as_array().mean(axis=0))
    cv2.rectangle(ref, (int(cx - 4 * r), int(cy - 4 * r)), (int(cx + 4 * r), int(cy + 4 * r)), (255, 255, 255), -1)
    frame = ref.copy()
    cv2.circle(frame, (cx, cy), int(round(r)), (230, 230, 230), -1, cv2.LINE_AA)  # the rim
    cv2.circle(frame, (cx, cy), int(round(0.75 * r)), (255, 255, 255), -1, cv2.LINE_AA)
    tuning = detect.WITH_REFERENCE

    def read(min_score: float) -> Detection:
        monkeypatch.setattr(detect, "WITH_REFERENCE", dataclasses.replace(tuning, min_score=min_score))
        return MarbleDetector(sc.regions, ref, marble_radius_px=r).detect(frame)

    lo, hi = 0.05, 3.0  # the circle's score: the highest min_score that still counts it
    while hi - lo > 1e-4:
        lo, hi = ((lo + hi) / 2, hi) if read((lo + hi) / 2).counts[0] else (lo, (lo + hi) / 2)
    score = lo
    assert read(0.9 * score).counts == (1, 0, 0, 0, 0, 0)
    nearly = read(score / 0.96)
    assert nearly.counts == (0,) * 6 and nearly.unsure == (True,) + (False,) * 5
    assert not read(score / (0.9 * detect.NEAR_MISS)).is_unsure  # far from enough: no close decision
    monkeypatch.setattr(detect, "CLIPPED_LUM", math.inf)  # over-exposure unseen: a circle without glare
    assert not read(score / 0.96).is_unsure


def test_counts_follow_marble_centres() -> None:
    sc = next(s for s in make_scenes(50, 200) if sum(s.counts) >= 2)
    det = MarbleDetector(sc.regions, sc.reference, marble_radius_px=sc.marble_radius_px).detect(sc.image)
    for m in det.marbles:
        assert m.gate == sc.regions.gate_at(m.x, m.y)
    assert sum(det.counts) + det.outside == len(det.marbles)


def test_count_marbles_and_set_reference() -> None:
    sc = make_scene(3)
    det = MarbleDetector(sc.regions)
    det.set_reference(sc.reference)
    assert det.detect(sc.image) == count_marbles(sc.image, sc.regions, sc.reference)
    with pytest.raises(ValueError, match="BGR uint8"):
        det.detect(np.zeros((10, 10), np.uint8))


def test_detection_json() -> None:
    sc = make_scene(0)
    data = count_marbles(sc.image, sc.regions, sc.reference).to_json()
    assert len(data["counts"]) == 6 and isinstance(data["outside"], int)
    json.dumps(data)


def test_overlay_draws_without_touching_input() -> None:
    sc = make_scene(1)
    det = count_marbles(sc.image, sc.regions, sc.reference)
    before = sc.image.copy()
    out = draw_overlay(sc.image, sc.regions, det)
    assert out.shape == sc.image.shape and np.array_equal(before, sc.image)
    assert (np.abs(out.astype(int) - sc.image.astype(int)).sum(axis=2) > 0).mean() > 0.005
    assert draw_overlay(sc.image, sc.regions, None).shape == sc.image.shape


def test_overlay_labels_read_on_a_board_of_their_own_colour() -> None:
    """The outside count is red: on a red board it sits on a dark box all the same."""
    sc = make_scene(1)
    det = count_marbles(sc.image, sc.regions, sc.reference)
    red = np.zeros_like(sc.image)
    red[:] = (0, 0, 255)
    out = draw_overlay(red, sc.regions, det)
    h = red.shape[0]
    corner = out[h - 30:h - 4, 4:110].reshape(-1, 3).astype(int)
    dark = (corner.sum(axis=1) < 60).mean()
    text = ((corner[:, 2] > 200) & (corner[:, :2].max(axis=1) < 60)).mean()
    assert dark > 0.4 and text > 0.05  # red letters on black, not red on red


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    detect_cli.add_arguments(parser)
    return detect_cli.run(parser.parse_args(argv))


def test_cli_prints_json_lines(tmp_path, capsys) -> None:
    sc = make_scene(2)
    gates = tmp_path / "gates.json"
    save_regions(sc.regions, gates)
    img, ref = tmp_path / "frame.png", tmp_path / "empty.png"
    cv2.imwrite(str(img), sc.image)
    cv2.imwrite(str(ref), sc.reference)
    (tmp_path / "broken.jpg").write_bytes(b"not an image")
    code = _cli([str(img), str(tmp_path / "broken.jpg"), str(img), "--gates", str(gates), "--reference", str(ref)])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1 and len(lines) == 3
    expected = count_marbles(sc.image, sc.regions, sc.reference)
    assert lines[0] == {"image": str(img), "counts": list(expected.counts), "outside": expected.outside,
                        "unsure": list(expected.unsure)}
    assert "error" in lines[1] and lines[2]["counts"] == lines[0]["counts"]
    assert _cli([str(img), "--gates", str(gates)]) == 0


def test_cli_bad_gates_file(tmp_path, capsys) -> None:
    gates = tmp_path / "gates.json"
    gates.write_text('{"gates": []}')
    assert _cli(["x.png", "--gates", str(gates)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing gate 1" in err[0]


def test_the_benchmark_names_every_stage_of_the_detector() -> None:
    from bench.bench_vision import STAGES, stage_shares

    scenes = list(make_scenes(3, 900))
    shares = dict(stage_shares([(MarbleDetector(sc.regions, sc.reference), sc.image) for sc in scenes]))
    assert list(shares) == [label for label, _ in STAGES]
    assert all(0.0 < share < 1.0 for share in shares.values()), shares  # a renamed stage would read 0
    assert sum(shares.values()) < 1.0


def test_the_benchmark_reads_the_same_frames_on_ever_larger_working_images() -> None:
    from bench.bench_vision import area_costs

    rows = area_costs(list(make_scenes(2, 900)))
    assert [label for label, _, _ in rows][0] == "the castle's row of gates"
    grid_pixels = [pixels for _, pixels, _ in rows[1:]]  # radii 16, 12, 8: each marble radius worked at 6 px
    assert grid_pixels == sorted(grid_pixels) and len(set(grid_pixels)) == 3
    assert grid_pixels[2] / grid_pixels[0] == pytest.approx((16 / 8) ** 2, rel=0.1)
    assert all(ms > 0.0 for _, _, ms in rows)

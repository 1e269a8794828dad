"""Marble vision on the rendered hard cases (tests/scenes.py CASES), on held-out seeds, and the
unsure flag (ruling D4: a count the detector is unsure of is confirmed by a tap, not scored).

Each case is measured on ``N_PER_CASE`` held-out scenes with the marble radius given (as the
table's calibration gives it) and the reference; the floors sit at the level reached there
(figures on 1,000 held-out scenes per case: ``python -m tests.vision_fit measure 1000``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import partial

import numpy as np
import pytest

from hardware.vision.detect import Detection, MarbleDetector, _verdict
from hardware.vision.evaluate import wrong_and_sure
from tests import vision_fit
from tests.conditions import banded, noisier, shaded, through_srgb
from tests.scenes import (
    CASES,
    GLASS_KINDS,
    HELD_OUT_SEEDS,
    STREAK_RADII,
    TRAINING_SEEDS,
    Scene,
    make_scene,
    make_scenes,
    seeds,
)

N_PER_CASE = 20
FIRST_SEED = 72000  # held out (HELD_OUT_SEEDS)

EXACT_FLOOR = {"faint": 1.0, "touching": 0.9, "blur": 0.9, "clutter": 1.0, "clear": 1.0, "glass": 1.0, "streak": 0.7,
               "table": 1.0}
"""Six counts exact with reference, per case, on the test's 20 held-out scenes: the level reached
(table: 20 of 20; on 400 training scenes, 62000..62399, 0.9525, half of the scenes read wrong a marble by a line
between gates placed on its other side, flagged but for one)
(streak: see ``STREAK_WRONG_SURE_CEILING``, and three scenes read wrong, flagged, four before the unlit
network was refitted under a table's conditions; touching 72003 is read
wrong, flagged, and 72011 since the light change was measured on ``circles.RATIO_TABLE``, a clear marble
touching a cat's-eye missed and not flagged; glass 72018 was too until the review grew to 16 units; 72003 and
72018 were right, by a narrow margin, while distances were measured in the radius measured in the frame).
On 500 held-out scenes per case (70000..70499), since a faint streak far from every marble flags its gate
(``unexplained.faint_streaks``), every count as before, a gate wrong and not flagged: rolling marbles 0.002 (0.004),
the streak case 0.026 (0.038), wrong and no gate flagged 0.024 (0.030); flagged: faint glass 0.024, touching 0.124,
rolling marbles 0.150, clutter 0.054, clear 0.044, traced glass 0.252, the streak case 0.392. Before it,
since the thresholds follow the frame's noise
(``detect.NOISE_EDGE``): touching pairs 1.000 (0.998 before, a gate wrong and not flagged 0.000 against
0.002), rolling marbles 0.980 (0.982), the streak case 0.920 (0.918), flagged: faint glass 0.020 (0.022),
touching 0.114 (0.110), the streak case 0.356 (0.360); the other rates as below. Before,
since the unlit network was refitted with the streak case
and under a table's conditions: rolling marbles 0.982, flagged 0.140; traced glass 0.970, a gate wrong and
not flagged 0.012, flagged 0.236; the streak case 0.918, a gate wrong and not flagged 0.038, wrong and no
gate flagged 0.030, flagged 0.360; faint glass wrong and not flagged 0.000; the other rates the same. Before,
since the review was refitted with the streak case: traced glass 0.966, and the streak case 0.912, a gate
wrong and not flagged 0.038, flagged 0.370; blur flagged 0.136; the other rates the same. Before, since a
marble smeared by its roll counts from its smear
(``unexplained.smeared_marbles``): faint 0.994, clutter 0.994 (the others as below; both read a faint smear
of the sensor's noise or of a cup's light as a marble, flagged), and the streak case 0.910, wrong and no
gate flagged 0.032, a gate wrong and not flagged 0.040, flagged 0.372. Before it, the rates were faint 0.998
(0.996 while the glare
needed fell in two steps with the circle's score), touching 0.998 (0.994 with the review of 8 units
fitted on the hard seeds 50000..51499, 0.992 with the logistic candidate review, 0.988 before it
weighed the lamp's physics), blur 0.980 (0.976 with the review of 8 units, 0.978 in the radius
measured, 0.968 before the unlit network, 0.964 in steps, 0.960 logistic), clutter 0.998 (0.996 in
the radius measured, 0.994 logistic), clear 0.994 (0.996 before the light correction followed the
picture's rows, 0.992 in the radius measured, 0.984 logistic),
traced glass 0.964 (0.958 with the review of 8 units, 0.936 in the radius measured and before an
over-exposed frame channel was a lower bound, 0.922 before the unlit network, 0.918 in steps, 0.890
logistic; 0.840 before the lamp's physics and soft light told by how bright the glare is; 0.788
before a clear circle under soft light needed no glare; what is left: clear glass touching another
missed, a low lamp's shadows and caustics read as marbles; the same six rates since the light change
was measured on ``circles.RATIO_TABLE``); wrong and no gate flagged unsure: faint 0.002 (0.000 before the
light change was measured on ``circles.RATIO_TABLE``), touching 0.002, blur 0.004 (0.002 before it, 0.004
before the faint smear was flagged, 0.006 with the review of
8 units, 0.012 before a clear circle without its glare was flagged), clutter 0.000, clear 0.002, glass
0.012 (0.016 with the review's margin 0.5, 0.018 before the faint smear was flagged, 0.014 with the
review of 8 units, 0.006 in the radius measured, 0.016 logistic); flagged unsure: faint 0.020, touching
0.110, blur 0.128, clutter 0.042, clear 0.040, glass 0.230 (0.026, 0.100, 0.116, 0.052, 0.034 and 0.250
before the light change was measured on ``circles.RATIO_TABLE``; 0.022, 0.104, 0.126, 0.048, 0.036 and 0.248
before the light correction followed the picture's rows; faint 0.038, touching 0.142, blur 0.146, clutter
0.064, clear 0.066 and glass 0.254 while only a near miss within 1 radius of a marble kept was taken for
its second peak, ``detect.NEAR_SAME``; touching, blur, clutter and glass 0.136,
0.146, 0.062 and 0.246 with the margin 0.5, and 0.134, 0.144, 0.062 and 0.218 before the faint smear
was flagged; in the radius measured faint 0.048, touching 0.158, blur 0.198, clutter 0.084, clear 0.076
and glass 0.360)."""


STILLER_CASES = tuple(case for case in CASES if case != "streak")
"""The hard cases whose marbles rest or roll slowly (the streak case's glass rolls fast: its ceilings below)."""

STREAK_WRONG_SURE_CEILING = 2 / 20
"""Fraction of the test's 20 streak scenes read wrong with no gate flagged, and with a gate read wrong and not
flagged (reached: 2/20 each; 72011, a clear marble rolling between two others missed; 72014, one tinted
marble smeared 2.1 radii read as two, one at each end of its streak). A camera that waits for a still picture
(``hardware.camera.hub``) reads such a marble once it rests."""

WRONG_BUT_SURE_CEILING = 1 / 140
"""Fraction of the test's 140 hard scenes (120 before the table case) read wrong without any gate flagged unsure
(reached: 1/120, touching
72011 since the light change was measured on ``circles.RATIO_TABLE``, 0 before; 1/120 with the logistic
candidate review, a faint clear marble under soft light, 72016, now flagged; 0.02 before the changed-blob
checks)."""

WRONG_GATE_SURE_CEILING = 2 / 140
"""Fraction of the test's 140 hard scenes with a gate read wrong and not flagged unsure (a flagged
gate waits for a tap, the others are scored; reached: 1/120, touching 72011; 2/120 while a rolling marble
in 72017 was too (1/120 before the light change was measured on ``circles.RATIO_TABLE``); 2/120 with the
logistic candidate review)."""


def read(sc: Scene, picture: np.ndarray | None = None) -> Detection:
    """The detector's reading of scene ``sc`` (or of ``picture``, taken of it) with its reference and marble
    radius (as calibrated)."""
    return MarbleDetector(sc.regions, sc.reference, marble_radius_px=sc.marble_radius_px).detect(
        sc.image if picture is None else picture)


def lit_again(sc: Scene, optics: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``sc``'s frame once more, its light changed by ``optics`` before it reached the sensor (tests/conditions.py)."""
    return make_scene(sc.seed, case=sc.case, optics=optics).image


def without_unlit_network(monkeypatch) -> None:
    """Switch the unlit network off: it counts many a marble without its glare that a rule under test
    counts too, so a rule is shown to matter with both off."""
    from hardware.vision import candidates

    monkeypatch.setattr(candidates, "UNLIT_OUTPUT_WEIGHTS", np.zeros_like(candidates.UNLIT_OUTPUT_WEIGHTS))


def without_smeared_marbles(monkeypatch) -> None:
    """Switch off counting a marble from its smear (``unexplained.smeared_marbles``): it counts many a rolling
    marble that a rule under test counts too, so a rule is shown to matter with both off."""
    from hardware.vision import unexplained

    monkeypatch.setattr(unexplained, "SMEAR_PEAK", math.inf)


def test_training_and_held_out_seeds_never_overlap() -> None:
    training, held_out = set(seeds(TRAINING_SEEDS)), set(seeds(HELD_OUT_SEEDS))
    assert training and held_out and not training & held_out
    assert {s for s, _ in vision_fit.TRAINING_JOBS} <= training  # the candidate review's weights
    unlit = vision_fit.UNLIT_TRAINING_JOBS + vision_fit.UNLIT_CONDITION_JOBS
    assert {s for s, *_ in unlit} <= training  # the unlit network's, as taken and under a condition
    assert set(range(FIRST_SEED, FIRST_SEED + N_PER_CASE)) <= held_out
    assert set(range(5000, 5300)) <= held_out  # tests/test_vision.py's accuracy seeds


def test_cases_render_what_they_name() -> None:
    faint = make_scene(50001, case="faint")
    assert faint.marbles and all(m.kind == "faint" for m in faint.marbles)
    assert all(m.kind in ("clear", "catseye") for m in make_scene(50002, case="clear").marbles)
    blurred = [m for sc in make_scenes(5, 50000, case="blur") for m in sc.marbles]
    assert any(m.blur > 0 for m in blurred)
    touching = make_scene(50003, case="touching")
    gaps = [np.hypot(a.x - b.x, a.y - b.y) - a.r - b.r for i, a in enumerate(touching.marbles)
            for b in touching.marbles[i + 1:]]
    assert min(gaps) < 1.5
    traced = make_scene(50006, case="glass")
    assert traced.marbles and all(m.kind in GLASS_KINDS for m in traced.marbles)
    assert not np.array_equal(traced.image, make_scene(50006, case="clear").image)
    clutter = make_scene(50004, case="clutter")
    assert not np.array_equal(clutter.reference, make_scene(50004).reference)
    with pytest.raises(ValueError, match="unknown scene case"):
        make_scene(1, case="fog")
    assert make_scene(50005, case="blur").case == "blur" and make_scene(5).case is None
    streaks = [make_scene(seed, case="streak") for seed in range(50000, 50004)]
    rolling = [m for sc in streaks for m in sc.marbles if m.blur]
    assert all(m.kind in GLASS_KINDS for sc in streaks for m in sc.marbles)
    assert rolling and all(STREAK_RADII[0] <= m.blur / m.r <= STREAK_RADII[1] for m in rolling)
    still = make_scene(50001, case="streak")
    assert not np.array_equal(still.image, make_scene(50001, case="glass").image)
    tables = [make_scene(seed, case="table") for seed in range(50000, 50006)]
    for table in tables:  # a 3 x 2 grid, every marble counted in the gate its centre lies in
        x0, y0, x1, y1 = table.regions.bounds()
        assert x1 - x0 > 0.7 * table.image.shape[1] and y1 - y0 > 0.7 * table.image.shape[0]
        assert all(m.gate == table.regions.gate_at(m.x, m.y) for m in table.marbles)
    by_a_line = [m for sc in tables for m in sc.marbles if sc.regions.borders_within(m.x, m.y, m.r)]
    assert by_a_line and any(m.gate is not None for m in by_a_line)


def test_optics_change_the_light_before_the_sensor() -> None:
    """A scene's optics (tests/conditions.py) change the light that reaches the sensor: the frame of a scene
    lit at half is half as bright, but its sensor noise is what it was (a picture darkened afterwards would
    halve its noise too); the reference and the truth stay as they were."""
    plain = make_scene(20003, retakes=1)
    dim = make_scene(20003, retakes=1, optics=lambda light: light * np.float32(0.5))
    assert np.array_equal(dim.reference, plain.reference) and dim.counts == plain.counts
    brightness = dim.image.mean() / plain.image.mean()
    assert 0.45 < brightness < 0.55

    def noise(sc) -> float:  # the same scene in two frames of fresh sensor noise
        return float(np.std(sc.image.astype(np.float32) - sc.retakes[0].astype(np.float32)))

    assert noise(dim) > 0.8 * noise(plain)


def test_a_change_of_light_through_srgb_is_no_pure_ratio() -> None:
    """Through sRGB's tone curve a light halved darkens a bright value by 0.5 ** (1 / 2.4) and a value near
    black (on the curve's straight part) by 0.5; no change leaves the values as they were."""
    values = np.float32([[[0.9, 0.5, 0.02]]])
    assert np.allclose(through_srgb(values, lambda light: light), values, atol=1e-6)
    ratio = through_srgb(values, lambda light: light * np.float32(0.5)) / values
    assert ratio[0, 0, 0] == pytest.approx(0.5 ** (1 / 2.4), abs=0.02)
    assert ratio[0, 0, 2] == pytest.approx(0.5, abs=0.01)


@pytest.fixture(scope="module")
def hard_results() -> dict[str, list[tuple[bool, bool, bool, bool]]]:
    """Per case: (six counts exact, any gate unsure, clutter scene without reference exact, a gate
    read wrong and not unsure)."""
    out: dict[str, list[tuple[bool, bool, bool, bool]]] = {}
    for case in CASES:
        rows = []
        for seed in range(FIRST_SEED, FIRST_SEED + N_PER_CASE):
            sc = make_scene(seed, case=case)
            det = read(sc)
            noref = None
            if case == "clutter":
                noref = MarbleDetector(sc.regions, marble_radius_px=sc.marble_radius_px).detect(sc.image)
                assert noref.unsure == (True,) * 6 and not noref.with_reference  # never certain without one
            wrong_sure = wrong_and_sure(det.counts, sc.counts, det.unsure)
            rows.append((det.counts == sc.counts, det.is_unsure, noref is not None and noref.counts == sc.counts,
                         wrong_sure))
        out[case] = rows
    return out


@pytest.mark.parametrize("case", CASES)
def test_hard_case_accuracy(hard_results, case) -> None:
    rows = hard_results[case]
    assert sum(r[0] for r in rows) / len(rows) >= EXACT_FLOOR[case], rows


@pytest.mark.parametrize("cases, ceilings", [(STILLER_CASES, (WRONG_BUT_SURE_CEILING, WRONG_GATE_SURE_CEILING)),
                                             (("streak",), (STREAK_WRONG_SURE_CEILING,) * 2)])
def test_wrong_readings_are_flagged_unsure(hard_results, cases, ceilings) -> None:
    rows = [r for case in cases for r in hard_results[case]]
    assert sum(not ok and not unsure for ok, unsure, *_ in rows) / len(rows) <= ceilings[0]
    assert sum(r[3] for r in rows) / len(rows) <= ceilings[1]


def test_a_flickering_lamp_s_bands_change_no_reading() -> None:
    """Under a lamp flickering at twice the mains frequency a rolling shutter records bands of light that
    the empty reference, taken at another moment, lacks. With bands of 8 % every 100 rows, held-out
    ordinary scenes and clear glass read as they read without them, and hardly more gates wait for a
    tap. (Before the light correction followed the picture's rows, bands of 6 % flagged 0.39 of ordinary
    training scenes against 0.05, and bands of 10 % read 0.13 of them wrong.)"""
    scenes = [make_scene(seed) for seed in range(20000, 20012)] + \
        [make_scene(seed, case="clear") for seed in range(FIRST_SEED, FIRST_SEED + 12)]
    plain = [read(sc) for sc in scenes]
    bands = [read(sc, lit_again(sc, partial(banded, seed=seed))) for seed, sc in enumerate(scenes)]
    assert sum(a.counts == b.counts for a, b in zip(plain, bands)) >= len(scenes) - 1
    assert sum(b.is_unsure for b in bands) <= sum(a.is_unsure for a in plain) + 2


@pytest.mark.parametrize("depth", [0.3, 0.5])
def test_a_large_shade_over_the_castle_changes_no_reading(depth) -> None:
    """A person leaning over the castle shades half of it, 30 % or 50 % darker behind an edge four marble
    radii wide, where the empty reference had none (the light shaded before the sensor, whose noise is as
    it was). Held-out ordinary scenes and clear glass read as they read without it, none wrong and sure;
    a few more gates wait for a tap. (Before the light correction took the shade's median, ordinary
    training scenes read all six counts exact in 0.31 of them under a shade of 30 %, and 0.05 wrong and
    sure; before it measured the light on ``RATIO_TABLE``, in 0.80 under one of 50 %, 0.78 flagged.)"""
    scenes = [make_scene(seed) for seed in range(20000, 20012)] + \
        [make_scene(seed, case="clear") for seed in range(FIRST_SEED, FIRST_SEED + 12)]
    same = flagged = 0
    for sc in scenes:
        x0, y0, x1, y1 = sc.regions.bounds()
        centre, edge = (0.5 * (x0 + x1), 0.5 * (y0 + y1)), 4 * sc.marble_radius_px
        picture = lit_again(sc, partial(shaded, through=centre, angle=math.atan2(0.6, 0.8), edge=edge, depth=depth))
        det = read(sc, picture)
        assert not wrong_and_sure(det.counts, sc.counts, det.unsure), sc.seed
        plain = read(sc)
        same += det.counts == plain.counts
        flagged += sum(det.unsure) - sum(plain.unsure)
    assert same >= len(scenes) - 1
    assert flagged <= 4


def test_a_noisier_picture_than_the_reference_counts_no_marble_of_its_noise(monkeypatch) -> None:
    """The room went dim after the reference was taken and the camera turned its gain up: the picture carries
    12 steps (of 255) more sensor noise. Held-out ordinary scenes read as right as they read without it, none
    wrong and sure, and hardly a marble more; without the thresholds raised by the frame's noise
    (``detect.NOISE_EDGE``, ``detect.NOISE_GLARE``) noise spikes with a few votes around them seed marbles, in
    gate after gate."""
    from hardware.vision import detect

    scenes = [make_scene(seed) for seed in range(FIRST_SEED, FIRST_SEED + 24)]
    pictures = [lit_again(sc, partial(noisier, seed=sc.seed, sigma=12.0)) for sc in scenes]

    def readings() -> list[Detection]:
        return [read(sc, picture) for sc, picture in zip(scenes, pictures)]

    noisy = readings()
    assert sum(d.counts == sc.counts for d, sc in zip(noisy, scenes)) >= 21
    assert not any(wrong_and_sure(d.counts, sc.counts, d.unsure) for d, sc in zip(noisy, scenes))
    assert sum(sum(d.counts) - sum(sc.counts) for d, sc in zip(noisy, scenes)) <= 3
    monkeypatch.setattr(detect, "NOISE_EDGE", 0.0)
    monkeypatch.setattr(detect, "NOISE_GLARE", 0.0)
    assert sum(sum(d.counts) - sum(sc.counts) for d, sc in zip(readings(), scenes)) >= 10


def test_a_picture_far_noisier_than_its_reference_waits_for_a_tap_in_every_gate(monkeypatch) -> None:
    """The room went dim and the camera's own denoising left its noise in grains (12 steps a pixel, smoothed by
    1 px), which scaling the picture down averages out less. Held-out clear glass: 10 of 24 such pictures are too
    noisy (``detect.NOISE_UNSURE``), and every gate of them waits for a tap; 1 scene is still read wrong and sure,
    against 3 without that. As taken no picture is."""
    from hardware.vision import detect

    scenes = [make_scene(seed, case="clear") for seed in range(FIRST_SEED, FIRST_SEED + 24)]
    pictures = [lit_again(sc, partial(noisier, seed=sc.seed, sigma=12.0, smoothed=1.0)) for sc in scenes]

    def scenes_wrong_and_sure(readings: list[Detection]) -> int:
        return sum(wrong_and_sure(d.counts, sc.counts, d.unsure) for d, sc in zip(readings, scenes))

    noisy = [read(sc, picture) for sc, picture in zip(scenes, pictures)]
    assert sum(d.noisy for d in noisy) >= 8
    assert all(all(d.unsure) for d in noisy if d.noisy)
    assert scenes_wrong_and_sure(noisy) <= 1
    assert not any(read(sc).noisy for sc in scenes)
    monkeypatch.setattr(detect, "NOISE_UNSURE", math.inf)
    assert scenes_wrong_and_sure([read(sc, picture) for sc, picture in zip(scenes, pictures)]) >= 3


def test_a_picture_over_exposed_where_its_reference_was_not_waits_for_a_tap_in_every_gate(monkeypatch) -> None:
    """A pale table the light grew brighter on (the streak case): its clipped board no longer tells how much, and a
    printed symbol brightened by it reads as a marble. Held out, 14 of the streak case's 120 scenes 72000..72119 are
    over-exposed over more than a tenth of the gate area where their reference was not (``detect.OVEREXPOSED_SHARE``);
    three of them here. Every gate of them waits for a tap, and 72014 (a symbol read as a marble) is no longer read
    wrong and sure. A glare alone over-exposes too little: no ordinary scene's picture is so."""
    from hardware.vision import detect

    scenes = [make_scene(seed, case="streak") for seed in (72014, 72016, 72023)]
    readings = [read(sc) for sc in scenes]
    assert all(d.overexposed and all(d.unsure) for d in readings)
    assert not wrong_and_sure(readings[0].counts, scenes[0].counts, readings[0].unsure)
    assert not any(read(make_scene(seed)).overexposed for seed in range(FIRST_SEED, FIRST_SEED + 12))
    monkeypatch.setattr(detect, "OVEREXPOSED_SHARE", math.inf)
    again = read(scenes[0])
    assert not again.overexposed and wrong_and_sure(again.counts, scenes[0].counts, again.unsure)


def test_change_no_marble_found_explains_makes_its_gate_unsure(monkeypatch) -> None:
    """Held-out seed 72490: two cat's-eye marbles rolling in gate 4 (smeared 0.5 and 1.5 radii) are read as
    one. The change that one marble does not explain flags gate 4 (only); without the changed-blob checks
    the wrong count is sure. (72710, a rolling clear marble, showed it only with the smear rule, the unlit
    network's close verdict and the other flags off too.) A lone rolling marble (72011) is read right but its
    gate waits for a tap (still rolling)."""
    from hardware.vision import unexplained

    def rolling(seed: int):
        sc = make_scene(seed, case="blur")
        return sc, read(sc)

    sc, det = rolling(72490)
    assert sc.counts[3] == 2 and det.counts[3] == 1
    assert det.counts[:3] + det.counts[4:] == sc.counts[:3] + sc.counts[4:]
    assert det.unsure == (False, False, False, True, False, False)
    sc, det = rolling(72011)
    assert det.counts == sc.counts and det.unsure[sc.counts.index(1)]
    monkeypatch.setattr(unexplained, "REST_AREA", 100.0)
    monkeypatch.setattr(unexplained, "LONE_AREA", 100.0)
    sc, det = rolling(72490)
    assert det.counts[3] == 1 and not det.is_unsure


@pytest.mark.parametrize("case, seed, gate", [("glass", 72489, 2), ("blur", 72035, 3), ("streak", 72009, 1)])
def test_the_unlit_network_counts_a_clear_marble_without_its_glare(monkeypatch, case, seed, gate) -> None:
    """Held-out seeds: a clear marble at rest (72489), a cat's-eye rolling (72035) or clear glass still
    rolling fast (72009), whose circle is clear but whose glare is missing, is counted, and the reading is
    sure. Without the unlit network it is missed. (72116 showed it until the light change was measured on
    ``circles.RATIO_TABLE``: its marble is now counted without the network too. 72016, 72239 and 72324
    showed it until the network was refitted under a table's conditions: it counts their marbles still,
    but within ``detect.UNLIT_MARGIN`` of its doubt, and their gates wait for a tap.)"""
    sc = make_scene(seed, case=case)
    det = read(sc)
    assert det.counts == sc.counts and not det.is_unsure
    without_unlit_network(monkeypatch)
    without_smeared_marbles(monkeypatch)
    det = read(sc)
    missed = [t - d for t, d in zip(sc.counts, det.counts)]
    assert missed == [int(i == gate - 1) for i in range(6)]  # that marble only


def test_a_clear_circle_without_its_glare_makes_its_gate_unsure(monkeypatch) -> None:
    """Held-out seed 72239: a rolling clear marble in gate 3 smeared its glare away. The unlit network
    counts it; without that network it is missed, but its changed circle stays, and gate 3 (only) waits
    for a tap. Without the rule too the wrong count is sure. (72394 showed it until the light change was
    measured on ``circles.RATIO_TABLE``.)"""
    from hardware.vision import detect, unexplained

    sc = make_scene(72239, case="blur")
    assert read(sc).counts == sc.counts
    without_unlit_network(monkeypatch)
    without_smeared_marbles(monkeypatch)
    det = read(sc)
    assert det.counts[2] < sc.counts[2] and det.unsure == (False, False, True, False, False, False)
    assert det.counts[:2] + det.counts[3:] == sc.counts[:2] + sc.counts[3:]
    monkeypatch.setattr(detect, "UNLIT_SCORE", math.inf)
    monkeypatch.setattr(unexplained, "FAINT_CHANGE", math.inf)  # (its faint smear flags gate 3 too,
    monkeypatch.setattr(unexplained, "STREAK_PEAK", math.inf)  # as a faint streak)
    det = read(sc)
    assert det.counts[2] < sc.counts[2] and not det.is_unsure


def test_unsure_is_in_the_json_and_old_fields_stay() -> None:
    sc = make_scene(50010)
    det = MarbleDetector(sc.regions, sc.reference).detect(sc.image)
    data = json.loads(json.dumps(det.to_json()))
    assert set(data) >= {"counts", "outside", "marbles", "unsure", "with_reference"}
    assert len(data["unsure"]) == 6 and all(isinstance(v, bool) for v in data["unsure"])
    assert data["with_reference"] is True
    empty = MarbleDetector(sc.regions, sc.reference).detect(sc.reference)
    assert empty.total == 0 and not empty.is_unsure


def test_a_marble_just_under_the_threshold_makes_its_gate_unsure(monkeypatch) -> None:
    """Raise the score threshold until the one marble is just missed: its gate (only) is unsure."""
    from dataclasses import replace

    from hardware.vision import detect

    sc = next(s for s in make_scenes(40, 50100) if sum(s.counts) == 1 and s.outside == 0)
    gate = sc.counts.index(1) + 1

    monkeypatch.setattr(detect, "SEED_SCORE", 100.0)  # no marble from a new highlight alone
    without_smeared_marbles(monkeypatch)  # nor from its change alone

    def at(min_score: float):
        monkeypatch.setattr(detect, "WITH_REFERENCE", replace(detect.WITH_REFERENCE, min_score=min_score))
        return read(sc)

    found = [m for m in np.arange(0.25, 3.0, 0.05) if at(float(m)).counts == sc.counts]
    assert found
    just_missed = at(float(found[-1]) + 0.05)
    assert just_missed.counts[gate - 1] == 0
    assert just_missed.unsure[gate - 1] and sum(just_missed.unsure) == 1


def test_a_very_clear_circle_needs_only_a_faint_highlight(monkeypatch) -> None:
    """Held-out seed 70008: a clear marble rolling in gate 2 smears its glare; its changed disc is
    clear enough to count it with a faint highlight. Demanding the usual highlight (and without the
unlit network) misses it."""
    from hardware.vision import detect

    sc = make_scene(70008, case="blur")

    det = read(sc)
    assert det.counts == sc.counts and sc.counts[1] == 1
    monkeypatch.setattr(detect, "VERY_STRONG_SCORE", 100.0)
    without_unlit_network(monkeypatch)
    without_smeared_marbles(monkeypatch)
    missed = read(sc)
    assert missed.counts[1] == 0 and missed.counts[3] == sc.counts[3]


@pytest.mark.parametrize("case, seed, gate", [("glass", 72037, 1), ("blur", 72035, 3)])
def test_the_highlight_needed_falls_with_the_circle_s_score(monkeypatch, case, seed, gate) -> None:
    """Held-out seeds 72037 (traced glass) and 72035 (a rolling marble): a marble whose circle lies
    between ``STRONG_SCORE`` and ``VERY_STRONG_SCORE`` with a glare too weak for the first is counted,
    and sure. Needed as two steps at those scores (as before), and without the unlit network, it is
missed and its gate unsure."""
    from hardware.vision import detect

    def steps(score: float, tuning) -> float:
        return (tuning.very_strong_highlight if score >= detect.VERY_STRONG_SCORE
                else tuning.strong_highlight if score >= detect.STRONG_SCORE else 1.0)

    sc = make_scene(seed, case=case)
    det = read(sc)
    assert det.counts == sc.counts and sc.counts[gate - 1] >= 1 and not det.is_unsure
    monkeypatch.setattr(detect, "_glare_needed", steps)
    without_unlit_network(monkeypatch)
    without_smeared_marbles(monkeypatch)
    missed = read(sc)
    assert missed.counts[gate - 1] == sc.counts[gate - 1] - 1 and missed.unsure[gate - 1]


def test_the_highlight_needed_is_a_line_through_the_two_scores() -> None:
    from hardware.vision import detect

    t, _glare_needed = detect.WITH_REFERENCE, detect._glare_needed
    STRONG_SCORE, VERY_STRONG_SCORE = detect.STRONG_SCORE, detect.VERY_STRONG_SCORE
    assert _glare_needed(STRONG_SCORE, t) == pytest.approx(t.strong_highlight)
    assert _glare_needed(VERY_STRONG_SCORE, t) == pytest.approx(t.very_strong_highlight)
    assert _glare_needed(0.5 * (STRONG_SCORE + VERY_STRONG_SCORE), t) == pytest.approx(
        0.5 * (t.strong_highlight + t.very_strong_highlight))
    assert _glare_needed(t.min_score, t) == 1.0 and _glare_needed(2.0, t) == t.very_strong_highlight
    assert all(_glare_needed(s, detect.WITHOUT_REFERENCE) == 1.0 for s in (0.4, 0.6, 0.7, 1.5))  # no discount


def test_a_low_lamp_s_shadow_reaches_farther() -> None:
    """The shadow's reach from the confident marbles' glare offset (radius 6): a glare half a
    radius off the centre is a lamp 60 degrees from the zenith, its shadow's centre tan(60) radii
    away; a high lamp keeps the usual reach, a very low one the longest; one marble is no measure."""
    from hardware.vision import detect

    def peaks(offset: float, n: int = 3, score: float = 1.0) -> list:
        return [(10 * i, 0, 6.0, score, 6.0 * offset, 0.0) for i in range(n)]

    assert detect._shadow_reach(peaks(0.5), 6.0) == pytest.approx(detect.SHADOW_BEYOND + 3 ** 0.5)
    assert detect._shadow_reach(peaks(0.1), 6.0) == detect.SHADOW_REACH
    assert detect._shadow_reach(peaks(0.9), 6.0) == detect.SHADOW_MAX_REACH
    assert detect._shadow_reach(peaks(0.5, n=1), 6.0) == detect.SHADOW_REACH
    assert detect._shadow_reach(peaks(0.5, score=0.5), 6.0) == detect.SHADOW_REACH


def test_a_marble_kept_where_a_low_lamp_puts_a_shadow_is_unsure(monkeypatch) -> None:
    """Held-out seed 72896, traced glass under a low lamp: a shadow with its caustic, beside a marble
    away from the lamp, is read as one more marble in gate 2. The gate waits for a tap; with the usual
    shadow reach only, the wrong count would be sure. (72026, 72138 and then 72053 were the case until
    distances were measured in the radius given, the review grew and the light correction followed a
    large shade's edge: now each is read right, or flagged without the longer reach.) The review's margin
    of 1.0 flags it as well; with the usual reach and the margin 0.5, the wrong count is sure."""
    from hardware.vision import detect

    sc = make_scene(72896, case="glass")

    det = read(sc)
    wrong = [g for g in range(6) if det.counts[g] != sc.counts[g]]
    assert wrong == [1] and det.unsure[1]
    monkeypatch.setattr(detect, "REVIEW_MARGIN", 0.5)
    assert read(sc).unsure[1]  # the longer reach alone
    monkeypatch.setattr(detect, "SHADOW_MAX_REACH", detect.SHADOW_REACH)
    plain = read(sc)
    assert plain.counts == det.counts and not any(plain.unsure[g] for g in wrong)


@pytest.mark.parametrize("seed, marbles", [(72044, 2), (72157, 5)])
def test_under_soft_light_a_clear_circle_needs_no_glare(monkeypatch, seed, marbles) -> None:
    """Held-out seeds 72044 and 72157, glass in gate 2 under soft light (no sharp glare on any
    marble): every marble of the gate is counted, sure. Demanding a glare there misses one (that gate
    unsure). A window's reflection on glass is dimmer than the board, however much it stands out of
    a marble (72172, three marbles in gate 2, was the case: judged by how much the glare stands out
    alone, the frame passed for lamp-lit and one marble was missed; a glare needed that falls with
    the circle's score now counts it either way)."""
    from hardware.vision import detect

    sc = make_scene(seed, case="glass")

    det = read(sc)
    assert det.counts == sc.counts and sc.counts[1] == marbles and not det.is_unsure
    monkeypatch.setattr(detect, "SOFT_GLARE", -math.inf)  # never soft
    without_unlit_network(monkeypatch)
    plain = read(sc)
    assert plain.counts[1] == marbles - 1 and plain.unsure[1]


def test_a_caustic_is_told_from_a_marble_by_the_lamp_s_physics(monkeypatch) -> None:
    """Held-out seed 72124, traced glass under a lamp: beside the two marbles of gate 3 lie their
    shadows with the caustics the glass focuses into them. The candidate review weighs a glare's
    spread (a caustic is spread, a glare a point), the darkening where a marble's own shadow would
    fall and the glare offsets along the light: the counts are right and sure. With the network's
    weights of those measurements set to 0 it reads the caustics in gate 3 as marbles."""
    from hardware.vision import candidates

    sc = make_scene(72124, case="glass")

    det = read(sc)
    assert det.counts == sc.counts and sc.counts[2] == 2 and not det.is_unsure
    weights = candidates.INPUT_WEIGHTS.copy()
    weights[candidates.FEATURE_NAMES.index("spot_spread"):] = 0.0  # the lamp's physics come last
    monkeypatch.setattr(candidates, "INPUT_WEIGHTS", weights)
    plain = read(sc)
    assert plain.counts[2] > sc.counts[2]


@pytest.mark.parametrize("seed, gate", [(72173, 1), (72221, 6)])
def test_distances_are_measured_in_the_radius_given(monkeypatch, seed, gate) -> None:
    """Held-out seeds 72173 and 72221, traced glass: every count right and sure (but for 72173's gate 1,
    where a faint change far from every marble waits for a tap: ``FAINT_CHANGE``). The votes of glass
    peak on its dark inner rim, so the radius measured in the frame is smaller than the one given;
    in that radius a shadow with its caustic lies out of the shadow rule's reach, and ``gate`` reads
    one marble more (flagged)."""
    from hardware.vision import detect

    sc = make_scene(seed, case="glass")
    det = read(sc)
    assert det.counts == sc.counts and det.unsure == (seed == 72173,) + (False,) * 5
    monkeypatch.setattr(detect, "RADIUS_FLOOR", 0.0)
    plain = read(sc)
    assert [p - t for p, t in zip(plain.counts, sc.counts)] == [int(g == gate) for g in range(1, 7)]
    assert plain.unsure[gate - 1]


def test_a_marble_the_review_kept_by_a_small_margin_makes_its_gate_unsure(monkeypatch) -> None:
    """Held-out seed 72002: the review keeps gate 5's second, touching marble (log-odds 2.5). Were every
    margin small, gate 5 would wait for a tap: a kept marble's close decision is not dropped as a
    second peak of that same marble. (Two marbles this close flag the gate too; that rule is off.)"""
    from hardware.vision import detect

    sc = make_scene(72002, case="touching")
    monkeypatch.setattr(detect, "CLOSE_PAIR", 0.0)
    det = read(sc)
    assert det.counts == sc.counts and sc.counts[4] == 2 and not det.unsure[4]
    monkeypatch.setattr(detect, "REVIEW_MARGIN", math.inf)
    det = read(sc)
    assert det.counts == sc.counts and det.unsure[4]


@pytest.mark.parametrize("log_odds, kept, unsure", [(0.8, True, True), (-0.8, False, True),
                                                     (1.2, True, False), (-1.2, False, False)])
def test_a_review_verdict_within_the_margin_is_unsure(log_odds, kept, unsure) -> None:
    """A network's verdict keeps a candidate above log-odds 0; within its margin of 0, either way, the
    candidate's place is a close decision (its gate waits for a tap): the review's ``REVIEW_MARGIN`` (1.0),
    the unlit network's ``UNLIT_MARGIN`` (2.0)."""
    from hardware.vision.detect import REVIEW_MARGIN, UNLIT_MARGIN

    peak = (40, 30, 6.0, 0.6, 1.0, -1.0)
    for margin in (REVIEW_MARGIN, UNLIT_MARGIN):
        near: list[tuple[int, int]] = [(5, 5)]  # the frame's close decisions so far
        assert _verdict(peak, log_odds * margin, near, margin) is kept
        assert near == ([(5, 5), (40, 30)] if unsure else [(5, 5)])


def test_a_circle_the_unlit_network_counts_by_little_makes_its_gate_unsure(monkeypatch) -> None:
    """Held-out seed 72033, the streak case under a shade 50 % darker through an sRGB camera: the unlit
    network counts a faint circle the shade left in gate 1 as a marble, by little (log-odds 1.5, within
    ``UNLIT_MARGIN``): gate 1, and only it, waits for a tap. At the review's margin (1.0) the wrong count
    would be sure. As taken, the scene reads right."""
    from hardware.vision import detect

    sc = make_scene(72033, case="streak")
    assert read(sc).counts == sc.counts
    picture = vision_fit.taken_under(sc, "shade 50 %, an sRGB camera")
    det = read(sc, picture)
    assert det.counts == (sc.counts[0] + 1, *sc.counts[1:]) and det.unsure == (True, *[False] * 5)
    monkeypatch.setattr(detect, "UNLIT_MARGIN", detect.REVIEW_MARGIN)
    det = read(sc, picture)
    assert det.counts[0] == sc.counts[0] + 1 and not det.is_unsure


def test_a_faint_smear_far_from_every_marble_makes_its_place_unsure() -> None:
    """``unexplained.faint_change`` on a change image: a disc of faint change (over ``FAINT_CHANGE``
    averaged over a marble's disc) far from the marble kept is reported at its centre; the same disc
    within ``FAINT_RADII`` of a marble (its shadow's reach) is not, nor one half as faint."""
    from hardware.vision import unexplained

    r, side = 6.0, 11
    change = np.zeros((60, 200), np.float32)
    yy, xx = np.mgrid[0:60, 0:200]
    smear = (xx - 150) ** 2 + (yy - 30) ** 2 <= (1.3 * r) ** 2
    change[smear] = 0.12
    kept = [(40, 30, r, 1.0, 0.0, 0.0)]

    def faint(change: np.ndarray, kept: list) -> list:
        return unexplained.faint_change(unexplained.disc_mean(change, side), kept, r)

    found = faint(change, kept)
    assert len(found) == 1 and abs(found[0][0] - 150) <= 1 and abs(found[0][1] - 30) <= 1
    near = [(150 - r, 30, r, 1.0, 0.0, 0.0)]
    assert faint(change, near) == []
    assert faint(change * 0.5, kept) == []


def _streak(change: np.ndarray, x0: float, x1: float, y: float, r: float, value: float) -> None:
    """Paint into ``change`` a marble's disc swept from (x0, y) to (x1, y) at ``value``: its roll's smear."""
    yy, xx = np.mgrid[0:change.shape[0], 0:change.shape[1]]
    along = np.clip(xx, x0, x1)
    change[(xx - along) ** 2 + (yy - y) ** 2 <= r * r] = value


def test_a_marble_smeared_by_its_roll_is_found_where_faint_change_has_its_shape(monkeypatch) -> None:
    """``unexplained.smeared_marbles`` on a change image: a marble's disc swept 2 radii (faint change over
    ``SMEAR_PEAK`` averaged over a disc) far from the marble kept is one marble, at the middle of its path; not
    within ``FAINT_RADII`` of a marble, nor fainter than ``SMEAR_PEAK``, nor a thin line (a caustic, a lamp's
    edge: ``SMEAR_ELONGATION``), nor a blob of many marbles' area (a clutter object under a new light:
    ``SMEAR_AREA``), nor a streak that hardly stands out of faint change all around it (what a person's shade
    leaves: ``SMEAR_CONTRAST``)."""
    from hardware.vision import unexplained

    r, side = 6.0, 11
    kept = [(30, 40, r, 1.0, 0.0, 0.0)]

    def smeared(change: np.ndarray, kept: list = kept) -> list:
        return unexplained.smeared_marbles(unexplained.disc_mean(change, side), kept, r)

    change = np.zeros((80, 240), np.float32)
    _streak(change, 144, 156, 40, r, 0.12)
    found = smeared(change)
    assert len(found) == 1 and abs(found[0][0] - 150) <= 2 and abs(found[0][1] - 40) <= 1
    assert smeared(change, [(150 - r, 40, r, 1.0, 0.0, 0.0)]) == []
    assert smeared(change * 0.4) == []
    line = np.zeros_like(change)
    _streak(line, 140, 160, 40, 1.5, 0.6)  # a thin line 3.3 radii long: as sharp a peak, half as wide
    wide = np.zeros_like(change)
    _streak(wide, 130, 170, 40, 2.5 * r, 0.12)  # faint change over five marbles' area
    assert smeared(line) == []
    assert smeared(wide) == []
    fainter = change * np.float32(0.08 / 0.12)
    shaded = fainter + np.float32(0.015)  # where a change of light left faint change all around
    assert len(smeared(fainter)) == 1
    assert smeared(shaded) == []
    monkeypatch.setattr(unexplained, "SMEAR_CONTRAST", 0.0)
    assert len(smeared(shaded)) == 1
    monkeypatch.setattr(unexplained, "SMEAR_ELONGATION", math.inf)
    monkeypatch.setattr(unexplained, "SMEAR_AREA", (1.0, math.inf))
    assert len(smeared(line)) == 1
    assert len(smeared(wide)) == 1


def test_a_faint_streak_far_from_every_marble_makes_its_place_unsure(monkeypatch) -> None:
    """``unexplained.faint_streaks`` on a change image: a marble's disc swept 2 radii, too faint to count as a
    marble (averaged over a disc, under ``SMEAR_PEAK`` but over ``STREAK_PEAK``), far from the marble kept, is
    reported at its peak, and so is a long thin one (any shape); not within ``FAINT_RADII`` of a marble, nor
    fainter than ``STREAK_PEAK``, nor a blob of many marbles' area, nor one that hardly stands out of faint change
    all around it (``SMEAR_CONTRAST``: what a person's shade leaves)."""
    from hardware.vision import unexplained

    r, side = 6.0, 11
    kept = [(30, 40, r, 1.0, 0.0, 0.0)]

    def streaks(change: np.ndarray, kept: list = kept) -> list:
        return unexplained.faint_streaks(unexplained.disc_mean(change, side), kept, r)

    change = np.zeros((80, 240), np.float32)
    _streak(change, 144, 156, 40, r, 0.06)
    mean = unexplained.disc_mean(change, side)
    assert unexplained.STREAK_PEAK < float(mean.max()) < unexplained.SMEAR_PEAK  # too faint to count
    assert unexplained.smeared_marbles(mean, kept, r) == []
    found = streaks(change)
    assert len(found) == 1 and abs(found[0][0] - 150) <= 2 and abs(found[0][1] - 40) <= 1
    assert streaks(change, [(150 - r, 40, r, 1.0, 0.0, 0.0)]) == []
    assert streaks(change * 0.5) == []
    long = np.zeros_like(change)
    _streak(long, 138, 162, 40, 0.4 * r, 0.1)  # a line 5 radii long, 0.8 wide: counts as no marble, yet flags
    assert unexplained.smeared_marbles(unexplained.disc_mean(long, side), kept, r) == []
    assert len(streaks(long)) == 1
    wide = np.zeros_like(change)
    _streak(wide, 130, 170, 40, 2.5 * r, 0.06)  # faint change over five marbles' area
    assert streaks(wide) == []
    assert streaks(change + np.float32(0.012)) == []  # faint change all around
    monkeypatch.setattr(unexplained, "SMEAR_CONTRAST", 0.0)
    assert len(streaks(change + np.float32(0.012))) == 1


def test_a_marble_rolling_too_fast_to_count_makes_its_gate_wait_for_a_tap(monkeypatch) -> None:
    """Held-out streak scene 72080: clear glass rolling fast in gate 6 leaves too faint a streak to count. Its
    gate (only) waits for a tap; without ``faint_streaks`` the miss was sure."""
    from hardware.vision import unexplained

    sc = make_scene(72080, case="streak")
    det = read(sc)
    assert det.counts[5] == sc.counts[5] - 1 and det.counts[:5] == sc.counts[:5]
    assert det.unsure == (False,) * 5 + (True,)
    monkeypatch.setattr(unexplained, "STREAK_PEAK", math.inf)
    assert not read(sc).is_unsure


def test_a_marble_still_rolling_is_counted_from_its_smear_and_waits_for_a_tap(monkeypatch) -> None:
    """Held-out streak scene 72058: faint glass rolling 1.6 radii in gate 3 shows no outline and no glare. The
    smear is counted as its marble, and gate 3 is unsure; without ``smeared_marbles`` it read 0 there."""
    sc = make_scene(72058, case="streak")
    rolling = [m for m in sc.marbles if m.blur and m.gate == 3]
    assert rolling and sc.counts[2] == 1
    det = read(sc)
    assert det.counts == sc.counts and det.unsure[2]
    without_smeared_marbles(monkeypatch)
    assert read(sc).counts[2] == 0


@pytest.mark.parametrize("seed, case, gate", [(72017, "touching", 2), (72076, "clear", 5)])
def test_a_near_miss_too_close_to_a_marble_to_add_one_is_no_close_decision(monkeypatch, seed, case, gate) -> None:
    """Held-out seeds 72017 and 72076 (72052 until the light change was measured on ``circles.RATIO_TABLE``):
    every count right and sure. A peak that nearly passed lies between 1 and
    ``NEAR_SAME`` radii (the review's nearest) from a marble kept: had it passed, no second marble would be kept
    that close, so the count could not change. Counted as a close decision out to 1 radius only, it made its gate
    wait for a tap."""
    from hardware.vision import detect

    sc = make_scene(seed, case=case)
    det = read(sc)
    assert det.counts == sc.counts and not det.is_unsure
    monkeypatch.setattr(detect, "NEAR_SAME", 1.0)
    plain = read(sc)
    assert plain.counts == sc.counts and plain.unsure == tuple(g == gate for g in range(1, 7))

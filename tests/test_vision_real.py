"""Marble vision on real photographs, only where a copy exists (nothing is downloaded at test time).

Set COMPANION_REAL_PHOTOS to a copy of github.com/TrinityPandaLab/marble-unet. No reference exists in
that set, so the detector runs without one: every gate is unsure, and the counts are what the
no-reference path reaches on black glass on bedding (first 40 photos; the floors sit at the level
reached). Set COMPANION_REAL_SEQUENCE to a copy of github.com/robevans/Advanced-Vision-1 (and have
scipy) for the sequence with an empty reference (``bench.bench_real_sequence``; its floors too sit at
the level reached, measured and never tuned to). The gates' grid is checked without either.
"""

from __future__ import annotations

import pytest

from bench import bench_real_sequence as sequence
from bench.bench_real_photos import evaluate, grid, load_photos, photo_folder

GATES_EXACT_FLOOR = 0.9  # reached 0.942 (0.933 in whole working pixels, 0.871 while every weak edge voted)
SIX_EXACT_FLOOR = 0.7  # reached 0.750 (0.500 before)
SEQUENCE_GATES_FLOOR = 0.955  # reached 0.960 with the reference (0.962 before the unlit network was refitted under
# a table's conditions, 0.950 before a marble smeared by its roll counted)
SEQUENCE_SIX_FLOOR = 0.81  # reached 0.814; 0.829 before the unlit network was refitted under a table's conditions
# (in frame 8 it now counts a caustic 1.6 radii from a marble, at log-odds 0.08: that gate waits for a tap), 0.843
# before a smear had to stand out, 0.771 before smears counted
MOTION_CAUGHT_FLOOR = 0.85  # reached 0.905 of the gates whose labelled marbles moved
MOTION_FALSE_CEILING = 0.02  # reached 0.004 (1 still gate of 225)


@pytest.fixture(scope="module")
def figures() -> dict[str, float]:
    root = photo_folder()
    if root is None:
        pytest.skip("COMPANION_REAL_PHOTOS does not name a copy of the marble-unet photos")
    photos, radius = load_photos(root, limit=40)
    assert len(photos) == 40 and 5.0 < radius < 12.0
    assert all(sum(p.counts) >= 1 for p in photos)  # the set has no empty frames
    return evaluate(photos, radius)


def test_real_photos_counts(figures) -> None:
    assert figures["gates_exact"] >= GATES_EXACT_FLOOR, figures
    assert figures["six_exact"] >= SIX_EXACT_FLOOR, figures


def test_real_photos_without_reference_are_all_unsure(figures) -> None:
    assert figures["unsure"] == 1.0


def test_the_grid_of_gates_stays_its_margin_in_from_the_edges() -> None:
    regions = grid(640, 480, 20.0)
    assert regions.gate_at(10.0, 10.0) is None and regions.gate_at(630.0, 470.0) is None
    assert regions.gate_at(21.0, 21.0) == 1 and regions.gate_at(619.0, 459.0) == 6
    assert regions.gate_at(320.0, 100.0) == 2 and regions.gate_at(100.0, 300.0) == 4
    assert sequence._near_a_line(222.0, 100.0, regions, 8.0)  # the line between gates 1 and 2 lies at x 220
    assert not sequence._near_a_line(100.0, 100.0, regions, 8.0)
    assert not sequence._near_a_line(25.0, 100.0, regions, 8.0)  # the outer edge is no line between gates


@pytest.fixture(scope="module")
def real_sequence() -> sequence.Sequence:
    root = sequence.sequence_folder()
    if root is None:
        pytest.skip("COMPANION_REAL_SEQUENCE does not name a copy of the Advanced-Vision-1 sequence")
    pytest.importorskip("scipy", reason="the sequence's labels (gtSeq1.mat) are read with scipy")
    return sequence.load_sequence(root)


@pytest.fixture(scope="module")
def sequence_figures(real_sequence: sequence.Sequence) -> dict[str, float]:
    return sequence.evaluate(real_sequence)


def test_real_sequence_counts_with_the_reference(sequence_figures) -> None:
    assert sequence_figures["frames"] == sequence.FRAMES - 1
    assert 6.0 < sequence_figures["radius"] < 11.0  # the tap's measure of a marble about 16 px across
    assert sequence_figures["gates_exact"] >= SEQUENCE_GATES_FLOOR, sequence_figures
    assert sequence_figures["six_exact"] >= SEQUENCE_SIX_FLOOR, sequence_figures


def test_real_marbles_still_rolling_are_seen_moving_and_resting_ones_are_not(real_sequence) -> None:
    figures = sequence.motion(real_sequence)
    assert figures["moving"] > 100 and figures["still"] > 100  # the sequence holds enough of both
    assert figures["caught"] >= MOTION_CAUGHT_FLOOR, figures
    assert figures["false_alarms"] <= MOTION_FALSE_CEILING, figures


def test_the_real_frames_at_rest_read_as_labelled(real_sequence) -> None:
    """The frames a table reads once its marbles settle (nothing moved since the frame before). Reached: 15 frames,
    14 all six exact, none flagged; frame 4 holds a clear marble rolling in so fast that it leaves only a faint
    streak, which neither the reading nor the check for a marble still rolling sees (a gate wrong and not
    flagged: the hub's confirmation, reading three frames, has none)."""
    rest = sequence.at_rest(real_sequence)
    assert rest["frames"] >= 12, rest
    assert rest["six_exact"] >= 0.9, rest
    assert rest["wrong_sure"] * rest["frames"] <= 1.0 + 1e-9, rest


def test_the_hubs_confirmation_replayed_on_the_real_sequence_waits_for_rest(real_sequence) -> None:
    """Started at every frame: reached 0.838 all six exact waiting for a still picture (0.853 before a marble by a
    border was placed by its fitted outline, ``hardware.vision.centre``: starts 47 and 48 report frames 55 and 56, where
    a marble rolls along the line between gates 3 and 6, 0.4 pixels from it, read in gate 3 in some of the three frames
    and gate 6 in others, both flagged either way), 0.824 without (0.809 before the unlit network was refitted under a
    table's conditions), none read wrong and sure (0.882 and 0.853 before a smear had to stand out of the change around
    it; 0.853 and 0.779 before a marble smeared by its roll counted from its smear, read wrong and sure 0.015 in
    both)."""
    waiting = sequence.confirmations(real_sequence)
    not_waiting = sequence.confirmations(real_sequence, wait_for_still=False)
    assert waiting["starts"] == sequence.FRAMES - 3
    assert waiting["six_exact"] >= 0.83, waiting
    assert waiting["six_exact"] > not_waiting["six_exact"] + 0.02, (waiting, not_waiting)
    assert waiting["wrong_sure"] <= not_waiting["wrong_sure"], (waiting, not_waiting)

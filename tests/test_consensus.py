"""One reading from a few frames of the same resting marbles (hardware/vision/consensus.py), edge by edge:
what most frames read counts, a disagreement makes its gate unsure (ruling D4), flags go by majority."""
from __future__ import annotations

import pytest

from hardware.vision.consensus import consensus
from hardware.vision.detect import Detection, Marble

F, T = False, True


def reading(counts: tuple[int, ...], unsure: tuple[bool, ...] = (F,) * 6, outside: int = 0,
            marbles: tuple[Marble, ...] = (), with_reference: bool = True) -> Detection:
    return Detection(counts, outside, marbles, unsure, with_reference)  # type: ignore[arg-type]


def test_one_frame_is_its_own_consensus() -> None:
    one = reading((1, 0, 2, 0, 0, 0), (F, F, T, F, F, F), outside=1)
    assert consensus([one]) == (one, 0)


def test_frames_that_agree_give_their_reading_with_no_new_flag() -> None:
    a = reading((1, 0, 2, 0, 0, 0), marbles=(Marble(10, 10, 5, 1),))
    b = reading((1, 0, 2, 0, 0, 0), marbles=(Marble(11, 10, 5, 1),))
    agreed, best = consensus([a, b, b])
    assert agreed == a and best == 0  # the first frame's marbles, nothing unsure


def test_a_gate_read_differently_takes_what_most_frames_read_and_is_unsure() -> None:
    two = reading((0, 0, 2, 0, 0, 1))
    three = reading((0, 0, 3, 0, 0, 1))
    agreed, best = consensus([three, two, two])
    assert agreed.counts == (0, 0, 2, 0, 0, 1)
    assert agreed.unsure == (F, F, T, F, F, F)  # only the gate the frames disagree on
    assert best == 1  # the first frame that reads every agreed count: its picture is the one shown


def test_a_flag_counts_when_most_frames_raise_it() -> None:
    counts = (1, 1, 0, 0, 0, 0)
    once = [reading(counts, (T, F, F, F, F, F)), reading(counts), reading(counts)]
    twice = [reading(counts, (T, F, F, F, F, F)), reading(counts, (T, T, F, F, F, F)), reading(counts)]
    assert consensus(once)[0].unsure == (F,) * 6  # one noisy frame's close decision
    assert consensus(twice)[0].unsure == (T, F, F, F, F, F)
    half = [reading(counts, (T, F, F, F, F, F)), reading(counts)]
    assert consensus(half)[0].unsure == (F,) * 6  # half is not most


def test_a_tie_takes_the_first_frames_count_and_is_unsure() -> None:
    agreed, best = consensus([reading((2, 0, 0, 0, 0, 0)), reading((1, 0, 0, 0, 0, 0))])
    assert agreed.counts == (2, 0, 0, 0, 0, 0) and agreed.unsure[0] and best == 0
    all_differ = [reading((0, 0, 0, 0, 0, n)) for n in (3, 1, 2)]
    agreed, best = consensus(all_differ)
    assert agreed.counts[5] == 3 and agreed.unsure[5] and best == 0


def test_the_outside_count_goes_by_most_frames_too() -> None:
    agreed, best = consensus([reading((1,) * 6, outside=0), reading((1,) * 6, outside=1),
                              reading((1,) * 6, outside=1)])
    assert agreed.outside == 1 and best == 1 and agreed.unsure == (F,) * 6


def test_without_a_reference_in_any_frame_the_reading_has_none() -> None:
    agreed, _ = consensus([reading((0,) * 6), reading((0,) * 6, (T,) * 6, with_reference=False)])
    assert not agreed.with_reference


def test_no_frame_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        consensus([])


def test_the_reading_is_too_noisy_when_most_frames_are() -> None:
    noisy = Detection((0,) * 6, 0, (), (T,) * 6, True, noisy=True)  # type: ignore[arg-type]
    clean = reading((0,) * 6)
    assert consensus([noisy, noisy, clean])[0].noisy
    assert consensus([noisy, noisy, clean])[0].unsure == (T,) * 6  # every gate flagged by most frames
    assert not consensus([noisy, clean, clean])[0].noisy

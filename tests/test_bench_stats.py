"""The interval printed beside every measured rate (``hardware.vision.evaluate.wilson``, by ``bench.stats.rate``
and by ``companion detect --eval``)."""

from __future__ import annotations

import random

import pytest

from bench.stats import rate
from hardware.vision.evaluate import wilson


def test_no_hits_reaches_up_to_the_closed_form() -> None:
    z = 1.96
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(z * z / (10 + z * z))


def test_hits_and_misses_mirror_each_other() -> None:
    for hits, n in ((57, 70), (3, 500), (499, 500)):
        low, high = wilson(hits, n)
        mlow, mhigh = wilson(n - hits, n)
        assert (low, high) == pytest.approx((1 - mhigh, 1 - mlow))
        assert low < hits / n < high


def test_more_trials_narrow_it() -> None:
    widths = [wilson(round(0.9 * n), n)[1] - wilson(round(0.9 * n), n)[0] for n in (70, 700, 7000)]
    assert widths[0] > 2.5 * widths[1] > 6 * widths[2]


def test_it_covers_the_true_rate_about_95_times_in_100() -> None:
    rng = random.Random(13)
    covered = 0
    for _ in range(2000):
        hits = sum(rng.random() < 0.9 for _ in range(70))
        low, high = wilson(hits, 70)
        covered += low <= 0.9 <= high
    assert 0.92 <= covered / 2000 <= 0.98


def test_printed_with_its_interval() -> None:
    assert rate(57, 70) == "0.814 (0.708..0.888)"
    assert wilson(0, 0) == (0.0, 1.0)

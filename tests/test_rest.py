"""RestWatcher: when do the marbles rest (camera-alone mode, ruling D3)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.vision.rest import RestWatcher

EMPTY = (0, 0, 0, 0, 0, 0)
ONE_IN_2 = (0, 1, 0, 0, 0, 0)
TWO = (0, 1, 0, 0, 1, 0)


def feed(watcher: RestWatcher, readings: list[tuple[tuple[int, ...], int]], start: float, step: float) -> list:
    """Feed readings ``step`` seconds apart from ``start``; returns what update gave for each."""
    return [watcher.update(counts, outside, start + i * step) for i, (counts, outside) in enumerate(readings)]


def test_stable_reading_triggers_once_at_settle_time() -> None:
    w = RestWatcher(settle_s=1.0, min_frames=3)
    results = feed(w, [(ONE_IN_2, 0)] * 20, 100.0, 0.2)  # seen at 100.0, 100.2, ... 103.8
    # at 101.0 (6th frame) it has been seen for 1.0 s across 6 frames
    assert results[:5] == [None] * 5
    assert results[5] == (ONE_IN_2, 0)
    assert results[6:] == [None] * 14
    assert w.resting == (ONE_IN_2, 0)
    assert not w.is_empty


def test_needs_min_frames_as_well_as_time() -> None:
    w = RestWatcher(settle_s=1.0, min_frames=3)
    assert w.update(ONE_IN_2, 0, 0.0) is None
    assert w.update(ONE_IN_2, 0, 5.0) is None  # 5 s but only 2 frames
    assert w.update(ONE_IN_2, 0, 5.1) == (ONE_IN_2, 0)


def test_needs_time_as_well_as_frames() -> None:
    w = RestWatcher(settle_s=1.0, min_frames=3)
    results = feed(w, [(ONE_IN_2, 0)] * 10, 0.0, 0.1)  # 10 frames within 0.9 s
    assert results == [None] * 10
    assert w.update(ONE_IN_2, 0, 1.0) == (ONE_IN_2, 0)


def test_flicker_never_triggers() -> None:
    w = RestWatcher()
    readings = [(ONE_IN_2, 0), (TWO, 0), (ONE_IN_2, 1)] * 30  # alternates every frame for 18 s
    assert feed(w, readings, 0.0, 0.2) == [None] * len(readings)
    assert w.resting is None


def test_each_change_restarts_the_clock() -> None:
    w = RestWatcher(settle_s=1.0, min_frames=3)
    feed(w, [(ONE_IN_2, 0)] * 4, 0.0, 0.2)  # 0.0 .. 0.6: not yet at rest
    assert w.update(TWO, 0, 0.8) is None  # a second marble lands
    assert feed(w, [(TWO, 0)] * 4, 1.0, 0.2) == [None] * 4  # 1.0 .. 1.6: 0.8 s since the change
    assert w.update(TWO, 0, 1.8) == (TWO, 0)


def test_changed_reading_triggers_again() -> None:
    w = RestWatcher(settle_s=0.5, min_frames=2)
    first = feed(w, [(ONE_IN_2, 0)] * 5, 0.0, 0.25)
    second = feed(w, [(TWO, 0)] * 5, 2.0, 0.25)
    third = feed(w, [(ONE_IN_2, 0)] * 5, 4.0, 0.25)
    assert [r for r in first if r] == [(ONE_IN_2, 0)]
    assert [r for r in second if r] == [(TWO, 0)]
    assert [r for r in third if r] == [(ONE_IN_2, 0)]  # differs from the previous resting reading


def test_flicker_back_to_the_resting_reading_does_not_retrigger() -> None:
    w = RestWatcher(settle_s=0.5, min_frames=2)
    assert [r for r in feed(w, [(TWO, 0)] * 5, 0.0, 0.25) if r] == [(TWO, 0)]
    # a hand passes over: one marble hidden for two frames, then the same reading again for long
    feed(w, [(ONE_IN_2, 0)] * 2, 2.0, 0.1)
    assert feed(w, [(TWO, 0)] * 20, 3.0, 0.25) == [None] * 20


def test_empty_readings_never_trigger_but_rearm() -> None:
    w = RestWatcher(settle_s=0.5, min_frames=2)
    assert feed(w, [(EMPTY, 0)] * 20, 0.0, 0.25) == [None] * 20
    assert w.is_empty
    assert w.resting == (EMPTY, 0)
    assert [r for r in feed(w, [(ONE_IN_2, 0)] * 5, 10.0, 0.25) if r] == [(ONE_IN_2, 0)]
    assert not w.is_empty
    # the marbles are taken back (the board rests empty), next round the same result again
    assert feed(w, [(EMPTY, 0)] * 5, 20.0, 0.25) == [None] * 5
    assert [r for r in feed(w, [(ONE_IN_2, 0)] * 5, 30.0, 0.25) if r] == [(ONE_IN_2, 0)]


def test_brief_empty_flicker_does_not_rearm() -> None:
    w = RestWatcher(settle_s=0.5, min_frames=2)
    feed(w, [(ONE_IN_2, 0)] * 5, 0.0, 0.25)
    assert w.update(EMPTY, 0, 2.0) is None
    assert w.is_empty
    assert feed(w, [(ONE_IN_2, 0)] * 10, 2.1, 0.25) == [None] * 10


def test_misses_alone_count_as_marbles() -> None:
    w = RestWatcher(settle_s=0.5, min_frames=2)
    results = feed(w, [(EMPTY, 1)] * 5, 0.0, 0.25)  # D4: a miss counts for no gate, but it is a throw
    assert [r for r in results if r] == [(EMPTY, 1)]
    assert not w.is_empty


def test_reset_forgets_the_resting_reading() -> None:
    w = RestWatcher(settle_s=0.5, min_frames=2)
    feed(w, [(TWO, 0)] * 5, 0.0, 0.25)
    w.reset()
    assert w.resting is None and w.reading is None and not w.is_empty
    assert [r for r in feed(w, [(TWO, 0)] * 5, 2.0, 0.25) if r] == [(TWO, 0)]


def test_clock_going_back_restarts_the_wait() -> None:
    w = RestWatcher(settle_s=1.0, min_frames=2)
    assert w.update(TWO, 0, 50.0) is None
    assert w.update(TWO, 0, 10.0) is None  # clock jumped back: not 40 s of rest
    assert w.update(TWO, 0, 10.5) is None
    assert w.update(TWO, 0, 11.0) == (TWO, 0)


def test_accepts_numpy_counts_and_returns_plain_tuples() -> None:
    w = RestWatcher(settle_s=0.0, min_frames=1)
    result = w.update(np.array([0, 2, 0, 0, 0, 1]), np.int64(0), 0.0)
    assert result == ((0, 2, 0, 0, 0, 1), 0)
    assert all(type(v) is int for v in result[0]) and type(result[1]) is int


@pytest.mark.parametrize(("counts", "outside", "word"), [
    ((0, -1, 0, 0, 0, 0), 0, "counts"),
    ((0, 1.5, 0, 0, 0, 0), 0, "counts"),
    (EMPTY, -2, "outside"),
    (EMPTY, True, "outside"),
    (3, 0, "sequence"),
])
def test_bad_readings_are_named(counts, outside, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        RestWatcher().update(counts, outside, 0.0)


@pytest.mark.parametrize(("kwargs", "word"), [
    ({"settle_s": -1.0}, "settle_s"),
    ({"settle_s": "1"}, "settle_s"),
    ({"min_frames": 0}, "min_frames"),
    ({"min_frames": 2.5}, "min_frames"),
])
def test_bad_settings_are_named(kwargs: dict, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        RestWatcher(**kwargs)


def test_a_picture_that_moved_starts_the_wait_again_with_the_same_counts() -> None:
    """A marble rolls on inside its gate: the counts stay, but no rest until a second of still frames."""
    w = RestWatcher(settle_s=1.0, min_frames=3)
    assert w.update(ONE_IN_2, 0, 100.0) is None
    assert w.update(ONE_IN_2, 0, 100.4) is None
    assert w.update(ONE_IN_2, 0, 100.8, moving=True) is None  # the wait starts again here
    assert w.update(ONE_IN_2, 0, 101.2) is None  # 1.2 s of the same counts, but 0.4 s still
    assert w.update(ONE_IN_2, 0, 101.6) is None
    assert w.update(ONE_IN_2, 0, 101.8) == (ONE_IN_2, 0)  # a second after the last move, four frames
    assert w.update(ONE_IN_2, 0, 102.2, moving=True) is None  # a nudge of the resting reading reports nothing
    assert w.update(ONE_IN_2, 0, 103.4) is None  # and it is no new rest
    assert w.resting == (ONE_IN_2, 0)


def test_it_says_when_it_waits_for_marbles_to_rest() -> None:
    """Marbles seen and not yet at rest: waiting (the page says the camera scores them once they rest); at rest,
    with the board empty, or back to the resting reading after a flicker: not."""
    w = RestWatcher(settle_s=1.0, min_frames=3)
    assert not w.waiting  # nothing seen yet
    w.update(EMPTY, 0, 0.0)
    assert not w.waiting
    w.update(ONE_IN_2, 0, 0.2)
    assert w.waiting
    feed(w, [(ONE_IN_2, 0)] * 3, 0.4, 0.2)
    assert w.waiting  # 0.6 s: still rolling, maybe
    assert w.update(ONE_IN_2, 0, 1.2) == (ONE_IN_2, 0)
    assert not w.waiting
    w.update(TWO, 0, 1.4)
    assert w.waiting  # a second marble lands
    w.update(ONE_IN_2, 0, 1.6)
    assert not w.waiting  # a flicker, back to what rested
    w.update(EMPTY, 0, 1.8)
    assert not w.waiting  # the marbles taken back
    w.update(ONE_IN_2, 1, 2.0, moving=True)
    assert w.waiting

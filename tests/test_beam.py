"""The break-beam state machine on synthetic timestamped edges (no threads, no gpiozero)."""

from __future__ import annotations

import pytest

from hardware.beam import BeamEventKind, BeamTiming, BeamTracker

K = BeamEventKind


def pulse(tr: BeamTracker, start: float, width: float) -> list:
    """A clean pulse: beam broken at ``start``, cleared ``width`` ms later."""
    return tr.edge(start, True) + tr.edge(start + width, False)


def chattering_pulse(tr: BeamTracker, start: float, width: float, chatter: float = 0.2,
                     step: float = 0.05) -> list:
    """A pulse whose edges chatter for ``chatter`` ms at both ends (edges ``step`` ms apart)."""
    events = []
    n = round(chatter / step)
    assert n % 2 == 0, "an even number of steps ends the start chatter broken"
    for i in range(n + 1):  # broken, clear, broken, ... ending broken
        events += tr.edge(start + i * step, i % 2 == 0)
    end = start + width
    for i in range(n + 1):  # clear, broken, clear, ... ending clear
        events += tr.edge(end - chatter + i * step, i % 2 == 1)
    return events


def kinds(events: list) -> list[BeamEventKind]:
    return [e.kind for e in events]


@pytest.mark.parametrize("width", [1.0, 2.0, 15.0, 40.0])
def test_pulses_from_1_ms_count_as_one_marble(width: float) -> None:
    tr = BeamTracker()
    events = pulse(tr, 100.0, width) + tr.tick(100.0 + width + 2.0)
    assert kinds(events) == [K.MARBLE]
    assert events[0].width_ms == pytest.approx(width)
    assert (tr.marbles, tr.glitches, tr.last_width_ms) == (1, 0, pytest.approx(width))


def test_half_a_millisecond_is_a_glitch_not_a_marble() -> None:
    tr = BeamTracker()
    events = pulse(tr, 10.0, 0.5) + tr.tick(20.0)
    assert kinds(events) == [K.GLITCH]
    assert (tr.marbles, tr.glitches) == (0, 1)


def test_several_widths_in_a_row_each_count_once() -> None:
    tr = BeamTracker()
    t = 0.0
    for width in (1.0, 2.0, 15.0, 40.0, 0.5):
        pulse(tr, t, width)
        t += 400.0  # well past the refractory time
    tr.tick(t)
    assert (tr.marbles, tr.glitches, tr.repeats) == (4, 1, 0)


def test_a_pulse_ends_only_after_the_merge_gap() -> None:
    tr = BeamTracker()
    pulse(tr, 0.0, 15.0)
    assert tr.deadline_ms() == pytest.approx(17.0)
    assert not tr.settled
    assert tr.tick(16.9) == []
    assert tr.marbles == 0
    assert kinds(tr.tick(17.0)) == [K.MARBLE]
    assert tr.settled and tr.deadline_ms() is None


def test_15_ms_pulse_with_chatter_on_both_edges_is_one_marble() -> None:
    tr = BeamTracker()
    events = chattering_pulse(tr, 50.0, 15.0) + tr.tick(100.0)
    assert kinds(events) == [K.MARBLE]
    assert events[0].width_ms == pytest.approx(15.0)
    assert (tr.marbles, tr.glitches) == (1, 0)


def test_ten_chattering_marbles_count_ten() -> None:
    tr = BeamTracker()
    for i in range(10):
        chattering_pulse(tr, i * 300.0, 15.0)
    tr.tick(10 * 300.0)
    assert (tr.marbles, tr.glitches, tr.repeats) == (10, 0, 0)


def test_three_marbles_in_300_ms_through_different_gates() -> None:
    gates = [BeamTracker() for _ in range(6)]
    pulse(gates[1], 0.0, 12.0)
    pulse(gates[3], 140.0, 20.0)
    pulse(gates[5], 280.0, 9.0)
    for tr in gates:
        tr.tick(300.0)
    assert [tr.marbles for tr in gates] == [0, 1, 0, 1, 0, 1]
    assert sum(tr.glitches for tr in gates) == 0


def test_marbles_through_one_gate_further_apart_than_the_refractory_time() -> None:
    tr = BeamTracker()
    pulse(tr, 0.0, 15.0)
    pulse(tr, 200.0, 15.0)  # starts 185 ms after the first ended
    tr.tick(300.0)
    assert (tr.marbles, tr.repeats) == (2, 0)


def test_a_marble_rolling_back_counts_once() -> None:
    tr = BeamTracker()
    pulse(tr, 0.0, 15.0)
    events = pulse(tr, 80.0, 25.0) + tr.tick(110.0)  # back through the beam 65 ms later
    assert kinds(events) == [K.MARBLE, K.REPEAT]
    assert (tr.marbles, tr.repeats) == (1, 1)
    # ...and rolling forward once more, still within the refractory time of the repeat
    pulse(tr, 200.0, 15.0)
    tr.tick(300.0)
    assert (tr.marbles, tr.repeats) == (1, 2)
    # a new marble well after that counts
    pulse(tr, 600.0, 15.0)
    tr.tick(700.0)
    assert (tr.marbles, tr.repeats) == (2, 2)


def test_stuck_beam_is_flagged_counts_nothing_and_recovers() -> None:
    tr = BeamTracker()
    tr.edge(1000.0, True)
    assert tr.tick(2499.0) == [] and not tr.stuck
    assert kinds(tr.tick(2500.0)) == [K.STUCK]
    assert tr.stuck and tr.blocked
    assert tr.tick(3000.0) == []  # flagged once
    tr.edge(4000.0, False)
    assert tr.tick(4002.0) == []  # the stuck pulse ended and counts nothing...
    assert tr.last_width_ms == pytest.approx(3000.0)
    assert tr.stuck and not tr.blocked  # ...and the beam must stay clear for recover_ms
    assert tr.tick(4499.0) == []
    assert kinds(tr.tick(4500.0)) == [K.CLEARED]
    assert not tr.stuck
    assert (tr.marbles, tr.glitches, tr.long_pulses) == (0, 0, 0)
    pulse(tr, 4600.0, 15.0)
    tr.tick(4700.0)
    assert tr.marbles == 1


def test_stuck_is_noticed_from_a_late_edge_without_a_tick() -> None:
    tr = BeamTracker()
    tr.edge(0.0, True)
    events = tr.edge(2000.0, False) + tr.tick(2010.0)
    assert kinds(events) == [K.STUCK]
    assert kinds(tr.tick(2500.0)) == [K.CLEARED]
    assert tr.marbles == 0


def test_chatter_while_stuck_keeps_it_stuck() -> None:
    tr = BeamTracker()
    tr.edge(0.0, True)
    tr.tick(1600.0)
    tr.edge(1700.0, False)
    tr.edge(1700.3, True)  # within the merge gap: the same long pulse goes on
    assert tr.tick(1800.0) == [] and tr.stuck


def test_a_pulse_longer_than_max_but_shorter_than_stuck() -> None:
    tr = BeamTracker()
    events = pulse(tr, 0.0, 800.0) + tr.tick(900.0)
    assert kinds(events) == [K.LONG]
    assert (tr.marbles, tr.glitches, tr.long_pulses, tr.stuck) == (0, 0, 1, False)
    assert tr.last_width_ms == pytest.approx(800.0)


def test_exactly_max_pulse_still_counts() -> None:
    tr = BeamTracker()
    pulse(tr, 0.0, 500.0)
    tr.tick(600.0)
    assert (tr.marbles, tr.long_pulses) == (1, 0)


def test_a_burst_of_glitches_flags_the_beam_flaky_then_steady() -> None:
    tr = BeamTracker()
    events = []
    for i in range(5):
        events += pulse(tr, i * 20.0, 0.3)
    events += tr.tick(100.0)
    assert kinds(events) == [K.GLITCH] * 5 + [K.FLAKY]
    assert (tr.marbles, tr.glitches, tr.flaky) == (0, 5, True)
    assert tr.tick(5000.0) == [] and tr.flaky
    assert kinds(tr.tick(80.3 + 10_000.0 + 1.0)) == [K.STEADY]
    assert not tr.flaky and tr.glitches == 5


def test_four_glitches_are_not_flaky() -> None:
    tr = BeamTracker()
    for i in range(4):
        pulse(tr, i * 20.0, 0.3)
    tr.tick(200.0)
    assert (tr.glitches, tr.flaky) == (4, False)


def test_glitches_spread_out_are_not_flaky() -> None:
    tr = BeamTracker()
    for i in range(8):
        pulse(tr, i * 3000.0, 0.3)  # at most 4 in any 10 s window
    tr.tick(30_000.0)
    assert (tr.glitches, tr.flaky) == (8, False)


def test_a_flickering_loose_cable_is_a_glitch_not_a_marble() -> None:
    tr = BeamTracker()
    t = 0.0
    for _ in range(20):  # 0.3 ms broken, 0.5 ms clear: edges closer than the merge gap
        tr.edge(t, True)
        tr.edge(t + 0.3, False)
        t += 0.8
    events = tr.tick(t + 5.0)
    assert kinds(events) == [K.GLITCH]
    assert (tr.marbles, tr.glitches) == (0, 1)


def test_beam_blocked_from_the_start_never_makes_marbles() -> None:
    """A gate wired the wrong way round: broken while nothing passes, clear when a marble does."""
    tr = BeamTracker(t0_ms=0.0, blocked=True)
    assert kinds(tr.tick(1500.0)) == [K.STUCK]
    t = 2000.0
    for gap in (2000.0, 45.0, 45.0, 300.0, 45.0, 2000.0):  # marbles make 15 ms clear gaps
        tr.edge(t, False)
        tr.edge(t + 15.0, True)
        t += gap
        tr.tick(t)
        assert tr.stuck
    assert (tr.marbles, tr.glitches, tr.long_pulses, tr.repeats) == (0, 0, 0, 0)


def test_a_stuck_beam_blocked_again_while_recovering_stays_stuck() -> None:
    tr = BeamTracker()
    tr.edge(0.0, True)
    tr.tick(1500.0)
    tr.edge(2000.0, False)
    pulse(tr, 2300.0, 15.0)  # a marble-like pulse during the recovery counts nothing
    assert tr.tick(2800.0) == [] and tr.stuck
    assert kinds(tr.tick(2315.0 + 500.0)) == [K.CLEARED]
    assert tr.marbles == 0


def test_a_pulse_under_way_at_start_is_partial() -> None:
    tr = BeamTracker(t0_ms=0.0, blocked=True)
    events = tr.edge(10.0, False) + tr.tick(20.0)
    assert kinds(events) == [K.PARTIAL]
    assert (tr.marbles, tr.glitches) == (0, 0)


def test_repeated_level_reports_are_ignored() -> None:
    tr = BeamTracker()
    tr.edge(0.0, False)  # already clear
    tr.edge(10.0, True)
    tr.edge(12.0, True)  # already broken
    tr.edge(25.0, False)
    tr.tick(30.0)
    assert tr.marbles == 1
    assert tr.last_width_ms == pytest.approx(15.0)


def test_custom_timing() -> None:
    tr = BeamTracker(BeamTiming(min_pulse_ms=5.0, refractory_ms=0.0))
    pulse(tr, 0.0, 4.0)
    pulse(tr, 10.0, 6.0)
    pulse(tr, 20.0, 6.0)
    tr.tick(50.0)
    assert (tr.marbles, tr.glitches, tr.repeats) == (2, 1, 0)


@pytest.mark.parametrize("kwargs, word", [
    ({"min_pulse_ms": -1.0}, "min_pulse_ms"),
    ({"min_pulse_ms": 600.0}, "min_pulse_ms"),
    ({"stuck_ms": 400.0}, "stuck_ms"),
    ({"merge_gap_ms": float("nan")}, "merge_gap_ms"),
    ({"solid_fraction": 1.5}, "solid_fraction"),
    ({"recover_ms": -5}, "recover_ms"),
    ({"flaky_glitches": 0}, "flaky_glitches"),
    ({"refractory_ms": "150"}, "refractory_ms"),
])
def test_bad_timing_is_refused_with_its_name(kwargs: dict, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        BeamTiming(**kwargs)

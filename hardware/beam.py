"""Pure per-gate break-beam state machine: timestamped edges in, marbles and alarms out.

No threads, no gpiozero, no clock of its own. Feed it edges as ``edge(t_ms, blocked)`` in the
order they happened on one beam, and call ``tick(now_ms)`` now and then so that timeouts (the end
of a pulse, a stuck beam, the end of a flaky spell) are noticed without a new edge. Times are
milliseconds on any clock that only moves forward (differences are all that matter).

How a pulse is judged (defaults in :class:`BeamTiming`):

* A pulse starts at the first edge that breaks the beam and ends at the last edge that clears
  it, once the beam has stayed clear for ``merge_gap_ms`` (2 ms). Chatter - edges a fraction of
  a millisecond apart at the start or end of a pulse - therefore merges into one pulse. The
  price is that a marble is recognised ``merge_gap_ms`` after the beam clears.
* width = end - start. ``min_pulse_ms <= width <= max_pulse_ms`` (1 ms to 500 ms, both ends
  inclusive: exactly 1.0 ms counts, 0.5 ms does not) is a marble; a 16 mm marble at 0.5-2 m/s
  blocks a beam for about 8-32 ms, so the window is wide on both sides.
* Shorter than ``min_pulse_ms`` is a glitch. So is a pulse whose longest solid (continuously
  blocked) stretch is under ``solid_fraction`` (0.5) of its width: a marble blocks solidly and
  chatters only at its ends, while a flickering loose cable toggles all the way through.
* Longer than ``max_pulse_ms`` but cleared before ``stuck_ms`` is a "long" pulse: counted
  separately, never as a marble (a marble resting in the beam for a moment, a finger).
* Blocked continuously for ``stuck_ms`` (1.5 s) or more: the beam is flagged stuck (misaligned,
  blocked, or wired the wrong way round) and counts nothing until it has stayed clear for
  ``recover_ms`` (500 ms). A gate wired the wrong way round is clear only while a marble passes,
  so it stays stuck instead of turning the dark stretches between marbles into marbles.
* A marble whose pulse starts within ``refractory_ms`` (150 ms) of the end of the previous
  marble on the same beam is a repeat (a marble rolling back through the beam) and counts once.
  Two marbles through one gate less than 150 ms apart also count once; the camera confirms
  counts (ruling D3) and a disagreement waits for a tap (ruling D4).
* ``flaky_glitches`` (5) glitches within ``flaky_window_ms`` (10 s) flag the beam as flaky until
  the window holds fewer again.
* A beam that is already blocked when watching starts has an unknown start: its pulse is never
  a marble (a gate wired the wrong way round shows as stuck, not as a stream of marbles).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from enum import Enum

#: Slack for float comparisons of widths computed from tick differences.
_EPS_MS = 1e-9


@dataclass(frozen=True)
class BeamTiming:
    """Thresholds of the state machine, all in milliseconds unless named otherwise."""

    min_pulse_ms: float = 1.0
    max_pulse_ms: float = 500.0
    stuck_ms: float = 1500.0
    merge_gap_ms: float = 2.0
    refractory_ms: float = 150.0
    recover_ms: float = 500.0
    solid_fraction: float = 0.5
    flaky_glitches: int = 5
    flaky_window_ms: float = 10_000.0

    def __post_init__(self) -> None:
        for name in ("min_pulse_ms", "max_pulse_ms", "stuck_ms", "merge_gap_ms",
                     "refractory_ms", "recover_ms", "flaky_window_ms", "solid_fraction"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        if self.min_pulse_ms > self.max_pulse_ms:
            raise ValueError(f"min_pulse_ms ({self.min_pulse_ms}) is above max_pulse_ms "
                             f"({self.max_pulse_ms})")
        if self.stuck_ms <= self.max_pulse_ms:
            raise ValueError(f"stuck_ms ({self.stuck_ms}) must be above max_pulse_ms "
                             f"({self.max_pulse_ms})")
        if self.solid_fraction > 1:
            raise ValueError(f"solid_fraction must be between 0 and 1, got {self.solid_fraction}")
        if isinstance(self.flaky_glitches, bool) or not isinstance(self.flaky_glitches, int) \
                or self.flaky_glitches < 1:
            raise ValueError(f"flaky_glitches must be an integer >= 1, got "
                             f"{self.flaky_glitches!r}")


class BeamEventKind(Enum):
    """What a finished pulse was, or which alarm changed."""

    MARBLE = "marble"        # a marble: counted
    REPEAT = "repeat"        # a marble-like pulse within the refractory time: not counted
    GLITCH = "glitch"        # too short, or flickering all the way through
    LONG = "long"            # longer than max_pulse_ms, cleared before stuck_ms
    PARTIAL = "partial"      # a pulse already under way when watching started
    STUCK = "stuck"          # the beam has been blocked for stuck_ms
    CLEARED = "cleared"      # a stuck beam stayed clear for recover_ms: counting again
    FLAKY = "flaky"          # many glitches in a short time
    STEADY = "steady"        # no longer flaky


@dataclass(frozen=True)
class BeamEvent:
    """One thing the state machine decided, at ``at_ms`` (pulse end, or detection time)."""

    kind: BeamEventKind
    at_ms: float
    width_ms: float | None = None


class BeamTracker:
    """State machine of one beam. Not thread-safe: one caller at a time."""

    def __init__(self, timing: BeamTiming | None = None, *, t0_ms: float = 0.0,
                 blocked: bool = False) -> None:
        self.timing = timing or BeamTiming()
        self.blocked = blocked
        self.stuck = False
        self.flaky = False
        self.marbles = 0
        self.glitches = 0
        self.long_pulses = 0
        self.repeats = 0
        self.last_width_ms: float | None = None
        self._in_pulse = blocked
        self._unknown_start = blocked
        self._pulse_start = t0_ms
        self._solid_start = t0_ms
        self._longest_solid = 0.0
        self._pending_end: float | None = None
        self._last_marble_end: float | None = None
        self._clear_since = t0_ms
        self._glitch_times: deque[float] = deque()

    # -- inputs ---------------------------------------------------------------------------

    def edge(self, t_ms: float, blocked: bool) -> list[BeamEvent]:
        """The beam became ``blocked`` (True) or clear (False) at ``t_ms``."""
        events = self.tick(t_ms)
        blocked = bool(blocked)
        if blocked == self.blocked:
            return events  # no change of level (a repeated report): nothing to do
        self.blocked = blocked
        if blocked:
            if self._in_pulse and self._pending_end is not None:
                if t_ms - self._pending_end < self.timing.merge_gap_ms:
                    self._pending_end = None  # chatter: the same pulse goes on
                    self._solid_start = t_ms
                    return events
                events += self._finish(self._pending_end)
            self._in_pulse = True
            self._unknown_start = False
            self._pulse_start = self._solid_start = t_ms
            self._longest_solid = 0.0
            self._pending_end = None
        elif self._in_pulse:
            self._longest_solid = max(self._longest_solid, t_ms - self._solid_start)
            self._pending_end = t_ms
        return events

    def tick(self, now_ms: float) -> list[BeamEvent]:
        """Let time pass to ``now_ms``: ends pulses, flags stuck beams, expires flakiness."""
        t = self.timing
        events: list[BeamEvent] = []
        if self._in_pulse and self._pending_end is not None \
                and now_ms - self._pending_end >= t.merge_gap_ms:
            events += self._finish(self._pending_end)
        if self._in_pulse and self.blocked and not self.stuck \
                and now_ms - self._solid_start >= t.stuck_ms:
            self.stuck = True
            events.append(BeamEvent(BeamEventKind.STUCK, now_ms))
        if self.stuck and not self._in_pulse and now_ms - self._clear_since >= t.recover_ms:
            self.stuck = False
            events.append(BeamEvent(BeamEventKind.CLEARED, now_ms))
        while self._glitch_times and now_ms - self._glitch_times[0] > t.flaky_window_ms:
            self._glitch_times.popleft()
        if self.flaky and len(self._glitch_times) < t.flaky_glitches:
            self.flaky = False
            events.append(BeamEvent(BeamEventKind.STEADY, now_ms))
        return events

    # -- queries --------------------------------------------------------------------------

    def deadline_ms(self) -> float | None:
        """When ``tick`` must next run to end the pulse in progress on time (None: no hurry)."""
        if self._in_pulse and self._pending_end is not None:
            return self._pending_end + self.timing.merge_gap_ms
        return None

    @property
    def settled(self) -> bool:
        """True when no ended pulse is waiting for its merge gap to pass."""
        return self._pending_end is None

    # -- internals ------------------------------------------------------------------------

    def _finish(self, end_ms: float) -> list[BeamEvent]:
        t = self.timing
        width = end_ms - self._pulse_start
        longest = self._longest_solid
        unknown = self._unknown_start
        self._in_pulse = False
        self._unknown_start = False
        self._pending_end = None
        self.last_width_ms = width
        if self.stuck:  # counts nothing; the beam must now stay clear for recover_ms
            self._clear_since = end_ms
            return []
        if unknown:
            return [BeamEvent(BeamEventKind.PARTIAL, end_ms, width)]
        if width + _EPS_MS < t.min_pulse_ms or longest + _EPS_MS < t.solid_fraction * width:
            return self._glitch(end_ms, width)
        if width > t.max_pulse_ms + _EPS_MS:
            self.long_pulses += 1
            return [BeamEvent(BeamEventKind.LONG, end_ms, width)]
        previous = self._last_marble_end
        self._last_marble_end = end_ms
        if previous is not None and self._pulse_start - previous < t.refractory_ms:
            self.repeats += 1
            return [BeamEvent(BeamEventKind.REPEAT, end_ms, width)]
        self.marbles += 1
        return [BeamEvent(BeamEventKind.MARBLE, end_ms, width)]

    def _glitch(self, end_ms: float, width: float) -> list[BeamEvent]:
        self.glitches += 1
        self._glitch_times.append(end_ms)
        events = [BeamEvent(BeamEventKind.GLITCH, end_ms, width)]
        if not self.flaky and len(self._glitch_times) >= self.timing.flaky_glitches:
            self.flaky = True
            events.append(BeamEvent(BeamEventKind.FLAKY, end_ms))
        return events

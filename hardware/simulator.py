"""Virtual marbles: realistic break-beam pulses driven through gpiozero MockFactory pins.

The pulses travel the whole automatic path (pin callback -> queue -> worker -> state machine ->
on_marble), so the gates can be tried and tested with no Raspberry Pi. Every simulated edge is
stamped with the time it stands for (a roll's start plus the edge's offset in the pulse), as a
real pin factory stamps an edge with the time it happened, not with when a thread woke up to
report it: a 0.3 ms glitch stays 0.3 ms and a 15 ms marble 15 ms however busy the machine is. An
edge is reported once its time has come (never ahead of the clock); edges closer together than
``BURST_S`` (chatter) are reported together once the last of them is due, as a pin factory that
is slow to deliver still delivers them in order, with their own times. After each roll the beam
stays clear for ``GAP_AFTER_ROLL_S``, so consecutive rolls are separate pulses, not chatter of one.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence

from gpiozero.pins.mock import MockFactory, MockPin, PinState

#: Chatter at each end of a pulse: this many extra edges, CHATTER_STEP_S apart.
CHATTER_EDGES = 4
CHATTER_STEP_S = 0.00005
#: Edges closer together than this are reported together, once the last of them is due.
BURST_S = 0.001
#: Clear time after each roll: longer than the default 2 ms merge gap.
GAP_AFTER_ROLL_S = 0.005
#: Width of the pulse of :meth:`MarbleSimulator.glitch` (a loose cable's flicker).
GLITCH_WIDTH_S = 0.0001

#: One edge of a pulse: (seconds after the pulse's start, beam broken).
Edge = tuple[float, bool]


def sleep_until(deadline: float) -> None:
    """Sleep until ``time.monotonic()`` reaches ``deadline`` (returns at once if it has)."""
    remaining = deadline - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


def drive_at(pin: MockPin, level: bool, at: float) -> None:
    """``pin.drive_high()`` or ``drive_low()``, the edge stamped ``at`` (MockFactory ticks:
    ``time.monotonic()`` seconds) instead of the moment of the call. As MockPin does, a drive to
    the level the pin already has is no edge."""
    if pin.function != "input":
        raise ValueError(f"{pin!r} is not an input")
    if bool(pin.state) == level:
        return
    pin.states.append(PinState(at - pin._last_change, level))
    pin._state = level
    pin._last_change = at  # what MockPin hands its when_changed callback as the edge's ticks
    if pin.edges in ("both", "rising" if level else "falling") and pin.when_changed is not None:
        pin._call_when_changed()


def pulse_edges(width_s: float, chatter: bool) -> list[Edge]:
    """The edges of one pulse ``width_s`` long, with ``CHATTER_EDGES`` of chatter at each end
    when ``chatter`` (and the pulse is long enough to hold them)."""
    edges: list[Edge] = [(0.0, True)]
    bounce = CHATTER_EDGES if chatter and width_s > 2 * (CHATTER_EDGES + 1) * CHATTER_STEP_S else 0
    # start: clear, broken, clear, broken (ends broken); end: clear, broken, ... before the final clear
    edges += [(i * CHATTER_STEP_S, i % 2 == 0) for i in range(1, bounce + 1)]
    edges += [(width_s - (bounce - i) * CHATTER_STEP_S, i % 2 == 1) for i in range(bounce)]
    edges.append((width_s, False))
    return edges


def bursts(edges: Sequence[Edge]) -> list[list[Edge]]:
    """``edges`` split where two consecutive edges are at least ``BURST_S`` apart."""
    groups: list[list[Edge]] = []
    for edge in edges:
        if groups and edge[0] - groups[-1][-1][0] < BURST_S:
            groups[-1].append(edge)
        else:
            groups.append([edge])
    return groups


class MarbleSimulator:
    """Rolls virtual marbles through the beams of ``pins`` (gate 1 first) of a MockFactory.

    ``active_low`` (the default) matches a receiver that pulls the line low when the beam is
    broken; set it False for an active-high receiver (``GateConfig(active_state=True)``).
    ``wait_until(deadline)`` is how the simulator lets time pass until an edge is due
    (:func:`sleep_until`); whenever it returns, the edges keep their times.
    """

    def __init__(self, factory: MockFactory, pins: Sequence[int], *, active_low: bool = True,
                 wait_until: Callable[[float], None] = sleep_until) -> None:
        if not isinstance(factory, MockFactory):
            raise TypeError(f"the simulator needs a gpiozero MockFactory, got "
                            f"{type(factory).__name__}")
        self.factory = factory
        self.pins = tuple(pins)
        self.active_low = active_low
        self._wait_until = wait_until
        self._lock = threading.Lock()  # one marble at a time, as from one hand
        self._clear_until = 0.0  # no pulse starts before the previous one's clear gap has passed

    # -- one beam -------------------------------------------------------------------------

    def _pin(self, gate: int) -> MockPin:
        if isinstance(gate, bool) or not isinstance(gate, int) \
                or not 1 <= gate <= len(self.pins):
            raise ValueError(f"gate must be 1..{len(self.pins)}, got {gate!r}")
        return self.factory.pin(self.pins[gate - 1])

    def _set(self, pin: MockPin, broken: bool, at: float) -> None:
        drive_at(pin, broken != self.active_low, at)

    def block(self, gate: int) -> None:
        """Break the beam of ``gate`` and leave it broken (a stuck or blocked beam)."""
        pin = self._pin(gate)
        with self._lock:
            self._set(pin, True, time.monotonic())

    def clear(self, gate: int) -> None:
        """Let the beam of ``gate`` through again."""
        pin = self._pin(gate)
        with self._lock:
            self._set(pin, False, time.monotonic())

    def _pulse(self, pin: MockPin, edges: Sequence[Edge]) -> float:
        """Drive ``edges`` on ``pin`` from now (or the end of the last clear gap); returns the
        pulse's start time (monotonic seconds). Blocks until the clear gap after it has passed."""
        start = max(time.monotonic(), self._clear_until)
        for burst in bursts(edges):
            self._wait_until(start + burst[-1][0])
            for offset, broken in burst:
                self._set(pin, broken, start + offset)
        self._clear_until = start + edges[-1][0] + GAP_AFTER_ROLL_S
        self._wait_until(self._clear_until)
        return start

    def roll(self, gate: int, width_ms: float = 15.0, chatter: bool = False) -> None:
        """One marble through ``gate``: the beam is broken for ``width_ms``, then clear for
        ``GAP_AFTER_ROLL_S`` (this call blocks that long). With ``chatter`` each end bounces
        for 0.2 ms, as a real receiver output may when the marble's edge grazes the beam.
        A ``width_ms`` under 1 ms makes a glitch."""
        pin = self._pin(gate)
        if isinstance(width_ms, bool) or not isinstance(width_ms, (int, float)) \
                or not 0 < width_ms < 60_000:
            raise ValueError(f"width_ms must be between 0 and 60000, got {width_ms!r}")
        with self._lock:
            self._pulse(pin, pulse_edges(width_ms / 1000.0, chatter))

    def glitch(self, gate: int) -> None:
        """A flicker of ``gate`` (a loose cable): the beam reads broken for ``GLITCH_WIDTH_S``,
        then stays clear for ``GAP_AFTER_ROLL_S``."""
        pin = self._pin(gate)
        with self._lock:
            self._pulse(pin, pulse_edges(GLITCH_WIDTH_S, chatter=False))

    # -- many marbles ---------------------------------------------------------------------

    def roll_random(self, rng: random.Random | None = None) -> int:
        """One marble through a random gate at a random speed (8-32 ms); returns the gate."""
        rng = rng or random.Random()
        gate = rng.randint(1, len(self.pins))
        self.roll(gate, width_ms=rng.uniform(8.0, 32.0), chatter=rng.random() < 0.5)
        return gate

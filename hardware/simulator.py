"""Virtual marbles: realistic break-beam pulses driven through gpiozero MockFactory pins.

The pulses travel the whole automatic path (pin callback -> queue -> worker -> state machine ->
on_marble), so the gates can be tried and tested with no Raspberry Pi. Timing is real: a pulse is
never shorter than asked for, and can be a little longer on a busy machine. The body of a pulse
is slept (the scheduler wakes a sleeper promptly, while a spinning thread is preempted for whole
timeslices); the 0.2 ms of chatter is spun, because a sleep that overshoots by a millisecond at
every chatter edge would turn chatter into flicker. After each roll the beam stays clear for ``GAP_AFTER_ROLL_S``, so consecutive rolls
are separate pulses, not chatter of one.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Sequence

from gpiozero.pins.mock import MockFactory, MockPin

#: Chatter at each end of a pulse: this many extra edges, about CHATTER_STEP_S apart.
CHATTER_EDGES = 4
CHATTER_STEP_S = 0.00005
#: Clear time after each roll: longer than the default 2 ms merge gap.
GAP_AFTER_ROLL_S = 0.005


def _sleep_until(deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


def _spin_until(deadline: float) -> None:
    while time.monotonic() < deadline:
        pass


class MarbleSimulator:
    """Rolls virtual marbles through the beams of ``pins`` (gate 1 first) of a MockFactory.

    ``active_low`` (the default) matches a receiver that pulls the line low when the beam is
    broken; set it False for an active-high receiver (``GateConfig(active_state=True)``).
    """

    def __init__(self, factory: MockFactory, pins: Sequence[int], *,
                 active_low: bool = True) -> None:
        if not isinstance(factory, MockFactory):
            raise TypeError(f"the simulator needs a gpiozero MockFactory, got "
                            f"{type(factory).__name__}")
        self.factory = factory
        self.pins = tuple(pins)
        self.active_low = active_low
        self._lock = threading.Lock()  # one marble at a time, as from one hand

    # -- one beam -------------------------------------------------------------------------

    def _pin(self, gate: int) -> MockPin:
        if isinstance(gate, bool) or not isinstance(gate, int) \
                or not 1 <= gate <= len(self.pins):
            raise ValueError(f"gate must be 1..{len(self.pins)}, got {gate!r}")
        return self.factory.pin(self.pins[gate - 1])

    def _set(self, pin: MockPin, broken: bool) -> None:
        if broken == self.active_low:
            pin.drive_low()
        else:
            pin.drive_high()

    def block(self, gate: int) -> None:
        """Break the beam of ``gate`` and leave it broken (a stuck or blocked beam)."""
        self._set(self._pin(gate), True)

    def clear(self, gate: int) -> None:
        """Let the beam of ``gate`` through again."""
        self._set(self._pin(gate), False)

    def roll(self, gate: int, width_ms: float = 15.0, chatter: bool = False) -> None:
        """One marble through ``gate``: the beam is broken for ``width_ms``, then clear for
        ``GAP_AFTER_ROLL_S`` (this call blocks that long). With ``chatter`` each end bounces
        for about 0.2 ms, as a real receiver output may when the marble's edge grazes the beam.
        A ``width_ms`` under 1 ms makes a glitch."""
        pin = self._pin(gate)
        if not isinstance(width_ms, (int, float)) or not 0 < width_ms < 60_000:
            raise ValueError(f"width_ms must be between 0 and 60000, got {width_ms!r}")
        edges = CHATTER_EDGES if chatter else 0
        with self._lock:
            self._set(pin, True)
            start = time.monotonic()
            for i in range(1, edges + 1):  # clear, broken, clear, broken: ends broken
                _spin_until(start + i * CHATTER_STEP_S)
                self._set(pin, i % 2 == 0)
            end = start + width_ms / 1000.0
            _sleep_until(end - edges * CHATTER_STEP_S)
            for i in range(edges):  # clear, broken, clear, broken before the final clear
                _spin_until(end - (edges - i) * CHATTER_STEP_S)
                self._set(pin, i % 2 == 1)
            _spin_until(end)
            self._set(pin, False)
            _sleep_until(time.monotonic() + GAP_AFTER_ROLL_S)

    def glitch(self, gate: int) -> None:
        """An instantaneous flicker of ``gate`` (a loose cable): the beam reads broken for only
        as long as two consecutive calls take, then stays clear for ``GAP_AFTER_ROLL_S``.
        Unlike ``roll(gate, 0.3)`` there is no sleep in the pulse that a busy machine could
        stretch into a marble-sized one."""
        pin = self._pin(gate)
        with self._lock:
            self._set(pin, True)
            self._set(pin, False)
            _sleep_until(time.monotonic() + GAP_AFTER_ROLL_S)

    # -- many marbles ---------------------------------------------------------------------

    def roll_random(self, rng: random.Random | None = None) -> int:
        """One marble through a random gate at a random speed (8-32 ms); returns the gate."""
        rng = rng or random.Random()
        gate = rng.randint(1, len(self.pins))
        self.roll(gate, width_ms=rng.uniform(8.0, 32.0), chatter=rng.random() < 0.5)
        return gate

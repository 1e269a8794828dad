"""Break-beam gate driver: six gpiozero inputs -> timestamped edges -> marbles.

One ``gpiozero.DigitalInputDevice`` per gate. Its pin's low-level ``when_changed(ticks, state)``
callback only puts ``(gate, ticks, state)`` on a queue; a worker thread feeds the per-gate state
machines of :mod:`hardware.beam` and calls ``on_marble`` / ``on_change``. gpiozero's
``bounce_time`` is deliberately not used (on lgpio it swallows pulses shorter than the bounce
time, gpiozero issue 1039), nor ``LineSensor`` (it polls and misses short pulses): chatter is
merged by the state machine on the pin factory's own edge timestamps instead.

Edge ticks are compared only with each other, through the factory's ``ticks_diff``. The kernel
timestamps that lgpio reports need not share a clock with ``Factory.ticks()``, so "now" (for the
end of a pulse and for a stuck beam) is taken as the last edge's time plus the time elapsed on
the local clock since the worker received that edge.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from queue import Empty, SimpleQueue
from typing import TYPE_CHECKING, Any

from hardware.beam import BeamEvent, BeamEventKind, BeamTiming, BeamTracker

if TYPE_CHECKING:  # gpiozero loads when the gates open, not with their configuration
    from gpiozero import DigitalInputDevice, Factory

log = logging.getLogger(__name__)

#: Gate 1..6 -> BCM pin (physical pins 11, 13, 15, 16, 18, 22); see hardware/WIRING.md.
DEFAULT_PINS: tuple[int, ...] = (17, 27, 22, 23, 24, 25)
GATE_COUNT = 6
#: BCM number -> physical pin on the 40-pin header (for wiring tables and the CLI).
PHYSICAL_PINS: dict[int, int] = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32,
    13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16,
    24: 18, 25: 22, 26: 37, 27: 13}
#: BCM numbers of the GPIO lines on the 40-pin header of every Raspberry Pi.
GPIO_RANGE = range(0, 28)


class GateConfigError(ValueError):
    """A gate configuration that cannot work; the one-line message names the culprit."""


class GateHardwareError(RuntimeError):
    """The GPIO pins could not be opened (no pin factory, no permission, ...)."""


@dataclass(frozen=True)
class GateConfig:
    """Pins and thresholds of the six gates (times in ms; see :mod:`hardware.beam`)."""

    pins: tuple[int, ...] = DEFAULT_PINS
    #: True: internal pull-up, beam broken = line low. None: external pull-ups (or an actively
    #: driven receiver output), then ``active_state`` says which level means "beam broken".
    pull_up: bool | None = True
    active_state: bool | None = None
    # The state machine's thresholds, flat here so that a config is one plain dict; defaults from BeamTiming.
    min_pulse_ms: float = BeamTiming.min_pulse_ms
    max_pulse_ms: float = BeamTiming.max_pulse_ms
    stuck_ms: float = BeamTiming.stuck_ms
    merge_gap_ms: float = BeamTiming.merge_gap_ms
    refractory_ms: float = BeamTiming.refractory_ms
    recover_ms: float = BeamTiming.recover_ms
    solid_fraction: float = BeamTiming.solid_fraction
    flaky_glitches: int = BeamTiming.flaky_glitches
    flaky_window_ms: float = BeamTiming.flaky_window_ms
    #: How often the worker wakes without an edge, to notice stuck beams.
    tick_ms: float = 100.0
    #: How late an edge may reach the worker after its timestamp (a busy callback thread): time
    #: is judged this much behind, so a late chatter edge still merges into its pulse.
    latency_ms: float = 10.0

    @property
    def wiring(self) -> str:
        """How the gates are wired, as the config file's ``[gates] wiring`` names it ("internal-pull-down", a broken
        beam driving the line high against the internal pull-down, has no key or option of its own)."""
        if self.pull_up is None:
            return "active-high" if self.active_state else "external-pull-up"
        return "internal-pull-up" if self.pull_up else "internal-pull-down"

    def __post_init__(self) -> None:
        pins = self.pins
        if isinstance(pins, (str, bytes)) or not isinstance(pins, Sequence):
            raise GateConfigError(f"pins must be a list of {GATE_COUNT} BCM numbers, "
                                  f"got {pins!r}")
        object.__setattr__(self, "pins", tuple(pins))
        if len(self.pins) != GATE_COUNT:
            raise GateConfigError(f"{GATE_COUNT} pins needed (gate 1..{GATE_COUNT}), "
                                  f"got {len(self.pins)}: {self.pins!r}")
        seen: dict[int, int] = {}
        for gate, pin in enumerate(self.pins, start=1):
            if isinstance(pin, bool) or not isinstance(pin, int):
                raise GateConfigError(f"gate {gate}: pin {pin!r} is not a BCM GPIO number "
                                      f"({GPIO_RANGE.start}-{GPIO_RANGE.stop - 1})")
            if pin not in GPIO_RANGE:
                raise GateConfigError(f"gate {gate}: pin {pin} is not a GPIO pin "
                                      f"(BCM {GPIO_RANGE.start}-{GPIO_RANGE.stop - 1})")
            if pin in seen:
                raise GateConfigError(f"pin {pin} is used twice (gates {seen[pin]} and {gate})")
            seen[pin] = gate
        if self.pull_up not in (True, False, None):
            raise GateConfigError(f"pull_up must be True, False or None, got {self.pull_up!r}")
        if self.pull_up is None and self.active_state is None:
            raise GateConfigError("external pull-ups (pull_up=None) need active_state: False if "
                                  "a broken beam pulls the line low, True if it drives it high")
        if self.pull_up is not None and self.active_state is not None:
            raise GateConfigError("active_state is only for external pull-ups (pull_up=None); "
                                  "with internal pulls it follows from pull_up")
        if not isinstance(self.tick_ms, (int, float)) or not 1 <= self.tick_ms <= 1000:
            raise GateConfigError(f"tick_ms must be between 1 and 1000, got {self.tick_ms!r}")
        if not isinstance(self.latency_ms, (int, float)) or not 0 <= self.latency_ms <= 100:
            raise GateConfigError(f"latency_ms must be between 0 and 100, got {self.latency_ms!r}")
        try:
            self.timing()
        except ValueError as exc:
            raise GateConfigError(str(exc)) from None

    def timing(self) -> BeamTiming:
        """The state-machine thresholds of this configuration."""
        names = {f.name for f in fields(BeamTiming)}
        return BeamTiming(**{name: getattr(self, name) for name in names})

    @property
    def broken_level(self) -> bool:
        """The electrical level (True = high) that means "beam broken"."""
        if self.pull_up is None:
            return bool(self.active_state)
        return not self.pull_up


@dataclass(frozen=True)
class MarbleReading:
    """A marble recognised at a gate."""

    gate: int          # 1..6
    width_ms: float    # how long the beam was broken
    at: float          # time.time() when recognised


class _EdgeForwarder:
    """The pin callback of one gate: puts the edge on the queue and does nothing else."""

    __slots__ = ("gate", "put", "__weakref__")  # the pin holds only a weak reference

    def __init__(self, gate: int, put: Callable[[Any], None]) -> None:
        self.gate = gate
        self.put = put

    def on_edge(self, ticks: Any, state: Any) -> None:
        self.put((self.gate, ticks, state))


_STOP = object()


class GateArray:
    """The six gates: open with :meth:`start`, read :meth:`status`, stop with :meth:`close`."""

    def __init__(self, config: GateConfig, on_marble: Callable[[MarbleReading], None], *,
                 pin_factory: Factory | None = None,
                 on_change: Callable[[], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: this machine's seconds, by which the worker tells how long ago an edge reached it (a test
        gives its own, to deliver an edge late by as much as it says, however busy the machine)."""
        if not isinstance(config, GateConfig):
            raise GateConfigError(f"config must be a GateConfig, got {type(config).__name__}")
        self.config = config
        self._clock = clock
        self._on_marble = on_marble
        self._on_change = on_change
        self._pin_factory = pin_factory
        self._timing = config.timing()
        self._trackers = [BeamTracker(self._timing) for _ in config.pins]
        self._lock = threading.Lock()          # guards the trackers
        self._life = threading.Lock()          # guards start/close
        self._queue: SimpleQueue[Any] = SimpleQueue()
        self._devices: list[DigitalInputDevice] = []
        self._forwarders: list[_EdgeForwarder] = []
        self._worker: threading.Thread | None = None
        self._factory: Any = None
        self._ref_ticks: Any = None
        self._last_edge_ms = 0.0
        self._last_edge_local = 0.0
        self._flush_waiters: list[threading.Event] = []
        self._running = False
        self._closed = False

    # -- life cycle -----------------------------------------------------------------------

    def start(self) -> None:
        """Open the six inputs and start the worker thread. Raises GateConfigError naming a
        pin the factory refuses, GateHardwareError when there are no usable GPIOs."""
        with self._life:
            if self._closed:
                raise RuntimeError("this GateArray is closed; make a new one")
            if self._running:
                return
            self._open_devices()
            factory = self._devices[0].pin_factory
            self._factory = factory
            self._ref_ticks = factory.ticks()
            self._last_edge_ms = 0.0
            self._last_edge_local = self._clock()
            for gate, device in enumerate(self._devices, start=1):
                forwarder = _EdgeForwarder(gate, self._queue.put)
                self._forwarders.append(forwarder)
                device.pin.when_changed = forwarder.on_edge  # replaces the device's handler
            with self._lock:  # initial levels, read after hooking so that no edge is missed
                self._trackers = [
                    BeamTracker(self._timing, t0_ms=0.0, blocked=bool(device.is_active))
                    for device in self._devices]
            self._running = True
            self._worker = threading.Thread(target=self._run, name="gates-worker", daemon=True)
            self._worker.start()

    def close(self) -> None:
        """Stop watching: close the inputs and join the worker. Idempotent."""
        with self._life:
            if self._closed:
                return
            self._closed = True
            self._close_devices()
            worker, self._worker = self._worker, None
            if worker is not None:
                self._queue.put(_STOP)
                if worker is not threading.current_thread():  # close() from a callback
                    worker.join(timeout=5.0)
            self._running = False
            waiters, self._flush_waiters = self._flush_waiters, []
        for waiter in waiters:
            waiter.set()

    def __enter__(self) -> GateArray:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- queries --------------------------------------------------------------------------

    def status(self) -> dict:
        """JSON-able snapshot of every gate; ``ok`` is False while any gate is stuck or flaky,
        or when the gates are not running."""
        with self._lock:
            gates = [{
                "gate": gate,
                "pin": pin,
                "blocked": tr.blocked,
                "stuck": tr.stuck,
                "flaky": tr.flaky,
                "last_width_ms": None if tr.last_width_ms is None
                else round(tr.last_width_ms, 3),
                "marbles": tr.marbles,
                "glitches": tr.glitches,
                "long_pulses": tr.long_pulses,
                "repeats": tr.repeats,
            } for gate, (pin, tr) in enumerate(zip(self.config.pins, self._trackers), start=1)]
        ok = self._running and not any(g["stuck"] or g["flaky"] for g in gates)
        return {"ok": ok, "gates": gates, "wiring": self.config.wiring}

    @property
    def pin_factory_name(self) -> str:
        """Class name of the pin factory in use ('' before start)."""
        return type(self._factory).__name__ if self._factory is not None else ""

    def flush(self, timeout: float = 1.0) -> bool:
        """Wait until every edge queued so far is processed and every ended pulse judged.
        Returns False if that took longer than ``timeout`` seconds."""
        if not self._running or self._worker is None:
            return True
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    # -- internals ------------------------------------------------------------------------

    def _open_devices(self) -> None:
        from gpiozero import DigitalInputDevice
        from gpiozero.exc import GPIOPinInUse, PinInvalidPin

        cfg = self.config
        try:
            for gate, pin in enumerate(cfg.pins, start=1):
                try:
                    device = DigitalInputDevice(
                        pin, pull_up=cfg.pull_up, active_state=cfg.active_state,
                        pin_factory=self._pin_factory)  # no bounce_time, on purpose
                except GPIOPinInUse as exc:
                    raise GateConfigError(f"gate {gate}: GPIO{pin} is already in use ({exc})") \
                        from None
                except PinInvalidPin as exc:
                    raise GateConfigError(f"gate {gate}: pin {pin} is not usable here ({exc})") \
                        from None
                except Exception as exc:  # no factory, no permission, busy line, ...
                    raise GateHardwareError(
                        f"gate {gate}: cannot open GPIO{pin}: {type(exc).__name__}: {exc}") \
                        from exc
                self._devices.append(device)
        except BaseException:
            self._close_devices()
            raise

    def _close_devices(self) -> None:
        devices, self._devices = self._devices, []
        for device in devices:
            try:
                device.close()
            except Exception:  # pragma: no cover - closing is best effort
                log.exception("closing %r failed", device)
        self._forwarders = []

    def _ms(self, ticks: Any) -> float:
        return self._factory.ticks_diff(ticks, self._ref_ticks) * 1000.0

    def _now_ms(self) -> float:
        """The factory's time now, less ``latency_ms`` (edges still on their way)."""
        elapsed_ms = (self._clock() - self._last_edge_local) * 1000.0
        return self._last_edge_ms + elapsed_ms - self.config.latency_ms

    def _timeout(self) -> float:
        wait_ms = self.config.tick_ms
        with self._lock:
            deadlines = [d for d in (tr.deadline_ms() for tr in self._trackers) if d is not None]
        if deadlines:
            wait_ms = min(wait_ms, max(0.0, min(deadlines) - self._now_ms()))
        return wait_ms / 1000.0

    def _run(self) -> None:
        while True:
            try:
                items = [self._queue.get(timeout=self._timeout())]
            except Empty:
                items = []
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except Empty:
                    break
            try:
                self._process(items)
            except Exception:  # pragma: no cover - keep watching whatever happens
                log.exception("gate worker failed to process %d items", len(items))
            if any(item is _STOP for item in items):
                return

    def _process(self, items: list[Any]) -> None:
        events: list[tuple[int, BeamEvent]] = []
        broken = self.config.broken_level
        release: list[threading.Event] = []
        with self._lock:
            for item in items:
                if isinstance(item, threading.Event):
                    self._flush_waiters.append(item)
                    continue
                if item is _STOP:
                    continue
                gate, ticks, state = item
                if state not in (0, 1):  # e.g. lgpio's watchdog report (level 2): not an edge
                    continue
                self._last_edge_ms = t_ms = self._ms(ticks)
                self._last_edge_local = self._clock()
                blocked = bool(state) == broken
                events += [(gate, ev) for ev in self._trackers[gate - 1].edge(t_ms, blocked)]
            now = self._now_ms()
            for gate, tr in enumerate(self._trackers, start=1):
                events += [(gate, ev) for ev in tr.tick(now)]
            if self._flush_waiters and all(tr.settled for tr in self._trackers):
                release, self._flush_waiters = self._flush_waiters, []
        # in the order they happened, not gate by gate: a worker that fell behind handles the edges of
        # several marbles in one batch, and the pulses end at their own times
        events.sort(key=lambda gate_event: gate_event[1].at_ms)
        self._dispatch(events)
        for waiter in release:
            waiter.set()

    def _dispatch(self, events: list[tuple[int, BeamEvent]]) -> None:
        for gate, ev in events:
            if ev.kind is BeamEventKind.MARBLE:
                reading = MarbleReading(gate=gate, width_ms=float(ev.width_ms or 0.0),
                                        at=time.time())
                try:
                    self._on_marble(reading)
                except Exception:
                    log.exception("on_marble failed for %r", reading)
            elif ev.kind in (BeamEventKind.STUCK, BeamEventKind.FLAKY):
                log.warning("gate %d (GPIO%d): %s", gate, self.config.pins[gate - 1],
                            ev.kind.value)
        # every event changes what status() shows (a count, a width, a flag)
        if self._on_change is not None and events:
            try:
                self._on_change()
            except Exception:
                log.exception("on_change failed")

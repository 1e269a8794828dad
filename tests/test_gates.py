"""The gate driver end to end through gpiozero MockFactory pins (no Raspberry Pi needed)."""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from gpiozero import DigitalInputDevice
from gpiozero.pins.mock import MockFactory

from hardware import gates_cli
from hardware.gates import DEFAULT_PINS, GateArray, GateConfig, GateConfigError, MarbleReading
from hardware.simulator import MarbleSimulator, sleep_until
from tests.waiting import PATIENCE_S, wait_for


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.close()


class Recorder:
    """Collects on_marble readings and on_change calls from the worker thread."""

    def __init__(self) -> None:
        self.readings: list[MarbleReading] = []
        self.changes = 0
        self.lock = threading.Lock()

    def marble(self, reading: MarbleReading) -> None:
        with self.lock:
            self.readings.append(reading)

    def change(self) -> None:
        with self.lock:
            self.changes += 1


def make_gates(factory: MockFactory, rec: Recorder, config: GateConfig | None = None,
               clock: Callable[[], float] = time.monotonic) -> GateArray:
    return GateArray(config or GateConfig(), rec.marble, pin_factory=factory, on_change=rec.change, clock=clock)


def flushed(gates: GateArray) -> bool:
    """``gates.flush()`` with a bound that a loaded machine cannot hit (its default is 1 s)."""
    return gates.flush(timeout=PATIENCE_S)


def gate_status(gates: GateArray, gate: int) -> dict:
    return gates.status()["gates"][gate - 1]


def test_pulses_become_marble_readings_for_the_right_gates(factory: MockFactory) -> None:
    rec = Recorder()
    with make_gates(factory, rec) as gates:
        for gate in (3, 1, 6):
            pin = factory.pin(DEFAULT_PINS[gate - 1])
            pin.drive_low()   # beam broken: the receiver pulls the line low
            time.sleep(0.015)
            pin.drive_high()
        assert flushed(gates)
        assert [r.gate for r in rec.readings] == [3, 1, 6]
        assert all(r.width_ms >= 15.0 for r in rec.readings)
        status = gates.status()
    assert status["ok"] is True
    assert [g["marbles"] for g in status["gates"]] == [1, 0, 1, 0, 0, 1]
    assert [g["pin"] for g in status["gates"]] == list(DEFAULT_PINS)
    assert sum(g["glitches"] for g in status["gates"]) == 0
    assert rec.changes >= 1


def test_status_shape_is_json_able(factory: MockFactory) -> None:
    import json

    with make_gates(factory, Recorder()) as gates:
        status = json.loads(json.dumps(gates.status()))
    assert set(status) == {"ok", "gates", "wiring"}
    assert status["wiring"] == "internal-pull-up"  # the default: as the config file's [gates] wiring names it
    assert [g["gate"] for g in status["gates"]] == [1, 2, 3, 4, 5, 6]
    for key in ("gate", "pin", "blocked", "stuck", "flaky", "last_width_ms", "marbles",
                "glitches"):
        assert key in status["gates"][0]
    assert status["gates"][0]["last_width_ms"] is None


@pytest.mark.parametrize("wiring, fields", [("internal-pull-up", {}), ("internal-pull-down", {"pull_up": False}),
                                            ("external-pull-up", {"pull_up": None, "active_state": False}),
                                            ("active-high", {"pull_up": None, "active_state": True})])
def test_a_config_names_its_wiring_as_the_config_file_does(wiring: str, fields: dict) -> None:
    assert GateConfig(**fields).wiring == wiring


def test_simulator_roll_with_and_without_chatter_gives_one_marble_each(
        factory: MockFactory) -> None:
    rec = Recorder()
    with make_gates(factory, rec) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        sim.roll(2, width_ms=15.0)
        sim.roll(5, width_ms=15.0, chatter=True)
        assert flushed(gates)
        status = gates.status()
    # the simulator stamps each edge with the time it stands for: the widths are the ones asked for
    assert [(r.gate, r.width_ms) for r in rec.readings] == [(2, pytest.approx(15.0)), (5, pytest.approx(15.0))]
    assert [g["marbles"] for g in status["gates"]] == [0, 1, 0, 0, 1, 0]
    assert [g["glitches"] for g in status["gates"]] == [0] * 6


def test_three_quick_marbles_through_different_gates(factory: MockFactory) -> None:
    rec = Recorder()
    with make_gates(factory, rec) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        for gate in (4, 2, 6):
            sim.roll(gate, width_ms=10.0, chatter=True)
        assert flushed(gates)
    assert [r.gate for r in rec.readings] == [4, 2, 6]


def test_rolling_back_through_the_same_gate_counts_once(factory: MockFactory) -> None:
    rec = Recorder()
    # A refractory time far above the default 150 ms: the 40 ms between the rolls must stay "straight back"
    # even when a loaded machine stalls this thread.
    with make_gates(factory, rec, GateConfig(refractory_ms=5000.0)) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        sim.roll(1, width_ms=12.0)
        time.sleep(0.04)
        sim.roll(1, width_ms=20.0)  # straight back: well within the refractory time
        assert flushed(gates)
        g1 = gate_status(gates, 1)
    assert [r.gate for r in rec.readings] == [1]
    assert (g1["marbles"], g1["repeats"]) == (1, 1)


def test_stuck_gate_shows_in_status_and_recovers(factory: MockFactory) -> None:
    rec = Recorder()
    config = GateConfig(max_pulse_ms=100.0, stuck_ms=300.0)  # short, to keep the test quick
    with make_gates(factory, rec, config) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        sim.block(4)
        # noticed without any further edge: the worker wakes on its own
        assert wait_for(lambda: gate_status(gates, 4)["stuck"])
        status = gates.status()
        assert status["ok"] is False
        assert gate_status(gates, 4)["blocked"] is True
        # the status changes before the worker calls on_change: wait for the call
        assert wait_for(lambda: rec.changes >= 1)
        changes_when_stuck = rec.changes
        sim.clear(4)
        assert flushed(gates)
        # stuck until the beam has stayed clear for recover_ms (500 ms)
        assert wait_for(lambda: not gate_status(gates, 4)["stuck"])
        assert gates.status()["ok"] is True
        assert wait_for(lambda: rec.changes > changes_when_stuck)
        sim.roll(4, width_ms=15.0)
        assert flushed(gates)
        g4 = gate_status(gates, 4)
    assert rec.readings and [r.gate for r in rec.readings] == [4]
    assert (g4["marbles"], g4["glitches"], g4["long_pulses"]) == (1, 0, 0)


def test_gate_wired_the_wrong_way_round_is_stuck_not_a_stream_of_marbles(
        factory: MockFactory) -> None:
    rec = Recorder()
    # external pull-ups, so that the mock keeps the level it is given before the start; a long recover_ms,
    # so that a stalled thread cannot stretch a 15 ms clear gap into a recovery
    config = GateConfig(pull_up=None, active_state=False, max_pulse_ms=100.0, stuck_ms=300.0,
                        recover_ms=10_000.0)
    for p in config.pins:
        factory.pin(p).drive_high()
    pin = factory.pin(config.pins[1])
    pin.drive_low()  # gate 2 reads "broken" while nothing passes
    with make_gates(factory, rec, config) as gates:
        assert gate_status(gates, 2)["blocked"] is True
        assert wait_for(lambda: gate_status(gates, 2)["stuck"])
        for _ in range(3):  # marbles make short *clear* gaps on such a gate
            pin.drive_high()
            time.sleep(0.015)
            pin.drive_low()
            time.sleep(0.03)
        assert flushed(gates)
        assert wait_for(lambda: gate_status(gates, 2)["stuck"])
        g2 = gate_status(gates, 2)
    assert rec.readings == []
    assert g2["marbles"] == 0


def test_flickering_cable_gives_glitches_and_a_flaky_flag(factory: MockFactory) -> None:
    rec = Recorder()
    # glitches are pulses under 50 ms here, so a busy machine cannot stretch one into a marble
    config = GateConfig(min_pulse_ms=50.0, flaky_glitches=5)
    with make_gates(factory, rec, config) as gates:
        pin = factory.pin(DEFAULT_PINS[2])
        for _ in range(6):
            pin.drive_low()
            pin.drive_high()
            time.sleep(0.01)  # further apart than the merge gap: separate pulses
        assert flushed(gates)
        g3 = gate_status(gates, 3)
        ok = gates.status()["ok"]
    assert rec.readings == []
    assert (g3["glitches"], g3["marbles"], g3["flaky"]) == (6, 0, True)
    assert ok is False


def test_external_pull_up_active_low(factory: MockFactory) -> None:
    rec = Recorder()
    config = GateConfig(pull_up=None, active_state=False)
    for pin in config.pins:  # the external resistors hold the floating lines high
        factory.pin(pin).drive_high()
    with make_gates(factory, rec, config) as gates:
        assert not any(g["blocked"] for g in gates.status()["gates"])
        assert factory.pin(config.pins[0]).pull == "floating"  # no internal pull
        MarbleSimulator(factory, config.pins).roll(3, width_ms=15.0)
        assert flushed(gates)
    assert [r.gate for r in rec.readings] == [3]


def test_external_pull_up_active_high_receiver(factory: MockFactory) -> None:
    rec = Recorder()
    config = GateConfig(pull_up=None, active_state=True)
    with make_gates(factory, rec, config) as gates:  # mock lines float low: beams clear
        assert not any(g["blocked"] for g in gates.status()["gates"])
        MarbleSimulator(factory, config.pins, active_low=False).roll(6, width_ms=15.0)
        assert flushed(gates)
    assert [r.gate for r in rec.readings] == [6]


@pytest.mark.parametrize("kwargs, names", [
    ({"pins": (17, 27, 22, 17, 24, 25)}, "pin 17 is used twice"),
    ({"pins": (17, 27, 22, 23, 24, 99)}, "pin 99"),
    ({"pins": (17, 27, "GPIO22", 23, 24, 25)}, "'GPIO22'"),
    ({"pins": (17, 27, 22, 23, 24)}, "6 pins needed"),
    ({"pins": "17,27"}, "pins must be"),
    ({"pull_up": None}, "active_state"),
    ({"pull_up": True, "active_state": False}, "active_state"),
    ({"min_pulse_ms": 600.0}, "min_pulse_ms"),
])
def test_config_errors_name_the_problem(kwargs: dict, names: str) -> None:
    with pytest.raises(GateConfigError) as info:
        GateArray(GateConfig(**kwargs), lambda r: None)
    message = str(info.value)
    assert names in message
    assert "\n" not in message


def test_config_error_names_the_gate_of_a_bad_pin() -> None:
    with pytest.raises(GateConfigError, match=r"gate 6: pin 99 is not a GPIO pin"):
        GateConfig(pins=(17, 27, 22, 23, 24, 99))


def test_pin_already_in_use_fails_at_start_naming_it(factory: MockFactory) -> None:
    other = DigitalInputDevice(22, pin_factory=factory)
    try:
        gates = GateArray(GateConfig(), lambda r: None, pin_factory=factory)
        with pytest.raises(GateConfigError, match=r"gate 3: GPIO22 is already in use"):
            gates.start()
        gates.close()
    finally:
        other.close()
    # the pins opened before the failure were released: a new array can start
    with GateArray(GateConfig(), lambda r: None, pin_factory=factory) as gates:
        assert gates.status()["ok"] is True


def test_lifecycle(factory: MockFactory) -> None:
    gates = GateArray(GateConfig(), lambda r: None, pin_factory=factory)
    assert gates.status()["ok"] is False  # not started
    assert flushed(gates) is True
    gates.start()
    gates.start()  # a second start is harmless
    assert gates.status()["ok"] is True
    assert gates.pin_factory_name == "MockFactory"
    gates.close()
    gates.close()  # idempotent
    assert gates.status()["ok"] is False
    with pytest.raises(RuntimeError, match="closed"):
        gates.start()


def test_a_failing_callback_does_not_stop_the_worker(factory: MockFactory) -> None:
    seen: list[int] = []

    def on_marble(reading: MarbleReading) -> None:
        seen.append(reading.gate)
        raise RuntimeError("kiosk hiccup")

    with GateArray(GateConfig(), on_marble, pin_factory=factory) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        sim.roll(1)
        sim.roll(2)
        assert flushed(gates)
    assert seen == [1, 2]


def test_simulated_glitches_back_to_back_stay_separate_glitches(factory: MockFactory) -> None:
    rec = Recorder()
    with make_gates(factory, rec) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        for _ in range(4):
            sim.glitch(3)  # each ends with the beam clear for longer than the merge gap
        assert flushed(gates)
        g3 = gate_status(gates, 3)
    assert rec.readings == []
    assert (g3["glitches"], g3["marbles"], g3["flaky"]) == (4, 0, False)


def test_simulated_sub_millisecond_roll_is_a_glitch(factory: MockFactory) -> None:
    rec = Recorder()
    with make_gates(factory, rec) as gates:
        sim = MarbleSimulator(factory, gates.config.pins)
        for _ in range(3):
            sim.roll(5, width_ms=0.3)
        assert flushed(gates)
        g5 = gate_status(gates, 5)
    assert rec.readings == []
    assert (g5["glitches"], g5["marbles"], g5["last_width_ms"]) == (3, 0, 0.3)


def _spinning(stop: threading.Event) -> None:
    while not stop.is_set():  # a busy thread, contending for the interpreter and a core
        sum(range(1000))


@pytest.mark.parametrize("chatter", [False, True])
def test_simulated_pulses_keep_their_widths_on_a_busy_machine(factory: MockFactory, chatter: bool) -> None:
    """Every edge reaches the pin 30 ms after it is due (a stalled simulator thread) while two other
    threads spin: a 0.3 ms glitch stays a 0.3 ms glitch and a 15 ms marble a 15 ms marble."""
    def stalled(deadline: float) -> None:
        sleep_until(deadline + 0.03)

    rec = Recorder()
    stop = threading.Event()
    spinners = [threading.Thread(target=_spinning, args=(stop,), daemon=True) for _ in range(2)]
    for spinner in spinners:
        spinner.start()
    try:
        with make_gates(factory, rec) as gates:
            sim = MarbleSimulator(factory, gates.config.pins, wait_until=stalled)
            sim.roll(2, width_ms=0.3)
            assert flushed(gates)
            g2 = gate_status(gates, 2)
            sim.roll(4, width_ms=15.0, chatter=chatter)
            assert flushed(gates)
            g4 = gate_status(gates, 4)
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join()
    assert (g2["glitches"], g2["marbles"], g2["last_width_ms"]) == (1, 0, 0.3)
    assert (g4["glitches"], g4["marbles"], g4["last_width_ms"]) == (0, 1, 15.0)
    assert [(r.gate, r.width_ms) for r in rec.readings] == [(4, pytest.approx(15.0))]


def test_simulated_edges_carry_the_times_they_stand_for(factory: MockFactory) -> None:
    """The edge times the pin callback receives are the pulse's start plus each edge's offset."""
    seen: list[tuple[float, int]] = []
    pin = factory.pin(DEFAULT_PINS[0])
    pin.drive_high()  # the idle level of an active-low receiver

    def record(ticks: float, state: int) -> None:
        seen.append((ticks, state))

    pin.when_changed = record  # the pin holds a weak reference: `record` stays alive in this test
    MarbleSimulator(factory, DEFAULT_PINS, wait_until=lambda deadline: sleep_until(deadline + 0.02)).roll(
        1, width_ms=15.0, chatter=True)
    start = seen[0][0]
    assert [(round((t - start) * 1000, 6), state) for t, state in seen] == [
        (0.0, 0), (0.05, 1), (0.1, 0), (0.15, 1), (0.2, 0),
        (14.8, 1), (14.85, 0), (14.9, 1), (14.95, 0), (15.0, 1)]
    assert [s.state for s in pin.states[-10:]] == [state for _, state in seen]  # the pin's own record agrees


def test_simulator_refuses_a_bad_gate(factory: MockFactory) -> None:
    sim = MarbleSimulator(factory, DEFAULT_PINS)
    with pytest.raises(ValueError, match="gate must be 1..6"):
        sim.roll(7)
    with pytest.raises(TypeError, match="MockFactory"):
        MarbleSimulator(object(), DEFAULT_PINS)  # type: ignore[arg-type]


def _cli_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    gates_cli.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_simulate_once_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert gates_cli.run(_cli_args("--simulate", "--once")) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()
            and "GPIO" in line]
    assert [row[0] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    assert [row[1] for row in rows] == [f"GPIO{p}" for p in DEFAULT_PINS]
    # columns: gate, pin, (physical), beam, last ms, marbles, glitches, long, state
    assert [row[5] for row in rows] == ["1"] * 6
    assert [row[-1] for row in rows] == ["ok"] * 6
    assert "simulation" in out


def test_cli_pins_and_external_pull_up(capsys: pytest.CaptureFixture[str]) -> None:
    args = _cli_args("--simulate", "--once", "--external-pull-up", "--pins", "5,6,13,19,26,21")
    config = gates_cli.config_from_args(args)
    assert (config.pins, config.pull_up, config.active_state) == ((5, 6, 13, 19, 26, 21),
                                                                  None, False)
    assert gates_cli.run(args) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if "GPIO" in line]
    assert [row[1] for row in rows] == ["GPIO5", "GPIO6", "GPIO13", "GPIO19", "GPIO26", "GPIO21"]
    assert [row[5] for row in rows] == ["1"] * 6


def test_cli_active_high_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    args = _cli_args("--simulate", "--once", "--active-high")
    assert (gates_cli.config_from_args(args).active_state, gates_cli.run(args)) == (True, 0)
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if "GPIO" in line]
    assert [row[5] for row in rows] == ["1"] * 6
    assert [row[3] for row in rows] == ["clear"] * 6


@pytest.mark.parametrize("pins, word", [("17,27,22,23,24,100", "pin 100"),
                                        ("17,27,22,23,24,x", "'x'"),
                                        ("17,17,22,23,24,25", "used twice")])
def test_cli_bad_pins_give_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], pins: str,
                                               word: str) -> None:
    assert gates_cli.run(_cli_args("--simulate", "--once", "--pins", pins)) == 2
    err = capsys.readouterr().err.strip()
    assert word in err and "\n" not in err


class HandClock:
    """Seconds that pass only when a test says so: the gates' worker then tells an edge's lateness by them alone."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize("latency_ms, marbles, glitches", [(100.0, 1, 0), (0.0, 1, 1)])
def test_chatter_edge_that_arrives_late_still_merges(factory: MockFactory, latency_ms: float,
                                                      marbles: int, glitches: int) -> None:
    """An edge stamped in time but delivered late (a busy callback thread) still merges into its
    pulse while it is within ``latency_ms``; judged without that allowance it is a glitch. The edges are handed
    to the worker's step as it would take them, and its clock moves only as the test moves it: "20 ms late" is
    20 ms however long this machine holds a thread."""
    rec = Recorder()
    clock = HandClock()
    with make_gates(factory, rec, GateConfig(latency_ms=latency_ms), clock) as gates:
        t0 = gates._ref_ticks
        gates._process([(3, t0, 0), (3, t0 + 0.015, 1)])  # a 15 ms marble, beam broken = line low
        clock.advance(0.02)
        gates._process([])  # the worker's tick 20 ms later: without the allowance the marble is whole by now
        gates._process([(3, t0 + 0.0152, 0), (3, t0 + 0.0154, 1)])  # the chatter at its end, delivered then
        clock.advance(1.0)
        gates._process([])
        assert flushed(gates)
        g3 = gate_status(gates, 3)
    assert (g3["marbles"], g3["glitches"]) == (marbles, glitches)
    assert [r.gate for r in rec.readings] == [3]


def test_marbles_handled_in_one_batch_are_reported_in_the_order_they_rolled(factory: MockFactory) -> None:
    """A worker that fell behind (a loaded machine) gets the edges of three marbles at once: the readings
    still come in the order the pulses ended, not in gate order."""
    rec = Recorder()
    with make_gates(factory, rec) as gates:
        base = gates._ref_ticks
        batch = []
        for n, gate in enumerate((4, 2, 6)):  # 10 ms pulses, 60 ms apart
            start = base + 0.060 * n
            batch += [(gate, start, 0), (gate, start + 0.010, 1)]  # pulled low while the beam is broken
        gates._process(batch)  # as the worker would; the last pulse ends on the worker's next tick
        assert wait_for(lambda: len(rec.readings) == 3)
    assert [r.gate for r in rec.readings] == [4, 2, 6]

"""Gate driver figures through MockFactory pins: edge -> on_marble latency, sustained edge rate.

Run with ``python -m bench`` (all benchmarks) or ``python -m bench.bench_gates``.
"""

from __future__ import annotations

import statistics
import threading
import time

from gpiozero.pins.mock import MockFactory

from hardware.gates import GateArray, GateConfig, MarbleReading

LATENCY_MARBLES = 1000
RATE_PULSES = 30_000


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_latency(config: GateConfig, marbles: int = LATENCY_MARBLES) -> list[float]:
    """Milliseconds from the edge that clears the beam to the on_marble callback."""
    arrived = threading.Event()
    got_at: list[float] = []

    def on_marble(reading: MarbleReading) -> None:
        got_at.append(time.monotonic())
        arrived.set()

    latencies: list[float] = []
    with MockFactory() as factory, GateArray(config, on_marble, pin_factory=factory) as gates:
        pins = [factory.pin(p) for p in config.pins]
        for i in range(marbles):
            pin = pins[i % len(pins)]
            arrived.clear()
            pin.drive_low()
            deadline = time.monotonic() + (config.min_pulse_ms + 0.2) / 1000.0
            while time.monotonic() < deadline:  # a pulse just over min_pulse_ms wide
                pass
            edge_at = time.monotonic()
            pin.drive_high()
            if not arrived.wait(2.0):
                raise RuntimeError(f"marble {i} never arrived")
            latencies.append((got_at[-1] - edge_at) * 1000.0)
        gates.flush()
    return latencies


def measure_edge_rate(pulses: int = RATE_PULSES) -> tuple[float, int, int]:
    """Drive ``pulses`` back-to-back pulses round the six gates as fast as possible; returns
    (edges per second until the last marble was reported, marbles sent, marbles counted)."""
    # Every pulse must count, however short and however close: no width floor, no merging,
    # no refractory time. This measures the pipeline, not the thresholds.
    config = GateConfig(min_pulse_ms=0.0, merge_gap_ms=0.0, refractory_ms=0.0,
                        solid_fraction=0.0)
    counted = 0
    lock = threading.Lock()

    def on_marble(reading: MarbleReading) -> None:
        nonlocal counted
        with lock:
            counted += 1

    with MockFactory() as factory, GateArray(config, on_marble, pin_factory=factory) as gates:
        pins = [factory.pin(p) for p in config.pins]
        start = time.perf_counter()
        for i in range(pulses):
            pin = pins[i % len(pins)]
            pin.drive_low()
            pin.drive_high()
        deadline = time.monotonic() + 30.0
        while time.monotonic() < deadline:
            gates.flush(timeout=1.0)
            with lock:
                if counted >= pulses:
                    break
        elapsed = time.perf_counter() - start
        per_gate = [g["marbles"] for g in gates.status()["gates"]]
    expected = [pulses // 6 + (1 if g < pulses % 6 else 0) for g in range(6)]
    if per_gate != expected:
        print(f"gates: LOST EDGES: per gate {per_gate}, expected {expected}")
    return 2 * pulses / elapsed, pulses, counted


def main() -> None:
    """Print the gate driver's figures."""
    default = GateConfig()
    lat = measure_latency(GateConfig(refractory_ms=0.0))
    print(f"gates: edge->on_marble median {statistics.median(lat):.2f} ms, "
          f"p99 {_percentile(lat, 0.99):.2f} ms ({len(lat)} marbles, MockFactory; includes "
          f"the {default.merge_gap_ms:g} ms merge gap that waits for chatter)")
    raw = measure_latency(GateConfig(refractory_ms=0.0, merge_gap_ms=0.0))
    print(f"gates: edge->on_marble median {statistics.median(raw):.2f} ms, "
          f"p99 {_percentile(raw, 0.99):.2f} ms (pipeline alone, merge gap 0)")
    rate, sent, counted = measure_edge_rate()
    verdict = "none lost" if counted == sent else f"LOST {sent - counted}"
    print(f"gates: sustained {rate:,.0f} edges/s across 6 gates "
          f"({2 * sent} edges, {counted}/{sent} marbles counted, {verdict})")


if __name__ == "__main__":
    main()

"""Small helpers for printing benchmark figures."""
from __future__ import annotations

import statistics


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values_ms: list[float]) -> str:
    return (f"median {statistics.median(values_ms):.2f} ms, p99 {percentile(values_ms, 99):.2f} ms, "
            f"max {max(values_ms):.2f} ms (n={len(values_ms)})")

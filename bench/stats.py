"""Small helpers for printing benchmark figures."""
from __future__ import annotations

import statistics

from hardware.vision.evaluate import wilson


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values_ms: list[float]) -> str:
    return (f"median {statistics.median(values_ms):.2f} ms, p99 {percentile(values_ms, 99):.2f} ms, "
            f"max {max(values_ms):.2f} ms (n={len(values_ms)})")


def rate(hits: int, n: int) -> str:
    """``hits`` of ``n`` as a rate with its 95 % Wilson interval, e.g. "0.814 (0.708..0.888)"."""
    low, high = wilson(hits, n)
    return f"{hits / max(1, n):.3f} ({low:.3f}..{high:.3f})"

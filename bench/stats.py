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


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % at ``z`` 1.96) of a rate of ``hits`` in ``n`` independent trials: what
    a figure on 70 frames can and cannot tell apart (0.814 of 70 lies between 0.71 and 0.89)."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(hits: int, n: int) -> str:
    """``hits`` of ``n`` as a rate with its 95 % Wilson interval, e.g. "0.814 (0.708..0.888)"."""
    low, high = wilson(hits, n)
    return f"{hits / max(1, n):.3f} ({low:.3f}..{high:.3f})"

"""Waiting for what background threads (sensors, camera) do, without fixed sleeps."""
from __future__ import annotations

import time
from typing import Any, Callable


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    """The first truthy value of `predicate()`, polled every 20 ms; AssertionError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting")

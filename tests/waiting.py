"""Waiting for what background threads (sensors, camera) do, without fixed sleeps."""
from __future__ import annotations

import time
from typing import Any, Callable

#: Upper bound for waits on another thread: generous, because a loaded 2-core CI machine can stall a thread
#: for seconds. It only delays a test that is failing anyway; it is never a timing assertion.
PATIENCE_S = 30.0


def wait_for(predicate: Callable[[], Any], timeout: float = PATIENCE_S) -> Any:
    """The first truthy value of `predicate()`, polled every 20 ms; AssertionError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting")

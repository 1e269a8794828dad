"""Decide from a stream of marble detections when the marbles have come to rest.

Pure logic: no threads, no clock of its own, no cv2. Used in camera-alone mode (no beams fitted;
ruling D3: the camera alone fills in the round once the marbles rest).

A reading is ``(counts per gate, outside)``. A reading *rests* once it has been seen unchanged for
``settle_s`` seconds across at least ``min_frames`` frames, none of them a picture that moved since the one
before (a marble can roll on in its gate with the counts unchanged). A resting reading is reported once, and
only when it has marbles and differs from the previous resting reading: a brief flicker (a hand over
the gates, a missed frame) never rests, so it neither triggers nor re-arms; an empty board that
rests (the active player took the marbles back) re-arms the same reading for the next round.
"""

from __future__ import annotations

from numbers import Integral

Reading = tuple[tuple[int, ...], int]

DEFAULT_SETTLE_S = 1.0
DEFAULT_MIN_FRAMES = 3


class RestWatcher:
    """Reports ``(counts, outside)`` once per new resting, non-empty reading."""

    def __init__(self, settle_s: float = DEFAULT_SETTLE_S, min_frames: int = DEFAULT_MIN_FRAMES) -> None:
        if isinstance(settle_s, bool) or not isinstance(settle_s, (int, float)) or not settle_s >= 0:
            raise ValueError(f"settle_s must be a number of seconds >= 0, got {settle_s!r}")
        if isinstance(min_frames, bool) or not isinstance(min_frames, int) or min_frames < 1:
            raise ValueError(f"min_frames must be an integer >= 1, got {min_frames!r}")
        self.settle_s = float(settle_s)
        self.min_frames = min_frames
        self.reset()

    def reset(self) -> None:
        """Forget every reading: the next stable non-empty reading is reported again."""
        self._candidate: Reading | None = None
        self._since = 0.0
        self._frames = 0
        self._resting: Reading | None = None

    @property
    def is_empty(self) -> bool:
        """True when the last reading had no marbles anywhere (False before the first reading)."""
        return self._candidate is not None and _is_empty(self._candidate)

    @property
    def reading(self) -> Reading | None:
        """The last reading given to :meth:`update`, or None."""
        return self._candidate

    @property
    def resting(self) -> Reading | None:
        """The last reading that came to rest (empty ones included), or None."""
        return self._resting

    @property
    def waiting(self) -> bool:
        """True while the last reading has marbles and has not come to rest (still rolling, or not yet settled)."""
        return self._candidate is not None and not _is_empty(self._candidate) and self._candidate != self._resting

    def update(self, counts: tuple[int, ...], outside: int, now: float, moving: bool = False) -> Reading | None:
        """Feed one detection taken at ``now`` (seconds, monotonic); returns the reading when it
        has just come to rest, is non-empty and differs from the previous resting reading. ``moving``: the
        picture changed since the frame before (a marble still rolling, with the same counts or not): no
        rest yet, and its time starts again with this frame."""
        reading = _validated(counts, outside)
        if moving or reading != self._candidate or now < self._since:  # moved, changed, or the clock went back
            self._candidate, self._since, self._frames = reading, now, 1
        else:
            self._frames += 1
        if reading == self._resting:
            return None
        if self._frames < self.min_frames or now - self._since < self.settle_s:
            return None
        self._resting = reading
        return None if _is_empty(reading) else reading


def _is_empty(reading: Reading) -> bool:
    counts, outside = reading
    return outside == 0 and not any(counts)


def _validated(counts: object, outside: object) -> Reading:
    """The reading as a hashable pair; ValueError naming the problem for bad input."""
    try:
        values: tuple[object, ...] = tuple(counts)  # type: ignore[arg-type]  # any object: tuple() checks it
    except TypeError:
        raise ValueError(f"counts must be a sequence of marble counts per gate, got {counts!r}") from None
    numbers: list[int] = []
    for value in (*values, outside):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
            raise ValueError(f"marble counts must be whole numbers >= 0, got counts={counts!r}, outside={outside!r}")
        numbers.append(int(value))
    return tuple(numbers[:-1]), numbers[-1]

"""One reading from a few frames of the same resting marbles.

A camera's noise differs from frame to frame; a close decision of the detector can fall one way in one
frame and the other way in the next. So a confirmation reads ``CONFIRM_FRAMES`` frames in a row, and
``consensus`` makes one detection of them: each gate's count (and the outside count) is the one most
frames read, a gate whose count differs between the frames is unsure (ruling D4: the noise alone
changes the answer), and a gate is otherwise unsure when most frames flag it.

Measured on held-out rendered scenes (``python -m tests.vision_fit measure 500``: 500 a hard case, each
read in three frames of fresh sensor noise), against the first frame alone: the six counts exact in
0.989 of the 3,000 scenes as before (touching pairs and clutter 0.998 to 1.000, rolling marbles 0.980 to
0.978, traced glass 0.964 to 0.962), a gate flagged in 0.097 as from one frame (0.111 against 0.119
before ``detect.NEAR_SAME`` stopped flagging near misses that could not add a marble), and read wrong with
no gate flagged in 0.001 against 0.003 (traced glass 0.002 against 0.012). On 1,400 held-out scenes read in five
frames each (200 a case and 200 ordinary, seeds 70000..70199): keeping every flag any of three frames
raised flagged 0.190 against 0.108 for the majority, and caught no more wrong readings; five frames by
majority flagged 0.099, with the same two scenes wrong and not flagged as three.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hardware.vision.detect import Detection

CONFIRM_FRAMES = 3
"""Frames a confirmation reads (see above: five gain little; each frame costs a detection)."""


def consensus(detections: Sequence[Detection]) -> tuple[Detection, int]:
    """One detection of ``detections`` (frames of the same scene, in the order taken): the counts most
    frames read (on a tie, the first frame's among the tied), unsure where the frames disagree or most of
    them flag a gate, and the marbles of the first frame that reads every count as agreed (else of the
    first frame agreeing on most); with the index of that frame (whose picture shows those marbles)."""
    if not detections:
        raise ValueError("consensus needs at least one detection")
    counts = tuple(_most_common([d.counts[g] for d in detections]) for g in range(6))
    outside = _most_common([d.outside for d in detections])
    n = len(detections)
    unsure = tuple(len({d.counts[g] for d in detections}) > 1 or 2 * sum(d.unsure[g] for d in detections) > n
                   for g in range(6))
    agreeing = [sum(a == b for a, b in zip(d.counts, counts)) + (d.outside == outside) for d in detections]
    best = agreeing.index(max(agreeing))
    return replace(detections[best], counts=counts, outside=outside, unsure=unsure,  # type: ignore[arg-type]
                   with_reference=all(d.with_reference for d in detections),
                   noisy=2 * sum(d.noisy for d in detections) > n,
                   overexposed=2 * sum(d.overexposed for d in detections) > n), best


def _most_common(values: list[int]) -> int:
    """The value most often in ``values``; on a tie the one seen first."""
    return Counter(values).most_common(1)[0][0]

"""Marble vision on real photographs with an empty reference: a public sequence of glass marbles.

Set COMPANION_REAL_SEQUENCE to a copy of github.com/robevans/Advanced-Vision-1 (``make real-photos``
fetches it): ``SEQ1/1.jpg`` .. ``SEQ1/71.jpg``, 640x480 frames from a fixed camera above a white
table. Frame 1 is empty (the reference); in the others glass marbles (clear, cat's-eye, coloured,
black) roll in from both sides, many still moving, a roll of tape lies still. ``gtSeq1.mat`` holds
the hand-labelled centre of every marble in every frame, counting pixels from 1 as MATLAB does (read
here from 0, as this project counts: read from 1 they sat a pixel right of and below every marble);
reading it needs scipy (``pip install scipy``). Nothing is downloaded here: without the folder, or
without scipy, the figure is skipped. The repository states no licence, so none of its frames or
labels is kept in this project. It is measured, never tuned to.

The gates are the frame split 3 x 2, ``EDGE_RADII`` marble radii in from the frame's edges: a
castle's gates never reach the edge of the picture, and the labels leave out the marbles still
half outside it. A second figure has the gates over the whole frame. The marble radius is what the
Camera page's tap measures (``measure_radius_at``), the median over the labelled marbles.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.bench_real_photos import grid
from bench.stats import rate
from hardware.vision.evaluate import wrong_and_sure

if TYPE_CHECKING:
    import numpy as np

    from hardware.vision.detect import Detection
    from hardware.vision.regions import GateRegions

EDGE_RADII = 2.5
"""How far (marble radii) the grid of gates stays in from the frame's edges."""

FRAMES = 71


@dataclass(frozen=True)
class Sequence:
    """The empty reference, every later frame with its labelled marble centres, the marble radius."""

    reference: np.ndarray
    frames: tuple[np.ndarray, ...]
    labels: tuple[tuple[tuple[float, float], ...], ...]
    radius: float


SEQUENCE_PARTS = ("SEQ1",)
"""The folder of the Advanced-Vision-1 copy read here, beside ``gtSeq1.mat`` at its top (``python -m
bench.fetch_real`` fetches only these)."""


def is_sequence_copy(root: Path) -> bool:
    """True when ``root`` holds the Advanced-Vision-1 frames and labels read here."""
    return (root / "SEQ1" / "1.jpg").is_file() and (root / "gtSeq1.mat").is_file()


def sequence_folder() -> Path | None:
    """The copy named by COMPANION_REAL_SEQUENCE, or None when absent."""
    value = os.environ.get("COMPANION_REAL_SEQUENCE")
    if not value:
        return None
    root = Path(value)
    return root if is_sequence_copy(root) else None


def _labels(mat_path: Path) -> dict[int, list[tuple[float, float]]]:
    """Frame number -> labelled (x, y) centres, from the two trajectory lists of ``gtSeq1.mat``."""
    import numpy as np
    import scipy.io

    mat = scipy.io.loadmat(str(mat_path), squeeze_me=True, struct_as_record=False)
    out: dict[int, list[tuple[float, float]]] = {}
    for key in ("new_marbles_comingFromRight", "new_marbles_comingFromLeft"):
        for marble in np.atleast_1d(mat[key]):
            for frame, x, y in zip(np.atleast_1d(marble.frame_numbers), np.atleast_1d(marble.row_of_centers),
                                   np.atleast_1d(marble.col_of_centers)):
                # "row" holds x (see showgt.m); MATLAB counts pixels from 1, this project from 0
                out.setdefault(int(frame), []).append((float(x) - 1.0, float(y) - 1.0))
    return out


def load_sequence(root: Path) -> Sequence:
    """The reference (frame 1), frames 2..71 with their labels, and the tapped marble radius."""
    import cv2

    from hardware.camera.marble_size import measure_radius_at

    images = [cv2.imread(str(root / "SEQ1" / f"{i}.jpg"), cv2.IMREAD_COLOR) for i in range(1, FRAMES + 1)]
    if any(img is None for img in images):
        raise ValueError(f"{root / 'SEQ1'} lacks a readable frame of 1..{FRAMES}")
    labels = _labels(root / "gtSeq1.mat")
    radii = []
    for i, img in enumerate(images[1:], 2):
        for x, y in labels.get(i, []):
            size = measure_radius_at(img, x, y, images[0]) if 0 <= x < img.shape[1] and 0 <= y < img.shape[0] else None
            if size is not None:
                radii.append(size.radius_px)
    return Sequence(images[0], tuple(images[1:]), tuple(tuple(labels.get(i, [])) for i in range(2, FRAMES + 1)),
                    statistics.median(radii))


def _near_a_line(x: float, y: float, regions: GateRegions, reach: float) -> bool:
    """True when (x, y) lies within ``reach`` of a border between two gates of the grid."""
    xs = sorted({round(p[0], 3) for r in regions.gates for p in r.polygon})[1:-1]
    ys = sorted({round(p[1], 3) for r in regions.gates for p in r.polygon})[1:-1]
    return any(abs(x - v) < reach for v in xs) or any(abs(y - v) < reach for v in ys)


def _gates(seq: Sequence, edge_radii: float) -> GateRegions:
    """The 3 x 2 grid of gates over the sequence's frames, ``edge_radii`` marble radii in from their edges."""
    h, w = seq.reference.shape[:2]
    return grid(w, h, edge_radii * seq.radius)


def _truth(labels: tuple[tuple[float, float], ...], regions: GateRegions) -> tuple[int, ...]:
    """The labelled marbles per gate, gate 1 first."""
    truth = [0] * 6
    for x, y in labels:
        gate = regions.gate_at(x, y)
        if gate is not None:
            truth[gate - 1] += 1
    return tuple(truth)


def _wrong_and_sure(detection: Detection, truth: tuple[int, ...]) -> bool:
    """True when a gate's count is wrong and not flagged unsure."""
    return wrong_and_sure(detection.counts, truth, detection.unsure)


def evaluate(seq: Sequence, edge_radii: float = EDGE_RADII) -> dict[str, float]:
    """Exact rates of the detector with the reference on every frame after the first, the gates
    ``edge_radii`` marble radii in from the frame's edges; ms per frame."""
    from hardware.vision.detect import MarbleDetector

    regions = _gates(seq, edge_radii)
    detector = MarbleDetector(regions, seq.reference, marble_radius_px=seq.radius)
    gates = six = total = unsure = wrong_sure = on_line = sure_off_line = missed = extra = 0
    times = []
    for frame, labels in zip(seq.frames, seq.labels):
        truth = _truth(labels, regions)
        t0 = time.perf_counter()
        det = detector.detect(frame)
        times.append((time.perf_counter() - t0) * 1000.0)
        gates += sum(a == b for a, b in zip(det.counts, truth))
        six += det.counts == truth
        total += sum(det.counts) == sum(truth)
        unsure += det.is_unsure
        sure_wrong = _wrong_and_sure(det, truth)
        wrong_sure += sure_wrong
        missed += sum(max(0, b - a) for a, b in zip(det.counts, truth))
        extra += sum(max(0, a - b) for a, b in zip(det.counts, truth))
        if det.counts != truth:
            near = any(_near_a_line(x, y, regions, seq.radius) for x, y in labels)
            on_line += near
            sure_off_line += sure_wrong and not near
    n = max(1, len(seq.frames))
    return {"frames": len(seq.frames), "gates_exact": gates / (6 * n), "six_exact": six / n, "six": six,
            "total_exact": total / n,
            "unsure": unsure / n, "wrong_sure": wrong_sure / n,
            "wrong_on_line": float(on_line), "wrong_sure_off_line": sure_off_line / n,
            "missed": float(missed), "extra": float(extra), "radius": seq.radius, "ms": statistics.median(times)}


def motion(seq: Sequence, edge_radii: float = EDGE_RADII) -> dict[str, float]:
    """How the check for a marble still rolling (``MarbleDetector.moved``, each frame against the one before)
    agrees with the labels: of the gates where a labelled marble moved more than half a radius since the frame
    before (or came or went), the fraction it flags; of the others, the fraction it flags."""
    from hardware.vision.detect import MarbleDetector

    regions = _gates(seq, edge_radii)
    detector = MarbleDetector(regions, seq.reference, marble_radius_px=seq.radius)
    moving = caught = still = false_alarms = 0
    for i in range(1, len(seq.frames)):
        flagged = detector.moved(seq.frames[i - 1], seq.frames[i])
        labelled = [False] * 6
        for here, there in ((seq.labels[i], seq.labels[i - 1]), (seq.labels[i - 1], seq.labels[i])):
            for x, y in here:
                gate = regions.gate_at(x, y)
                if gate is not None and all(math.hypot(x - u, y - v) > 0.5 * seq.radius for u, v in there):
                    labelled[gate - 1] = True
        moving += sum(labelled)
        caught += sum(f and m for f, m in zip(flagged, labelled))
        still += 6 - sum(labelled)
        false_alarms += sum(f and not m for f, m in zip(flagged, labelled))
    return {"moving": moving, "caught": caught / max(1, moving), "still": still,
            "false_alarms": false_alarms / max(1, still)}


def at_rest(seq: Sequence, edge_radii: float = EDGE_RADII) -> dict[str, float]:
    """The detector on the frames a table would read once its marbles settled: those in which the check for a
    marble still rolling (``MarbleDetector.moved``, against the frame before) flags no gate. Of them: all six
    exact, a gate flagged unsure, a gate read wrong and not flagged (what a table owner sees: how often a tap is
    asked for once the marbles rest, and how often a count is wrong without one)."""
    from hardware.vision.detect import MarbleDetector

    regions = _gates(seq, edge_radii)
    detector = MarbleDetector(regions, seq.reference, marble_radius_px=seq.radius)
    frames = exact = flagged = wrong_sure = 0
    for i in range(1, len(seq.frames)):
        if any(detector.moved(seq.frames[i - 1], seq.frames[i])):
            continue
        det, truth = detector.detect(seq.frames[i]), _truth(seq.labels[i], regions)
        frames += 1
        exact += det.counts == truth
        flagged += det.is_unsure
        wrong_sure += _wrong_and_sure(det, truth)
    n = max(1, frames)
    return {"frames": frames, "six_exact": exact / n, "unsure": flagged / n, "wrong_sure": wrong_sure / n}


class _Replay:
    """A camera service that plays the sequence's frames, one a settled frame asked for, from ``start``."""

    def __init__(self, frames: tuple[np.ndarray, ...], start: int) -> None:
        self.frames, self.next = frames, start

    def settled_frame(self, timeout: float = 2.0) -> np.ndarray | None:
        if self.next >= len(self.frames):
            return None
        self.next += 1
        return self.frames[self.next - 1]

    def latest(self) -> np.ndarray:
        """The picture now (the gates are checked against its size when they are set)."""
        return self.frames[min(self.next, len(self.frames) - 1)]


def confirmations(seq: Sequence, wait_for_still: bool = True) -> dict[str, float]:
    """The camera hub's confirmation (``CameraHub.confirm_now``) replayed on the sequence, started at every frame
    but the last two: each frame it asks for is the next of the sequence (taken as 0.15 s apart; the sequence
    states no frame rate). Judged against the labels of the frame whose marbles it reports: six counts exact, a
    gate flagged, a gate read wrong and not flagged. ``wait_for_still`` False: read three frames and report,
    as the hub did before it waited for a still picture."""
    import tempfile

    from hardware.camera.hub import STILL_TRIES, CameraHub
    from hardware.camera.marble_size import MarbleSize

    regions = _gates(seq, EDGE_RADII)
    exact = flagged = wrong_sure = 0
    starts = range(len(seq.frames) - 2)
    with tempfile.TemporaryDirectory() as data:
        for start in starts:
            hub = CameraHub(_Replay(seq.frames, start), Path(data), on_reading=lambda *_: None,  # type: ignore[arg-type]
                            confirm_gap_s=0.0, still_wait_s=0.0, still_tries=STILL_TRIES if wait_for_still else 1,
                            default_marble=MarbleSize(seq.radius, "tap", 0.0))
            hub.set_regions(regions.to_json())
            hub.reference.offer(seq.reference, beams_idle=True, regions_empty=True, now=1e9)
            detection = hub.confirm_now()
            assert detection is not None and hub.last_reading is not None
            shown = next(i for i, f in enumerate(seq.frames) if f is hub.last_reading.frame)
            truth = _truth(seq.labels[shown], regions)
            exact += detection.counts == truth
            flagged += detection.is_unsure
            wrong_sure += _wrong_and_sure(detection, truth)
    n = len(starts)
    return {"starts": n, "six_exact": exact / n, "unsure": flagged / n, "wrong_sure": wrong_sure / n}


def main() -> None:
    """Print the figures when COMPANION_REAL_SEQUENCE names a copy of the sequence and scipy is there."""
    import importlib.util

    import cv2

    root = sequence_folder()
    if root is None:
        print("vision on a real sequence: skipped (set COMPANION_REAL_SEQUENCE to a copy of "
              "robevans/Advanced-Vision-1)")
        return
    if importlib.util.find_spec("scipy") is None:
        print("vision on a real sequence: skipped (its labels, gtSeq1.mat, need scipy: pip install scipy)")
        return
    cv2.setNumThreads(1)
    seq = load_sequence(root)
    r = evaluate(seq)
    print(f"vision on a real sequence (Advanced-Vision-1, with the reference, tapped radius {r['radius']:.1f} px): "
          f"{r['frames']} frames, gates exact {r['gates_exact']:.3f}, all six exact {rate(r['six'], r['frames'])}, "
          f"total exact {r['total_exact']:.3f}, flagged unsure {r['unsure']:.3f}, a gate wrong and sure "
          f"{r['wrong_sure']:.3f} ({r['wrong_sure_off_line']:.3f} with no marble within a radius of a line between "
          f"gates); marbles missed {r['missed']:.0f}, extra {r['extra']:.0f}; "
          f"{r['wrong_on_line']:.0f} wrong frames have a marble within a radius of a line between gates; "
          f"median {r['ms']:.2f} ms/frame")
    m = motion(seq)
    print(f"  a marble still rolling, each frame against the one before (inset gates): {m['caught']:.3f} of the "
          f"{m['moving']:.0f} gates where a labelled marble moved half a radius or more flagged as moving, "
          f"{m['false_alarms']:.3f} of the {m['still']:.0f} others")
    rest = at_rest(seq)
    print(f"  the {rest['frames']:.0f} frames in which nothing moved since the frame before (as the table reads once "
          f"the marbles settle): all six exact {rest['six_exact']:.3f}, flagged {rest['unsure']:.3f}, a gate wrong and "
          f"sure {rest['wrong_sure']:.3f}")
    now, before = confirmations(seq), confirmations(seq, wait_for_still=False)
    print(f"  the hub's confirmation replayed from each of {now['starts']:.0f} frames (the next frame a frame asked "
          f"for): all six exact {now['six_exact']:.3f}, flagged {now['unsure']:.3f}, a gate wrong and sure "
          f"{now['wrong_sure']:.3f}; without waiting for a still picture {before['six_exact']:.3f}, "
          f"{before['unsure']:.3f}, {before['wrong_sure']:.3f}")
    r = evaluate(seq, 0.0)
    print(f"  the same, the gates over the whole frame (the labels leave out marbles half outside it): gates exact "
          f"{r['gates_exact']:.3f}, all six exact {rate(r['six'], r['frames'])}, flagged unsure {r['unsure']:.3f}, "
          f"a gate wrong and sure {r['wrong_sure']:.3f}")
    print("  (in brackets, the 95 % interval were the frames independent; a sequence's neighbouring frames are not,"
          " so the true interval is wider)")


if __name__ == "__main__":
    main()

"""Marble vision speed: median milliseconds per frame on one core (goal: 3 ms at 640x480), on
ordinary rendered scenes and on the hard cases (tests/scenes.py CASES, radius given)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

import cv2
import numpy as np

from hardware.vision.detect import MarbleDetector
from hardware.vision.regions import GateRegion, GateRegions


def _timed_ms(calls: list[Callable[[], object]], repeat: int = 5) -> tuple[float, float]:
    """Median and p99 milliseconds of each of ``calls``, each made ``repeat`` times."""
    times = []
    for _ in range(repeat):
        for call in calls:
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    return statistics.median(times), times[int(0.99 * (len(times) - 1))]


def _median_ms(detector: MarbleDetector, frames: list, repeat: int = 5) -> tuple[float, float]:
    """Median and p99 milliseconds of ``detector`` reading each of ``frames``."""
    return _timed_ms([partial(detector.detect, f) for f in frames], repeat)


STAGES = (("crop and scale", "_prepare"), ("light correction", "light_gain"), ("change", "change_magnitude"),
          ("circle votes", "circle_votes"), ("peaks, glare, review", "_select"),
          ("unexplained change", "unexplained_blobs"), ("leftover change", "leftover_change"),
          ("faint change", "faint_change"), ("smeared marbles", "smeared_marbles"), ("faint streaks", "faint_streaks"),
          ("marbles not put in (taken out, a print)", "_not_put_in"))
"""The detector's stages, each by the function that does it (``hardware.vision``)."""


def stage_shares(detectors: list[tuple[MarbleDetector, object]]) -> list[tuple[str, float]]:
    """Each stage's share of the detection time of ``detectors`` (detector, frame), from cProfile's
    cumulative times (the profiler slows every call alike, so shares, not milliseconds)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    for detector, frame in detectors:
        detector.detect(frame)
    profile.disable()
    stats = pstats.Stats(profile).stats
    cumulative: dict[str, float] = {}
    for (_, _, name), (_, _, _, ct, _) in stats.items():
        cumulative[name] = cumulative.get(name, 0.0) + ct
    total = cumulative["detect"]
    return [(label, cumulative.get(name, 0.0) / total) for label, name in STAGES]


def _pace_work() -> Callable[[], None]:
    """A fixed cv2 and numpy workload of the detector's kind and size (no project code): whole-image filters
    on a working-size image, then many small calls as the review makes."""
    img = np.random.default_rng(0).random((128, 336, 3), dtype=np.float32)

    def work() -> None:
        blurred = cv2.GaussianBlur(img, (0, 0), 1.5)
        gray = cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY)
        mag = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
        ys, xs = np.nonzero(mag > float(np.median(mag)))
        np.bincount(ys * 336 + xs, weights=mag[ys, xs], minlength=128 * 336)
        for k in range(60):
            float(blurred[k:k + 9, k:k + 9].mean())

    return work


def paces(detectors: list[tuple[MarbleDetector, object]], rounds: int = 5) -> float:
    """The detection time over the machine's pace (``_pace_work``), timed in turn, one after the other, so
    both see the same machine: this shared machine runs faster on some days (and minutes) than others, and
    the ratio compares across them where milliseconds do not. The median over ``detectors``."""
    work = _pace_work()
    ratios = []
    for detector, frame in detectors:
        detect_ms, pace_ms = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            work()
            t1 = time.perf_counter()
            detector.detect(frame)
            pace_ms.append(t1 - t0)
            detect_ms.append(time.perf_counter() - t1)
        ratios.append(statistics.median(detect_ms) / statistics.median(pace_ms))
    return statistics.median(ratios)


def _nudged(regions: GateRegions, shift: int) -> GateRegions:
    """``regions`` in a frame whose first ``shift`` rows and columns were cut off."""
    return GateRegions(tuple(GateRegion(g.gate, tuple((x - shift, y - shift) for x, y in g.polygon))
                             for g in regions.gates))


def nudge_changes(scenes: list, shift: int = 1, radius_given: bool = False) -> tuple[float, float]:
    """How steady a reading is when the camera moves by a pixel: the share of ``scenes`` whose six counts
    change, and whose counts or unsure flags change, when frame and reference lose their first ``shift``
    rows and columns (the picture moves ``shift`` pixels up and left, the regions with it). The marbles
    are where they were; only where the working image's pixels fall on them changed."""
    counts = flags = 0
    for sc in scenes:
        radius = sc.marble_radius_px if radius_given else None
        before = MarbleDetector(sc.regions, sc.reference, marble_radius_px=radius).detect(sc.image)
        after = MarbleDetector(_nudged(sc.regions, shift), sc.reference[shift:, shift:],
                               marble_radius_px=radius).detect(sc.image[shift:, shift:])
        counts += before.counts != after.counts
        flags += (before.counts, before.unsure) != (after.counts, after.unsure)
    return counts / len(scenes), flags / len(scenes)


def area_costs(scenes: list) -> list[tuple[str, int, float]]:
    """The detection time by the size of the image it works on: (set-up, working pixels, median ms per frame) for
    the frames of ``scenes`` read as the castle's row of gates, and read as six gates of a 3 x 2 grid over the
    whole frame (2.5 radii in from its edges) at marble radii of 8, 12 and 16 pixels. The detector scales the
    gate area (its gates and ``detect.ROI_MARGIN_RADII`` around them) to ``detect.WORK_RADIUS`` working pixels
    a marble radius: its time follows the working pixels, more than the marbles. With the allocator set as the
    camera service sets it (``main``), a reading whose working memory outgrows what a heap keeps free
    (``hardware.camera.allocator.HEAP_TOP_KEEP_BYTES``; the castle's reading stays within it, at any camera distance,
    since its gate area in marble radii is the castle's) gives it back and faults it in again every frame: the grids
    at 12 and 8 px read in 4.27 and 8.39 ms so, 2.02 and 5.19 ms in a process without the setting (one run; over
    three runs of ``make bench`` 2.4 to 6.8 and 6.2 to 14.4 ms, as the heaps happen to lie)."""
    from bench.bench_real_photos import grid

    def measured(label: str, make: Callable[[object], MarbleDetector]) -> tuple[str, int, float]:
        detectors = [(make(sc), sc) for sc in scenes]
        pixels = statistics.median(int(np.prod(d._prepare(sc.image).shape[:2])) for d, sc in detectors)
        return label, int(pixels), statistics.median(_median_ms(d, [sc.image], repeat=3)[0] for d, sc in detectors)

    h, w = scenes[0].image.shape[:2]
    rows = [measured("the castle's row of gates", lambda sc: MarbleDetector(sc.regions, sc.reference))]
    for radius in (16.0, 12.0, 8.0):
        rows.append(measured(f"a 3 x 2 grid over the frame, radius {radius:.0f} px", lambda sc, r=radius:
                             MarbleDetector(grid(w, h, 2.5 * r), sc.reference, marble_radius_px=r)))
    return rows


WARM_READINGS = 3
"""Readings of a frame before its memory is counted: the first prepares the reference and reads it where each marble
lies (kept by place), the heap of the reading thread reaches its most by the third (the castle's scene 900: 1,412,
571, 211, then 1 and 0 fresh pages; before the taken-out check read each marble's outline, 1,169, 210, 7, then 0)."""


def on_a_thread(detectors: list[tuple[MarbleDetector, object]], rounds: int = 5) -> tuple[float, float]:
    """(median ms, median fresh pages faulted in) a frame of ``detectors`` (detector, frame) read on a thread of their
    own, as the camera hub reads (``hardware.camera.hub``): a thread's heap is not the process's first one, and it
    gives memory back to the system differently (see ``hardware.camera.allocator``)."""
    import resource
    import threading

    times: list[float] = []
    faults: list[float] = []
    who = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)  # the thread's own count where there is one (Linux)

    def read() -> None:
        for detector, frame in detectors:
            for _ in range(WARM_READINGS):  # warm: its reference prepared, read at each marble's place, its heap grown
                detector.detect(frame)
            before = resource.getrusage(who).ru_minflt
            ms, _ = _median_ms(detector, [frame], repeat=rounds)
            times.append(ms)
            faults.append((resource.getrusage(who).ru_minflt - before) / rounds)

    reader = threading.Thread(target=read, name="bench-vision")
    reader.start()
    reader.join()
    return statistics.median(times), statistics.median(faults)


def motion_ms(scenes: list, repeat: int = 5) -> float:
    """Median milliseconds of ``MarbleDetector.moved`` between a scene's frame and the same frame with fresh
    noise, on one core."""
    calls = []
    for sc in scenes:
        later = np.clip(sc.image.astype(np.int16) + np.random.default_rng(sc.seed).integers(-2, 3, sc.image.shape),
                        0, 255).astype(np.uint8)
        calls.append(partial(MarbleDetector(sc.regions, sc.reference).moved, sc.image, later))
    return _timed_ms(calls, repeat)[0]


def die_check_ms(scenes: list, repeat: int = 5) -> float:
    """Median milliseconds of ``MarbleDetector.flag_squares`` on a scene's reading (every sure marble's outline
    read), on one core: what the camera alone adds to each reading it reports."""
    calls = []
    for sc in scenes:
        detector = MarbleDetector(sc.regions, sc.reference)
        calls.append(partial(detector.flag_squares, sc.image, detector.detect(sc.image)))
    return _timed_ms(calls, repeat)[0]


def main() -> None:
    """Print median and p99 detection time for 640x480 and 320x240 (lores) frames, with the C allocator set as
    the companion's camera service sets it (``hardware.camera.allocator``)."""
    from hardware.camera.allocator import release_freed_frames
    from tests.scenes import CASES, make_scenes  # generator lives with the tests

    cv2.setNumThreads(1)
    release_freed_frames()
    for size, label in (((640, 480), "640x480"), ((320, 240), "320x240 lores")):
        scenes = list(make_scenes(30, 900, size=size))
        for with_ref in (True, False):
            med, p99 = [], []
            for sc in scenes:
                det = MarbleDetector(sc.regions, sc.reference if with_ref else None)
                m, p = _median_ms(det, [sc.image])
                med.append(m)
                p99.append(p)
            print(f"vision: {label} {'with' if with_ref else 'without'} reference: "
                  f"median {statistics.median(med):.2f} ms/frame, "
                  f"worst scene median {max(med):.2f} ms ({len(scenes)} scenes, 1 core)")
            if with_ref and size == (640, 480):
                detectors = [(MarbleDetector(sc.regions, sc.reference), sc.image) for sc in scenes]
                print(f"vision: 640x480 with reference: {paces(detectors):.2f} paces (the detection time over a "
                      "fixed cv2 and numpy workload timed in turn with it: compares across days)")
                ms, faults = on_a_thread(detectors)
                print(f"vision: 640x480 with reference, read on a thread of its own as the camera hub reads: median "
                      f"{ms:.2f} ms/frame, {faults:.0f} fresh pages faulted in a frame")
                shares = stage_shares(detectors * 3)
                print("vision: 640x480 with reference, share of the time by stage: "
                      + ", ".join(f"{label} {share:.0%}" for label, share in shares)
                      + f", the rest (in detect itself) {1.0 - sum(s for _, s in shares):.0%}")
                print(f"vision: 640x480, a check for a marble still rolling between two frames (as a "
                      f"confirmation makes it): median {motion_ms(scenes):.2f} ms")
                print(f"vision: 640x480 with reference, the camera alone's check of a reading it reports for a die "
                      f"(each sure marble's outline, hardware.vision.shapes): median {die_check_ms(scenes):.2f} ms")
                print("vision: 640x480 with reference, by the image worked on: " + "; ".join(
                    f"{label} {pixels / 1000:.0f}k working pixels, {ms:.2f} ms" for label, pixels, ms in
                    area_costs(scenes)))
    moved = nudge_changes(list(make_scenes(200, 900)))
    glass = nudge_changes(list(make_scenes(60, 50000, case="glass")), radius_given=True)
    print(f"vision: a one-pixel camera nudge changes the six counts of {moved[0]:.3f} of ordinary scenes and counts "
          f"or unsure flags of {moved[1]:.3f} (200 scenes, with reference); traced glass {glass[0]:.3f} and "
          f"{glass[1]:.3f} (60 scenes, radius given)")
    for case in CASES:
        med = []
        for sc in make_scenes(10, 50000, case=case):
            med.append(_median_ms(MarbleDetector(sc.regions, sc.reference, marble_radius_px=sc.marble_radius_px),
                                  [sc.image], repeat=3)[0])
        print(f"vision: 640x480 hard case {case}, with reference: median {statistics.median(med):.2f} ms/frame, "
              f"worst scene median {max(med):.2f} ms (10 scenes, 1 core)")


if __name__ == "__main__":
    main()

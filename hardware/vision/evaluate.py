"""Exact rates of the marble detector on a labelled photo folder (`companion detect --eval DIR`).

The folder format (written by the table's opt-in photo keeping):

    DIR/<sample>/frame.png        the frame the round's count was read from
    DIR/<sample>/reference.png    the empty scene of that round (absent when there was none: then skipped)
    DIR/<sample>/label.json       {"counts": [6 ints], "camera_counts": [6 ints] | null,
                                   "camera_unsure": [6 booleans] | null (absent from older samples),
                                   "reference_holds": [gates] (absent from older samples),
                                   "gates": <GateRegions JSON>, "marble_radius": px | null, ...}

DIR may also hold such folders (the Camera page's download unzipped). Each sample is detected with its own gates,
reference and marble radius. The report: samples read,
the samples skipped (and why), the exact rate per gate and over all gates, the rate of samples
with all six counts exact, how many were flagged unsure (and the exact rate of the others), the
exact rate of what the camera read at the time (``camera_counts``, when recorded) and in how many of those rounds
it was sure of a wrong count (``camera_unsure``, when recorded: it did not flag that gate itself; a kept round is only
ever wrong where a person corrected it, so the table asked for a tap there because the beams disagreed, or a person
corrected it), and the worst samples by name. The all-six rate comes with its 95 % interval (``wilson``): on a
table's few dozen rounds it says how much the rate can still move.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hardware.camera.marble_size import MIN_RADIUS_PX
from hardware.vision.regions import GateRegions, RegionsError

if TYPE_CHECKING:
    import numpy as np

WORST_SHOWN = 10
"""How many of the worst samples the report names."""


@dataclass(frozen=True)
class Sample:
    """One labelled round: its name, images, gates, radius and the confirmed counts."""

    name: str
    frame: np.ndarray
    reference: np.ndarray | None
    regions: GateRegions
    marble_radius: float | None
    counts: tuple[int, ...]
    camera_counts: tuple[int, ...] | None
    camera_unsure: tuple[bool, ...] | None = None


@dataclass(frozen=True)
class Result:
    """The detector's reading of one sample."""

    name: str
    expected: tuple[int, ...]
    counts: tuple[int, ...]
    unsure: tuple[bool, ...]
    camera_counts: tuple[int, ...] | None
    camera_unsure: tuple[bool, ...] | None = None

    @property
    def camera_wrong_sure(self) -> bool | None:
        """The camera, at the time, was sure of a wrong count (a gate read wrong that it did not flag itself: the
        beams' disagreement or a person's tap caught it); None when that is not recorded."""
        if self.camera_counts is None or self.camera_unsure is None:
            return None
        return wrong_and_sure(self.camera_counts, self.expected, self.camera_unsure)

    @property
    def wrong_gates(self) -> int:
        return sum(a != b for a, b in zip(self.counts, self.expected))

    @property
    def error(self) -> int:
        """Marbles miscounted over the six gates (sum of absolute differences)."""
        return sum(abs(a - b) for a, b in zip(self.counts, self.expected))


def wrong_and_sure(counts: Sequence[int], truth: Sequence[int], unsure: Sequence[bool]) -> bool:
    """A gate read wrong and not flagged unsure: what ruling D4 promises never to score."""
    return any(c != t and not u for c, t, u in zip(counts, truth, unsure))


class SampleError(ValueError):
    """A sample that cannot be read; the message says why."""


MAX_PIXELS = 64_000_000
"""The most pixels an image read here may claim: five times a 12-megapixel camera's frame. Decoded, an image
takes three bytes a pixel, so a damaged or forged header claiming 20000x20000 would take 1.2 GB of a Pi's memory
before anything could look at it."""


def claimed_pixels(data: bytes) -> int | None:
    """The pixels a PNG's or JPEG's header claims (width times height), read before any decoding; None for other
    formats or a header too short to say."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big") * int.from_bytes(data[20:24], "big")
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 <= len(data) and data[i] == 0xFF:  # the JPEG's segments up to its frame header (SOFn)
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 5:i + 7], "big") * int.from_bytes(data[i + 7:i + 9], "big")
        i += 2 + length
    return None


def read_image(path: Path) -> np.ndarray | None:
    """The image at ``path`` as BGR uint8, or None when it is missing or unreadable, or claims more than
    ``MAX_PIXELS``; PermissionError when this user may not read it."""
    import cv2
    import numpy as np

    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except PermissionError:  # not the image's fault: this user may not read it (the caller says so)
        raise
    except OSError:
        return None
    if data.size == 0 or (claimed_pixels(data[:65536].tobytes()) or 0) > MAX_PIXELS:
        return None
    try:
        return cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error:  # a header claiming more pixels than OpenCV decodes (2**30): damaged or forged
        return None


def _six_counts(value: object, field: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != 6 or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise SampleError(f"label.json: {field} must be a list of 6 whole numbers >= 0")
    return tuple(value)


def read_sample(folder: Path) -> Sample:
    """Read one sample folder; raises SampleError naming what is wrong, PermissionError when this user may not
    read it."""
    if not (folder / "label.json").exists():
        raise SampleError("label.json is missing: the confirmed counts are not known")
    try:
        label = json.loads((folder / "label.json").read_text(encoding="utf-8"))
    except PermissionError:  # the whole folder's, most likely: raised for the caller to say so once
        raise
    except OSError as exc:
        raise SampleError(f"cannot read label.json: {exc.strerror or exc}") from None
    except (ValueError, RecursionError):  # not UTF-8, not JSON, a number of thousands of digits, nested too deep
        raise SampleError("label.json is not valid JSON") from None
    if not isinstance(label, dict):
        raise SampleError("label.json must hold a JSON object")
    counts = _six_counts(label.get("counts"), "counts")
    camera = label.get("camera_counts")
    camera_counts = None if camera is None else _six_counts(camera, "camera_counts")
    flags = label.get("camera_unsure")
    if flags is not None and (not isinstance(flags, list) or len(flags) != 6 or
                              not all(isinstance(f, bool) for f in flags)):
        raise SampleError("label.json: camera_unsure must be a list of 6 true/false or null")
    held = label.get("reference_holds") or []
    if not isinstance(held, list) or not all(isinstance(g, int) and not isinstance(g, bool) for g in held):
        raise SampleError("label.json: reference_holds must be a list of gate numbers")
    if held:  # the reference was taken with marbles in the gates: it is no empty scene to read the frame against
        raise SampleError(f"its reference was taken with marbles in gate{'s' if len(held) > 1 else ''} "
                          f"{', '.join(map(str, held))}: no empty scene, so no fair test of the camera")
    try:
        regions = GateRegions.from_json(label.get("gates"))
    except RegionsError as exc:
        raise SampleError(f"label.json: gates: {exc}") from None
    radius = label.get("marble_radius")
    if radius is not None and (isinstance(radius, bool) or not isinstance(radius, (int, float))
                               or not MIN_RADIUS_PX <= radius < math.inf):
        raise SampleError(f"label.json: marble_radius must be a number of pixels, at least {MIN_RADIUS_PX:g}, or null")
    if not (folder / "frame.png").exists():
        raise SampleError("frame.png is missing")
    frame = read_image(folder / "frame.png")
    if frame is None:
        raise SampleError("frame.png is not a readable image (damaged or cut short)")
    if not (folder / "reference.png").exists():  # without an empty scene every gate is unsure: no fair test either
        raise SampleError("reference.png is missing: the round was kept without an empty reference picture, so the "
                          "camera could not be sure of any gate: no fair test of it")
    reference = read_image(folder / "reference.png")
    if reference is None:
        raise SampleError("reference.png is not a readable image (damaged or cut short)")
    return Sample(folder.name, frame, reference, regions, float(radius) if radius else None, counts, camera_counts,
                  None if flags is None else tuple(flags))


SAMPLE_FILES = ("label.json", "frame.png", "reference.png")


def sample_folders(root: Path) -> list[Path]:
    """The sample folders of ``root``, by name: those holding any of a sample's files, so that one missing its
    label or frame is reported, not passed over. Hidden folders (a sample being written) are not samples."""
    return sorted(p for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and any((p / f).exists() for f in SAMPLE_FILES))


def photo_folders(root: Path) -> list[Path]:
    """The folders of kept rounds ``root`` stands for, by name: ``root`` itself when it holds sample folders, else
    those of its own folders that do (the Camera page's download unzipped: its one top folder, or several
    downloads side by side); none when neither holds any. A folder this user may not list is passed over when
    another holds kept rounds (a USB stick's lost+found), else its PermissionError is raised."""
    if sample_folders(root):
        return [root]
    found: list[Path] = []
    denied: PermissionError | None = None
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            if sample_folders(folder):
                found.append(folder)
        except PermissionError as err:
            denied = denied or err
    if denied and not found:
        raise denied
    return found


def gates_beyond(regions: GateRegions, width: int, height: int) -> str | None:
    """Why a ``width`` x ``height`` picture cannot be read with ``regions``, or None: a gate wholly outside it (drawn
    on another picture), whose count would be a sure 0. (A marble too large for the picture the detector refuses
    itself.)"""
    off = regions.outside_picture(width, height)
    if not off:
        return None
    return (f"gate{'s' if len(off) > 1 else ''} {', '.join(map(str, off))} lie{'' if len(off) > 1 else 's'} outside "
            f"the {width}x{height} picture: the gates were drawn on another picture")


def colour_problem(frame: np.ndarray, reference: np.ndarray | None) -> str | None:
    """Why ``frame`` cannot be compared with ``reference``, or None: one of them grey and the other in colour
    (every colour would read as a change)."""
    if reference is None or _grey(frame) == _grey(reference):
        return None
    return (f"the photo is {'grey' if _grey(frame) else 'in colour'} but the reference is "
            f"{'grey' if _grey(reference) else 'in colour'}: take both with the same camera")


def _grey(image: np.ndarray) -> bool:
    """True when every pixel of a BGR picture is grey (a grey picture read in colour)."""
    import numpy as np

    return bool(np.array_equal(image[..., 0], image[..., 1]) and np.array_equal(image[..., 1], image[..., 2]))


def detect_sample(sample: Sample) -> Result:
    """Run the detector on one sample with its own gates, reference and radius."""
    from hardware.vision.detect import MarbleDetector

    problem = gates_beyond(sample.regions, sample.frame.shape[1], sample.frame.shape[0])
    if problem:
        raise SampleError(f"frame.png: {problem}")
    problem = colour_problem(sample.frame, sample.reference)
    if problem:
        raise SampleError(problem.replace("the photo", "frame.png").replace("the reference", "reference.png"))
    try:
        detector = MarbleDetector(sample.regions, sample.reference, marble_radius_px=sample.marble_radius)
        det = detector.detect(sample.frame)
    except ValueError as exc:
        raise SampleError(str(exc)) from None
    return Result(sample.name, sample.counts, det.counts, det.unsure, sample.camera_counts, sample.camera_unsure)


def evaluate(root: Path) -> dict[str, Any]:
    """Detect every sample of ``root`` (read through its folders of kept rounds when it holds none itself:
    ``photo_folders``) and return the report (see ``report``). From several folders a sample is named with its
    folder's name; a round found again in a later folder (two downloads of the same photos) is read once."""
    results: list[Result] = []
    skipped: list[dict[str, str]] = []
    folders = photo_folders(root)
    seen: set[str] = set()
    repeated = 0
    for photos in folders:
        for folder in sample_folders(photos):
            if folder.name in seen:
                repeated += 1
                continue
            seen.add(folder.name)
            name = folder.name if len(folders) == 1 else f"{photos.name}/{folder.name}"
            try:
                results.append(detect_sample(replace(read_sample(folder), name=name)))
            except SampleError as exc:
                skipped.append({"sample": name, "error": str(exc)})
    return {**report(results, skipped), "repeated": repeated}


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % at ``z`` 1.96) of a rate of ``hits`` in ``n`` independent trials: what
    a rate on few samples can and cannot tell apart (17 of 20 lies between 0.64 and 0.95)."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def report(results: list[Result], skipped: list[dict[str, str]]) -> dict[str, Any]:
    """The figures of ``results`` as one JSON-able object."""
    n = len(results)
    per_gate_right = [sum(r.counts[g] == r.expected[g] for r in results) for g in range(6)]
    sure = [r for r in results if not any(r.unsure)]
    recorded = [r for r in results if r.camera_counts is not None]
    worst = sorted((r for r in results if r.wrong_gates), key=lambda r: (-r.wrong_gates, -r.error, r.name))
    six_right = sum(r.wrong_gates == 0 for r in results)
    gates_right = sum(6 - r.wrong_gates for r in results)
    return {
        "samples": n,
        "skipped": skipped,
        "gate_exact": _rate(gates_right, 6 * n),
        "per_gate_exact": [_rate(hits, n) for hits in per_gate_right],
        # the counts behind the rates, as a table owner reads them ("5 of 6 rounds")
        "counts": {"six_right": six_right, "gates_right": gates_right, "per_gate_right": per_gate_right,
                   "sure": len(sure), "sure_six_right": sum(r.wrong_gates == 0 for r in sure),
                   "recorded": len(recorded),
                   "camera_six_right": sum(r.camera_counts == r.expected for r in recorded)},
        "six_exact": _rate(six_right, n),
        "six_exact_interval": [round(v, 4) for v in wilson(sum(r.wrong_gates == 0 for r in results), n)] if n else None,
        "unsure": len(results) - len(sure),
        "sure_six_exact": _rate(sum(r.wrong_gates == 0 for r in sure), len(sure)),
        "unsure_wrong": sum(1 for r in results if r.wrong_gates and any(r.unsure)),
        "camera_six_exact": _rate(sum(r.camera_counts == r.expected for r in recorded), len(recorded)),
        "camera_wrong_sure": sum(bool(r.camera_wrong_sure) for r in results),
        "camera_flags_recorded": sum(r.camera_wrong_sure is not None for r in results),
        "worst": [{"sample": r.name, "counts": list(r.counts), "expected": list(r.expected),
                   "unsure": [g + 1 for g in range(6) if r.unsure[g]], "wrong_gates": r.wrong_gates}
                  for r in worst[:WORST_SHOWN]],
    }


def format_report(rep: dict[str, Any]) -> str:
    """The report in plain words for a table owner: how many kept rounds today's detector reads right, read again,
    and how many the camera read right at the table, each as "5 of 6 rounds" with its share."""
    n, c = rep["samples"], rep.get("counts") or {}

    def of(hits: int, total: int, counted: str = "") -> str:
        return f"{hits} of {total}{counted}" + (f" ({hits / total:.0%})" if total else "")

    def rounds(k: int) -> str:
        return " round" if k == 1 else " rounds"

    lines = [f"Kept rounds: {n} read, {len(rep['skipped'])} skipped"]
    if rep.get("repeated"):
        lines.append(f"  {rep['repeated']} more found again in a later folder: each round read once")
    lines += [f"  skipped {s['sample']}: {s['error']}" for s in rep["skipped"]]
    if n:
        low, high = rep["six_exact_interval"]
        lines += ["Today's detector, reading the kept photos again:",
                  f"  all six gates right: {of(c['six_right'], n, rounds(n))}"
                  + (f"; on {n}{rounds(n)} the true share may lie anywhere from {low:.0%} to {high:.0%}"
                     if high - low > 0.1 else ""),
                  f"  gates right: {of(c['gates_right'], 6 * n)}; gate by gate: "
                  + ", ".join(f"{g + 1}: {hits} of {n}" for g, hits in enumerate(c["per_gate_right"])),
                  f"  rounds it is unsure of (a tap decides): {rep['unsure']}, of them read wrong: "
                  f"{rep['unsure_wrong']}; when sure, all six right: "
                  + (of(c["sure_six_right"], c["sure"], rounds(c["sure"])) if c["sure"] else "none read sure")]
    if c.get("recorded"):
        lines += ["As the camera read them at the table:",
                  f"  all six gates right: {of(c['camera_six_right'], c['recorded'], rounds(c['recorded']))}"]
        if rep["camera_flags_recorded"]:
            # a kept round is wrong only where a person corrected it: what is measured is the camera's own certainty
            lines.append("  sure of a wrong count: "
                         f"{rep['camera_wrong_sure']} of {rep['camera_flags_recorded']}"
                         f"{rounds(rep['camera_flags_recorded'])}"
                         + (" (the table asked for a tap there because the beams disagreed, or a person corrected it)"
                            if rep["camera_wrong_sure"] else ""))
    if rep["worst"]:
        lines.append("Rounds read wrong, worst first:")
        lines += [f"  {w['sample']}: read {w['counts']}, confirmed {w['expected']}"
                  + (f", unsure of gates {w['unsure']}" if w["unsure"] else "") for w in rep["worst"]]
    return "\n".join(lines)

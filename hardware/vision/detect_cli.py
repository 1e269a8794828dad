"""`companion detect IMAGE... --gates GATES.json [--reference EMPTY.jpg]`: one JSON line per image.

`companion detect --eval DIR [--json]`: exact rates on a labelled photo folder (see
``hardware.vision.evaluate``)."""

from __future__ import annotations

import argparse
import getpass
import json
import math
import os
import shlex
import stat
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from hardware.vision.regions import RegionsError, load_regions

if TYPE_CHECKING:  # cv2, numpy and the detector load when the command runs, not when it is listed
    import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the detect command's arguments to ``parser``."""
    parser.add_argument("images", nargs="*", metavar="IMAGE", help="camera image(s) to read")
    parser.add_argument("--gates", metavar="GATES.json", help="gate regions file (required with IMAGE)")
    parser.add_argument("--reference", metavar="EMPTY.jpg", help="empty scene (same camera, no marbles)")
    parser.add_argument("--marble-radius", type=float, metavar="PX",
                        help="marble radius in pixels (default: the marble_radius of a kept round's label.json given "
                             "as --gates, else the one saved with the table's calibration in DATA/camera/marble.json; "
                             "only without either, guessed from the region size)")
    parser.add_argument("--data", default=os.environ.get("COMPANION_DATA", "data"),
                        help="data folder whose saved calibration gives the marble radius "
                             "(default $COMPANION_DATA or ./data)")
    add_eval_arguments(parser)


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """The --eval part: a labelled photo folder instead of images."""
    parser.add_argument("--eval", metavar="DIR", dest="eval_dir",
                        help="report exact rates on a labelled photo folder (DIR/<sample>/label.json, frame.png, "
                             "reference.png), on a folder of such folders (the download unzipped), or on the zip of "
                             "one the Camera page downloads; each sample's own gates and radius are used")
    parser.add_argument("--json", action="store_true", help="with --eval only: print the report as one JSON object "
                        "(IMAGE... is always read as JSON lines)")


def run_eval(args: argparse.Namespace) -> int:
    """Print the --eval report on a photo folder or its zip; 0 when at least one sample was evaluated, 2 when
    none."""
    root = Path(args.eval_dir)
    given = args.images or args.gates or getattr(args, "reference", None)
    if given or getattr(args, "marble_radius", None) is not None:
        print("companion detect: --eval reads its images, gates, references and marble radii from DIR; give no IMAGE, "
              "--gates, --reference or --marble-radius", file=sys.stderr)
        return 2
    try:
        return _eval(root, args.json)
    except PermissionError as err:  # on a Pi the kept photos are the service user's
        print(no_permission(root, err, args.json), file=sys.stderr)
        return 2


def _eval(root: Path, as_json: bool) -> int:
    """The --eval report on ``root``; PermissionError when this user may not read it."""
    from hardware.vision.evaluate import evaluate, photo_folders

    try:
        mode = root.stat().st_mode
    except PermissionError:
        raise
    except FileNotFoundError:
        print(f"companion detect: --eval {root}: no such folder or zip (nothing is there): give the folder of kept "
              "photos (DATA/photos) or the zip the Camera page downloads", file=sys.stderr)
        return 2
    except OSError:
        mode = 0
    if stat.S_ISREG(mode):
        with root.open("rb") as file:
            if zipfile.is_zipfile(file):
                with tempfile.TemporaryDirectory() as unpacked:
                    try:
                        with zipfile.ZipFile(file) as archive:
                            _unpack_samples(archive, Path(unpacked))
                    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:  # damaged compressed data
                        print(f"companion detect: --eval {root}: the zip cannot be read ({err})", file=sys.stderr)
                        return 2
                    return _report(evaluate(Path(unpacked)), root, as_json)
            file.seek(0)
            if file.read(4) == b"PK\x03\x04":  # a zip's start without its end: a download cut short
                print(f"companion detect: --eval {root}: the zip cannot be read (it is cut short: download it "
                      "again)", file=sys.stderr)
                return 2
    if not stat.S_ISDIR(mode):
        print(f"companion detect: --eval {root}: not a folder or a zip of one", file=sys.stderr)
        return 2
    inside = [str(folder) for folder in photo_folders(root) if folder != root]
    if inside:  # the download unzipped, or the data folder: said, so that the report is not taken for another's
        print(f"companion detect: {root} holds no kept round itself: reading those in {', '.join(inside)}",
              file=sys.stderr)
    return _report(evaluate(root), root, as_json)


MAX_UNPACKED = 256 * 2**20
"""The most one file of a kept sample may unpack to: a PNG of a 12-megapixel frame is well under a fifth of it."""


def _unpack_samples(archive: zipfile.ZipFile, into: Path) -> None:
    """Unpack the files of kept samples (label.json, frame.png, reference.png) of ``archive`` into ``into``, and
    nothing else; names stay inside ``into`` (no absolute paths, no ..). BadZipFile naming a file that would unpack
    to more than ``MAX_UNPACKED``: nothing that size is written."""
    from hardware.vision.evaluate import SAMPLE_FILES

    members = [m for m in archive.infolist() if not m.is_dir() and PurePosixPath(m.filename).name in SAMPLE_FILES]
    for member in members:
        if member.file_size > MAX_UNPACKED:
            raise zipfile.BadZipFile(f"{member.filename} would unpack to {member.file_size / 2**20:.0f} MB, more "
                                     "than a kept photo")
    for member in members:
        if member.flag_bits & 0x1:
            raise zipfile.BadZipFile(f"{member.filename} is locked with a password: zip the photos again without one")
        try:
            archive.extract(member, into)
        except NotImplementedError:
            raise zipfile.BadZipFile(f"{member.filename} is compressed in a way this companion cannot unpack: zip "
                                     "the photos again as the Camera page does") from None


def no_permission(root: Path, err: PermissionError, as_json: bool = False) -> str:
    """What to say when this user may not read ``root`` (or a file in it), and what to do."""
    kind = "zip" if root.suffix.lower() == ".zip" else "folder"
    user = _user()
    where = f" (no permission to read {err.filename})" if err.filename and str(err.filename) != str(root) else ""
    said = f"companion detect: --eval {root}: this {kind} cannot be read with the permissions of {user}{where}"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return f"{said}, not even as root: look at its owner and permissions (ls -l {err.filename or root})"
    command = f"sudo companion detect --eval {shlex.quote(str(root))}" + (" --json" if as_json else "")
    return (f"{said}; the kept photos belong to the companion's service user, so run it with sudo: "
            f"{command}")


def _user() -> str:
    """This user's name, for a message."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "this user"


def _report(rep: dict, root: Path, as_json: bool) -> int:
    """Print the report on ``root``; 0 when at least one sample was evaluated, 2 when none."""
    from hardware.vision.evaluate import format_report

    if as_json:
        print(json.dumps(rep), flush=True)
    elif rep["samples"]:
        print(format_report(rep), flush=True)
    if not rep["samples"]:
        print(nothing_evaluated(rep, root, as_json), file=sys.stderr)
        return 2
    return 0


def nothing_evaluated(rep: dict, root: Path, as_json: bool = False) -> str:
    """What to say when no sample of ``root`` could be evaluated: what was looked for, where, and what to do.
    Without --json the samples skipped are named first, one a line, with what is wrong."""
    skipped = rep["skipped"]
    if skipped:
        named = "" if as_json else "".join(f"companion detect: skipped {s['sample']}: {s['error']}\n" for s in skipped)
        n = len(skipped)
        return (f"{named}companion detect: none of the {n} sample folder{'s' if n != 1 else ''} in {root} could be "
                f"evaluated ({'each is' if n != 1 else 'it is'} named with what is wrong"
                f"{' in the report' if as_json else ' above'}); a sample needs label.json and frame.png as photo "
                "keeping writes them: mend or remove those named, or give --eval the folder of kept photos.")
    return (f"companion detect: no sample of {root} could be evaluated: it holds no sample folder "
            "(<round>/label.json, frame.png, reference.png, as photo keeping writes them); switch photo keeping on "
            "on the Camera page and confirm some rounds, or give --eval the folder (or zip) of kept photos.")


def marble_radius(args: argparse.Namespace) -> tuple[float | None, str]:
    """The marble radius to use and where it comes from: --marble-radius, else the ``marble_radius`` the --gates
    file holds (a kept round's label.json: the radius the table read that round with), else the saved calibration,
    else None (the detector guesses it from the gate regions, a last resort). ValueError for a bad --marble-radius
    or a bad ``marble_radius`` in the --gates file."""
    from hardware.camera.marble_size import MIN_RADIUS_PX, MarbleSize, MarbleSizeError

    radius = getattr(args, "marble_radius", None)
    if radius is not None:
        if not MIN_RADIUS_PX <= radius < math.inf:
            raise ValueError(f"--marble-radius must be a marble's radius in pixels, at least {MIN_RADIUS_PX:g}, "
                             f"got {radius:g}")
        return radius, f"marble radius {radius:g} px from --marble-radius"
    gates = getattr(args, "gates", None)
    kept = _label_radius(Path(gates)) if gates else None
    if kept is not None:
        return kept, (f"marble radius {kept:g} px from {gates} (the radius the table read that round with; "
                      "--marble-radius PX to try another)")
    path = Path(getattr(args, "data", None) or "data") / "camera" / "marble.json"
    try:
        size = MarbleSize.load(path)
    except MarbleSizeError as exc:
        why = "none saved" if not path.exists() else str(exc)
        return None, (f"warning: marble radius guessed from the gate regions ({why} at {path}); the guess is "
                      "often far off: pass --marble-radius PX or measure it on the Camera page")
    how = "the markers" if size.source == "markers" else "a tap on a marble"
    return size.radius_px, f"marble radius {size.radius_px:.1f} px from the saved calibration {path} ({how})"


def _label_radius(path: Path) -> float | None:
    """The ``marble_radius`` a kept round's label.json holds, None when the file holds none (the gate regions file
    *Save regions* writes) or cannot be read again (its gates were read from it a moment before). ValueError
    naming the file when it holds one that is no marble's radius."""
    from hardware.camera.marble_size import MIN_RADIUS_PX

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    radius = data.get("marble_radius") if isinstance(data, dict) else None
    if radius is None:
        return None
    if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not MIN_RADIUS_PX <= radius < math.inf:
        raise ValueError(f"{path}: marble_radius must be a marble's radius in pixels, at least {MIN_RADIUS_PX:g}, "
                         f"or null, got {json.dumps(radius)[:40]}: mend it, or give --marble-radius PX")
    return float(radius)


def _read(path: str) -> tuple[np.ndarray | None, str]:
    """The image at ``path``, or None and why it cannot be read."""
    from hardware.vision.evaluate import read_image

    file = Path(path)
    try:
        image = read_image(file)
    except PermissionError:
        return None, f"no permission to read it as {_user()}"
    if image is not None:
        return image, ""
    if file.is_dir():
        return None, "a folder, not an image"
    return None, "file not found" if not file.exists() else "not a readable image"


NO_REFERENCE = ("warning: no --reference: without an empty reference picture every count is unsure, and a static "
                "object in a gate that looks like a marble counts as one; give --reference EMPTY.jpg, a photo from "
                "the same camera with no marbles in the gates (a kept round's reference.png)")


def run(args: argparse.Namespace) -> int:
    """Print {"image", "counts", "outside", "unsure"} per image; 0 if all were read, 1 if not, 2 on bad set-up."""
    from hardware.vision.detect import MarbleDetector
    from hardware.vision.evaluate import colour_problem, gates_beyond

    if getattr(args, "eval_dir", None):
        return run_eval(args)
    if getattr(args, "json", False):  # IMAGE... is read as JSON lines already: --json would change nothing
        print("companion detect: --json goes with --eval DIR (its report as one JSON object); the counts of IMAGE... "
              "are always printed as JSON, one line per image: leave --json out", file=sys.stderr)
        return 2
    if not args.images or not args.gates:
        print("companion detect: give IMAGE... and --gates GATES.json (or --eval DIR)", file=sys.stderr)
        return 2
    try:
        regions = load_regions(args.gates)
    except RegionsError as exc:
        print(f"companion detect: {exc}", file=sys.stderr)
        return 2
    reference = None
    if args.reference:
        reference, reason = _read(args.reference)
        if reference is None:
            print(f"companion detect: cannot read reference image {args.reference}: {reason}", file=sys.stderr)
            return 2
    try:
        radius, radius_note = marble_radius(args)
    except ValueError as exc:
        print(f"companion detect: {exc}", file=sys.stderr)
        return 2
    print(f"companion detect: {radius_note}", file=sys.stderr)
    if reference is None:
        print(f"companion detect: {NO_REFERENCE}", file=sys.stderr)
    try:
        detector = MarbleDetector(regions, reference, marble_radius_px=radius)
    except ValueError as exc:
        print(f"companion detect: {exc}", file=sys.stderr)
        return 2
    failed = False
    for path in args.images:
        frame, reason = _read(path)
        if frame is None:
            failed = True
            print(json.dumps({"image": path, "error": f"cannot read image: {reason}"}), flush=True)
            continue
        problem = gates_beyond(regions, frame.shape[1], frame.shape[0]) or colour_problem(frame, reference)
        if problem:
            failed = True
            print(json.dumps({"image": path, "error": problem}), flush=True)
            continue
        try:
            det = detector.detect(frame)
        except ValueError as exc:
            failed = True
            print(json.dumps({"image": path, "error": str(exc)}), flush=True)
            continue
        print(json.dumps({"image": path, "counts": list(det.counts), "outside": det.outside,
                          "unsure": list(det.unsure)}), flush=True)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (the lead wires `run` into the `companion` console script)."""
    parser = argparse.ArgumentParser(prog="companion detect", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())

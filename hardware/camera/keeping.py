"""Photo keeping, with the table's consent: every confirmed round's frame, its empty reference and the
confirmed counts, kept as a labelled sample in DATA/photos/ (the format ``companion detect --eval`` reads).

Off by default. The switch is saved in ``choice_path`` (the Camera page's choice survives a restart and
wins over the config file's default). Samples are written by one background thread, so a tap that
confirms a round never waits for the SD card; a failed write is logged and shown in ``status()``, never
raised. At most ``limit`` samples are kept: the oldest go first.

Importing this module loads neither cv2 nor numpy.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import threading
import time
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

from hardware.files import sync_folder, write_bytes, write_json
from hardware.vision.evaluate import wrong_and_sure

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 500
LABEL = "label.json"


@dataclass(frozen=True)
class Sample:
    """One confirmed round: the frame its count was read from and what the table confirmed."""

    frame: np.ndarray
    reference: np.ndarray | None
    gates: dict[str, Any]
    counts: tuple[int, ...]
    camera_counts: tuple[int, ...] | None
    marble_radius: float | None
    session: int | None
    round: int | None
    confirmed_at: float
    camera_unsure: tuple[bool, ...] | None = None  # the gates the camera was unsure of (ruling D4), when it read
    reference_holds: tuple[int, ...] = ()  # gates where the reference shows a marble gone from the frame

    def name(self) -> str:
        stamp = datetime.fromtimestamp(self.confirmed_at, UTC).strftime("%Y%m%dT%H%M%SZ")
        return f"{stamp}{_suffix(self.session, self.round)}"

    def label(self) -> dict[str, Any]:
        """label.json's content."""
        return {
            "counts": [int(c) for c in self.counts],
            "camera_counts": None if self.camera_counts is None else [int(c) for c in self.camera_counts],
            "camera_unsure": None if self.camera_unsure is None else [bool(u) for u in self.camera_unsure],
            "gates": self.gates,
            # taken with marbles in the gates: no empty scene, not a fair test of the camera (``--eval`` skips it)
            "reference_holds": [int(g) for g in self.reference_holds],
            "marble_radius": None if self.marble_radius is None else round(float(self.marble_radius), 2),
            "confirmed_at": datetime.fromtimestamp(self.confirmed_at, UTC).isoformat(timespec="seconds")
            .replace("+00:00", "Z"),
            "session": self.session,
            "round": self.round,
        }


def _suffix(session: int | None, round_number: int | None) -> str:
    return (f"-s{session}" if session is not None else "") + (f"-r{round_number}" if round_number is not None else "")


def write_sample(folder: Path, sample: Sample) -> Path:
    """Write one sample folder (frame.png, reference.png when there is one, label.json); a sample of the same
    session and round written before (the round was revealed again after an undo) is replaced."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / sample.name()
    tmp = folder / f".{sample.name()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        for name, image in (("frame.png", sample.frame), ("reference.png", sample.reference)):
            if image is None:
                continue
            ok, data = cv2.imencode(".png", image)
            if not ok:
                raise ValueError(f"cannot encode {name} of shape {image.shape}")
            write_bytes(tmp / name, data.tobytes())
        write_json(tmp / LABEL, sample.label())
        shutil.rmtree(target, ignore_errors=True)
        tmp.replace(target)
    except BaseException:  # a full disk, say: the earlier sample stays, and nothing half-written is left
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    suffix = _suffix(sample.session, sample.round)
    if suffix:  # only once the new one is in place
        for old in folder.glob(f"*{suffix}"):
            if old.is_dir() and old != target and old.name[:16].endswith("Z") and old.name[16:] == suffix:
                shutil.rmtree(old, ignore_errors=True)
    sync_folder(folder)
    return target


def camera_record(sample: Path) -> tuple[bool | None, bool | None]:
    """Whether the camera read all six gates of a kept sample as the table confirmed them, and whether it read a gate
    wrong without flagging it (ruling D4); each None when its label does not record it or cannot be read."""
    try:
        label = json.loads((sample / LABEL).read_text(encoding="utf-8"))
        camera, counts, flags = label.get("camera_counts"), label.get("counts"), label.get("camera_unsure")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None, None
    if not (isinstance(camera, list) and isinstance(counts, list) and len(camera) == len(counts) == 6):
        return None, None
    if not (isinstance(flags, list) and len(flags) == 6):
        return camera == counts, None
    return camera == counts, wrong_and_sure(camera, counts, flags)


def sample_bytes(sample: Path) -> int:
    """The bytes the files of one kept sample take (its three files: one listing, no walk of the photos folder);
    0 for one that cannot be read."""
    total = 0
    try:
        with os.scandir(sample) as entries:
            for entry in entries:
                try:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
    except OSError:
        return 0
    return total


class Kept(NamedTuple):
    """What the Camera page shows of one kept sample, read once when it is first listed."""

    right: bool | None  # the camera read all six gates as the table confirmed them (camera_record)
    size: int  # the bytes its files take on the disk (sample_bytes)
    wrong_sure: bool | None = None  # the camera read a gate wrong without flagging it (camera_record)


def kept_samples(folder: Path) -> list[Path]:
    """The sample folders, oldest first (their names start with the UTC time)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".") and (p / LABEL).exists())


def _kept(sample: Path) -> Kept:
    right, wrong_sure = camera_record(sample)
    return Kept(right, sample_bytes(sample), wrong_sure)


class KeptPhotosBusy(RuntimeError):
    """The kept photos cannot be deleted now: they are being downloaded."""


CHUNK = 1 << 16


class _Chunks:
    """A write-only stream that hands on what was written, for a zip built while it is sent."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


def zipped_samples(samples: list[Path], top: str) -> Iterator[bytes]:
    """A zip of the sample folders (under the folder ``top``), in pieces of about ``CHUNK`` bytes, built
    while it is sent: only the piece being sent is held in memory, and nothing is written to the card.
    PNGs are compressed already, so files are stored. A sample removed meanwhile (the oldest go once the
    limit is reached) is left out."""
    sink = _Chunks()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_STORED) as archive:
        for sample in samples:
            try:
                files = sorted(f for f in sample.iterdir() if f.is_file())
            except OSError:
                continue
            for path in files:
                try:
                    source = path.open("rb")
                except OSError:
                    continue
                with source, archive.open(f"{top}/{sample.name}/{path.name}", "w") as target:
                    while data := source.read(CHUNK):
                        target.write(data)
                        yield sink.take()
    yield sink.take()


class PhotoKeeper:
    """Keeps confirmed rounds' photos in ``folder`` while switched on; writes in a background thread."""

    def __init__(self, folder: str | Path, choice_path: str | Path, *, enabled: bool = False,
                 limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"the photo limit must be at least 1, got {limit}")
        self.folder = Path(folder)
        self.choice_path = Path(choice_path)
        self.limit = limit
        self._default = enabled
        self._enabled: bool | None = None  # read from choice_path when first needed
        self._lock = threading.Lock()
        self._queue: queue.Queue[Sample | None] = queue.Queue(maxsize=8)
        self._thread: threading.Thread | None = None
        # each kept sample's name -> whether the camera read it right and its size, each read once when the sample
        # is written or first listed (never by walking the photos folder per request); None until first listed
        self._kept: dict[str, Kept] | None = None
        self.sending = threading.Lock()  # held while the kept photos are downloaded: one download at a time
        self._writing = threading.Lock()  # held while a sample is written, the kept ones deleted or first listed
        self._last: str | None = None
        self._error: str | None = None

    # the switch
    @property
    def enabled(self) -> bool:
        with self._lock:
            if self._enabled is None:
                self._enabled = self._read_choice()
            return self._enabled

    def _read_choice(self) -> bool:
        try:
            value = json.loads(self.choice_path.read_text(encoding="utf-8")).get("enabled")
        except FileNotFoundError:
            return self._default
        except (OSError, ValueError, AttributeError) as err:
            self._error = f"cannot read the photo keeping choice {self.choice_path}: {err}"
            log.warning("%s", self._error)
            return self._default
        return value if isinstance(value, bool) else self._default

    def set_enabled(self, enabled: bool) -> dict[str, Any]:
        """Switch keeping on or off and save the choice; an error saving it is shown, not raised."""
        with self._lock:
            self._enabled = bool(enabled)
        try:
            self.choice_path.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.choice_path, {"enabled": bool(enabled)}, indent=None)
        except OSError as err:
            self._error = f"the choice could not be saved ({err}); it holds until the companion restarts"
            log.error("photo keeping: %s", self._error)
        return self.status()

    # keeping
    def keep(self, sample: Sample) -> bool:
        """Queue ``sample`` for writing when keeping is on; False when off (nothing is written) or when the
        writer is behind (the sample is dropped and that is shown). Never raises, never waits."""
        if not self.enabled:
            return False
        self._start()
        try:
            self._queue.put_nowait(sample)
        except queue.Full:
            self._error = "photos come faster than the card takes them: one was not kept"
            log.warning("photo keeping: %s", self._error)
            return False
        return True

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued sample is written (for tests and shutdown); False on time-out."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        thread = self._thread
        if thread is not None:
            self.flush(timeout=5.0)
            self._queue.put(None)
            thread.join(timeout=5.0)
            self._thread = None

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="photo-keeping", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            sample = self._queue.get()
            try:
                if sample is None:
                    return
                self._write(sample)
            finally:
                self._queue.task_done()

    def _write(self, sample: Sample) -> None:
        with self._writing:
            self._write_one(sample)

    def _write_one(self, sample: Sample) -> None:
        try:
            path = write_sample(self.folder, sample)
            samples = kept_samples(self.folder)
            excess = max(0, len(samples) - self.limit)
            for old in samples[:excess]:
                shutil.rmtree(old, ignore_errors=True)
            self._tally(samples[excess:], fresh=path.name)
            self._last, self._error = path.name, None
        except Exception as err:  # a full or read-only card must not stop the table
            self._error = f"a photo could not be kept in {self.folder}: {err}"
            log.exception("photo keeping failed")

    def delete_all(self) -> dict[str, Any]:
        """Delete every kept sample (the table's photos leave the companion; keeping stays on or off as it was).
        Raises ``KeptPhotosBusy`` while they are being downloaded; one that cannot be removed is named in
        ``status()``'s error (those removed stay removed)."""
        if not self.sending.acquire(blocking=False):
            raise KeptPhotosBusy("the kept photos are being downloaded: delete them once that download ends")
        try:
            with self._writing:
                self._kept, self._last, self._error = None, None, None
                try:
                    if self.folder.is_dir():
                        # every sample folder, one without its label or cut short by a power cut included
                        for sample in sorted(p for p in self.folder.iterdir() if p.is_dir()):
                            shutil.rmtree(sample)
                        sync_folder(self.folder)
                except OSError as err:
                    self._error = f"the kept photos could not all be deleted from {self.folder}: {err}"
                    log.error("photo keeping: %s", self._error)
        finally:
            self.sending.release()
        return self.status()

    def _tally(self, samples: list[Path], fresh: str | None = None) -> dict[str, Kept]:
        """The kept ``samples``, whether the camera read each right and their size; a sample is read once (the one
        named ``fresh`` again: it was just written, perhaps over one of the same name)."""
        known = {name: kept for name, kept in (self._kept or {}).items() if name != fresh}
        self._kept = {p.name: known.get(p.name) or _kept(p) for p in samples}
        return self._kept

    def status(self) -> dict[str, Any]:
        """``{"enabled", "count", "bytes", "limit", "folder", "last", "error", "camera"}`` for the Camera page;
        ``bytes`` is the disk the kept samples' files take; ``camera`` says in how many of the kept rounds with a
        camera reading (``rounds``) it read all six gates as the table confirmed them (``right``): how well the
        camera does on this castle and light; and in how many of those that record its flags (``flags``) it read a
        gate wrong without flagging it (``wrong_sure``, ruling D4). Cheap: each sample is read once, when written or
        first listed."""
        kept = self._kept
        if kept is None:
            with self._writing:  # no sample is written meanwhile: a tally of an older listing never wins
                kept = self._kept
                if kept is None:
                    try:
                        kept = self._tally(kept_samples(self.folder))
                    except OSError as err:
                        self._error = f"cannot list {self.folder}: {err}"
                        kept = self._kept = {}
        read = [k.right for k in kept.values() if k.right is not None]
        flagged = [k.wrong_sure for k in kept.values() if k.wrong_sure is not None]
        return {"enabled": self.enabled, "count": len(kept), "bytes": sum(k.size for k in kept.values()),
                "limit": self.limit, "folder": str(self.folder), "last": self._last, "error": self._error,
                "camera": {"rounds": len(read), "right": sum(read), "flags": len(flagged),
                           "wrong_sure": sum(flagged)}}

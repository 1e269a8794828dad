"""`companion detect` as a table owner or a tinkerer misuses it: bad photos, gates files, radii, kept-photo folders
and zips each get one line naming what is wrong and a status a script can test, never a traceback, and nothing
is written outside the folder it runs in."""
from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.simulated import SimulatedCastle
from hardware.vision.regions import save_regions
from tests.test_photo_eval import kept_sample
from web.cli import main


def _png_claiming(width: int, height: int) -> bytes:
    """A few bytes whose PNG header claims a ``width`` x ``height`` picture (a damaged or forged file)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(1000))) + chunk(b"IEND", b""))


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """A folder with round.png (two marbles in gate 2), empty.png and gates.json, as the simulated castle sees it."""
    castle = SimulatedCastle(seed=3)
    cv2.imwrite(str(tmp_path / "empty.png"), castle.render())
    castle.add_marble(2)
    castle.add_marble(2)
    cv2.imwrite(str(tmp_path / "round.png"), castle.render())
    save_regions(castle.regions(), tmp_path / "gates.json")
    return tmp_path


def _detect(table: Path, *args: str) -> list[str]:
    return ["detect", str(table / "round.png"), "--gates", str(table / "gates.json"),
            "--reference", str(table / "empty.png"), "--marble-radius", "10", *args]


def test_a_picture_claiming_more_pixels_than_can_be_read_is_named_not_a_traceback(
        table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (table / "huge.png").write_bytes(_png_claiming(40000, 30000))
    code = main(["detect", str(table / "huge.png"), str(table / "round.png"), "--gates", str(table / "gates.json"),
                 "--marble-radius", "10"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert lines[0] == {"image": str(table / "huge.png"), "error": "cannot read image: not a readable image"}
    assert lines[1]["counts"] == [0, 2, 0, 0, 0, 0]  # the next photo is still read
    assert main(_detect(table)[:4] + ["--reference", str(table / "huge.png")]) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"cannot read reference image {table / 'huge.png'}: not a readable image")


def test_a_kept_frame_claiming_more_pixels_than_can_be_read_is_skipped_as_damaged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    forged = kept_sample(photos, 2)
    (forged / "frame.png").write_bytes(_png_claiming(40000, 30000))
    assert main(["detect", "--eval", str(photos), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["samples"] == 1
    assert report["skipped"] == [{"sample": forged.name,
                                  "error": "frame.png is not a readable image (damaged or cut short)"}]


def _gates_text(table: Path, old: str, new: str) -> None:
    path = table / "gates.json"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(("old", "new", "said"), [
    ("{", "[" * 100_000 + "]" * 100_000 + "{", "is not valid JSON"),
    ("32.0", "1" + "0" * 5000, "is not valid JSON: a number too long"),
    ("32.0", "1" + "0" * 400, "gate 1: point 0 lies more than a million pixels out, beyond any picture"),
    ("32.0", "1e308", "gate 1: point 0 lies more than a million pixels out, beyond any picture"),
])
def test_a_gates_file_with_absurd_json_says_so_in_one_line(
        table: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, said: str) -> None:
    _gates_text(table, old, new)
    assert main(_detect(table)) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert len(out.err.strip().splitlines()) == 1
    assert out.err.startswith("companion detect: ") and said in out.err


@pytest.mark.parametrize(("old", "new", "said"), [
    ('"counts": [', '"counts": [' + "[" * 100_000 + "]" * 100_000 + ",", "label.json is not valid JSON"),
    ('"counts": [\n  0', '"counts": [\n  1' + "0" * 5000, "label.json is not valid JSON"),
    ("32.0", "1" + "0" * 400, "label.json: gates: gate 1: point 0 lies more than a million pixels out"),
])
def test_a_hand_edited_label_with_absurd_json_is_skipped_with_what_is_wrong(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, said: str) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    edited = kept_sample(photos, 2)
    text = (edited / "label.json").read_text()
    assert old in text
    (edited / "label.json").write_text(text.replace(old, new, 1))
    assert main(["detect", "--eval", str(photos), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["samples"] == 1 and len(report["skipped"]) == 1
    assert report["skipped"][0]["sample"] == edited.name and report["skipped"][0]["error"].startswith(said)


def test_a_saved_marble_size_nested_too_deep_is_passed_over_with_a_warning(
        table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (table / "data" / "camera").mkdir(parents=True)
    (table / "data" / "camera" / "marble.json").write_text("[" * 100_000 + "]" * 100_000)
    args = _detect(table)[:-2] + ["--data", str(table / "data")]
    assert main(args) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["counts"] == [0, 2, 0, 0, 0, 0]
    assert "warning: marble radius guessed from the gate regions (cannot read marble size" in out.err


@pytest.mark.parametrize("radius", ["inf", "-inf", "nan", "0", "-3", "0.5", "1e-9"])
def test_a_marble_radius_that_is_no_marble_is_refused_in_one_line(
        table: Path, capsys: pytest.CaptureFixture[str], radius: str) -> None:
    assert main(_detect(table)[:-2] + [f"--marble-radius={radius}"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "Traceback" not in out.err
    assert out.err.strip() == (f"companion detect: --marble-radius must be a marble's radius in pixels, at least 2, "
                               f"got {float(radius):g}")


@pytest.mark.parametrize("radius", ["241", "3000", "1e9", "1e300"])
def test_a_marble_radius_larger_than_the_picture_is_named_per_photo(
        table: Path, capsys: pytest.CaptureFixture[str], radius: str) -> None:
    args = ["detect", str(table / "round.png"), "--gates", str(table / "gates.json"), "--marble-radius", radius]
    assert main(args) == 1
    line = json.loads(capsys.readouterr().out)
    said = f"a marble of radius {float(radius):g} px does not fit in the gate area of the 640x480 frame"
    assert line == {"image": str(table / "round.png"), "error": said}
    assert main(args + ["--reference", str(table / "empty.png")]) == 2  # the reference is read first
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip().splitlines()[-1] == f"companion detect: {said}"


def test_a_marble_radius_that_fits_still_counts(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_detect(table)[:-2] + ["--marble-radius", "2"]) == 0
    assert "error" not in json.loads(capsys.readouterr().out)
    assert main(_detect(table)[:-2] + ["--marble-radius", "240"]) == 0
    assert "error" not in json.loads(capsys.readouterr().out)


def _shifted_gates(table: Path, gates: set[int], dx: float) -> None:
    data = json.loads((table / "gates.json").read_text())
    for item in data["gates"]:
        if item["gate"] in gates:
            item["polygon"] = [[x + dx, y] for x, y in item["polygon"]]
    (table / "gates.json").write_text(json.dumps(data))


def test_gates_drawn_beyond_the_picture_are_named_not_counted_as_empty(
        table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Gates drawn on a larger picture: those beyond this one would read a sure 0; the photo is refused instead."""
    _shifted_gates(table, {6}, 150)  # gate 6 from x 674, the picture ends at 640
    assert main(_detect(table)) == 1
    assert json.loads(capsys.readouterr().out) == {
        "image": str(table / "round.png"),
        "error": "gate 6 lies outside the 640x480 picture: the gates were drawn on another picture"}
    _shifted_gates(table, {1, 2, 3, 4, 5}, 100_000)
    assert main(_detect(table)) == 1
    assert json.loads(capsys.readouterr().out)["error"] == (
        "gates 1, 2, 3, 4, 5, 6 lie outside the 640x480 picture: the gates were drawn on another picture")


def test_gates_reaching_into_the_picture_are_still_read(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _shifted_gates(table, {6}, 80)  # gate 6 from x 604 to 686: cut by the picture's edge, not beyond it
    assert main(_detect(table)) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == [0, 2, 0, 0, 0, 0]


@pytest.mark.parametrize(("radius", "said"), [
    ("Infinity", "label.json: marble_radius must be a number of pixels, at least 2, or null"),
    ("0.01", "label.json: marble_radius must be a number of pixels, at least 2, or null"),
    ("1e9", "a marble of radius 1e+09 px does not fit in the gate area of the 640x480 frame"),
])
def test_a_kept_sample_with_an_absurd_marble_radius_is_skipped_with_what_is_wrong(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], radius: str, said: str) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    edited = kept_sample(photos, 2)
    label = json.loads((edited / "label.json").read_text())
    (edited / "label.json").write_text(json.dumps(label).replace(f'"marble_radius": {label["marble_radius"]}',
                                                                 f'"marble_radius": {radius}'))
    assert main(["detect", "--eval", str(photos), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["samples"] == 1 and report["skipped"] == [{"sample": edited.name, "error": said}]


def test_a_kept_sample_whose_gates_lie_beyond_its_frame_is_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    edited = kept_sample(photos, 2)
    label = json.loads((edited / "label.json").read_text())
    for item in label["gates"]["gates"]:
        item["polygon"] = [[x + 5000, y] for x, y in item["polygon"]]
    (edited / "label.json").write_text(json.dumps(label))
    assert main(["detect", "--eval", str(photos), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == [{
        "sample": edited.name,
        "error": "frame.png: gates 1, 2, 3, 4, 5, 6 lie outside the 640x480 picture: the gates were drawn on another "
                 "picture"}]


def _zipped(tmp_path: Path, extra: dict[str, bytes] | None = None) -> Path:
    """The Camera page's zip of one kept sample (companion-photos/<sample>/...), with ``extra`` members added."""
    sample = kept_sample(tmp_path / "photos", 1)
    zipped = tmp_path / "companion-photos.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for path in sorted(sample.iterdir()):
            archive.write(path, f"companion-photos/{sample.name}/{path.name}")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return zipped


def _central_entries(data: bytearray, name_end: bytes) -> list[int]:
    """Offsets of the central directory entries (and local headers) of the members whose names end so."""
    found = []
    for signature, name_at, length_at in ((b"PK\x01\x02", 46, 28), (b"PK\x03\x04", 30, 26)):
        at = data.find(signature)
        while at != -1:
            length = int.from_bytes(data[at + length_at:at + length_at + 2], "little")
            if bytes(data[at + name_at:at + name_at + length]).endswith(name_end):
                found.append(at)
            at = data.find(signature, at + 4)
    return found


def _eval_fails(zipped: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["detect", "--eval", str(zipped), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and "Traceback" not in out.err
    return out.err.strip()


def test_a_zip_cut_short_says_so_rather_than_not_a_zip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    zipped = _zipped(tmp_path)
    zipped.write_bytes(zipped.read_bytes()[:100_000])
    assert _eval_fails(zipped, capsys) == (
        f"companion detect: --eval {zipped}: the zip cannot be read (it is cut short: download it again)")


def test_a_zip_with_a_password_or_an_unknown_compression_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    zipped = _zipped(tmp_path)
    good = zipped.read_bytes()
    locked = bytearray(good)
    for at in _central_entries(locked, b"label.json"):
        locked[at + (8 if locked[at + 2] == 1 else 6)] |= 1  # the flag "encrypted", in both headers
    zipped.write_bytes(bytes(locked))
    assert _eval_fails(zipped, capsys).endswith("label.json is locked with a password: zip the photos again without "
                                                "one)")
    unknown = bytearray(good)
    for at in _central_entries(unknown, b"label.json"):
        unknown[at + (10 if unknown[at + 2] == 1 else 8)] = 99  # AES, as 7-Zip writes it
    zipped.write_bytes(bytes(unknown))
    assert "label.json is compressed in a way this companion cannot unpack" in _eval_fails(zipped, capsys)


def test_a_zip_member_claiming_gigabytes_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    zipped = _zipped(tmp_path)
    claimed = bytearray(zipped.read_bytes())
    for at in _central_entries(claimed, b"frame.png"):
        if claimed[at + 2] == 1:
            claimed[at + 24:at + 28] = (0xFFFFFFF0).to_bytes(4, "little")  # its size unpacked: 4 GB
    zipped.write_bytes(bytes(claimed))
    written: list[str] = []
    monkeypatch.setattr(zipfile.ZipFile, "_extract_member",
                        lambda self, member, *args: written.append(getattr(member, "filename", member)))
    err = _eval_fails(zipped, capsys)
    assert err.startswith(f"companion detect: --eval {zipped}: the zip cannot be read (companion-photos/")
    assert err.endswith("frame.png would unpack to 4096 MB, more than a kept photo)") and written == []


def test_only_the_samples_files_of_a_zip_are_unpacked_and_none_outside(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    zipped = _zipped(tmp_path / "in", {"../escaped.txt": b"x", "/absolute.txt": b"x",
                                       "companion-photos/../../escaped2.txt": b"x",
                                       "companion-photos/notes.bin": bytes(1_000_000)})
    unpacked: list[str] = []
    extract = zipfile.ZipFile._extract_member

    def recording(self: zipfile.ZipFile, member: zipfile.ZipInfo, *args: object) -> str:
        unpacked.append(member.filename)
        return extract(self, member, *args)

    monkeypatch.setattr(zipfile.ZipFile, "_extract_member", recording)
    assert main(["detect", "--eval", str(zipped), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["samples"] == 1
    assert sorted(Path(name).name for name in unpacked) == ["frame.png", "label.json", "reference.png"]
    assert not list(tmp_path.glob("**/escaped*")) and not Path("/absolute.txt").exists()


def test_a_photo_that_cannot_be_read_says_why(table: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder, a missing file, a file this user may not read (the tests run as root: refused as the kernel
    would), or a file that is no picture: each named with its reason, and the other photos still read."""
    import getpass

    import numpy as np

    (table / "photos").mkdir()
    (table / "notes.png").write_text("not a picture")
    locked = table / "locked.png"
    locked.write_bytes((table / "round.png").read_bytes())
    real = np.fromfile

    def refuse(file: object, *args: object, **kwargs: object) -> object:
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(np, "fromfile", refuse)
    monkeypatch.setattr(getpass, "getuser", lambda: "pi")
    photos = [table / "photos", table / "missing.png", locked, table / "notes.png", table / "round.png"]
    assert main(["detect", *map(str, photos), "--gates", str(table / "gates.json"), "--marble-radius", "10"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("error") for line in lines] == [
        "cannot read image: a folder, not an image", "cannot read image: file not found",
        "cannot read image: no permission to read it as pi", "cannot read image: not a readable image", None]
    for reference, reason in ((table / "missing.png", "file not found"), (table / "photos", "a folder, not an image"),
                              (locked, "no permission to read it as pi")):
        assert main(_detect(table)[:4] + ["--reference", str(reference)]) == 2
        out = capsys.readouterr()
        assert out.out == ""
        assert out.err.strip() == f"companion detect: cannot read reference image {reference}: {reason}"


def _grey_copy(source: Path, target: Path) -> None:
    cv2.imwrite(str(target), cv2.cvtColor(cv2.imread(str(source)), cv2.COLOR_BGR2GRAY))


def test_a_grey_photo_against_a_colour_reference_is_refused_not_read_as_marbles(
        table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _grey_copy(table / "round.png", table / "grey.png")
    _grey_copy(table / "empty.png", table / "grey-empty.png")
    gates = ["--gates", str(table / "gates.json"), "--marble-radius", "10"]
    assert main(["detect", str(table / "grey.png"), *gates, "--reference", str(table / "empty.png")]) == 1
    assert json.loads(capsys.readouterr().out)["error"] == (
        "the photo is grey but the reference is in colour: take both with the same camera")
    assert main(["detect", str(table / "round.png"), *gates, "--reference", str(table / "grey-empty.png")]) == 1
    assert json.loads(capsys.readouterr().out)["error"] == (
        "the photo is in colour but the reference is grey: take both with the same camera")
    assert main(["detect", str(table / "grey.png"), *gates, "--reference", str(table / "grey-empty.png")]) == 0
    assert json.loads(capsys.readouterr().out)["counts"] == [0, 2, 0, 0, 0, 0]  # both grey: compared as before


def test_a_kept_sample_whose_frame_was_made_grey_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photos = tmp_path / "photos"
    kept_sample(photos, 1)
    edited = kept_sample(photos, 2)
    _grey_copy(edited / "frame.png", edited / "frame.png")
    assert main(["detect", "--eval", str(photos), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == [{
        "sample": edited.name,
        "error": "frame.png is grey but reference.png is in colour: take both with the same camera"}]


@pytest.mark.parametrize("extra", [["--reference", "empty.png"], ["--marble-radius", "12"]])
def test_eval_with_a_reference_or_radius_it_would_not_use_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    """Each kept sample's own reference and radius are used: one given on the command line is refused, not ignored."""
    kept_sample(tmp_path / "photos", 1)
    assert main(["detect", "--eval", str(tmp_path / "photos"), *extra]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip() == (
        "companion detect: --eval reads its images, gates, references and marble radii from DIR; give no IMAGE, "
        "--gates, --reference or --marble-radius")


@pytest.mark.parametrize("ext", [".png", ".jpg"])
def test_the_pixels_a_header_claims_are_read_without_decoding(ext: str) -> None:
    from hardware.vision.evaluate import claimed_pixels

    ok, data = cv2.imencode(ext, np.full((48, 64, 3), 120, np.uint8))
    assert ok and claimed_pixels(data.tobytes()) == 64 * 48
    assert claimed_pixels(_png_claiming(9000, 9000)) == 81_000_000
    assert claimed_pixels(b"GIF89a....") is None


def test_a_picture_claiming_more_pixels_than_a_camera_gives_is_not_decoded(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from hardware.vision import evaluate

    real = tmp_path / "real.png"
    cv2.imwrite(str(real), np.full((48, 64, 3), 120, np.uint8))
    forged = tmp_path / "forged.png"
    forged.write_bytes(_png_claiming(9000, 9000))  # under OpenCV's own limit: it would decode 243 MB
    assert evaluate.read_image(real).shape == (48, 64, 3)
    monkeypatch.setattr(cv2, "imdecode", lambda *a: pytest.fail("a forged header was decoded"))
    assert evaluate.read_image(forged) is None

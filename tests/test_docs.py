"""The README, the OpenAPI document and the error handlers agree: every API route documented, each error
status one meaning, named the same everywhere."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from web.errors import ERROR_CODES

ROOT = Path(__file__).resolve().parent.parent


def test_every_api_route_is_in_the_openapi_document(app: Flask, client: FlaskClient) -> None:
    documented = client.get("/api/openapi.json").get_json()["paths"]
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/") or rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for variant in _expand(path):
            assert variant in documented, f"{variant} is served but not documented"
            methods = (rule.methods or set()) - {"HEAD", "OPTIONS"}
            assert methods <= {m.upper() for m in documented[variant]}, (variant, methods)


def _expand(path: str) -> list[str]:
    """/api/sessions/{session_id}/{action} with any(undo, redo) is documented as one path per action."""
    return [path.replace("{action}", a) for a in ("undo", "redo", "abandon")] if "{action}" in path else [path]


def test_readme_openapi_and_handlers_name_each_error_status_alike(client: FlaskClient) -> None:
    readme = (ROOT / "README.md").read_text()
    for status, code in ERROR_CODES.items():
        if status in (405, 500):
            continue
        assert re.search(rf"\b{status} {code}\b", readme), f"README does not say '{status} {code}'"
    writes = client.get("/api/openapi.json").get_json()["paths"]["/api/sessions/{session_id}/events"]["post"]
    assert {int(s) for s in writes["responses"]} >= {400, 403, 404, 409, 413, 422, 429}


def test_each_error_status_answers_with_its_code(client: FlaskClient) -> None:
    created = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["A", "B"]}).get_json()
    url = f"/api/sessions/{created['id']}"
    cases = {
        400: client.post(f"{url}/events", json={"type": "marble", "gate": 9}),
        404: client.get("/api/sessions/999"),
        405: client.delete("/api/sessions"),
        409: client.post(f"{url}/undo", json={}),
        413: client.post(f"{url}/events", data="x" * (65 * 1024), content_type="application/json"),
        422: client.post(f"{url}/events", json={"type": "turned", "player": "B", "gate": 1}),
    }
    for status, response in cases.items():
        assert response.status_code == status, (status, response.get_json())
        code = response.get_json()["error"]["code"]
        assert code == ERROR_CODES[status] or (status == 409 and code in ("stale", "read_only", "conflict")), code
    assert "POST" in cases[405].headers["Allow"] and "GET" in cases[405].headers["Allow"]


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_wiring_example_keeps_clear_of_the_pins_the_text_says_to_avoid() -> None:
    from hardware.gates import DEFAULT_PINS

    text = " ".join((ROOT / "hardware/WIRING.md").read_text().split())
    avoided_text = re.search(r"they avoid (.*?), and they sit", text)
    assert avoided_text, "WIRING.md no longer says which pins it avoids"
    avoided: set[int] = set()
    for group in re.findall(r"\(([^)]*)\)", avoided_text.group(1)):
        for low, high in re.findall(r"(\d+)(?:-(\d+))?", group):
            avoided |= set(range(int(low), int(high or low) + 1))
    assert {4, 12, 13, 18, 19, 20, 21} <= avoided  # 1-Wire, PWM, PCM/I2S among them
    examples = [tuple(int(p) for p in pins.split(",")) for pins in re.findall(r"--pins (\d+(?:,\d+){5})\b", text)]
    assert examples
    for pins in [tuple(DEFAULT_PINS), *examples]:
        assert len(set(pins)) == 6 and not set(pins) & avoided, pins


def test_the_restore_steps_use_absolute_paths_and_keep_the_wal_with_the_set_aside_log(tmp_path: Path) -> None:
    """The restore block of systemd/README.md, run on a log whose newest write is still in its WAL (a crash):
    the backup is in place, and the log set aside still holds that write."""
    import shutil
    import sqlite3
    import subprocess

    from companion.log import EventLog

    block = _section((ROOT / "systemd/README.md").read_text(), "Backup and restore").split("To restore one", 1)[1]
    script = block.split("```sh\n", 1)[1].split("```", 1)[0]
    assert "cd " not in script
    live = tmp_path / "live"
    log = EventLog(live / "companion.sqlite3")
    log.create_session("diego-drachenzahn", ("Ada", "Ben"), {})
    (live / "backups").mkdir()
    log.backup(live / "backups/companion-20260101-033000.sqlite3")
    log._db.execute("PRAGMA wal_autocheckpoint = 0")
    log.create_session("diego-drachenzahn", ("Cleo", "Dan"), {})  # only in the WAL
    data = tmp_path / "data"  # the data folder as a power cut leaves it
    shutil.copytree(live, data)
    log.close()
    assert (data / "companion.sqlite3-wal").stat().st_size > 0
    lines = []
    for line in script.splitlines():
        if not line.strip() or line.startswith("#") or line.startswith(("sudo systemctl", "sudo ls")):
            continue
        if line.startswith("sudo -u companion sqlite3") and shutil.which("sqlite3") is None:
            continue
        words = line.split("#", 1)[0].split()
        paths = [w for w in words if "companion.sqlite3" in w or "backups/" in w]
        assert paths and all(p.startswith("/var/lib/dragon-table/") for p in paths), line
        lines.append(line.replace("sudo -u companion ", "").replace("sudo ", "")
                     .replace("/var/lib/dragon-table", str(data)))
    result = subprocess.run(["bash", "-c", "\n".join(lines)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr

    def sessions(path: Path) -> int:
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        finally:
            db.close()

    assert sessions(data / "companion.sqlite3") == 1  # the backup
    assert sessions(data / "companion.sqlite3.before-restore") == 2  # with its WAL: nothing lost


def test_readme_says_where_photos_are_kept_what_they_cost_and_how_they_go() -> None:
    """Photo keeping as a table owner reads it: the folder (here and on a Pi), the cap, the disk it takes, how
    the photos are sent and deleted, each as the code has it."""
    from hardware.camera.keeping import DEFAULT_LIMIT

    readme = (ROOT / "README.md").read_text()
    keeping = readme[readme.index("**Photo keeping**"):readme.index("**Together**")]
    pi_data = re.search(r"^DATA=(\S+)", (ROOT / "systemd" / "install.sh").read_text(), re.M)
    assert pi_data is not None and f"{pi_data.group(1)}/photos" in keeping
    assert f"`keep_photos_max` ({DEFAULT_LIMIT})" in keeping and " MB" in keeping
    assert "kept rounds (zip)\" button" in keeping and "Delete the kept photos" in keeping
    assert "DELETE /api/camera/photos" in keeping


def test_every_setting_the_readme_names_can_be_set() -> None:
    """What the README (and systemd/README.md) name as a setting exists: an environment variable the code reads,
    a config-file key (`[section] key`, the keys of the "Who may write" table), a `companion serve` option."""
    from web.cli import build_parser
    from web.config import SCHEMA, _subparser

    readme = (ROOT / "README.md").read_text()
    pi_readme = (ROOT / "systemd" / "README.md").read_text()
    code = "\n".join(path.read_text() for folder in ("companion", "web", "hardware", "tests", "bench")
                     for path in (ROOT / folder).rglob("*.py"))
    units = "\n".join(path.read_text() for path in (ROOT / "systemd").glob("*.service"))
    scripts = "\n".join(path.read_text() for path in (ROOT / "systemd").glob("*.sh"))
    for name in set(re.findall(r"`\$?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`", readme + pi_readme)):
        read = (re.search(rf"""(environ(\.get)?[(\[]|getenv\(|ENV_VAR = )["']{name}["']""", code)
                or f"Environment={name}=" in units or re.search(rf"\$\{{?{name}\b", scripts))
        assert read, f"the README names {name} as a setting, but nothing reads it from the environment"
    for section, key in re.findall(r"`\[([a-z]+)\] ([a-z_]+)", readme + pi_readme):
        assert key in SCHEMA.get(section, {}), f"the README names [{section}] {key}, which the config file lacks"

    options = {option for action in _subparser(build_parser(), "serve")._actions for option in action.option_strings}
    serve_row = re.search(r"^\| `companion serve ([^`]*)` \|", readme, re.M)
    assert serve_row is not None
    for option in re.findall(r"--(?:\[no-\])?[a-z][a-z-]*", serve_row.group(1)):
        assert option.replace("[no-]", "") in options and option.replace("[no-]", "no-") in options \
            if "[no-]" in option else option in options, f"`companion serve` has no {option}"

    who = _section(readme, "Who may write")
    rows = re.findall(r"^\| `([a-z_]+)` \| (.*?) \| `([^`]*)` \|", who, re.M)
    assert {key for key, _, _ in rows} == set(SCHEMA["access"]), "the table lists every [access] key, no other"
    from web.config import ACCESS_APP_CONFIG
    from web.trust import DEFAULTS

    for key, row_options, default in rows:
        for option in re.findall(r"`(--[a-z-]+)`", row_options):
            assert option in options, f"the README's {option} is no option of `companion serve`"
        assert re.findall(r"`(--[a-z-]+)`", row_options), key
        assert tomllib.loads(f"v = {default}")["v"] == DEFAULTS[ACCESS_APP_CONFIG[key]], key
    assert not re.search(r"\b(KIOSK_PEERS|SPECTATORS|ALLOWED_HOSTS|WRITE_RATE|WRITE_BURST)\b", readme), \
        "the README names app.config keys no one can set; name the [access] keys and the options"


def _subparser(name: str):
    import argparse

    from web.cli import build_parser

    actions = build_parser()._actions
    return next(a for a in actions if isinstance(a, argparse._SubParsersAction)).choices[name]


def _camera_bullets(readme: str) -> str:
    return readme[readme.index("- **Camera.**"):readme.index("- **Together**")]


def test_the_camera_steps_name_the_pages_own_controls() -> None:
    """Every button, switch or heading the README's camera steps name in italics is on the page they are on (the
    Camera page, the Diego sensor panel, the kiosk's header), word for word; the page's download button reads as
    the README quotes it."""
    readme = (ROOT / "README.md").read_text()
    camera = _camera_bullets(readme)
    pages = "\n".join((ROOT / "web" / path).read_text() for path in (
        "templates/camera.html", "static/camera.js", "templates/base.html", "templates/games/diego-drachenzahn.html"))
    named = set(re.findall(r"(?<![*\w])\*([^*\n]+(?:\n\s*[^*\n]+)?)\*(?![*\w])", camera))
    assert {"Tap the gate corners", "Save regions", "Anchor to the 4 markers", "Gates empty: take reference",
            "Tap one resting marble", "Keep confirmed rounds' photos"} <= {" ".join(n.split()) for n in named}
    for name in named:
        name = " ".join(name.split())
        if re.fullmatch(r"Gate [1-6]", name):  # the page numbers its gate buttons itself
            assert "`Gate ${g}`" in pages
        elif name == "Photo keeping" or name == "Marble size":
            assert f"<h3>{name}</h3>" in pages
        else:
            assert name.replace("'", "&#39;") in pages or name in pages, f"the README names *{name}*; no page shows it"
    download = re.search(r'"Download the (\d+) kept rounds \(zip\)"', camera)
    assert download is not None, "the README quotes the download button as the page words it"
    assert "`Download the ${keeping.count} kept round${keeping.count === 1 ? \"\" : \"s\"} (zip)`" in pages


def test_the_camera_steps_name_real_options_defaults_and_files() -> None:
    """The options of `companion serve --camera`, `companion markers` and `companion detect` the camera steps use
    exist; the marker and marble sizes they give are the code's defaults; the files they name are the ones the
    companion writes."""
    from hardware.camera.marble_size import DEFAULT_MARBLE_MM
    from hardware.camera.markers import DEFAULT_MARKER_MM

    readme = (ROOT / "README.md").read_text()
    camera = _camera_bullets(readme)
    serve_camera = next(a for a in _subparser("serve")._actions if "--camera" in a.option_strings).help or ""
    for spec in re.search(r"`companion serve --camera`: (.*?)\)\. ", camera, re.S).group(1).split("`")[1::2]:
        assert spec in serve_camera, f"`--camera {spec}` is not in `companion serve --help`"
    markers = {o for a in _subparser("markers")._actions for o in a.option_strings}
    assert {"-o", "--size-mm"} <= markers and "`-o markers.pdf`" in camera and "`--size-mm`, 50)" in camera
    assert DEFAULT_MARKER_MM == 50 and f"`[camera] marker_mm`, {DEFAULT_MARKER_MM:g} mm" in camera
    assert f"`[camera] marble_mm`, {DEFAULT_MARBLE_MM:g} mm" in camera
    assert "`markers.png`" in camera and _subparser("markers").get_default("output") == "markers.png"
    detect = {o for a in _subparser("detect")._actions for o in a.option_strings}
    check = " ".join(camera.split()).split("Check a set-up", 1)[1].split("- **Photo keeping**", 1)[0]
    assert "`companion detect " in check
    for span in re.findall(r"`([^`]*)`", check):
        for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", span):
            assert option in detect, f"`companion detect` has no {option}"
    hub = (ROOT / "hardware" / "camera" / "hub.py").read_text()
    for name in ("gates.json", "marble.json"):
        assert f'data_dir / "{name}"' in hub and f"camera/{name}" in readme, name


def test_the_command_table_gives_companion_markers_options_as_they_are() -> None:
    readme = (ROOT / "README.md").read_text()
    row = re.search(r"^\| `companion markers ([^`]*)` \| ([^|]*)\|", readme, re.M)
    assert row is not None
    options = {o for a in _subparser("markers")._actions for o in a.option_strings}
    assert set(re.findall(r"(?<![\w-])-{1,2}[a-z][a-z-]*", row.group(1))) <= options
    assert f"({_subparser('markers').get_default('size_mm'):g}) on a side" in row.group(2)


def test_the_error_table_names_the_cameras_refusals_under_their_status() -> None:
    from web.camera import REFUSALS

    readme = (ROOT / "README.md").read_text()
    rows = {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d{3}) \w+ \| ([^|]*)\|", readme, re.M)}
    camera = {*REFUSALS.values(), (503, "camera_off"), (503, "no_picture")}
    source = (ROOT / "web" / "camera.py").read_text()
    assert 'ApiError(503, "camera_off"' in source and 'ApiError(503, "no_picture"' in source
    for status, code in camera:
        assert f"`{code}`" in rows[status], f"README's error table has no {code} under {status}"

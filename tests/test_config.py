"""The config file: the template's defaults, overrides laid under the command line, and each mistake named."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hardware.gates import DEFAULT_PINS
from hardware.gates_cli import wiring_from_args
from web.cli import build_parser, main
from web.config import SCHEMA, ConfigError, apply_config_file, config_path, load

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "systemd" / "companion.toml"


def _serve_args(tmp_path: Path, text: str, *argv: str):
    path = tmp_path / "companion.toml"
    path.write_text(text)
    parser = build_parser()
    args = parser.parse_args(["serve", "--config", str(path), *argv])
    apply_config_file(args, parser)
    return args


def _uncommented_template() -> str:
    """The template with every commented-out `key = value` line switched on."""
    lines = []
    for line in TEMPLATE.read_text().splitlines():
        body = line.removeprefix("# ")
        lines.append(body if line.startswith("# ") and " = " in body and not body.startswith(" ") else line)
    return "\n".join(lines)


def test_the_template_sets_nothing_and_lists_every_key_at_its_default(tmp_path: Path) -> None:
    assert load(TEMPLATE).values == {}
    full = tomllib.loads(_uncommented_template())
    assert {s: set(keys) for s, keys in full.items()} == {s: set(keys) for s, keys in SCHEMA.items()}
    args = _serve_args(tmp_path, _uncommented_template())
    defaults = build_parser().parse_args(["serve"])
    for dest in ("host", "port", "threads", "sensors", "no_beams", "active_high", "external_pull_up"):
        assert getattr(args, dest) == getattr(defaults, dest), dest
    assert wiring_from_args(args)["pins"] == DEFAULT_PINS
    assert args.camera is None  # "auto": picamera2 on a Pi, the simulated castle elsewhere


def test_values_from_the_file_apply_and_the_command_line_wins(tmp_path: Path) -> None:
    text = """
[server]
port = 9000
data = "/srv/table"
[sensors]
mode = "simulation"
beams = false
[gates]
pins = [5, 6, 13, 19, 26, 21]
wiring = "active-high"
[camera]
source = "usb:0"
fps = 2.5
"""
    args = _serve_args(tmp_path, text, "--port", "8123")
    assert args.port == 8123  # given on the command line
    assert args.data == "/srv/table" and args.sensors == "simulation" and args.no_beams
    assert args.camera == "usb:0"
    assert wiring_from_args(args) == {"pins": (5, 6, 13, 19, 26, 21), "pull_up": None, "active_state": True}
    assert args.app_config == {"CAMERA_FPS": 2.5}


def test_the_environment_names_the_file_when_the_option_does_not(tmp_path: Path) -> None:
    assert config_path(None, {"COMPANION_CONFIG": "/etc/x.toml"}) == "/etc/x.toml"
    assert config_path("/a.toml", {"COMPANION_CONFIG": "/etc/x.toml"}) == "/a.toml"
    assert config_path(None, {}) is None


@pytest.mark.parametrize("text, message", [
    ("[server]\nprot = 8080\n", "unknown key server.prot; [server] takes host, port, threads, data"),
    ("[srever]\nport = 8080\n", "unknown section [srever]"),
    ("[server]\nport = 80800\n", "server.port = 80800 is not valid; use a whole number from 1 to 65535"),
    ("[server]\nport = \"8080\"\n", "server.port = '8080' is not valid; use a whole number"),
    ("[sensors]\nmode = \"real\"\n", 'sensors.mode = \'real\' is not valid; use one of "auto", "simulation"'),
    ("[sensors]\nbeams = 1\n", "sensors.beams = 1 is not valid; use true or false"),
    ("[gates]\npins = [17, 27]\n", "gates.pins = [17, 27] is not valid; use a list of six BCM pin numbers"),
    ("[gates]\npins = [17, 17, 22, 23, 24, 25]\n", "use six different pins"),
    ("[gates]\nwiring = \"pull-up\"\n", 'gates.wiring = \'pull-up\' is not valid; use one of "internal-pull-up"'),
    ("[camera]\nsource = \"usb\"\n", "camera.source = 'usb' is not valid; use \"auto\", \"off\", or a camera spec"),
    ("[camera]\nfps = 0\n", "camera.fps = 0 is not valid; use a number from 0.5 to 30"),
    ("[camera]\nmarble_mm = 0\n", "camera.marble_mm = 0 is not valid; use a number from 5 to 50"),
    ("[camera]\nkeep_photos = \"yes\"\n", "camera.keep_photos = 'yes' is not valid; use true or false"),
    ("[camera]\nmains_hz = 55\n", "camera.mains_hz = 55 is not valid; use 0 (leave the camera's exposure be), 50"),
    ("server = 1\n", "server must be a section"),
    ("[server\n", "not valid TOML"),
])
def test_each_mistake_is_refused_naming_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load(path)
    assert message in str(err.value)
    assert str(err.value).startswith(str(path))


def test_a_missing_file_says_where_the_template_is(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file; copy systemd/companion.toml"):
        load(tmp_path / "absent.toml")


def test_serve_stops_with_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "companion.toml"
    path.write_text("[gates]\nwirnig = \"active-high\"\n")
    assert main(["serve", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"companion: cannot start: {path}: unknown key gates.wirnig; [gates] takes pins, wiring"]


def test_the_marble_size_photo_keeping_and_mains_settings_reach_the_camera(tmp_path: Path) -> None:
    from hardware.camera.keeping import DEFAULT_LIMIT
    from hardware.camera.marble_size import DEFAULT_MARBLE_MM
    from hardware.camera.markers import DEFAULT_MARKER_MM
    from hardware.camera.sources import MAINS_HZ

    defaults = tomllib.loads(_uncommented_template())["camera"]
    assert (defaults["marker_mm"], defaults["marble_mm"]) == (DEFAULT_MARKER_MM, DEFAULT_MARBLE_MM)
    assert (defaults["keep_photos"], defaults["keep_photos_max"]) == (False, DEFAULT_LIMIT)  # off unless consented
    assert defaults["mains_hz"] == MAINS_HZ
    text = "[camera]\nmarker_mm = 40\nmarble_mm = 15.5\nkeep_photos = true\nkeep_photos_max = 20\nmains_hz = 60\n"
    assert _serve_args(tmp_path, text).app_config == {"CAMERA_MARKER_MM": 40.0, "CAMERA_MARBLE_MM": 15.5,
                                                      "CAMERA_KEEP_PHOTOS": True, "CAMERA_KEEP_MAX": 20,
                                                      "CAMERA_MAINS_HZ": 60}

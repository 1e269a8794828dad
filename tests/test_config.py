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
    from web.config import ACCESS_APP_CONFIG
    from web.trust import DEFAULTS as ACCESS_DEFAULTS

    assert full["access"] == {key: ACCESS_DEFAULTS[name] for key, name in ACCESS_APP_CONFIG.items()}


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
    ("[access]\nkiosk_peers = [\"10.0.0.300\"]\n", "access.kiosk_peers = ['10.0.0.300'] is not valid; use a list of "
     "the IP addresses or networks of the Pi's own screen, like [\"127.0.0.0/8\", \"::1\"]: '10.0.0.300' is not an IP"),
    ("[access]\nkiosk_peers = \"127.0.0.1\"\n", "access.kiosk_peers = '127.0.0.1' is not valid; use a list of"),
    ("[access]\nkiosk_peers = []\n", "(at least one)"),
    ("[access]\nspectators = \"no\"\n", "access.spectators = 'no' is not valid; use true or false"),
    ("[access]\nallowed_hosts = [\"http://dragon.lan:8080/\"]\n", "'http://dragon.lan:8080/' is not a host name or IP"),
    ("[access]\nallowed_hosts = \"dragon.lan\"\n", "access.allowed_hosts = 'dragon.lan' is not valid; use a list"),
    ("[access]\nwrite_rate = \"fast\"\n", "access.write_rate = 'fast' is not valid; use a number from 0.1 to 1000"),
    ("[access]\nwrite_rate = 0\n", "access.write_rate = 0 is not valid; use a number from 0.1 to 1000"),
    ("[access]\nwrite_burst = 2.5\n", "access.write_burst = 2.5 is not valid; use a whole number from 1 to 10000"),
    ("[access]\nwrite_burst = 0\n", "access.write_burst = 0 is not valid; use a whole number from 1 to 10000"),
    ("[access]\nkiosk_peer = [\"::1\"]\n", "unknown key access.kiosk_peer; [access] takes kiosk_peers, spectators"),
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


# Who may write ([access]): each key read from the file changes what it names, and the command line wins.

TABLET = "192.168.1.20"


@pytest.fixture
def serve_app(tmp_path: Path):
    """Build the app `companion serve --config FILE [options]` would serve (no sockets), shut down after."""
    from web.app import create_app, shutdown
    from web.cli import app_config

    made = []

    def make(text: str, *argv: str):
        args = _serve_args(tmp_path, text, "--data", str(tmp_path / "data"), "--sensors", "off", *argv)
        app = create_app({**app_config(args), "TESTING": True})
        made.append(app)
        return app

    yield make
    for app in made:
        shutdown(app)


def _from(app, address: str):
    client = app.test_client()
    client.environ_base = {"REMOTE_ADDR": address}
    return client


def test_a_peer_listed_in_kiosk_peers_counts_as_the_kiosk(serve_app) -> None:
    app = serve_app('[access]\nkiosk_peers = ["127.0.0.1", "192.168.1.0/27"]\n')
    assert _from(app, TABLET).get("/api/pairing").get_json()["role"] == "kiosk"
    assert _from(app, TABLET).post("/api/players", json={"name": "Ada"}).status_code == 201
    assert _from(app, "127.0.0.2").get("/api/pairing").get_json()["role"] == "spectator"  # not listed any more
    assert _from(app, "192.168.1.77").post("/api/players", json={"name": "Eve"}).status_code == 403
    default = serve_app("")
    assert _from(default, TABLET).get("/api/pairing").get_json()["role"] == "spectator"
    option = serve_app('[access]\nkiosk_peers = ["192.168.1.0/27"]\n', "--kiosk-peers", "127.0.0.1,10.1.1.1")
    assert _from(option, TABLET).get("/api/pairing").get_json()["role"] == "spectator"  # the option wins
    assert _from(option, "10.1.1.1").get("/api/pairing").get_json()["role"] == "kiosk"


def test_a_host_of_the_pis_own_is_the_kiosk_that_opens_it(serve_app) -> None:
    """[server] host set to one address of the Pi's: the kiosk opens that address and reaches the companion from it
    (a peer with the Pi's own address is the Pi itself), so it is the kiosk there, as at 127.0.0.1; others are not."""
    app = serve_app('[server]\nhost = "192.168.1.50"\n')
    assert _from(app, "192.168.1.50").get("/api/pairing").get_json()["role"] == "kiosk"
    assert _from(app, "192.168.1.50").post("/api/players", json={"name": "Ada"}).status_code == 201
    assert _from(app, "192.168.1.51").get("/api/pairing").get_json()["role"] == "spectator"
    assert _from(app, "127.0.0.1").get("/api/pairing").get_json()["role"] == "kiosk"
    anywhere = serve_app('[server]\nhost = "0.0.0.0"\n')
    assert _from(anywhere, "0.0.0.0").get("/api/pairing").get_json()["role"] == "spectator"


def test_write_rate_and_burst_limit_a_device_s_writes(serve_app) -> None:
    app = serve_app("[access]\nkiosk_peers = [\"10.9.9.9\"]\nwrite_rate = 0.1\nwrite_burst = 3\n")
    device = _from(app, TABLET)  # unpaired: each write is refused, but counted against its address first
    assert [device.post("/api/players", json={"name": f"P{n}"}).status_code for n in range(5)] == [403] * 3 + [429] * 2
    assert int(device.post("/api/players", json={"name": "X"}).headers["Retry-After"]) >= 9  # 1 write in 10 s
    roomy = serve_app("[access]\nwrite_burst = 3\n", "--write-burst", "6")
    device = _from(roomy, TABLET)
    assert [device.post("/api/players", json={"name": f"P{n}"}).status_code for n in range(7)] == [403] * 6 + [429]


def test_spectators_false_shows_the_games_to_paired_devices_only(serve_app) -> None:
    closed = serve_app("[access]\nspectators = false\n")
    refused = _from(closed, TABLET).get("/api/sessions")
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "pairing_required"
    assert closed.test_client().get("/api/sessions").status_code == 200  # the kiosk
    assert _from(serve_app("[access]\nspectators = false\n", "--spectators"), TABLET).get("/api/sessions") \
        .status_code == 200
    assert _from(serve_app(""), TABLET).get("/api/sessions").status_code == 200


def test_allowed_hosts_adds_names_the_pi_answers_to(serve_app) -> None:
    app = serve_app('[access]\nallowed_hosts = ["Dragon.LAN"]\n')
    assert app.test_client().get("/api/sessions", headers={"Host": "dragon.lan:8080"}).status_code == 200
    assert app.test_client().get("/api/sessions", headers={"Host": "other.lan"}).status_code == 421
    assert serve_app("").test_client().get("/api/sessions", headers={"Host": "dragon.lan"}).status_code == 421


@pytest.mark.parametrize("text", ['[access]\nkiosk_peers = ["192.168.1.300/24"]\n', "[access]\nwrite_rate = -1\n",
                                  "[access]\nwrite_burst = true\n", '[access]\nallowed_hosts = ["a b"]\n'])
def test_a_bad_access_value_stops_serve_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                       text: str) -> None:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    assert main(["serve", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"companion: cannot start: {path}: access.") and "is not valid" in err[0]


@pytest.mark.parametrize("argv, message", [
    (["--kiosk-peers", "10.0.0.300"], "argument --kiosk-peers: '10.0.0.300' is not valid; use the IP addresses or "
                                      "networks of the Pi's own screen, separated by \",\", like 127.0.0.0/8,::1"),
    (["--allowed-hosts", "dragon.lan:8080"], "'dragon.lan:8080' is not a host name or IP address"),
    (["--write-rate", "fast"], "argument --write-rate: 'fast' is not valid; use a number from 0.1 to 1000"),
    (["--write-burst", "0"], "argument --write-burst: '0' is not valid; use a whole number from 1 to 10000"),
])
def test_a_bad_access_option_stops_serve_with_one_line(capsys: pytest.CaptureFixture, argv: list[str],
                                                        message: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", *argv])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and "Traceback" not in "".join(err)

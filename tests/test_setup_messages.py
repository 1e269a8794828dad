"""What `companion doctor`, `companion gates` and `companion serve` tell a person setting up the Pi: the running
service compared with the config file and the options given, fixes that name where a wrong value came from, the
config file's mistakes named plainly, the address the service listens on, and the doctor's help."""
from __future__ import annotations

import socket
import subprocess
import urllib.error
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from flask import Flask

from hardware import gates_cli
from tests.servers import free_port, serving
from tests.test_install import _kiosk, desktop  # noqa: F401  (desktop: a fixture)
from web import doctor
from web.cli import LISTEN_FAILED, build_parser, main

CONFIG_PINS = "5,6,16,26,22,27"
DEFAULT_PINS = "17,27,22,23,24,25"


@pytest.fixture(autouse=True)
def no_config_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPANION_CONFIG", raising=False)


@pytest.fixture
def service(make_app: Callable[..., Flask]) -> Iterator[int]:
    """A running companion on 127.0.0.1 with the simulated gates on the default pins and camera; its port."""
    with serving(make_app(CAMERA="simulation")) as base:
        yield int(base.rsplit(":", 1)[1])


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    return str(path)


def _doctor(capsys: pytest.CaptureFixture, tmp_path: Path, *argv: str) -> tuple[int, dict[str, str]]:
    """`companion doctor` with ``argv``: its exit status and each check's lines (the line and its fix), by name."""
    code = main(["doctor", "--data", str(tmp_path / "data"), *argv])
    lines: dict[str, str] = {}
    name = ""
    for line in capsys.readouterr().out.splitlines():
        if line[:4] in ("ok  ", "FAIL", "note"):
            name = line[6:18].strip()
            lines[name] = line
        elif line.strip().startswith("fix:") and name:
            lines[name] += "\n" + line.strip()
    return code, lines


# --- the running service against the config file and the options -------------------------------------------

def test_doctor_says_the_service_runs_with_other_pins_than_the_config_file_names(
        service: int, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The file was edited to pins 5,6,... and the service not restarted: the doctor said `ok gates` on GPIO17."""
    config = _config(tmp_path, f"[server]\nport = {service}\n\n[gates]\npins = [{CONFIG_PINS.replace(',', ', ')}]\n")
    code, lines = _doctor(capsys, tmp_path, "--config", config)
    assert code == 1
    assert lines["gates"].startswith("FAIL")
    assert f"the config file says pins {CONFIG_PINS}; the service runs with {DEFAULT_PINS}: restart it" \
        in lines["gates"]
    assert "fix: sudo systemctl restart companion" in lines["gates"]


def test_doctor_notes_pins_and_camera_given_are_not_what_the_service_uses(
        service: int, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    _, lines = _doctor(capsys, tmp_path, "--port", str(service), "--pins", CONFIG_PINS, "--camera", "usb:7")
    assert lines["gates"].startswith("note")
    assert f"--pins {CONFIG_PINS}: not what the running service uses" in lines["gates"]
    assert lines["camera"].startswith("note")
    assert "--camera usb:7: not what the running service uses (simulation)" in lines["camera"]


def test_wrong_pins_are_refused_while_the_service_runs(service: int, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    code, lines = _doctor(capsys, tmp_path, "--port", str(service), "--pins", "40,41,42,43,44,45")
    assert code == 1 and lines["gates"].startswith("FAIL  gates       gate 1: pin 40 is not a GPIO pin (BCM 0-27)")
    assert main(["gates", "--once", "--port", str(service), "--pins", "a,b"]) == 2
    assert capsys.readouterr().err.strip() == "companion gates: error: gate 1: pin 'a' is not a BCM GPIO number (0-27)"


def test_gates_says_the_config_file_names_other_pins_and_notes_only_options_given(
        service: int, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`companion gates --config FILE` said "the wiring options apply only when it is stopped", with none given."""
    config = _config(tmp_path, f"[server]\nport = {service}\n\n[gates]\npins = [{CONFIG_PINS.replace(',', ', ')}]\n")
    assert main(["gates", "--once", "--config", config]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"companion gates: the config file says pins {CONFIG_PINS}; the service runs with {DEFAULT_PINS}: "
                   "restart it (sudo systemctl restart companion)"]
    assert main(["gates", "--once", "--config", config, "--pins", DEFAULT_PINS]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["companion gates: the running service's wiring is shown; --pins applies only when it is stopped "
                   "(sudo systemctl stop companion)"]


# --- fixes that name where the wrong value came from ---------------------------------------------------------

@pytest.mark.parametrize("camera, fix", [("usb:/nonexistent/video9", "ls /dev/video*"),
                                         ("file:{tmp}/missing.jpg", "check the path")])
def test_a_camera_that_gives_no_picture_gets_the_fix_of_its_kind(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                  camera: str, fix: str) -> None:
    _, lines = _doctor(capsys, tmp_path, "--simulate", "--port", str(free_port()),
                       "--camera", camera.format(tmp=tmp_path))
    assert lines["camera"].startswith("FAIL") and fix in lines["camera"] and "ribbon" not in lines["camera"]


@pytest.mark.parametrize("argv, message, fix", [
    (["--pins", "17,17,22,23,24,25"], "pin 17 is used twice (gates 1 and 2)", "fix: give --pins six different"),
    (["--pins", "a,b"], "gate 1: pin 'a' is not a BCM GPIO number (0-27)", "fix: give --pins six different"),
    (["--camera", "webcam"], "'webcam' is not valid", "fix: change --camera to one of those"),
])
def test_a_wrong_option_is_named_as_the_option_in_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                          argv: list[str], message: str, fix: str) -> None:
    _, lines = _doctor(capsys, tmp_path, "--simulate", "--port", str(free_port()), *argv)
    line = lines["camera" if "--camera" in argv else "gates"]
    assert line.startswith("FAIL") and message in line and fix in line
    assert "config file" not in line


def test_gates_and_doctor_refuse_letters_as_pins_with_one_message(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    assert main(["gates", "--simulate", "--once", "--pins", "a,b"]) == 2
    err = capsys.readouterr().err.strip()
    _, lines = _doctor(capsys, tmp_path, "--simulate", "--port", str(free_port()), "--pins", "a,b")
    assert err == "companion gates: error: gate 1: pin 'a' is not a BCM GPIO number (0-27)"
    assert err.removeprefix("companion gates: error: ") in lines["gates"]


# --- the config file and the options' values ---------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("port = 8153\n\n[server]\nhost = \"0.0.0.0\"\n", "port belongs under [server]"),
    ("[camera]\nsource = \"usb:zero\"\n", "camera.source = 'usb:zero' is not valid"),
])
def test_the_config_check_names_a_key_outside_its_section_and_a_usb_camera_without_a_number(
        tmp_path: Path, capsys: pytest.CaptureFixture, text: str, message: str) -> None:
    code, lines = _doctor(capsys, tmp_path, "--quick", "--config", _config(tmp_path, text))
    assert code == 1 and lines["config"].startswith("FAIL") and message in lines["config"]


def test_a_camera_spec_unknown_in_the_config_file_lists_the_specs_once(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    _, lines = _doctor(capsys, tmp_path, "--quick", "--config", _config(tmp_path, "[camera]\nsource = \"webcam\"\n"))
    assert "camera.source = 'webcam' is not valid" in lines["config"]
    assert lines["config"].count('"usb:0@1280x720"') == 1


def test_empty_and_negative_pins_are_refused_by_name(capsys: pytest.CaptureFixture) -> None:
    """`--pins ""` used the default pins without a word; `--pins -1,...` gave argparse's "expected one argument"."""
    assert main(["gates", "--simulate", "--once", "--pins", ""]) == 2
    assert capsys.readouterr().err.strip() == ("companion gates: error: --pins is empty: give the BCM numbers of "
                                               f"gates 1..6, like {DEFAULT_PINS}")
    assert main(["gates", "--simulate", "--once", "--pins", "-1,27,22,23,24,25"]) == 2
    assert capsys.readouterr().err.strip() == "companion gates: error: gate 1: pin -1 is not a GPIO pin (BCM 0-27)"


@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_port_0_is_refused_as_the_config_file_refuses_it(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                         command: str) -> None:
    (tmp_path / "afile").write_text("")  # a data folder that cannot be used: nothing starts even if 0 were taken
    with pytest.raises(SystemExit) as stop:
        main([command, "--port", "0", "--data", str(tmp_path / "afile"), *(["--quick"] if command == "doctor"
                                                                           else ["--sensors", "off"])])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2
    assert err[-1] == f"companion {command}: error: argument --port: '0' is not valid; use a whole number from 1 to " \
                      "65535"


def test_pins_0_to_3_are_warned_about_but_used(tmp_path: Path, capsys: pytest.CaptureFixture,
                                               caplog: pytest.LogCaptureFixture) -> None:
    warning = ("GPIO0 (HAT EEPROM), GPIO3 (I2C) have another job on the Pi: a HAT or an I2C device may drive the "
               "line and break the gates' readings; hardware/WIRING.md names free pins")
    assert main(["gates", "--simulate", "--once", "--pins", "0,3,22,23,24,25"]) == 0
    out, err = capsys.readouterr()
    assert "GPIO0 (27)" in out and err.strip() == f"companion gates: warning: {warning}"
    _, lines = _doctor(capsys, tmp_path, "--simulate", "--port", str(free_port()), "--pins", "0,3,22,23,24,25")
    assert lines["gates"].startswith("ok") and lines["pins"].startswith(f"note  pins        {warning}")
    with socket.create_server(("127.0.0.1", 0)) as taken:  # it stops at listening, after the settings are taken
        code = main(["serve", "--host", "127.0.0.1", "--port", str(taken.getsockname()[1]), "--data",
                     str(tmp_path / "serve"), "--sensors", "simulation", "--camera", "off", "--pins",
                     "0,3,22,23,24,25"])
    assert code == LISTEN_FAILED
    assert f"warning: {warning}" in [record.getMessage() for record in caplog.records]


# --- the address the service listens on ----------------------------------------------------------------------

@pytest.mark.parametrize("host, probed", [("192.168.1.50", "192.168.1.50"), ("0.0.0.0", "127.0.0.1"),
                                          ("::", "127.0.0.1"), ("fd00::5", "[fd00::5]")])
def test_gates_and_doctor_ask_the_service_at_the_address_it_listens_on(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, host: str,
        probed: str) -> None:
    asked: list[str] = []

    def nothing_answers(url: str, timeout: float) -> Any:
        asked.append(url)
        raise urllib.error.URLError("refused")

    monkeypatch.setattr(gates_cli.urllib.request, "urlopen", nothing_answers)  # never leaves this machine
    config = _config(tmp_path, f"[server]\nhost = \"{host}\"\nport = 8164\n")
    assert main(["gates", "--once", "--config", config]) == 2  # no service, no GPIO here
    _, lines = _doctor(capsys, tmp_path, "--config", config)
    assert asked == [f"http://{probed}:8164/api/health"] * 2


@pytest.mark.parametrize("host, url", [("192.168.1.50", "http://192.168.1.50:9000/"),
                                       ("0.0.0.0", "http://127.0.0.1:9000/"), ("", "http://127.0.0.1:9000/")])
def test_the_kiosk_opens_the_address_the_service_listens_on(desktop: dict[str, str],  # noqa: F811
                                                            host: str, url: str) -> None:
    Path(desktop["COMPANION_CONFIG"]).write_text(f"[server]\nhost = \"{host}\"\nport = 9000\n")
    status, log = _kiosk({**desktop, "DISPLAY": ":0"})
    assert status == 0
    assert any(c.startswith("curl") and f"{url}api/health" in c for c in log)
    assert f"--app={url}" in next(c for c in log if c.startswith("chromium"))


# --- the doctor's help ----------------------------------------------------------------------------------------

def test_the_doctor_help_names_every_default_and_quick_with_screen_is_refused(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["doctor", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--config FILE config file (default $COMPANION_CONFIG, else /etc/dragon-table/companion.toml" in text
    assert "/var/lib/dragon-table if it exists, else ./data" in text
    with pytest.raises(SystemExit) as stop:
        main(["doctor", "--quick", "--screen"])
    assert stop.value.code == 2 and "argument --screen: not allowed with argument --quick" in capsys.readouterr().err


def test_doctor_off_a_pi_suggests_simulate(tmp_path: Path) -> None:
    """Off a Pi without --simulate no pin library opens the pins: the fix was the Pi's (apt install python3-lgpio)."""
    args = build_parser().parse_args(["doctor", "--data", str(tmp_path), "--port", str(free_port())])
    report = doctor.checks(args, runner=lambda command: subprocess.CompletedProcess(command, 3, "inactive\n"),
                           root=tmp_path, on_pi=False)
    gates = next(check for check in report if check.name == "gates")
    assert gates.ok is False and "cannot open the pins" in gates.detail
    assert "add --simulate" in gates.render() and "apt install" not in gates.render()

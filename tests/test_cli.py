"""The `companion` console script: every subcommand is wired and does its job."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from hardware.camera.simulated import SimulatedCastle
from hardware.vision.regions import save_regions
from tests.servers import free_port
from web.cli import BAD_SETTINGS, LISTEN_FAILED, main

ROOT = Path(__file__).resolve().parent.parent


def test_help_lists_every_command() -> None:
    result = subprocess.run([sys.executable, "-m", "web.cli", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0
    for command in ("serve", "gates", "detect", "markers"):
        assert command in result.stdout


def test_gates_once_in_simulation(capsys: pytest.CaptureFixture) -> None:
    assert main(["gates", "--simulate", "--once"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.strip()[:1].isdigit() and "GPIO" in line]
    assert len(rows) == 6


def test_markers_writes_a_sheet(tmp_path: Path) -> None:
    sheet = tmp_path / "markers.png"
    assert main(["markers", "-o", str(sheet)]) == 0
    image = cv2.imread(str(sheet))
    assert image is not None and image.shape[0] > image.shape[1]  # an A4 page, portrait


def test_detect_prints_one_json_line_per_image(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    castle = SimulatedCastle(seed=3)
    cv2.imwrite(str(tmp_path / "empty.png"), castle.render())
    castle.add_marble(2)
    castle.add_marble(2)
    castle.add_marble(None)
    cv2.imwrite(str(tmp_path / "round.png"), castle.render())
    save_regions(castle.regions(), tmp_path / "gates.json")
    code = main(["detect", str(tmp_path / "round.png"), str(tmp_path / "missing.png"),
                 "--gates", str(tmp_path / "gates.json"), "--reference", str(tmp_path / "empty.png")])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1  # one image could not be read
    assert lines[0] == {"image": str(tmp_path / "round.png"), "counts": [0, 2, 0, 0, 0, 0], "outside": 1,
                        "unsure": [False] * 6}
    assert lines[1]["image"].endswith("missing.png") and "error" in lines[1]


def test_detect_with_a_bad_gates_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "gates.json").write_text('{"gates": [}')
    assert main(["detect", "x.png", "--gates", str(tmp_path / "gates.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("companion detect:")


def test_serve_refuses_a_bad_camera_spec_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["serve", "--data", str(tmp_path), "--sensors", "simulation", "--camera", "webcam-of-doom"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith("companion: cannot start:")


def test_serve_that_cannot_listen_exits_with_a_status_systemd_restarts(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = main(["serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path),
                     "--sensors", "off", "--camera", "off"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == LISTEN_FAILED != BAD_SETTINGS  # companion.service restarts it; a bad setting it does not
    assert err[-1].startswith(f"companion: cannot listen on 127.0.0.1:{port}:")


def test_serve_refuses_a_data_folder_it_cannot_use_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A file where the data folder should be, or a folder that cannot be made: one line that says what the folder
    must be, and the status companion.service does not restart (a traceback, and ten restarts, before)."""
    (tmp_path / "afile").write_text("")
    for data in (tmp_path / "afile", tmp_path / "afile" / "below"):
        code = main(["serve", "--host", "127.0.0.1", "--port", str(free_port()), "--data", str(data),
                     "--sensors", "off", "--camera", "off"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == BAD_SETTINGS and err[-1].startswith(f"companion: cannot start: cannot keep the session log "
                                                           f"in the data folder {data}:"), err
        assert "Traceback" not in "\n".join(err) and "sudo chown -R companion:companion" in err[-1]


def test_serve_refuses_a_log_of_a_newer_release_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A backup of a newer release restored onto this one: its message in one line, and no restart."""
    import sqlite3

    from companion.log import EventLog

    EventLog(tmp_path / "companion.sqlite3").close()
    with sqlite3.connect(tmp_path / "companion.sqlite3") as db:
        db.execute("PRAGMA user_version = 999")
    code = main(["serve", "--host", "127.0.0.1", "--port", str(free_port()), "--data", str(tmp_path),
                 "--sensors", "off", "--camera", "off"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == BAD_SETTINGS and err[-1].startswith("companion: cannot start:") and "newer companion" in err[-1]
    assert main(["backup", "--data", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("companion backup:") and "newer companion" in err[0]


@pytest.mark.parametrize("option, value, expected", [("--port", "99999", "a whole number from 1 to 65535"),
                                                      ("--port", "-5", "a whole number from 1 to 65535"),
                                                      ("--port", "http", "a whole number from 1 to 65535"),
                                                      ("--port", "0", "a whole number from 1 to 65535"),
                                                      ("--threads", "0", "a whole number from 4 to 256")])
def test_serve_refuses_numbers_out_of_range_as_the_config_file_does(option: str, value: str, expected: str,
                                                                     capsys: pytest.CaptureFixture) -> None:
    """--threads 0 logged "serving the kiosk" and then crashed; --port 99999 crashed and aborted (a traceback)."""
    with pytest.raises(SystemExit) as stop:
        main(["serve", option, value])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and err[-1] == f"companion serve: error: argument {option}: '{value}' is not valid; " \
                                              f"use {expected}"


def test_backup_of_a_damaged_log_or_keeping_none_says_so_in_one_line(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "companion.sqlite3").write_text("not a database at all, " * 100)
    assert main(["backup", "--data", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"companion backup: cannot copy the session log in {tmp_path}: file "
                                               "is not a database")
    with pytest.raises(SystemExit):
        main(["backup", "--data", str(tmp_path), "--keep", "0"])
    assert "use a whole number of 1 or more" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::gpiozero.exc.PinFactoryFallback")  # gpiozero tries every pin library
def test_gates_takes_the_pins_wiring_and_port_of_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The service set up with other pins, wiring or port in its config file: `companion gates` opened the default
    pins (GPIO17 ...) and looked for the service on 8080. It reads the same file; an option given still wins."""
    config = tmp_path / "companion.toml"
    config.write_text('[server]\nport = 1\n\n[gates]\npins = [5, 6, 16, 26, 22, 27]\nwiring = "active-high"\n')
    monkeypatch.setenv("COMPANION_CONFIG", str(config))
    asked: list[int] = []
    import hardware.gates_cli as gates_cli

    monkeypatch.setattr(gates_cli, "service_gates", lambda port, host=None: asked.append(port))  # none answers
    assert main(["gates", "--once"]) == 2  # no GPIO here: the pins it tried are named
    assert asked == [1] and "GPIO5" in capsys.readouterr().err
    assert main(["gates", "--simulate", "--once"]) == 0
    table = capsys.readouterr().out
    assert "GPIO5 (29)" in table and "GPIO27 (13)" in table and "GPIO17" not in table
    assert main(["gates", "--simulate", "--once", "--pins", "17,27,22,23,24,25"]) == 0
    assert "GPIO17 (11)" in capsys.readouterr().out  # the command line wins over the file
    config.write_text("[gates]\npins = [5]\n")
    assert main(["gates", "--once"]) == 2
    assert capsys.readouterr().err.startswith(f"companion gates: error: {config}: gates.pins")


@pytest.mark.parametrize("command", ["serve", "gates", "doctor"])
def test_two_wirings_at_once_are_refused(command: str, capsys: pytest.CaptureFixture) -> None:
    """--active-high with --external-pull-up was taken silently as active-high."""
    with pytest.raises(SystemExit) as stop:
        main([command, "--active-high", "--external-pull-up"])
    assert stop.value.code == 2 and "not allowed with argument --active-high" in capsys.readouterr().err

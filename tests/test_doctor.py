"""`companion doctor` against mock pins and a file camera, `companion gates` through a running service, the
parts /api/health reports, the systemd notify messages, and picamera2's numpy mismatch reported with a fix."""
from __future__ import annotations

import argparse
import io
import json
import socket
import subprocess
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np
import pytest
from flask import Flask
from gpiozero.pins.mock import MockFactory

from hardware import gates_cli
from hardware.camera.sources import CameraError, Picamera2Source
from hardware.gates import DEFAULT_PINS
from tests.servers import free_port
from tests.waiting import wait_for
from web import doctor, notify
from web.app import create_app, shutdown
from web.health import health_report


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    doctor.add_arguments(parser)
    return parser.parse_args(list(argv))


def _systemctl(state: str):
    def runner(command):
        assert command[:2] == ["systemctl", "is-active"]
        return subprocess.CompletedProcess(command, 0 if state == "active" else 3, stdout=state + "\n")
    return runner


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "castle.png"
    cv2.imwrite(str(path), np.full((48, 64, 3), 90, np.uint8))
    return path


def _by_name(report: list[doctor.Check]) -> dict[str, doctor.Check]:
    return {check.name: check for check in report}


def test_doctor_reads_mock_pins_and_one_frame_of_a_file_camera(tmp_path: Path, photo: Path) -> None:
    factory = MockFactory()
    try:
        for pin in DEFAULT_PINS:  # external pull-ups hold the lines high; gate 3's beam is broken (low)
            factory.pin(pin).drive_high()
        factory.pin(DEFAULT_PINS[2]).drive_low()
        args = _args("--data", str(tmp_path / "data"), "--port", str(free_port()), "--camera", f"file:{photo}",
                     "--external-pull-up")
        unit = tmp_path / "etc/systemd/system/companion.service"  # installed (systemd/install.sh), and failed
        unit.parent.mkdir(parents=True)
        unit.write_text("[Unit]\n")
        report = _by_name(doctor.checks(args, pin_factory=factory, runner=_systemctl("failed"), root=tmp_path,
                                        on_pi=False))
    finally:
        factory.close()
    assert report["python"].ok and report["numpy"].ok and report["data"].ok
    gates = report["gates"]
    assert gates.ok is False and "MockFactory" in gates.detail
    assert "3: GPIO22 (pin 15) BROKEN" in gates.detail and "1: GPIO17 (pin 11) clear" in gates.detail
    assert "align the emitter" in gates.fix
    assert report["camera"].ok and "one test frame 64x48" in report["camera"].detail
    assert report["calibration"].ok is None and "not running" in report["calibration"].detail
    assert report["port"].ok is False and "sudo systemctl start companion" in report["port"].fix
    assert report["service"].ok is False and "failed" in report["service"].detail
    assert "sudo systemctl restart companion" in report["service"].fix
    assert report["kiosk"].ok is False and report["kiosk"].fix == "sudo ./systemd/install.sh"
    unit.unlink()  # never installed: a restart would not help, the install does
    service = _by_name(doctor.checks(args, runner=_systemctl("inactive"), root=tmp_path, on_pi=False))["service"]
    assert (service.ok, service.detail, service.fix) == (False, "companion.service is not installed",
                                                         "sudo ./systemd/install.sh")


def test_doctor_off_a_pi_says_why_there_is_no_camera_to_test_and_no_pin_library_warnings(tmp_path: Path) -> None:
    """Off a Pi with no camera set, the camera check says so (not "camera off", which nobody chose); gpiozero's
    warnings as it falls back from pin library to pin library stay out of the report, which says itself that none
    opened the pins."""
    args = _args("--data", str(tmp_path / "data"), "--port", str(free_port()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = _by_name(doctor.checks(args, runner=_systemctl("inactive"), root=tmp_path, on_pi=False))
    assert report["camera"] == doctor.Check("camera", None, "not a Pi, and no `[camera] source` set: no camera to "
                                                            "test")
    assert report["gates"].ok is False and "cannot open the pins" in report["gates"].detail
    assert [str(w.message) for w in caught if "Falling back" in str(w.message)] == []


def test_doctor_prints_each_failure_with_its_fix_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = tmp_path / "companion.toml"
    config.write_text("[gates]\npins = [1, 2]\n")
    out = io.StringIO()
    assert doctor.run(_args("--quick", "--config", str(config), "--data", str(tmp_path)), out=out) == 1
    text = out.getvalue()
    assert "FAIL  config" in text and "gates.pins = [1, 2] is not valid" in text
    assert "fix: edit the file" in text and text.rstrip().endswith("1 to fix: config")


def test_doctor_quick_passes_with_the_template_and_opens_no_device(tmp_path: Path) -> None:
    template = Path(__file__).resolve().parent.parent / "systemd" / "companion.toml"
    args = _args("--quick", "--config", str(template), "--data", str(tmp_path / "data"))
    report = doctor.checks(args, on_pi=False)
    assert [c.name for c in report] == ["config", "python", "numpy", "data"]
    assert all(c.ok for c in report)


def test_doctor_takes_the_wiring_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text("[gates]\npins = [5, 6, 13, 19, 26, 21]\n")
    factory = MockFactory()
    try:
        args = _args("--config", str(config), "--data", str(tmp_path), "--port", str(free_port()))
        gates = _by_name(doctor.checks(args, pin_factory=factory, runner=_systemctl("active"), root=tmp_path,
                                       on_pi=False))["gates"]
    finally:
        factory.close()
    assert "1: GPIO5 " in gates.detail and "6: GPIO21 " in gates.detail


def test_doctor_finds_screen_blanking_in_labwc_and_wayfire(tmp_path: Path) -> None:
    autostart = tmp_path / "home/kim/.config/labwc/autostart"
    autostart.parent.mkdir(parents=True)
    autostart.write_text("# swayidle -w timeout 60\nswayidle -w timeout 600 'wlopm --off \\*' &\n")
    check = doctor._blanking(tmp_path)
    assert check.ok is False and "/home/kim/.config/labwc/autostart" in check.detail
    assert "do_blanking 1" in check.fix
    autostart.write_text("# swayidle -w timeout 600\n")
    assert doctor._blanking(tmp_path).ok
    wayfire = tmp_path / "home/kim/.config/wayfire.ini"
    wayfire.write_text("[idle]\ndpms_timeout = 600\n")
    assert doctor._blanking(tmp_path).ok is False
    wayfire.write_text("[idle]\ndpms_timeout = -1\nscreensaver_timeout = 0\n")
    assert doctor._blanking(tmp_path).ok


def test_doctor_screen_checks_blanking_alone_with_a_fix_that_needs_no_running_desktop(tmp_path: Path) -> None:
    autostart = tmp_path / "home/kim/.config/labwc/autostart"
    autostart.parent.mkdir(parents=True)
    autostart.write_text("swayidle -w timeout 600 'wlopm --off \\*' &\n")
    out = io.StringIO()
    assert doctor.run(_args("--screen"), out=out, root=tmp_path) == 1
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("FAIL  screen") and len([line for line in lines if line.startswith("FAIL")]) == 1
    assert "delete the swayidle line from /home/kim/.config/labwc/autostart" in out.getvalue()
    wayfire = tmp_path / "home/kim/.config/wayfire.ini"
    autostart.write_text("")
    wayfire.write_text("[idle]\nscreensaver_timeout = 300\n")
    out = io.StringIO()
    assert doctor.run(_args("--screen"), out=out, root=tmp_path) == 1
    assert "set screensaver_timeout = -1 in /home/kim/.config/wayfire.ini" in out.getvalue()
    wayfire.write_text("[idle]\nscreensaver_timeout = -1\n")
    out = io.StringIO()
    assert doctor.run(_args("--screen"), out=out, root=tmp_path) == 0
    assert out.getvalue().startswith("ok    screen") and out.getvalue().rstrip().endswith("all good")


# --- a running service, seen over its API --------------------------------------------------------------------

class _Health(BaseHTTPRequestHandler):
    body: dict[str, Any] = {}
    status = 200

    def do_GET(self) -> None:  # noqa: N802
        data = json.dumps(self.body).encode()
        self.send_response(self.status if self.path == "/api/health" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def service(app: Flask) -> Iterator[tuple[int, type[_Health]]]:
    """A stand-in for the running companion on 127.0.0.1 answering /api/health with gates from mock pins."""
    sensors = {"gates": {"ok": True, "gates": [
        {"gate": g, "pin": p, "blocked": g == 2, "stuck": False, "flaky": False, "last_width_ms": 12.5,
         "marbles": g, "glitches": 0, "long_pulses": 0} for g, p in enumerate(DEFAULT_PINS, 1)]},
        "camera": {"ok": False, "error": "no Pi camera found"},
        "last_marble": {"gate": 4, "width_ms": 11.0, "at": 1.7e9, "scored": False, "session": None, "note": ""}}
    handler = type("Health", (_Health,), {"body": {"ok": True, "mode": "hardware", "sensors": sensors}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # shutdown() waits for the serving loop to look at its flag again: every 20 ms, not the default 0.5 s
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server.server_address[1], handler
    server.shutdown()
    server.server_close()


def test_gates_while_the_service_runs_shows_its_gates(service: tuple[int, type[_Health]],
                                                      capsys: pytest.CaptureFixture) -> None:
    port, _ = service
    parser = argparse.ArgumentParser()
    gates_cli.add_arguments(parser)
    out = io.StringIO()
    assert gates_cli.run(parser.parse_args(["--once", "--port", str(port)]), out=out) == 0
    text = out.getvalue()
    assert f"the companion service on port {port}" in text
    rows = [line for line in text.splitlines() if "GPIO" in line]
    assert len(rows) == 6 and "BROKEN" in rows[1] and "clear" in rows[0]
    assert "gate 4  11.0 ms" in text  # the service's last marble


def test_gates_when_the_service_has_no_gates_says_why(service: tuple[int, type[_Health]],
                                                      capsys: pytest.CaptureFixture) -> None:
    port, handler = service
    handler.body = {"ok": False, "sensors": {"gates": {"ok": False, "error": "GPIO busy", "gates": []},
                                             "camera": {"ok": False}, "last_marble": None}}
    parser = argparse.ArgumentParser()
    gates_cli.add_arguments(parser)
    assert gates_cli.run(parser.parse_args(["--once", "--port", str(port)]), out=io.StringIO()) == 2
    assert "runs without gates: GPIO busy" in capsys.readouterr().err


def test_doctor_reads_gates_and_camera_through_the_running_service(service: tuple[int, type[_Health]],
                                                                   tmp_path: Path) -> None:
    port, _ = service
    report = _by_name(doctor.checks(_args("--data", str(tmp_path), "--port", str(port)),
                                    runner=_systemctl("active"), root=tmp_path, on_pi=False))
    assert report["gates"].ok and "read through the running service" in report["gates"].detail
    assert "2: GPIO27 (pin 13) BROKEN" in report["gates"].detail
    assert report["camera"].ok is False and "no Pi camera found" in report["camera"].detail
    assert report["port"].ok and report["service"].ok


def test_doctor_and_gates_say_when_the_service_answers_but_its_table_does_not(
        service: tuple[int, type[_Health]], tmp_path: Path) -> None:
    port, handler = service
    message = "the table has not answered for 3 s: a change is stuck holding it; the companion must be restarted"
    handler.status = 503
    handler.body = {**handler.body, "ok": False, "failing": ["table"],
                    "error": {"code": "table_not_answering", "message": message}}
    report = _by_name(doctor.checks(_args("--data", str(tmp_path), "--port", str(port)),
                                    runner=_systemctl("active"), root=tmp_path, on_pi=False))
    assert report["port"].ok is False and f"answers, but its table does not: {message}" in report["port"].detail
    assert "sudo systemctl restart companion" in report["port"].fix
    assert "read through the running service" in report["gates"].detail  # not mistaken for a stopped service
    assert gates_cli.service_gates(port) == handler.body["sensors"]


def test_doctor_reads_the_camera_calibration_through_the_running_service(service: tuple[int, type[_Health]],
                                                                         app_config: dict[str, Any]) -> None:
    port, handler = service
    simulated = create_app({**app_config, "SENSORS": "simulation", "CAMERA": "simulation"})
    try:  # the health of a real service: the simulated castle's gates and marble size, and its first reference
        sensors = simulated.extensions["sensors"]
        wait_for(lambda: sensors.camera.reference.get() is not None)
        handler.body = health_report(simulated)
    finally:
        shutdown(simulated)

    def calibration() -> doctor.Check:
        return _by_name(doctor.checks(_args("--port", str(port), "--data", app_config["DATA_DIR"]),
                                      runner=_systemctl("active"), root=Path(app_config["DATA_DIR"]), on_pi=False)
                        )["calibration"]

    check = calibration()
    assert check.ok is True, check
    radius = handler.body["sensors"]["camera"]["marble"]["radius_px"]
    assert check.detail.startswith(f"the simulated castle's gates, marble radius {radius:.1f} px "
                                   "(the simulated castle's)")
    assert check.detail.endswith("; empty reference taken a moment ago")
    camera = handler.body["sensors"]["camera"]
    camera["reference"] = {**camera["reference"], "captured": False, "age": None}
    check = calibration()
    assert check.ok is None and "every count is unsure" in check.detail and "take reference" in check.fix
    edge = "Gate 6 reaches the edge of the picture: a marble the edge cuts is not counted and waits for a tap."
    camera["edge"] = edge
    check = calibration()  # both notes: the edge does not hide the missing reference
    assert check.ok is None and check.detail.endswith(f"every count is unsure. {edge}"), check
    assert "take reference" in check.fix
    camera["reference"] = {**camera["reference"], "captured": True, "age": 0.0}
    check = calibration()
    assert check.ok is None and check.detail.endswith(f"; empty reference taken a moment ago. {edge}"), check
    assert check.fix == ""
    focus = "The picture is out of focus: the markers' edges are blurred by 2.6 px against a marble radius of 15.4 px."
    camera.update(edge=None, focus=focus, markers={"ok": True, "blur_px": 2.6})
    check = calibration()  # the blur as measured, and the page's warning with it
    assert check.ok is None and check.detail.endswith(f"; the markers' edges blurred by 2.6 px. {focus}"), check
    camera.update(focus=None, markers={"ok": True, "blur_px": 0.5})
    check = calibration()
    assert check.ok is True and check.detail.endswith("; the markers' edges blurred by 0.5 px"), check
    held = "The empty reference shows a marble no longer there: it was taken with marbles in the gates. ..."
    camera.update(unsure=held)  # the Camera page's note: gates in doubt whatever the marbles do
    check = calibration()
    assert check.ok is None and check.detail.endswith(f"; the markers' edges blurred by 0.5 px. {held}"), check
    camera.update(unsure=None)
    camera.update(calibrated=False, calibration="none", marble={"radius_px": None, "source": "guess"})
    check = calibration()
    assert check.ok is False and "the gates are not calibrated" in check.detail
    assert "the marble's size is not measured" in check.detail and "Tap one resting marble" in check.fix
    handler.body["sensors"]["camera"] = {"ok": False, "error": "the camera is off"}  # a service without a camera
    assert calibration().ok is None and "without a camera" in calibration().detail


# --- /api/health's parts ----------------------------------------------------------------------------------------

def test_health_reports_parts_switched_off_as_off_not_failing(app: Flask) -> None:
    report = health_report(app)
    assert report["ok"] is True and report["failing"] == []
    assert report["parts"]["database"] == {"state": "ok"} and report["parts"]["gates"] == {"state": "off"}


def test_health_names_the_failing_parts(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "SENSORS": "simulation",
                      "CAMERA": f"file:{tmp_path / 'absent.png'}"})
    try:
        report = wait_for(lambda: (r := health_report(app))["parts"]["camera"]["state"] == "failing" and r)
        assert report["ok"] is False and report["failing"] == ["camera"]
        assert report["parts"]["gates"] == {"state": "ok"}
    finally:
        shutdown(app)
    report = health_report(app)  # the log is closed now
    assert "database" in report["failing"] and "does not answer" in report["parts"]["database"]["error"]


# --- systemd notify ---------------------------------------------------------------------------------------------

def test_notify_sends_ready_then_watchdog_pings_while_the_server_answers(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    listener.settimeout(30)
    answers = iter([False, True, True, False, True])
    stop = threading.Event()
    env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "200000"}
    try:
        thread = notify.start("0.0.0.0", 8080, environ=env, probe=lambda url: next(answers, True), stop=stop)
        assert thread is not None
        messages = [listener.recv(64).decode() for _ in range(4)]
    finally:
        stop.set()
        listener.close()
    assert messages[:2] == ["READY=1", "STATUS=serving on port 8080"]
    assert messages[2:] == ["WATCHDOG=1", "WATCHDOG=1"]


def test_notify_does_nothing_off_systemd() -> None:
    assert notify.start("0.0.0.0", 8080, environ={}) is None
    assert notify.send("READY=1", environ={}) is False
    assert notify.health_url("::", 8080) == "http://[::1]:8080/api/health"
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0


# --- picamera2 next to a numpy it was not built for ------------------------------------------------------------

def test_picamera2_numpy_mismatch_is_reported_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real = importlib.import_module

    def fake_import(name: str, *args: Any):
        if name == "picamera2":
            raise ValueError("numpy.dtype size changed, may indicate binary incompatibility. "
                             "Expected 96 from C header, got 88 from PyObject")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake_import)
    with pytest.raises(CameraError) as err:
        Picamera2Source().open()
    assert "hides the numpy apt's picamera2 was built for" in str(err.value)
    assert "numpy<2" in str(err.value)

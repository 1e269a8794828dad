"""The gates' wiring (internal pull-up, external pull-up, active high) of the running service: /api/health reports
it beside the pins, and `companion doctor` says when the config file names another wiring than the service runs
with (the file was edited and the service not restarted), as it does for the pins."""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Iterator

import pytest
from flask import Flask

from tests.servers import call, serving
from tests.test_setup_messages import (  # noqa: F401  (no_config_from_the_environment: a fixture)
    CONFIG_PINS,
    DEFAULT_PINS,
    _config,
    _doctor,
    no_config_from_the_environment,
)
from web.cli import main
from web.health import health_report

#: GATES settings of the app (GateConfig's fields) for each wiring the config file names.
WIRED = {"internal-pull-up": {}, "external-pull-up": {"pull_up": None, "active_state": False},
         "active-high": {"pull_up": None, "active_state": True}}


@pytest.fixture
def serve(make_app: Callable[..., Flask]) -> Iterator[Callable[[str], int]]:
    """Starts a companion on 127.0.0.1 whose simulated gates are wired as named, and gives its port."""
    with contextlib.ExitStack() as servers:
        yield lambda wiring: int(servers.enter_context(serving(make_app(CAMERA="simulation", GATES=WIRED[wiring])))
                                 .rsplit(":", 1)[1])


def test_health_reports_the_wiring_the_gates_run_with(make_app: Callable[..., Flask], app: Flask) -> None:
    for wiring, gates in WIRED.items():
        running = make_app(CAMERA="off", GATES=gates)
        status = health_report(running)["sensors"]["gates"]
        assert status["wiring"] == wiring
        assert [g["pin"] for g in status["gates"]] == [int(p) for p in DEFAULT_PINS.split(",")]
    with serving(running) as base:  # over HTTP as the doctor reads it
        code, body = call(f"{base}/api/health")
    assert code == 200 and body["sensors"]["gates"]["wiring"] == "active-high"
    assert "wiring" not in health_report(app)["sensors"]["gates"]  # sensors off: no gates run, no wiring to report


def test_doctor_says_the_service_runs_with_another_wiring_than_the_config_file_names(
        serve: Callable[[str], int], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The file was edited to wiring = "active-high" and the service not restarted: the doctor said `ok gates`."""
    port = serve("internal-pull-up")
    config = _config(tmp_path, f'[server]\nport = {port}\n\n[gates]\nwiring = "active-high"\n')
    code, lines = _doctor(capsys, tmp_path, "--config", config)
    assert code == 1 and lines["gates"].startswith("FAIL")
    assert "the config file says wiring active-high; the service runs with internal-pull-up: restart it; read " \
           "through the running service" in lines["gates"]
    assert "fix: sudo systemctl restart companion" in lines["gates"]

    config = _config(tmp_path, f"[server]\nport = {port}\n\n[gates]\npins = [{CONFIG_PINS.replace(',', ', ')}]\n"
                               'wiring = "external-pull-up"\n')
    code, lines = _doctor(capsys, tmp_path, "--config", config)  # pins and wiring both changed: both said at once
    assert code == 1 and lines["gates"].startswith("FAIL")
    assert f"the config file says pins {CONFIG_PINS} and wiring external-pull-up; the service runs with " \
           f"{DEFAULT_PINS} and internal-pull-up: restart it" in lines["gates"]

    port = serve("active-high")  # started with --active-high, the file saying nothing of the wiring
    config = _config(tmp_path, f"[server]\nport = {port}\n")
    code, lines = _doctor(capsys, tmp_path, "--config", config)
    assert code == 1 and "the config file leaves wiring at the default internal-pull-up; the service runs with " \
                         "active-high: restart it" in lines["gates"]


def test_doctor_is_content_when_the_service_runs_with_the_wiring_named(
        serve: Callable[[str], int], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The wiring the service runs with is ok whether the config file or an option names it; an option naming
    another is noted as applying only while the service is stopped."""
    port = serve("active-high")
    config = _config(tmp_path, f'[server]\nport = {port}\n\n[gates]\nwiring = "active-high"\n')
    _, lines = _doctor(capsys, tmp_path, "--config", config)
    assert lines["gates"].startswith("ok    gates       read through the running service: 1: GPIO17"), lines["gates"]
    _, lines = _doctor(capsys, tmp_path, "--port", str(port), "--active-high")
    assert lines["gates"].startswith("ok    gates       read through the running service: 1: GPIO17"), lines["gates"]
    _, lines = _doctor(capsys, tmp_path, "--port", str(port), "--external-pull-up")
    assert lines["gates"].startswith("note  gates       --external-pull-up: not what the running service uses "
                                     "(options apply only while it is stopped); read through the running service")
    assert "fix: to test them: sudo systemctl stop companion" in lines["gates"]


def test_gates_says_the_service_runs_with_another_wiring_than_the_config_file_names(
        serve: Callable[[str], int], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`companion gates` while the service runs compared the config file's pins only: a wiring edited and not
    restarted was shown without a word."""
    port = serve("internal-pull-up")
    config = _config(tmp_path, f'[server]\nport = {port}\n\n[gates]\nwiring = "active-high"\n')
    assert main(["gates", "--once", "--config", config]) == 0
    assert capsys.readouterr().err.strip().splitlines() == [
        "companion gates: the config file says wiring active-high; the service runs with internal-pull-up: restart it "
        "(sudo systemctl restart companion)"]
    config = _config(tmp_path, f"[server]\nport = {port}\n\n[gates]\npins = [{CONFIG_PINS.replace(',', ', ')}]\n"
                               'wiring = "internal-pull-up"\n')
    assert main(["gates", "--once", "--config", config]) == 0  # the wiring the service runs with: only the pins said
    assert capsys.readouterr().err.strip().splitlines() == [
        f"companion gates: the config file says pins {CONFIG_PINS}; the service runs with {DEFAULT_PINS}: restart it "
        "(sudo systemctl restart companion)"]

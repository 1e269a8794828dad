"""The units in systemd/: `systemd-analyze verify` finds nothing wrong, and `systemd-analyze security` rates the
server and the backup at most 4.0 while the server still reaches the GPIO chips and the camera."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SYSTEMD = ROOT / "systemd"
SYSTEM_UNITS = ["companion.service", "companion-backup.service", "companion-backup.timer"]
USER_UNITS = ["companion-kiosk.service"]
MAX_EXPOSURE = 4.0

REQUIRED = bool(os.environ.get("COMPANION_REQUIRE_PI_TOOLS"))  # .ci/run: fail, never skip, without the tool
pytestmark = pytest.mark.skipif(shutil.which("systemd-analyze") is None and not REQUIRED,
                                reason="systemd-analyze is not installed")


def _analyze(*args: str, user: bool = False, runtime: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if user and runtime is not None:
        env["XDG_RUNTIME_DIR"] = str(runtime)
    return subprocess.run(["systemd-analyze", *(["--user"] if user else []), *args], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.fixture
def units(tmp_path: Path) -> Path:
    """The units with their /opt/dragon-table programs replaced by an existing one (verify checks they exist)."""
    out = tmp_path / "units"
    out.mkdir()
    for name in SYSTEM_UNITS + USER_UNITS:
        text = (SYSTEMD / name).read_text()
        (out / name).write_text(re.sub(r"/opt/dragon-table/current/\S+", "/bin/true", text))
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    return out


def exposure(output: str, unit: str) -> float:
    match = re.search(rf"Overall exposure level for {re.escape(unit)}: (\d+\.\d+)", output)
    assert match, output[-500:]
    return float(match.group(1))


def test_system_units_verify_clean(units: Path) -> None:
    result = _analyze("verify", *(str(units / name) for name in SYSTEM_UNITS))
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_the_kiosk_user_unit_verifies_clean(units: Path, tmp_path: Path) -> None:
    result = _analyze("verify", str(units / USER_UNITS[0]), user=True, runtime=tmp_path / "runtime")
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


@pytest.mark.parametrize("unit", ["companion.service", "companion-backup.service"])
def test_security_exposure_is_at_most_4(units: Path, unit: str) -> None:
    result = _analyze("security", "--offline=true", "--no-pager", str(units / unit))
    assert exposure(result.stdout, unit) <= MAX_EXPOSURE, result.stdout


def test_the_server_still_reaches_gpio_camera_and_its_data() -> None:
    text = (SYSTEMD / "companion.service").read_text()
    for device in ("char-gpiochip", "char-video4linux", "char-media", "char-dma_heap"):
        assert f"DeviceAllow={device} rw" in text
    assert "PrivateDevices=yes" not in text  # it would hide /dev/gpiochip* and /dev/video*
    assert re.search(r"^ReadWritePaths=/var/lib/dragon-table /run/dragon-table$", text, re.M)
    assert "Environment=LG_WD=/run/dragon-table" in text and "RuntimeDirectory=dragon-table" in text
    assert "ProcSubset=pid" not in text  # /proc/device-tree/model tells a Pi from a laptop


def test_a_setting_error_is_not_restarted_and_no_unit_names_the_pi_user() -> None:
    from web.cli import BAD_SETTINGS, LISTEN_FAILED

    server = (SYSTEMD / "companion.service").read_text()
    prevent = {int(status) for line in re.findall(r"^RestartPreventExitStatus=(.*)$", server, re.M)
               for status in line.split()}
    assert "Restart=on-failure" in server and prevent == {BAD_SETTINGS}
    assert LISTEN_FAILED not in prevent  # an address not there yet at boot: tried again
    assert "Type=notify" in server and "WatchdogSec=" in server
    for path in SYSTEMD.iterdir():
        if path.is_file():
            assert not re.search(r"User=pi\b|/home/pi\b", path.read_text()), path.name


def test_the_kiosk_waits_inside_the_session_not_for_a_fixed_socket() -> None:
    kiosk = (SYSTEMD / "companion-kiosk.service").read_text()
    assert "After=graphical-session.target" in kiosk and "Restart=always" in kiosk
    assert "WAYLAND_DISPLAY" not in re.sub(r"^#.*$", "", kiosk, flags=re.M)  # the session provides it
    assert "Exec=/opt/dragon-table/current/bin/companion-kiosk --session" in \
        (SYSTEMD / "dragon-table-kiosk.desktop").read_text()

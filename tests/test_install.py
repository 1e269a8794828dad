"""systemd/install.sh: shellcheck clean, and its steps run in a temporary root with apt, systemctl, python and
the user tools replaced by fakes that log their calls: the file layout, a second run, a failed update that
keeps the running release, and an uninstall that keeps the data."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "systemd" / "install.sh"
KIOSK = ROOT / "systemd" / "kiosk.sh"
IN_CI = bool(os.environ.get("COMPANION_REQUIRE_PI_TOOLS"))

FAKES = {
    # a command that only logs
    "apt": 'echo "apt $*" >> "$FAKE_LOG"',
    # systemctl: the backup service copies the log; with FAKE_RESTART_FAILS the newest release upgrades the log's
    # schema (a log and its WAL) and does not start, the ones before it start; with FAKE_RELOAD_FAILS systemd
    # cannot reload while current points at the newest release
    "systemctl": 'echo "systemctl $*" >> "$FAKE_LOG"\ndata="$ROOT/var/lib/dragon-table"\n'
                 'case "$1 ${2:-}" in\n'
                 '  "start companion-backup.service")\n'
                 '    [ -z "${FAKE_BACKUP_FAILS:-}" ] || exit 1\n'
                 '    mkdir -p "$data/backups"\n'
                 '    cp "$data/companion.sqlite3" "$data/backups/companion-$(date +%Y%m%d-%H%M%S).sqlite3" ;;\n'
                 '  "daemon-reload ")\n'
                 '    newest="releases/$(ls "$ROOT/opt/dragon-table/releases" | sort | tail -n 1)"\n'
                 '    [ -z "${FAKE_RELOAD_FAILS:-}" ] || [ "$(readlink "$ROOT/opt/dragon-table/current")" != '
                 '"$newest" ] || exit 1 ;;\n'
                 '  "restart companion.service")\n'
                 '    newest="releases/$(ls "$ROOT/opt/dragon-table/releases" | sort | tail -n 1)"\n'
                 '    if [ -n "${FAKE_RESTART_FAILS:-}" ] && [ "$(readlink "$ROOT/opt/dragon-table/current")" = '
                 '"$newest" ]; then\n'
                 '      if [ -e "$data/companion.sqlite3" ]; then echo "schema 4" > "$data/companion.sqlite3"; '
                 'echo "schema 4 wal" > "$data/companion.sqlite3-wal"; fi\n'
                 '      exit 1\n'
                 '    fi ;;\n'
                 'esac\nexit 0',
    "usermod": 'echo "usermod $*" >> "$FAKE_LOG"',
    "chown": 'echo "chown $*" >> "$FAKE_LOG"',
    "raspi-config": 'echo "raspi-config $*" >> "$FAKE_LOG"',
    # the user database, kept in a state folder
    "getent": 'case "$1" in\n  passwd) [ -e "$FAKE_STATE/user-$2" ] ;;\n'
              '  group) [ "$2" = video ] || [ "$2" = gpio ] ;;\n  *) exit 2 ;;\nesac',
    "useradd": 'echo "useradd $*" >> "$FAKE_LOG"\ntouch "$FAKE_STATE/user-${!#}"',
    "userdel": 'echo "userdel $*" >> "$FAKE_LOG"\nrm -f "$FAKE_STATE/user-$1"',
    # python -m venv DIR: a venv with the two programs below
    "python": 'echo "python $*" >> "$FAKE_LOG"\ndir="${!#}"\nmkdir -p "$dir/bin"\n'
              'cp "$(dirname "$0")/venv-python" "$dir/bin/python"\ncp "$(dirname "$0")/venv-companion" '
              '"$dir/bin/companion"',
    # the venv's pip, as setuptools builds: into SOURCE/build/lib, kept between builds, installed from there
    "venv-python": 'echo "venv-python $*" >> "$FAKE_LOG"\n[ "$1 $2 $3" = "-m pip install" ] || exit 0\n'
                   'src="${!#}"\nsite="$(dirname "$0")/../lib/site-packages"\n'
                   'mkdir -p "$src/build/lib" "$src/dragon_table_companion.egg-info" "$site"\n'
                   'cp -r "$src/companion" "$src/build/lib/"\ncp -r "$src/build/lib/." "$site/"',
    # the venv's companion: answers the smoke test, and the screen check with FAKE_SCREEN's report
    "venv-companion": 'echo "companion $*" >> "$FAKE_LOG"\n'
                      'if [ "$*" = "doctor --screen" ]; then printf "%b" "${FAKE_SCREEN:-ok    screen\\n}"; '
                      '[ -z "${FAKE_SCREEN:-}" ]; exit; fi\nexit "${FAKE_DOCTOR_RC:-0}"',
}


@pytest.fixture
def system(tmp_path: Path) -> dict[str, str]:
    """Environment for install.sh: a temporary root, fakes for every outside command, a Pi model file."""
    fakes = tmp_path / "fakes"
    fakes.mkdir()
    for name, body in FAKES.items():
        fake = fakes / name
        fake.write_text("#!/usr/bin/env bash\n" + body + "\n")
        fake.chmod(0o755)
    (tmp_path / "root").mkdir()
    (tmp_path / "state").mkdir()
    model = tmp_path / "model"
    model.write_text("Raspberry Pi 5 Model B Rev 1.0\0")
    (tmp_path / "tmp").mkdir()
    source(tmp_path / "src")
    env = {**os.environ, "ROOT": str(tmp_path / "root"), "FAKE_LOG": str(tmp_path / "calls.log"),
           "FAKE_STATE": str(tmp_path / "state"), "MODEL_FILE": str(model), "TMPDIR": str(tmp_path / "tmp"),
           "FAKE_SRC": str(tmp_path / "src")}
    for var, name in {"APT": "apt", "SYSTEMCTL": "systemctl", "PYTHON": "python", "USERADD": "useradd",
                      "USERDEL": "userdel", "USERMOD": "usermod", "GETENT": "getent", "CHOWN": "chown",
                      "RASPI_CONFIG": "raspi-config"}.items():
        env[var] = str(fakes / name)
    return env


def source(src: Path) -> Path:
    """A copy of the working tree's files the install reads (not a git clone: the release is built from it as
    it is), with the one package the fake pip installs."""
    shutil.copytree(ROOT / "systemd", src / "systemd")
    for name in ("README.md", "pyproject.toml", ".gitignore"):
        shutil.copy(ROOT / name, src / name)
    (src / "companion").mkdir()
    (src / "companion/__init__.py").write_text("")
    return src


def run(env: dict[str, str], *args: str, script: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    """install.sh of the fixture's source copy (or `script`) with these arguments, the call log emptied first."""
    log = Path(env["FAKE_LOG"])
    log.unlink(missing_ok=True)
    script = script or Path(env["FAKE_SRC"]) / "systemd/install.sh"
    return subprocess.run(["bash", str(script), *args], env={**env, **extra}, capture_output=True, text=True,
                          timeout=120)


def calls(env: dict[str, str]) -> list[str]:
    log = Path(env["FAKE_LOG"])
    return log.read_text().splitlines() if log.exists() else []


def releases(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "opt/dragon-table/releases").iterdir())


@pytest.mark.parametrize("script", [SCRIPT, KIOSK], ids=lambda p: p.name)
def test_shellcheck_clean(script: Path) -> None:
    if shutil.which("shellcheck") is None:
        if IN_CI:
            pytest.fail("shellcheck is missing in CI (.ci/run installs it)")
        pytest.skip("shellcheck is not installed")
    result = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_install_lays_out_the_release_config_data_units_and_starts_them(system: dict[str, str]) -> None:
    result = run(system)
    assert result.returncode == 0, result.stderr
    root = Path(system["ROOT"])
    current = root / "opt/dragon-table/current"
    assert current.is_symlink() and os.readlink(current).startswith("releases/")
    assert (current / "bin/companion-kiosk").stat().st_mode & 0o111
    assert os.readlink(root / "usr/local/bin/companion") == "/opt/dragon-table/current/venv/bin/companion"
    assert (root / "etc/dragon-table/companion.toml").read_text() == (ROOT / "systemd/companion.toml").read_text()
    assert (root / "var/lib/dragon-table").is_dir()
    for unit in ("companion.service", "companion-backup.service", "companion-backup.timer"):
        assert (root / "etc/systemd/system" / unit).read_bytes() == (ROOT / "systemd" / unit).read_bytes()
    assert (root / "etc/systemd/user/companion-kiosk.service").exists()
    assert (root / "etc/xdg/autostart/dragon-table-kiosk.desktop").exists()
    log = calls(system)
    assert "apt update -qq" in log
    apt_install = next(c for c in log if c.startswith("apt install"))
    assert {"python3-picamera2", "python3-lgpio", "python3-venv", "fonts-noto-color-emoji"} <= set(apt_install.split())
    assert any(c.startswith("apt install") and "chromium" in c.split() for c in log)
    assert all("--no-upgrade" in c.split() for c in log if c.startswith("apt install"))  # installs, never upgrades
    assert any(c.startswith("useradd --system") and c.endswith(" companion") for c in log)
    assert "usermod -a -G gpio companion" in log and "usermod -a -G video companion" in log
    assert any(c.startswith("python -m venv --system-site-packages") for c in log)
    pip = next(c for c in log if c.startswith("venv-python -m pip install"))
    stage = pip.split()[-1]  # built from a copy of the source, removed afterwards
    assert stage.startswith(system["TMPDIR"]) and f"-c {stage}/systemd/pi-constraints.txt" in pip  # numpy<2 on a Pi
    assert not os.listdir(system["TMPDIR"])
    smoke = log.index(next(c for c in log if c.startswith("companion doctor --quick")))
    assert smoke < log.index("systemctl restart companion.service")
    assert "systemctl enable companion.service companion-backup.timer" in log
    assert "systemctl --global enable companion-kiosk.service" in log
    assert log.index("raspi-config nonint do_blanking 1") < log.index("companion doctor --screen")
    assert "still blanks" not in result.stdout


def test_install_says_what_to_do_when_the_screen_still_blanks(system: dict[str, str]) -> None:
    report = ("FAIL  screen      the screen blanks when idle: swayidle in /home/kim/.config/labwc/autostart\\n"
              "                  fix: delete the swayidle line from /home/kim/.config/labwc/autostart\\n")
    result = run(system, FAKE_SCREEN=report)
    assert result.returncode == 0, result.stderr  # the companion runs; only the screen needs a hand
    assert "install: the screen still blanks when idle, the kiosk with it; what to do:\n  FAIL  screen" \
        in result.stdout
    assert "  fix: delete the swayidle line from /home/kim/.config/labwc/autostart" in result.stdout


def _git(src: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.org", *args], cwd=src, check=True,
                   capture_output=True)


def _snapshot(tree: Path) -> dict[str, tuple[int, int, int]]:
    return {str(p.relative_to(tree)): (p.lstat().st_size, p.lstat().st_mtime_ns, p.lstat().st_uid)
            for p in tree.rglob("*")}


@pytest.mark.parametrize("kind", ["git clone", "plain copy"])
def test_the_release_is_built_from_a_clean_copy_and_the_clone_is_left_alone(
        system: dict[str, str], tmp_path: Path, kind: str) -> None:
    src = source(tmp_path / "clone")
    if kind == "git clone":
        _git(src, "init", "-q")
        _git(src, "add", ".")
        _git(src, "commit", "-q", "-m", "source")
    # a build of an older version: a module deleted from the source since is still in build/lib
    (src / "build/lib/companion").mkdir(parents=True)
    (src / "build/lib/companion/deleted.py").write_text("")
    (src / "dragon_table_companion.egg-info").mkdir()
    before = _snapshot(src)
    result = run(system, script=src / "systemd/install.sh")
    assert result.returncode == 0, result.stderr
    site = Path(system["ROOT"]) / "opt/dragon-table/current/venv/lib/site-packages/companion"
    assert (site / "__init__.py").exists() and not (site / "deleted.py").exists()
    assert _snapshot(src) == before  # no build/, egg-info or anything else written into the clone
    assert not os.listdir(system["TMPDIR"])


def test_off_a_pi_no_pi_packages_and_no_constraints(system: dict[str, str], tmp_path: Path) -> None:
    result = run(system, MODEL_FILE=str(tmp_path / "absent"))
    assert result.returncode == 0, result.stderr
    log = calls(system)
    assert not any("python3-picamera2" in c for c in log)
    assert not any("pi-constraints" in c for c in log)


def test_a_second_run_is_harmless_and_keeps_the_settings(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    config = root / "etc/dragon-table/companion.toml"
    config.write_text('[server]\nport = 9000\n')
    (root / "var/lib/dragon-table/companion.sqlite3").write_text("the log")
    first = os.readlink(root / "opt/dragon-table/current")
    result = run(system)
    assert result.returncode == 0, result.stderr
    assert not any(c.startswith("useradd") for c in calls(system))  # the user exists already
    assert config.read_text() == '[server]\nport = 9000\n'
    assert ":9000/ (log: journalctl -u companion -f)" in result.stdout  # the port the settings give
    assert (root / "var/lib/dragon-table/companion.sqlite3").read_text() == "the log"
    assert os.readlink(root / "opt/dragon-table/current") != first
    assert len(releases(root)) == 2


def test_old_releases_are_pruned(system: dict[str, str]) -> None:
    for _ in range(3):
        assert run(system, "--keep-releases", "2").returncode == 0
    root = Path(system["ROOT"])
    names = releases(root)
    assert len(names) == 2 and os.readlink(root / "opt/dragon-table/current") == f"releases/{names[-1]}"


def test_an_update_that_fails_its_smoke_test_keeps_the_running_release(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    before = os.readlink(root / "opt/dragon-table/current")
    result = run(system, FAKE_DOCTOR_RC="1")
    assert result.returncode == 1
    assert f"failed its smoke test (above); {before} keeps running" in result.stderr
    assert os.readlink(root / "opt/dragon-table/current") == before
    assert releases(root) == [before.removeprefix("releases/")]
    assert not any(c.startswith("systemctl restart") for c in calls(system))


UNIT_FILES = ("etc/systemd/system/companion.service", "etc/systemd/system/companion-backup.service",
              "etc/systemd/system/companion-backup.timer", "etc/systemd/user/companion-kiosk.service",
              "etc/xdg/autostart/dragon-table-kiosk.desktop")


def _mark_units(root: Path) -> dict[str, str]:
    """The installed unit files, each with a line the release being installed does not have."""
    for name in UNIT_FILES:
        with (root / name).open("a") as unit:
            unit.write("# as the running release installed it\n")
    return {name: (root / name).read_text() for name in UNIT_FILES}


@pytest.mark.parametrize("failure", ["FAKE_DOCTOR_RC", "FAKE_RESTART_FAILS", "FAKE_RELOAD_FAILS"])
def test_a_failed_update_leaves_the_running_release_its_units(system: dict[str, str], failure: str) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    before = _mark_units(root)
    running = os.readlink(root / "opt/dragon-table/current")
    assert run(system, **{failure: "1"}).returncode == 1
    assert {name: (root / name).read_text() for name in UNIT_FILES} == before
    assert os.readlink(root / "opt/dragon-table/current") == running
    if failure == "FAKE_RELOAD_FAILS":  # failed after the server was stopped: the running release starts again
        assert calls(system)[-1] == "systemctl restart companion.service"
    if failure == "FAKE_RESTART_FAILS":  # the new units were in place for the new release, then put back
        log = calls(system)
        assert log.count("systemctl daemon-reload") == 2 and log[-2:] == [
            "systemctl daemon-reload", "systemctl restart companion.service"]
    assert run(system).returncode == 0  # a good update installs its own
    for name in UNIT_FILES:
        assert (root / name).read_bytes() == (ROOT / "systemd" / Path(name).name).read_bytes()


def test_an_update_that_does_not_start_goes_back_to_the_previous_release(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    before = os.readlink(root / "opt/dragon-table/current")
    result = run(system, FAKE_RESTART_FAILS="1")
    assert result.returncode == 1 and "journalctl -u companion" in result.stderr
    assert os.readlink(root / "opt/dragon-table/current") == before
    assert calls(system).count("systemctl restart companion.service") == 2  # the new one, then the old one


def test_an_update_backs_up_the_log_while_the_server_is_stopped(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    data = Path(system["ROOT"]) / "var/lib/dragon-table"
    (data / "companion.sqlite3").write_text("schema 3")
    result = run(system)
    assert result.returncode == 0, result.stderr
    assert [p.read_text() for p in (data / "backups").iterdir()] == ["schema 3"]
    log = calls(system)
    assert log.index("systemctl stop companion.service") < log.index("systemctl start companion-backup.service") \
        < log.index("systemctl restart companion.service")
    assert (data / "companion.sqlite3").read_text() == "schema 3"


def test_the_updates_backup_is_the_new_copy_even_when_an_older_one_has_a_later_name(system: dict[str, str]) -> None:
    """A Pi without a clock may have gone back in time: a copy from before then carries a later name."""
    assert run(system).returncode == 0
    data = Path(system["ROOT"]) / "var/lib/dragon-table"
    (data / "companion.sqlite3").write_text("schema 3")
    (data / "backups").mkdir()
    (data / "backups/companion-99991231-235959.sqlite3").write_text("from the future")
    result = run(system)
    assert result.returncode == 0, result.stderr
    made = [p.name for p in (data / "backups").iterdir() if p.read_text() == "schema 3"]
    assert len(made) == 1 and f"backed up the session log to /var/lib/dragon-table/backups/{made[0]}" in result.stdout


def test_an_update_that_does_not_start_puts_back_the_log_it_had_upgraded(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    data = root / "var/lib/dragon-table"
    (data / "companion.sqlite3").write_text("schema 3")
    before = os.readlink(root / "opt/dragon-table/current")
    result = run(system, FAKE_RESTART_FAILS="1")
    assert result.returncode == 1
    new = next(r for r in releases(root) if f"releases/{r}" != before)
    assert os.readlink(root / "opt/dragon-table/current") == before
    assert (data / "companion.sqlite3").read_text() == "schema 3"  # the previous release can read it again
    assert not (data / "companion.sqlite3-wal").exists()  # the newer log's WAL went aside with it
    assert (data / f"companion.sqlite3.left-by-{new}").read_text() == "schema 4\n"
    assert (data / f"companion.sqlite3.left-by-{new}-wal").read_text() == "schema 4 wal\n"
    assert "put back the session log from before the update" in result.stdout
    log = calls(system)
    restored = log.index(f"chown companion:companion {data}/companion.sqlite3.restoring")
    assert log.index("systemctl stop companion.service", log.index("systemctl restart companion.service")) \
        < restored < len(log) - 1 - log[::-1].index("systemctl restart companion.service")


def test_an_update_whose_backup_fails_keeps_the_running_release(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    (root / "var/lib/dragon-table/companion.sqlite3").write_text("schema 3")
    before = os.readlink(root / "opt/dragon-table/current")
    result = run(system, FAKE_BACKUP_FAILS="1")
    assert result.returncode == 1 and "could not back up the session log" in result.stderr
    assert os.readlink(root / "opt/dragon-table/current") == before and len(releases(root)) == 1
    log = calls(system)
    assert log[-1] == "systemctl start companion.service" and "systemctl restart companion.service" not in log


def test_uninstall_removes_what_it_added_and_keeps_the_data(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    root = Path(system["ROOT"])
    (root / "var/lib/dragon-table/companion.sqlite3").write_text("the log")
    result = run(system, "--uninstall")
    assert result.returncode == 0, result.stderr
    assert (root / "var/lib/dragon-table/companion.sqlite3").read_text() == "the log"
    for gone in ("opt/dragon-table", "usr/local/bin/companion", "etc/systemd/system/companion.service",
                 "etc/systemd/system/companion-backup.timer", "etc/systemd/user/companion-kiosk.service",
                 "etc/xdg/autostart/dragon-table-kiosk.desktop", "etc/dragon-table/companion.toml"):
        assert not os.path.lexists(root / gone), gone
    log = calls(system)
    assert "systemctl disable --now companion.service companion-backup.timer" in log
    assert "userdel companion" in log
    assert run(system, "--uninstall").returncode == 0  # twice is harmless too


def test_uninstall_keeps_changed_settings(system: dict[str, str]) -> None:
    assert run(system).returncode == 0
    config = Path(system["ROOT"]) / "etc/dragon-table/companion.toml"
    config.write_text('[server]\nport = 9000\n')
    result = run(system, "--uninstall")
    assert result.returncode == 0 and "kept your changed settings" in result.stdout
    assert config.exists()


def test_an_unknown_option_is_refused(system: dict[str, str]) -> None:
    result = run(system, "--frobnicate")
    assert result.returncode == 1 and "unknown option --frobnicate" in result.stderr
    assert calls(system) == []


# --- the kiosk launcher, with chromium, curl, xset and systemctl replaced by fakes --------------------------------

@pytest.fixture
def desktop(tmp_path: Path) -> dict[str, str]:
    """A PATH of fakes (chromium logs its arguments and display, curl answers) and an empty runtime dir."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fakes = {
        "chromium": 'echo "chromium WAYLAND_DISPLAY=${WAYLAND_DISPLAY:-} DISPLAY=${DISPLAY:-} $*" >> "$FAKE_LOG"',
        "curl": 'echo "curl $*" >> "$FAKE_LOG"',
        "xset": 'echo "xset $*" >> "$FAKE_LOG"',
        "systemctl": 'echo "systemctl $*" >> "$FAKE_LOG"',
        "id": 'echo 1000',
        "sleep": 'exit 0',
    }
    for name, body in fakes.items():
        (bin_dir / name).write_text("#!/bin/bash\n" + body + "\n")
        (bin_dir / name).chmod(0o755)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "FAKE_LOG": str(tmp_path / "calls.log"),
           "XDG_RUNTIME_DIR": str(runtime), "KIOSK_WAIT_S": "3", "HOME": str(tmp_path),
           "COMPANION_CONFIG": str(tmp_path / "companion.toml")}
    return env


def _kiosk(env: dict[str, str], *args: str) -> tuple[int, list[str]]:
    result = subprocess.run(["bash", str(KIOSK), *args], env=env, capture_output=True, text=True, timeout=60)
    return result.returncode, calls(env)


def _socket(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    return sock


def test_kiosk_finds_labwc_and_wayfire_sockets_itself(desktop: dict[str, str]) -> None:
    for name in ("wayland-0", "wayland-1"):  # labwc, wayfire
        with _socket(Path(desktop["XDG_RUNTIME_DIR"]) / name):
            Path(desktop["FAKE_LOG"]).unlink(missing_ok=True)
            status, log = _kiosk(desktop)
        assert status == 0
        assert any(c.startswith("curl") and "http://127.0.0.1:8080/api/health" in c for c in log)
        browser = next(c for c in log if c.startswith("chromium"))
        assert f"WAYLAND_DISPLAY={name} " in browser and "--ozone-platform=wayland" in browser
        assert "--kiosk" in browser and "--app=http://127.0.0.1:8080/" in browser
        (Path(desktop["XDG_RUNTIME_DIR"]) / name).unlink()


def test_kiosk_on_x11_switches_blanking_off(desktop: dict[str, str]) -> None:
    status, log = _kiosk({**desktop, "DISPLAY": ":0"})
    assert status == 0
    assert "xset s off -dpms s noblank" in log
    browser = next(c for c in log if c.startswith("chromium"))
    assert "DISPLAY=:0" in browser and "--ozone-platform" not in browser


def test_kiosk_gives_up_without_a_compositor_so_the_unit_retries(desktop: dict[str, str]) -> None:
    status, log = _kiosk(desktop)
    assert status == 1 and not any(c.startswith("chromium") for c in log)


def test_kiosk_from_the_session_hands_the_display_to_the_user_manager(desktop: dict[str, str]) -> None:
    status, log = _kiosk({**desktop, "WAYLAND_DISPLAY": "wayland-0"}, "--session")
    assert status == 0
    assert any(c.startswith("systemctl --user import-environment WAYLAND_DISPLAY DISPLAY") for c in log)
    assert log[-1] == "systemctl --user start companion-kiosk.service"


@pytest.mark.parametrize(("settings", "port"), [
    ("[server]\nport = 9000\n", 9000),
    ((ROOT / "systemd/companion.toml").read_text(), 8080),  # as installed: every key commented out
    ("[server]\nport = 'nine'\n", 8080),  # the server refuses it; the kiosk waits on the default
    ("not toml [", 8080),
    (None, 8080),
])
def test_kiosk_opens_the_port_the_settings_give(desktop: dict[str, str], settings: str | None, port: int) -> None:
    if settings is not None:
        Path(desktop["COMPANION_CONFIG"]).write_text(settings)
    status, log = _kiosk({**desktop, "DISPLAY": ":0"})
    assert status == 0
    assert any(c.startswith("curl") and f"http://127.0.0.1:{port}/api/health" in c for c in log)
    assert f"--app=http://127.0.0.1:{port}/" in next(c for c in log if c.startswith("chromium"))


def test_kiosk_runs_chromium_on_its_own_profile_marked_as_cleanly_closed(desktop: dict[str, str]) -> None:
    profile = Path(desktop["HOME"]) / ".local/state/dragon-table-kiosk"
    (profile / "Default").mkdir(parents=True)
    prefs = profile / "Default/Preferences"
    prefs.write_text(json.dumps({"profile": {"exit_type": "Crashed", "exited_cleanly": False, "name": "Kiosk"},
                                 "browser": {"window_placement": {"maximized": True}}}))  # after a power cut
    status, log = _kiosk({**desktop, "DISPLAY": ":0"})
    assert status == 0
    browser = next(c for c in log if c.startswith("chromium")).split()
    assert f"--user-data-dir={profile}" in browser  # not the desktop user's ~/.config/chromium
    assert "--hide-crash-restore-bubble" in browser
    assert json.loads(prefs.read_text()) == {
        "profile": {"exit_type": "Normal", "exited_cleanly": True, "name": "Kiosk"},
        "browser": {"window_placement": {"maximized": True}}}


@pytest.mark.parametrize("prefs", [None, "{truncated by a power c"])
def test_kiosk_starts_on_a_new_or_damaged_profile(desktop: dict[str, str], prefs: str | None) -> None:
    profile = Path(desktop["HOME"]) / "state/dragon-table-kiosk"
    if prefs is not None:
        (profile / "Default").mkdir(parents=True)
        (profile / "Default/Preferences").write_text(prefs)
    status, log = _kiosk({**desktop, "DISPLAY": ":0", "XDG_STATE_HOME": str(Path(desktop["HOME"]) / "state")})
    assert status == 0 and profile.is_dir()
    assert f"--user-data-dir={profile}" in next(c for c in log if c.startswith("chromium")).split()


def test_kiosk_help_and_an_unknown_option_start_nothing(desktop: dict[str, str]) -> None:
    """`companion-kiosk --help` ran the kiosk (and waited two minutes for a compositor); an unknown option too."""
    result = subprocess.run(["bash", str(KIOSK), "--help"], env=desktop, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "companion-kiosk --session" in result.stdout and calls(desktop) == []
    result = subprocess.run(["bash", str(KIOSK), "--bogus"], env=desktop, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unknown option --bogus" in result.stderr and calls(desktop) == []


def test_the_install_names_commands_that_can_be_typed(system: dict[str, str]) -> None:
    """Its last line named `companion-kiosk --session`, which is not on the PATH; --keep-releases without a number
    said "line 277: 1: ..."."""
    result = run(system)
    assert result.returncode == 0, result.stderr
    assert "as the desktop user: /opt/dragon-table/current/bin/companion-kiosk --session)" in result.stdout
    result = run(system, "--keep-releases")
    assert result.returncode == 1 and result.stderr.strip() == "install: error: --keep-releases needs a number from 1"

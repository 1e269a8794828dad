"""`companion doctor`: check the Pi set-up and say, for each thing that is wrong, how to fix it.

Checks the config file, numpy against apt's picamera2, the data folder and its free space, then (unless
``--quick``) the pin factory and each gate's level, the camera with one test frame, the camera's calibration
(gates, marble size, empty reference: read through the running service), the port, the service, the kiosk
and screen blanking. While the service runs it holds the GPIO lines and the camera, so the gates and the
camera are then read from its /api/health instead, and the pins, their wiring and the camera the config file (or
an option) names are compared with those the service runs with. ``--quick`` opens no device and is the install's
smoke test of a new release; ``--screen`` checks screen blanking alone (the install's last step). Exit status 1 if
any check fails.
"""
from __future__ import annotations

import argparse
import errno
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO

from hardware.gates_cli import (
    add_wiring_arguments,
    gate_settings,
    pin_list,
    reserved_pins_warning,
    service_health,
    wiring_from_args,
    wiring_given,
)

from . import config as config_file

if TYPE_CHECKING:
    from hardware.gates import GateConfig

MIN_FREE_MB = 200
#: Where systemd/install.sh puts the settings and the data; the doctor's defaults when they exist.
INSTALLED_DATA = Path("/var/lib/dragon-table")
KIOSK_UNIT = Path("/etc/systemd/user/companion-kiosk.service")
KIOSK_AUTOSTART = Path("/etc/xdg/autostart/dragon-table-kiosk.desktop")
#: The defaults of the doctor's options that a config file may set.
DEFAULTS: dict[str, Any] = {"data": None, "port": None, "camera": None, "pins": None, "active_high": False,
                            "external_pull_up": False}
Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True)
class Check:
    """One line of the report: ``ok`` True (fine), False (must be fixed) or None (a note, nothing to do)."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""

    def render(self) -> str:
        mark = {True: "ok  ", False: "FAIL", None: "note"}[self.ok]
        line = f"{mark}  {self.name:<12}{self.detail}"
        return line + (f"\n      {'':<12}fix: {self.fix}" if self.fix and self.ok is not True else "")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `companion doctor`."""
    only = parser.add_mutually_exclusive_group()  # one short check or the other
    only.add_argument("--quick", action="store_true",
                      help="no devices, no service: the config, the libraries and the data folder")
    only.add_argument("--screen", action="store_true", help="only whether the desktop blanks the screen when idle")
    parser.add_argument("--config", metavar="FILE", default=None,
                        help=f"config file (default ${config_file.ENV_VAR}, else {config_file.INSTALLED} if there is "
                             "one)")
    parser.add_argument("--data", default=None,
                        help=f"data folder (default: the config's, $COMPANION_DATA, {INSTALLED_DATA} if it exists, "
                             "else ./data)")
    parser.add_argument("--port", type=config_file.option_type(config_file.PORT, number=int), default=None,
                        help="the server's port (default: the config's, 8080)")
    parser.add_argument("--camera", default=None, help="camera spec to test (default: the config's, or the Pi camera)")
    parser.add_argument("--simulate", action="store_true", help="mock pins instead of the GPIO chip")
    add_wiring_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, root: Path = Path("/")) -> int:
    """Run `companion doctor`; 1 if any check failed. ``root`` (where /etc and /home are) is for tests."""
    out = out or sys.stdout
    report = [_blanking(root)] if args.screen else checks(args, root=root)
    for check in report:
        print(check.render(), file=out)
    failed = [c.name for c in report if c.ok is False]
    print(f"\n{len(failed)} to fix: {', '.join(failed)}" if failed else "\nall good", file=out)
    return 1 if failed else 0


def checks(args: argparse.Namespace, *, pin_factory: Any = None, runner: Runner | None = None,
           root: Path = Path("/"), on_pi: bool | None = None) -> list[Check]:
    """Every check, in order. ``pin_factory`` (e.g. MockFactory), ``runner`` (for systemctl) and ``root``
    (where /etc and /home are) are for tests."""
    from .sensors import detect_mode

    on_pi = detect_mode() == "hardware" if on_pi is None else on_pi
    report, settings = _config(args)
    if settings is not None:  # the file's values where the command line left the default
        config_file.apply_to_args(args, settings, DEFAULTS)
    report += [_imports(), _numpy(on_pi), _data(args)]
    if args.quick:
        return report
    port, host = args.port or 8080, getattr(args, "host", None)
    health = _health(port, host)
    report += [*_gates(args, health, pin_factory, on_pi, settings is not None), _camera(args, health, on_pi),
               _calibration(health), _port(port, host, health), _service(runner or _run, root),
               _kiosk(root), _blanking(root)]
    return report


# --- each check ------------------------------------------------------------------------------------------

def _config(args: argparse.Namespace) -> tuple[list[Check], config_file.Settings | None]:
    path = config_file.by_hand_path(args.config)
    if path is None:
        return [Check("config", None, "no config file: the defaults apply",
                      "sudo ./systemd/install.sh writes /etc/dragon-table/companion.toml")], None
    try:
        settings = config_file.load(path)
    except config_file.ConfigError as err:
        return [Check("config", False, str(err), "edit the file; systemd/companion.toml lists every key")], None
    keys = sum(len(v) for v in settings.values.values())
    return [Check("config", True, f"{path}: {keys} key{'s' * (keys != 1)} set, the rest at defaults")], settings


def _imports() -> Check:
    import importlib

    for module in ("uvicorn", "a2wsgi", "flask", "segno", "gpiozero", "cv2", "web.app", "web.server", "hardware.gates",
                   "hardware.camera.service"):
        try:
            importlib.import_module(module)
        except Exception as err:  # a broken release must fail here, before it is switched to
            return Check("python", False, f"cannot import {module}: {type(err).__name__}: {err}",
                         "sudo ./systemd/install.sh builds a fresh venv")
    return Check("python", True, f"Python {sys.version.split()[0]}; the companion and its libraries import")


def _numpy(on_pi: bool) -> Check:
    import numpy

    from hardware.camera.sources import NUMPY_ABI_FIX

    where = "apt" if "/dist-packages/" in numpy.__file__ else "the venv"
    have = f"numpy {numpy.__version__} from {where}"
    try:
        import picamera2  # noqa: F401  (imports apt's simplejpeg, built for apt's numpy)
    except ImportError:
        if on_pi:
            return Check("numpy", False, f"{have}; picamera2 is not importable",
                         "sudo apt install python3-picamera2, and a venv made with --system-site-packages "
                         "(sudo ./systemd/install.sh does both)")
        return Check("numpy", True, f"{have}; no picamera2 (not a Pi: not needed)")
    except ValueError as err:
        if "numpy.dtype size changed" not in str(err):
            raise
        return Check("numpy", False, f"{have} hides the numpy apt's picamera2 was built for ({err})",
                     NUMPY_ABI_FIX)
    return Check("numpy", True, f"{have}; picamera2 loads with it")


def _data(args: argparse.Namespace) -> Check:
    data = Path(args.data or os.environ.get("COMPANION_DATA")
                or (INSTALLED_DATA if INSTALLED_DATA.exists() else "data"))
    existing = next((p for p in (data, *data.parents) if p.exists()), Path("/"))
    free_mb = shutil.disk_usage(existing).free // 2**20
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".doctor-"):
            pass
    except OSError as err:
        if isinstance(err, PermissionError) and existing == data and data.stat().st_uid != os.getuid():
            return Check("data", None, f"{data}: {free_mb} MB free; it belongs to the service's user, so "
                                       "only it (or root) can write there", "sudo companion doctor checks it")
        return Check("data", False, f"{data}: cannot write in {existing}: {err.strerror}",
                     f"sudo chown -R companion:companion {data} (or choose a writable --data)")
    state = "" if data.exists() else " (made at the first start)"
    if free_mb < MIN_FREE_MB:
        return Check("data", False, f"{data}{state}: only {free_mb} MB free",
                     "free some space: sudo apt clean; old backups in DATA/backups")
    return Check("data", True, f"{data}{state}: writable, {free_mb} MB free")


def _health(port: int, host: str | None) -> dict[str, Any] | None:
    """The running companion's /api/health on this machine, or None."""
    body = service_health(port, host=host)
    return body if body is not None and "sensors" in body else None


def _gate_line(status: dict[str, Any]) -> str:
    from hardware.gates import PHYSICAL_PINS

    return "; ".join(f"{g['gate']}: GPIO{g['pin']} (pin {PHYSICAL_PINS.get(g['pin'], '?')}) "
                     f"{'BROKEN' if g['blocked'] else 'clear'}{' STUCK' if g.get('stuck') else ''}"
                     for g in status["gates"])


def _origin(args: argparse.Namespace, dest: str, option: str) -> str:
    """Where a setting came from: the config file's key that set it, else the command-line option."""
    key = getattr(args, "from_config", {}).get(dest)
    return f"`{key}` in the config file" if key else option


def _gates(args: argparse.Namespace, health: dict[str, Any] | None, pin_factory: Any, on_pi: bool,
           config_read: bool) -> list[Check]:
    """The gates' check, and a warning for pins that have another job on the Pi."""
    from hardware.gates import DEFAULT_PINS, GateConfig, GateConfigError

    try:  # wrong pins are refused whether or not the service runs
        config = GateConfig(**wiring_from_args(args))
    except GateConfigError as err:
        return [Check("gates", False, str(err), f"give {_origin(args, 'pins', '--pins')} six different BCM numbers "
                                                f"(0-27) of gates 1..6, like {pin_list(DEFAULT_PINS)}")]
    check = _gates_of_service(args, config, health, config_read) if health is not None else \
        _gates_opened(args, config, pin_factory, on_pi)
    pins = [g["pin"] for g in health["sensors"]["gates"].get("gates") or []] if health is not None else config.pins
    warning = reserved_pins_warning(pins)
    return [check] + ([Check("pins", None, warning.removeprefix("warning: "),
                             f"move those gates to free pins, like {pin_list(DEFAULT_PINS)}")] if warning else [])


#: The fix where the running service uses other settings than the config file names.
RESTART = "sudo systemctl restart companion (it reads the config file as it starts)"


def _while_stopped(key: str) -> str:
    """The fix where options name other settings than the running service uses: they are tested while it is
    stopped, and kept by `key` in the config file."""
    return ("to test them: sudo systemctl stop companion, companion doctor again, then sudo systemctl start "
            f"companion; for good: {key} in the config file, then sudo systemctl restart companion")


FIX_BEAM = "a BROKEN gate with nothing in it: align the emitter with its receiver, or check its wiring " \
           "(hardware/WIRING.md)"


def _gates_of_service(args: argparse.Namespace, config: GateConfig, health: dict[str, Any],
                      config_read: bool) -> Check:
    """The running service's gates, and whether they are the ones the config file or the options name."""
    status = health["sensors"]["gates"]
    if not status.get("gates"):
        return Check("gates", False, f"the service runs without gates: {status.get('error')}",
                     "journalctl -u companion -n 20")
    ok: bool | None = not any(g.get("stuck") for g in status["gates"])
    parts, fix = ["read through the running service: " + _gate_line(status)], FIX_BEAM
    given, from_config = wiring_given(args), getattr(args, "from_config", {})
    noted: list[str] = []
    said: list[tuple[str, str]] = []  # (says or leaves, what) of each setting the file names otherwise
    runs: list[str] = []
    for name, dest, options, asked, running in gate_settings(config, status):
        if asked == running:
            continue
        if shown := [f"{option} {args.pins}" if option == "--pins" else option for option in options
                     if option in given]:
            noted += shown  # also where the service does not report it (an older release): not known to match
        elif config_read and running is not None:
            verb = "says" if dest in from_config else "leaves"
            said.append((verb, f"{name} {asked}" if verb == "says" else f"{name} at the default {asked}"))
            runs.append(running)
    if noted:
        parts.insert(0, f"{' '.join(noted)}: not what the running service uses (options apply only while it is "
                        "stopped)")
        ok, fix = ok and None, _while_stopped("[gates]")
    if said:  # "says pins ... and wiring ...": each verb once in a row
        says = " and ".join(what if i and said[i - 1][0] == verb else f"{verb} {what}"
                            for i, (verb, what) in enumerate(said))
        parts.insert(0, f"the config file {says}; the service runs with {' and '.join(runs)}: restart it")
        ok, fix = False, RESTART
    return Check("gates", ok, "; ".join(parts), fix)


def _gates_opened(args: argparse.Namespace, config: GateConfig, pin_factory: Any, on_pi: bool) -> Check:
    """The gates read on the pins themselves (the service is not running)."""
    from hardware.gates import GateArray, GateConfigError, GateHardwareError

    factory = pin_factory
    if factory is None and args.simulate:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
    try:
        with warnings.catch_warnings():  # gpiozero's "falling back from lgpio..." as it tries each pin library:
            warnings.simplefilter("ignore")  # this check says itself which one opened the pins, or that none did
            gates = GateArray(config, lambda _reading: None, pin_factory=factory)
            with gates:
                status, name = gates.status(), gates.pin_factory_name
    except GateConfigError as err:
        return Check("gates", False, str(err), f"change {_origin(args, 'pins', '--pins')}")
    except GateHardwareError as err:
        return Check("gates", False, f"cannot open the pins: {err}",
                     "on a Pi: sudo apt install python3-lgpio; GPIOZERO_PIN_FACTORY=lgpio; the user in the "
                     "gpio group (sudo ./systemd/install.sh does all three)" if on_pi else
                     "this is not a Raspberry Pi: add --simulate to check the rest with mock pins")
    finally:
        if pin_factory is None and factory is not None:
            factory.close()
    blocked = any(g["blocked"] for g in status["gates"])
    return Check("gates", not blocked, f"pin factory {name}: " + _gate_line(status), FIX_BEAM)


#: What to check when a camera of each kind does not give a picture.
CAMERA_FIX = {"picamera2": "see the message; the ribbon cable sits contacts to the board, blue side to the clip",
              "usb": "is it plugged in? ls /dev/video* lists the cameras (usb:N is /dev/videoN); another program "
                     "may hold it",
              "file": "check the path: the file must exist and this user must be able to read it"}


def _camera(args: argparse.Namespace, health: dict[str, Any] | None, on_pi: bool) -> Check:
    spec = args.camera or "auto"
    origin = _origin(args, "camera", "--camera")
    try:  # a wrong spec is refused whether or not the service runs
        config_file.camera_source(spec)
    except TypeError as err:
        return Check("camera", False, f"{spec!r} is not valid; use {err}", f"change {origin} to one of those")
    if health is not None:
        return _camera_of_service(args, spec, health["sensors"]["camera"])
    if spec == "auto" and not on_pi:
        return Check("camera", None, "not a Pi, and no `[camera] source` set: no camera to test")
    if spec == "auto":
        spec = "picamera2:640x480"
    if spec in ("off", "simulation"):
        return Check("camera", None, "the camera is switched off (`[camera] source = off`): nothing to test"
                     if spec == "off" else "the simulated camera: nothing to test")
    from hardware.camera.sources import CameraError, open_source

    try:
        source = open_source(spec)
        source.open()
        try:
            frame = source.read()
        finally:
            source.close()
    except ValueError as err:
        return Check("camera", False, str(err), f"change {origin}")
    except CameraError as err:
        return Check("camera", False, f"{spec}: {err}", CAMERA_FIX.get(spec.partition(":")[0].lower(), ""))
    height, width = frame.shape[:2]
    return Check("camera", True, f"{spec}: one test frame {width}x{height}, mean level {float(frame.mean()):.0f}")


def _camera_of_service(args: argparse.Namespace, spec: str, camera: dict[str, Any]) -> Check:
    """The running service's camera, and whether it is the one the config file or --camera names."""
    detail = camera.get("error") or (camera.get("camera") or {}).get("error") or "running"
    running = (camera.get("camera") or {}).get("source") or "off"
    kind_fix = CAMERA_FIX.get(running.partition(":")[0], "check `[camera] source` in the config file")
    check = Check("camera", bool(camera.get("ok")), f"read through the running service: {detail}",
                  f"{kind_fix}; journalctl -u companion -n 20")
    if spec == "auto" or _source_name(spec) == running:
        return check
    if "camera" in getattr(args, "from_config", {}):
        return Check("camera", False, f"the config file says source {spec}; the service runs with {running}: "
                                      f"restart it; {check.detail}",
                     RESTART)
    return Check("camera", check.ok and None, f"--camera {spec}: not what the running service uses ({running}); "
                                              f"it is tested only while the service is stopped; {check.detail}",
                 _while_stopped("`[camera] source`"))


def _source_name(spec: str) -> str:
    """The name the service reports for the camera of ``spec`` (a valid spec, not "auto")."""
    if spec in ("off", "simulation"):
        return spec
    from hardware.camera.sources import open_source  # builds the source, opens nothing

    return open_source(spec).name


GATES_FROM = {"tap": "gates tapped", "markers": "gates anchored to the markers",
              "simulation": "the simulated castle's gates"}
MARBLE_FROM = {"tap": "measured by a tap", "markers": "from the markers", "simulation": "the simulated castle's"}
CALIBRATE = ("on the kiosk's Camera page: tap the corners of each gate and save; then Anchor to the 4 markers "
             "(it measures the marble too) or Tap one resting marble")


def _calibration(health: dict[str, Any] | None) -> Check:
    """The camera's calibration as the running service holds it: the gates and the marble's size, which the
    detector needs (a size guessed from the gates is often far off), gates that reach the picture's edge, a
    picture out of focus (measured across the markers' edges), the empty reference (until it is taken every
    count is unsure), and gates in doubt whatever the marbles do (the Camera page's note)."""
    if health is None:
        return Check("calibration", None, "the service is not running: the camera's calibration is read through it")
    camera = health["sensors"]["camera"]
    if "calibrated" not in camera:
        return Check("calibration", None, "the service runs without a camera: nothing to calibrate")
    from .kiosk import plain_ago

    marble, reference = camera.get("marble") or {}, camera.get("reference") or {}
    missing = []
    if not camera["calibrated"]:
        missing.append("the gates are not calibrated")
    if not marble.get("radius_px"):
        missing.append("the marble's size is not measured (guessed from the gates: often far off)")
    if missing:
        return Check("calibration", False, "; ".join(missing), CALIBRATE)
    detail = (f"{GATES_FROM.get(camera['calibration'], camera['calibration'])}, marble radius "
              f"{marble['radius_px']:.1f} px ({MARBLE_FROM.get(marble['source'], marble['source'])})")
    fix = ""
    if reference.get("captured"):
        detail += f"; empty reference taken {plain_ago(reference['captured_at'])}"
    else:
        detail += "; no empty reference yet, so every count is unsure"
        fix = ("with the gates empty, press Gates empty: take reference on the Camera page (it is also taken by "
               "itself once the beams are idle and no round has marbles)")
    if (blur := (camera.get("markers") or {}).get("blur_px")) is not None:
        detail += f"; the markers' edges blurred by {blur:.1f} px"
    # a gate that reaches the picture's edge, a picture out of focus, a camera that moved, and, with a reference,
    # why gates are in doubt whatever the marbles do (a reference holding marbles, a noisy or over-exposed picture):
    # the page's warning says what to do
    doubt = ("unsure",) if reference.get("captured") else ()  # without one, said above
    warnings = [camera[key] for key in ("edge", "focus", "moved", *doubt) if camera.get(key)]
    detail += "".join(f". {warning}" for warning in warnings)
    return Check("calibration", None if fix or warnings else True, detail, fix)


def _port(port: int, host: str | None, health: dict[str, Any] | None) -> Check:
    if health is not None and isinstance(health.get("error"), dict):
        return Check("port", False, f"the companion on port {port} answers, but its table does not: "
                                    f"{health['error'].get('message')}",
                     "the watchdog restarts it within a minute; or now: sudo systemctl restart companion "
                     "(then journalctl -u companion -n 50 says what it was doing)")
    if health is not None:
        return Check("port", True, f"the companion answers on port {port} ({health.get('mode')} mode)")
    address = (host or "").strip().strip("[]") or "0.0.0.0"
    with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((address, port))
        except (socket.gaierror, UnicodeError) as err:  # a host name this machine cannot resolve
            return Check("port", False, f"[server] host = {address!r}: {err}",
                         "set [server] host to one of the addresses `hostname -I` lists, or \"0.0.0.0\"")
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return Check("port", False, f"port {port} is taken by a program that is not the companion",
                             f"sudo ss -ltnp 'sport = :{port}' names it; or set [server] port")
            if err.errno == errno.EADDRNOTAVAIL:
                return Check("port", False, f"[server] host = {address!r}: this machine has no such address",
                             "set [server] host to one of the addresses `hostname -I` lists, or \"0.0.0.0\"")
            return Check("port", False, f"port {port}: {err.strerror}", "choose a port above 1024")
    return Check("port", False, f"nothing answers on port {port}: the server is not running",
                 "sudo systemctl start companion; journalctl -u companion -n 20")


def _run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=10)


def _service(runner: Runner, root: Path) -> Check:
    try:
        result = runner(["systemctl", "is-active", "companion.service"])
    except (OSError, subprocess.SubprocessError):
        return Check("service", None, "no systemctl here: not checked")
    state = result.stdout.strip() or "unknown"
    if state == "active":
        return Check("service", True, "companion.service is active")
    if not (root / "etc/systemd/system/companion.service").exists():  # where systemd/install.sh puts it
        return Check("service", False, "companion.service is not installed", "sudo ./systemd/install.sh")
    return Check("service", False, f"companion.service is {state}",
                 "sudo systemctl restart companion; journalctl -u companion -n 20 says why it stopped")


def _kiosk(root: Path) -> Check:
    unit, autostart = root / KIOSK_UNIT.relative_to("/"), root / KIOSK_AUTOSTART.relative_to("/")
    if not unit.exists() or not autostart.exists():
        return Check("kiosk", False, "the kiosk is not installed", "sudo ./systemd/install.sh")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return Check("kiosk", False, "chromium is not installed", "sudo apt install chromium")
    running = any("--app=http" in cmd and "--kiosk" in cmd for cmd in _command_lines(root))
    if running:
        return Check("kiosk", True, "Chromium shows the kiosk")
    return Check("kiosk", None, "installed; no kiosk on screen now",
                 "log in to the desktop (or enable auto-login: sudo raspi-config nonint do_boot_behaviour B4); "
                 "as the desktop user: journalctl --user -u companion-kiosk")


def _command_lines(root: Path) -> list[str]:
    lines = []
    for cmdline in (root / "proc").glob("[0-9]*/cmdline"):
        try:
            lines.append(cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return lines


def _blanking(root: Path) -> Check:
    """Screen blanking on labwc (swayidle in its autostart), wayfire ([idle] in wayfire.ini) or X11."""
    # raspi-config changes labwc's and wayfire's files only while that desktop runs (it asks pgrep which one):
    # from an SSH login before the desktop is up it does nothing for them, so each fix also names the line.
    raspi = ("or, in a terminal on the Pi's desktop, sudo raspi-config nonint do_blanking 1; then log out and in "
             "(or reboot)")
    labwc = [root / "etc/xdg/labwc/autostart", *root.glob("home/*/.config/labwc/autostart")]
    for path in labwc:
        if _active_lines(path, r"\bswayidle\b"):
            return Check("screen", False, f"the screen blanks when idle: swayidle in {_shown(path, root)}",
                         f"delete the swayidle line from {_shown(path, root)}, {raspi}")
    for path in root.glob("home/*/.config/wayfire.ini"):
        for line in _active_lines(path, r"^\s*(dpms_timeout|screensaver_timeout)\s*="):
            if re.fullmatch(r"\s*[1-9]\d*\s*", line.split("=", 1)[1]):  # -1 or 0: never
                key = line.split("=", 1)[0].strip()
                return Check("screen", False, f"the screen blanks when idle: {line.strip()} in "
                                              f"{_shown(path, root)}",
                             f"set {key} = -1 in {_shown(path, root)}, {raspi}")
    if (root / "etc/X11/xorg.conf.d/10-blanking.conf").exists():
        return Check("screen", True, "blanking is off (X11)")
    return Check("screen", True, "no idle blanking configured (labwc, wayfire); X11: the kiosk switches it off")


def _active_lines(path: Path, pattern: str) -> list[str]:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if not line.lstrip().startswith("#") and re.search(pattern, line)]


def _shown(path: Path, root: Path) -> str:
    return "/" + str(path.relative_to(root))

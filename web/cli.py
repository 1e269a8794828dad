"""The `companion` command: serve the kiosk, watch the gates, detect marbles in photos, print markers."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sqlite3
import sys
import warnings
from typing import Any, Sequence

from hardware.gates_cli import add_wiring_arguments, pins_argv, reserved_pins_warning, wiring_from_args

log = logging.getLogger("companion")

#: Exit statuses of `serve`: a setting it cannot use stops it for good (companion.service's
#: RestartPreventExitStatus); an address it cannot listen on yet (at boot, before the network has it) or a port
#: another program holds is EX_TEMPFAIL, which systemd restarts.
BAD_SETTINGS = 2
LISTEN_FAILED = 75

# subcommand -> module with add_arguments(parser) and run(args) -> int; imported only when used
TOOLS = {
    "gates": ("hardware.gates_cli", "live view of the six break-beam gates, for checking the wiring"),
    "detect": ("hardware.vision.detect_cli", "count the marbles resting in each gate region of photos"),
    "markers": ("hardware.camera.markers", "write a printable sheet of the four ArUco calibration markers"),
    "backup": ("companion.backup", "copy the session log into DATA/backups, keeping the last 7"),
    "doctor": ("web.doctor", "check the Pi set-up (pins, gates, camera, numpy, data, port, service, kiosk, screen)"),
}


def build_parser() -> argparse.ArgumentParser:
    from .config import PORT, THREADS, add_access_arguments, option_type

    parser = argparse.ArgumentParser(prog="companion", description="Dragon table companion.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = sub.add_parser("serve", help="serve the kiosk and the JSON API")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    serve.add_argument("--port", type=option_type(PORT, number=int), default=8080, help="port (default 8080)")
    serve.add_argument("--data", default=os.environ.get("COMPANION_DATA", "data"),
                       help="data folder for the session log (default $COMPANION_DATA or ./data)")
    serve.add_argument("--sensors", choices=["auto", "simulation", "hardware", "off"], default="auto",
                       help="auto: hardware on a Raspberry Pi, else simulation")
    serve.add_argument("--camera", default=None,
                       help="camera: picamera2, usb:N, file:PATH[,PATH...], simulation or off "
                            "(default: picamera2:640x480 on a Pi, else simulation)")
    serve.add_argument("--no-beams", action="store_true",
                       help="no break-beam gates are fitted: the camera alone fills in the rounds")
    add_wiring_arguments(serve)
    serve.add_argument("--threads", type=option_type(THREADS, number=int), default=16,
                       help="threads for the API and pages (default 16; live streams need none)")
    for name, (module, help_text) in TOOLS.items():
        tool = sub.add_parser(name, help=help_text)
        tool.set_defaults(tool_module=module)
        _tool_arguments(module, tool)
    serve.add_argument("--config", metavar="FILE", default=None,
                       help="TOML config file (default $COMPANION_CONFIG); command-line options win over it")
    add_access_arguments(serve)
    return parser


def _tool_arguments(module: str, parser: argparse.ArgumentParser) -> None:
    try:
        importlib.import_module(module).add_arguments(parser)
    except ImportError as err:  # a tool whose libraries are missing still shows in --help
        parser.set_defaults(tool_error=str(err))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(pins_argv(sys.argv[1:] if argv is None else argv))
    # gpiozero's "falling back from lgpio..." as it tries each pin library, and OpenCV's own line for each try of a
    # USB camera that is not there: the companion says in one line what failed, and these bury it
    warnings.filterwarnings("ignore", module="gpiozero")
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    if args.command == "serve":
        from . import config, notify
        try:
            config.apply_config_file(args, parser)
        except config.ConfigError as err:
            print(f"companion: cannot start: {err}", file=sys.stderr)
            return BAD_SETTINGS
        notify.start(args.host, args.port)
        return serve(args)
    if getattr(args, "tool_error", None):
        print(f"companion {args.command}: cannot start: {args.tool_error}", file=sys.stderr)
        return 2
    if args.command == "gates":  # the pins, wiring and port the service was set up with
        from . import config
        try:
            config.apply_by_hand(args, parser)
        except config.ConfigError as err:
            print(f"companion gates: error: {err}", file=sys.stderr)
            return 2
    try:
        return int(importlib.import_module(args.tool_module).run(args))
    except BrokenPipeError:  # the reader stopped early (`| head`): stop quietly, as command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's last flush then goes nowhere
        return 1


def app_config(args: argparse.Namespace) -> dict[str, Any]:
    """The app's settings from `serve`'s options, with the config file's laid under them."""
    from .config import access_from_args

    config: dict[str, Any] = {"DATA_DIR": args.data, "SENSORS": args.sensors}
    if args.camera:
        config["CAMERA"] = args.camera
    config["GATES"] = wiring_from_args(args)
    config["BEAMS"] = not args.no_beams
    config["LISTEN_HOST"] = args.host  # the Devices page warns when no tablet can reach it
    config.update(getattr(args, "app_config", {}))  # config-file keys laid straight into app.config
    config.update(access_from_args(args))  # --kiosk-peers and the like win over the file's [access]
    return config


def serve(args: argparse.Namespace) -> int:
    from companion.log import NewerDatabase

    from .app import create_app, shutdown
    from .server import listen
    from .server import serve as run_server

    try:
        app = create_app(app_config(args))
    except (ValueError, NewerDatabase) as err:  # a configuration mistake (GateConfigError...), or a log of a newer
        print(f"companion: cannot start: {err}", file=sys.stderr)  # release (restored, or rolled back): one line
        return BAD_SETTINGS
    except (OSError, sqlite3.Error) as err:  # not a folder, not writable, no such place
        print(f"companion: cannot start: cannot keep the session log in the data folder {args.data}: {err}. "
              f"It must be a folder this user may write (on the Pi: sudo chown -R companion:companion {args.data})",
              file=sys.stderr)
        return BAD_SETTINGS
    gates = app.extensions["sensors"].gates
    if gates is not None and (warning := reserved_pins_warning(gates.config.pins)):
        log.warning("%s", warning)
    try:
        sock = listen(args.host, args.port)
    except OSError as err:  # address in use, no such address (yet)
        shutdown(app)
        print(f"companion: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr)
        return LISTEN_FAILED
    sensors = app.extensions["sensors"]
    mode = sensors.mode
    camera = sensors.camera.service.status().get("source") if sensors.camera is not None else "off"
    camera = "a simulated castle camera" if camera == "simulation" else f"camera {camera}"
    pins = "mock pins and " if sensors.gates is not None else "no beams, "  # none with --no-beams
    note = f" (no Raspberry Pi hardware: {pins}{camera})" if mode == "simulation" else ""
    how = "with the sensors off (taps only)" if mode == "off" else f"in {mode} mode{note}"
    log.info("serving the kiosk on http://%s:%s %s; data in %s", args.host, sock.getsockname()[1], how,
             app.config["DATA_DIR"])

    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)  # raised again by the server once it has stopped
    try:
        run_server(app, sock, threads=args.threads)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        shutdown(app)
        sock.close()
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())

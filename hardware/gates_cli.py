"""`companion gates`: a live terminal view of the six beams, for checking the wiring.

Shows each beam's level, last pulse width, counts, glitches and stuck/flaky flags, refreshed a
few times a second until Ctrl-C. While the companion service runs it holds the GPIO lines, so the
view is then read from its ``/api/health`` on this machine (``--port``; the config file's ``[server] host`` when
it names one address) instead of opening the pins.
``--simulate`` uses MockFactory pins and rolls random marbles, so it can be seen working off a Pi;
``--once`` prints one snapshot and exits.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from hardware.gates import (
    DEFAULT_PINS,
    GATE_COUNT,
    GPIO_RANGE,
    PHYSICAL_PINS,
    GateArray,
    GateConfig,
    GateConfigError,
    GateHardwareError,
    MarbleReading,
)

REFRESH_S = 0.25
DEFAULT_PORT = 8080
PI_MODEL = Path("/proc/device-tree/model")
_CLEAR_SCREEN = "\x1b[H\x1b[2J"
#: BCM pins hardware/WIRING.md says to keep clear of, and their other job on the Pi.
RESERVED_PINS = {0: "HAT EEPROM", 1: "HAT EEPROM", 2: "I2C", 3: "I2C"}
#: The wiring options, as the command line spells them (dest -> option).
WIRING_OPTIONS = {"pins": "--pins", "active_high": "--active-high", "external_pull_up": "--external-pull-up"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of `companion gates` to ``parser``."""
    add_wiring_arguments(parser)
    parser.add_argument(
        "--simulate", action="store_true",
        help="no Pi needed: mock pins, with random virtual marbles rolling through")
    parser.add_argument(
        "--once", action="store_true", help="print one snapshot and exit")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT,
        help="while the companion service runs on this port, show its gates (default: the config's, 8080; 0: never)")
    parser.add_argument(
        "--config", metavar="FILE", default=None,
        help="config file whose [server] port and [gates] pins and wiring apply where no option is given "
             "(default $COMPANION_CONFIG, else /etc/dragon-table/companion.toml if there is one)")


def add_wiring_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say how the gates are wired (shared with `companion serve`)."""
    parser.add_argument(
        "--pins", metavar="P1,...,P6",
        help="BCM pins of gates 1..6, comma-separated (default: "
             + ",".join(map(str, DEFAULT_PINS)) + ")")
    wiring = parser.add_mutually_exclusive_group()  # one wiring or the other
    wiring.add_argument(
        "--external-pull-up", action="store_true",
        help="the lines have external pull-up resistors: no internal pull, "
             "a broken beam pulls the line low")
    wiring.add_argument(
        "--active-high", action="store_true",
        help="a broken beam drives the line high (e.g. 38 kHz light-barrier receivers): "
             "no internal pull, active high")


def parse_pins(text: str) -> tuple[int, ...]:
    """'17,27,...' -> (17, 27, ...); GateConfigError for an empty list or an item that is not a whole number
    (how many, which and repeats: GateConfig checks those)."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise GateConfigError(f"--pins is empty: give the BCM numbers of gates 1..{GATE_COUNT}, like "
                              + ",".join(map(str, DEFAULT_PINS)))
    for gate, item in enumerate(items, start=1):
        if not re.fullmatch(r"[+-]?\d+", item):
            raise GateConfigError(f"gate {gate}: pin {item!r} is not a BCM GPIO number "
                                  f"({GPIO_RANGE.start}-{GPIO_RANGE.stop - 1})")
    return tuple(int(item) for item in items)


def pins_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with a --pins value that starts with a minus ("--pins -1,27,...") joined to it (--pins=-1,27,...):
    argparse takes such a value for an option and says only "expected one argument", the pin check says what is
    wrong with it."""
    joined: list[str] = []
    for arg in argv:
        if joined and joined[-1] == "--pins" and re.match(r"-\d", arg):
            joined[-1] = f"--pins={arg}"
        else:
            joined.append(arg)
    return joined


def reserved_pins_warning(pins: Sequence[int]) -> str | None:
    """A warning for gates on pins hardware/WIRING.md says to keep clear of (a HAT or an I2C device drives them),
    or None."""
    used = [f"GPIO{pin} ({RESERVED_PINS[pin]})" for pin in pins if pin in RESERVED_PINS]
    if not used:
        return None
    return (f"warning: {', '.join(used)} {'has' if len(used) == 1 else 'have'} another job on the Pi: a HAT or an "
            "I2C device may drive the line and break the gates' readings; hardware/WIRING.md names free pins")


def wiring_given(args: argparse.Namespace) -> list[str]:
    """The wiring options given on the command line (not laid over from the config file), as spelled there."""
    from_config = getattr(args, "from_config", {})
    return [option for dest, option in WIRING_OPTIONS.items()
            if getattr(args, dest, None) not in (None, False) and dest not in from_config]


def probe_host(host: str | None) -> str:
    """The address this machine reaches a server listening on ``host`` at: 127.0.0.1 for every address (empty,
    0.0.0.0, ::), else that host (an IPv6 address in brackets, as a URL writes it)."""
    host = (host or "").strip().strip("[]")
    if host in ("", "0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def wiring_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The GateConfig fields the wiring options ask for (only those given)."""
    wiring: dict[str, Any] = {}
    if getattr(args, "pins", None) is not None:
        wiring["pins"] = parse_pins(args.pins)
    if getattr(args, "active_high", False):
        wiring.update(pull_up=None, active_state=True)
    elif getattr(args, "external_pull_up", False):
        wiring.update(pull_up=None, active_state=False)
    return wiring


def gate_settings(config: GateConfig, status: dict[str, Any]) -> list[tuple[str, str, list[str], str, str | None]]:
    """Each setting of the gates compared with the running service's (``companion gates`` and ``doctor``): its name
    in the config file's [gates], its option's dest (in ``from_config``), the options that set it, the value
    ``config`` asks for and the one the service reports in ``status`` (its health's gates; None if not reported)."""
    return [("pins", "pins", ["--pins"], pin_list(config.pins), pin_list([g["pin"] for g in status["gates"]])),
            ("wiring", "active_high", ["--active-high", "--external-pull-up"], config.wiring,
             status.get("wiring"))]


def config_from_args(args: argparse.Namespace) -> GateConfig:
    """The GateConfig the options ask for (GateConfigError if they cannot work)."""
    return GateConfig(**wiring_from_args(args))


def render(status: dict, *, source: str, recent: list[MarbleReading] | None = None) -> str:
    """The table of the six beams as text."""
    lines = [f"companion gates - {source} - {'all ok' if status['ok'] else 'CHECK THE GATES'}",
             "",
             f"{'gate':>4}  {'pin':<12}{'beam':<8}{'last ms':>8}{'marbles':>9}{'glitches':>10}"
             f"{'long':>6}  state"]
    for g in status["gates"]:
        flags = [name.upper() for name in ("stuck", "flaky") if g[name]]
        width = "-" if g["last_width_ms"] is None else f"{g['last_width_ms']:.1f}"
        pin = f"GPIO{g['pin']} ({PHYSICAL_PINS.get(g['pin'], '?')})"
        lines.append(
            f"{g['gate']:>4}  {pin:<12}{'BROKEN' if g['blocked'] else 'clear':<8}{width:>8}"
            f"{g['marbles']:>9}{g['glitches']:>10}{g['long_pulses']:>6}  "
            f"{' '.join(flags) or 'ok'}")
    if recent:
        lines += ["", "recent marbles:"]
        lines += [f"  {time.strftime('%H:%M:%S', time.localtime(r.at))}  gate {r.gate}  "
                  f"{r.width_ms:.1f} ms" for r in reversed(recent)]
    return "\n".join(lines)


def _roll_forever(sim: object, stop: threading.Event) -> None:
    """Random marbles (and now and then a glitch) until ``stop`` is set."""
    rng = random.Random()
    while not stop.wait(rng.uniform(0.4, 1.2)):
        if rng.random() < 0.1:
            sim.glitch(rng.randint(1, len(sim.pins)))  # type: ignore[attr-defined]
        else:
            sim.roll_random(rng)  # type: ignore[attr-defined]


def service_health(port: int, timeout: float = 5.0, host: str | None = None) -> dict | None:
    """The running companion's /api/health on this machine (``port``; ``host`` the address it listens on: see
    probe_host) as a JSON object, or None when nothing answers. A 503 (its table does not answer) still gives the
    report, with its ``error``."""
    if not port:
        return None
    url = f"http://{probe_host(host)}:{port}/api/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
            body = json.load(response)
    except urllib.error.HTTPError as err:  # 503 while its table does not answer: the rest is still reported
        try:
            body = json.load(err)
        except (OSError, ValueError):
            return None
    except (OSError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def service_gates(port: int, timeout: float = 5.0, host: str | None = None) -> dict | None:
    """The running companion's health on this machine (its ``sensors`` part; see service_health), or None."""
    body = service_health(port, timeout, host)
    sensors = body.get("sensors") if body is not None else None
    return sensors if isinstance(sensors, dict) and isinstance(sensors.get("gates"), dict) else None


def _from_service(args: argparse.Namespace, config: GateConfig, sensors: dict, out: TextIO,
                  poll: Callable[[], dict | None]) -> int:
    """The live view of the gates of the running service, polled over its API; ``config``: the wiring asked for."""
    port = args.port
    if not sensors["gates"].get("gates"):
        print(f"companion gates: the companion service on port {port} runs without gates: "
              f"{sensors['gates'].get('error')} (journalctl -u companion)", file=sys.stderr)
        return 2
    running = tuple(g["pin"] for g in sensors["gates"]["gates"])
    if given := wiring_given(args):
        print(f"companion gates: the running service's wiring is shown; {' and '.join(given)} "
              f"{'applies' if len(given) == 1 else 'apply'} only when it is stopped (sudo systemctl stop companion)",
              file=sys.stderr)
    else:  # what the config file says of the pins and their wiring, against what the service reports it runs with
        other = [(name, asked, runs) for name, dest, _, asked, runs in gate_settings(config, sensors["gates"])
                 if dest in getattr(args, "from_config", {}) and runs is not None and asked != runs]
        if other:
            print(f"companion gates: the config file says {' and '.join(f'{n} {a}' for n, a, _ in other)}; the "
                  f"service runs with {' and '.join(r for _, _, r in other)}: restart it (sudo systemctl restart "
                  "companion)", file=sys.stderr)
    if warning := reserved_pins_warning(running):
        print(f"companion gates: {warning}", file=sys.stderr)
    source = f"the companion service on port {port} (it holds the pins)"
    recent: deque[MarbleReading] = deque(maxlen=5)
    clear = _CLEAR_SCREEN if out.isatty() else ""
    try:
        while True:
            marble = sensors.get("last_marble")
            if marble and (not recent or recent[-1].at != marble["at"]):
                recent.append(MarbleReading(marble["gate"], float(marble["width_ms"]), float(marble["at"])))
            table = render(sensors["gates"], source=source, recent=list(recent))
            if args.once:
                print(table, file=out)
                return 0
            print(f"{clear}{table}\n\nCtrl-C to stop", file=out, flush=True)
            time.sleep(REFRESH_S)
            fresh = poll()
            if fresh is None:
                print("companion gates: the companion service stopped answering", file=sys.stderr)
                return 1
            sensors = fresh
    except KeyboardInterrupt:
        return 0


def pin_list(pins: Sequence[int]) -> str:
    return ",".join(map(str, pins))


def _on_pi() -> bool:
    try:
        return "Raspberry Pi" in PI_MODEL.read_text(errors="replace")
    except OSError:
        return False


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run `companion gates`; returns the process exit code."""
    out = out or sys.stdout
    port, host = getattr(args, "port", DEFAULT_PORT), getattr(args, "host", None)
    try:  # wrong pins are refused whether or not the service runs
        config = config_from_args(args)
    except GateConfigError as exc:
        print(f"companion gates: error: {exc}", file=sys.stderr)
        return 2
    if not args.simulate and (sensors := service_gates(port, host=host)) is not None:
        return _from_service(args, config, sensors, out, lambda: service_gates(port, host=host))
    if warning := reserved_pins_warning(config.pins):
        print(f"companion gates: {warning}", file=sys.stderr)
    recent: deque[MarbleReading] = deque(maxlen=5)
    factory = sim = None
    if args.simulate:
        from gpiozero.pins.mock import MockFactory

        from hardware.simulator import MarbleSimulator
        factory = MockFactory()
        sim = MarbleSimulator(factory, config.pins, active_low=not config.broken_level)
        for gate in range(1, len(config.pins) + 1):
            sim.clear(gate)  # idle level; stands in for external pull resistors
    gates = GateArray(config, recent.append, pin_factory=factory)
    stop = threading.Event()
    try:
        try:
            gates.start()
        except (GateConfigError, GateHardwareError) as exc:
            if args.simulate:
                hint = ""
            elif _on_pi():
                hint = (f" (no companion service answers on port {port}: is another program holding the "
                        "lines? sudo systemctl status companion)")
            else:
                hint = " (off a Pi, try --simulate)"
            print(f"companion gates: error: {exc}{hint}", file=sys.stderr)
            return 2
        source = "simulation (mock pins)" if args.simulate else gates.pin_factory_name
        if args.once:
            if sim is not None:  # one marble through each gate, so the table shows them
                for gate in range(1, len(config.pins) + 1):
                    sim.roll(gate, width_ms=8.0 + 4.0 * gate, chatter=gate % 2 == 0)
            gates.flush()
            print(render(gates.status(), source=source, recent=list(recent)), file=out)
            return 0
        if sim is not None:
            threading.Thread(target=_roll_forever, args=(sim, stop), daemon=True,
                             name="gates-simulator").start()
        clear = _CLEAR_SCREEN if out.isatty() else ""
        while True:
            table = render(gates.status(), source=source, recent=list(recent))
            print(f"{clear}{table}\n\nCtrl-C to stop", file=out, flush=True)
            time.sleep(REFRESH_S)
    except KeyboardInterrupt:
        return 0
    finally:
        stop.set()
        gates.close()
        if factory is not None:
            factory.close()


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m hardware.gates_cli``."""
    parser = argparse.ArgumentParser(prog="companion gates", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(pins_argv(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    sys.exit(main())

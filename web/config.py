"""The companion's config file (TOML): read, checked key by key, and laid over `companion serve`'s options.

`companion serve --config FILE` (or ``$COMPANION_CONFIG``) reads it; an option given on the command line
wins over the file. Every key is optional; unknown keys and bad values are refused with a one-line
:class:`ConfigError` naming the file, the key and the fix. systemd/companion.toml is the commented
template with every key at its default.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

ENV_VAR = "COMPANION_CONFIG"
WIRINGS = ("internal-pull-up", "external-pull-up", "active-high")
SENSOR_MODES = ("auto", "simulation", "hardware", "off")


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file, the key and the fix."""


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError("a non-empty string in quotes")
    return value


def _choice(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise TypeError("one of " + ", ".join(f'"{c}"' for c in choices))
        return value
    return check


def _integer(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise TypeError(f"a whole number from {low} to {high}")
        return value
    return check


THREADS = _integer(4, 256)
"""`serve`'s threads for the API and pages ([server] threads, --threads)."""
PORT = _integer(1, 65535)
"""The server's port: [server] port in the config file and `serve --port` alike."""


def _mains(value: Any) -> int:
    """The mains frequency: 0 (leave the camera's exposure be), 50 or 60."""
    from hardware.camera.sources import MAINS_CHOICES

    if isinstance(value, bool) or value not in MAINS_CHOICES:
        raise TypeError("0 (leave the camera's exposure be), 50 or 60 (Hz)")
    return int(value)


def _number(low: float, high: float) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise TypeError(f"a number from {low:g} to {high:g}")
        return float(value)
    return check


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("true or false")
    return value


def camera_source(value: Any) -> str:
    """"auto" (picamera2 on a Pi, the simulated castle elsewhere), "off", "simulation" or a frame source spec
    ([camera] source, `companion doctor --camera`); TypeError says what to write."""
    value = _string(value)
    if value in ("auto", "off", "simulation"):
        return value
    from hardware.camera.sources import SPEC_HELP, open_source  # builds the source, opens nothing

    usage = f'"auto", "off", or a camera spec: {SPEC_HELP}'
    try:
        open_source(value)
    except ValueError as err:  # the list of specs once, with what is wrong when it says more than that
        raise TypeError(usage if SPEC_HELP in str(err) else f"{usage} ({err})") from None
    return value


def _pins(value: Any) -> tuple[int, ...]:
    if (not isinstance(value, list) or len(value) != 6
            or any(isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 27 for p in value)):
        raise TypeError("a list of six BCM pin numbers (0..27) for gates 1..6, like [17, 27, 22, 23, 24, 25]")
    if len(set(value)) != 6:
        raise TypeError("six different pins: one pin per gate")
    return tuple(value)


def _network(text: Any) -> str:
    """One socket peer that counts as the kiosk: an IP address or a network ("127.0.0.0/8")."""
    if not isinstance(text, str) or not text.strip():
        raise TypeError(f"{text!r} is not an address in quotes")
    try:
        ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise TypeError(f"{text!r} is not an IP address or network") from None
    return text.strip()


_HOST_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_HOST_NAME = re.compile(rf"{_HOST_LABEL}(\.{_HOST_LABEL})*\.?", re.IGNORECASE)


def _host(text: Any) -> str:
    """One extra name the Pi answers to: a host name ("dragon.lan") or an IP address, without scheme or port."""
    if not isinstance(text, str) or not text.strip():
        raise TypeError(f"{text!r} is not a name in quotes")
    name = text.strip()
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        pass
    if len(name) > 253 or not _HOST_NAME.fullmatch(name):
        raise TypeError(f"{text!r} is not a host name or IP address (no http://, port or path)")
    return name


class _ListOf:
    """A checker for a list of ``item``s; ``what`` and ``example`` make the message, ``empty`` allows []."""

    def __init__(self, item: Callable[[Any], str], what: str, example: list[str], empty: bool) -> None:
        self.item, self.what, self.example, self.empty = item, what, example, empty

    def __call__(self, value: Any, *, separator: str | None = None) -> list[str]:
        """The checked list; TypeError says what to write (as a TOML list, or joined by ``separator``)."""
        like = ", ".join(f'"{e}"' for e in self.example) if separator is None else separator.join(self.example)
        usage = (f"a list of {self.what}, like [{like}]" if separator is None
                 else f"{self.what}, separated by \"{separator}\", like {like}")
        if not isinstance(value, list):
            raise TypeError(usage)
        if not value and not self.empty:
            raise TypeError(usage + " (at least one)")
        try:
            return [self.item(entry) for entry in value]
        except TypeError as err:
            raise TypeError(f"{usage}: {err}") from None


KIOSK_PEERS = _ListOf(_network, "the IP addresses or networks of the Pi's own screen", ["127.0.0.0/8", "::1"],
                      empty=False)
ALLOWED_HOSTS = _ListOf(_host, "extra host names or addresses the Pi answers to", ["dragon.lan"], empty=True)
WRITE_RATE = _number(0.1, 1000.0)
WRITE_BURST = _integer(1, 10000)


#: section -> key -> checker; the checker returns the value to use or raises TypeError("what is expected").
SCHEMA: dict[str, dict[str, Callable[[Any], Any]]] = {
    "server": {"host": _string, "port": PORT, "threads": THREADS, "data": _string},
    "sensors": {"mode": _choice(*SENSOR_MODES), "beams": _boolean},
    "gates": {"pins": _pins, "wiring": _choice(*WIRINGS)},
    "camera": {"source": camera_source, "fps": _number(0.5, 30.0), "settle_s": _number(0.0, 10.0),
               "marker_mm": _number(20.0, 70.0), "marble_mm": _number(5.0, 50.0),
               "keep_photos": _boolean, "keep_photos_max": _integer(1, 100000), "mains_hz": _mains},
    "access": {"kiosk_peers": KIOSK_PEERS, "spectators": _boolean, "allowed_hosts": ALLOWED_HOSTS,
               "write_rate": WRITE_RATE, "write_burst": WRITE_BURST},
}

#: [camera] keys that go to app.config as they are (no `serve` option carries them).
CAMERA_APP_CONFIG = {"fps": "CAMERA_FPS", "settle_s": "CAMERA_SETTLE_S", "marker_mm": "CAMERA_MARKER_MM",
                     "marble_mm": "CAMERA_MARBLE_MM", "keep_photos": "CAMERA_KEEP_PHOTOS",
                     "keep_photos_max": "CAMERA_KEEP_MAX", "mains_hz": "CAMERA_MAINS_HZ"}

#: [access] keys (who may write, web/trust.py) -> their app.config names; `serve` options of the same names win.
ACCESS_APP_CONFIG = {"kiosk_peers": "KIOSK_PEERS", "spectators": "SPECTATORS", "allowed_hosts": "ALLOWED_HOSTS",
                     "write_rate": "WRITE_RATE", "write_burst": "WRITE_BURST"}


@dataclass(frozen=True)
class Settings:
    """The checked contents of one config file: only the keys it sets."""

    path: str
    values: dict[str, dict[str, Any]] = field(default_factory=dict)

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.values.get(section, {}).get(key, default)

    def app_config(self) -> dict[str, Any]:
        """The app.config keys the file sets beside `serve`'s own options: camera timing, sizes and photos, and who
        may write ([access]; `serve`'s --kiosk-peers and the like win over these, see access_from_args)."""
        found = {name: value for key, name in CAMERA_APP_CONFIG.items()
                 if (value := self.get("camera", key)) is not None}
        found.update({name: value for key, name in ACCESS_APP_CONFIG.items()
                      if (value := self.get("access", key)) is not None})
        return found


def option_type(checker: Callable[[Any], Any], *, number: type | None = None) -> Callable[[str], Any]:
    """An argparse type that checks a `serve` option as the config file's key is checked: comma-separated for a
    list, converted to ``number`` first for a number; a bad value is one line naming what to use."""
    def convert(text: str) -> Any:
        try:
            if isinstance(checker, _ListOf):
                return checker([part.strip() for part in text.split(",") if part.strip()], separator=",")
            if number is not None:
                try:
                    return checker(number(text))
                except ValueError:
                    checker(None)  # says what is expected
            return checker(text)
        except TypeError as err:
            raise argparse.ArgumentTypeError(f"{text!r} is not valid; use {err}") from None
    return convert


def add_access_arguments(parser: argparse.ArgumentParser) -> None:
    """`serve`'s options for who may write, the [access] keys of the config file (web/trust.py); each wins over
    the file's key."""
    group = parser.add_argument_group("who may write ([access] in the config file)")
    group.add_argument("--kiosk-peers", metavar="NETS", type=option_type(KIOSK_PEERS), default=None,
                       help="socket peers that count as the Pi's own screen, comma-separated addresses or networks "
                            "(default 127.0.0.0/8,::1)")
    group.add_argument("--spectators", action=argparse.BooleanOptionalAction, default=None,
                       help="whether unpaired devices may watch, live streams included (default: they may)")
    group.add_argument("--allowed-hosts", metavar="NAMES", type=option_type(ALLOWED_HOSTS),
                       default=None, help="host names accepted besides the Pi's own names and addresses, "
                                          "comma-separated (default none)")
    group.add_argument("--write-rate", metavar="N", type=option_type(WRITE_RATE, number=float), default=None,
                       help="writes a second each device may make, sustained (default 20)")
    group.add_argument("--write-burst", metavar="N", type=option_type(WRITE_BURST, number=int), default=None,
                       help="writes each device may make at once (default 40)")


def access_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The app.config keys of the who-may-write options given on the command line."""
    return {name: value for key, name in ACCESS_APP_CONFIG.items() if (value := getattr(args, key, None)) is not None}


def config_path(option: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
    """The config file to read: the --config option, else $COMPANION_CONFIG, else none."""
    return option or environ.get(ENV_VAR) or None


INSTALLED = Path("/etc/dragon-table/companion.toml")
"""The config file systemd/install.sh writes, which the service reads."""


def by_hand_path(option: str | None) -> str | None:
    """The config file a tool run by hand on the Pi reads (`companion doctor`, `companion gates`): the one named, else
    the installed one the service reads, if there is one."""
    return config_path(option) or (str(INSTALLED) if INSTALLED.exists() else None)


def apply_by_hand(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str | None:
    """`companion gates`: the port, pins and wiring of the config file the service reads (``by_hand_path``) where the
    command line left them; the file read, or None (ConfigError)."""
    path = by_hand_path(getattr(args, "config", None))
    if path is not None:
        _lay_over(args, parser, path)
    return path


def load(path: str | os.PathLike[str]) -> Settings:
    """Read and check the config file at ``path``; ConfigError names the first mistake."""
    where = str(path)
    try:
        with open(path, "rb") as file:
            raw = tomllib.load(file)
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such config file; copy systemd/companion.toml there, "
                          f"or leave out --config and ${ENV_VAR}") from None
    except OSError as err:
        raise ConfigError(f"{where}: cannot read the config file: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{where}: not valid TOML: {err}") from None
    return Settings(where, check(raw, where))


def check(raw: Mapping[str, Any], where: str = "config") -> dict[str, dict[str, Any]]:
    """The checked values of a parsed TOML document; ConfigError for an unknown key or a bad value."""
    values: dict[str, dict[str, Any]] = {}
    for section, table in raw.items():
        home = [name for name, keys in SCHEMA.items() if section in keys]
        if home and not isinstance(table, dict):  # a key above the first [section] line
            raise ConfigError(f"{where}: {section} belongs under [{home[0]}]: move the line below the "
                              f"[{home[0]}] line")
        if section not in SCHEMA and not isinstance(table, dict):
            raise ConfigError(f"{where}: unknown key {section} above the first [section] line; the sections are "
                              + ", ".join(f"[{s}]" for s in SCHEMA))
        if section not in SCHEMA:
            raise ConfigError(f"{where}: unknown section [{section}]; the sections are "
                              + ", ".join(f"[{s}]" for s in SCHEMA))
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: {section} must be a section: write [{section}] on a line of its own")
        for key, value in table.items():
            checker = SCHEMA[section].get(key)
            if checker is None:
                raise ConfigError(f"{where}: unknown key {section}.{key}; [{section}] takes "
                                  + ", ".join(SCHEMA[section]))
            try:
                values.setdefault(section, {})[key] = checker(value)
            except TypeError as err:
                raise ConfigError(f"{where}: {section}.{key} = {value!r} is not valid; use {err}") from None
    return values


def apply_to_args(args: argparse.Namespace, settings: Settings, defaults: Mapping[str, Any]) -> None:
    """Lay the file's values over `serve`'s parsed options where the command line left the default.

    ``defaults`` are the parser's defaults (option dest -> value); ``args.app_config`` receives the
    app.config keys no option carries, ``args.from_config`` the options the file set (dest -> "[section] key").
    """
    def unset(dest: str) -> bool:
        return getattr(args, dest, None) == defaults.get(dest)

    laid: dict[str, str] = {}  # option dest -> the key of the file that set it

    simple = {"host": ("server", "host"), "port": ("server", "port"), "threads": ("server", "threads"),
              "data": ("server", "data"), "sensors": ("sensors", "mode"), "camera": ("camera", "source")}
    for dest, (section, key) in simple.items():
        value = settings.get(section, key)
        if value is not None and value != "auto" and unset(dest):
            setattr(args, dest, value)
            laid[dest] = f"[{section}] {key}"
    if settings.get("sensors", "beams") is False and unset("no_beams"):
        args.no_beams = True
    pins = settings.get("gates", "pins")
    if pins is not None and unset("pins"):
        args.pins = ",".join(map(str, pins))
        laid["pins"] = "[gates] pins"
    wiring = settings.get("gates", "wiring")
    if wiring is not None and unset("active_high") and unset("external_pull_up"):
        args.active_high = wiring == "active-high"
        args.external_pull_up = wiring == "external-pull-up"
        laid.update(active_high="[gates] wiring", external_pull_up="[gates] wiring")
    args.app_config = settings.app_config()
    args.from_config = laid


def apply_config_file(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """`serve --config FILE` / $COMPANION_CONFIG: read the file and lay it over ``args`` (ConfigError)."""
    path = config_path(getattr(args, "config", None))
    args.app_config = {}
    if path is not None:
        _lay_over(args, parser, path)


def _lay_over(args: argparse.Namespace, parser: argparse.ArgumentParser, path: str) -> None:
    """The file at ``path`` laid over the options of ``args.command`` that its command line left at their defaults."""
    defaults = {action.dest: action.default for action in _subparser(parser, args.command)._actions}
    apply_to_args(args, load(path), defaults)


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    return parser

"""The companion's config file (TOML): read, checked key by key, and laid over `companion serve`'s options.

`companion serve --config FILE` (or ``$COMPANION_CONFIG``) reads it; an option given on the command line
wins over the file. Every key is optional; unknown keys and bad values are refused with a one-line
:class:`ConfigError` naming the file, the key and the fix. systemd/companion.toml is the commented
template with every key at its default.
"""
from __future__ import annotations

import argparse
import os
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


def _camera(value: Any) -> str:
    """"auto" (picamera2 on a Pi, the simulated castle elsewhere), "off", "simulation" or a frame source spec."""
    value = _string(value)
    if value in ("auto", "off", "simulation"):
        return value
    from hardware.camera.sources import SPEC_HELP, open_source  # builds the source, opens nothing

    try:
        open_source(value)
    except ValueError as err:
        raise TypeError(f'"auto", "off", or a camera spec: {SPEC_HELP} ({err})') from None
    return value


def _pins(value: Any) -> tuple[int, ...]:
    if (not isinstance(value, list) or len(value) != 6
            or any(isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 27 for p in value)):
        raise TypeError("a list of six BCM pin numbers (0..27) for gates 1..6, like [17, 27, 22, 23, 24, 25]")
    if len(set(value)) != 6:
        raise TypeError("six different pins: one pin per gate")
    return tuple(value)


#: section -> key -> checker; the checker returns the value to use or raises TypeError("what is expected").
SCHEMA: dict[str, dict[str, Callable[[Any], Any]]] = {
    "server": {"host": _string, "port": _integer(1, 65535), "threads": _integer(4, 256), "data": _string},
    "sensors": {"mode": _choice(*SENSOR_MODES), "beams": _boolean},
    "gates": {"pins": _pins, "wiring": _choice(*WIRINGS)},
    "camera": {"source": _camera, "fps": _number(0.5, 30.0), "settle_s": _number(0.0, 10.0),
               "marker_mm": _number(20.0, 70.0), "marble_mm": _number(5.0, 50.0),
               "keep_photos": _boolean, "keep_photos_max": _integer(1, 100000), "mains_hz": _mains},
}

#: [camera] keys that go to app.config as they are (no `serve` option carries them).
CAMERA_APP_CONFIG = {"fps": "CAMERA_FPS", "settle_s": "CAMERA_SETTLE_S", "marker_mm": "CAMERA_MARKER_MM",
                     "marble_mm": "CAMERA_MARBLE_MM", "keep_photos": "CAMERA_KEEP_PHOTOS",
                     "keep_photos_max": "CAMERA_KEEP_MAX", "mains_hz": "CAMERA_MAINS_HZ"}


@dataclass(frozen=True)
class Settings:
    """The checked contents of one config file: only the keys it sets."""

    path: str
    values: dict[str, dict[str, Any]] = field(default_factory=dict)

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.values.get(section, {}).get(key, default)

    def app_config(self) -> dict[str, Any]:
        """The app.config keys the file sets that no `serve` option carries (camera timing, sizes, photos)."""
        return {name: value for key, name in CAMERA_APP_CONFIG.items()
                if (value := self.get("camera", key)) is not None}


def config_path(option: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
    """The config file to read: the --config option, else $COMPANION_CONFIG, else none."""
    return option or environ.get(ENV_VAR) or None


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
    app.config keys no option carries.
    """
    def unset(dest: str) -> bool:
        return getattr(args, dest, None) == defaults.get(dest)

    simple = {"host": ("server", "host"), "port": ("server", "port"), "threads": ("server", "threads"),
              "data": ("server", "data"), "sensors": ("sensors", "mode"), "camera": ("camera", "source")}
    for dest, (section, key) in simple.items():
        value = settings.get(section, key)
        if value is not None and value != "auto" and unset(dest):
            setattr(args, dest, value)
    if settings.get("sensors", "beams") is False and unset("no_beams"):
        args.no_beams = True
    pins = settings.get("gates", "pins")
    if pins is not None and unset("pins"):
        args.pins = ",".join(map(str, pins))
    wiring = settings.get("gates", "wiring")
    if wiring is not None and unset("active_high") and unset("external_pull_up"):
        args.active_high = wiring == "active-high"
        args.external_pull_up = wiring == "external-pull-up"
    args.app_config = settings.app_config()


def apply_config_file(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """`serve --config FILE` / $COMPANION_CONFIG: read the file and lay it over ``args`` (ConfigError)."""
    path = config_path(getattr(args, "config", None))
    args.app_config = {}
    if path is None:
        return
    defaults = {action.dest: action.default for action in _serve_parser(parser)._actions}
    apply_to_args(args, load(Path(path)), defaults)


def _serve_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices["serve"]
    return parser

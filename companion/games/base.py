"""What every game module declares: options, event types and the pure setup/apply/view trio."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


class RuleError(Exception):
    """An event the rules refuse. `rule` names the rulebook section or ruling (e.g. "D5")."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.rule = rule
        self.message = message


class IllegalEventError(RuleError):
    """The event is well formed but not allowed in this state."""


class MalformedEventError(RuleError):
    """The event is missing a field or a field has the wrong type or range."""


@dataclass(frozen=True)
class Option:
    """A documented game option; `default` follows the ruling cited in `ruling`."""

    id: str
    name: str
    kind: str  # "int" | "bool" | "names"
    default: Any
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None
    length: int | None = None  # for "names": exact number of entries
    ruling: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.id, "name": self.name, "kind": self.kind, "default": self.default, "help": self.help}
        for key in ("minimum", "maximum", "length", "ruling"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class EventType:
    """One event a game accepts, documented for the OpenAPI document."""

    type: str
    summary: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...]
    example: Mapping[str, Any]


@dataclass(frozen=True)
class Game:
    """A game as the registry knows it. setup/apply/view are pure functions over frozen state."""

    id: str
    name: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    event_types: tuple[EventType, ...]
    setup: Callable[[tuple[str, ...], Mapping[str, Any]], Any]
    apply: Callable[[Any, Mapping[str, Any]], Any]
    view: Callable[[Any], dict[str, Any]]
    rulings: tuple[str, ...] = field(default=())
    #: Hides what the table may not see yet in the log listing (e.g. face-down guesses).
    redact: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] = field(default=lambda events: events)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": [o.to_json() for o in self.options],
            "events": [e.type for e in self.event_types],
        }

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults merged with `given`, each value checked; raises MalformedEventError naming the option."""
        if given is None:
            given = {}
        if not isinstance(given, Mapping):
            raise MalformedEventError("options", "options must be an object")
        known = {o.id: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise MalformedEventError("options", f"unknown option {unknown[0]!r} for {self.name}")
        resolved: dict[str, Any] = {}
        for option in self.options:
            value = given.get(option.id, option.default)
            resolved[option.id] = _check_option(option, value)
        return resolved


def _check_option(option: Option, value: Any) -> Any:
    rule = option.ruling or "options"
    if option.kind == "bool":
        if not isinstance(value, bool):
            raise MalformedEventError(rule, f"option {option.id!r} must be true or false")
        return value
    if option.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise MalformedEventError(rule, f"option {option.id!r} must be a whole number")
        if (option.minimum is not None and value < option.minimum) or (
            option.maximum is not None and value > option.maximum
        ):
            raise MalformedEventError(
                rule, f"option {option.id!r} must be between {option.minimum} and {option.maximum}"
            )
        return value
    if option.kind == "names":
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
            raise MalformedEventError(rule, f"option {option.id!r} must be a list of non-empty names")
        if option.length is not None and len(value) != option.length:
            raise MalformedEventError(rule, f"option {option.id!r} needs exactly {option.length} names")
        return [v.strip()[:24] for v in value]
    raise ValueError(f"unknown option kind {option.kind}")


def require_int(event: Mapping[str, Any], key: str, low: int, high: int, rule: str) -> int:
    """The integer field `key` of `event`, within [low, high], or a MalformedEventError naming `rule`."""
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedEventError(rule, f"{key!r} must be a whole number from {low} to {high}")
    if not low <= value <= high:
        raise MalformedEventError(rule, f"{key!r} must be from {low} to {high}, not {value}")
    return value

"""What every game module declares: options, event types and the pure setup/apply/view trio, and the
typed contract of the view every game returns."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TypedDict

RULES_VERSION = "rules_version"
"""The key under which ``Game.setup`` finds, beside a session's options, the rules version the session was recorded
under (``Game.rules_version`` when it is new): a game whose rules changed may fold an older log by the rules it was
played under, so a game in progress, or a finished one, is never set aside by an update."""


def recorded_rules(options: Mapping[str, Any], today: int) -> int:
    """The rules version ``setup`` was given beside ``options`` (``RULES_VERSION``), ``today`` when none."""
    version = options.get(RULES_VERSION, today)
    return version if isinstance(version, int) and not isinstance(version, bool) else today


def listed(names: list[str]) -> str:
    """Names as a sentence lists them: "Ada", "Ada and Ben", "Ada, Ben and Cleo"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


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
    kind: str  # "int" | "bool" | "names" | "symbols" (a list of ids, each one of `choices`) | "object"
    default: Any
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None
    length: int | None = None  # for "names" and "symbols": exact number of entries
    ruling: str | None = None
    choices: tuple[str, ...] | None = None  # for "symbols"
    labels: Mapping[str, str] | None = None  # for "symbols": what a page shows for each choice
    #: For "object": the game's own check of a JSON object value; returns the value to keep or raises
    #: MalformedEventError naming the ruling.
    check: Callable[[Any], Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.id, "name": self.name, "kind": self.kind, "default": self.default, "help": self.help}
        for key in ("minimum", "maximum", "length", "ruling", "choices"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.labels is not None:
            data["labels"] = dict(self.labels)
        return data


@dataclass(frozen=True)
class EventType:
    """One event a game accepts: its fields as a JSON-Schema subset (see companion.games.schema), which is
    both the OpenAPI document and the one validation every event passes before `apply` sees it."""

    type: str
    summary: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...]
    example: Mapping[str, Any]
    rule: str = "events"  # the ruling a malformed event of this type is refused under
    #: The sources that may make this event (``companion.table.SOURCES``), None for any: a reading only the table's
    #: own hardware makes (the camera's) names it, and ``Table.submit`` refuses it from any other writer, a tap on a
    #: page or an API client, with `refusal` (the log of an older game folds as it was recorded all the same).
    sources: tuple[str, ...] | None = None
    refusal: str = ""  # what a writer refused by `sources` is told: where the event comes from, what to do instead

    def made_by(self, source: str) -> bool:
        """Whether `source` may make this event."""
        return self.sources is None or source in self.sources


class RoundPoints(TypedDict):
    """One row of the final screen's per-round breakdown."""

    round: int
    label: str
    points: dict[str, int]


class GameView(TypedDict, total=False):
    """The common part of every game's view (a game adds its own keys). Checked by the contract test."""

    finished: bool
    winners: list[str]
    round: int | None
    scores: dict[str, int]
    turn: str | None
    breakdown: list[RoundPoints]
    breakdown_heading: str  # the breakdown's first column, when its rows are no rounds ("Round" by default)


#: The keys and types of GameView every view must have.
VIEW_CONTRACT: dict[str, tuple[type, ...]] = {
    "finished": (bool,), "winners": (list,), "round": (int, type(None)), "scores": (dict,),
    "turn": (str, type(None)), "breakdown": (list,),
}


def contract_problems(view: Mapping[str, Any], players: tuple[str, ...]) -> list[str]:
    """What is wrong with `view` against the common contract (empty when it holds)."""
    problems = [f"{key!r} missing or not {'/'.join(t.__name__ for t in kinds)}"
                for key, kinds in VIEW_CONTRACT.items()
                if key not in view or not isinstance(view[key], kinds)
                or (isinstance(view[key], bool) and bool not in kinds)]
    if problems:
        return problems
    if set(view["scores"]) != set(players) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in view["scores"].values()):
        problems.append("scores must map every player to a whole number")
    if not set(view["winners"]) <= set(players) or (view["finished"] and not view["winners"]
                                                   and not view.get("no_winner")):
        problems.append("winners must be players, and a finished game has winners (or says no_winner)")
    if view["turn"] is not None and view["turn"] not in players:
        problems.append("turn must be a player or null")
    for row in view["breakdown"]:
        if not (isinstance(row, dict) and isinstance(row.get("round"), int) and isinstance(row.get("label"), str)
                and isinstance(row.get("points"), dict) and set(row["points"]) <= set(players)):
            problems.append(f"breakdown row {row!r} must have round, label and points by player")
    return problems


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
    view: Callable[[Any], dict[str, Any]]  # its `expects`: what a writer at the table (a tap) may send now
    rulings: tuple[str, ...] = field(default=())
    #: Hides what the table may not see yet in the log listing (e.g. face-down guesses).
    redact: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] = field(default=lambda events: events)
    #: A short description of an event for people ("marble in gate 2", "marble in Moon"), used when it is undone or
    #: redone; given the session's options too (a table's own names for what the event names).
    describe: Callable[[Mapping[str, Any], Mapping[str, Any]], str] = field(
        default=lambda event, options: str(event.get("type")))
    #: One random legal event for `state` (None when the game is over): random play in the tests.
    sample: Callable[[Any, random.Random], Mapping[str, Any] | None] | None = None
    #: Raised whenever a change to the rules could refuse logs recorded before; stored with each session, and given
    #: to `setup` beside the options (`RULES_VERSION`) so that the game may fold an older log by its older rules.
    rules_version: int = 1
    #: The first round's starter is chosen at the table once the game runs (an event of the game's own), not the
    #: first seat: the new-game form says so instead of marking seat 1 as the one who starts.
    starter_at_table: bool = False
    #: The command step: completes a requested event before it is validated and applied, e.g. rolls the dice a
    #: request left out (`rng` is the table's random source), so the stored event replays exactly. Pure
    #: given `rng`; `apply` never draws randomness itself.
    prepare: Callable[[Any, Mapping[str, Any], random.Random], Mapping[str, Any]] | None = None

    def event_type(self, kind: Any) -> EventType | None:
        """The declared event type named `kind`, or None."""
        return next((e for e in self.event_types if e.type == kind), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "starter_at_table": self.starter_at_table,
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
    if option.kind == "symbols":
        choices = option.choices or ()
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v in choices for v in value):
            raise MalformedEventError(rule, f"option {option.id!r} must list symbols from: {', '.join(choices)}")
        if option.length is not None and len(value) != option.length:
            raise MalformedEventError(rule, f"option {option.id!r} needs exactly {option.length} symbols")
        _each_once(option, value, rule)  # a gate's symbol, a seat's hero: two of one could not be told apart
        return list(value)
    if option.kind == "names":
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() and is_clean_text(v)
                                                           for v in value):
            raise MalformedEventError(rule, f"option {option.id!r} must be a list of non-empty names")
        if option.length is not None and len(value) != option.length:
            raise MalformedEventError(rule, f"option {option.id!r} needs exactly {option.length} names")
        names = [v.strip()[:24] for v in value]
        _each_once(option, names, rule)  # two gates or dragon colours of one name could not be told apart at the table
        return names
    if option.kind == "object":
        if option.check is None:
            raise ValueError(f"option {option.id!r} of kind 'object' declares no check")
        if not isinstance(value, Mapping):
            raise MalformedEventError(rule, f"option {option.id!r} must be an object")
        return option.check(value)
    raise ValueError(f"unknown option kind {option.kind}")


def _each_once(option: Option, values: Sequence[str], rule: str) -> None:
    """Refuse ``values`` of ``option`` that hold one twice (names alike but for their case are one)."""
    seen: set[str] = set()
    for value in values:
        if value.casefold() in seen:
            raise MalformedEventError(rule, f"option {option.id!r} names each one once: {value!r} is there twice")
        seen.add(value.casefold())


def require_int(event: Mapping[str, Any], key: str, low: int, high: int, rule: str) -> int:
    """The integer field `key` of `event`, within [low, high], or a MalformedEventError naming `rule`."""
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedEventError(rule, f"{key!r} must be a whole number from {low} to {high}")
    if not low <= value <= high:
        raise MalformedEventError(rule, f"{key!r} must be from {low} to {high}, not {value}")
    return value


def is_clean_text(text: str) -> bool:
    """No lone surrogates and no control characters: text that SQLite, JSON and a page all take as it is."""
    return not any(0xD800 <= ord(c) <= 0xDFFF or ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text)

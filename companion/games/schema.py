"""Strict validation of events against their declared EventType, in one place, before `apply` sees them.

The schema is the JSON-Schema subset the game modules declare (and the OpenAPI document shows): `type`
integer | number | string | boolean | array | object, `nullable`, `minimum`/`maximum`, `enum`,
`maxLength`, `items`, `minItems`/`maxItems`, `properties`. Unknown fields are refused, strings and arrays
are bounded even where a game declares no bound, and NaN, infinities and lone surrogates never pass.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from .base import Game, MalformedEventError, is_clean_text

MAX_STRING = 64
MAX_ITEMS = 64
MAX_DEPTH = 4
ENVELOPE = ("type", "expected_seq")  # fields of the request, not of the event


def validate_event(game: Game, event: Mapping[str, Any]) -> dict[str, Any]:
    """The event's own fields (without the envelope), checked against its declared type; raises
    MalformedEventError naming the field and the event type's rule, and changes nothing."""
    kind = event.get("type")
    declared = game.event_type(kind) if isinstance(kind, str) else None
    if declared is None:
        known = ", ".join(e.type for e in game.event_types)
        raise MalformedEventError("events", f"{game.name} has no event {kind!r}; its events are {known}")
    payload = {k: v for k, v in event.items() if k not in ENVELOPE}
    return validate_fields(declared.properties, declared.required, payload, declared.rule, f"a {kind!r} event")


def validate_fields(properties: Mapping[str, Mapping[str, Any]], required: tuple[str, ...],
                    payload: Mapping[str, Any], rule: str, what: str) -> dict[str, Any]:
    """`payload` checked against `properties` (the same schema subset): unknown fields refused, `required`
    present; raises MalformedEventError naming the field and `rule`. `what` names the whole in messages."""
    unknown = sorted(str(k) for k in payload if k not in properties)
    if unknown:
        raise MalformedEventError(rule, f"{what} has no field {unknown[0]!r}")
    for name in required:
        if name not in payload:
            raise MalformedEventError(rule, f"{what} needs {name!r}")
    for name, value in payload.items():
        _check(rule, name, value, properties[name], 1)
    return dict(payload)


def _check(rule: str, path: str, value: Any, schema: Mapping[str, Any], depth: int) -> None:
    def refuse(what: str) -> MalformedEventError:
        return MalformedEventError(rule, f"{path!r} {what}")

    if depth > MAX_DEPTH:
        raise refuse(f"is nested more than {MAX_DEPTH} levels deep")
    if value is None:
        if schema.get("nullable"):
            return
        raise refuse("must not be null")
    kind = schema.get("type")
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse("must be a whole number")
        _range(refuse, value, schema)
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise refuse("must be a finite number")
        _range(refuse, value, schema)
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise refuse("must be true or false")
    elif kind == "string":
        if not isinstance(value, str):
            raise refuse("must be text")
        if len(value) > int(schema.get("maxLength", MAX_STRING)) or not is_clean_text(value):
            raise refuse(f"must be plain text of at most {schema.get('maxLength', MAX_STRING)} characters")
    elif kind == "array":
        if not isinstance(value, list):
            raise refuse("must be a list")
        least, most = int(schema.get("minItems", 0)), int(schema.get("maxItems", MAX_ITEMS))
        if not least <= len(value) <= most:
            wanted = f"exactly {most}" if least == most else f"at most {most}" if least == 0 else f"{least} to {most}"
            raise refuse(f"must list {wanted} items")
        for i, item in enumerate(value):
            _check(rule, f"{path}[{i}]", item, schema.get("items", {}), depth + 1)
    elif kind == "object":
        if not isinstance(value, dict):
            raise refuse("must be an object")
        fields = schema.get("properties", {})
        for key, item in value.items():
            if key not in fields:
                raise refuse(f"has no field {key!r}")
            _check(rule, f"{path}.{key}", item, fields[key], depth + 1)
    else:
        raise ValueError(f"{path}: undeclared schema type {kind!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise refuse(f"must be one of {', '.join(map(str, schema['enum']))}")


def _range(refuse: Any, value: float, schema: Mapping[str, Any]) -> None:
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        raise refuse(f"must be from {low} to {high}, not {value}")

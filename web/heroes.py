"""Dračí hrad's hero cards kept across games (ruling H2): the page that edits them and their API."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, render_template

from companion.games.base import listed
from companion.games.draci_hrad.catalogue import CARD_LIMITS, HERO_NAMES, HEROES, RESTRICTED
from companion.hero_store import HeroCardStore

from . import api  # the body parser; api imports this module's OpenAPI paths (through openapi)

bp = Blueprint("heroes", __name__)


def store() -> HeroCardStore:
    return current_app.extensions["hero_cards"]


def not_copied() -> str | None:
    """What Home says, where Dračí hrad is chosen, of the hero cards never copied from the physical ones: those heroes
    play with placeholder numbers (ruling H2). None once all six are copied."""
    edited = store().edited()
    missing = [HERO_NAMES[hero].split(" ")[0] for hero in HEROES if hero not in edited]
    if not missing:
        return None
    if len(missing) == len(HEROES):
        return "No hero card is copied from the physical cards yet: the heroes play with placeholder numbers."
    return f"Not copied from the physical cards yet: {listed(missing)}, who play with placeholder numbers."


@bp.get("/heroes")
def page() -> str:
    return render_template("heroes.html", cards=store().document())


@bp.get("/api/hero-cards")
def cards():
    return jsonify(store().document())


@bp.put("/api/hero-cards/<hero>")
def save(hero: str):
    return jsonify(store().save(hero, api.json_body()))


def _card_schema(partial: bool) -> dict[str, Any]:
    numbers = {key: {"type": "integer", "minimum": low, "maximum": high} for key, (low, high) in CARD_LIMITS.items()}
    schema: dict[str, Any] = {
        "type": "object", "additionalProperties": False,
        "properties": {**numbers, "weapons": {"type": "array", "uniqueItems": True, "maxItems": len(RESTRICTED),
                                              "items": {"type": "string", "enum": list(RESTRICTED)}},
                       "magic": {"type": "boolean"}},
        "description": "A hero card (ruling H2): attack, defence, lives, red (at or below it no attack; below "
                       "the lives), the restricted weapons the hero may use, and magic objects allowed."}
    if not partial:
        schema["required"] = [*CARD_LIMITS, "weapons", "magic"]
    return schema


_ERROR = {"$ref": "#/components/schemas/Error"}
_DOCUMENT = {"type": "object", "properties": {
    "cards": {"type": "object", "additionalProperties": _card_schema(False)},
    "defaults": {"type": "object", "additionalProperties": _card_schema(False)},
    "from_rulebook": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
    "edited": {"type": "array", "items": {"type": "string", "enum": list(HEROES)}},
    "order": {"type": "array", "items": {"type": "string", "enum": list(HEROES)}},
    "names": {"type": "object", "additionalProperties": {"type": "string"}},
    "limits": {"type": "object"}, "weapons": {"type": "array", "items": {"type": "string"}},
    "rule": {"type": "string"}}}
_ANSWER = {"description": "the six hero cards, their starting values (which the rulebook gives) and which "
                          "were edited",
           "content": {"application/json": {"schema": _DOCUMENT}}}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ERROR}}}


OPENAPI_PATHS: dict[str, Any] = {
    "/api/hero-cards": {"get": {
        "summary": "Dračí hrad's hero cards kept across games (ruling H2); new games take them",
        "responses": {"200": _ANSWER}}},
    "/api/hero-cards/{hero}": {"put": {
        "summary": "Set a hero card from the physical card; fields left out keep the stored values. A card "
                   "that does not hold (a number out of range, red at or above the lives) is refused (H2)",
        "parameters": [{"name": "hero", "in": "path", "required": True,
                        "schema": {"type": "string", "enum": list(HEROES)}, "example": "arcana"}],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": _card_schema(True),
            "example": {"attack": 11, "defence": 11, "lives": 10, "red": 3, "weapons": ["two_hand_sword", "bow"],
                        "magic": True}}}},
        "responses": {"200": _ANSWER,
                      "400": _error("malformed or refused by ruling H2 (the message names the field)"),
                      "403": _error("this device is not paired; the message says how to pair"),
                      "404": _error("no such hero"), "413": _error("the body is too large"),
                      "415": _error("not JSON"), "429": _error("too many writes from this device")}}},
}

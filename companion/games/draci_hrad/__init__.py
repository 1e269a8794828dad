"""Dračí hrad (the Dragon Castle): the companion as the game manager, with bank, shop, enemies and records.

Rules: ../shared/rules/draci-hrad.txt with rulings H1-H17. Modules: `catalogue` (hero cards, goods, enemies),
`state` (frozen state), `checks` (shared checks, passing the turn), `rules` (setup, apply and the move
handlers), `combat` (the combat assistant), `view`, `events` (options, declared events, the command step
that rolls the dice a request left out, and random play).
"""
from __future__ import annotations

from ..base import Game
from .events import EVENT_TYPES, OPTIONS, describe, prepare, sample
from .rules import apply, setup
from .state import RULES, HradState
from .view import view

GAME_ID = "draci-hrad"

GAME = Game(
    id=GAME_ID,
    name="Dračí hrad",
    min_players=1,
    max_players=6,
    options=OPTIONS,
    event_types=EVENT_TYPES,
    setup=setup,
    apply=apply,
    view=view,
    rulings=tuple(f"H{i}" for i in range(1, 18)),
    describe=describe,
    sample=sample,
    prepare=prepare,
    rules_version=RULES,
)

__all__ = ["GAME", "GAME_ID", "HradState"]

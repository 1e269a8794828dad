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
from .state import HradState
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
    # 2: a dart piercing a hero who holds an antidote asks for it or Next before the move ends (H9)
    # 3: a victory's remainder whose named keeper no longer shares is asked of the table (H13)
    # (play going on without an answer is answered as in version 1, so older logs still fold)
    rules_version=3,
)

__all__ = ["GAME", "GAME_ID", "HradState"]

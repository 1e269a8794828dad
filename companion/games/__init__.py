"""The game registry: game ids to games. Each game lives in its own module."""
from __future__ import annotations

from . import diego, drachen_wurf, drachensachen, draci_hrad
from .base import Game, IllegalEventError, MalformedEventError, RuleError

GAMES: dict[str, Game] = {game.id: game for game in (diego.GAME, drachensachen.GAME, drachen_wurf.GAME,
                                                      draci_hrad.GAME)}

__all__ = ["GAMES", "Game", "RuleError", "IllegalEventError", "MalformedEventError", "get_game"]


def get_game(game_id: str) -> Game | None:
    """The registered game with this id, or None."""
    return GAMES.get(game_id)

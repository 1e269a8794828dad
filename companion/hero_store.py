"""Dračí hrad's hero cards kept across games (ruling H2), beside the player profiles in the log.

A card is entered once from the physical card and kept; until then the rulebook's known values are the
defaults. Every card is checked by the same check as the game's `hero_cards` option. A new Dračí hrad game
created without `hero_cards` gets the stored cards written into its options (`attach`), so its replay stays
exact whatever the store holds later.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Callable, Mapping

from .games import GAMES, MalformedEventError
from .games.base import Option
from .games.draci_hrad import GAME_ID
from .games.draci_hrad.catalogue import (
    CARD_LIMITS,
    DEFAULT_CARDS,
    FROM_RULEBOOK,
    HERO_NAMES,
    HEROES,
    RESTRICTED,
    card_json,
)
from .log import EventLog
from .table import Table, TableError

log = logging.getLogger(__name__)

OPTION_ID = "hero_cards"


class UnknownHero(TableError):
    status = 404
    code = "not_found"


def _option() -> Option:
    return next(o for o in GAMES[GAME_ID].options if o.id == OPTION_ID)


class HeroCardStore:
    """The six hero cards: stored ones from the log, the starting values for the rest."""

    def __init__(self, event_log: EventLog, clock: Callable[[], float] = time.time) -> None:
        self.log = event_log
        self.clock = clock
        check = _option().check
        assert check is not None
        self._check: Callable[[Any], dict[str, dict[str, Any]]] = check

    def cards(self) -> dict[str, dict[str, Any]]:
        """Every hero's card as the game takes it. A stored card today's check refuses is left out (with a
        warning): the defaults stand in, and the companion still starts games."""
        stored = self.log.hero_cards()
        kept: dict[str, Any] = {}
        for hero, card in stored.items():
            try:
                self._check({hero: card})
            except MalformedEventError as err:
                log.warning("stored hero card %s ignored: %s", hero, err.message)
            else:
                kept[hero] = card
        return self._check(kept)

    def edited(self) -> list[str]:
        """The heroes whose card was saved (the others show the starting values)."""
        return [hero for hero in HEROES if hero in self.log.hero_cards()]

    def save(self, hero: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Set some or all of `hero`'s card (missing fields keep the stored values); refused with ruling H2 and
        nothing changed when the card does not hold (a number out of range, red at or above the lives...)."""
        if hero not in HEROES:
            raise UnknownHero(f"no hero {hero!r}; the heroes are {', '.join(HEROES)} (rule H2)")
        if not isinstance(fields, Mapping):
            raise MalformedEventError("H2", "a hero card is an object")
        current = self.cards()
        card = self._check({hero: {**current[hero], **fields}})[hero]
        self.log.set_hero_card(hero, card, now=self.clock())
        return self.document()

    def document(self) -> dict[str, Any]:
        """What the API and the page show: the cards, the starting values and which of them the rulebook gives,
        which cards were edited, the limits."""
        return {"cards": self.cards(), "edited": self.edited(), "order": list(HEROES), "names": dict(HERO_NAMES),
                "defaults": {hero: card_json(DEFAULT_CARDS[hero]) for hero in HEROES},
                "from_rulebook": {hero: list(FROM_RULEBOOK.get(hero, ())) for hero in HEROES},
                "limits": {key: {"minimum": low, "maximum": high} for key, (low, high) in CARD_LIMITS.items()},
                "weapons": list(RESTRICTED), "rule": "H2"}

    def attach(self, table: Table) -> None:
        """New Dračí hrad games take the stored cards unless their request gives `hero_cards`."""
        table.provide_option(GAME_ID, OPTION_ID, self.cards)


__all__ = ["HeroCardStore", "UnknownHero"]

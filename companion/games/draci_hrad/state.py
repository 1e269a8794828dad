"""Dračí hrad's frozen state: heroes, the card stock, a running fight, the round and the override log.

Everything is a tuple of small frozen dataclasses, so one event replaces a hero or a fight and shares the
rest: an evening of thousands of events stays cheap to fold.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from .catalogue import CARD_IDS, CHIP_IDS, HeroCard

#: Where a hero stands: on the city's frame, or at the castle (its arrow squares and its cards); see `rules.moved`.
Place = Literal["city", "castle"]


@dataclass(frozen=True)
class Hero:
    player: str
    hero: str
    card: HeroCard
    gold: int
    lives: int
    treasure: int = 0
    chips: tuple[int, ...] = (0,) * len(CHIP_IDS)   # counts, in CHIP_IDS order
    cards: tuple[int, ...] = (0,) * len(CARD_IDS)   # counts, in CARD_IDS order
    waiting: int = 0          # moves still to miss (ruling H14)
    wait_reason: str | None = None  # tavern, oracle, dark_corridor, thick_fog, locked_door
    poisoned: bool = False    # ruling H9
    sceptre: bool = False     # ruling H17
    place: Place = "city"     # set from the events by `rules.moved` alone; decides no outcome

    @property
    def out(self) -> bool:
        return self.lives <= 0  # ruling H10: defeated at 0 lives

    @property
    def can_attack(self) -> bool:
        return self.lives > self.card.red  # ruling H10

    def chip(self, item: str) -> int:
        return self.chips[CHIP_IDS.index(item)]

    def card_count(self, item: str) -> int:
        return self.cards[CARD_IDS.index(item)]

    def count(self, item: str) -> int:
        return self.chip(item) if item in CHIP_IDS else self.card_count(item)

    def with_count(self, item: str, value: int) -> Hero:
        if item in CHIP_IDS:
            i = CHIP_IDS.index(item)
            return replace(self, chips=self.chips[:i] + (value,) + self.chips[i + 1:])
        i = CARD_IDS.index(item)
        return replace(self, cards=self.cards[:i] + (value,) + self.cards[i + 1:])

    @property
    def score(self) -> int:
        return self.treasure + self.gold + (50 if self.sceptre else 0)  # ruling H17


@dataclass(frozen=True)
class Strike:
    """One attack of an exchange with its sums: attack parts against defence parts, and the damage."""

    side: str                  # "heroes" or "enemy"
    attack: tuple[tuple[str, int], ...]   # labelled parts, e.g. (("Arcana", 11), ("bow", 6), ("die", 4))
    defence: tuple[tuple[str, int], ...]
    attack_total: int
    defence_total: int
    damage: int
    target: str | None = None  # the hero an enemy attack hit
    ruined: str | None = None  # ruling H8


@dataclass(frozen=True)
class Exchange:
    number: int
    kind: str                  # "heroes", "enemy" or "simultaneous"
    strikes: tuple[Strike, ...]


#: How many exchanges of a fight the state keeps (and the page shows); older ones are only counted.
KEEP_EXCHANGES = 30


@dataclass(frozen=True)
class Fight:
    enemy: str
    enemy_lives: int
    members: tuple[int, ...]           # seats still in the fight (ruling H16)
    weapons: tuple[str | None, ...]    # the weapon of each member, for the whole fight (rulebook: YES)
    started_by: tuple[int, ...]        # every seat that entered the fight
    next: str                          # "initiative" | "heroes" | "enemy" | "simultaneous"
    exchanges: tuple[Exchange, ...] = ()  # the last KEEP_EXCHANGES, so a long fight stays cheap
    exchange_count: int = 0
    initiative: tuple[int, int] | None = None  # the last roll: heroes' die, enemy's die
    skunk_pending: bool = False        # ruling H11: the enemy attacks once, then the heroes leave
    outcome: str | None = None         # "won" | "escaped" | "lost" | "ended" (by hand) once over
    defended: tuple[int, ...] = ()     # seats that have defended in this fight (ruling H12)
    shares: tuple[tuple[str, int], ...] = ()  # treasure paid on victory (ruling H13)
    remainder_to: int | None = None    # who keeps a share's indivisible remainder (ruling H13); None: the mover
    left_over: int = 0                 # a remainder waiting for a keeper: the one named fell or left (ruling H13)
    lost: tuple[int, ...] = ()         # the lives each hero (as in started_by) lost to the enemy's attacks in it

    @property
    def keeper(self) -> int:
        """The seat named at the start to keep the remainder (ruling H13): the one chosen, else the mover."""
        return self.started_by[0] if self.remainder_to is None else self.remainder_to

    def weapon_of(self, seat: int) -> str | None:
        return self.weapons[self.started_by.index(seat)]


@dataclass(frozen=True)
class Dart:
    player: str
    attack_die: int
    defence_die: int
    attack_total: int
    defence_total: int
    pierced: bool


@dataclass(frozen=True)
class Found:
    """The last treasure card and how it was shared (ruling H13): each hero's share, the remainder's keeper."""

    player: str
    value: int
    shares: tuple[tuple[str, int], ...]
    remainder: int
    remainder_to: str


@dataclass(frozen=True)
class Override:
    """A number a person set by hand (ruling H1), with what the rules had."""

    player: str | None
    field: str
    was: Any
    now: Any
    reason: str
    round: int
    #: the enemy of the fight it belongs to (its lives set, or the fight ended by hand), so that the log names it
    enemy: str | None = None
    #: a fight ended by hand: every hero who entered it, the mover first (a group's fight is logged as the group's)
    heroes: tuple[str, ...] = ()


RULES = 4
"""Dračí hrad's rules version. 2: a dart piercing a hero who holds an antidote asks for it or Next before the move
ends (H9); 3: a victory's remainder whose named keeper no longer shares is asked of the table (H13); 4: the Dragon
fights simultaneously only while a Neira or Arspel with a bow still stands in the fight, else it strikes first (H7),
and a victory whose last heroes fell in the exchange that won it is shared by the heroes who struck in it, never by
heroes who fell before (H13). A log recorded under an older version folds by its own (``HradState.rules``). Where the
heroes stand (``Hero.place``) and what happened last decide no outcome: they need no version."""


@dataclass(frozen=True)
class HradState:
    heroes: tuple[Hero, ...]
    stock: tuple[tuple[int, ...], ...]  # remaining prices of each card kind, in CARD_IDS order (ruling H4)
    round: int = 1
    turn: int = 0
    fight: Fight | None = None
    last_fight: Fight | None = None
    last_dart: Dart | None = None
    last_treasure: Found | None = None  # what happened last: one of the three at most (see `rules.last_happened`)
    overrides: tuple[Override, ...] = ()
    finished: bool = False
    reinitiative: bool = False     # option (ruling H5)
    one_die_per_charge: bool = False  # option (ruling H6)
    door_rounds: int = 0           # option: rounds missed at a locked door without a spell (ruling H14)
    missed: tuple[tuple[str, str], ...] = ()  # who was skipped when the turn last passed, and where (ruling H14)
    antidote_choice: bool = False  # ruling H9: the dart pierced the mover, who holds an antidote: use it or Next
    rules: int = RULES  # the rules version the game is played under (a log recorded before folds by its own)

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(h.player for h in self.heroes)

    def seat(self, player: Any) -> int | None:
        for i, h in enumerate(self.heroes):
            if h.player == player:
                return i
        return None

    def with_hero(self, seat: int, hero: Hero) -> HradState:
        return replace(self, heroes=self.heroes[:seat] + (hero,) + self.heroes[seat + 1:])

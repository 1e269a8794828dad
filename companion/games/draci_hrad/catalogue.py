"""Dračí hrad's fixed numbers: the six heroes' cards, the city's goods by square, the enemies and treasures.

Rules: ../shared/rules/draci-hrad.txt with rulings H1-H17. Where the rulebook gives no number (most of
the hero cards), the default below is a documented placeholder that the table overrides once from the
physical card through the `hero_cards` option (ruling H2); the options are kept with the session, so the
next game starts from them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..base import MalformedEventError


@dataclass(frozen=True)
class HeroCard:
    """One hero card (ruling H2). `weapons` lists the restricted weapons (two-hand sword, axe, bow) the hero
    may use; the sword and the battle hammer are for everyone. `magic`: may use magic objects."""

    attack: int
    defence: int
    lives: int
    red: int  # at or below this many lives the hero cannot attack (ruling H10)
    weapons: tuple[str, ...]
    magic: bool = True


HERO_NAMES = {
    "argilos": "Argilos the Warrior", "arcana": "Arcana the Warrioress", "fist": "Fist the Dwarf",
    "parbat": "Parbat the Barbarian", "neira": "Neira the Amazon", "arspel": "Arspel the Bowman",
}
HEROES = tuple(HERO_NAMES)
RESTRICTED = ("two_hand_sword", "axe", "bow")

#: Known from the rulebook: Arcana attack 11, defence 11 and the bow (combat example); Fist defence 13;
#: the Barbarian uses no magic; Neira and Arspel fight with the bow (Fighting the Dragon). Everything
#: else (lives, red thresholds, the other numbers and weapons) is a placeholder for the table to set.
DEFAULT_CARDS: dict[str, HeroCard] = {
    "argilos": HeroCard(12, 12, 12, 3, ("two_hand_sword", "axe")),
    "arcana": HeroCard(11, 11, 10, 3, ("two_hand_sword", "bow")),
    "fist": HeroCard(12, 13, 12, 3, ("axe",)),
    "parbat": HeroCard(13, 11, 14, 4, ("two_hand_sword", "axe"), magic=False),
    "neira": HeroCard(11, 12, 10, 3, ("bow",)),
    "arspel": HeroCard(11, 11, 10, 3, ("bow",)),
}
#: Which of the defaults above the rulebook gives (a field, or a weapon the hero may use); the hero cards page
#: marks these (the hero cards document carries this list) and calls the rest placeholders to copy from the cards.
FROM_RULEBOOK: dict[str, tuple[str, ...]] = {
    "arcana": ("attack", "defence", "bow"), "fist": ("defence",), "parbat": ("magic",), "neira": ("bow",),
    "arspel": ("bow",),
}
CARD_LIMITS = {"attack": (0, 30), "defence": (0, 30), "lives": (1, 40), "red": (0, 39)}


@dataclass(frozen=True)
class Chip:
    """An equipment chip (unlimited, ruling H4): a weapon, the shield or an armour."""

    id: str
    name: str
    square: str
    price: int
    attack: int = 0
    defence: int = 0
    hands: int = 1
    iron: bool = False  # a Rust Worm may ruin it (ruling H8)
    armour: bool = False


CHIPS: tuple[Chip, ...] = (
    Chip("sword", "Sword", "weapon_maker", 12, attack=5, iron=True),
    Chip("two_hand_sword", "Two-hand sword", "weapon_maker", 16, attack=7, hands=2, iron=True),
    Chip("axe", "Two-hand attacking axe", "weapon_maker", 14, attack=6, hands=2, iron=True),
    Chip("bow", "Bow", "weapon_maker", 16, attack=6, hands=2, iron=True),  # the arrows' iron spikes
    Chip("hammer", "Battle hammer", "weapon_maker", 10, attack=4, iron=True),
    Chip("shield", "Shield", "armourer", 6, defence=1),
    Chip("leather", "Leather armour", "armourer", 20, defence=3, armour=True),
    Chip("chain_mail", "Chain mail", "armourer", 100, defence=5, iron=True, armour=True),
)
CHIP = {c.id: c for c in CHIPS}
WEAPONS = tuple(c.id for c in CHIPS if c.attack)
IRON = tuple(c.id for c in CHIPS if c.iron)


@dataclass(frozen=True)
class CardKind:
    """An equipment card: one copy at each listed price, sold cheapest first (ruling H4); used once."""

    id: str
    name: str
    square: str
    prices: tuple[int, ...]
    magic: bool = False


CARDS: tuple[CardKind, ...] = (
    CardKind("food", "Food and drink", "merchant", (2, 4, 6)),
    CardKind("torch", "Torch", "merchant", (2, 4, 6)),
    CardKind("darren_back", "Darren back", "magician", (5, 10, 15)),
    CardKind("skunk", "Skunk", "magician", (3, 6, 9)),
    CardKind("antidote", "Antidote", "magician", (5, 10, 15)),
    CardKind("potion", "Life-giving potion", "magician", (5, 10, 15)),
    CardKind("opening_spell", "Opening spell", "magician", (5, 10, 15), magic=True),
    CardKind("cloak", "Magic cloak", "magician", (7, 14, 21), magic=True),
)
CARD = {c.id: c for c in CARDS}
CARD_IDS = tuple(CARD)
CHIP_IDS = tuple(CHIP)
ITEMS = CHIP_IDS + CARD_IDS
SQUARES = ("weapon_maker", "armourer", "merchant", "magician")
SQUARE_NAMES = {"weapon_maker": "Weapon maker", "armourer": "Armourer", "merchant": "Merchant",
                "magician": "Magician"}
MAX_STOCK_PRICE = 99
MAX_COPIES = 12


@dataclass(frozen=True)
class Enemy:
    """An enemy card's numbers. `attacks`: the attack number of each attack of one charge (ruling H6)."""

    id: str
    name: str
    attacks: tuple[int, ...]
    defence: int
    lives: int
    treasure: int
    first: bool = False  # always attacks first (ruling H7)
    skunk: bool = True   # a skunk works against it (ruling H11)
    rust: bool = False   # ruins an iron item with a damaging hit (ruling H8)
    plural: bool = False  # the name is a plural ("the Harpies attack")

    @property
    def possessive(self) -> str:
        """The name with its possessive ending: "the Skeleton's", "the Harpies'"."""
        return f"{self.name}'" if self.plural else f"{self.name}'s"


ENEMIES: tuple[Enemy, ...] = (
    Enemy("geeants", "Geeants", (14,), 10, 12, 20, plural=True),
    Enemy("skeleton", "Skeleton", (15,), 9, 12, 10),
    Enemy("spider", "Spider", (13,), 9, 25, 0, first=True),
    Enemy("black_knight", "Black Knight", (15,), 12, 20, 30),
    Enemy("harpies", "Harpies", (15, 15), 9, 12, 25, plural=True),
    Enemy("rust_worm", "Rust Worm", (15,), 0, 28, 0, rust=True),
    Enemy("dragon", "Dragon", (16, 16, 18), 14, 30, 250, first=True, skunk=False),
)
ENEMY = {e.id: e for e in ENEMIES}
DRAGON_ATTACKS = ("claw", "claw", "teeth")
DART_ATTACK = 15  # ruling H9
TREASURES = (10, 15, 20, 35)  # ruling H13
SCEPTRE_POINTS = 50  # ruling H17
START_GOLD = 200  # ruling H3
TAVERN = 5
ORACLE = 3
OBSTACLES = {"dark_corridor": 1, "thick_fog": 2, "locked_door": 0}  # rounds missed (ruling H14)
OBSTACLE_NAMES = {"dark_corridor": "Dark corridor", "thick_fog": "Thick fog", "locked_door": "Locked door"}
OPENS = {"dark_corridor": "torch", "locked_door": "opening_spell"}  # the card that passes it unwaited (ruling H14)
BOW_AGAINST_DRAGON = ("neira", "arspel")  # ruling H7


def hero_cards(given: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The `hero_cards` option checked: per hero id, any of attack, defence, lives, red, weapons, magic;
    missing entries keep the defaults (ruling H2). Returns the full cards as JSON."""
    unknown = sorted(set(given) - set(HEROES))
    if unknown:
        raise MalformedEventError("H2", f"hero_cards: unknown hero {unknown[0]!r}; heroes are {', '.join(HEROES)}")
    cards: dict[str, dict[str, Any]] = {}
    for hero in HEROES:
        card = card_json(DEFAULT_CARDS[hero])
        entry = given.get(hero, {})
        if not isinstance(entry, Mapping):
            raise MalformedEventError("H2", f"hero_cards.{hero} must be an object")
        for key, value in entry.items():
            if key in CARD_LIMITS:
                low, high = CARD_LIMITS[key]
                if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                    raise MalformedEventError("H2", f"hero_cards.{hero}.{key} must be a whole number {low}-{high}")
            elif key == "weapons":
                if not isinstance(value, (list, tuple)) or not all(isinstance(w, str) and w in RESTRICTED
                                                                   for w in value):
                    raise MalformedEventError("H2", f"hero_cards.{hero}.weapons lists some of {', '.join(RESTRICTED)}")
                value = sorted(set(value), key=RESTRICTED.index)
            elif key == "magic":
                if not isinstance(value, bool):
                    raise MalformedEventError("H2", f"hero_cards.{hero}.magic must be true or false")
            else:
                raise MalformedEventError("H2", f"hero_cards.{hero} has no field {key!r}")
            card[key] = value
        if card["red"] >= card["lives"]:
            raise MalformedEventError("H2", f"hero_cards.{hero}: the red threshold must be below the lives")
        cards[hero] = card
    return cards


def card_json(card: HeroCard) -> dict[str, Any]:
    return {"attack": card.attack, "defence": card.defence, "lives": card.lives, "red": card.red,
            "weapons": list(card.weapons), "magic": card.magic}


def card_from_json(data: Mapping[str, Any]) -> HeroCard:
    return HeroCard(data["attack"], data["defence"], data["lives"], data["red"], tuple(data["weapons"]),
                    data["magic"])


def may_use(card: HeroCard, item: str) -> bool:
    """Whether a hero with `card` may use `item` (ruling H2)."""
    if item in RESTRICTED:
        return item in card.weapons
    if item in CARD and CARD[item].magic:
        return card.magic
    return True

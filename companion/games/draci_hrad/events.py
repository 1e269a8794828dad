"""Dračí hrad's options, declared events, the command step (dice the request left out) and random play."""
from __future__ import annotations

import random
from typing import Any, Mapping

from ..base import EventType, Option
from .catalogue import (
    CARD,
    CARD_IDS,
    CHIP,
    ENEMIES,
    ENEMY,
    HERO_NAMES,
    HEROES,
    IRON,
    ITEMS,
    MAX_COPIES,
    MAX_STOCK_PRICE,
    OBSTACLES,
    OPENS,
    TREASURES,
    WEAPONS,
    hero_cards,
    may_use,
)
from .checks import end_move
from .combat import dice_needed, standing, who_strikes
from .rules import MAX_GOLD, OVERRIDE_FIELDS
from .state import HradState

OPTIONS = (
    Option("heroes", "Heroes by seat", "symbols", [],
           "The hero each player plays, in seat order (each player of the session is one hero). "
           "Empty: the rulebook's order (Argilos, Arcana, Fist, Parbat, Neira, Arspel).",
           ruling="H1", choices=HEROES, labels=HERO_NAMES),
    Option("hero_cards", "Hero cards", "object", {},
           "Per hero: attack, defence, lives, red (the red threshold), weapons (of two_hand_sword, axe, bow) and "
           "magic, entered once from the physical cards and kept (the hero cards page); left out, a new game "
           "takes the kept cards, and heroes never entered keep the rulebook's values.",
           ruling="H2", check=hero_cards),
    Option("reinitiative", "Initiative after every exchange", "bool", False,
           "Roll initiative again after every attack and defence.", ruling="H5"),
    Option("one_die_per_charge", "One die per charge", "bool", False,
           "The Harpies and the Dragon roll one die for all attacks of a charge (and the hero one for "
           "the defence) instead of one per attack.", ruling="H6"),
    Option("locked_door_rounds", "Rounds lost at a locked door", "int", 0,
           "Rounds a hero misses at a locked door without an opening spell (0: stays the round, goes back "
           "next move).", minimum=0, maximum=2, ruling="H14"),
)

_NAME = {"type": "string", "maxLength": 24}
_DIE = {"type": "integer", "minimum": 1, "maximum": 6}
_OPT_DIE = {**_DIE, "nullable": True}
_NAMES = {"type": "array", "items": _NAME, "maxItems": 6}
_DICE3 = {"type": "array", "items": _DIE, "minItems": 1, "maxItems": 3, "nullable": True}

EVENT_TYPES = (
    EventType("buy", "The mover buys one item in the city: a chip at its price, a card at the cheapest price left "
              "(H2-H4).", {"player": _NAME, "item": {"type": "string", "enum": list(ITEMS)}}, ("player", "item"),
              {"type": "buy", "player": "Ada", "item": "sword"}, rule="H4"),
    EventType("stop", "Tavern (5 gold) or Oracle (3 gold): pay, miss one round; ends the move (H14).",
              {"player": _NAME, "square": {"type": "string", "enum": ["tavern", "oracle"]}}, ("player", "square"),
              {"type": "stop", "player": "Ada", "square": "tavern"}, rule="H14"),
    EventType("enter", "The mover's last roll in the city reaches an arrow square, the path to the castle: the move "
              "ends, and the hero's moves are into the castle from there (rulebook: Rules of Movement).",
              {"player": _NAME}, ("player",), {"type": "enter", "player": "Ada"}, rule="movement"),
    EventType("obstacle", "Dark corridor, thick fog or locked door for the mover (and the group on the card); "
              "ends the move; `spend`: the mover spends a torch there (dark corridor: no wait) or an opening spell "
              "(locked door: it opens for the group, who go on, the move not ended) (H14).",
              {"player": _NAME, "obstacle": {"type": "string", "enum": list(OBSTACLES)}, "group": _NAMES,
               "spend": {"type": "boolean"}},
              ("player", "obstacle"), {"type": "obstacle", "player": "Ada", "obstacle": "dark_corridor"},
              rule="H14"),
    EventType("end_turn", "The mover's move is over; the next hero not waiting moves (H14).",
              {"player": {**_NAME, "nullable": True}}, (), {"type": "end_turn", "player": "Ada"},
              rule="turn-order"),
    EventType("use", "An equipment card used and spent: food, potion (the move), torch, opening spell, antidote, "
              "Darren back (`to`: back to the city, the default, or, stuck, to a turned card in the castle), skunk or "
              "cloak in a fight; a skunk at the initiative takes its dice (H9-H15).",
              {"player": _NAME, "item": {"type": "string", "enum": list(CARD_IDS)}, "group": _NAMES,
               "hero_die": _OPT_DIE, "enemy_die": _OPT_DIE,
               "to": {"type": "string", "enum": ["city", "castle"], "nullable": True}}, ("player", "item"),
              {"type": "use", "player": "Ada", "item": "torch"}, rule="H15"),
    EventType("fight", "A fight begins: the heroes (the mover first, a group together), the enemy, each "
              "hero's weapon for the whole fight, and who keeps what does not share evenly of a victory's "
              "treasure (H5, H13, H16).",
              {"players": {**_NAMES, "minItems": 1}, "enemy": {"type": "string", "enum": [e.id for e in ENEMIES]},
               "weapons": {"type": "array", "maxItems": 6,
                           "items": {"type": "string", "enum": list(WEAPONS), "nullable": True}},
               "remainder_to": {**_NAME, "nullable": True}},
              ("players", "enemy"),
              {"type": "fight", "players": ["Ben"], "enemy": "black_knight", "weapons": ["bow"]}, rule="H5"),
    EventType("initiative", "The initiative roll: heroes' die against the enemy's; left out, the companion rolls "
              "(H5).", {"hero_die": _OPT_DIE, "enemy_die": _OPT_DIE}, (),
              {"type": "initiative", "hero_die": 5, "enemy_die": 2}, rule="H5"),
    EventType("strike", "One exchange of the fight: the heroes' attack, the enemy's charge, or both at once. Dice "
              "left out are rolled by the companion (H5-H8, H10, H16).",
              {"attackers": {**_NAMES, "nullable": True},
               "hero_dice": {"type": "array", "items": _DIE, "maxItems": 6, "nullable": True},
               "enemy_defence_die": _OPT_DIE, "enemy_dice": _DICE3, "defence_dice": _DICE3,
               "targets": {"type": "array", "items": _NAME, "minItems": 1, "maxItems": 3, "nullable": True},
               "attacks": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2},
                           "minItems": 1, "maxItems": 3, "nullable": True},
               "ruin": {"type": "string", "enum": list(IRON), "nullable": True}}, (),
              {"type": "strike", "hero_dice": [4], "enemy_defence_die": 4}, rule="H5"),
    EventType("end_fight", "The manager ends a fight the rules cannot end (say why): the card turns face down, "
              "nothing is paid; logged like an override (H1).", {"reason": {"type": "string", "maxLength": 80}},
              ("reason",), {"type": "end_fight", "reason": "nobody can hurt anybody"}, rule="H1"),
    EventType("remainder", "Who keeps what a group victory's treasure leaves over, when the hero named at the "
              "fight's start no longer shares it (defeated or gone); asked before play goes on, and play going on "
              "without it gives it to the first hero sharing (H13).",
              {"player": _NAME}, ("player",), {"type": "remainder", "player": "Ben"}, rule="H13"),
    EventType("dart", "The poisoned dart's trap on the mover: 15 + die against defence + armour + die; ends the "
              "move, but a pierced hero holding an antidote first uses it (use) or declines (end_turn); play "
              "going on without the choice declines it (H9).",
              {"player": _NAME, "attack_die": _OPT_DIE, "defence_die": _OPT_DIE}, ("player",),
              {"type": "dart", "player": "Ada", "attack_die": 3, "defence_die": 2}, rule="H9"),
    EventType("treasure", "A treasure card for the mover, shared equally with the group; ends the move (H13).",
              {"player": _NAME, "value": {"type": "integer", "enum": list(TREASURES)}, "group": _NAMES,
               "remainder_to": {**_NAME, "nullable": True}}, ("player", "value"),
              {"type": "treasure", "player": "Ada", "value": 15}, rule="H13"),
    EventType("exchange", "The manager pays treasure out in gold coins; the score stays (rulebook: Treasures).",
              {"player": _NAME, "amount": {"type": "integer", "minimum": 1, "maximum": MAX_GOLD}},
              ("player", "amount"), {"type": "exchange", "player": "Ada", "amount": 10}, rule="H13"),
    EventType("sceptre", "The mover finds the royal sceptre: +50 and the game is over (H17).",
              {"player": _NAME}, ("player",), {"type": "sceptre", "player": "Ada"}, rule="H17"),
    EventType("override", "A person sets a number by hand, with the reason; logged with what the rules had (H1). "
              "`enemy`: with the enemy's lives (enemy_lives), the running fight's enemy; left out, the companion "
              "fills it in, so that Undo names it.",
              {"player": {**_NAME, "nullable": True}, "field": {"type": "string", "enum": list(OVERRIDE_FIELDS)},
               "value": {"type": "integer", "minimum": 0, "maximum": MAX_GOLD},
               "reason": {"type": "string", "maxLength": 80},
               "enemy": {"type": "string", "enum": [e.id for e in ENEMIES], "nullable": True}},
              ("field", "value", "reason"),
              {"type": "override", "player": "Ada", "field": "gold", "value": 150, "reason": "paid a friend"},
              rule="H1"),
    EventType("stock", "The manager edits a card's stock: the prices left (H4).",
              {"item": {"type": "string", "enum": list(CARD_IDS)},
               "prices": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": MAX_STOCK_PRICE},
                          "maxItems": MAX_COPIES},
               "reason": {"type": "string", "maxLength": 80}}, ("item", "prices"),
              {"type": "stock", "item": "torch", "prices": [2, 4, 6, 8], "reason": "a second box"}, rule="H4"),
)


def prepare(state: HradState, event: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """The command step: roll every die the request left out, so the stored event replays exactly."""
    out = dict(event)

    def roll(key: str) -> None:
        if out.get(key) is None:
            out[key] = rng.randint(1, 6)

    def rolls(key: str, count: int) -> None:
        if out.get(key) is None and count:
            out[key] = [rng.randint(1, 6) for _ in range(count)]

    kind, fight = out.get("type"), state.fight
    if kind == "dart":
        roll("attack_die")
        roll("defence_die")
    elif kind == "initiative" or (kind == "use" and out.get("item") == "skunk" and fight is not None
                                  and fight.next == "initiative"):
        roll("hero_die")
        roll("enemy_die")
    elif kind == "strike" and fight is not None and fight.next != "initiative":
        needed = dice_needed(state)
        if "hero_dice" in needed:
            given = out.get("attackers")
            rolls("hero_dice", len(given) if isinstance(given, list) else needed["hero_dice"])
            roll("enemy_defence_die")
        if "enemy_dice" in needed:
            chosen = out.get("attacks")
            count = 1 if state.one_die_per_charge else len(chosen) if isinstance(chosen, list) else \
                needed["enemy_dice"]
            rolls("enemy_dice", count)
            rolls("defence_dice", count)
    elif kind == "override" and out.get("field") == "enemy_lives" and fight is not None and out.get("enemy") is None:
        out["enemy"] = fight.enemy  # kept with the event: Undo names the enemy whose lives were set
    return out


#: What a hero's number set by hand is called (ruling H1), in Undo's words and in the log of numbers set by hand (the
#: view sends each entry's words: the page says the same).
OVERRIDE_WORDS = {
    "gold": "gold", "treasure": "treasure", "lives": "lives", "max_lives": "lives at most", "red": "red lives",
    "attack": "attack number", "defence": "defence number", "waiting": "rounds to wait",
    "sword": "swords", "two_hand_sword": "two-hand swords", "axe": "axes", "bow": "bows", "hammer": "hammers",
    "shield": "shields", "leather": "leather armours", "chain_mail": "chain mails", "food": "food cards",
    "torch": "torches", "darren_back": "Darren back cards", "skunk": "skunks", "antidote": "antidotes",
    "potion": "potions", "opening_spell": "opening spells", "cloak": "cloaks",
}


def override_words(field: str, enemy: str | None = None) -> str:
    """A number set by hand as people call it: "lives at most", "torches", or an enemy's lives by the enemy's name
    ("the Spider's lives"); an event recorded before the enemy was kept with it says "the enemy's lives"."""
    if field == "enemy_lives":
        found = ENEMY.get(enemy) if enemy else None
        return f"the {found.possessive} lives" if found else "the enemy's lives"
    return OVERRIDE_WORDS.get(field) or field.replace("_", " ")


def describe(event: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """A short description for people, e.g. when an event is undone."""
    kind, who = event.get("type"), event.get("player")
    item = event.get("item")
    name = CHIP[item].name.lower() if item in CHIP else CARD[item].name.lower() if item in CARD else item
    if kind == "buy":
        return f"{who} bought a {name}"
    if kind == "stop":
        return f"{who} at the {event.get('square')}"
    if kind == "enter":
        return f"{who} at the castle's arrow squares"
    if kind == "obstacle":
        return f"{who} at a {str(event.get('obstacle')).replace('_', ' ')}"
    if kind == "end_turn":
        return "the end of the move"
    if kind == "use":
        to = {"city": " back to the city", "castle": " to a turned card"}.get(event.get("to") or "")
        return f"{who} used a {name}{to or ''}"
    if kind == "fight":
        enemy = ENEMY.get(event.get("enemy"))  # type: ignore[arg-type]
        return f"the fight against the {enemy.name if enemy else event.get('enemy')}"
    if kind == "initiative":
        return f"the initiative roll ({event.get('hero_die')} against {event.get('enemy_die')})"
    if kind == "strike":
        return "an exchange of the fight"
    if kind == "end_fight":
        return "the fight ended by hand"
    if kind == "remainder":
        return f"the treasure left over to {who}"
    if kind == "dart":
        return f"the poisoned dart at {who}"
    if kind == "treasure":
        return f"{who}'s treasure of {event.get('value')}"
    if kind == "exchange":
        return f"{event.get('amount')} of {who}'s treasure paid in gold"
    if kind == "sceptre":
        return f"{who} found the royal sceptre"
    if kind == "override":
        if event.get("field") == "poisoned":  # a yes or a no, never 1 or 0
            return f"{who} {'poisoned' if event.get('value') else 'cured of poison'} by hand"
        owner = f"{who}'s " if who else ""
        words = override_words(str(event.get("field")), event.get("enemy"))
        return f"{owner}{words} set to {event.get('value')} by hand"
    if kind == "stock":
        return f"the {name} stock edited"
    return str(kind)


def sample(state: HradState, rng: random.Random) -> dict[str, Any] | None:
    """One random legal event, dice included; the longer the game runs, the likelier the sceptre is found."""
    if state.finished:
        return None
    if state.fight is not None:
        return _sample_fight(state, rng)
    done = state.last_fight
    if done is not None and done.left_over and rng.random() < 0.8:  # ruling H13: mostly the table names the keeper
        return {"type": "remainder", "player": rng.choice([name for name, _ in done.shares])}
    seat = state.turn
    hero = state.heroes[seat]
    who = hero.player
    if hero.waiting:
        return {"type": "end_turn", "player": who}
    if state.antidote_choice:  # ruling H9: right after the dart, the antidote, Next, or the next hero plays on
        roll, moved = rng.random(), end_move(state)
        if roll < 0.2 and not moved.finished:
            return sample(moved, rng)
        return {"type": "use", "player": who, "item": "antidote"} if roll < 0.75 else \
            {"type": "end_turn", "player": who}
    if rng.random() < min(0.4, state.round / 60):
        return {"type": "sceptre", "player": who}
    others = [h.player for i, h in enumerate(state.heroes) if i != seat and not h.out and not h.waiting]
    roll = rng.random()
    event: dict[str, Any]
    held = [obstacle for obstacle, item in OPENS.items() if hero.card_count(item) and may_use(hero.card, item)]
    if held and roll < 0.1:  # the obstacle the hero holds a card for, the card spent there
        return {"type": "obstacle", "player": who, "obstacle": rng.choice(held), "spend": True}
    if roll < 0.3:
        shop = [i for i in ITEMS if may_use(hero.card, i) and _price(state, i) is not None
                and _price(state, i) <= hero.gold]  # type: ignore[operator]
        if shop:
            return {"type": "buy", "player": who, "item": rng.choice(shop)}
    if roll < 0.45:
        enemy = rng.choice(ENEMIES).id
        group = [who] + ([rng.choice(others)] if others and rng.random() < 0.25 else [])
        weapons = []
        for name in group:
            member = state.heroes[state.seat(name)]  # type: ignore[index]
            owned = [w for w in WEAPONS if member.chip(w) and may_use(member.card, w)]
            weapons.append(rng.choice(owned) if owned and rng.random() < 0.9 else None)
        event = {"type": "fight", "players": group, "enemy": enemy, "weapons": weapons}
        if len(group) > 1 and rng.random() < 0.5:
            event["remainder_to"] = rng.choice(group)
        return event
    if roll < 0.5:
        return {"type": "dart", "player": who, "attack_die": rng.randint(1, 6), "defence_die": rng.randint(1, 6)}
    if roll < 0.58:
        event = {"type": "treasure", "player": who, "value": rng.choice(TREASURES)}
        if others and rng.random() < 0.3:
            event["group"] = [rng.choice(others)]
        return event
    if roll < 0.62 and hero.gold >= 5:
        return {"type": "stop", "player": who, "square": rng.choice(["tavern", "oracle"])}
    if roll < 0.66:
        return {"type": "obstacle", "player": who, "obstacle": rng.choice(list(OBSTACLES))}
    if roll < 0.72:
        usable = _usable(state, seat)
        if usable:
            user, item = rng.choice(usable)
            event = {"type": "use", "player": user, "item": item}
            if item == "darren_back":  # back to the city (also by default), or stuck, to a turned card
                event["to"] = rng.choice(["city", "castle", None])
            return event
    if roll < 0.74 and hero.treasure:
        return {"type": "exchange", "player": who, "amount": rng.randint(1, hero.treasure)}
    if roll < 0.76:
        field = rng.choice(["gold", "treasure", "attack", "defence", "torch", "sword"])
        low, high = OVERRIDE_FIELDS[field]
        return {"type": "override", "player": who, "field": field, "value": rng.randint(low, min(high, 250)),
                "reason": "random play"}
    if roll < 0.77:
        item = rng.choice(CARD_IDS)
        return {"type": "stock", "item": item, "prices": sorted(rng.sample(range(1, 20), rng.randint(0, 4))),
                "reason": "random play"}
    if roll < 0.8 and hero.place == "city":
        return {"type": "enter", "player": who}
    return {"type": "end_turn", "player": who}


def _price(state: HradState, item: str) -> int | None:
    if item in CHIP:
        return CHIP[item].price
    left = state.stock[CARD_IDS.index(item)]
    return min(left) if left else None


def _usable(state: HradState, mover: int) -> list[tuple[str, str]]:
    """Cards that may be used now outside a fight: (player, item)."""
    found: list[tuple[str, str]] = []
    for seat, hero in enumerate(state.heroes):
        if hero.out:
            continue
        if hero.poisoned and hero.card_count("antidote"):
            found.append((hero.player, "antidote"))
        if hero.wait_reason == "dark_corridor" and hero.card_count("torch"):
            found.append((hero.player, "torch"))
        if hero.wait_reason == "locked_door" and hero.card_count("opening_spell") and hero.card.magic:
            found.append((hero.player, "opening_spell"))
        if seat == mover and not hero.waiting:
            if hero.card_count("darren_back"):
                found.append((hero.player, "darren_back"))
            for item in ("food", "potion"):
                if hero.card_count(item) and hero.lives < hero.card.lives:
                    found.append((hero.player, item))
    return found


def _sample_fight(state: HradState, rng: random.Random) -> dict[str, Any]:
    fight = state.fight
    assert fight is not None
    enemy = ENEMY[fight.enemy]
    alive = standing(state, fight)
    for seat in alive:
        hero = state.heroes[seat]
        if (hero.card_count("cloak") and hero.card.magic and seat in fight.defended and fight.next != "enemy"
                and not fight.skunk_pending and rng.random() < (0.6 if not hero.can_attack else 0.1)):
            return {"type": "use", "player": hero.player, "item": "cloak"}
        if (hero.card_count("skunk") and enemy.skunk and hero.can_attack and not fight.skunk_pending
                and rng.random() < 0.15):
            used: dict[str, Any] = {"type": "use", "player": hero.player, "item": "skunk"}
            if fight.next == "initiative":
                used.update(hero_die=rng.randint(1, 6), enemy_die=rng.randint(1, 6))
            return used
    if not any(state.heroes[s].can_attack for s in alive) and rng.random() < 0.2:
        return {"type": "end_fight", "reason": "random play: no hero can attack"}
    if fight.next == "initiative":
        return {"type": "initiative", "hero_die": rng.randint(1, 6), "enemy_die": rng.randint(1, 6)}
    kind = who_strikes(state, fight)
    event: dict[str, Any] = {"type": "strike"}
    if kind in ("heroes", "simultaneous"):
        attackers = [state.heroes[s].player for s in alive if state.heroes[s].can_attack]
        event.update(hero_dice=[rng.randint(1, 6) for _ in attackers], enemy_defence_die=rng.randint(1, 6))
    if kind in ("enemy", "simultaneous"):
        count = len(enemy.attacks)
        if enemy.id == "dragon" and rng.random() < 0.3:
            chosen = sorted(rng.sample(range(3), rng.randint(1, 3)))
            event["attacks"], count = chosen, len(chosen)
        target = state.heroes[rng.choice(alive)].player
        targets = [target] * count
        if enemy.id == "dragon":
            targets = [state.heroes[rng.choice(alive)].player for _ in range(count)]
        dice_count = 1 if state.one_die_per_charge else count
        event.update(enemy_dice=[rng.randint(1, 6) for _ in range(dice_count)],
                     defence_dice=[rng.randint(1, 6) for _ in range(dice_count)], targets=targets)
    return event


__all__ = ["OPTIONS", "EVENT_TYPES", "OVERRIDE_WORDS", "prepare", "describe", "override_words", "sample"]

"""Dračí hrad's pure rules: setup and apply, one handler per event type (rulings H1-H17).

The companion is the game manager (ruling H1): it keeps the bank, sells the goods, plays the enemies and
keeps the records; a person may still set any number by hand (`override`, logged with what the rules had).
Each player of the session plays one hero, in seat order (the `heroes` option picks which; by default the
rulebook's order). A hero's move is what the table says happened: shopping (then `end_turn`), the tavern or
the oracle, the arrow squares (`enter`), a castle card (obstacle, treasure, dart, enemy), food or a potion; a card's
outcome, the tavern, the oracle, the arrow squares, food and potions end the move by themselves. Every change takes one
path (`apply`): the handler, then `settle`, where the heroes stand (`moved`) and what happened last
(`last_happened`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from ..base import IllegalEventError, MalformedEventError, RuleError, listed, recorded_rules
from . import combat
from .catalogue import (
    CARD,
    CARD_IDS,
    CHIP,
    ENEMY,
    HEROES,
    ITEMS,
    MAX_COPIES,
    MAX_STOCK_PRICE,
    OBSTACLES,
    OPENS,
    ORACLE,
    START_GOLD,
    TAVERN,
    TREASURES,
    card_from_json,
    may_use,
)
from .checks import MAX_WAIT, able, acting, end_move, keeper_wanted, play_goes_on, seat_of, settle
from .state import RULES, Found, Hero, HradState, Override, Place

MAX_GOLD = 9999
#: What `override` may set, with its bounds (ruling H1); item ids set equipment counts.
OVERRIDE_FIELDS: dict[str, tuple[int, int]] = {
    "gold": (0, MAX_GOLD), "lives": (0, 40), "max_lives": (1, 40), "red": (0, 39), "attack": (0, 30),
    "defence": (0, 30), "treasure": (0, MAX_GOLD), "waiting": (0, MAX_WAIT), "poisoned": (0, 1),
    "enemy_lives": (1, 99), **{item: (0, 9) for item in ITEMS},
}


def setup(players: tuple[str, ...], options: Mapping[str, Any]) -> HradState:
    """Every player's hero with 200 gold (ruling H3), lives as on the hero card (H2), the full card stock (H4)."""
    if not 1 <= len(players) <= 6:
        raise IllegalEventError("H1", "Dračí hrad is for 1 to 6 heroes")
    chosen = list(options.get("heroes") or HEROES[:len(players)])
    if len(chosen) != len(players) or len(set(chosen)) != len(chosen):
        raise MalformedEventError("H1", f"'heroes' names {len(players)} different heroes, one per seat")
    cards = options["hero_cards"]
    heroes = tuple(Hero(player=p, hero=h, card=card_from_json(cards[h]), gold=START_GOLD, lives=cards[h]["lives"])
                   for p, h in zip(players, chosen, strict=True))
    return HradState(heroes=heroes, stock=tuple(CARD[c].prices for c in CARD_IDS),
                     reinitiative=options["reinitiative"], one_die_per_charge=options["one_die_per_charge"],
                     door_rounds=options["locked_door_rounds"], rules=recorded_rules(options, RULES))


def apply(state: HradState, event: Mapping[str, Any]) -> HradState:
    """The state after `event`; raises a RuleError naming the rule and changes nothing when refused."""
    kind = event.get("type")
    handler = HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise MalformedEventError("events", f"unknown event type {kind!r} for Dračí hrad")
    if state.finished:
        raise IllegalEventError("H17", "the game is over; undo to change it")
    try:
        return _changed(state, event, handler)
    except IllegalEventError as refused:
        # rulings H9, H13: a move that waits for the table's answer is taken as play going on without it (the
        # antidote kept, the left-over to the first sharer), as at a table where the next hero simply plays
        going_on = play_goes_on(state)
        if going_on is state or going_on.finished:
            raise
        try:
            return _changed(going_on, event, handler)
        except RuleError:
            raise refused from None


def _changed(state: HradState, event: Mapping[str, Any],
             handler: Callable[[HradState, Mapping[str, Any]], HradState]) -> HradState:
    """The one path of every change: the handler, the game's end and the turn passed over the defeated (`settle`),
    where the heroes stand (`moved`) and what happened last (`last_happened`)."""
    return last_happened(state, moved(settle(handler(state, event)), event), event)


#: Where an event puts the heroes it names (rulebook: Journey through the City, Rules of Movement): the shops, the
#: tavern and the oracle are squares of the city's frame; the arrow squares and the cards (an obstacle, a treasure,
#: the dart's trap, an enemy, the sceptre) are the castle's.
PLACE_OF: dict[str, Place] = {"buy": "city", "stop": "city", "enter": "castle", "obstacle": "castle",
                              "treasure": "castle", "dart": "castle", "fight": "castle", "sceptre": "castle"}


def moved(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Where the heroes stand after `event` (an accepted one), the mover and the group with them (rulebook: Moving in
    groups). Every hero starts in the city (rulebook: the starting square). Where the rulebook is silent:

    - the arrow squares count as the castle: from there every move is into it (`enter`);
    - a purchase, the tavern or the oracle puts a hero the companion had in the castle back in the city: the table
      went back (a Darren back left untapped, say); where a hero stands never refuses a move, so an old log folds
      as it did;
    - the Darren back carries its hero back to the city (``to`` left out, its use the shop needs) or, stuck, to a
      turned card nearby (``to: castle``);
    - the skunk and the cloak take the heroes back to the card they came from: still the castle; food, a potion, an
      antidote, a torch or an opening spell leave a hero where they are;
    - a defeated hero stays where they fell (ruling H10: out; nothing moves them again but a number set by hand)."""
    kind = event.get("type")
    if kind == "use" and event.get("item") == "darren_back":
        place: Place | None = event.get("to") or "city"
    else:
        place = PLACE_OF.get(kind) if isinstance(kind, str) else None
    if place is None:
        return state
    names = event.get("players") if kind == "fight" else [event.get("player"), *(event.get("group") or ())]
    for name in names or ():
        seat = state.seat(name)
        if seat is not None and state.heroes[seat].place != place:
            state = state.with_hero(seat, replace(state.heroes[seat], place=place))
    return state


#: The manager's bookkeeping (a number set by hand, the card stock, treasure paid in gold): nothing that happens at
#: the table, so what happened last stays in sight.
BOOKKEEPING = ("override", "stock", "exchange")
#: The events that are what happened last: each replaces the others (a fight's end, `combat.finish`, tells of it).
HAPPENINGS = ("dart", "treasure", "fight")


def last_happened(before: HradState, after: HradState, event: Mapping[str, Any]) -> HradState:
    """What happened last, the line above the tabs: the last dart, treasure or fight, only while nothing else happened
    since. A dart or a treasure replaces the others; a fight clears them all until its end. What completes the one
    shown keeps it: a fight's own steps, naming who keeps its left-over (H13), the darted hero's antidote or Next (H9);
    so do a question still waiting for the table (the left-over's keeper, the antidote) and the manager's bookkeeping.
    Any other event is a later move, a torch or Next as much as a purchase, and clears it. `before` is the state the
    handler was given."""
    kind = event.get("type")
    done = after.last_fight
    asked = after.antidote_choice or (done is not None and done.left_over > 0)
    completes = before.fight is not None or kind == "remainder" or before.antidote_choice
    if kind not in HAPPENINGS and (asked or completes or kind in BOOKKEEPING):
        return after
    return replace(after, last_fight=None, last_dart=after.last_dart if kind == "dart" else None,
                   last_treasure=after.last_treasure if kind == "treasure" else None)


def _buy(state: HradState, event: Mapping[str, Any]) -> HradState:
    """The city's shops (rulings H2-H4): chips at their price, cards cheapest first from the stock."""
    seat = acting(state, event.get("player"))
    hero, item = state.heroes[seat], event.get("item")
    if item not in ITEMS:
        raise MalformedEventError("H4", f"unknown item {item!r}")
    name = (CHIP[item].name if item in CHIP else CARD[item].name).lower()
    if not may_use(hero.card, item):
        why = "uses no magic objects" if item in CARD else "may not use it (hero card)"
        raise IllegalEventError("H2", f"{hero.player}'s hero {why}: no {name}")
    stock = state.stock
    if item in CHIP:
        price = CHIP[item].price
    else:
        index = CARD_IDS.index(item)
        if not stock[index]:
            raise IllegalEventError("H4", f"the {name} cards are sold out")
        price = min(stock[index])
        left = list(stock[index])
        left.remove(price)
        stock = stock[:index] + (tuple(left),) + stock[index + 1:]
    if hero.gold < price:
        raise IllegalEventError("H3", f"the {name} costs {price} gold; {hero.player}'s hero has {hero.gold}")
    hero = replace(hero.with_count(item, hero.count(item) + 1), gold=hero.gold - price)
    return replace(state.with_hero(seat, hero), stock=stock)


def _stop(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Tavern (5 gold) or Oracle (3 gold): pay and miss one round (ruling H14)."""
    seat = acting(state, event.get("player"))
    hero, square = state.heroes[seat], event.get("square")
    cost = {"tavern": TAVERN, "oracle": ORACLE}.get(square)  # type: ignore[arg-type]
    if cost is None:
        raise MalformedEventError("H14", "'square' is tavern or oracle")
    if hero.gold < cost:
        raise IllegalEventError("H3", f"the {square} costs {cost} gold; {hero.player}'s hero has {hero.gold}")
    hero = replace(hero, gold=hero.gold - cost, waiting=1, wait_reason=square)
    return end_move(state.with_hero(seat, hero))


def _enter(state: HradState, event: Mapping[str, Any]) -> HradState:
    """The last roll in the city reaches an arrow square, the path to the castle: the move ends, and every move from
    there is into the castle (rulebook: Rules of Movement; `moved` puts the hero there)."""
    seat = acting(state, event.get("player"))
    hero = state.heroes[seat]
    if hero.place == "castle":
        raise IllegalEventError("movement", f"{hero.player}'s hero is at the castle already")
    return end_move(state)


def _group(state: HradState, mover: int, names: Any) -> tuple[int, ...]:
    """The mover and the heroes moving with them (ruling H16)."""
    if names is None:
        return (mover,)
    if not isinstance(names, list) or len(set(names)) != len(names):
        raise MalformedEventError("H16", "'group' lists the other heroes on the card, each once")
    seats = [seat_of(state, n, "H16") for n in names if n != state.heroes[mover].player]
    for seat in seats:
        able(state, seat)
    return (mover, *seats)


def _obstacle(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Dark corridor (miss 1 round unless a torch), thick fog (miss 2), locked door (stay, go back next move,
    unless an opening spell): ruling H14. Torch and spell are spent as the hero meets the obstacle (``spend``), or
    by `use` while waiting: where no other hero moves meanwhile (a hero alone), the wait is over before any tap.
    The obstacle ends the move, but a door opened by a spell: the heroes go on through it (the rulebook's key)."""
    seat = acting(state, event.get("player"))
    obstacle = event.get("obstacle")
    if obstacle not in OBSTACLES:
        raise MalformedEventError("H14", f"unknown obstacle {obstacle!r}")
    group = _group(state, seat, event.get("group"))
    if event.get("spend"):
        item = OPENS.get(obstacle)
        hero = state.heroes[seat]
        if item is None:
            raise IllegalEventError("H14", "nothing is spent in thick fog: a torch lights a dark corridor, an opening "
                                           "spell opens a locked door")
        if hero.card_count(item) <= 0:
            raise IllegalEventError("H14", f"{hero.player}'s hero has no {CARD[item].name.lower()} card")
        if not may_use(hero.card, item):
            raise IllegalEventError("H2", f"{hero.player}'s hero uses no magic objects")
        state = state.with_hero(seat, hero.with_count(item, hero.card_count(item) - 1))
        if obstacle == "locked_door":  # the door opens for the group (rulebook: Moving in groups), who go on now
            return state  # (rulebook: "can continue in any direction he/she chooses")
        group = group[1:]  # a torch lights the way of the hero who holds it, on the next move; the others wait
    rounds = state.door_rounds if obstacle == "locked_door" else OBSTACLES[obstacle]
    for member in group:
        state = state.with_hero(member, replace(state.heroes[member], waiting=rounds, wait_reason=obstacle))
    return end_move(state)


def _end_turn(state: HradState, event: Mapping[str, Any]) -> HradState:
    if state.fight is not None:
        raise IllegalEventError("H5", "a fight is running; it ends the move when it is over")
    player = event.get("player")
    if player is not None and seat_of(state, player) != state.turn:
        raise IllegalEventError("turn-order", f"it is {state.heroes[state.turn].player}'s move, not {player}'s")
    keeper_wanted(state)
    return end_move(state)


def _remainder(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Ruling H13: the table names who keeps a victory's remainder when the hero named at the start no longer
    shares the treasure; only a hero who shared it may."""
    done = state.last_fight
    if done is None or not done.left_over:
        raise IllegalEventError("H13", "no treasure is left over waiting for a keeper")
    seat = seat_of(state, event.get("player"), "H13")
    hero = state.heroes[seat]
    shares = dict(done.shares)
    if hero.player not in shares:
        raise IllegalEventError("H13", f"{hero.player} did not share the {ENEMY[done.enemy].possessive} "
                                f"treasure; it goes to {listed(list(shares))}")
    shares[hero.player] += done.left_over
    state = state.with_hero(seat, replace(hero, treasure=hero.treasure + done.left_over))
    done = replace(done, shares=tuple(shares.items()), remainder_to=seat, left_over=0)
    return replace(state, last_fight=done)


def _use(state: HradState, event: Mapping[str, Any]) -> HradState:
    """An equipment card used by tap and spent (rulings H9, H11, H12, H14, H15)."""
    item, player = event.get("item"), event.get("player")
    if item not in CARD:
        raise MalformedEventError("H15", f"{item!r} is not an equipment card")
    seat = seat_of(state, player)
    hero = state.heroes[seat]
    name = CARD[item].name.lower()
    if hero.out:
        raise IllegalEventError("H10", f"{hero.player}'s hero is defeated and out of the game")
    if hero.card_count(item) <= 0:
        raise IllegalEventError("H15", f"{hero.player}'s hero has no {name} card")
    if not may_use(hero.card, item):
        raise IllegalEventError("H2", f"{hero.player}'s hero uses no magic objects")
    if event.get("to") is not None and item != "darren_back":
        raise MalformedEventError("H15", "'to' says where a Darren back carries its hero; no other card takes one")
    spent = hero.with_count(item, hero.card_count(item) - 1)
    if item == "skunk":
        return combat.skunk(state, seat, event)
    if item == "cloak":
        return combat.cloak(state, seat)
    if item == "antidote":
        if not hero.poisoned:
            raise IllegalEventError("H9", f"{hero.player}'s hero is not poisoned")
        state = state.with_hero(seat, replace(spent, poisoned=False))
        # ruling H9: used at once after the dart, it ends the move the dart ended, before any round's poison
        return end_move(state) if state.antidote_choice and seat == state.turn else state
    if item in ("torch", "opening_spell"):
        reason = "dark_corridor" if item == "torch" else "locked_door"
        if hero.wait_reason != reason:
            where = "in a dark corridor" if item == "torch" else "at a locked door"
            raise IllegalEventError("H14", f"{hero.player}'s hero is not {where}")
        freed = [seat] + ([s for s in _group(state, seat, event.get("group"))[1:]
                           if state.heroes[s].wait_reason == reason] if item == "opening_spell" else [])
        state = state.with_hero(seat, spent)
        for member in freed:
            state = state.with_hero(member, replace(state.heroes[member], waiting=0, wait_reason=None))
        return state
    # food, potion and the Darren back are the mover's own move
    seat = acting(state, player)
    if item == "darren_back":  # back to the city or, stuck, to a turned card nearby: `moved` puts the hero there
        return state.with_hero(seat, spent)
    gain = 1 if item == "food" else 2
    if hero.lives >= hero.card.lives:
        raise IllegalEventError("H15", f"{hero.player}'s hero has all {hero.card.lives} lives")
    return end_move(state.with_hero(seat, replace(spent, lives=min(hero.card.lives, hero.lives + gain))))


def _treasure(state: HradState, event: Mapping[str, Any]) -> HradState:
    """A treasure card (10, 15, 20 or 35), shared equally in a group (ruling H13)."""
    seat = acting(state, event.get("player"))
    value = event.get("value")
    if value not in TREASURES:
        raise MalformedEventError("H13", f"a treasure is worth {', '.join(map(str, TREASURES))}")
    seats = _group(state, seat, event.get("group"))
    to = event.get("remainder_to")
    remainder = seat if to is None else seat_of(state, to, "H13")
    if remainder not in seats:
        raise IllegalEventError("H13", f"{to} is not in the group sharing the treasure")
    state, shares = combat.share(state, seats, int(value), remainder)
    found = Found(state.heroes[seat].player, int(value), shares, int(value) % len(seats),
                  state.heroes[remainder].player)
    return end_move(replace(state, last_treasure=found))


def _exchange(state: HradState, event: Mapping[str, Any]) -> HradState:
    """The manager pays treasure out in gold coins (rulebook: Treasures); the score stays the same."""
    seat = seat_of(state, event.get("player"))
    hero, amount = state.heroes[seat], event.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
        raise MalformedEventError("H13", "'amount' is a whole number of gold coins")
    if amount > hero.treasure:
        raise IllegalEventError("H13", f"{hero.player}'s hero holds {hero.treasure} in treasure, not {amount}")
    if hero.gold + amount > MAX_GOLD:
        raise IllegalEventError("H3", f"a purse holds at most {MAX_GOLD} gold here")
    return state.with_hero(seat, replace(hero, treasure=hero.treasure - amount, gold=hero.gold + amount))


def _sceptre(state: HradState, event: Mapping[str, Any]) -> HradState:
    """The royal sceptre: +50 to the finder and the game is over (ruling H17)."""
    seat = acting(state, event.get("player"))
    return replace(state.with_hero(seat, replace(state.heroes[seat], sceptre=True)), finished=True)


def _override(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Ruling H1: a person sets any number by hand; logged with what the rules had and why."""
    field, value, reason = event.get("field"), event.get("value"), event.get("reason")
    if field not in OVERRIDE_FIELDS:
        raise MalformedEventError("H1", f"cannot set {field!r}; settable: {', '.join(OVERRIDE_FIELDS)}")
    low, high = OVERRIDE_FIELDS[field]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MalformedEventError("H1", f"{field} must be a whole number from {low} to {high}")
    if not isinstance(reason, str):
        raise MalformedEventError("H1", "an override says why ('reason')")
    enemy = event.get("enemy")  # the fight's enemy, with its lives (the command step names it, for Undo's words)
    if enemy is not None and field != "enemy_lives":
        raise MalformedEventError("H1", "'enemy' goes only with the enemy's lives (enemy_lives)")
    if field == "enemy_lives":
        if state.fight is None:
            raise IllegalEventError("H1", "no fight is running")
        if enemy is not None and enemy != state.fight.enemy:
            raise IllegalEventError("H1", f"the fight is against the {ENEMY[state.fight.enemy].name}, "
                                          f"not the {ENEMY[enemy].name if enemy in ENEMY else enemy}")
        fought = state.fight
        state = replace(state, fight=replace(fought, enemy_lives=value))
        return _logged(state, None, field, fought.enemy_lives, value, reason, enemy=fought.enemy)
    seat = seat_of(state, event.get("player"))
    hero = state.heroes[seat]
    card = hero.card
    if field in ITEMS:
        was, hero = hero.count(field), hero.with_count(field, value)
    elif field in ("gold", "treasure", "lives", "waiting"):
        was = getattr(hero, field)
        if field == "lives" and value > card.lives:
            raise IllegalEventError("H1", f"{hero.player}'s hero has at most {card.lives} lives; set max_lives first")
        updates: dict[str, Any] = {field: value}
        hero = replace(hero, **updates)
        if field == "waiting":
            hero = replace(hero, wait_reason=(hero.wait_reason or "held") if value else None)
    elif field == "poisoned":
        was, hero = int(hero.poisoned), replace(hero, poisoned=bool(value))
    else:
        key = "lives" if field == "max_lives" else field
        was = getattr(card, key)
        changes: dict[str, Any] = {key: value}
        card = replace(card, **changes)
        if card.red >= card.lives:
            raise IllegalEventError("H1", "the red threshold must stay below the lives")
        hero = replace(hero, card=card, lives=min(hero.lives, card.lives))
    state = _logged(state.with_hero(seat, hero), hero.player, str(field), was, value, reason)
    if state.fight is not None and not combat.standing(state, state.fight):
        return combat.finish(state, state.fight, "lost")  # the last hero of the fight set to 0 lives
    return state


def _logged(state: HradState, player: str | None, field: str, was: Any, now: Any, reason: str,
            enemy: str | None = None) -> HradState:
    return replace(state, overrides=state.overrides + (Override(player, field, was, now, reason, state.round,
                                                                enemy=enemy),))


def _stock(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Ruling H4: the manager edits a card's stock (the remaining prices); logged like an override."""
    item, prices, reason = event.get("item"), event.get("prices"), event.get("reason", "")
    if item not in CARD:
        raise MalformedEventError("H4", f"{item!r} is not an equipment card")
    if not isinstance(prices, list) or len(prices) > MAX_COPIES or not all(
            isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= MAX_STOCK_PRICE for p in prices):
        raise MalformedEventError("H4", f"'prices' lists at most {MAX_COPIES} prices from 0 to {MAX_STOCK_PRICE}")
    index = CARD_IDS.index(item)
    was = list(state.stock[index])
    state = replace(state, stock=state.stock[:index] + (tuple(sorted(prices)),) + state.stock[index + 1:])
    return _logged(state, None, f"stock:{item}", was, sorted(prices), str(reason or ""))


HANDLERS: dict[str, Callable[[HradState, Mapping[str, Any]], HradState]] = {
    "buy": _buy, "stop": _stop, "enter": _enter, "obstacle": _obstacle, "end_turn": _end_turn, "use": _use,
    "fight": combat.start, "initiative": combat.initiative, "strike": combat.strike, "dart": combat.dart,
    "end_fight": combat.end_fight, "remainder": _remainder,
    "treasure": _treasure, "exchange": _exchange, "sceptre": _sceptre, "override": _override, "stock": _stock,
}

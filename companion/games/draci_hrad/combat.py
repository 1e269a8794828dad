"""The combat assistant: a fight from the enemy's card to its end, exchange by exchange (rulings H5-H13, H16).

A fight starts with the enemy, the heroes (a group fights together, ruling H16) and each hero's weapon for
the whole fight. Then `initiative` decides who attacks (H5; the Spider and the Dragon always attack first,
H7), and each `strike` is one exchange: the heroes' attack, the enemy's charge, or both at once. Dice are
in the event (rolled by the companion's command step or entered from the physical die).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ..base import IllegalEventError, MalformedEventError
from .catalogue import BOW_AGAINST_DRAGON, CHIP, DART_ATTACK, ENEMY, IRON, Enemy, may_use
from .checks import able, absent, acting, dice, die, end_move, seat_of
from .state import KEEP_EXCHANGES, Dart, Exchange, Fight, Hero, HradState, Override, Strike

HERO_FIELDS = ("attackers", "hero_dice", "enemy_defence_die")
ENEMY_FIELDS = ("enemy_dice", "defence_dice", "targets", "attacks", "ruin")


def armour_of(hero: Hero) -> int:
    """The best armour the hero owns (one is worn)."""
    return max((CHIP[a].defence for a in ("leather", "chain_mail") if hero.chip(a) > 0), default=0)


def shield_of(hero: Hero, weapon: str | None) -> int:
    """The shield counts only with a one-handed weapon (ruling H5)."""
    one_handed = weapon is None or CHIP[weapon].hands == 1
    return CHIP["shield"].defence if hero.chip("shield") > 0 and one_handed else 0


def start(state: HradState, event: Mapping[str, Any]) -> HradState:
    players = event.get("players")
    if not isinstance(players, list) or not players or len(set(players)) != len(players):
        raise MalformedEventError("H16", "'players' lists the heroes in the fight, each once, the mover first")
    acting(state, players[0])
    seats = tuple(seat_of(state, p, "H16") for p in players)
    for seat in seats:
        able(state, seat)
    enemy = ENEMY.get(event.get("enemy"))  # type: ignore[arg-type]
    if enemy is None:
        raise MalformedEventError("H5", f"unknown enemy {event.get('enemy')!r}")
    weapons = event.get("weapons") or [None] * len(seats)
    if not isinstance(weapons, list) or len(weapons) != len(seats):
        raise MalformedEventError("H5", "'weapons' gives one weapon (or null) per hero in the fight")
    for seat, weapon in zip(seats, weapons, strict=True):
        hero = state.heroes[seat]
        if weapon is None:
            continue
        if weapon not in CHIP or not CHIP[weapon].attack:
            raise MalformedEventError("H5", f"{weapon!r} is not a weapon")
        if hero.chip(weapon) <= 0:
            raise IllegalEventError("H5", f"{hero.player}'s hero has no {CHIP[weapon].name.lower()}")
        if not may_use(hero.card, weapon):
            raise IllegalEventError("H2", f"{hero.player}'s hero may not use the {CHIP[weapon].name.lower()}")
    keeper = event.get("remainder_to")
    remainder_to = None if keeper is None else seat_of(state, keeper, "H13")
    if remainder_to is not None and remainder_to not in seats:
        raise IllegalEventError("H13", f"{keeper} is not in the fight to share its treasure")
    fight = Fight(enemy=enemy.id, enemy_lives=enemy.lives, members=seats, weapons=tuple(weapons),
                  started_by=seats, next="initiative", remainder_to=remainder_to)
    if enemy.first:  # ruling H7
        fight = replace(fight, next="simultaneous" if _bow_against_dragon(state, fight) else "enemy")
    return replace(state, fight=fight)


def _bow_against_dragon(state: HradState, fight: Fight) -> bool:
    """Ruling H7: a Neira or Arspel with a bow stands in a fight against the Dragon."""
    return fight.enemy == "dragon" and any(fight.weapon_of(s) == "bow" and state.heroes[s].hero in BOW_AGAINST_DRAGON
                                           for s in standing(state, fight))


def running(state: HradState) -> Fight:
    if state.fight is None:
        raise IllegalEventError("H5", "no fight is running; start one from the enemy's card")
    return state.fight


def initiative(state: HradState, event: Mapping[str, Any]) -> HradState:
    fight = running(state)
    if fight.next != "initiative":
        raise IllegalEventError("H5" if not ENEMY[fight.enemy].first else "H7",
                                f"no initiative roll now: the next exchange is the {fight.next}'s")
    hero_die, enemy_die = die(event, "hero_die"), die(event, "enemy_die")
    following = "heroes" if hero_die > enemy_die else "enemy" if enemy_die > hero_die else "simultaneous"
    return replace(state, fight=replace(fight, next=following, initiative=(hero_die, enemy_die)))


def standing(state: HradState, fight: Fight) -> tuple[int, ...]:
    return tuple(s for s in fight.members if not state.heroes[s].out)


def who_strikes(state: HradState, fight: Fight) -> str:
    """The next exchange: the heroes' attack, the enemy's, or both; heroes at or below their red threshold
    cannot attack (ruling H10), so with none able to, the enemy strikes."""
    if fight.skunk_pending:
        return "enemy"
    if fight.next in ("heroes", "simultaneous") and not any(state.heroes[s].can_attack
                                                           for s in standing(state, fight)):
        return "enemy"
    return fight.next


def charge(state: HradState, fight: Fight, event: Mapping[str, Any]) -> tuple[int, ...]:
    """The attack numbers of the enemy's charge (rulings H6, H7): the Dragon's chosen attacks, else all."""
    enemy = ENEMY[fight.enemy]
    chosen = event.get("attacks")
    if chosen is None:
        return enemy.attacks
    if enemy.id != "dragon":
        raise MalformedEventError("H6", "only the Dragon chooses its attacks (claws and teeth)")
    if not isinstance(chosen, list) or not 1 <= len(chosen) <= 3 or len(set(chosen)) != len(chosen):
        raise MalformedEventError("H6", "'attacks' lists 1 to 3 of the Dragon's attacks: 0, 1 (claws), 2 (teeth)")
    return tuple(enemy.attacks[i] for i in sorted(chosen))


def dice_needed(state: HradState) -> dict[str, int]:
    """How many dice the next step of the running fight takes, by field (the page and the command step)."""
    fight = state.fight
    if fight is None:
        return {}
    if fight.next == "initiative":
        return {"hero_die": 1, "enemy_die": 1}
    kind = who_strikes(state, fight)
    needed: dict[str, int] = {}
    if kind in ("heroes", "simultaneous"):
        needed.update(hero_dice=sum(state.heroes[s].can_attack for s in standing(state, fight)),
                      enemy_defence_die=1)
    if kind in ("enemy", "simultaneous"):
        attacks = len(ENEMY[fight.enemy].attacks)
        needed.update(enemy_dice=1 if state.one_die_per_charge else attacks,
                      defence_dice=1 if state.one_die_per_charge else attacks)
    return needed


def _heroes_attack(state: HradState, fight: Fight, event: Mapping[str, Any]) -> Strike:
    enemy = ENEMY[fight.enemy]
    names = event.get("attackers")
    able_now = [s for s in standing(state, fight) if state.heroes[s].can_attack]
    if names is None:
        attackers = able_now
    else:
        if not isinstance(names, list) or not names or len(set(names)) != len(names):
            raise MalformedEventError("H16", "'attackers' lists heroes of the fight, each once")
        attackers = [seat_of(state, n, "H16") for n in names]
        for seat in attackers:
            hero = state.heroes[seat]
            if seat not in standing(state, fight):
                raise IllegalEventError("H16", f"{hero.player}'s hero is not standing in this fight")
            if not hero.can_attack:
                raise IllegalEventError("H10", f"{hero.player}'s hero has {hero.lives} lives, at or below the red "
                                        f"threshold {hero.card.red}: no attack, only the magic cloak")
    rolls = dice(event, "hero_dice", len(attackers))
    defence_die = die(event, "enemy_defence_die")
    parts: list[tuple[str, int]] = []
    for seat, roll in zip(attackers, rolls, strict=True):
        hero, weapon = state.heroes[seat], fight.weapon_of(seat)
        parts += [(hero.player, hero.card.attack), (weapon or "no weapon", CHIP[weapon].attack if weapon else 0),
                  ("die", roll)]
    defence = ((enemy.name, enemy.defence), ("die", defence_die))
    total_a, total_d = sum(v for _, v in parts), enemy.defence + defence_die
    return Strike("heroes", tuple(parts), defence, total_a, total_d, max(0, total_a - total_d))  # ruling H5


def _ruin_choice(hero: Hero, weapon: str | None, wanted: Any) -> str | None:
    """The iron item a damaging Rust Worm hit ruins (ruling H8): the one chosen at the table, else the weapon
    in hand, else the first iron item owned."""
    owned = [i for i in IRON if hero.chip(i) > 0]
    if wanted is not None:
        if wanted not in owned:
            raise IllegalEventError("H8", f"{hero.player}'s hero owns no {wanted!r} to ruin; iron items owned: "
                                    f"{', '.join(owned) or 'none'}")
        return str(wanted)
    if weapon in owned:
        return weapon
    return owned[0] if owned else None


def _enemy_attack(state: HradState, fight: Fight, event: Mapping[str, Any]
                  ) -> tuple[list[Strike], HradState, Fight]:
    enemy = ENEMY[fight.enemy]
    numbers = charge(state, fight, event)
    count = len(numbers)
    rolls = dice(event, "enemy_dice", 1 if state.one_die_per_charge else count)
    guards = dice(event, "defence_dice", 1 if state.one_die_per_charge else count)
    if state.one_die_per_charge:  # ruling H6: one die for the whole charge, and one for the defence
        rolls, guards = rolls * count, guards * count
    alive = standing(state, fight)
    names = event.get("targets")
    if names is None:
        targets = [alive[0]] * count
    else:
        if not isinstance(names, list) or len(names) != count:
            raise MalformedEventError("H16", f"'targets' names the hero each of the {count} attacks strikes")
        targets = [seat_of(state, n, "H16") for n in names]
        for seat in targets:
            if seat not in alive:
                raise IllegalEventError("H16", f"{state.heroes[seat].player}'s hero is not standing in this fight")
        if enemy.id == "harpies" and len(set(targets)) > 1:
            raise IllegalEventError("H6", "the Harpies' two attacks strike one hero")
        if enemy.id != "dragon" and len(set(targets)) > 1:
            raise IllegalEventError("H16", "the enemy attacks one hero of the group")
    wanted = event.get("ruin")
    if wanted is not None and not enemy.rust:
        raise MalformedEventError("H8", "only the Rust Worm ruins iron items")
    strikes: list[Strike] = []
    weapons = list(fight.weapons)
    lost = list(fight.lost or (0,) * len(fight.started_by))
    for number, roll, guard, seat in zip(numbers, rolls, guards, targets, strict=True):
        hero = state.heroes[seat]
        lives = hero.lives
        weapon = weapons[fight.started_by.index(seat)]
        armour, shield = armour_of(hero), shield_of(hero, weapon)
        attack = ((enemy.name, number), ("die", roll))
        defence = ((hero.player, hero.card.defence), ("armour", armour), ("shield", shield), ("die", guard))
        total_a, total_d = number + roll, hero.card.defence + armour + shield + guard
        damage = max(0, total_a - total_d)  # ruling H5
        ruined = None
        if damage and enemy.rust:
            ruined = _ruin_choice(hero, weapon, wanted)
            if ruined is not None:
                hero = hero.with_count(ruined, hero.chip(ruined) - 1)
                if ruined == weapon and hero.chip(ruined) == 0:
                    weapons[fight.started_by.index(seat)] = None
        hero = replace(hero, lives=max(0, hero.lives - damage))
        lost[fight.started_by.index(seat)] += lives - hero.lives
        state = state.with_hero(seat, hero)
        strikes.append(Strike("enemy", attack, defence, total_a, total_d, damage, hero.player, ruined))
    defended = fight.defended + tuple(s for s in dict.fromkeys(targets) if s not in fight.defended)
    return strikes, state, replace(fight, weapons=tuple(weapons), defended=defended, lost=tuple(lost))


def strike(state: HradState, event: Mapping[str, Any]) -> HradState:
    """One exchange (rulings H5-H8, H10, H16), then the fight's end or who strikes next."""
    fight = running(state)
    if fight.next == "initiative":
        raise IllegalEventError("H5", "roll for initiative first")
    kind = who_strikes(state, fight)
    striking = standing(state, fight)
    strikes: list[Strike] = []
    if kind == "heroes":
        absent(event, ENEMY_FIELDS, "it is the heroes' attack")
    if kind == "enemy":
        if fight.next != "enemy" and not fight.skunk_pending and any(event.get(k) is not None for k in HERO_FIELDS):
            raise IllegalEventError("H10", "no hero of the fight is above the red threshold: no attack, the enemy "
                                    "strikes (or a hero leaves with the magic cloak)")
        absent(event, HERO_FIELDS, "it is the enemy's attack")
    enemy_lives = fight.enemy_lives
    if kind in ("heroes", "simultaneous"):
        hit = _heroes_attack(state, fight, event)
        strikes.append(hit)
        enemy_lives = max(0, enemy_lives - hit.damage)
    if kind in ("enemy", "simultaneous"):  # simultaneous: the enemy finishes its attack even if slain
        hits, state, fight = _enemy_attack(state, fight, event)
        strikes += hits
    exchange = Exchange(fight.exchange_count + 1, kind, tuple(strikes))
    fight = replace(fight, enemy_lives=enemy_lives, exchanges=fight.exchanges[-KEEP_EXCHANGES + 1:] + (exchange,),
                    exchange_count=fight.exchange_count + 1)
    if enemy_lives <= 0:
        return finish(state, fight, "won", striking)
    if not standing(state, fight):
        return finish(state, fight, "lost")
    if fight.skunk_pending:
        return finish(state, fight, "escaped")  # ruling H11: struck once, then the heroes leave
    return replace(state, fight=replace(fight, next=_following(state, fight, kind)))


def _following(state: HradState, fight: Fight, kind: str) -> str:
    enemy = ENEMY[fight.enemy]
    if enemy.first:  # ruling H7: never surprised; the bow against the Dragon stays simultaneous while its archer stands
        if kind == "simultaneous" and (state.rules < 4 or _bow_against_dragon(state, fight)):
            return "simultaneous"
        return "heroes" if kind == "enemy" else "enemy"
    if state.reinitiative or kind == "simultaneous":  # ruling H5: equal rolls make one exchange simultaneous
        return "initiative"
    return "heroes" if kind == "enemy" else "enemy"


def end_fight(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Ruling H1: the manager ends a fight the rules cannot (e.g. no hero can attack and none is hurt): the
    enemy's card turns face down, nothing is paid; logged with the reason like an override, under the name of the
    hero whose fight it was (the mover), with every hero who entered it, so that the log can say whose fight ended
    (a group's, the group's)."""
    fight = running(state)
    reason = event.get("reason")
    if not isinstance(reason, str):
        raise MalformedEventError("H1", "ending a fight by hand says why ('reason')")
    heroes = tuple(state.heroes[seat].player for seat in fight.started_by)
    log = Override(heroes[0], "fight", fight.enemy, "ended", reason, state.round, enemy=fight.enemy, heroes=heroes)
    return finish(replace(state, overrides=state.overrides + (log,)), fight, "ended")


def finish(state: HradState, fight: Fight, outcome: str, striking: tuple[int, ...] = ()) -> HradState:
    """The end of a fight: victory pays the enemy's treasure, shared in a group (ruling H13) by the heroes still
    standing, or, where the last of them fell in the exchange that won it, by those who struck in it (``striking``;
    before rules version 4, by every member); otherwise the enemy's card turns face down (H11, H12). The fight ends
    the mover's move. A remainder whose keeper named at the start no longer shares (defeated, or left with the
    cloak) is asked of the table (`remainder`); play going on without the answer gives it to the first sharer (see
    `checks.play_goes_on`)."""
    shares: tuple[tuple[str, int], ...] = ()
    left_over = 0
    if outcome == "won":
        fallen_together = striking if state.rules >= 4 else ()
        sharers = standing(state, fight) or fallen_together or fight.members or fight.started_by
        value = ENEMY[fight.enemy].treasure
        if value % len(sharers) and fight.keeper not in sharers and state.rules >= 3:  # before: the first sharer
            left_over = value % len(sharers)
            state, shares = share(state, sharers, value - left_over, sharers[0])
        else:
            state, shares = share(state, sharers, value, fight.keeper if fight.keeper in sharers else sharers[0])
    done = replace(fight, outcome=outcome, shares=shares, skunk_pending=False, left_over=left_over)
    return end_move(replace(state, fight=None, last_fight=done))


def share(state: HradState, seats: tuple[int, ...], value: int, remainder_to: int
          ) -> tuple[HradState, tuple[tuple[str, int], ...]]:
    """Split `value` equally among `seats`; the indivisible remainder goes to `remainder_to` (ruling H13)."""
    each, rest = divmod(value, len(seats))
    shares = []
    for seat in seats:
        amount = each + (rest if seat == remainder_to else 0)
        hero = state.heroes[seat]
        state = state.with_hero(seat, replace(hero, treasure=hero.treasure + amount))
        shares.append((hero.player, amount))
    return state, tuple(shares)


def skunk(state: HradState, seat: int, event: Mapping[str, Any]) -> HradState:
    """Ruling H11: won initiative, the heroes leave at once; otherwise the enemy strikes once, then they leave."""
    fight = running(state)
    hero = state.heroes[seat]
    enemy: Enemy = ENEMY[fight.enemy]
    if seat not in standing(state, fight):
        raise IllegalEventError("H11", f"{hero.player}'s hero is not in this fight")
    if not enemy.skunk:
        raise IllegalEventError("H11", "the skunk is no use against the Dragon")
    if not hero.can_attack:
        raise IllegalEventError("H10", f"{hero.player}'s hero is at or below the red threshold; only the magic "
                                "cloak leaves the fight")
    if fight.skunk_pending:
        raise IllegalEventError("H11", "a skunk is already out; the enemy strikes once, then the heroes leave")
    state = state.with_hero(seat, hero.with_count("skunk", hero.card_count("skunk") - 1))
    if fight.next == "initiative":
        hero_die, enemy_die = die(event, "hero_die", "H11"), die(event, "enemy_die", "H11")
        fight = replace(fight, initiative=(hero_die, enemy_die))
        if hero_die > enemy_die:
            return finish(state, fight, "escaped")
        return replace(state, fight=replace(fight, skunk_pending=True, next="enemy"))
    absent(event, ("hero_die", "enemy_die"), "initiative is already decided", "H11")
    if who_strikes(state, fight) == "heroes":
        return finish(state, fight, "escaped")
    return replace(state, fight=replace(fight, skunk_pending=True, next="enemy"))


def cloak_time(fight: Fight, seat: int) -> bool:
    """Ruling H12: whether it is the moment for the hero at ``seat`` to use the cloak: after a defence, instead of
    attacking; with initiative rolled after every exchange, not straight after the heroes' own attack, only once
    their turn to attack comes again."""
    attacked_last = fight.next != "heroes" and bool(fight.exchanges) and fight.exchanges[-1].kind == "heroes"
    return seat in fight.defended and fight.next != "enemy" and not fight.skunk_pending and not attacked_last


def cloak(state: HradState, seat: int) -> HradState:
    """Ruling H12: after a defence, instead of attacking, the hero leaves the fight unseen (``cloak_time``)."""
    fight = running(state)
    hero = state.heroes[seat]
    if seat not in standing(state, fight):
        raise IllegalEventError("H12", f"{hero.player}'s hero is not in this fight")
    if not cloak_time(fight, seat):
        raise IllegalEventError("H12", "the cloak is used after a defence, instead of the next attack")
    state = state.with_hero(seat, hero.with_count("cloak", hero.card_count("cloak") - 1))
    members = tuple(s for s in fight.members if s != seat)
    fight = replace(fight, members=members)
    if not standing(state, fight):
        return finish(state, fight, "escaped")
    return replace(state, fight=fight)


def dart(state: HradState, event: Mapping[str, Any]) -> HradState:
    """Ruling H9: 15 + die against defence number + armour + die (no weapon, no shield); a hit takes a life and
    poisons the hero until an antidote. The dart ends the move; a pierced hero holding an antidote first chooses
    (rulebook: the poison takes lives "unless you are carrying an antidote"): using it ends the move cured,
    Next ends it poisoned, so no round's poison is taken before that choice. An event the choice holds up is
    taken after Next (see `checks.play_goes_on`)."""
    seat = acting(state, event.get("player"))
    hero = state.heroes[seat]
    attack_die, defence_die = die(event, "attack_die", "H9"), die(event, "defence_die", "H9")
    attack, defence = DART_ATTACK + attack_die, hero.card.defence + armour_of(hero) + defence_die
    pierced = defence < attack
    if pierced:
        hero = replace(hero, lives=max(0, hero.lives - 1), poisoned=True)
    state = state.with_hero(seat, hero)
    record = Dart(hero.player, attack_die, defence_die, attack, defence, pierced)
    state = replace(state, last_dart=record)
    if pierced and not hero.out and hero.card_count("antidote") > 0 and may_use(hero.card, "antidote") \
            and state.rules >= 2:  # version 1 ended the move at once
        return replace(state, antidote_choice=True)
    return end_move(state)


__all__ = ["start", "initiative", "strike", "end_fight", "skunk", "cloak", "dart", "dice_needed", "who_strikes",
           "share", "armour_of", "shield_of", "standing"]

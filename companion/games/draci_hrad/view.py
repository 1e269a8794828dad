"""What the kiosk page and the API show of a Dračí hrad game: heroes, shop, fight, records, evaluation."""
from __future__ import annotations

from typing import Any

from .catalogue import (
    CARD_IDS,
    CARDS,
    CHIP,
    CHIP_IDS,
    CHIPS,
    DART_ATTACK,
    ENEMIES,
    ENEMY,
    HERO_NAMES,
    IRON,
    OBSTACLE_NAMES,
    OPENS,
    ORACLE,
    SCEPTRE_POINTS,
    SQUARE_NAMES,
    SQUARES,
    TAVERN,
    TREASURES,
    WEAPONS,
    may_use,
)
from .combat import armour_of, cloak_time, dice_needed, shield_of, standing, who_strikes
from .events import override_words
from .state import Exchange, Fight, Found, Hero, HradState


def view(state: HradState) -> dict[str, Any]:
    players = state.players
    scores = {h.player: h.score for h in state.heroes}
    fallen = all(h.out for h in state.heroes) and not any(h.sceptre for h in state.heroes)
    winners: list[str] = []
    if state.finished and not fallen:
        best = max(scores.values())
        winners = [p for p in players if scores[p] == best]  # ruling H17: ties share
    turn = None if state.finished else players[state.turn]
    return {
        "finished": state.finished,
        "winners": winners,
        "no_winner": state.finished and fallen,  # ruling H17: every hero fell without the sceptre
        "round": state.round,
        "turn": turn,
        "scores": scores,
        "breakdown": [
            {"round": 1, "label": "Treasure", "points": {h.player: h.treasure for h in state.heroes}},
            {"round": 2, "label": "Gold", "points": {h.player: h.gold for h in state.heroes}},
            {"round": 3, "label": "Sceptre", "points": {h.player: SCEPTRE_POINTS if h.sceptre else 0
                                                         for h in state.heroes}},
        ],
        "breakdown_heading": "Points",  # its rows are what the points came from, not rounds
        "phase": "finished" if state.finished else "fight" if state.fight else "move",
        "heroes": [_hero(state, seat, h) for seat, h in enumerate(state.heroes)],
        # who missed their move when the turn last passed (ruling H14), in turn order, and where each was kept
        "missed_at": dict(state.missed),
        "shop": _shop(state),
        "city": {"tavern": TAVERN, "oracle": ORACLE},
        "obstacles": OBSTACLE_NAMES,
        "obstacle_cards": OPENS,  # the card a hero may spend there instead of waiting (ruling H14)
        "treasures": list(TREASURES),
        "enemies": [{"id": e.id, "name": e.name, "attacks": list(e.attacks), "defence": e.defence,
                     "lives": e.lives, "treasure": e.treasure, "first": e.first, "skunk": e.skunk,
                     "rust": e.rust, "plural": e.plural} for e in ENEMIES],
        "dart": {"attack": DART_ATTACK},
        "fight": _fight(state, state.fight) if state.fight else None,
        "last_fight": _fight(state, state.last_fight) if state.last_fight else None,
        "last_dart": vars(state.last_dart).copy() if state.last_dart else None,
        "antidote_choice": state.antidote_choice,  # ruling H9: the darted mover uses the antidote or taps Next
        "last_treasure": _found(state.last_treasure) if state.last_treasure else None,
        # the log of numbers set by hand, each with what its number is called ("lives at most", "the Spider's lives"):
        # the page says it as Undo does; a fight ended by hand names its enemy and every hero who entered it
        "overrides": [{**vars(o), "heroes": list(o.heroes),
                       "words": None if o.field in ("fight", "poisoned") or o.field.startswith("stock:")
                       else override_words(o.field, o.enemy)} for o in state.overrides],
        "options": {"reinitiative": state.reinitiative, "one_die_per_charge": state.one_die_per_charge,
                    "locked_door_rounds": state.door_rounds},
        "evaluation": _evaluation(state) if state.finished else None,
        "expects": expects(state),
    }


def expects(state: HradState) -> list[str]:
    """The event types that may come next (the page shows these taps)."""
    if state.finished:
        return []
    always = ["use", "exchange", "override", "stock"]
    if state.fight is not None:
        step = "initiative" if state.fight.next == "initiative" else "strike"
        return [step, "end_fight", *always]
    if state.last_fight is not None and state.last_fight.left_over:
        return ["remainder", *always]
    if state.antidote_choice:
        return ["end_turn", *always]
    return ["buy", "stop", "enter", "obstacle", "treasure", "dart", "fight", "sceptre", "end_turn", *always]


def _hero(state: HradState, seat: int, hero: Hero) -> dict[str, Any]:
    card = hero.card
    return {
        "player": hero.player, "hero": hero.hero, "name": HERO_NAMES[hero.hero],
        "gold": hero.gold, "lives": hero.lives, "max_lives": card.lives, "red": card.red,
        "can_attack": hero.can_attack, "attack": card.attack, "defence": card.defence,
        "armour": armour_of(hero), "shield": hero.chip("shield") > 0,
        "weapons_allowed": [w for w in WEAPONS if may_use(card, w)], "magic": card.magic,
        "equipment": {c: hero.chip(c) for c in CHIP_IDS if hero.chip(c)},
        "iron": [c for c in IRON if hero.chip(c)],  # what a Rust Worm's hit may ruin, chosen at the table (H8)
        "cards": {c: hero.card_count(c) for c in CARD_IDS if hero.card_count(c)},
        "treasure": hero.treasure, "score": hero.score, "sceptre": hero.sceptre,
        "waiting": hero.waiting, "wait_reason": hero.wait_reason, "poisoned": hero.poisoned,
        "out": hero.out, "turn": not state.finished and seat == state.turn,
        "place": hero.place,  # the city or the castle: the page opens the mover's (rules.moved)
    }


def _shop(state: HradState) -> list[dict[str, Any]]:
    squares: list[dict[str, Any]] = []
    for square in SQUARES:
        items: list[dict[str, Any]] = []
        for chip in CHIPS:
            if chip.square == square:
                items.append({"item": chip.id, "name": chip.name, "kind": "chip", "price": chip.price,
                              "attack": chip.attack, "defence": chip.defence, "hands": chip.hands})
        for kind in CARDS:
            if kind.square == square:
                left = state.stock[CARD_IDS.index(kind.id)]
                items.append({"item": kind.id, "name": kind.name, "kind": "card",
                              "price": min(left) if left else None, "stock": list(left), "magic": kind.magic})
        squares.append({"square": square, "name": SQUARE_NAMES[square], "items": items})
    return squares


def _exchange(exchange: Exchange) -> dict[str, Any]:
    return {"number": exchange.number, "kind": exchange.kind, "strikes": [
        {"side": s.side, "attack": [{"label": k, "value": v} for k, v in s.attack],
         "defence": [{"label": k, "value": v} for k, v in s.defence],
         "attack_total": s.attack_total, "defence_total": s.defence_total, "damage": s.damage,
         "target": s.target, "ruined": s.ruined,
         "sum": f"{' + '.join(str(v) for _, v in s.attack)} = {s.attack_total} vs "
                f"{' + '.join(str(v) for _, v in s.defence)} = {s.defence_total}: {s.damage} damage"}
        for s in exchange.strikes]}


def _fight(state: HradState, fight: Fight) -> dict[str, Any]:
    enemy = ENEMY[fight.enemy]
    over = fight.outcome is not None
    members = []
    for index, seat in enumerate(fight.started_by):
        hero, weapon = state.heroes[seat], fight.weapon_of(seat)
        in_fight = seat in fight.members and not hero.out
        members.append({
            "player": hero.player, "weapon": weapon, "weapon_attack": CHIP[weapon].attack if weapon else 0,
            "attack": hero.card.attack, "defence": hero.card.defence, "armour": armour_of(hero),
            "shield": shield_of(hero, weapon), "lives": hero.lives, "in_fight": in_fight,
            # the lives the enemy's attacks took from the hero over the whole fight, every exchange counted
            "lives_lost": fight.lost[index] if fight.lost else 0,
            "can_attack": in_fight and hero.can_attack,
            "may_cloak": not over and in_fight and hero.card_count("cloak") > 0 and hero.card.magic
            and cloak_time(fight, seat),
            "may_skunk": not over and in_fight and hero.card_count("skunk") > 0 and enemy.skunk
            and hero.can_attack and not fight.skunk_pending,
        })
    return {
        "enemy": enemy.id, "name": enemy.name, "plural": enemy.plural, "possessive": enemy.possessive,
        "enemy_lives": fight.enemy_lives, "enemy_max_lives": enemy.lives,
        "enemy_attacks": list(enemy.attacks), "enemy_defence": enemy.defence, "treasure": enemy.treasure,
        "members": members, "next": fight.next,
        "strikes_next": None if over or fight.next == "initiative" else who_strikes(state, fight),
        "standing": [state.heroes[s].player for s in standing(state, fight)],
        "initiative": list(fight.initiative) if fight.initiative else None,
        "skunk_pending": fight.skunk_pending,
        "exchanges": [_exchange(e) for e in fight.exchanges], "exchange_count": fight.exchange_count,
        "dice_needed": {} if over else dice_needed(state),
        "outcome": fight.outcome, "shares": dict(fight.shares),
        "remainder_to": state.heroes[fight.remainder_to].player if fight.remainder_to is not None else None,
        # ruling H13: a remainder waiting for a keeper, as the one named at the start no longer shares it
        "left_over": fight.left_over, "keeper_named": state.heroes[fight.keeper].player,
        # rulebook: a defeated enemy's card stays turned (neutral); otherwise it turns face down, active again
        "card_face_down": fight.outcome in ("escaped", "lost", "ended"),
    }


def _found(found: Found) -> dict[str, Any]:
    return {"player": found.player, "value": found.value, "shares": dict(found.shares),
            "remainder": found.remainder, "remainder_to": found.remainder_to}


def _evaluation(state: HradState) -> list[dict[str, Any]]:
    """Ruling H17: treasure + remaining gold (+50 for the sceptre), highest first."""
    rows: list[dict[str, Any]] = [
        {"player": h.player, "hero": HERO_NAMES[h.hero], "treasure": h.treasure, "gold": h.gold,
         "sceptre": SCEPTRE_POINTS if h.sceptre else 0, "total": h.score, "out": h.out} for h in state.heroes]
    rows.sort(key=lambda r: -r["total"])
    for row in rows:
        row["rank"] = 1 + sum(1 for other in rows if other["total"] > row["total"])
    return rows


__all__ = ["view", "expects"]

"""The checks every handler shares: who a player is, whether their hero may act now, dice, passing the turn."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ..base import IllegalEventError, MalformedEventError, listed
from .catalogue import ENEMY
from .state import HradState

#: How many moves a hero may be told to miss by hand (ruling H1); bounds the turn loop.
MAX_WAIT = 9


def seat_of(state: HradState, player: Any, rule: str = "H1") -> int:
    seat = state.seat(player)
    if seat is None:
        raise MalformedEventError(rule, f"{player!r} plays no hero here; heroes: {', '.join(state.players)}")
    return seat


def able(state: HradState, seat: int) -> None:
    """The hero is standing and not waiting (rulings H10, H14)."""
    hero = state.heroes[seat]
    if hero.out:
        raise IllegalEventError("H10", f"{hero.player}'s hero is defeated and out of the game")
    if hero.waiting > 0:
        raise IllegalEventError("H14", f"{hero.player}'s hero is waiting ({hero.wait_reason or 'held'}) for "
                                f"{hero.waiting} more round{'s' if hero.waiting > 1 else ''}")


def acting(state: HradState, player: Any) -> int:
    """The seat of `player`, whose hero makes this move now: no fight runs, standing, not waiting, their turn."""
    if state.fight is not None:
        raise IllegalEventError("H5", f"a fight against the {state.fight.enemy.replace('_', ' ')} is running; "
                                "finish it first")
    seat = seat_of(state, player)
    able(state, seat)
    keeper_wanted(state)
    if state.antidote_choice:
        raise IllegalEventError("H9", f"the poisoned dart ended {state.heroes[state.turn].player}'s move: use the "
                                "antidote now or tap Next")
    if seat != state.turn:
        raise IllegalEventError("turn-order", f"it is {state.heroes[state.turn].player}'s move, not {player}'s")
    return seat


def keeper_wanted(state: HradState) -> None:
    """Ruling H13: a victory's remainder whose named keeper no longer shares is assigned before play goes on."""
    done = state.last_fight
    if done is not None and done.left_over:
        names = listed([name for name, _ in done.shares])
        raise IllegalEventError("H13", f"first name who keeps the {done.left_over} left over of the "
                                f"{ENEMY[done.enemy].possessive} treasure ({names}): "
                                f"{state.heroes[done.keeper].player} no longer shares it")


def play_goes_on(state: HradState) -> HradState:
    """The state as play going on leaves it when the table does not answer what it is asked: a victory's
    left-over goes to the first hero sharing it (ruling H13); the darted hero keeps the antidote and the move ends
    as Next ends it, the round's poison included (H9). `state` itself when nothing is asked."""
    if state.last_fight is not None and state.last_fight.left_over:
        return first_sharer_keeps(state)
    return end_move(state) if state.antidote_choice else state


def first_sharer_keeps(state: HradState) -> HradState:
    """Ruling H13: a victory's left-over nobody was named for goes to the first hero sharing the treasure."""
    done = state.last_fight
    assert done is not None and done.left_over and done.shares
    name, amount = done.shares[0]
    seat = seat_of(state, name, "H13")
    hero = state.heroes[seat]
    state = state.with_hero(seat, replace(hero, treasure=hero.treasure + done.left_over))
    shares = ((name, amount + done.left_over), *done.shares[1:])
    return replace(state, last_fight=replace(done, shares=shares, left_over=0))


def die(event: Mapping[str, Any], key: str, rule: str = "H5") -> int:
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise MalformedEventError(rule, f"{key!r} must be a die from 1 to 6 (rolled by the companion or entered)")
    return value


def dice(event: Mapping[str, Any], key: str, count: int, rule: str = "H5") -> tuple[int, ...]:
    values = event.get(key)
    if not isinstance(values, (list, tuple)) or len(values) != count:
        raise MalformedEventError(rule, f"{key!r} must list {count} dice from 1 to 6")
    return tuple(die({key: v}, key, rule) for v in values)


def absent(event: Mapping[str, Any], keys: tuple[str, ...], why: str, rule: str = "H5") -> None:
    for key in keys:
        if event.get(key) is not None:
            raise MalformedEventError(rule, f"{key!r} does not belong here: {why}")


def end_move(state: HradState) -> HradState:
    """Pass the turn clockwise: a new round poisons (ruling H9); defeated heroes are passed over, waiting ones
    miss this move (ruling H14)."""
    heroes = list(state.heroes)
    count = len(heroes)
    seat, number = state.turn, state.round
    missed: list[tuple[str, str]] = []
    for _ in range(count * (MAX_WAIT + 2)):
        seat += 1
        if seat == count:
            seat, number = 0, number + 1
            heroes = [replace(h, lives=h.lives - 1) if h.poisoned and not h.out else h for h in heroes]
        hero = heroes[seat]
        if all(h.out for h in heroes):
            return replace(state, heroes=tuple(heroes), round=number, finished=True, missed=tuple(missed),
                           antidote_choice=False)
        if hero.out:
            continue
        if hero.waiting > 0:
            left = hero.waiting - 1
            heroes[seat] = replace(hero, waiting=left, wait_reason=hero.wait_reason if left else None)
            missed.append((hero.player, hero.wait_reason or "held"))
            continue
        if hero.wait_reason is not None:  # a locked door: this move goes back (ruling H14)
            heroes[seat] = replace(hero, wait_reason=None)
        return replace(state, heroes=tuple(heroes), round=number, turn=seat, missed=tuple(missed),
                       antidote_choice=False)
    raise AssertionError("the turn found no hero")  # unreachable: waits are bounded by MAX_WAIT


def settle(state: HradState) -> HradState:
    """After any change: all heroes defeated ends the game (ruling H17); a defeated hero's move passes. A game
    over asks nothing more: a left-over still waiting for its keeper goes to the first sharer (H13)."""
    if not state.finished and all(h.out for h in state.heroes):
        state = replace(state, finished=True, fight=None)
    if state.finished:
        return first_sharer_keeps(state) if state.last_fight is not None and state.last_fight.left_over else state
    if state.fight is None and state.heroes[state.turn].out:
        return end_move(state)
    return state

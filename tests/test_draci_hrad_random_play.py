"""Random play of whole Dračí hrad games: random legal moves (with dice rolled by the command step or
entered) and random ill-formed or illegal input, against an independent ledger of the bank and the stock.
Invariants: gold never negative, lives within 0..max, the evaluation recounts, refusals change nothing,
replaying the accepted events gives the same state, every hero stands where the last event naming them put them (the
heroes of a fight in the castle, a defeated hero where they fell), and what happened last is one thing at most, gone
after a later move."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.games import GAMES, RuleError
from companion.games.draci_hrad import HradState
from companion.games.draci_hrad.catalogue import CARD, CARD_IDS, CHIP, ENEMY, HEROES
from companion.games.schema import validate_event
from companion.log import EventLog
from companion.table import Table, fold_log

GAME = GAMES["draci-hrad"]
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Finn")
DICE_FIELDS = ("hero_die", "enemy_die", "attack_die", "defence_die", "hero_dice", "enemy_defence_die",
               "enemy_dice", "defence_dice")


@dataclass
class Ledger:
    """The bank as an independent model: purses, treasure and the card stock, from the accepted events."""

    players: tuple[str, ...]
    gold: dict[str, int] = field(default_factory=dict)
    treasure: dict[str, int] = field(default_factory=dict)
    stock: dict[str, list[int]] = field(default_factory=dict)
    sceptre: str | None = None

    def __post_init__(self) -> None:
        self.gold = {p: 200 for p in self.players}  # ruling H3
        self.treasure = {p: 0 for p in self.players}
        self.stock = {c: list(CARD[c].prices) for c in CARD_IDS}  # ruling H4

    def accept(self, event: dict[str, Any], before: HradState, after: HradState) -> None:
        done = before.last_fight
        asked, first = (done.left_over, done.shares[0][0]) if done is not None and done.left_over else (0, "")
        if asked and self.plays_on(event, first):  # ruling H13: play going on, the first sharer keeps it
            self.treasure[first] += asked
            asked = 0
        self.book(event, before, after)
        if asked and all(h.out for h in after.heroes):  # rulings H13, H17: a game over asks nothing more
            self.treasure[first] += asked

    def plays_on(self, event: dict[str, Any], first: str) -> bool:
        """Ruling H13: what the keeper's question holds up: a move (end_turn included), or an exchange of more
        than the first sharer holds without the left-over."""
        kind = event["type"]
        if kind in ("buy", "stop", "obstacle", "treasure", "dart", "fight", "sceptre", "end_turn"):
            return True
        if kind == "use":
            return bool(event["item"] in ("food", "potion", "darren_back"))
        return kind == "exchange" and event["player"] == first and event["amount"] > self.treasure[first]

    def book(self, event: dict[str, Any], before: HradState, after: HradState) -> None:
        kind, who = event["type"], event.get("player")
        if kind == "buy":
            item = event["item"]
            if item in CHIP:
                price = CHIP[item].price
            else:
                price = min(self.stock[item])
                self.stock[item].remove(price)
            self.gold[who] -= price
        elif kind == "stop":
            self.gold[who] -= 5 if event["square"] == "tavern" else 3  # ruling H14
        elif kind == "exchange":
            self.gold[who] += event["amount"]
            self.treasure[who] -= event["amount"]
        elif kind == "treasure":  # ruling H13
            group = [who] + [p for p in event.get("group") or [] if p != who]
            each, rest = divmod(event["value"], len(group))
            for p in group:
                self.treasure[p] += each
            self.treasure[event.get("remainder_to") or who] += rest
        elif kind == "override" and event["field"] in ("gold", "treasure"):
            getattr(self, event["field"])[who] = event["value"]
        elif kind == "stock":
            self.stock[event["item"]] = sorted(event["prices"])
        elif kind == "sceptre":
            self.sceptre = who
        elif kind == "remainder":  # ruling H13: what a victory left over, to the keeper the table names
            assert before.last_fight is not None and after.last_fight is not None
            assert after.last_fight.left_over == 0 < before.last_fight.left_over
            self.treasure[who] += before.last_fight.left_over
            return
        done = after.last_fight
        if done is not None and before.fight is not None and after.fight is None and done.outcome == "won":
            shares = dict(done.shares)
            assert sum(shares.values()) + done.left_over == ENEMY[done.enemy].treasure  # ruling H13
            assert set(shares) <= {h.player for h in before.heroes if not h.out}  # none fallen before it shares
            for p, amount in shares.items():
                self.treasure[p] += amount


def played_on(event: dict[str, Any], before: HradState, after: HradState) -> list[str]:
    """Which question (rulings H9, H13) `event` answered by play going on rather than by its answer; a card spent
    at an obstacle (H14), checked."""
    answered: list[str] = []
    if before.antidote_choice and not after.antidote_choice:
        darted = before.heroes[before.turn].player
        answer = event.get("player") in (None, darted) and (
            event["type"] == "end_turn" or (event["type"] == "use" and event["item"] == "antidote"))
        if not answer:  # ruling H9: the darted hero kept the antidote, and the poison
            seat = before.turn
            kept, had = after.heroes[seat], before.heroes[seat]
            assert kept.card_count("antidote") == had.card_count("antidote") and (kept.poisoned or kept.out)
            answered.append("antidote: played on")
    if event["type"] == "obstacle" and event.get("spend"):  # ruling H14: the card spent, the mover waits not
        item = {"dark_corridor": "torch", "locked_door": "opening_spell"}[event["obstacle"]]
        seat = before.seat(event["player"])
        assert after.heroes[seat].card_count(item) == before.heroes[seat].card_count(item) - 1
        assert after.heroes[seat].waiting == 0 and after.heroes[seat].wait_reason is None
        if item == "opening_spell":  # through the opened door the move goes on
            assert after.turn == seat and after.round == before.round
        else:  # the corridor lit: the move ends, and the mover is not passed over
            assert after.heroes[seat].player not in dict(after.missed)
        answered.append("obstacle: spent")
    if before.last_fight is not None and before.last_fight.left_over and event["type"] != "remainder":
        if after.last_fight is None or not after.last_fight.left_over:
            answered.append("keeper: played on")
    return answered


#: Where an event puts the heroes it names (rulebook: Journey through the City, Rules of Movement).
PLACES = {"buy": "city", "stop": "city", "enter": "castle", "obstacle": "castle", "treasure": "castle",
          "dart": "castle", "fight": "castle", "sceptre": "castle"}


def placed(event: dict[str, Any], before: HradState, after: HradState) -> list[str]:
    """Every hero stands where the last accepted event naming them put them: the city's squares, the castle's arrow
    squares and cards, the Darren back where it carried them (the city unless said); nothing else moves a hero, so a
    defeated hero stays where they fell. Returns the moves seen, for the tally."""
    kind = event["type"]
    names = event["players"] if kind == "fight" else [event.get("player"), *(event.get("group") or [])]
    darren = kind == "use" and event["item"] == "darren_back"
    place = (event.get("to") or "city") if darren else PLACES.get(kind)
    for was, now in zip(before.heroes, after.heroes, strict=True):
        if place is not None and now.player in names:
            assert now.place == place, (event, now)
        else:
            assert now.place == was.place, (event, was, now)
        if was.out:  # a defeated hero stays where they fell
            assert now.place == was.place
    return [f"darren back: {place}"] if darren else [f"place: {place}"] if place else []


def last_shown(event: dict[str, Any], before: HradState, after: HradState) -> None:
    """What happened last is one thing at most: the dart, treasure or fight that made it, until a later move that is
    none of them; the manager's bookkeeping, a fight's own steps and the answer to what the table is asked keep it."""
    shown = [x for x in (after.last_dart, after.last_treasure, after.last_fight) if x is not None]
    assert len(shown) <= 1, after
    kind = event["type"]
    if kind == "dart":
        assert after.last_dart is not None and shown == [after.last_dart]
    elif kind == "treasure":
        assert after.last_treasure is not None and shown == [after.last_treasure]
    elif kind == "fight":
        assert after.fight is not None and not shown
    waits = after.antidote_choice or (after.last_fight is not None and after.last_fight.left_over > 0)
    keeps = kind in ("override", "stock", "exchange", "remainder") or before.fight is not None or \
        before.antidote_choice or waits
    if kind not in ("dart", "treasure", "fight") and not keeps:
        assert not shown, (event, shown)


def check(state: HradState, ledger: Ledger) -> None:
    shown = GAME.view(state)
    for hero in state.heroes:
        assert hero.gold >= 0, hero
        assert 0 <= hero.lives <= hero.card.lives, hero
        assert hero.gold == ledger.gold[hero.player] and hero.treasure == ledger.treasure[hero.player]
        assert 0 <= hero.waiting <= 9 and all(c >= 0 for c in hero.chips + hero.cards)
    assert {c: list(state.stock[i]) for i, c in enumerate(CARD_IDS)} == ledger.stock
    for row in shown["evaluation"] or []:  # ruling H17: the evaluation recounts
        p = row["player"]
        assert row["total"] == ledger.treasure[p] + ledger.gold[p] + (50 if ledger.sceptre == p else 0)
    assert shown["scores"] == {p: ledger.treasure[p] + ledger.gold[p] + (50 if ledger.sceptre == p else 0)
                               for p in state.players}
    assert [h["place"] for h in shown["heroes"]] == [h.place for h in state.heroes]
    if state.fight is not None:
        assert 0 < state.fight.enemy_lives <= max(99, ENEMY[state.fight.enemy].lives)
        assert any(not state.heroes[s].out for s in state.fight.members)
        assert all(state.heroes[s].place == "castle" for s in state.fight.started_by)  # a fight is in the castle
    if shown["finished"]:
        if ledger.sceptre is None:
            assert all(h.out for h in state.heroes) and shown["no_winner"] and shown["winners"] == []
        else:
            best = max(shown["scores"].values())
            assert shown["winners"] == [p for p in state.players if shown["scores"][p] == best]
    elif state.fight is None:  # in a group fight the mover may fall while the others fight on
        assert not state.heroes[state.turn].out


def nudge(rng: random.Random, state: HradState) -> dict[str, Any] | None:
    """Now and then a move that leads to a question of the table: an antidote before the dart (ruling H9), a group
    fight whose named keeper may fall (H13); and the Darren back bought and used either way (rulebook)."""
    roll = rng.random()
    fight = state.fight
    if fight is not None:
        keeper = fight.remainder_to
        if keeper is not None and keeper in fight.members and len(fight.members) > 1 and roll < 0.3:
            return {"type": "override", "player": state.heroes[keeper].player, "field": "lives", "value": 0,
                    "reason": "the keeper falls"}
        if keeper is not None and state.heroes[keeper].out and roll < 0.6:
            return {"type": "override", "field": "enemy_lives", "value": 1, "reason": "nearly slain"}
        return None
    mover = state.heroes[state.turn]
    if state.last_fight is not None and state.last_fight.left_over:
        return {"type": "end_turn", "player": mover.player} if roll < 0.4 else None  # play goes on (H13)
    if state.antidote_choice:  # the next hero plays on (H9)
        seats = [(state.turn + step) % len(state.heroes) for step in range(1, len(state.heroes) + 1)]
        nxt = next((state.heroes[s] for s in seats if not state.heroes[s].out and not state.heroes[s].waiting), None)
        return {"type": "end_turn", "player": nxt.player} if nxt is not None and roll < 0.4 else None
    if roll < 0.06:
        return {"type": "buy", "player": mover.player, "item": "antidote"}
    if roll < 0.12:
        return {"type": "dart", "player": mover.player, "attack_die": rng.randint(1, 6),
                "defence_die": rng.randint(1, 6)}
    if roll < 0.2:
        group = [mover.player] + [h.player for h in state.heroes if h is not mover and not h.out and not h.waiting]
        return {"type": "fight", "players": group, "enemy": rng.choice(["harpies", "geeants", "black_knight"]),
                "remainder_to": rng.choice(group)}
    if roll < 0.23:
        return {"type": "buy", "player": mover.player, "item": "darren_back"}
    if roll < 0.3 and mover.card_count("darren_back"):
        return {"type": "use", "player": mover.player, "item": "darren_back", "to": rng.choice(["city", "castle"])}
    return None


def noise(rng: random.Random, state: HradState) -> dict[str, Any]:
    """A random event built from the declared schema, mostly wrong somewhere."""
    declared = rng.choice(GAME.event_types)
    event: dict[str, Any] = {"type": declared.type}
    for name, schema in declared.properties.items():
        if rng.random() < 0.35 and name not in declared.required:
            continue
        event[name] = _value(rng, schema, state)
    return event


def _value(rng: random.Random, schema: Any, state: HradState) -> Any:
    if schema.get("nullable") and rng.random() < 0.15:
        return None
    if "enum" in schema:
        return rng.choice(list(schema["enum"]) + ["bogus"] * (schema["type"] == "string"))
    kind = schema["type"]
    if kind == "integer":
        return rng.randint(schema.get("minimum", 0) - 1, min(schema.get("maximum", 40), 40) + 1)
    if kind == "string":
        return rng.choice([*state.players, "Zed", "because"])
    if kind == "array":
        return [_value(rng, schema["items"], state) for _ in range(rng.randint(0, 3))]
    return None


def play_one_game(rng: random.Random, tally: Counter[str]) -> None:
    players = NAMES[:rng.randint(1, 6)]
    options: dict[str, Any] = {"heroes": rng.sample(HEROES, len(players)), "reinitiative": rng.random() < 0.3,
                               "one_die_per_charge": rng.random() < 0.3, "locked_door_rounds": rng.randint(0, 2)}
    if rng.random() < 0.3:
        options["hero_cards"] = {"fist": {"lives": rng.randint(8, 16), "red": rng.randint(0, 6)}}
    resolved = GAME.resolve_options(options)
    state = start = GAME.setup(players, resolved)
    ledger = Ledger(players)
    accepted: list[dict[str, Any]] = []
    for _step in range(3000):
        if state.finished:
            break
        if rng.random() < 0.25:
            event = noise(rng, state)
        elif (nudged := nudge(rng, state)) is not None:
            event = nudged
        else:
            event = dict(GAME.sample(state, rng) or {})
            if rng.random() < 0.5:  # leave the dice to the command step
                event = {k: v for k, v in event.items() if k not in DICE_FIELDS}
        before = GAME.view(state)
        try:
            validate_event(GAME, event)
            event = GAME.prepare(state, event, rng)
            payload = {**validate_event(GAME, event), "type": event["type"]}
            after = GAME.apply(state, payload)
        except RuleError:
            tally["refused"] += 1
            assert GAME.view(state) == before  # a refusal changes nothing
            continue
        ledger.accept(payload, state, after)
        tally.update(played_on(payload, state, after))
        tally.update(placed(payload, state, after))
        last_shown(payload, state, after)
        state = after
        accepted.append(payload)
        tally["accepted"] += 1
        tally[payload["type"]] += 1
        check(state, ledger)
    assert state.finished, "a random game did not finish"
    tally["game: all fell" if GAME.view(state)["no_winner"] else "game: sceptre found"] += 1
    replayed = start
    for payload in accepted:  # determinism: the log replays to the same state
        replayed = GAME.apply(replayed, payload)
    assert replayed == state


def test_random_play_of_many_whole_games() -> None:
    rng = random.Random(2026)
    tally: Counter[str] = Counter()
    for _ in range(150):
        play_one_game(rng, tally)
    print(dict(tally))
    assert tally["antidote: played on"] > 5 and tally["keeper: played on"] > 5, tally  # rulings H9, H13
    assert tally["remainder"] > 2 and tally["obstacle: spent"] > 5, tally
    assert tally["game: sceptre found"] > 20 and tally["game: all fell"] > 5, tally
    assert tally["refused"] > 500 and tally["accepted"] > 2000, tally
    assert tally["darren back: city"] > 5 and tally["darren back: castle"] > 5, tally
    for kind in ("buy", "fight", "initiative", "strike", "use", "treasure", "dart", "stop", "obstacle",
                 "override", "stock", "exchange", "end_turn", "end_fight", "enter"):
        assert tally[kind] > 5, (kind, tally)


def test_random_play_through_a_table_with_server_dice_undo_redo_and_restarts(tmp_path: Path) -> None:
    """Dice left to the table's command step are stored in the log: every undo, redo and restart folds the log
    back to exactly the state the table showed."""
    path = tmp_path / "hrad.sqlite3"
    log = EventLog(path)
    table = Table(log, rng=random.Random(8))
    rng = random.Random(9)
    tally: Counter[str] = Counter()
    try:
        for _ in range(6):
            sid = table.create(GAME.id, list(NAMES[:rng.randint(1, 4)]))["id"]
            for _step in range(400):
                view = table.view(sid)
                if view["finished"]:
                    break
                roll = rng.random()
                if roll < 0.08 and view["can_undo"]:
                    table.undo(sid)
                    tally["undo"] += 1
                elif roll < 0.5 and view["can_redo"]:
                    table.redo(sid)
                    tally["redo"] += 1
                elif roll < 0.17:
                    log.close()
                    log = EventLog(path)
                    table = Table(log, rng=random.Random(rng.random()))
                    table.rebuild()
                    assert table.view(sid)["state"] == view["state"]
                    tally["restart"] += 1
                else:
                    state = table._load(sid).state
                    event = dict(GAME.sample(state, rng) or {})
                    event = {k: v for k, v in event.items() if k not in DICE_FIELDS}  # the server rolls
                    table.submit(sid, event)
                    tally["submitted"] += 1
                record = table.log.session(sid)
                assert record is not None
                folded = fold_log(table.log, record, GAME)
                assert GAME.view(folded) == table.view(sid)["state"]
            tally["games"] += 1
    finally:
        log.close()
    assert tally["games"] == 6 and tally["restart"] > 3 and tally["undo"] > 3 and tally["redo"] > 3, tally

"""Dračí hrad's words for numbers set by hand (ruling H1), as the table meets them: the log and Undo said "the enemy's
lives" without naming the enemy; the page kept a list of its own of what each number is called, beside the one Undo
speaks from; and a group's fight ended by hand was logged under the mover's name alone."""
from __future__ import annotations

import random
from pathlib import Path

from companion.games import IllegalEventError, MalformedEventError
from companion.games.draci_hrad.events import OVERRIDE_WORDS
from companion.games.draci_hrad.rules import OVERRIDE_FIELDS
from companion.log import EventLog
from companion.table import Table
from tests.test_draci_hrad_rules import GAME, fight, new, play, refused

PAGE = Path(__file__).resolve().parent.parent / "web" / "static" / "games" / "draci-hrad.js"


def test_h1_the_log_names_the_enemy_whose_lives_were_set_by_hand() -> None:
    # ruling H1: every override is logged; the enemy's lives are the Spider's, and the log says so
    state = play(new(), fight(["Ada"], "spider", [None]),
                 {"type": "override", "field": "enemy_lives", "value": 3, "reason": "Corrected at the table"})
    entry = GAME.view(state)["overrides"][-1]
    assert entry["enemy"] == "spider" and entry["words"] == "the Spider's lives"
    harpies = play(new(), fight(["Ada"], "harpies", [None]),
                   {"type": "override", "field": "enemy_lives", "value": 3, "reason": "Corrected at the table"})
    assert GAME.view(harpies)["overrides"][-1]["words"] == "the Harpies' lives"


def test_h1_undo_names_the_enemy_whose_lives_were_set_by_hand(tmp_path: Path) -> None:
    # ruling H1: the command step keeps the fight's enemy with the number set by hand, so that Undo names it
    log = EventLog(tmp_path / "hrad.sqlite3")
    try:
        table = Table(log, rng=random.Random(5))
        sid = table.create(GAME.id, ["Ada", "Ben"])["id"]
        table.submit(sid, {"type": "fight", "players": ["Ada"], "enemy": "spider"})
        table.submit(sid, {"type": "override", "field": "enemy_lives", "value": 3, "reason": "Corrected at the table"})
        assert table.events(sid)[-1]["payload"]["enemy"] == "spider"
        assert table.undo(sid)["change"]["text"] == "the Spider's lives set to 3 by hand"
        assert table.redo(sid)["change"]["text"] == "the Spider's lives set to 3 by hand"
    finally:
        log.close()


def test_h1_a_log_kept_before_the_enemy_was_named_reads_as_it_did(tmp_path: Path) -> None:
    # ruling H1: a number set by hand stored without its enemy (an older log) folds as before; its line in the log
    # names the enemy of the fight it belongs to, and Undo, with the event alone, says "the enemy's lives"
    path = tmp_path / "hrad.sqlite3"
    log = EventLog(path)
    try:
        sid = Table(log, rng=random.Random(5)).create(GAME.id, ["Ada", "Ben"])["id"]
        log.append(sid, "fight", {"players": ["Ada"], "enemy": "black_knight", "weapons": [None]}, "tap")
        log.append(sid, "override", {"field": "enemy_lives", "value": 4, "reason": "Entered wrong"}, "tap")
        table = Table(log, rng=random.Random(5))
        table.rebuild()
        shown = table.view(sid)["state"]
        assert shown["fight"]["enemy_lives"] == 4
        assert shown["overrides"][-1]["words"] == "the Black Knight's lives"
        assert table.undo(sid)["change"]["text"] == "the enemy's lives set to 4 by hand"
    finally:
        log.close()


def test_h1_an_enemy_named_with_its_lives_must_be_the_fight_s() -> None:
    # ruling H1: the enemy named with its lives is the one fought; a hero's number names no enemy
    state = play(new(), fight(["Ada"], "spider", [None]))
    refused(state, {"type": "override", "field": "enemy_lives", "value": 3, "reason": "x", "enemy": "dragon"},
            IllegalEventError, "H1")
    refused(state, {"type": "override", "player": "Ada", "field": "gold", "value": 3, "reason": "x",
                    "enemy": "spider"}, MalformedEventError, "H1")
    named = play(state, {"type": "override", "field": "enemy_lives", "value": 3, "reason": "x", "enemy": "spider"})
    assert GAME.view(named)["fight"]["enemy_lives"] == 3


def test_h1_the_log_and_undo_call_each_number_by_the_same_words() -> None:
    # ruling H1: one list says what each of a hero's numbers is called; the log's entries carry its words, the page
    # says them and keeps no list of its own
    heroes = [f for f in OVERRIDE_FIELDS if f not in ("enemy_lives", "poisoned")]
    assert sorted(OVERRIDE_WORDS) == sorted(heroes)
    state = new()
    for field in heroes:
        low, high = OVERRIDE_FIELDS[field]
        value = min(high, 10) if field != "red" else 2
        event = {"type": "override", "player": "Ben", "field": field, "value": value, "reason": "x"}
        entry = GAME.view(play(state, event))["overrides"][-1]
        assert entry["words"] == OVERRIDE_WORDS[field]
        assert GAME.describe(event) == f"Ben's {OVERRIDE_WORDS[field]} set to {value} by hand"
    script = PAGE.read_text(encoding="utf-8")
    for words in ("lives at most", "rounds to wait", "two-hand swords", "Darren back cards", "opening spells"):
        assert words not in script, f"the page keeps its own words for a number set by hand: {words!r}"


def test_h1_a_group_s_fight_ended_by_hand_is_logged_as_the_group_s() -> None:
    # ruling H1: ending a fight by hand is logged; a group's fight (ruling H16) names every hero who entered it
    state = play(new(("Ada", "Ben", "Clara")), {"type": "end_turn", "player": "Ada"},
                 fight(["Ben", "Clara"], "dragon", [None, None]), {"type": "end_fight", "reason": "Started by mistake"})
    entry = GAME.view(state)["overrides"][-1]
    assert entry["field"] == "fight" and entry["enemy"] == "dragon" and entry["heroes"] == ["Ben", "Clara"]
    alone = play(new(), fight(["Ada"], "spider", [None]), {"type": "end_fight", "reason": "Started by mistake"})
    assert GAME.view(alone)["overrides"][-1]["heroes"] == ["Ada"]

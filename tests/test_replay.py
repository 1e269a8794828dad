"""Replay is tolerant: a session today's rules cannot fold is set aside, read-only with the reason; undo and
redo fold before they commit; the cache is filled under the lock."""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.games import GAMES, IllegalEventError
from companion.log import EventLog
from companion.table import ReadOnly, Table, fold_log
from web.app import create_app, shutdown

DIEGO = GAMES["diego-drachenzahn"]


def poison(path: Path) -> tuple[int, int]:
    """A log with a session whose recorded event today's rules refuse, and one of an unknown game."""
    log = EventLog(path)
    table = Table(log)
    good = table.create(DIEGO.id, ["Ada", "Ben"])["id"]
    table.submit(good, {"type": "marble", "gate": 2})
    bad = table.create(DIEGO.id, ["Ada", "Ben"])["id"]
    log.append(bad, "marble", {"gate": 2}, "tap")
    log.append(bad, "marble", {"gate": 7}, "tap")  # written by an older version; refused today
    log.close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO sessions (game, players, options, created, updated) "
               "VALUES ('memory-game', '[\"Ada\"]', '{}', 1, 1)")
    db.commit()
    db.close()
    return good, bad


def test_a_session_the_rules_refuse_is_set_aside_and_the_companion_starts(tmp_path: Path) -> None:
    data = tmp_path / "data"
    good, bad = poison(data / "companion.sqlite3")
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "SENSORS": "off"})
    try:
        client = app.test_client()
        sessions = {s["id"]: s for s in client.get("/api/sessions").get_json()["sessions"]}
        assert sessions[good]["status"] == "running" and sessions[good]["state"]["current"]["marbles"] == [2]
        aside = sessions[bad]
        assert aside["status"] == "set_aside" and aside["read_only"] and aside["state"] is None
        assert "from 1 to 6" in aside["reason"] and "rules version" in aside["reason"]
        unknown = next(s for s in sessions.values() if s["game"] == "memory-game")
        assert unknown["status"] == "set_aside" and "memory-game" in unknown["reason"]
        for session_id in (bad, unknown["id"]):
            for path, body in ((f"/api/sessions/{session_id}/events", {"type": "marble", "gate": 1}),
                               (f"/api/sessions/{session_id}/undo", {})):
                refused = client.post(path, json=body)
                assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "read_only"
            listing = client.get(f"/api/sessions/{session_id}/events")
            assert listing.status_code == 200
        assert client.get("/").status_code == 200  # the home page lists them
        assert client.post(f"/api/sessions/{good}/events", json={"type": "marble", "gate": 3}).status_code == 200
    finally:
        shutdown(app)


def test_each_session_records_the_rules_version(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "v.sqlite3")
    try:
        view = Table(log).create(DIEGO.id, ["Ada", "Ben"])
        assert view["rules_version"] == DIEGO.rules_version == log.session(view["id"]).rules_version  # type: ignore[union-attr]
    finally:
        log.close()


def test_a_log_recorded_under_older_rules_folds_by_them(tmp_path: Path) -> None:
    """Drachensachen's rules version 3 waits for every player's card under Chaos; a game recorded under version 2
    that began play without them still folds, and carries on by its own rules; version 4 draws from the pile beside
    the 4s only under goblins against dragons, where a game of version 3 drew by tap and still does; version 5 lets
    only a player who may play now go out, where a game of version 4 ended with anyone. A new game follows today's."""
    game = GAMES["drachensachen"]
    assert game.rules_version == 5
    log = EventLog(tmp_path / "old.sqlite3")
    try:
        options = game.resolve_options({"hindrances": True})
        record = log.create_session(game.id, ("Ada", "Ben", "Cleo"), options, now=1.0, rules_version=2)
        for kind, body in (("starter", {"player": "Ada"}), ("went_out", {"player": "Ben"}),
                           ("coins", {"player": "Ada", "coins": 2}), ("coins", {"player": "Cleo", "coins": 1}),
                           ("hindrance", {"kind": "chaos"}), ("next_turn", {})):  # play before any Chaos draw
            log.append(record.id, kind, body, "tap")
        table = Table(log)
        view = table.view(record.id)
        assert view["status"] == "running" and view["rules_version"] == 2 and view["state"]["phase"] == "play"
        table.submit(record.id, {"type": "next_turn"})  # and it plays on
        tricks = game.resolve_options({"tricks": True})
        first = log.create_session(game.id, ("Ada", "Ben"), tricks, now=1.0, rules_version=1)
        log.append(first.id, "starter", {"player": "Ada"}, "tap")
        log.append(first.id, "next_turn", {}, "tap")  # version 1: play before the round's trick (S9)
        assert table.view(first.id)["status"] == "running"
        third = log.create_session(game.id, ("Ada", "Ben"), game.resolve_options({}), now=1.0, rules_version=3)
        log.append(third.id, "starter", {"player": "Ada"}, "tap")
        log.append(third.id, "draw", {"count": 2}, "tap")  # version 3: a draw by tap, whatever the tricks
        assert table.view(third.id)["state"]["trouble_pile"]["left"] == 16
        table.submit(third.id, {"type": "draw", "count": 1})
        assert table.view(third.id)["state"]["trouble_pile"]["left"] == 15
        fifth = log.create_session(game.id, ("Ada", "Ben", "Cleo"), game.resolve_options({}), now=1.0,
                                   rules_version=4)
        for kind, body in (("starter", {"player": "Ada"}), ("next_turn", {}), ("went_out", {"player": "Cleo"})):
            log.append(fifth.id, kind, body, "tap")  # version 4: Cleo went out on Ben's turn
        assert table.view(fifth.id)["state"]["finisher"] == "Cleo"
        new = table.create(game.id, ["Ada", "Ben", "Cleo"], {"hindrances": True})["id"]
        for event in ({"type": "starter", "player": "Ada"}, {"type": "went_out", "player": "Ben"},
                      {"type": "coins", "player": "Ada", "coins": 2}, {"type": "coins", "player": "Cleo", "coins": 1},
                      {"type": "hindrance", "kind": "chaos"}):
            table.submit(new, event)
        with pytest.raises(IllegalEventError) as refused:
            table.submit(new, {"type": "next_turn"})
        assert refused.value.rule == "S10"
        fourth = table.create(game.id, ["Ada", "Ben"], {})["id"]
        table.submit(fourth, {"type": "starter", "player": "Ada"})
        with pytest.raises(IllegalEventError) as refused:
            table.submit(fourth, {"type": "draw", "count": 1})
        assert refused.value.rule == "S6"
        table.submit(fourth, {"type": "next_turn"})
        with pytest.raises(IllegalEventError) as refused:
            table.submit(fourth, {"type": "went_out", "player": "Ada"})  # Ben's turn
        assert refused.value.rule == "turns"
    finally:
        log.close()


def test_a_game_recorded_under_newer_rules_than_known_is_set_aside(tmp_path: Path) -> None:
    """A log from a newer companion (an update rolled back, a backup restored on an older Pi): its game is not
    folded by older rules, which could read its events differently, nor written to; it is kept, read-only."""
    log = EventLog(tmp_path / "newer.sqlite3")
    try:
        record = log.create_session(DIEGO.id, ("Ada", "Ben"), DIEGO.resolve_options({}), now=1.0,
                                    rules_version=DIEGO.rules_version + 1)
        log.append(record.id, "marble", {"gate": 2}, "tap")
        table = Table(log)
        view = table.view(record.id)
        assert view["status"] == "set_aside" and view["read_only"]
        assert f"rules version {DIEGO.rules_version + 1}" in view["reason"] and "update the companion" in view["reason"]
        with pytest.raises(ReadOnly):
            table.submit(record.id, {"type": "marble", "gate": 3})
        assert [e.seq for e in log.events(record.id)] == [1]  # kept, nothing added
    finally:
        log.close()


def test_an_undo_whose_fold_fails_commits_nothing(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "fold.sqlite3")
    real = DIEGO

    def apply(state: Any, event: Any) -> Any:
        if event["type"] == "marble" and event["gate"] == 4:
            raise IllegalEventError("D2", "gate 4 is refused by these rules")
        return real.apply(state, event)

    try:
        table = Table(log)
        session_id = table.create(DIEGO.id, ["Ada", "Ben"])["id"]
        table.submit(session_id, {"type": "marble", "gate": 4})
        table.submit(session_id, {"type": "marble", "gate": 1})
        before = table.view(session_id)
        strict = Table(log, games={DIEGO.id: replace(DIEGO, apply=apply)})
        # the cache as after a restart under rules that changed: an undo must refold the log
        strict._cache[session_id] = replace(table._load(session_id), game=strict.games[DIEGO.id], before_last=None)
        with strict.bus.subscribe(f"session:{session_id}") as subscription:
            with pytest.raises(IllegalEventError):
                strict.undo(session_id)
            with pytest.raises(IllegalEventError):
                strict.undo(session_id)  # and again: a refused undo leaves nothing behind to try differently
            assert subscription.get(timeout=0) is None  # nothing published
        assert [e.status for e in log.events(session_id)] == ["live", "live"]  # nothing committed
        assert strict.view(session_id) == before  # the view and the log still agree
        assert log.session(session_id).revision == before["seq"]  # type: ignore[union-attr]
    finally:
        log.close()


def test_abandoned_games_stay_in_the_log_read_only(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "a.sqlite3")
    try:
        table = Table(log)
        session_id = table.create(DIEGO.id, ["Ada", "Ben"])["id"]
        table.submit(session_id, {"type": "marble", "gate": 1})
        view = table.abandon(session_id, expected_seq=1)
        assert view["status"] == "abandoned" and view["read_only"] and not view["can_undo"]
        with pytest.raises(ReadOnly):
            table.submit(session_id, {"type": "marble", "gate": 2})
        with pytest.raises(ReadOnly):
            table.abandon(session_id)
        assert table.running() is None
        assert [e.type for e in log.events(session_id)] == ["marble"]  # nothing deleted
        assert Table(log).view(session_id)["status"] == "abandoned"  # after a restart too
    finally:
        log.close()


def test_reads_racing_undos_after_a_restart_never_leave_a_stale_cache(tmp_path: Path) -> None:
    path = tmp_path / "race.sqlite3"
    log = EventLog(path)
    table = Table(log)
    session_id = table.create(DIEGO.id, ["Ada", "Ben"])["id"]
    for gate in (1, 2, 3):
        table.submit(session_id, {"type": "marble", "gate": gate})
    log.close()
    for _ in range(30):
        log = EventLog(path)
        fresh = Table(log)  # a restart: nothing cached yet
        start = threading.Barrier(3)
        errors: list[BaseException] = []

        def read(fresh: Table, start: threading.Barrier) -> None:
            start.wait()
            for _ in range(20):
                fresh.view(session_id)

        def flip(fresh: Table, start: threading.Barrier, errors: list[BaseException]) -> None:
            start.wait()
            try:
                fresh.undo(session_id)
                fresh.redo(session_id)
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        threads = [threading.Thread(target=read, args=(fresh, start)) for _ in range(2)]
        threads.append(threading.Thread(target=flip, args=(fresh, start, errors)))
        for t in threads:
            t.start()
        start_ok = [t.join(timeout=60) for t in threads]
        assert start_ok and not errors
        record = log.session(session_id)
        assert record is not None
        view = fresh.view(session_id)
        assert view["seq"] == record.revision
        assert view["state"] == DIEGO.view(fold_log(log, record, DIEGO))
        log.close()
    assert json.dumps(view)


def test_the_companion_starts_on_a_corrupt_log_and_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "companion.sqlite3").write_bytes(b"\x00garbage" * 500)
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "SENSORS": "off"})
    try:
        client = app.test_client()
        notices = client.get("/api/health").get_json()["notices"]
        assert len(notices) == 1 and "moved aside" in notices[0]
        assert client.post("/api/sessions", json={"game": DIEGO.id, "players": ["A", "B"]}).status_code == 201
    finally:
        shutdown(app)
    assert len(list(data.glob("companion.sqlite3.corrupt-*"))) == 1


def test_companion_backup_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main

    data = tmp_path / "data"
    assert main(["backup", "--data", str(data)]) == 1 and "no session log" in capsys.readouterr().err
    EventLog(data / "companion.sqlite3").close()
    assert main(["backup", "--data", str(data), "--keep", "2"]) == 0
    assert len(list((data / "backups").glob("companion-*.sqlite3"))) == 1


def test_damaged_rows_are_set_aside_and_the_companion_starts(tmp_path: Path) -> None:
    """Rows a hand edit or a bad sector damaged (players or options that are not JSON, a field of the wrong type, an
    event's payload that is not JSON): the companion starts, each such game is set aside read-only with what is
    wrong, every other game works, and no page that lists games answers 500."""
    data = tmp_path / "data"
    path = data / "companion.sqlite3"
    log = EventLog(path)
    table = Table(log)
    good = table.create(DIEGO.id, ["Ada", "Ben"])["id"]
    table.submit(good, {"type": "marble", "gate": 2})
    damaged = {}
    for damage in ("players", "options", "created", "payload"):
        damaged[damage] = table.create(DIEGO.id, ["Cleo", "Dan"])["id"]
        table.submit(damaged[damage], {"type": "marble", "gate": 1})
    finished = table.create("drachen-wurf", ["Ada", "Ben"])["id"]
    log.set_status(finished, "finished")
    log.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE sessions SET players = '[\"Cleo\", ' WHERE id = ?", (damaged["players"],))
    db.execute("UPDATE sessions SET options = '[1, 2]' WHERE id = ?", (damaged["options"],))
    db.execute("UPDATE sessions SET created = 'yesterday' WHERE id = ?", (damaged["created"],))
    db.execute("UPDATE events SET payload = '{\"gate\": 1' WHERE session_id = ?", (damaged["payload"],))
    db.execute("UPDATE sessions SET players = '{\"not\": \"a list\"}' WHERE id = ?", (finished,))
    db.commit()
    db.close()
    damaged["finished"] = finished
    reasons = {"players": "its players are not valid JSON", "options": "its options are not an object",
               "created": "its created is not a number ('yesterday')",
               "finished": "its players are not a list of names",
               "payload": "its log is damaged: event 1: its payload is not valid JSON"}

    app = create_app({"TESTING": True, "DATA_DIR": str(data), "SENSORS": "off"})
    try:
        client = app.test_client()
        listed = client.get("/api/sessions")
        assert listed.status_code == 200
        sessions = {s["id"]: s for s in listed.get_json()["sessions"]}
        assert sessions[good]["status"] == "running" and sessions[good]["state"]["current"]["marbles"] == [2]
        for damage, session_id in damaged.items():
            aside = sessions[session_id]
            assert aside["status"] == "set_aside" and aside["read_only"], (damage, aside)
            assert reasons[damage] in aside["reason"], (damage, aside["reason"])
            for url in (f"/api/sessions/{session_id}", f"/api/sessions/{session_id}/events", f"/play/{session_id}"):
                assert client.get(url).status_code == 200, (damage, url)
            for action, body in (("events", {"type": "marble", "gate": 3}), ("undo", {}), ("abandon", {})):
                refused = client.post(f"/api/sessions/{session_id}/{action}", json=body)
                assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "read_only", damage
        assert "damaged" in client.get(f"/api/sessions/{damaged['payload']}/events").get_json()["events"][0]
        home = client.get("/")
        assert home.status_code == 200
        page = home.get_data(as_text=True)
        assert page.count('class="card btn set-aside"') == len(damaged)
        assert "its players are not valid JSON" in page and f'data-session="{good}"' in page
        assert client.get("/api/games").status_code == 200  # the last options of a game pass over a damaged row
        assert client.get("/api/health").status_code == 200
        assert client.post(f"/api/sessions/{good}/events", json={"type": "marble", "gate": 3}).status_code == 200
        assert client.post("/api/sessions", json={"game": DIEGO.id, "players": ["Ada", "Ben"]}).status_code == 201
    finally:
        shutdown(app)

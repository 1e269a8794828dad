"""The table: validate -> append -> fold -> publish, stale writes, bad events, subscribers, sessions."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from companion.bus import Subscription
from companion.games import GAMES, IllegalEventError, MalformedEventError, RuleError
from companion.log import EventLog
from companion.table import SOURCES, Conflict, NotFromSource, StaleWrite, Table, TableError, UnknownSession, topic

GAME = GAMES["diego-drachenzahn"]
PLAYERS = ["Ada", "Ben", "Cleo"]


class Clock:
    """A hand-driven clock: every reading is one second later."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[Table, Clock]]:
    clock = Clock()
    log = EventLog(tmp_path / "clocked.sqlite3")
    yield Table(log, clock=clock), clock
    log.close()


def new_session(table: Table, players: list[str] | None = None, **options: Any) -> int:
    return table.create(GAME.id, players or PLAYERS, options)["id"]


def rows(table: Table, session_id: int) -> list[tuple[int, str, str]]:
    return [(e.seq, e.type, e.status) for e in table.log.events(session_id)]


def drain(subscription: Subscription) -> list[tuple[str, Any]]:
    """Every message already delivered (publishing is synchronous, so nothing is in flight)."""
    messages = []
    while (message := subscription.get(timeout=0)) is not None:
        messages.append(message)
    return messages


def play_round(table: Table, session_id: int, token: int = 1) -> dict[str, Any]:
    for gate in (token, token, None):
        table.submit(session_id, {"type": "marble", "gate": gate})
    view = table.view(session_id)
    for player in view["state"]["current"]["waiting_for_guesses"]:
        table.submit(session_id, {"type": "guess", "player": player, "gate": token})
    return table.submit(session_id, {"type": "reveal", "gate": token})


def test_create_submit_and_view(table: Table) -> None:
    created = table.create(GAME.id, [" Ada ", "Ben  Bauer", "Cleo"], {"rounds_per_player": 2})
    assert created["players"] == ["Ada", "Ben Bauer", "Cleo"]  # names are tidied
    assert created["seq"] == 0 and created["round"] == 1 and not created["finished"]
    assert created["game"] == GAME.id and created["game_name"] == GAME.name
    assert not created["can_undo"] and not created["can_redo"]
    assert created["state"]["total_rounds"] == 6
    view = table.submit(created["id"], {"type": "marble", "gate": 3})
    assert view["seq"] == 1 and view["can_undo"]
    assert view["state"]["current"]["marbles"] == [3]
    assert table.view(created["id"]) == view
    assert table.events(created["id"])[0]["payload"] == {"gate": 3}


@pytest.mark.parametrize(("game", "players"), [
    ("chess", PLAYERS), (None, PLAYERS), (GAME.id, []), (GAME.id, "Ada"), (GAME.id, ["Ada", "Ada"]),
    (GAME.id, ["Ada", " "]), (GAME.id, ["Ada", 3]), (GAME.id, ["Ada", "x" * 25]),
])
def test_create_refuses_bad_requests(table: Table, game: Any, players: Any) -> None:
    with pytest.raises(TableError) as info:
        table.create(game, players)
    assert info.value.status == 400 and info.value.message
    assert table.log.sessions() == []


@pytest.mark.parametrize(("options", "rule"), [("fast", "options"), ({"speed": 2}, "options"),
                                              ({"rounds_per_player": 0}, "D6"), ({"gate_names": ["A"]}, "D2")])
def test_create_refuses_bad_options(table: Table, options: Any, rule: str) -> None:
    with pytest.raises(MalformedEventError) as info:
        table.create(GAME.id, PLAYERS, options)
    assert info.value.rule == rule
    assert table.log.sessions() == []


def test_stale_write_raises_with_the_fresh_view_and_changes_nothing(table: Table) -> None:
    session_id = new_session(table)
    table.submit(session_id, {"type": "marble", "gate": 2})
    fresh = table.view(session_id)
    assert fresh["seq"] == 1
    with table.bus.subscribe(topic(session_id)) as subscription:
        for stale in (0, 2, -1, 10**6):
            with pytest.raises(StaleWrite) as info:
                table.submit(session_id, {"type": "marble", "gate": 5}, expected_seq=stale)
            assert info.value.status == 409 and info.value.code == "stale"
            assert info.value.view == fresh
            assert str(stale) in info.value.message
        assert drain(subscription) == []
    assert table.view(session_id) == fresh
    assert rows(table, session_id) == [(1, "marble", "live")]
    view = table.submit(session_id, {"type": "marble", "gate": 5}, expected_seq=1)
    assert view["seq"] == 2 and view["state"]["current"]["marbles"] == [2, 5]


@pytest.mark.parametrize("bad", [True, "1", 1.0, [1]])
def test_expected_seq_must_be_a_whole_number(table: Table, bad: Any) -> None:
    session_id = new_session(table)
    with pytest.raises(TableError) as info:
        table.submit(session_id, {"type": "marble", "gate": 2}, expected_seq=bad)
    assert type(info.value) is TableError and info.value.status == 400
    assert rows(table, session_id) == []


def test_undo_and_redo_with_expected_seq(table: Table) -> None:
    session_id = new_session(table)
    table.submit(session_id, {"type": "marble", "gate": 2})
    table.submit(session_id, {"type": "marble", "gate": 4})
    with pytest.raises(StaleWrite) as info:
        table.undo(session_id, expected_seq=1)
    assert info.value.view == table.view(session_id)
    assert rows(table, session_id) == [(1, "marble", "live"), (2, "marble", "live")]
    view = table.undo(session_id, expected_seq=2)
    assert view["seq"] == 3 and view["state"]["current"]["marbles"] == [2]
    assert view["can_undo"] and view["can_redo"]
    with pytest.raises(StaleWrite):
        table.redo(session_id, expected_seq=2)
    assert rows(table, session_id)[-1] == (2, "marble", "undone")
    view = table.redo(session_id, expected_seq=3)
    assert view["seq"] == 4 and view["state"]["current"]["marbles"] == [2, 4]
    assert not view["can_redo"]


def test_undo_and_redo_with_nothing_to_do(table: Table) -> None:
    session_id = new_session(table)
    with table.bus.subscribe(topic(session_id)) as subscription:
        for flip in (table.undo, table.redo):
            with pytest.raises(Conflict) as info:
                flip(session_id)
            assert info.value.status == 409
            assert "nothing to" in info.value.message
            assert info.value.view == table.view(session_id)
        assert drain(subscription) == []
    assert table.view(session_id)["seq"] == 0


@pytest.mark.parametrize("event", [None, [], "marble", 3, ["type", "marble"]])
def test_an_event_that_is_not_an_object_is_refused(table: Table, event: Any) -> None:
    session_id = new_session(table)
    with pytest.raises(TableError) as info:
        table.submit(session_id, event)
    assert info.value.status == 400
    assert rows(table, session_id) == []


@pytest.mark.parametrize("event", [{}, {"gate": 1}, {"type": ""}, {"type": None}, {"type": 3}])
def test_an_event_without_a_type_is_refused(table: Table, event: Any) -> None:
    session_id = new_session(table)
    with pytest.raises(TableError) as info:
        table.submit(session_id, event)
    assert info.value.status == 400 and "type" in info.value.message
    assert rows(table, session_id) == []


def test_an_unknown_event_type_is_refused(table: Table) -> None:
    session_id = new_session(table)
    with pytest.raises(MalformedEventError) as info:
        table.submit(session_id, {"type": "dance", "gate": 1})
    assert info.value.rule == "events"
    assert rows(table, session_id) == [] and table.view(session_id)["seq"] == 0


def test_an_unknown_source_is_refused(table: Table) -> None:
    session_id = new_session(table)
    with pytest.raises(TableError):
        table.submit(session_id, {"type": "marble", "gate": 1}, source="telepathy")
    assert rows(table, session_id) == []


def test_a_client_supplied_source_is_refused(table: Table) -> None:
    # ruling D4: only the table decides where an event came from; a tap cannot pose as a sensor
    session_id = new_session(table)
    with pytest.raises(MalformedEventError):
        table.submit(session_id, {"type": "marble", "gate": 1, "source": "sensor"}, source="tap")
    for gate in (1, 2, 3):
        table.submit(session_id, {"type": "marble", "gate": gate}, source="tap")
    stored = table.log.events(session_id)
    assert [e.source for e in stored] == ["tap"] * 3
    assert all("source" not in e.payload for e in stored)
    assert table.view(session_id)["state"]["current"]["sources"] == ["tap"] * 3
    with pytest.raises(IllegalEventError) as info:
        table.submit(session_id, {"type": "marble", "gate": 4}, source="tap")
    assert info.value.rule == "D4"
    assert len(stored) == len(table.log.events(session_id)) == 3
    # the real sensor path may report a fourth marble, which flags the round
    view = table.submit(session_id, {"type": "marble", "gate": 4}, source="sensor")
    assert view["state"]["phase"] == "flagged"
    assert table.log.events(session_id)[-1].source == "sensor"


CAMERA_READING = {"type": "camera", "counts": [0, 0, 2, 0, 0, 0], "outside": 1}


@pytest.mark.parametrize("source", ["tap", "sensor"])
def test_a_camera_reading_comes_only_from_the_camera(table: Table, source: str) -> None:
    """Rulings D3, D4: the camera's reading decides where the marbles rest, so only the table's camera makes one; a
    tap (a page, any API writer) or the beams posing as the camera is refused, and nothing changes."""
    session_id = new_session(table)
    table.submit(session_id, {"type": "marble", "gate": 3}, source="tap")
    before = table.view(session_id)
    with pytest.raises(NotFromSource) as info:
        table.submit(session_id, dict(CAMERA_READING), source=source)
    assert info.value.status == 403 and info.value.code == f"not_from_{source}"
    if source == "tap":
        assert info.value.message.startswith("camera readings come from the table's camera; tap the marbles instead")
    assert rows(table, session_id) == [(1, "marble", "live")] and table.view(session_id) == before


@pytest.mark.parametrize("source", ["camera", "import"])
def test_the_camera_and_an_imported_log_make_camera_readings(table: Table, source: str) -> None:
    session_id = new_session(table)
    view = table.submit(session_id, dict(CAMERA_READING), source=source)
    assert view["state"]["current"]["camera"]["counts"] == [0, 0, 2, 0, 0, 0]
    assert view["state"]["current"]["marbles"] == [3, 3, None]  # the camera alone fills in the round (D3)
    assert [e.source for e in table.log.events(session_id)] == [source]


def test_a_camera_reading_an_older_companion_took_from_a_tap_still_folds(tmp_path: Path) -> None:
    """A log recorded before the check (a camera reading posted through the API, stored as a tap) folds as it was
    played: the check is of new events only."""
    path = tmp_path / "older.sqlite3"
    log = EventLog(path)
    table = Table(log)
    session_id = new_session(table)
    table.submit(session_id, {"type": "marble", "gate": 3}, source="tap")
    log.append(session_id, "camera", {"counts": [0, 0, 1, 0, 0, 0], "unsure": [False] * 6}, "tap", now=2000.0)
    log.close()
    reopened = EventLog(path)
    try:
        current = Table(reopened).view(session_id)["state"]["current"]
        assert current["camera"]["counts"] == [0, 0, 1, 0, 0, 0] and current["confirmed"] and current["flag"] is None
    finally:
        reopened.close()


def test_every_game_names_only_known_sources_for_its_events() -> None:
    for game in GAMES.values():
        for event in game.event_types:
            if event.sources is not None:
                assert event.sources and set(event.sources) <= set(SOURCES), (game.id, event.type)
                assert not event.made_by("tap") and event.refusal, (game.id, event.type)


def test_expected_seq_inside_the_event_is_not_stored(table: Table) -> None:
    session_id = new_session(table)
    table.submit(session_id, {"type": "marble", "gate": 1, "expected_seq": 0}, expected_seq=0)
    assert table.log.events(session_id)[0].payload == {"gate": 1}


def test_a_refused_rule_changes_nothing(table: Table) -> None:
    session_id = new_session(table)
    table.submit(session_id, {"type": "guess", "player": "Ben", "gate": 2})
    before = table.view(session_id)
    for event, cls, rule in (({"type": "guess", "player": "Ben", "gate": 3}, IllegalEventError, "D5"),
                             ({"type": "guess", "player": "Ada", "gate": 3}, IllegalEventError, "D5"),
                             ({"type": "turned", "player": "Cleo", "gate": 2}, IllegalEventError, "D5"),
                             ({"type": "marble", "gate": 7}, MalformedEventError, "D2")):
        with pytest.raises(RuleError) as info:
            table.submit(session_id, event)
        assert type(info.value) is cls and info.value.rule == rule
        assert table.view(session_id) == before
    assert rows(table, session_id) == [(1, "guess", "live")]


def test_a_subscriber_gets_exactly_one_message_per_change(table: Table) -> None:
    session_id = new_session(table)
    other = new_session(table)
    with table.bus.subscribe(topic(session_id)) as subscription:
        changes = [
            lambda: table.submit(session_id, {"type": "marble", "gate": 1}),
            lambda: table.submit(session_id, {"type": "marble", "gate": 1}, source="sensor"),
            lambda: table.undo(session_id),
            lambda: table.redo(session_id),
            lambda: table.submit(session_id, {"type": "guess", "player": "Cleo", "gate": 4}),
        ]
        for change in changes:
            returned = change()
            assert drain(subscription) == [("session", returned)]
            assert {k: v for k, v in returned.items() if k != "change"} == table.view(session_id)
        # refusals publish nothing
        for refusal in (lambda: table.submit(session_id, {"type": "guess", "player": "Cleo", "gate": 1}),
                        lambda: table.submit(session_id, {"type": "nope"}),
                        lambda: table.submit(session_id, "marble"),
                        lambda: table.submit(session_id, {"type": "marble", "gate": 2}, expected_seq=0)):
            with pytest.raises((RuleError, TableError)):
                refusal()
            assert drain(subscription) == []
        # another session's changes go to another topic
        table.submit(other, {"type": "marble", "gate": 1})
        assert drain(subscription) == []


@pytest.mark.parametrize("session_id", [0, -1, 2**70, 2**62, "1", 1.0, True, None, 999])
def test_unknown_session_ids(table: Table, session_id: Any) -> None:
    new_session(table)  # session 1 exists
    calls = (lambda: table.view(session_id), lambda: table.events(session_id),
             lambda: table.submit(session_id, {"type": "marble", "gate": 1}),
             lambda: table.undo(session_id), lambda: table.redo(session_id))
    for call in calls:
        with pytest.raises(UnknownSession) as info:
            call()
        assert info.value.status == 404 and info.value.code == "not_found"
    assert rows(table, 1) == []


def test_running_is_the_newest_unfinished_session(table: Table) -> None:
    assert table.running() is None
    first = new_session(table)
    second = new_session(table, ["Dan", "Eve"], rounds_per_player=1)
    assert table.running() == second
    assert table.running(GAME.id) == second
    assert table.running("drachensachen") is None
    play_round(table, second)
    play_round(table, second)
    assert table.view(second)["finished"]
    assert table.running() == first
    table.undo(second)  # the last reveal: the game runs again
    assert table.running() == second


def test_an_undone_event_names_the_gate_as_the_table_calls_it(table: Table) -> None:
    """The toast of an undo or a redo names a gate by the table's own name for it (ruling D2), as the page does;
    a table that kept the default names reads "gate N"."""
    names = ["Sun", "Moon", "Star", "Crown", "Key", "Flame"]
    named = new_session(table, ["Ada", "Ben"], gate_names=names)
    table.submit(named, {"type": "marble", "gate": 2})
    assert table.undo(named)["change"]["text"] == "marble in Moon"
    assert table.redo(named)["change"]["text"] == "marble in Moon"
    table.submit(named, {"type": "marble", "gate": None})
    assert table.undo(named)["change"]["text"] == "marble that missed every gate"
    plain = new_session(table, ["Ada", "Ben"])
    table.submit(plain, {"type": "marble", "gate": 6})
    assert table.undo(plain)["change"]["text"] == "marble in gate 6"


def test_finished_is_set_and_cleared_by_undoing_the_last_reveal(clocked: tuple[Table, Clock]) -> None:
    table, clock = clocked
    session_id = new_session(table, ["Ada", "Ben"], rounds_per_player=1)
    play_round(table, session_id, token=2)
    assert table.log.session(session_id).finished is None  # type: ignore[union-attr]
    view = play_round(table, session_id, token=5)
    finished_at = table.log.session(session_id).finished  # type: ignore[union-attr]
    assert view["finished"] and view["state"]["finished"]
    assert view["winners"] == ["Ada", "Ben"]  # ruling D6: 3 points each, a shared win
    assert finished_at is not None and 1000.0 < finished_at <= clock.now
    with table.bus.subscribe(topic(session_id)) as subscription:
        undone = table.undo(session_id)
        assert drain(subscription) == [("session", undone)]
    assert not undone["finished"] and undone["winners"] == []
    assert undone["state"]["phase"] == "reveal"
    assert undone["change"] == {"action": "undo", "seq": undone["change"]["seq"],
                                "text": "the reveal of the token (gate 5)"}
    assert table.log.session(session_id).finished is None  # type: ignore[union-attr]
    assert table.running() == session_id
    redone = table.redo(session_id)
    assert redone["finished"]
    assert table.log.session(session_id).finished is not None  # type: ignore[union-attr]
    with pytest.raises(IllegalEventError) as info:
        table.submit(session_id, {"type": "marble", "gate": 1})
    assert info.value.rule == "D6"


def test_events_lists_the_whole_history_with_statuses(clocked: tuple[Table, Clock]) -> None:
    table, _ = clocked
    session_id = new_session(table)
    table.submit(session_id, {"type": "marble", "gate": 1})
    table.submit(session_id, {"type": "marble", "gate": None}, source="sensor")
    table.undo(session_id)
    events = table.events(session_id)
    assert [(e["seq"], e["type"], e["source"], e["status"], e["undone"]) for e in events] == [
        (1, "marble", "tap", "live", False), (2, "marble", "sensor", "undone", True)]
    assert events[1]["payload"] == {"gate": None}
    assert events[0]["time"] < events[1]["time"]


def test_rebuild_folds_unfinished_sessions_from_the_log(tmp_path: Path) -> None:
    path = tmp_path / "rebuild.sqlite3"
    log = EventLog(path)
    table = Table(log)
    running = new_session(table)
    done = new_session(table, ["Dan", "Eve"], rounds_per_player=1)
    table.submit(running, {"type": "marble", "gate": 6})
    table.submit(running, {"type": "guess", "player": "Ben", "gate": 6})
    play_round(table, done)
    play_round(table, done)
    views = {running: table.view(running), done: table.view(done)}
    log.close()
    reopened = EventLog(path)
    try:
        fresh = Table(reopened)
        assert fresh.rebuild() == 1  # only the unfinished one is folded at start
        assert fresh.view(running) == views[running]
        assert fresh.view(done) == views[done]  # a finished one is folded on demand
        assert fresh.running() == running
        view = fresh.submit(running, {"type": "marble", "gate": 6}, expected_seq=views[running]["seq"])
        assert view["state"]["current"]["marbles"] == [6, 6]
    finally:
        reopened.close()


def test_sessions_lists_views_recent_first(table: Table) -> None:
    ids = [new_session(table) for _ in range(3)]
    assert [v["id"] for v in table.sessions()] == ids[::-1]
    assert [v["id"] for v in table.sessions(limit=1)] == [ids[-1]]


def test_undo_far_back_folds_from_the_nearest_checkpoint_and_agrees_with_a_full_fold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A random walk of taps, undos and redos (and a restart) in one session, with a checkpoint every 4 live
    events: after every step the table's state is the full fold of the log, and an undo without the state
    before it at hand applies fewer events than lie between two checkpoints."""
    import random
    from dataclasses import replace as replaced

    from companion import table as table_module
    from companion.table import fold_log

    monkeypatch.setattr(table_module, "CHECKPOINT_EVERY", 4)
    applied = [0]

    def counting_apply(state: Any, event: dict[str, Any]) -> Any:
        applied[0] += 1
        return GAME.apply(state, event)

    counted = replaced(GAME, apply=counting_apply)
    assert counted.sample is not None
    rng = random.Random(5)
    log = EventLog(tmp_path / "walk.sqlite3")
    table = Table(log, games={GAME.id: counted})
    session_id = table.create(GAME.id, PLAYERS)["id"]
    deep_undos = 0
    for step in range(400):
        if step == 200:  # a restart: the checkpoints are taken again while the log is folded
            log.close()
            log = EventLog(tmp_path / "walk.sqlite3")
            table = Table(log, games={GAME.id: counted})
        view = table.view(session_id)
        roll = rng.random()
        if roll < 0.55 and not view["finished"]:
            event = counted.sample(table._load(session_id).state, rng)
            if event is not None:
                table.submit(session_id, dict(event))
        elif roll < 0.85 and view["can_undo"]:
            deep = table._load(session_id).before_last is None
            applied[0] = 0
            table.undo(session_id)
            if deep:
                deep_undos += 1
                assert applied[0] < 4
        elif view["can_redo"]:
            table.redo(session_id)
        record = log.session(session_id)
        assert record is not None
        assert table._load(session_id).state == fold_log(log, record, GAME), step
    log.close()
    assert deep_undos >= 20  # the walk went far back often enough to prove the point

"""The castle under concurrent requests: attaching from one device while another starts or abandons a game."""
from __future__ import annotations

import threading
from typing import Callable

from companion.castle import Castle
from companion.table import Table
from tests.waiting import PATIENCE_S

ROUNDS = 300


def test_attaching_while_games_start_and_end_never_stops_the_table(table: Table) -> None:
    """A tablet attaching and releasing the castle while the kiosk starts and abandons Diego games: the table's
    watchers move the castle (a new game takes a free castle, an abandoned one gives it back) while a request
    moves it too. Both go on to the end; neither waits for the other for good."""
    castle = Castle(table)
    first = table.create("diego-drachenzahn", ["Ada", "Ben"])
    failures: list[BaseException] = []

    def attach_and_release() -> None:
        for _ in range(ROUNDS):
            castle.attach(first["id"])
            castle.release()

    def start_and_abandon() -> None:
        for _ in range(ROUNDS):
            view = table.create("diego-drachenzahn", ["Ada", "Ben"])
            table.abandon(view["id"])

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except BaseException as err:  # reported below, not lost in the thread
                failures.append(err)
        return run

    threads = [threading.Thread(target=guarded(work), daemon=True) for work in (attach_and_release, start_and_abandon)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(PATIENCE_S)
    assert not any(thread.is_alive() for thread in threads), "the castle and the table wait for each other for good"
    assert failures == []
    assert table.view(first["id"])["status"] == "running"
    assert castle.attach(first["id"]) == {"session": first["id"]}

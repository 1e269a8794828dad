"""Pull the plug: SIGKILL the server in the middle of a stream of writes; every acknowledged write survives."""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from tests.servers import call, free_port, start_server, stop_server
from tests.waiting import PATIENCE_S

ROOT = Path(__file__).resolve().parent.parent


def _round_events(players: list[str], active: int) -> list[dict]:
    events: list[dict] = [{"type": "marble", "gate": g} for g in (1, 2, 3)]
    events += [{"type": "guess", "player": p, "gate": 2} for i, p in enumerate(players) if i != active]
    return events + [{"type": "reveal", "gate": 2}]


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port)
    try:
        players = ["Ada", "Ben", "Cleo", "Dan"]
        status, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": players,
                                                        "options": {"rounds_per_player": 6}})
        assert status == 201
        url = f"{base}/api/sessions/{session['id']}/events"
        plan = [e for r in range(24) for e in _round_events(players, r % 4)]
        acknowledged: list[dict] = []
        stop = threading.Event()

        def write() -> None:
            for event in plan:
                if stop.is_set():
                    return
                try:
                    status, _ = call(url, event, timeout=PATIENCE_S)
                except OSError:
                    return
                assert status == 200
                acknowledged.append(event)

        writer = threading.Thread(target=write)
        writer.start()
        while len(acknowledged) < 60 and writer.is_alive():
            time.sleep(0.001)
        server.send_signal(signal.SIGKILL)  # mid-stream: the writer is still sending
        server.wait(PATIENCE_S)
        stop.set()
        writer.join(PATIENCE_S)
        assert 60 <= len(acknowledged) < len(plan)
    finally:
        stop_server(server)

    server = start_server(tmp_path, port)
    try:
        _, log = call(f"{url}")
        live = [e for e in log["events"] if not e["undone"]]
        stored = [{"type": e["type"], **e["payload"]} for e in live]
        for index, (event, sent) in enumerate(zip(live, acknowledged)):
            if event.get("hidden"):  # a guess of the unrevealed round is listed face down
                stored[index]["gate"] = sent["gate"]
        # Every acknowledged write is there, in order; at most the one in flight was also stored.
        assert stored[:len(acknowledged)] == acknowledged
        assert len(stored) - len(acknowledged) in (0, 1)
        _, view = call(f"{base}/api/sessions/{session['id']}")
        assert view["seq"] == len(stored)
        rounds_done = sum(1 for e in stored if e["type"] == "reveal")
        assert view["round"] == rounds_done + 1
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(PATIENCE_S)  # a generous bound on a loaded machine; it stops at once when idle
        finally:
            stop_server(server)
        assert os.path.exists(tmp_path / "companion.sqlite3")

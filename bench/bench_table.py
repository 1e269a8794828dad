"""The table: append+fold per event, replay of a 2,000-event session, SSE fan-out to 5 clients,
server memory after start and time from process start to the first 200."""
from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.stats import summary
from companion.log import EventLog
from companion.table import Table

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["Ada", "Ben", "Cleo", "Dan"]


def round_events(rng: random.Random, active: int, extra_readings: int = 0) -> list[tuple[dict[str, Any], str]]:
    """One Diego round: marbles, camera re-readings with a confirmation, guesses, the reveal."""
    events: list[tuple[dict[str, Any], str]] = []
    gates = [rng.randint(1, 6) for _ in range(3)]
    events += [({"type": "marble", "gate": g}, "sensor") for g in gates]
    counts = [gates.count(g) for g in range(1, 7)]
    events += [({"type": "camera", "counts": counts, "outside": 0}, "camera")] * extra_readings
    events += [({"type": "guess", "player": p, "gate": rng.randint(1, 6)}, "tap")
               for i, p in enumerate(PLAYERS) if i != active]
    events.append(({"type": "reveal", "gate": rng.randint(1, 6)}, "tap"))
    return events


def bench_append(path: Path) -> None:
    table = Table(EventLog(path))
    session = table.create("diego-drachenzahn", PLAYERS, {"rounds_per_player": 6})
    rng = random.Random(1)
    timings: list[float] = []
    for r in range(24):
        for event, source in round_events(rng, r % 4):
            started = time.perf_counter()
            table.submit(session["id"], event, source=source)
            timings.append((time.perf_counter() - started) * 1000)
    print(f"table: append+fold per event (SQLite WAL, synchronous=FULL): {summary(timings)}")
    table.log.close()


def bench_replay(path: Path) -> None:
    table = Table(EventLog(path))
    session = table.create("diego-drachenzahn", PLAYERS, {"rounds_per_player": 6})
    rng = random.Random(2)
    count = 0
    for r in range(24):
        for event, source in round_events(rng, r % 4, extra_readings=77):
            table.submit(session["id"], event, source=source)
            count += 1
    table.log.close()
    timings = []
    for _ in range(5):
        fresh = Table(EventLog(path))
        started = time.perf_counter()
        fresh.view(session["id"])  # reads the log and folds every live event
        timings.append((time.perf_counter() - started) * 1000)
        fresh.log.close()
    print(f"table: replay of a {count}-event session from the log: {summary(timings)}")


def bench_fanout(data: Path) -> None:
    from tests.servers import SseReader, call, serving
    from web.app import create_app, shutdown

    app = create_app({"DATA_DIR": str(data), "SENSORS": "off"})
    latencies: list[float] = []
    with serving(app) as base:
        _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": PLAYERS,
                                                   "options": {"rounds_per_player": 6}})
        url = f"{base}/api/sessions/{session['id']}"
        readers = [SseReader(f"{url}/stream") for _ in range(5)]
        for reader in readers:
            reader.next_named("session")
        arrivals: dict[int, list[float]] = {}
        lock = threading.Lock()

        def listen(reader: SseReader) -> None:
            try:
                while True:
                    view = reader.next_named("session")
                    with lock:
                        arrivals.setdefault(view["seq"], []).append(time.perf_counter())
            except (EOFError, OSError, ValueError):
                return

        threads = [threading.Thread(target=listen, args=(r,), daemon=True) for r in readers]
        for t in threads:
            t.start()
        rng = random.Random(3)
        sent: dict[int, float] = {}
        for r in range(24):
            for event, _ in round_events(rng, r % 4):
                started = time.perf_counter()
                status, view = call(f"{url}/events", event)
                sent[view["seq"]] = started
                time.sleep(0.005)
        time.sleep(0.5)
        for seq, started in sent.items():
            latencies += [(t - started) * 1000 for t in arrivals.get(seq, [])]
        missing = len(sent) * 5 - len(latencies)
        for reader in readers:
            reader.close()
    shutdown(app)
    print(f"sse: change -> 5 clients (POST sent to event received): {summary(latencies)}; lost {missing}")


def bench_process(data: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1",
                                "--port", str(port), "--data", str(data), "--sensors", "simulation"],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from tests.servers import call

    try:
        while True:
            try:
                if call(f"http://127.0.0.1:{port}/api/health", timeout=1)[0] == 200:
                    break
            except OSError:
                time.sleep(0.01)
            if time.perf_counter() - started > 60:
                raise RuntimeError("the server did not start")
        first = (time.perf_counter() - started) * 1000
        time.sleep(0.5)
        rss = _rss_kib(process.pid)
        print(f"server: process start -> first 200: {first:.0f} ms; resident memory after start: "
              f"{rss / 1024:.1f} MiB (simulation, gates running)")
    finally:
        process.terminate()
        process.wait(10)


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_append(folder / "append.sqlite3")
        bench_replay(folder / "replay.sqlite3")
        bench_fanout(folder / "fanout")
        bench_process(folder / "process")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()

"""The server under load: /api/health and tap latency with 100 reading and 20 never-reading streams open,
how many readers received each change, and how long a change takes to reach all of them."""
from __future__ import annotations

import tempfile
import time

from bench.stats import summary

READERS = 100
IDLE = 20
TAPS = 60  # each tap is followed by an undo: 2 changes per tap


def _latency_ms(action) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    from tests.servers import SseCrowd, call, serving, subscribers
    from web.app import create_app, shutdown

    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "SENSORS": "off"})
        bus = app.extensions["table"].bus
        with serving(app) as base:
            _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": ["Ada", "Ben", "Cleo"]})
            url = f"{base}/api/sessions/{session['id']}"
            quiet = [_latency_ms(lambda: call(f"{base}/api/health")) for _ in range(TAPS)]
            quiet_taps: list[float] = []
            for _ in range(TAPS // 2):
                for path, body in ((f"{url}/events", {"type": "marble", "gate": 1}), (f"{url}/undo", {})):
                    sent = time.perf_counter()
                    call(path, body)
                    quiet_taps.append((time.perf_counter() - sent) * 1000)
            print(f"server: /api/health, no stream open: {summary(quiet)}")
            print(f"server: tap (POST event or undo), no stream open: {summary(quiet_taps)}")
            started = time.perf_counter()
            crowd = SseCrowd(f"{url}/stream", readers=READERS, idle=IDLE)
            try:
                while crowd.opened() < READERS:
                    time.sleep(0.005)
                print(f"server: {READERS} reading + {IDLE} idle streams opened in "
                      f"{time.perf_counter() - started:.2f} s")
                health: list[float] = []
                taps: list[float] = []
                spread: list[float] = []
                seq = first = call(url)[1]["seq"] + 1
                for index in range(TAPS):
                    health.append(_latency_ms(lambda: call(f"{base}/api/health")))
                    for path, body in ((f"{url}/events", {"type": "marble", "gate": index % 6 + 1}),
                                       (f"{url}/undo", {})):
                        sent = time.perf_counter()
                        status, view = call(path, body)
                        taps.append((time.perf_counter() - sent) * 1000)
                        seq = view["seq"]
                        while not crowd.all_have(seq) and time.perf_counter() - sent < 10:
                            time.sleep(0.0005)
                        spread.append((time.perf_counter() - sent) * 1000)
                deadline = time.perf_counter() + 10
                while not crowd.all_have(seq) and time.perf_counter() < deadline:
                    time.sleep(0.01)
                delivered = [crowd.received(s) for s in range(first, seq + 1)]
                open_streams = subscribers(bus)
            finally:
                crowd.close()
        shutdown(app)
    print(f"server: /api/health with the streams open: {summary(health)}")
    print(f"server: tap (POST event or undo) with the streams open: {summary(taps)}")
    print(f"server: change -> all {READERS} readers (POST sent to last reader's event): {summary(spread)}")
    print(f"server: {len(delivered)} changes; received by every reader: {sum(d == READERS for d in delivered)}, "
          f"fewest readers for one change: {min(delivered)}; streams subscribed at the end: {open_streams} "
          f"(an idle stream is let go once its buffers are full and a write waits WRITE_TIMEOUT)")


if __name__ == "__main__":
    main()

"""Edge to screen: a marble's trailing beam edge (MockFactory pins) to the session view arriving at an SSE client."""
from __future__ import annotations

import tempfile
import time

from bench.stats import summary

MARBLES = 1000
PLAYERS = ["Ada", "Ben", "Cleo", "Dan"]


def main() -> None:
    from tests.servers import SseReader, call, serving
    from web.app import create_app, shutdown

    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "SENSORS": "simulation", "CAMERA": "off"})
        simulator = app.extensions["sensors"].simulator
        latencies: list[float] = []
        lost = 0
        with serving(app) as base:
            rolled = 0
            while rolled < MARBLES:
                _, session = call(f"{base}/api/sessions", {"game": "diego-drachenzahn", "players": PLAYERS,
                                                           "options": {"rounds_per_player": 6}})
                url = f"{base}/api/sessions/{session['id']}"
                stream = SseReader(f"{url}/stream", timeout=5)
                stream.next_named("session")
                for round_index in range(24):
                    for _ in range(3):
                        gate = rolled % 6 + 1
                        simulator.roll(gate, width_ms=8.0)
                        # When the beam cleared (the trailing edge), on the mock pin's own monotonic clock.
                        edge = simulator.factory.pin(simulator.pins[gate - 1])._last_change
                        try:
                            view = stream.next_named("session")
                            latencies.append((time.monotonic() - edge) * 1000)
                            assert view["state"]["current"]["marbles"][-1] == gate
                        except (OSError, AssertionError):
                            lost += 1
                        rolled += 1
                        time.sleep(0.03)  # the next marble comes later than the beam's refractory time
                    active = round_index % 4
                    for seat, player in enumerate(PLAYERS):
                        if seat != active:
                            call(f"{url}/events", {"type": "guess", "player": player, "gate": 1})
                            stream.next_named("session")
                    call(f"{url}/events", {"type": "reveal", "gate": 1})
                    stream.next_named("session")
                    if rolled >= MARBLES:
                        break
                stream.close()
        shutdown(app)
    print(f"gates: trailing beam edge -> SSE client (includes the 2 ms chatter merge wait): "
          f"{summary(latencies)}; lost {lost} of {rolled}")


if __name__ == "__main__":
    main()

"""`make bench`: run every bench module's main() and print its figures. Figures are printed, never asserted."""
from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path

# The real photos are read before bench_vision sets the C allocator as the camera service does (for the rest of the
# process): `companion detect`, which reads such photos, leaves it as it is.
ORDER = ["bench_table", "bench_games", "bench_server", "bench_gates", "bench_sensors", "bench_real_photos",
         "bench_real_sequence", "bench_vision", "bench_camera", "bench_memory"]


def main(argv: list[str]) -> int:
    found = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("bench_"))
    names = [n for n in ORDER if n in found] + [n for n in found if n not in ORDER]
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    for name in names:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"bench.{name}").main()
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Resident memory of `companion serve` after start: sensors off, and in simulation with the simulated camera.

Each run starts `python -m web.cli serve` in a fresh process on a free port with an empty data folder, waits
for the first 200 from /api/health, lets the sensors run for a moment (the camera's first frames), then reads
VmRSS (and the peak, VmHWM) from /proc/PID/status and which of the heavy libraries the process has mapped.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 60.0
SETTLE_S = 3.0  # after the first 200: the camera and vision threads get their first frames
RUNS = {"--sensors off": ["--sensors", "off"],
        "simulation, simulated camera": ["--sensors", "simulation", "--camera", "simulation"]}
PREVIEWS = 10  # then, for the camera run: the Camera page's preview asked for this many times
LIBRARIES = ("cv2", "numpy")  # native libraries: seen in the process's memory map


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def proc_status(pid: int) -> dict[str, str]:
    """The fields of /proc/PID/status (VmRSS, VmHWM, Threads, ...)."""
    fields: dict[str, str] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.strip()
    return fields


def mapped_libraries(pid: int) -> list[str]:
    """Which of cv2 and numpy the process has loaded (judged by its memory map)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return [name for name in LIBRARIES if f"/{name}/" in maps]


def measure(args: list[str]) -> dict[str, object]:
    """Start a server with `args`, wait for health, and return its memory figures."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as data:
        command = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                   "--data", data, *args]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            started = time.monotonic()
            while not _healthy(f"http://127.0.0.1:{port}/api/health"):
                if server.poll() is not None or time.monotonic() - started > START_TIMEOUT_S:
                    raise RuntimeError(f"`{' '.join(command)}` did not answer /api/health")
                time.sleep(0.1)
            ready_s = time.monotonic() - started
            time.sleep(SETTLE_S)
            status = proc_status(server.pid)
            libraries = mapped_libraries(server.pid)
            previewed = None
            if "cv2" in libraries:  # the Camera page open: the overlay drawn and encoded on request
                for _ in range(PREVIEWS):
                    _healthy(f"http://127.0.0.1:{port}/camera/preview.jpg")
                    time.sleep(0.3)
                previewed = int(proc_status(server.pid)["VmRSS"].split()[0])
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    kb = {name: int(status[name].split()[0]) for name in ("VmRSS", "VmHWM", "RssAnon", "RssFile")}
    return {"ready_s": ready_s, **kb, "threads": int(status["Threads"]), "libraries": libraries,
            "previewed": previewed}


def main() -> None:
    for name, args in RUNS.items():
        figures = measure(args)
        libraries = ", ".join(figures["libraries"]) or "none"  # type: ignore[arg-type]
        print(f"memory, {name}: RSS {figures['VmRSS'] / 1024:.1f} MB after start "
              f"({figures['RssAnon'] / 1024:.1f} MB private, {figures['RssFile'] / 1024:.1f} MB mapped files; "
              f"peak {figures['VmHWM'] / 1024:.1f} MB, {figures['threads']} threads, "
              f"healthy after {figures['ready_s']:.1f} s; loaded: {libraries})", flush=True)
        if figures["previewed"] is not None:
            print(f"memory, {name}, Camera page open ({PREVIEWS} previews): RSS "
                  f"{figures['previewed'] / 1024:.1f} MB", flush=True)


if __name__ == "__main__":
    main()

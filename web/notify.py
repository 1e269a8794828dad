"""systemd's notify protocol, for a service of Type=notify with a watchdog; does nothing off systemd.

READY=1 is sent once the kiosk's HTTP port answers /api/health, then WATCHDOG=1 every half
``WATCHDOG_USEC`` while it keeps answering: a server that hangs stops the pings and systemd restarts it.
The messages are datagrams on the ``$NOTIFY_SOCKET`` Unix socket (a path, or ``@name`` in the abstract
namespace); nothing is sent when the variable is unset.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import urllib.request
from typing import Callable, Mapping

log = logging.getLogger(__name__)


def send(message: str, environ: Mapping[str, str] = os.environ) -> bool:
    """Send one notify message (e.g. "READY=1"); False when not under systemd or the send failed."""
    address = environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as err:
        log.warning("cannot notify systemd at %s: %s", environ.get("NOTIFY_SOCKET"), err)
        return False
    return True


def watchdog_interval(environ: Mapping[str, str] = os.environ) -> float | None:
    """Seconds between watchdog pings (half of WATCHDOG_USEC), or None when no watchdog is set for us."""
    usec = environ.get("WATCHDOG_USEC")
    pid = environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return max(int(usec) / 2e6, 0.1)
    except ValueError:
        return None


def health_url(host: str, port: int) -> str:
    """The local /api/health URL of a server listening on ``host``:``port``."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/api/health"


def answers(url: str, timeout: float = 5.0) -> bool:
    """True if ``url`` answers with a 2xx status."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (a local URL)
            return 200 <= response.status < 300
    except OSError:
        return False


def start(host: str, port: int, environ: Mapping[str, str] = os.environ,
          probe: Callable[[str], bool] = answers, stop: threading.Event | None = None) -> threading.Thread | None:
    """Under systemd: a daemon thread that sends READY=1 once the server answers, then the watchdog pings.
    Returns the thread, or None when there is no NOTIFY_SOCKET (or the port is chosen by the system)."""
    if not environ.get("NOTIFY_SOCKET") or not port:
        return None
    stop = stop or threading.Event()
    url = health_url(host, port)
    interval = watchdog_interval(environ)

    def run() -> None:
        while not stop.wait(0.2):
            if probe(url):
                break
        else:
            return
        send("READY=1", environ)
        send(f"STATUS=serving on port {port}", environ)
        while interval is not None and not stop.wait(interval):
            if probe(url):
                send("WATCHDOG=1", environ)
            else:
                log.warning("%s does not answer: the watchdog is not fed", url)

    thread = threading.Thread(target=run, name="systemd-notify", daemon=True)
    thread.start()
    return thread

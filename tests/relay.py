"""A TCP relay between a browser and the test server: from another address (a tablet, as the server sees it), or
stalled at will (Wi-Fi gone quiet: connections stay open, nothing passes either way)."""
from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from typing import Iterator

from tests.waiting import PATIENCE_S


@contextlib.contextmanager
def forwarder(target: str, source: str = "127.0.0.1", stalled: threading.Event | None = None) -> Iterator[str]:
    """A TCP relay on 127.0.0.1 that connects on to `target` from the address `source`: a browser on this
    machine then reaches the server as another device would. While `stalled` is set, nothing passes either way
    (what was sent waits, and passes once it is cleared). Yields the relay's base URL."""
    host, port = target.removeprefix("http://").rsplit(":", 1)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)  # accept() wakes up to notice the end
    stopping = threading.Event()
    open_sockets: list[socket.socket] = []

    def pump(a: socket.socket, b: socket.socket) -> None:
        # When either side closes (the server ends an idle keep-alive connection), close the other too: a
        # browser must never reuse a relayed connection whose far end is gone.
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(a, selectors.EVENT_READ, b)
                selector.register(b, selectors.EVENT_READ, a)
                while not stopping.is_set():
                    if stalled is not None and stalled.is_set():
                        stopping.wait(0.05)
                        continue
                    for key, _ in selector.select(timeout=0.2):
                        if stalled is not None and stalled.is_set():
                            break  # what came as the relay stalled waits too
                        try:
                            data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                            if not data:
                                return
                            key.data.sendall(data)
                        except OSError:
                            return
        finally:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()

    def serve() -> None:
        while not stopping.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            upstream = socket.socket()
            try:
                upstream.bind((source, 0))
                upstream.connect((host, int(port)))
            except OSError:
                client.close()
                upstream.close()
                continue
            open_sockets.extend((client, upstream))
            threading.Thread(target=pump, args=(client, upstream), daemon=True).start()

    thread = threading.Thread(target=serve, name="test-relay", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stopping.set()
        with contextlib.suppress(OSError):  # wakes the waiting accept() at once (Linux), else its timeout does
            listener.shutdown(socket.SHUT_RDWR)
        thread.join(timeout=PATIENCE_S)
        listener.close()
        for sock in open_sockets:
            with contextlib.suppress(OSError):
                sock.close()

"""Server-Sent Events: the full session view on connect, then one message per change."""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Iterator

from flask import Blueprint, Flask, Response, current_app

from companion.bus import Subscription
from companion.table import Table, topic

bp = Blueprint("stream", __name__, url_prefix="/api")

SENSORS_TOPIC = "sensors"


def sse(name: str, data: Any, event_id: int | None = None) -> str:
    lines = [f"event: {name}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def _stopping(app: Flask) -> threading.Event:
    return app.extensions.setdefault("streams_stopping", threading.Event())


def stop_streams(app: Flask) -> None:
    """Ask every open stream to end (on shutdown)."""
    _stopping(app).set()


@bp.get("/sessions/<int:session_id>/stream")
def session_stream(session_id: int) -> Response:
    table: Table = current_app.extensions["table"]
    subscription = table.bus.subscribe(topic(session_id), SENSORS_TOPIC)
    try:
        first = table.view(session_id)  # raises 404 for an unknown session
    except Exception:
        subscription.close()
        raise
    sensors = current_app.extensions["sensors"]
    stopping = _stopping(current_app._get_current_object())  # type: ignore[attr-defined]
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    body = _events(subscription, first, sensors.status(), stopping, keepalive)
    return Response(body, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _events(subscription: Subscription, first: dict[str, Any], sensors: dict[str, Any],
            stopping: threading.Event, keepalive: float) -> Iterator[str]:
    try:
        yield "retry: 1000\n\n" + sse("session", first, first["seq"]) + sse("sensors", sensors)
        quiet_since = time.monotonic()
        while not stopping.is_set() and not subscription.overflowed:
            message = subscription.get(timeout=0.5)
            if message is None:
                if time.monotonic() - quiet_since >= keepalive:
                    quiet_since = time.monotonic()
                    yield ": keep-alive\n\n"  # also how a closed connection is noticed
                continue
            quiet_since = time.monotonic()
            name, data = message
            yield sse(name, data, data.get("seq") if name == "session" else None)
    finally:
        subscription.close()

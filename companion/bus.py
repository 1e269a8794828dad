"""A small in-process publish/subscribe bus: the table publishes changes, each stream subscribes."""
from __future__ import annotations

import queue
import threading
from typing import Any

Message = tuple[str, Any]  # (event name, JSON-able data)


class Subscription:
    """Messages for one listener, from one or more topics. Closed when the listener is too slow."""

    def __init__(self, bus: Bus, topics: tuple[str, ...], maxsize: int) -> None:
        self._bus = bus
        self.topics = topics
        self._queue: queue.Queue[Message | None] = queue.Queue(maxsize)
        self.overflowed = False

    def get(self, timeout: float | None = None) -> Message | None:
        """The next message, or None on timeout or when the subscription was closed."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def _offer(self, message: Message) -> None:
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            self.overflowed = True
            self._bus.unsubscribe(self)

    def close(self) -> None:
        self._bus.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


class Bus:
    def __init__(self, maxsize: int = 256) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscription]] = {}
        self._maxsize = maxsize

    @property
    def maxsize(self) -> int:
        """How many messages a subscriber may fall behind before it is closed."""
        return self._maxsize

    def subscribe(self, *topics: str) -> Subscription:
        return self.add(Subscription(self, topics, self._maxsize))

    def add(self, subscription: Subscription) -> Subscription:
        """Register a subscription made elsewhere (e.g. one read on an asyncio loop) for its topics."""
        with self._lock:
            for topic in subscription.topics:
                self._subscribers.setdefault(topic, set()).add(subscription)
        return subscription

    def count(self) -> int:
        """How many distinct subscriptions are registered (nothing a client sends may leave one behind)."""
        with self._lock:
            return len({s for topic in self._subscribers.values() for s in topic})

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            for topic in subscription.topics:
                self._subscribers.get(topic, set()).discard(subscription)

    def publish(self, topic: str, name: str, data: Any) -> int:
        """Deliver to every subscriber of `topic`; returns how many received it."""
        with self._lock:
            targets = list(self._subscribers.get(topic, ()))
        for subscription in targets:
            subscription._offer((name, data))
        return len(targets)

"""Signal routing inside one process: who subscribed to which session, on which node (no I/O).

Every signal bus keeps the handlers of its own node here and asks it whom a received signal goes to; the
in-memory feed keeps one in the shared storage too, of each node's followed sessions.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any


class SignalHub:
    """Registrations ``session -> [(node, subscription id, handler)]``; handlers are opaque here (the
    async bus registers coroutine functions, the sync bus plain callables)."""

    def __init__(self, lock: threading.Lock | None = None) -> None:
        self._lock = lock if lock is not None else threading.Lock()
        self._subscribers: dict[str, dict[int, tuple[str, Callable[..., Any]]]] = {}
        self._ids = itertools.count(1)

    def add(self, session_id: str, node_id: str, handler: Callable[..., Any]) -> int:
        with self._lock:
            sub_id = next(self._ids)
            self._subscribers.setdefault(session_id, {})[sub_id] = (node_id, handler)
            return sub_id

    def remove(self, session_id: str, sub_id: int) -> bool:
        """Drop one registration (idempotent); True when it was the session's last one."""
        with self._lock:
            subs = self._subscribers.get(session_id)
            if subs is None or subs.pop(sub_id, None) is None:
                return False
            if subs:
                return False
            del self._subscribers[session_id]
            return True

    def count(self, session_id: str) -> int:
        """How many registrations the session has."""
        with self._lock:
            return len(self._subscribers.get(session_id, {}))

    def clear(self) -> None:
        """Drop every registration."""
        with self._lock:
            self._subscribers.clear()

    def receivers(self, session_id: str, origin_node_id: str) -> list[Callable[..., Any]]:
        """Handlers of the session on every node but the origin (no self-delivery), in subscription order."""
        with self._lock:
            subs = self._subscribers.get(session_id, {})
            return [handler for node, handler in subs.values() if node != origin_node_id]

    def sessions(self) -> list[str]:
        """The sessions that have at least one subscriber (what a store-backed bus fetches payloads for)."""
        with self._lock:
            return list(self._subscribers)

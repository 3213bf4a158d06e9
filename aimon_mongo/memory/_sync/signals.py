# GENERATED from aimon_mongo/memory/_async/signals.py by scripts/gen_sync.py; do not edit.
"""In-memory signal bus (generated from the ``_async`` source).

``publish`` runs the receivers' handlers before it returns (awaited here, called in the sync twin), in
subscription order; a handler that raises is logged and the others still run. A node never receives
signals whose origin is its own node id.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aimon_mongo._sync.ports import SignalHandler
from aimon_mongo.errors import SignalBusError
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import SessionSignal
from aimon_mongo.validate import require_id, require_signal

log = logging.getLogger(__name__)


class MemorySubscription:
    def __init__(self, bus: MemorySessionSignalBus, session_id: str, sub_id: int) -> None:
        self._bus = bus
        self._session_id = session_id
        self._sub_id = sub_id

    def unsubscribe(self) -> None:
        self._bus._drop(self._session_id, self._sub_id)


class MemorySessionSignalBus:
    delivers_missed_signals = True
    """Nothing is ever disconnected in memory, so nothing is missed."""

    def __init__(self, storage: MemoryStorage, node_id: str) -> None:
        self.node_id = require_id(node_id, "node_id")
        self._hub = storage.signals
        self._mine: set[tuple[str, int]] = set()
        self._closed = False

    def publish(self, signal: SessionSignal) -> None:
        require_signal(signal)
        if self._closed:
            raise SignalBusError(f"signal bus of node {self.node_id!r} is closed")
        for handler in self._hub.receivers(signal.session_id, signal.origin_node_id):
            try:
                handler(signal)
            except Exception:
                log.exception("signal handler failed for session %s (kind %s)", signal.session_id, signal.kind.value)

    def publish_all(self, signals: Sequence[SessionSignal]) -> None:
        for signal in [require_signal(s, "signals[]") for s in signals]:
            self.publish(signal)

    def subscribe(self, session_id: str, handler: SignalHandler) -> MemorySubscription:
        require_id(session_id, "session_id")
        if not callable(handler):
            raise SignalBusError("handler must be callable")
        if self._closed:
            raise SignalBusError(f"signal bus of node {self.node_id!r} is closed")
        sub_id = self._hub.add(session_id, self.node_id, handler)
        self._mine.add((session_id, sub_id))
        return MemorySubscription(self, session_id, sub_id)

    def close(self) -> None:
        self._closed = True
        for session_id, sub_id in list(self._mine):
            self._drop(session_id, sub_id)

    def _drop(self, session_id: str, sub_id: int) -> None:
        self._mine.discard((session_id, sub_id))
        self._hub.remove(session_id, sub_id)

"""In-memory inbox: per-session entries ordered by (priority, delivery sequence)."""

from __future__ import annotations

import itertools
import threading
import uuid
from dataclasses import dataclass

from aimon_mongo.model import InboundMessage, Priority


@dataclass(frozen=True)
class _Entry:
    priority: int
    seq: int
    message: InboundMessage


class InboxTable:
    """Entries are kept as objects, so nothing is ever unreadable (the quarantine stays empty)."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._sessions: dict[str, list[_Entry]] = {}
        self._seq = itertools.count(1)

    def deliver_many(self, messages: list[InboundMessage]) -> list[str]:
        """Append every message under one lock, in order; the new ids in the same order."""
        entry_ids = [str(uuid.uuid4()) for _ in messages]
        with self._lock:
            for message, entry_id in zip(messages, entry_ids, strict=True):
                entry = _Entry(message.priority.ordinal, next(self._seq), message.with_id(entry_id))
                self._sessions.setdefault(message.session_id, []).append(entry)
        return entry_ids

    def take(self, session_id: str, max_priority: Priority, limit: int | None, remove: bool) -> list[InboundMessage]:
        """The next entries up to ``max_priority`` in (priority, FIFO) order; ``remove`` deletes them."""
        with self._lock:
            entries = self._sessions.get(session_id, [])
            chosen = sorted(
                (e for e in entries if e.priority <= max_priority.ordinal), key=lambda e: (e.priority, e.seq)
            )[:limit]
            if remove and chosen:
                taken = {id(e) for e in chosen}
                rest = [e for e in entries if id(e) not in taken]
                if rest:
                    self._sessions[session_id] = rest
                else:
                    del self._sessions[session_id]
        return [e.message for e in chosen]

    def is_empty(self, session_id: str) -> bool:
        with self._lock:
            return not self._sessions.get(session_id)

    def purge(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)

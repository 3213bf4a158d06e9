"""In-memory idempotency entries with lazy expiry on the storage clock."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from aimon_mongo._async.services.idempotency import DEFAULT_DONE_TTL
from aimon_mongo.clock import Clock
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, TurnResult

__all__ = ["DEFAULT_DONE_TTL", "IdempotencyTable"]

SWEEP_EVERY = 1024


@dataclass
class _Slot:
    entry: IdempotencyEntry
    expires_at: datetime
    ttl: timedelta  # the span touch() re-arms


class IdempotencyTable:
    """The primitives of the in-memory idempotency driver (one lock each); an entry whose expiry has
    passed behaves as absent in every operation (as a Redis key would)."""

    def __init__(self, lock: threading.Lock, clock: Clock, done_ttl: timedelta) -> None:
        self._lock = lock
        self._clock = clock
        self.done_ttl = done_ttl
        self._slots: dict[str, _Slot] = {}
        self._puts = 0

    def put(self, entry: IdempotencyEntry, ttl: timedelta) -> IdempotencyEntry | None:
        """Insert ``entry`` unless a live entry has its key; returns that live entry (``None``: inserted)."""
        with self._lock:
            now = self._clock()
            existing = self._live(entry.key, now)
            if existing is not None:
                return existing.entry
            self._slots[entry.key] = _Slot(entry, now + ttl, ttl)
            self._puts += 1
            if self._puts % SWEEP_EVERY == 0:  # lapsed entries nobody asks for again
                for key in [k for k, s in self._slots.items() if s.expires_at <= now]:
                    del self._slots[key]
            return None

    def mark_done(self, key: str, result: TurnResult, ttl: timedelta) -> bool:
        with self._lock:
            now = self._clock()
            slot = self._live(key, now)
            if slot is None:
                return False
            slot.entry = slot.entry.model_copy(
                update={"status": IdempotencyStatus.DONE, "holder_id": None, "result": result, "last_touched_at": now}
            )
            slot.expires_at, slot.ttl = now + ttl, ttl
            return True

    def touch(self, key: str, holder_id: str) -> bool:
        with self._lock:
            now = self._clock()
            slot = self._in_flight(key, now, holder_id)
            if slot is None:
                return False
            slot.entry = slot.entry.model_copy(update={"last_touched_at": now})
            slot.expires_at = now + slot.ttl
            return True

    def rehold(self, key: str, expected: str | None, new_holder: str | None, ttl: timedelta) -> bool:
        with self._lock:
            now = self._clock()
            slot = self._in_flight(key, now, expected)
            if slot is None:
                return False
            slot.entry = slot.entry.model_copy(update={"holder_id": new_holder, "last_touched_at": now})
            slot.expires_at, slot.ttl = now + ttl, ttl
            return True

    def delete_held(self, key: str, expected: str | None) -> bool:
        with self._lock:
            if self._in_flight(key, self._clock(), expected) is None:
                return False
            del self._slots[key]
            return True

    def live(self) -> list[IdempotencyEntry]:
        """Every live entry (unordered)."""
        with self._lock:
            now = self._clock()
            return [s.entry for s in self._slots.values() if s.expires_at > now]

    def find(self, key: str) -> IdempotencyEntry | None:
        with self._lock:
            slot = self._live(key, self._clock())
            return None if slot is None else slot.entry

    def _in_flight(self, key: str, now: datetime, holder_id: str | None) -> _Slot | None:
        """The live ``IN_FLIGHT`` slot of ``key`` whose holder is ``holder_id`` (``None``: no holder)."""
        slot = self._live(key, now)
        if slot is None or slot.entry.status is not IdempotencyStatus.IN_FLIGHT:
            return None
        return slot if slot.entry.holder_id == holder_id else None

    def _live(self, key: str, now: datetime) -> _Slot | None:
        slot = self._slots.get(key)
        if slot is not None and slot.expires_at <= now:
            del self._slots[key]
            return None
        return slot

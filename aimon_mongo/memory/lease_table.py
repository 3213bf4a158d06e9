"""In-memory leases: per-session holder, fencing token and expiry, expired lazily on the storage clock.
Flavour-independent (one table under both flavours' drivers, :mod:`aimon_mongo._async.memory.leases`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from aimon_mongo.clock import Clock
from aimon_mongo.model import Lease
from aimon_mongo.services.leases import Granted, Held


@dataclass
class _Lock:
    holder_id: str | None
    token: int
    expires_at: datetime


class LeaseTable:
    """Like the MongoDB lock document: release expires the entry in place and never deletes it, so the
    per-session token counter survives release and expiry; tokens strictly increase per session."""

    def __init__(self, lock: threading.Lock, clock: Clock) -> None:
        self._lock = lock
        self._clock = clock
        self._locks: dict[str, _Lock] = {}

    def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        with self._lock:
            now = self._clock()
            current = self._locks.get(session_id)
            if current is not None and current.holder_id is not None and current.expires_at > now:
                return None
            token = (current.token if current is not None else 0) + 1
            self._locks[session_id] = _Lock(holder_id, token, now + ttl)
            return Granted(token, now + ttl)

    def extend(self, lease: Lease, ttl: timedelta) -> bool:
        with self._lock:
            current = self._matching(lease)
            if current is None:
                return False
            current.expires_at = self._clock() + ttl
            return True

    def release(self, lease: Lease) -> None:
        with self._lock:
            current = self._matching(lease)
            if current is not None:
                current.holder_id = None
                current.expires_at = self._clock()

    def find(self, session_id: str) -> Held | None:
        with self._lock:
            current = self._locks.get(session_id)
            if current is None or current.holder_id is None or not current.expires_at > self._clock():
                return None
            return Held(current.holder_id, current.token, current.expires_at)

    def _matching(self, lease: Lease) -> _Lock | None:
        current = self._locks.get(lease.session_id)
        if current is None or current.holder_id != lease.holder_id or current.token != lease.fencing_token:
            return None
        return current

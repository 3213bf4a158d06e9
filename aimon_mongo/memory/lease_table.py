"""In-memory leases: per-session holder, fencing token and expiry, expired lazily on the storage clock.
Flavour-independent (one table under both flavours' drivers, :mod:`aimon_mongo._async.memory.leases`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
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


def clock_token(now: datetime) -> int:
    """The clock floor of a fencing token, as on every backend: ``now`` in epoch milliseconds x 1024."""
    return int(now.timestamp() * 1000) * 1024


class LeaseTable:
    """Like the MongoDB lock document: release expires the entry in place and never deletes it, so the
    per-session token counter survives release and expiry; tokens strictly increase per session. A token is
    ``max(previous + 1, storage clock ms x 1024)``, the same clock floor as the other backends'; a grant
    raises the session's write fence (``raise_fence``, called under the same lock) to its token. A holder
    re-acquiring its own live lease gets a new token."""

    def __init__(self, lock: threading.Lock, clock: Clock, raise_fence: Callable[[str, int], None]) -> None:
        self._lock = lock
        self._clock = clock
        self._raise_fence = raise_fence
        self._locks: dict[str, _Lock] = {}

    def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        with self._lock:
            now = self._clock()
            current = self._locks.get(session_id)
            if current is not None and current.holder_id not in (None, holder_id) and current.expires_at > now:
                return None
            token = max((current.token if current is not None else 0) + 1, clock_token(now))
            self._locks[session_id] = _Lock(holder_id, token, now + ttl)
            self._raise_fence(session_id, token)
            return Granted(token, now + ttl, taken_over=current is not None)

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

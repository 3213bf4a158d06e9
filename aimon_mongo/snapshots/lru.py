"""A bounded, thread-safe LRU map of resumable sessions (pure; the in-memory snapshot stores wrap it)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.snapshots.envelope import ResumableSession

DEFAULT_MAX_SNAPSHOTS = 256


class SessionLru:
    """At most ``max_snapshots`` sessions; a lookup refreshes an entry, an insert beyond the cap drops the
    least recently used one. Every method holds one lock, so it is safe from any thread and never blocks
    on I/O."""

    def __init__(self, max_snapshots: int = DEFAULT_MAX_SNAPSHOTS) -> None:
        if isinstance(max_snapshots, bool) or not isinstance(max_snapshots, int) or max_snapshots < 1:
            raise InvalidArgumentError(f"max_snapshots must be >= 1, got: {max_snapshots!r}")
        self.max_snapshots = max_snapshots
        self._entries: OrderedDict[str, ResumableSession] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, task_id: str, session: ResumableSession) -> None:
        with self._lock:
            self._entries[task_id] = session
            self._entries.move_to_end(task_id)
            while len(self._entries) > self.max_snapshots:
                self._entries.popitem(last=False)

    def get(self, task_id: str) -> ResumableSession | None:
        with self._lock:
            session = self._entries.get(task_id)
            if session is not None:
                self._entries.move_to_end(task_id)
            return session

    def pop(self, task_id: str) -> None:
        with self._lock:
            self._entries.pop(task_id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

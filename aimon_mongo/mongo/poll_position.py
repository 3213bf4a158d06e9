"""Where a polling signal watcher stands (pure; used when the server has no change streams).

Signal ``_id``\\ s are ObjectIds made by each publisher's driver: ordered by the publisher's clock second,
but *not* across publishers within a second (their random parts decide), nor across publishers whose
clocks disagree. So a poll cannot ask "after the last id I saw": it asks for every id in a window
``[newest seen second - lookback, ∞)`` and skips the ids it has already seen. An id older than the window
when it first shows up (a publisher clock more than ``lookback`` behind) is missed — replica sets, with
change streams, have no such limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId

from aimon_mongo import names as n

DEFAULT_LOOKBACK = timedelta(seconds=5)


class PollPosition:
    def __init__(self, lookback: timedelta = DEFAULT_LOOKBACK) -> None:
        self._lookback = lookback
        self._newest: datetime | None = None
        self._seen: set[ObjectId] = set()

    def query(self, node_id: str) -> dict[str, Any]:
        """Ids in the window, of signals other nodes published."""
        found: dict[str, Any] = {n.F_ORIGIN_NODE_ID: {"$ne": node_id}}
        if self._newest is not None:
            found[n.F_ID] = {"$gte": ObjectId.from_datetime(self._newest - self._lookback)}
        return found

    def unseen(self, ids: Iterable[ObjectId]) -> list[ObjectId]:
        return [i for i in ids if i not in self._seen]

    def mark(self, ids: Iterable[ObjectId]) -> None:
        """Remember ``ids`` as seen (delivered, or history at start); forget what left the window."""
        for oid in ids:
            self._seen.add(oid)
            stamp = oid.generation_time
            if self._newest is None or stamp > self._newest:
                self._newest = stamp
        if self._newest is not None:
            floor = self._newest - self._lookback
            self._seen = {i for i in self._seen if i.generation_time >= floor}

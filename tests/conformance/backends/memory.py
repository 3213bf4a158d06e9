"""The in-memory family: every node of a test shares one :class:`MemoryStorage`."""

from __future__ import annotations

from typing import Any

from aimon_mongo.clock import Clock
from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from tests.conformance.backends import ClusterBase, register_cluster


class MemoryCluster(ClusterBase):
    """Stores keep objects, not encoded forms: no entry can be damaged (``can_damage_entries`` is False)."""

    can_damage_entries = False

    def __init__(self, is_async: bool) -> None:
        super().__init__()
        self.is_async = is_async
        self.storage = MemoryStorage()

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        if self.is_async:
            return AsyncMemorySessionBackends(node_id, self.storage, clock)
        return MemorySessionBackends(node_id, self.storage, clock)


register_cluster("memory-sync", lambda request: MemoryCluster(is_async=False))
register_cluster("memory-async", lambda request: MemoryCluster(is_async=True))

"""The in-memory family: every node of a test shares one :class:`MemoryStorage`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from aimon_mongo.clock import Clock
from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends, MemoryStorage
from aimon_mongo.model import InboundMessage
from tests.conformance.backends import ClusterBase, register


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

    async def store_damaged_entry(self, message: InboundMessage) -> str:
        raise NotImplementedError("the in-memory inbox keeps objects; nothing can be damaged")

    def repair(self, raw: Any) -> Any:
        raise NotImplementedError


def _factory(is_async: bool) -> Any:
    @contextlib.asynccontextmanager
    async def factory(request: pytest.FixtureRequest) -> AsyncIterator[MemoryCluster]:
        cluster = MemoryCluster(is_async)
        try:
            yield cluster
        finally:
            await cluster.close_all()

    return factory


register("memory-sync", _factory(False))
register("memory-async", _factory(True))

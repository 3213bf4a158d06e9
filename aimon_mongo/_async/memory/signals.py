"""In-memory signal driver (async flavour; the sync twin is generated).

The feed is the storage's shared hub: each node registers there, per followed session, the service's
``deliver``; ``publish`` hands the signal itself to the other nodes' registrations before it returns
(awaited here, called in the sync twin).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aimon_mongo._async.services.signals import AsyncSignalBus, Deliver
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import SessionSignal
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import no_failures


@exported_from("aimon_mongo.memory")
class AsyncMemorySignalDriver:
    """Signal primitives of the in-memory store (see the module text)."""

    failures = no_failures
    delivers_missed_signals = True
    """Nothing is ever disconnected in memory, so nothing is missed."""
    publish_chunk = None
    chunks_are_atomic = False
    watch = None
    """``publish`` delivers in the publisher's call."""

    def __init__(self, storage: MemoryStorage, node_id: str) -> None:
        self.node_id = node_id
        self._hub = storage.signals
        self._deliver: Deliver | None = None
        self._followed: dict[str, int] = {}

    def __repr__(self) -> str:
        return located(self)

    def encode(self, signal: SessionSignal) -> SessionSignal:
        return signal

    async def publish(self, raw: SessionSignal) -> None:
        for deliver in self._hub.receivers(raw.session_id, raw.origin_node_id):
            await deliver(raw)

    async def publish_many(self, raws: Sequence[SessionSignal]) -> None:
        for raw in raws:
            await self.publish(raw)

    def decode(self, raw: SessionSignal) -> SessionSignal:
        return raw

    def describe(self, raw: SessionSignal) -> str:
        return "in memory"

    async def start(self, deliver: Deliver, sessions: Callable[[], list[str]]) -> None:
        self._deliver = deliver

    async def follow(self, session_id: str) -> None:
        self._followed[session_id] = self._hub.add(session_id, self.node_id, self._received)

    async def _received(self, raw: SessionSignal) -> None:
        if self._deliver is not None:
            await self._deliver(raw)

    async def confirmed(self, session_id: str, timeout: float) -> bool:
        return True

    async def unfollow(self, session_id: str) -> None:
        sub_id = self._followed.pop(session_id, None)
        if sub_id is not None:
            self._hub.remove(session_id, sub_id)

    async def stop(self) -> None:
        for session_id in list(self._followed):
            await self.unfollow(session_id)


@exported_from("aimon_mongo.memory")
def AsyncMemorySessionSignalBus(storage: MemoryStorage, node_id: str) -> AsyncSignalBus:
    """In-memory signal bus of one node: handlers run in the publisher's call, in subscription order.

    A factory: the :class:`~aimon_mongo.services.AsyncSignalBus` service over :class:`AsyncMemorySignalDriver`."""
    return AsyncSignalBus(AsyncMemorySignalDriver(storage, node_id))

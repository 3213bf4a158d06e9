"""In-memory backend: the executable specification of the session-state contracts.

One :class:`MemoryStorage` plays the database (share it between bundles to simulate nodes); it is
thread-safe and asyncio-safe (one lock, never held across an ``await``), so one storage may serve threads
and an event loop at once. Expiry is lazy and follows the storage's injectable clock. Each store alone
(``AsyncMemorySessionLeaseStore(storage)`` …) is a factory returning the service over this backend's driver
(``AsyncMemoryLeaseDriver`` …, exported too).
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo._async.memory.backends import AsyncMemorySessionBackends
    from aimon_mongo._async.memory.idempotency import AsyncMemoryIdempotencyDriver, AsyncMemoryIdempotencyStore
    from aimon_mongo._async.memory.inbox import AsyncMemoryInboxDriver, AsyncMemorySessionInbox
    from aimon_mongo._async.memory.leases import AsyncMemoryLeaseDriver, AsyncMemorySessionLeaseStore
    from aimon_mongo._async.memory.records import AsyncMemoryRecordDriver, AsyncMemorySessionRecordStore
    from aimon_mongo._async.memory.segments import AsyncMemorySegmentDriver, AsyncMemorySessionLogSegmentStore
    from aimon_mongo._async.memory.signals import AsyncMemorySessionSignalBus, AsyncMemorySignalDriver
    from aimon_mongo._async.memory.tasks import AsyncMemoryBackgroundTaskStore, AsyncMemoryTaskDriver
    from aimon_mongo._sync.memory.backends import MemorySessionBackends
    from aimon_mongo._sync.memory.idempotency import MemoryIdempotencyDriver, MemoryIdempotencyStore
    from aimon_mongo._sync.memory.inbox import MemoryInboxDriver, MemorySessionInbox
    from aimon_mongo._sync.memory.leases import MemoryLeaseDriver, MemorySessionLeaseStore
    from aimon_mongo._sync.memory.records import MemoryRecordDriver, MemorySessionRecordStore
    from aimon_mongo._sync.memory.segments import MemorySegmentDriver, MemorySessionLogSegmentStore
    from aimon_mongo._sync.memory.signals import MemorySessionSignalBus, MemorySignalDriver
    from aimon_mongo._sync.memory.tasks import MemoryBackgroundTaskStore, MemoryTaskDriver
    from aimon_mongo.memory.storage import MemoryStorage

__all__ = [
    "AsyncMemoryBackgroundTaskStore",
    "AsyncMemoryIdempotencyDriver",
    "AsyncMemoryIdempotencyStore",
    "AsyncMemoryInboxDriver",
    "AsyncMemoryLeaseDriver",
    "AsyncMemoryRecordDriver",
    "AsyncMemorySegmentDriver",
    "AsyncMemorySessionBackends",
    "AsyncMemorySessionInbox",
    "AsyncMemorySessionLeaseStore",
    "AsyncMemorySessionLogSegmentStore",
    "AsyncMemorySessionRecordStore",
    "AsyncMemorySessionSignalBus",
    "AsyncMemorySignalDriver",
    "AsyncMemoryTaskDriver",
    "MemoryBackgroundTaskStore",
    "MemoryIdempotencyDriver",
    "MemoryIdempotencyStore",
    "MemoryInboxDriver",
    "MemoryLeaseDriver",
    "MemoryRecordDriver",
    "MemorySegmentDriver",
    "MemorySessionBackends",
    "MemorySessionInbox",
    "MemorySessionLeaseStore",
    "MemorySessionLogSegmentStore",
    "MemorySessionRecordStore",
    "MemorySessionSignalBus",
    "MemorySignalDriver",
    "MemoryStorage",
    "MemoryTaskDriver",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncMemoryBackgroundTaskStore": "aimon_mongo._async.memory.tasks",
            "AsyncMemoryIdempotencyDriver": "aimon_mongo._async.memory.idempotency",
            "AsyncMemoryIdempotencyStore": "aimon_mongo._async.memory.idempotency",
            "AsyncMemoryInboxDriver": "aimon_mongo._async.memory.inbox",
            "AsyncMemoryLeaseDriver": "aimon_mongo._async.memory.leases",
            "AsyncMemoryRecordDriver": "aimon_mongo._async.memory.records",
            "AsyncMemorySegmentDriver": "aimon_mongo._async.memory.segments",
            "AsyncMemorySessionBackends": "aimon_mongo._async.memory.backends",
            "AsyncMemorySessionInbox": "aimon_mongo._async.memory.inbox",
            "AsyncMemorySessionLeaseStore": "aimon_mongo._async.memory.leases",
            "AsyncMemorySessionLogSegmentStore": "aimon_mongo._async.memory.segments",
            "AsyncMemorySessionRecordStore": "aimon_mongo._async.memory.records",
            "AsyncMemorySessionSignalBus": "aimon_mongo._async.memory.signals",
            "AsyncMemorySignalDriver": "aimon_mongo._async.memory.signals",
            "AsyncMemoryTaskDriver": "aimon_mongo._async.memory.tasks",
            "MemoryBackgroundTaskStore": "aimon_mongo._sync.memory.tasks",
            "MemoryIdempotencyDriver": "aimon_mongo._sync.memory.idempotency",
            "MemoryIdempotencyStore": "aimon_mongo._sync.memory.idempotency",
            "MemoryInboxDriver": "aimon_mongo._sync.memory.inbox",
            "MemoryLeaseDriver": "aimon_mongo._sync.memory.leases",
            "MemoryRecordDriver": "aimon_mongo._sync.memory.records",
            "MemorySegmentDriver": "aimon_mongo._sync.memory.segments",
            "MemorySessionBackends": "aimon_mongo._sync.memory.backends",
            "MemorySessionInbox": "aimon_mongo._sync.memory.inbox",
            "MemorySessionLeaseStore": "aimon_mongo._sync.memory.leases",
            "MemorySessionLogSegmentStore": "aimon_mongo._sync.memory.segments",
            "MemorySessionRecordStore": "aimon_mongo._sync.memory.records",
            "MemorySessionSignalBus": "aimon_mongo._sync.memory.signals",
            "MemorySignalDriver": "aimon_mongo._sync.memory.signals",
            "MemoryStorage": "aimon_mongo.memory.storage",
            "MemoryTaskDriver": "aimon_mongo._sync.memory.tasks",
        },
    )

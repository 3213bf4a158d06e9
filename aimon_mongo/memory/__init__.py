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
    from aimon_mongo.memory._async.backends import AsyncMemorySessionBackends
    from aimon_mongo.memory._async.idempotency import AsyncMemoryIdempotencyDriver, AsyncMemoryIdempotencyStore
    from aimon_mongo.memory._async.inbox import AsyncMemoryInboxDriver, AsyncMemorySessionInbox
    from aimon_mongo.memory._async.leases import AsyncMemoryLeaseDriver, AsyncMemorySessionLeaseStore
    from aimon_mongo.memory._async.records import AsyncMemoryRecordDriver, AsyncMemorySessionRecordStore
    from aimon_mongo.memory._async.segments import AsyncMemorySegmentDriver, AsyncMemorySessionLogSegmentStore
    from aimon_mongo.memory._async.signals import AsyncMemorySessionSignalBus, AsyncMemorySignalDriver
    from aimon_mongo.memory._async.tasks import AsyncMemoryBackgroundTaskStore, AsyncMemoryTaskDriver
    from aimon_mongo.memory._sync.backends import MemorySessionBackends
    from aimon_mongo.memory._sync.idempotency import MemoryIdempotencyDriver, MemoryIdempotencyStore
    from aimon_mongo.memory._sync.inbox import MemoryInboxDriver, MemorySessionInbox
    from aimon_mongo.memory._sync.leases import MemoryLeaseDriver, MemorySessionLeaseStore
    from aimon_mongo.memory._sync.records import MemoryRecordDriver, MemorySessionRecordStore
    from aimon_mongo.memory._sync.segments import MemorySegmentDriver, MemorySessionLogSegmentStore
    from aimon_mongo.memory._sync.signals import MemorySessionSignalBus, MemorySignalDriver
    from aimon_mongo.memory._sync.tasks import MemoryBackgroundTaskStore, MemoryTaskDriver
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
            "AsyncMemoryBackgroundTaskStore": "aimon_mongo.memory._async.tasks",
            "AsyncMemoryIdempotencyDriver": "aimon_mongo.memory._async.idempotency",
            "AsyncMemoryIdempotencyStore": "aimon_mongo.memory._async.idempotency",
            "AsyncMemoryInboxDriver": "aimon_mongo.memory._async.inbox",
            "AsyncMemoryLeaseDriver": "aimon_mongo.memory._async.leases",
            "AsyncMemoryRecordDriver": "aimon_mongo.memory._async.records",
            "AsyncMemorySegmentDriver": "aimon_mongo.memory._async.segments",
            "AsyncMemorySessionBackends": "aimon_mongo.memory._async.backends",
            "AsyncMemorySessionInbox": "aimon_mongo.memory._async.inbox",
            "AsyncMemorySessionLeaseStore": "aimon_mongo.memory._async.leases",
            "AsyncMemorySessionLogSegmentStore": "aimon_mongo.memory._async.segments",
            "AsyncMemorySessionRecordStore": "aimon_mongo.memory._async.records",
            "AsyncMemorySessionSignalBus": "aimon_mongo.memory._async.signals",
            "AsyncMemorySignalDriver": "aimon_mongo.memory._async.signals",
            "AsyncMemoryTaskDriver": "aimon_mongo.memory._async.tasks",
            "MemoryBackgroundTaskStore": "aimon_mongo.memory._sync.tasks",
            "MemoryIdempotencyDriver": "aimon_mongo.memory._sync.idempotency",
            "MemoryIdempotencyStore": "aimon_mongo.memory._sync.idempotency",
            "MemoryInboxDriver": "aimon_mongo.memory._sync.inbox",
            "MemoryLeaseDriver": "aimon_mongo.memory._sync.leases",
            "MemoryRecordDriver": "aimon_mongo.memory._sync.records",
            "MemorySegmentDriver": "aimon_mongo.memory._sync.segments",
            "MemorySessionBackends": "aimon_mongo.memory._sync.backends",
            "MemorySessionInbox": "aimon_mongo.memory._sync.inbox",
            "MemorySessionLeaseStore": "aimon_mongo.memory._sync.leases",
            "MemorySessionLogSegmentStore": "aimon_mongo.memory._sync.segments",
            "MemorySessionRecordStore": "aimon_mongo.memory._sync.records",
            "MemorySessionSignalBus": "aimon_mongo.memory._sync.signals",
            "MemorySignalDriver": "aimon_mongo.memory._sync.signals",
            "MemoryStorage": "aimon_mongo.memory.storage",
            "MemoryTaskDriver": "aimon_mongo.memory._sync.tasks",
        },
    )

"""In-memory backend: the executable specification of the session-state contracts.

One :class:`MemoryStorage` plays the database (share it between bundles to simulate nodes); it is
thread-safe and asyncio-safe (one lock, never held across an ``await``), so one storage may serve threads
and an event loop at once. Expiry is lazy and follows the storage's injectable clock. Each store alone
(``AsyncMemorySessionLeaseStore(storage)`` …) is a factory returning the service over this backend's driver.
"""

from aimon_mongo.memory._async.backends import AsyncMemorySessionBackends
from aimon_mongo.memory._async.idempotency import AsyncMemoryIdempotencyStore
from aimon_mongo.memory._async.inbox import AsyncMemorySessionInbox
from aimon_mongo.memory._async.leases import AsyncMemorySessionLeaseStore
from aimon_mongo.memory._async.records import AsyncMemorySessionRecordStore
from aimon_mongo.memory._async.segments import AsyncMemorySessionLogSegmentStore
from aimon_mongo.memory._async.signals import AsyncMemorySessionSignalBus
from aimon_mongo.memory._async.tasks import AsyncMemoryBackgroundTaskStore
from aimon_mongo.memory._sync.backends import MemorySessionBackends
from aimon_mongo.memory._sync.idempotency import MemoryIdempotencyStore
from aimon_mongo.memory._sync.inbox import MemorySessionInbox
from aimon_mongo.memory._sync.leases import MemorySessionLeaseStore
from aimon_mongo.memory._sync.records import MemorySessionRecordStore
from aimon_mongo.memory._sync.segments import MemorySessionLogSegmentStore
from aimon_mongo.memory._sync.signals import MemorySessionSignalBus
from aimon_mongo.memory._sync.tasks import MemoryBackgroundTaskStore
from aimon_mongo.memory.storage import MemoryStorage

__all__ = [
    "AsyncMemoryBackgroundTaskStore",
    "AsyncMemoryIdempotencyStore",
    "AsyncMemorySessionBackends",
    "AsyncMemorySessionInbox",
    "AsyncMemorySessionLeaseStore",
    "AsyncMemorySessionLogSegmentStore",
    "AsyncMemorySessionRecordStore",
    "AsyncMemorySessionSignalBus",
    "MemoryBackgroundTaskStore",
    "MemoryIdempotencyStore",
    "MemorySessionBackends",
    "MemorySessionInbox",
    "MemorySessionLeaseStore",
    "MemorySessionLogSegmentStore",
    "MemorySessionRecordStore",
    "MemorySessionSignalBus",
    "MemoryStorage",
]

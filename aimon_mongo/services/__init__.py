"""Policy once: one service per capability, over a driver of the store's atomic primitives.

Each capability (inbox, leases, idempotency, background tasks, session records, log segments, signals)
is one service class in :mod:`aimon_mongo._async.services` (sync twins generated into
``_sync/services``). A service holds everything that is policy — argument checks, codec calls,
decode-and-quarantine, partial-failure handling, logging, the error family and the words of its messages —
and calls a **driver**: a Protocol, declared next to its service, of the primitives one store runs
atomically (a Lua script, one SQL statement, one ``find_one_and_delete``). A backend is its drivers, and a
bundle composes ``Service(driver)``: ``AsyncLeaseStore(AsyncMongoLeaseDriver(collection))``. No class exists
only to build its base: the store names users construct (``AsyncMongoSessionLeaseStore(collection)`` …) are
factories returning that composition, exported by each backend package; six stay classes because they add
backend extras (``AsyncMongoSessionInbox.collects_in_transactions``, the PostgreSQL sweeps …). A service's
``repr`` names its driver and where the data lives (:mod:`aimon_mongo.services.composed`).

Driver calls run inside ``with driver.failures(Family, action):`` (:mod:`aimon_mongo.services.failures`).
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo._async.services.idempotency import AsyncIdempotency
    from aimon_mongo._async.services.inbox import AsyncInbox
    from aimon_mongo._async.services.leases import AsyncLeaseStore
    from aimon_mongo._async.services.records import AsyncRecordStore
    from aimon_mongo._async.services.segments import AsyncSegmentStore
    from aimon_mongo._async.services.signals import AsyncSignalBus
    from aimon_mongo._async.services.tasks import AsyncTaskStore
    from aimon_mongo._sync.services.idempotency import Idempotency
    from aimon_mongo._sync.services.inbox import Inbox
    from aimon_mongo._sync.services.leases import LeaseStore
    from aimon_mongo._sync.services.records import RecordStore
    from aimon_mongo._sync.services.segments import SegmentStore
    from aimon_mongo._sync.services.signals import SignalBus
    from aimon_mongo._sync.services.tasks import TaskStore

__all__ = [
    "AsyncIdempotency",
    "AsyncInbox",
    "AsyncLeaseStore",
    "AsyncRecordStore",
    "AsyncSegmentStore",
    "AsyncSignalBus",
    "AsyncTaskStore",
    "Idempotency",
    "Inbox",
    "LeaseStore",
    "RecordStore",
    "SegmentStore",
    "SignalBus",
    "TaskStore",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncIdempotency": "aimon_mongo._async.services.idempotency",
            "AsyncInbox": "aimon_mongo._async.services.inbox",
            "AsyncLeaseStore": "aimon_mongo._async.services.leases",
            "AsyncRecordStore": "aimon_mongo._async.services.records",
            "AsyncSegmentStore": "aimon_mongo._async.services.segments",
            "AsyncSignalBus": "aimon_mongo._async.services.signals",
            "AsyncTaskStore": "aimon_mongo._async.services.tasks",
            "Idempotency": "aimon_mongo._sync.services.idempotency",
            "Inbox": "aimon_mongo._sync.services.inbox",
            "LeaseStore": "aimon_mongo._sync.services.leases",
            "RecordStore": "aimon_mongo._sync.services.records",
            "SegmentStore": "aimon_mongo._sync.services.segments",
            "SignalBus": "aimon_mongo._sync.services.signals",
            "TaskStore": "aimon_mongo._sync.services.tasks",
        },
    )

"""Policy once: one service per capability, over a driver of the store's atomic primitives.

Each capability (inbox, leases, idempotency, background tasks, session records, log segments, signals)
is one service class in :mod:`aimon_mongo.services._async` (sync twins generated into
``services/_sync``). A service holds everything that is policy — argument checks, codec calls,
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
    from aimon_mongo.services._async.idempotency import AsyncIdempotency
    from aimon_mongo.services._async.inbox import AsyncInbox
    from aimon_mongo.services._async.leases import AsyncLeaseStore
    from aimon_mongo.services._async.records import AsyncRecordStore
    from aimon_mongo.services._async.segments import AsyncSegmentStore
    from aimon_mongo.services._async.signals import AsyncSignalBus
    from aimon_mongo.services._async.tasks import AsyncTaskStore
    from aimon_mongo.services._sync.idempotency import Idempotency
    from aimon_mongo.services._sync.inbox import Inbox
    from aimon_mongo.services._sync.leases import LeaseStore
    from aimon_mongo.services._sync.records import RecordStore
    from aimon_mongo.services._sync.segments import SegmentStore
    from aimon_mongo.services._sync.signals import SignalBus
    from aimon_mongo.services._sync.tasks import TaskStore

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
            "AsyncIdempotency": "aimon_mongo.services._async.idempotency",
            "AsyncInbox": "aimon_mongo.services._async.inbox",
            "AsyncLeaseStore": "aimon_mongo.services._async.leases",
            "AsyncRecordStore": "aimon_mongo.services._async.records",
            "AsyncSegmentStore": "aimon_mongo.services._async.segments",
            "AsyncSignalBus": "aimon_mongo.services._async.signals",
            "AsyncTaskStore": "aimon_mongo.services._async.tasks",
            "Idempotency": "aimon_mongo.services._sync.idempotency",
            "Inbox": "aimon_mongo.services._sync.inbox",
            "LeaseStore": "aimon_mongo.services._sync.leases",
            "RecordStore": "aimon_mongo.services._sync.records",
            "SegmentStore": "aimon_mongo.services._sync.segments",
            "SignalBus": "aimon_mongo.services._sync.signals",
            "TaskStore": "aimon_mongo.services._sync.tasks",
        },
    )

"""MongoDB backend of the session stores (PyMongo; native async on ``AsyncMongoClient``).

``AsyncMongoSessionBackends`` / ``MongoSessionBackends`` bundle the seven stores on one database;
``ensure_schema`` / ``ensure_schema_async`` create the collections and indexes (what ``db/mongodb/init.js``
creates). Each store alone, on collections you pass: ``AsyncMongoSessionLeaseStore(collection)`` and its six
siblings (sync names without ``Async``) — factories returning the service over this backend's driver, except
``*SessionInbox`` and ``*SessionSignalBus``, classes with extras; the drivers (``AsyncMongoLeaseDriver`` …)
are exported too (see :mod:`aimon_mongo.services`).
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.mongo._async.backends import AsyncMongoSessionBackends
    from aimon_mongo.mongo._async.idempotency import AsyncMongoIdempotencyDriver, AsyncMongoIdempotencyStore
    from aimon_mongo.mongo._async.inbox import AsyncMongoInboxDriver, AsyncMongoSessionInbox
    from aimon_mongo.mongo._async.leases import AsyncMongoLeaseDriver, AsyncMongoSessionLeaseStore
    from aimon_mongo.mongo._async.records import AsyncMongoRecordDriver, AsyncMongoSessionRecordStore
    from aimon_mongo.mongo._async.schema import ensure_schema as ensure_schema_async
    from aimon_mongo.mongo._async.segments import AsyncMongoSegmentDriver, AsyncMongoSessionLogSegmentStore
    from aimon_mongo.mongo._async.signals import AsyncMongoSessionSignalBus, AsyncMongoSignalDriver
    from aimon_mongo.mongo._async.tasks import AsyncMongoBackgroundTaskStore, AsyncMongoTaskDriver
    from aimon_mongo.mongo._sync.backends import MongoSessionBackends
    from aimon_mongo.mongo._sync.idempotency import MongoIdempotencyDriver, MongoIdempotencyStore
    from aimon_mongo.mongo._sync.inbox import MongoInboxDriver, MongoSessionInbox
    from aimon_mongo.mongo._sync.leases import MongoLeaseDriver, MongoSessionLeaseStore
    from aimon_mongo.mongo._sync.records import MongoRecordDriver, MongoSessionRecordStore
    from aimon_mongo.mongo._sync.schema import ensure_schema
    from aimon_mongo.mongo._sync.segments import MongoSegmentDriver, MongoSessionLogSegmentStore
    from aimon_mongo.mongo._sync.signals import MongoSessionSignalBus, MongoSignalDriver
    from aimon_mongo.mongo._sync.tasks import MongoBackgroundTaskStore, MongoTaskDriver
    from aimon_mongo.mongo.collections import MongoCollectionNames

__all__ = [
    "AsyncMongoBackgroundTaskStore",
    "AsyncMongoIdempotencyDriver",
    "AsyncMongoIdempotencyStore",
    "AsyncMongoInboxDriver",
    "AsyncMongoLeaseDriver",
    "AsyncMongoRecordDriver",
    "AsyncMongoSegmentDriver",
    "AsyncMongoSessionBackends",
    "AsyncMongoSessionInbox",
    "AsyncMongoSessionLeaseStore",
    "AsyncMongoSessionLogSegmentStore",
    "AsyncMongoSessionRecordStore",
    "AsyncMongoSessionSignalBus",
    "AsyncMongoSignalDriver",
    "AsyncMongoTaskDriver",
    "MongoBackgroundTaskStore",
    "MongoCollectionNames",
    "MongoIdempotencyDriver",
    "MongoIdempotencyStore",
    "MongoInboxDriver",
    "MongoLeaseDriver",
    "MongoRecordDriver",
    "MongoSegmentDriver",
    "MongoSessionBackends",
    "MongoSessionInbox",
    "MongoSessionLeaseStore",
    "MongoSessionLogSegmentStore",
    "MongoSessionRecordStore",
    "MongoSessionSignalBus",
    "MongoSignalDriver",
    "MongoTaskDriver",
    "ensure_schema",
    "ensure_schema_async",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncMongoBackgroundTaskStore": "aimon_mongo.mongo._async.tasks",
            "AsyncMongoIdempotencyDriver": "aimon_mongo.mongo._async.idempotency",
            "AsyncMongoIdempotencyStore": "aimon_mongo.mongo._async.idempotency",
            "AsyncMongoInboxDriver": "aimon_mongo.mongo._async.inbox",
            "AsyncMongoLeaseDriver": "aimon_mongo.mongo._async.leases",
            "AsyncMongoRecordDriver": "aimon_mongo.mongo._async.records",
            "AsyncMongoSegmentDriver": "aimon_mongo.mongo._async.segments",
            "AsyncMongoSessionBackends": "aimon_mongo.mongo._async.backends",
            "AsyncMongoSessionInbox": "aimon_mongo.mongo._async.inbox",
            "AsyncMongoSessionLeaseStore": "aimon_mongo.mongo._async.leases",
            "AsyncMongoSessionLogSegmentStore": "aimon_mongo.mongo._async.segments",
            "AsyncMongoSessionRecordStore": "aimon_mongo.mongo._async.records",
            "AsyncMongoSessionSignalBus": "aimon_mongo.mongo._async.signals",
            "AsyncMongoSignalDriver": "aimon_mongo.mongo._async.signals",
            "AsyncMongoTaskDriver": "aimon_mongo.mongo._async.tasks",
            "MongoBackgroundTaskStore": "aimon_mongo.mongo._sync.tasks",
            "MongoCollectionNames": "aimon_mongo.mongo.collections",
            "MongoIdempotencyDriver": "aimon_mongo.mongo._sync.idempotency",
            "MongoIdempotencyStore": "aimon_mongo.mongo._sync.idempotency",
            "MongoInboxDriver": "aimon_mongo.mongo._sync.inbox",
            "MongoLeaseDriver": "aimon_mongo.mongo._sync.leases",
            "MongoRecordDriver": "aimon_mongo.mongo._sync.records",
            "MongoSegmentDriver": "aimon_mongo.mongo._sync.segments",
            "MongoSessionBackends": "aimon_mongo.mongo._sync.backends",
            "MongoSessionInbox": "aimon_mongo.mongo._sync.inbox",
            "MongoSessionLeaseStore": "aimon_mongo.mongo._sync.leases",
            "MongoSessionLogSegmentStore": "aimon_mongo.mongo._sync.segments",
            "MongoSessionRecordStore": "aimon_mongo.mongo._sync.records",
            "MongoSessionSignalBus": "aimon_mongo.mongo._sync.signals",
            "MongoSignalDriver": "aimon_mongo.mongo._sync.signals",
            "MongoTaskDriver": "aimon_mongo.mongo._sync.tasks",
            "ensure_schema": "aimon_mongo.mongo._sync.schema",
            "ensure_schema_async": "aimon_mongo.mongo._async.schema:ensure_schema",
        },
    )

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
    from aimon_mongo._async.mongo.backends import AsyncMongoSessionBackends
    from aimon_mongo._async.mongo.idempotency import AsyncMongoIdempotencyDriver, AsyncMongoIdempotencyStore
    from aimon_mongo._async.mongo.inbox import AsyncMongoInboxDriver, AsyncMongoSessionInbox
    from aimon_mongo._async.mongo.leases import AsyncMongoLeaseDriver, AsyncMongoSessionLeaseStore
    from aimon_mongo._async.mongo.records import AsyncMongoRecordDriver, AsyncMongoSessionRecordStore
    from aimon_mongo._async.mongo.schema import ensure_schema as ensure_schema_async
    from aimon_mongo._async.mongo.segments import AsyncMongoSegmentDriver, AsyncMongoSessionLogSegmentStore
    from aimon_mongo._async.mongo.signals import AsyncMongoSessionSignalBus, AsyncMongoSignalDriver
    from aimon_mongo._async.mongo.tasks import AsyncMongoBackgroundTaskStore, AsyncMongoTaskDriver
    from aimon_mongo._sync.mongo.backends import MongoSessionBackends
    from aimon_mongo._sync.mongo.idempotency import MongoIdempotencyDriver, MongoIdempotencyStore
    from aimon_mongo._sync.mongo.inbox import MongoInboxDriver, MongoSessionInbox
    from aimon_mongo._sync.mongo.leases import MongoLeaseDriver, MongoSessionLeaseStore
    from aimon_mongo._sync.mongo.records import MongoRecordDriver, MongoSessionRecordStore
    from aimon_mongo._sync.mongo.schema import ensure_schema
    from aimon_mongo._sync.mongo.segments import MongoSegmentDriver, MongoSessionLogSegmentStore
    from aimon_mongo._sync.mongo.signals import MongoSessionSignalBus, MongoSignalDriver
    from aimon_mongo._sync.mongo.tasks import MongoBackgroundTaskStore, MongoTaskDriver
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
            "AsyncMongoBackgroundTaskStore": "aimon_mongo._async.mongo.tasks",
            "AsyncMongoIdempotencyDriver": "aimon_mongo._async.mongo.idempotency",
            "AsyncMongoIdempotencyStore": "aimon_mongo._async.mongo.idempotency",
            "AsyncMongoInboxDriver": "aimon_mongo._async.mongo.inbox",
            "AsyncMongoLeaseDriver": "aimon_mongo._async.mongo.leases",
            "AsyncMongoRecordDriver": "aimon_mongo._async.mongo.records",
            "AsyncMongoSegmentDriver": "aimon_mongo._async.mongo.segments",
            "AsyncMongoSessionBackends": "aimon_mongo._async.mongo.backends",
            "AsyncMongoSessionInbox": "aimon_mongo._async.mongo.inbox",
            "AsyncMongoSessionLeaseStore": "aimon_mongo._async.mongo.leases",
            "AsyncMongoSessionLogSegmentStore": "aimon_mongo._async.mongo.segments",
            "AsyncMongoSessionRecordStore": "aimon_mongo._async.mongo.records",
            "AsyncMongoSessionSignalBus": "aimon_mongo._async.mongo.signals",
            "AsyncMongoSignalDriver": "aimon_mongo._async.mongo.signals",
            "AsyncMongoTaskDriver": "aimon_mongo._async.mongo.tasks",
            "MongoBackgroundTaskStore": "aimon_mongo._sync.mongo.tasks",
            "MongoCollectionNames": "aimon_mongo.mongo.collections",
            "MongoIdempotencyDriver": "aimon_mongo._sync.mongo.idempotency",
            "MongoIdempotencyStore": "aimon_mongo._sync.mongo.idempotency",
            "MongoInboxDriver": "aimon_mongo._sync.mongo.inbox",
            "MongoLeaseDriver": "aimon_mongo._sync.mongo.leases",
            "MongoRecordDriver": "aimon_mongo._sync.mongo.records",
            "MongoSegmentDriver": "aimon_mongo._sync.mongo.segments",
            "MongoSessionBackends": "aimon_mongo._sync.mongo.backends",
            "MongoSessionInbox": "aimon_mongo._sync.mongo.inbox",
            "MongoSessionLeaseStore": "aimon_mongo._sync.mongo.leases",
            "MongoSessionLogSegmentStore": "aimon_mongo._sync.mongo.segments",
            "MongoSessionRecordStore": "aimon_mongo._sync.mongo.records",
            "MongoSessionSignalBus": "aimon_mongo._sync.mongo.signals",
            "MongoSignalDriver": "aimon_mongo._sync.mongo.signals",
            "MongoTaskDriver": "aimon_mongo._sync.mongo.tasks",
            "ensure_schema": "aimon_mongo._sync.mongo.schema",
            "ensure_schema_async": "aimon_mongo._async.mongo.schema:ensure_schema",
        },
    )

"""MongoDB backend of the session stores (PyMongo; native async on ``AsyncMongoClient``).

``AsyncMongoSessionBackends`` / ``MongoSessionBackends`` bundle the seven stores on one database;
``ensure_schema`` / ``ensure_schema_async`` create the collections and indexes (what ``db/mongodb/init.js``
creates). Each store alone, on collections you pass: ``AsyncMongoSessionLeaseStore(collection)`` and its six
siblings (sync names without ``Async``) — factories returning the service over this backend's driver, except
``*SessionInbox`` and ``*SessionSignalBus``, classes with extras (see :mod:`aimon_mongo.services`).
"""

from aimon_mongo.mongo._async.backends import AsyncMongoSessionBackends
from aimon_mongo.mongo._async.idempotency import AsyncMongoIdempotencyStore
from aimon_mongo.mongo._async.inbox import AsyncMongoSessionInbox
from aimon_mongo.mongo._async.leases import AsyncMongoSessionLeaseStore
from aimon_mongo.mongo._async.records import AsyncMongoSessionRecordStore
from aimon_mongo.mongo._async.schema import ensure_schema as ensure_schema_async
from aimon_mongo.mongo._async.segments import AsyncMongoSessionLogSegmentStore
from aimon_mongo.mongo._async.signals import AsyncMongoSessionSignalBus
from aimon_mongo.mongo._async.tasks import AsyncMongoBackgroundTaskStore
from aimon_mongo.mongo._sync.backends import MongoSessionBackends
from aimon_mongo.mongo._sync.idempotency import MongoIdempotencyStore
from aimon_mongo.mongo._sync.inbox import MongoSessionInbox
from aimon_mongo.mongo._sync.leases import MongoSessionLeaseStore
from aimon_mongo.mongo._sync.records import MongoSessionRecordStore
from aimon_mongo.mongo._sync.schema import ensure_schema
from aimon_mongo.mongo._sync.segments import MongoSessionLogSegmentStore
from aimon_mongo.mongo._sync.signals import MongoSessionSignalBus
from aimon_mongo.mongo._sync.tasks import MongoBackgroundTaskStore
from aimon_mongo.mongo.collections import MongoCollectionNames

__all__ = [
    "AsyncMongoBackgroundTaskStore",
    "AsyncMongoIdempotencyStore",
    "AsyncMongoSessionBackends",
    "AsyncMongoSessionInbox",
    "AsyncMongoSessionLeaseStore",
    "AsyncMongoSessionLogSegmentStore",
    "AsyncMongoSessionRecordStore",
    "AsyncMongoSessionSignalBus",
    "MongoBackgroundTaskStore",
    "MongoCollectionNames",
    "MongoIdempotencyStore",
    "MongoSessionBackends",
    "MongoSessionInbox",
    "MongoSessionLeaseStore",
    "MongoSessionLogSegmentStore",
    "MongoSessionRecordStore",
    "MongoSessionSignalBus",
    "ensure_schema",
    "ensure_schema_async",
]

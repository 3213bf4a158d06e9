"""MongoDB backend of the session stores (PyMongo; native async on ``AsyncMongoClient``).

``AsyncMongoSessionBackends`` / ``MongoSessionBackends`` bundle the seven stores on one database;
``ensure_schema`` / ``ensure_schema_async`` create the collections and indexes (what ``db/mongodb/init.js``
creates).
"""

from aimon_mongo.mongo._async.backends import AsyncMongoSessionBackends
from aimon_mongo.mongo._async.schema import ensure_schema as ensure_schema_async
from aimon_mongo.mongo._sync.backends import MongoSessionBackends
from aimon_mongo.mongo._sync.schema import ensure_schema
from aimon_mongo.mongo.collections import MongoCollectionNames

__all__ = [
    "AsyncMongoSessionBackends",
    "MongoCollectionNames",
    "MongoSessionBackends",
    "ensure_schema",
    "ensure_schema_async",
]

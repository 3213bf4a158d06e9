"""MongoDB backend of the session stores (PyMongo; native async on ``AsyncMongoClient``).

``AsyncMongoSessionBackends`` / ``MongoSessionBackends`` bundle the seven stores on one database;
``ensure_schema`` / ``ensure_schema_async`` create the collections and indexes (what ``db/mongodb/init.js``
creates).
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
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

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncMongoSessionBackends": "aimon_mongo.mongo._async.backends",
            "MongoCollectionNames": "aimon_mongo.mongo.collections",
            "MongoSessionBackends": "aimon_mongo.mongo._sync.backends",
            "ensure_schema": "aimon_mongo.mongo._sync.schema",
            "ensure_schema_async": "aimon_mongo.mongo._async.schema:ensure_schema",
        },
    )

# GENERATED from aimon_mongo/_async/mongo/schema.py by scripts/gen_sync.py; do not edit.
"""Schema bootstrap (generated from the ``_async`` source): the collections and indexes of
:func:`aimon_mongo.mongo.schema.session_schema`, idempotently — what ``db/mongodb/init.js`` creates."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pymongo import IndexModel
from pymongo.synchronous.database import Database
from pymongo.errors import CollectionInvalid, OperationFailure

from aimon_mongo.errors import AimonStorageError
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.failures import failures
from aimon_mongo.mongo.schema import create_command, session_schema
from aimon_mongo.validate import require_instance

log = logging.getLogger(__name__)

_NAMESPACE_EXISTS = 48


def ensure_schema(
    database: Database[Any], collection_names: MongoCollectionNames | Mapping[str, str] | None = None
) -> None:
    """Create every missing collection (capped where the reference caps) and every named index.

    Safe to run again and concurrently: existing collections and identical indexes are left alone. An
    existing collection that should be capped but is not is reported at WARNING (it is not converted).
    """
    require_instance(database, Database, "database")
    specs = session_schema(MongoCollectionNames.of(collection_names))
    with failures(AimonStorageError, f"schema bootstrap of database {database.name!r}"):
        listed = (database.list_collections()).to_list(None)
        existing = {info["name"]: info.get("options", {}) for info in listed}
        for spec in specs:
            if spec.name not in existing:
                try:
                    database.command(create_command(spec))
                except (OperationFailure, CollectionInvalid) as exc:
                    if getattr(exc, "code", None) != _NAMESPACE_EXISTS:
                        raise
            elif spec.capped_size is not None and not existing[spec.name].get("capped"):
                log.warning("collection %s exists but is not capped; leaving it as it is", spec.name)
            if spec.indexes:
                models = [IndexModel(list(index.keys), **index.options()) for index in spec.indexes]
                database[spec.name].create_indexes(models)

# GENERATED from aimon_mongo/_async/mongo/schema_check.py by scripts/gen_sync.py; do not edit.
"""The bundle's schema check (generated from the ``_async`` source): see :mod:`aimon_mongo.mongo.schema_check`.

:class:`SchemaCheck` hands the stores a *guarded* view of the database: its collections are ordinary
PyMongo collections whose writing methods (every one that can create a collection implicitly) first run
the check, once. Reads never create anything and are not guarded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from pymongo.synchronous.collection import Collection
from pymongo.synchronous.database import Database
from pymongo.errors import ConnectionFailure, OperationFailure

from aimon_mongo._sync.mongo.schema import ensure_schema
from aimon_mongo._sync_runtime import Lock
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.schema import create_command, session_schema
from aimon_mongo.mongo.schema_check import VERIFIED, missing_parts, warning_text

log = logging.getLogger("aimon_mongo.mongo.schema_check")

_NAMESPACE_EXISTS = 48


class SchemaCheck:
    """Checks (or, with ``create=True``, creates) the session schema of ``database`` before the first
    write made through :attr:`database`."""

    def __init__(self, database: Database[Any], names: MongoCollectionNames, *, create: bool) -> None:
        self._target = database
        self._names = names
        self._specs = session_schema(names)
        self._create = create
        self._done = False
        self._lock = Lock()
        self.database: Database[Any] = _GuardedDatabase(database, self)
        """The database to build the stores on: writes through it run the check first."""

    @property
    def done(self) -> bool:
        """True once the check ran (whatever it found)."""
        return self._done

    def before_write(self) -> None:
        """Run the check unless it ran already (concurrent first writes wait for one check)."""
        if self._done:
            return
        with self._lock:
            if not self._done:
                self._run()
                self._done = True

    def _run(self) -> None:
        client, name = self._target.client, self._target.name
        if (client, name, self._specs) in VERIFIED:
            return
        if self._create:
            ensure_schema(self._target, self._names)
            VERIFIED.add(client, name, self._specs)
            return
        try:
            collections, indexes = self._inspect()
        except ConnectionFailure:
            raise  # the write would fail the same way; the check runs again on the next one
        except OperationFailure as exc:  # e.g. no listCollections privilege: the write decides
            log.info("could not check the session schema of database %r: %s", name, type(exc).__name__)
            return
        missing = missing_parts(self._specs, collections, indexes)
        if not missing:
            VERIFIED.add(client, name, self._specs)
            return
        log.warning("%s", warning_text(name, missing))
        if self._names.signals not in collections:
            self._create_signals()

    def _inspect(self) -> tuple[dict[str, dict[str, Any]], dict[str, set[str]]]:
        listed = (self._target.list_collections()).to_list(None)
        collections = {info["name"]: info.get("options", {}) for info in listed}
        indexes: dict[str, set[str]] = {}
        for spec in self._specs:
            if spec.indexes and spec.name in collections:
                found = (self._target[spec.name].list_indexes()).to_list(None)
                indexes[spec.name] = {index["name"] for index in found}
        return collections, indexes

    def _create_signals(self) -> None:
        spec = next(spec for spec in self._specs if spec.name == self._names.signals)
        try:
            self._target.command(create_command(spec))
        except OperationFailure as exc:
            if exc.code != _NAMESPACE_EXISTS:
                raise
        log.warning("created the capped collection %s in database %r", spec.name, self._target.name)


class _GuardedDatabase(Database[Any]):
    """The same database (client, name, options); its collections are :class:`_GuardedCollection`."""

    def __init__(self, database: Database[Any], check: SchemaCheck) -> None:
        super().__init__(
            database.client,
            database.name,
            database.codec_options,
            database.read_preference,
            database.write_concern,
            database.read_concern,
        )
        self.aimon_schema_check = check

    def __getitem__(self, name: str) -> Collection[Any]:
        return _GuardedCollection(self, name)

    def get_collection(self, name: str, *args: Any, **kwargs: Any) -> Collection[Any]:
        return _GuardedCollection(self, name, False, *args, **kwargs)


class _GuardedCollection(Collection[Any]):
    """A collection whose writes that can create it implicitly (:data:`WRITES`) run the schema check first."""

    def _before_write(self) -> None:
        cast(_GuardedDatabase, self.database).aimon_schema_check.before_write()

    def with_options(self, *args: Any, **kwargs: Any) -> Collection[Any]:
        plain = super().with_options(*args, **kwargs)
        return _GuardedCollection(
            self.database, self.name, False, plain.codec_options, plain.read_preference, plain.write_concern,
            plain.read_concern,
        )  # fmt: skip


WRITES = (
    "insert_one",
    "insert_many",
    "replace_one",
    "update_one",
    "update_many",
    "find_one_and_replace",
    "find_one_and_update",
    "bulk_write",
)
"""The collection methods that can create a collection implicitly (an insert, or an upsert)."""


def _guarded(name: str) -> Callable[..., Any]:
    def write(self: _GuardedCollection, *args: Any, **kwargs: Any) -> Any:
        self._before_write()
        return getattr(super(_GuardedCollection, self), name)(*args, **kwargs)

    write.__name__ = write.__qualname__ = name
    return write


for _name in WRITES:
    setattr(_GuardedCollection, _name, _guarded(_name))

"""Is the session schema in place? Asked once per bundle, before its first write; cached per database.

A bundle built without ``ensure_schema=True`` never runs DDL on its own, but MongoDB creates a missing
collection implicitly on the first write to it — without its indexes (so no TTL on idempotency records),
and the signal collection uncapped, both then growing without bound. So the first write through a bundle
first compares the database with :func:`~aimon_mongo.mongo.schema.session_schema` (one
``listCollections`` and one ``listIndexes`` per indexed collection) and

* with ``ensure_schema=True`` creates whatever is missing (:func:`~aimon_mongo.mongo.ensure_schema`);
* otherwise logs one WARNING naming what is missing and the fix, and creates only the capped signal
  collection when it is missing — the one collection a write would otherwise create wrongly for good.

A database found complete is remembered for the client's lifetime (:data:`VERIFIED`), so further bundles on
it ask nothing. The I/O lives in ``_async/mongo/schema_check.py`` (and its generated sync twin).
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from aimon_mongo.mongo.schema import CollectionSpec

SHOWN = 6
"""At most this many missing parts are named in the warning (then "and N more")."""


def missing_parts(
    specs: Iterable[CollectionSpec],
    collections: Mapping[str, Mapping[str, Any]],
    indexes: Mapping[str, Collection[str]],
) -> list[str]:
    """What ``specs`` want and the database lacks: ``collections`` maps each existing collection to its
    options, ``indexes`` each existing collection to the names of its indexes."""
    missing: list[str] = []
    for spec in specs:
        if spec.name not in collections:
            missing.append(f"collection {spec.name}")
            continue
        if spec.capped_size is not None and not collections[spec.name].get("capped"):
            missing.append(f"collection {spec.name} is not capped")
        present = indexes.get(spec.name, ())
        missing.extend(f"index {spec.name}.{index.name}" for index in spec.indexes if index.name not in present)
    return missing


def warning_text(database: str, missing: Sequence[str]) -> str:
    """The WARNING a bundle logs once when the schema of ``database`` is incomplete."""
    shown = ", ".join(missing[:SHOWN]) + (f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else "")
    return (
        f"database {database!r} lacks part of the session schema ({shown}): MongoDB creates missing collections "
        "on first write without their indexes. Fix: run aimon_mongo.mongo.ensure_schema(db) once, or "
        f"'aimon-mongo --session-db {database} init-db', or db/mongodb/init.js, or build the bundle with "
        "ensure_schema=True"
    )


class VerifiedDatabases:
    """Databases (per client, per set of collection names) whose schema was found complete."""

    def __init__(self) -> None:
        self._seen: weakref.WeakKeyDictionary[Any, set[tuple[str, tuple[str, ...]]]] = weakref.WeakKeyDictionary()

    @staticmethod
    def _key(database: str, specs: Sequence[CollectionSpec]) -> tuple[str, tuple[str, ...]]:
        return database, tuple(spec.name for spec in specs)

    def __contains__(self, item: tuple[Any, str, Sequence[CollectionSpec]]) -> bool:
        client, database, specs = item
        return self._key(database, specs) in self._seen.get(client, ())

    def add(self, client: Any, database: str, specs: Sequence[CollectionSpec]) -> None:
        self._seen.setdefault(client, set()).add(self._key(database, specs))

    def forget(self, client: Any) -> None:
        """Drop what is known about ``client`` (a test that drops databases under a live client)."""
        self._seen.pop(client, None)


VERIFIED = VerifiedDatabases()
"""The process-wide cache: a complete schema is checked once per client and database."""

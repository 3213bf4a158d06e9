# GENERATED from aimon_mongo/_async/mongo/backends.py by scripts/gen_sync.py; do not edit.
"""The MongoDB bundle (generated from the ``_async`` source)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final, Self

from pymongo import MongoClient
from pymongo.synchronous.collection import Collection
from pymongo.synchronous.database import Database

from aimon_mongo import names as n
from aimon_mongo._sync.bundle import ClosingBundle
from aimon_mongo._sync.mongo.connect import open_backends
from aimon_mongo._sync.mongo.idempotency import DEFAULT_DONE_TTL, MongoIdempotencyDriver
from aimon_mongo._sync.mongo.inbox import MongoSessionInbox
from aimon_mongo._sync.mongo.leases import MongoLeaseDriver
from aimon_mongo._sync.mongo.records import MongoRecordDriver
from aimon_mongo._sync.mongo.schema_check import SchemaCheck
from aimon_mongo._sync.mongo.segments import MongoSegmentDriver
from aimon_mongo._sync.mongo.signals import MongoSessionSignalBus, WatchMode
from aimon_mongo._sync.mongo.tasks import MongoTaskDriver
from aimon_mongo._sync.ports import SessionBackends
from aimon_mongo._sync.services.idempotency import Idempotency
from aimon_mongo._sync.services.leases import LeaseStore
from aimon_mongo._sync.services.records import RecordStore
from aimon_mongo._sync.services.segments import SegmentStore
from aimon_mongo._sync.services.tasks import TaskStore
from aimon_mongo.clock import Clock, system_clock
from aimon_mongo.exported import exported_from
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.durability import MAJORITY, Durability, durable, require_durability
from aimon_mongo.validate import require_id, require_instance


@exported_from("aimon_mongo.mongo")
class MongoSessionBackends(ClosingBundle):
    """All seven MongoDB stores of one node, on one database.

    ``database`` is borrowed (``close()`` leaves its client open; :meth:`from_uri` builds a bundle that owns
    its client). The schema is not created by default: run ``ensure_schema(database)`` once, or
    ``db/mongodb/init.js``, or pass ``ensure_schema=True`` to create what is missing before the first write.
    Without it the first write checks the schema once and logs a WARNING naming what is missing (see
    :mod:`aimon_mongo.mongo.schema_check`).
    ``collection_names`` overrides collection names (a :class:`MongoCollectionNames` or a partial mapping
    of role → name); ``clock`` stamps what this node writes itself (a terminal task's ``end_time``, a
    quarantine time) — ordering and expiry use the server's clock. ``signal_mode`` forces the watcher's
    mode (default: change streams when the deployment has them, else polling every
    ``signal_poll_interval`` seconds). ``durability="majority"`` (the default) runs the leases, fences,
    inbox, records, segments and idempotency with majority write and read concern whatever the database's
    own; ``"as_configured"`` keeps the database's (a WARNING at construction when it is below majority);
    an unacknowledged database (``w=0``) is refused (:mod:`aimon_mongo.mongo.durability`).
    """

    def __init__(
        self,
        database: Database[Any],
        node_id: str,
        collection_names: MongoCollectionNames | Mapping[str, str] | None = None,
        clock: Clock | None = None,
        *,
        idempotency_done_ttl: timedelta = DEFAULT_DONE_TTL,
        signal_mode: WatchMode = "auto",
        signal_poll_interval: float = 0.05,
        ensure_schema: bool = False,
        durability: Durability = MAJORITY,
    ) -> None:
        require_instance(database, Database, "database")
        self.node_id = require_id(node_id, "node_id")
        self.durability = require_durability(durability, f"MongoDB bundle of node {node_id!r}", database.write_concern)
        self.database = database
        self.collection_names = names = MongoCollectionNames.of(collection_names)
        self._owned_client: MongoClient[Any] | None = None
        self.schema_check = SchemaCheck(database, names, create=ensure_schema)
        database = self.schema_check.database  # the stores' writes run the schema check first
        clock = clock or system_clock

        def strict(name: str) -> Collection[Any]:  # majority write + read concern (see durability.py)
            return durable(database[name], self.durability)

        fences = strict(names.fences)
        self.inbox: Final = MongoSessionInbox(strict(names.inbox), strict(names.quarantine), clock)
        self.leases: Final = LeaseStore(MongoLeaseDriver(strict(names.locks), fences))
        self.signals: Final = MongoSessionSignalBus(
            database[names.signals], self.node_id, mode=signal_mode, poll_interval=signal_poll_interval
        )
        self.idempotency: Final = Idempotency(
            MongoIdempotencyDriver(strict(names.idempotency)), idempotency_done_ttl
        )
        self.tasks: Final = TaskStore(MongoTaskDriver(database[names.tasks]), clock)
        self.records: Final = RecordStore(MongoRecordDriver(strict(names.records), fences))
        self.segments: Final = SegmentStore(MongoSegmentDriver(strict(names.segments), fences))

    @classmethod
    def from_uri(
        cls,
        uri: str | None = None,
        *,
        node_id: str,
        database: str = n.DEFAULT_SESSION_DATABASE,
        ensure_schema: bool = False,
        client_options: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Self:
        """A bundle on ``database`` of its own client, closed by :meth:`close`.

        ``uri=None`` takes ``AIMON_MONGODB_URI``, else ``MONGODB_URI``, else ``mongodb://localhost:27017``
        (:mod:`aimon_mongo.connection`). The client is ``tz_aware`` and waits at most 10 s for a server
        unless the URI or ``client_options`` set ``serverSelectionTimeoutMS``; ``options`` are the
        constructor's keyword arguments (``clock``, ``collection_names``, ``signal_mode`` ...).
        """
        return open_backends(cls, uri, node_id, database, ensure_schema, client_options, options)

    def close(self) -> None:
        """Stop the signal watcher; close the client only if :meth:`from_uri` opened it (a borrowed one
        stays open: it is the caller's)."""
        self.signals.close()
        if self._owned_client is not None:
            self._owned_client.close()


if TYPE_CHECKING:  # the bundle satisfies the contract
    _bundle: SessionBackends = MongoSessionBackends(Database.__new__(Database), "node")

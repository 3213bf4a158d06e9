"""The MongoDB schema of the session stores as data: collections (capped where the reference caps) and
every named index. ``ensure_schema`` (``_async/mongo/schema.py``) creates it; ``db/mongodb/init.js``
creates the same, and a test keeps the two equal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aimon_mongo import names as n
from aimon_mongo.mongo.collections import MongoCollectionNames


@dataclass(frozen=True)
class IndexSpec:
    name: str
    keys: tuple[tuple[str, int], ...]
    unique: bool = False
    expire_after_seconds: int | None = None
    partial_filter: dict[str, Any] | None = None

    def options(self) -> dict[str, Any]:
        """Keyword options for ``create_index`` / ``IndexModel``."""
        opts: dict[str, Any] = {"name": self.name}
        if self.unique:
            opts["unique"] = True
        if self.expire_after_seconds is not None:
            opts["expireAfterSeconds"] = self.expire_after_seconds
        if self.partial_filter is not None:
            opts["partialFilterExpression"] = self.partial_filter
        return opts


@dataclass(frozen=True)
class CollectionSpec:
    name: str
    capped_size: int | None = None
    indexes: tuple[IndexSpec, ...] = field(default_factory=tuple)


def session_schema(names: MongoCollectionNames | None = None) -> tuple[CollectionSpec, ...]:
    """Every collection and index of the session stores, in ``init.js`` order."""
    c = names or MongoCollectionNames()
    return (
        CollectionSpec(c.locks),  # never a TTL index: the fencing counter lives in these documents
        CollectionSpec(
            c.inbox,
            indexes=(
                IndexSpec(n.MONGO_IDX_INBOX_FIFO, ((n.F_CONVERSATION_ID, 1), (n.F_PRIORITY, 1), (n.F_DELIVERED_AT, 1))),
            ),
        ),
        CollectionSpec(
            c.quarantine,
            indexes=(IndexSpec(n.MONGO_IDX_QUARANTINE_CONV, ((n.F_CONVERSATION_ID, 1), (n.F_QUARANTINED_AT, 1))),),
        ),
        CollectionSpec(
            c.idempotency,
            indexes=(
                IndexSpec(n.MONGO_IDX_IDEMPOTENCY_TTL, ((n.F_EXPIRES_AT, 1),), expire_after_seconds=0),
                IndexSpec(n.MONGO_IDX_IDEMPOTENCY_STATUS_TOUCH, ((n.F_STATUS, 1), (n.F_LAST_TOUCHED_AT, 1))),
            ),
        ),
        CollectionSpec(c.signals, capped_size=n.MONGO_SIGNALS_CAPPED_SIZE),
        CollectionSpec(
            c.tasks,
            indexes=(
                IndexSpec(n.MONGO_IDX_TASK_STATE, ((n.F_STATE, 1),)),
                IndexSpec(n.MONGO_IDX_TASK_CONTEXT, ((n.F_CONTEXT_ID, 1),)),
            ),
        ),
        CollectionSpec(c.scheduled_task_interrupts, capped_size=n.MONGO_SCHEDULED_TASK_INTERRUPTS_CAPPED_SIZE),
        CollectionSpec(c.records),
        CollectionSpec(c.segments, indexes=(IndexSpec(n.MONGO_IDX_SEGMENT_SESSION, ((n.F_SESSION_ID, 1),)),)),
        CollectionSpec(c.fences),
        *langgraph_schema(),
    )


def langgraph_schema() -> tuple[CollectionSpec, ...]:
    """The LangGraph checkpoint saver's collections (``aimon_mongo.langgraph``; fixed names)."""
    return (
        CollectionSpec(
            n.LG_CHECKPOINTS,
            indexes=(
                IndexSpec(
                    n.LG_IDX_CHECKPOINT,
                    ((n.LG_F_THREAD_ID, 1), (n.LG_F_CHECKPOINT_NS, 1), (n.LG_F_CHECKPOINT_ID, -1)),
                ),  # not unique: the _id (documents.checkpoint_key) is the identity
                IndexSpec(
                    n.LG_IDX_VALUE_KEY,
                    ((n.LG_F_THREAD_ID, 1), (n.LG_F_CHECKPOINT_NS, 1), (f"{n.LG_F_VALUES}.{n.LG_F_KEY}", 1)),
                ),
                IndexSpec(n.LG_IDX_RUN_ID, ((n.LG_F_RUN_ID, 1),), partial_filter={n.LG_F_RUN_ID: {"$exists": True}}),
            ),
        ),
        CollectionSpec(
            n.LG_THREADS,
            indexes=(
                IndexSpec(n.LG_IDX_THREAD_EXPIRES, ((n.LG_F_EXPIRES_AT, 1),)),
                IndexSpec(n.LG_IDX_THREAD_PURGE, ((n.LG_F_PURGE_AT, 1),), expire_after_seconds=0),
            ),
        ),
        CollectionSpec(
            f"{n.LG_VALUES_BUCKET}.{n.GRIDFS_FILES_SUFFIX}",
            indexes=(IndexSpec(n.LG_IDX_VALUES_THREAD, ((f"{n.GRIDFS_METADATA}.{n.LG_META_THREAD_ID}", 1),)),),
        ),
        CollectionSpec(
            f"{n.LG_VALUES_BUCKET}.{n.GRIDFS_CHUNKS_SUFFIX}",
            indexes=(IndexSpec(n.LG_IDX_VALUES_CHUNKS, ((n.GRIDFS_FILES_ID, 1), (n.GRIDFS_N, 1)), unique=True),),
        ),
    )


def create_command(spec: CollectionSpec) -> dict[str, Any]:
    """The ``create`` command of a collection (PyMongo's ``create_collection`` is not used: the stand-in
    refuses its capped form)."""
    command: dict[str, Any] = {"create": spec.name}
    if spec.capped_size is not None:
        command.update(capped=True, size=spec.capped_size)
    return command

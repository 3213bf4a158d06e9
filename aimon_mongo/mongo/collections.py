"""Which collection holds what (defaults per ``db/mongodb/init.js``; overridable per bundle)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError


@dataclass(frozen=True)
class MongoCollectionNames:
    """Collection names of the MongoDB session stores. Overriding one means editing ``init.js`` too."""

    locks: str = n.MONGO_LOCKS
    inbox: str = n.MONGO_INBOX
    quarantine: str = n.MONGO_INBOX_QUARANTINE
    idempotency: str = n.MONGO_IDEMPOTENCY
    signals: str = n.MONGO_SIGNALS
    tasks: str = n.MONGO_BACKGROUND_TASKS
    scheduled_task_interrupts: str = n.MONGO_SCHEDULED_TASK_INTERRUPTS
    records: str = n.MONGO_SESSION_RECORDS
    segments: str = n.MONGO_SESSION_LOG_SEGMENTS
    fences: str = n.MONGO_SESSION_FENCES

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, str) or not value or value.startswith(("$", "system.")) or "\x00" in value:
                raise InvalidArgumentError(f"collection name for {f.name!r} is not usable: {value!r}")

    @classmethod
    def of(cls, overrides: MongoCollectionNames | Mapping[str, str] | None) -> MongoCollectionNames:
        """The defaults, or ``overrides`` (a full :class:`MongoCollectionNames` or a partial mapping)."""
        if overrides is None:
            return cls()
        if isinstance(overrides, MongoCollectionNames):
            return overrides
        if not isinstance(overrides, Mapping):
            raise InvalidArgumentError(f"collection_names must be a mapping, got {type(overrides).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InvalidArgumentError(f"unknown collection roles {unknown}; known: {sorted(known)}")
        return replace(cls(), **dict(overrides))

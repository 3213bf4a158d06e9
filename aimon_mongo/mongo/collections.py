"""Which collection holds what (defaults per ``db/mongodb/init.js``; overridable per bundle)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.name_set import NameSet


@dataclass(frozen=True)
class MongoCollectionNames(NameSet):
    """Collection names of the MongoDB session stores. Overriding one means editing ``init.js`` too;
    :meth:`~aimon_mongo.name_set.NameSet.of` takes a partial mapping of role → name."""

    what: ClassVar[str] = "collection name"
    argument: ClassVar[str] = "collection_names"

    locks: str = n.MONGO_LOCKS
    """Leases: one document per session, its holder, expiry and fencing token."""
    inbox: str = n.MONGO_INBOX
    """Inbox entries waiting to be collected."""
    quarantine: str = n.MONGO_INBOX_QUARANTINE
    """Inbox entries that could not be decoded, with their raw document."""
    idempotency: str = n.MONGO_IDEMPOTENCY
    signals: str = n.MONGO_SIGNALS
    """Capped: cross-node signals."""
    tasks: str = n.MONGO_BACKGROUND_TASKS
    scheduled_task_interrupts: str = n.MONGO_SCHEDULED_TASK_INTERRUPTS
    """Capped: created with the schema for the reference's scheduler; this build writes none."""
    records: str = n.MONGO_SESSION_RECORDS
    segments: str = n.MONGO_SESSION_LOG_SEGMENTS
    fences: str = n.MONGO_SESSION_FENCES
    """The highest fencing token accepted per session for record and segment writes."""

    def check(self, role: str, value: str) -> None:
        if value.startswith(("$", "system.")):
            raise InvalidArgumentError(f"{self.what} for {role!r} is not usable: {value!r}")

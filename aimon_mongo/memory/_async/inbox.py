"""The in-memory inbox store (async flavour; the sync twin is generated)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from aimon_mongo.errors import SessionInboxError
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import (
    CollectedBatch,
    InboundMessage,
    Priority,
)
from aimon_mongo.model.record import (
    QuarantinedEntry,
)
from aimon_mongo.validate import (
    optional_id,
    require_id,
    require_instance,
    require_limit,
    require_message,
    require_messages,
)

log = logging.getLogger(__name__)


class AsyncMemorySessionInbox:
    """Entries are kept as objects, so none is ever unreadable: the quarantine stays empty."""

    batch_limit: int | None = None
    """No batch bound: ``collect`` returns every eligible entry."""

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.inbox

    async def deliver(self, message: InboundMessage) -> str:
        return self._table.deliver(require_message(message))

    async def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        return self._table.deliver_many(require_messages(messages))

    async def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        require_id(session_id, "session_id")
        require_instance(max_priority, Priority, "max_priority")
        return self._table.take(session_id, max_priority, None, remove=True)

    async def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        require_id(session_id, "session_id")
        return self._table.take(session_id, Priority.LATER, require_limit(limit), remove=False)

    async def is_empty(self, session_id: str) -> bool:
        return self._table.is_empty(require_id(session_id, "session_id"))

    async def purge(self, session_id: str) -> None:
        self._table.purge(require_id(session_id, "session_id"))

    async def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        optional_id(session_id, "session_id")
        require_limit(limit)
        return []

    async def replay_quarantined(self, quarantine_id: str, raw: Any = None) -> str:
        require_id(quarantine_id, "quarantine_id")
        raise SessionInboxError(f"no quarantined entry {quarantine_id!r}")

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        require_id(quarantine_id, "quarantine_id")
        return False

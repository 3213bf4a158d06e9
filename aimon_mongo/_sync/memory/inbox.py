# GENERATED from aimon_mongo/_async/memory/inbox.py by scripts/gen_sync.py; do not edit.
"""The in-memory inbox (generated from the ``_async`` source): the inbox service over an
:class:`~aimon_mongo.memory.inbox_table.InboxTable`. Entries are kept as objects, so none is ever
unreadable; the quarantine keeps the entries a claim handed out too often or a caller moved there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aimon_mongo._sync.services.inbox import Inbox, Claimed, Triage, handed_out
from aimon_mongo.errors import CodecError
from aimon_mongo.exported import exported_from
from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model import InboundMessage, Priority, UnreadableEntry
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures, no_failures


@exported_from("aimon_mongo.memory")
class MemoryInboxDriver:
    """The table's calls; each runs under the storage lock."""

    failures: Failures = no_failures
    batch_limit: int | None = None
    """No batch bound: ``collect`` returns every eligible entry."""
    quarantines_in_take = False
    takes_in_order = True

    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.inbox

    def __repr__(self) -> str:
        return located(self)

    def encode(self, message: InboundMessage) -> InboundMessage:
        return message

    def decode(self, raw: InboundMessage, session_id: str) -> InboundMessage | UnreadableEntry:
        return raw

    def decode_replay(self, kept: InboundMessage, repaired: Any, quarantine_id: str) -> InboundMessage:
        """``repaired`` (an :class:`InboundMessage`) when given, else the kept message object."""
        if repaired is None:
            return kept
        if isinstance(repaired, InboundMessage):
            return repaired
        raise CodecError(
            f"a repaired form of quarantined entry {quarantine_id!r} must be an InboundMessage in the in-memory "
            f"inbox, got {type(repaired).__name__}"
        )

    def append(self, entries: Sequence[tuple[InboundMessage, InboundMessage]]) -> list[str]:
        return self._table.deliver_many([message for message, _ in entries])

    def take(self, session_id: str, ceiling: Priority, triage: Triage[InboundMessage]) -> list[InboundMessage]:
        return self._table.take(session_id, ceiling, None, remove=True)

    def quarantine(self, session_id: str, entries: Sequence[tuple[InboundMessage, UnreadableEntry]]) -> None:
        return None  # never called: nothing is unreadable

    def peek(self, session_id: str, limit: int) -> list[InboundMessage]:
        return self._table.take(session_id, Priority.LATER, limit, remove=False)

    def is_empty(self, session_id: str) -> bool:
        return self._table.is_empty(session_id)

    def purge(self, session_id: str) -> None:
        self._table.purge(session_id)

    def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        return self._table.list_quarantined(session_id, limit)

    def find_quarantined(self, quarantine_id: str) -> InboundMessage | None:
        return self._table.find_quarantined(quarantine_id)

    def restore(self, quarantine_id: str, message: InboundMessage, encoded: InboundMessage) -> str | None:
        return self._table.restore(quarantine_id, message)

    def delete_quarantined(self, quarantine_id: str) -> bool:
        return self._table.delete_quarantined(quarantine_id)

    def claim(
        self, session_id: str, token: int, ceiling: Priority, limit: int, max_attempts: int
    ) -> Claimed[InboundMessage]:
        handed, exhausted = self._table.claim(session_id, token, ceiling, limit, max_attempts, handed_out)
        return Claimed(handed, exhausted)

    def acknowledge(self, session_id: str, token: int, entry_ids: Sequence[str]) -> int:
        return self._table.acknowledge(session_id, token, list(entry_ids))

    def move_to_quarantine(self, session_id: str, reasons: Sequence[tuple[str, str]]) -> list[str]:
        return self._table.quarantine(session_id, list(reasons))

    def sessions_with_entries(self, after: str | None, limit: int) -> list[str]:
        return self._table.sessions_with_entries(after, limit)


@exported_from("aimon_mongo.memory")
def MemorySessionInbox(storage: MemoryStorage) -> Inbox[InboundMessage, InboundMessage, InboundMessage]:
    """Entries are kept as objects, so none is ever unreadable; the quarantine keeps message objects.

    A factory: the :class:`~aimon_mongo.services.Inbox` service over :class:`MemoryInboxDriver`."""
    return Inbox(MemoryInboxDriver(storage))

"""What one ``collect`` call returns."""

from __future__ import annotations

from aimon_mongo.model._base import Frozen
from aimon_mongo.model.inbound import InboundMessage


class UnreadableEntry(Frozen):
    """An inbox entry that was removed from storage but could not be decoded.

    ``id`` is the backend entry id (``"unknown"`` when even that is unreadable); ``turn_id`` and
    ``idempotency_key`` are recovered leniently so the caller can fail the right turn; ``reason`` names
    the failure, never the payload.
    """

    id: str
    turn_id: str | None = None
    idempotency_key: str | None = None
    reason: str

    @property
    def is_addressable(self) -> bool:
        return self.turn_id is not None or self.idempotency_key is not None


class CollectedBatch(Frozen):
    """Decoded messages in (priority, FIFO) order plus the entries that could not be decoded."""

    messages: tuple[InboundMessage, ...] = ()
    unreadable: tuple[UnreadableEntry, ...] = ()

    def is_empty(self) -> bool:
        return not self.messages and not self.unreadable

    def __len__(self) -> int:
        return len(self.messages) + len(self.unreadable)

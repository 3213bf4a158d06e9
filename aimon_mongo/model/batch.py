"""What one ``collect`` call returns."""

from __future__ import annotations

from pydantic import Field

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


class ClaimedBatch(Frozen):
    """What one ``claim`` hands out under ``fencing_token``: the messages in (priority, FIFO) order, each
    still stored (claimed) until it is acknowledged under the same token.

    ``attempts`` maps each message id to its hand-out count (1 = first hand-out); ``unreadable`` are the
    entries that could not be decoded (moved to the quarantine); ``quarantined`` the ids this claim moved
    to the quarantine because they had been handed out ``max_attempts`` times already.
    """

    messages: list[InboundMessage] = Field(default_factory=list)
    attempts: dict[str, int] = Field(default_factory=dict)
    unreadable: list[UnreadableEntry] = Field(default_factory=list)
    quarantined: list[str] = Field(default_factory=list)
    fencing_token: int

    @property
    def attempt(self) -> int:
        """The highest attempt number in the batch (0 when it hands out nothing)."""
        return max(self.attempts.values(), default=0)

    def is_empty(self) -> bool:
        return not self.messages and not self.unreadable

    def __len__(self) -> int:
        return len(self.messages) + len(self.unreadable)


class SessionPage(Frozen):
    """One page of the sessions that have waiting or claimed inbox entries, in ascending id order;
    ``next_after`` is the cursor of the next page (``None``: this was the last)."""

    session_ids: list[str] = Field(default_factory=list)
    next_after: str | None = None

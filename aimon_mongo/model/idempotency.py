"""Idempotency records: client-key de-duplication and holder-loss detection."""

from __future__ import annotations

from enum import StrEnum

from aimon_mongo.model._base import Frozen, NonBlankStr, UtcDatetime


class IdempotencyStatus(StrEnum):
    IN_FLIGHT = "IN_FLIGHT"
    DONE = "DONE"


class CompletionReason(StrEnum):
    """Terminal cause of an agent execution (enum names are stored)."""

    COMPLETED = "COMPLETED"
    MAX_ITERATIONS = "MAX_ITERATIONS"
    TOKEN_BUDGET_EXCEEDED = "TOKEN_BUDGET_EXCEEDED"
    COST_BUDGET_EXCEEDED = "COST_BUDGET_EXCEEDED"
    WALL_CLOCK_EXCEEDED = "WALL_CLOCK_EXCEEDED"
    ABORTED = "ABORTED"
    INTERRUPTED = "INTERRUPTED"
    SUSPENDED = "SUSPENDED"
    TRUNCATED = "TRUNCATED"
    ERROR = "ERROR"

    @classmethod
    def coarse(cls, success: bool) -> CompletionReason:
        """What an unknown or absent stored name decodes to (rolling-upgrade tolerance)."""
        return cls.COMPLETED if success else cls.ERROR


class TurnResult(Frozen):
    """The persisted projection of a turn's result (artifacts are never persisted)."""

    success: bool
    final_answer: str | None = None
    error_message: str | None = None
    completion_reason: CompletionReason
    was_streamed: bool = False


class IdempotencyEntry(Frozen):
    """``IN_FLIGHT`` + holder: a turn runs on that holder now; ``IN_FLIGHT`` without holder: reserved,
    waiting in an inbox (never stale); ``DONE``: finished, ``result`` cached."""

    key: NonBlankStr
    session_id: NonBlankStr
    input_hash: str
    status: IdempotencyStatus
    holder_id: str | None = None
    result: TurnResult | None = None
    created_at: UtcDatetime
    last_touched_at: UtcDatetime


class PutOutcome(StrEnum):
    INSERTED = "INSERTED"
    EXISTING = "EXISTING"


class PutResult(Frozen):
    """Result of ``put_if_absent``: ``INSERTED`` or ``EXISTING`` with the entry that was there."""

    outcome: PutOutcome
    existing: IdempotencyEntry | None = None

    @property
    def inserted(self) -> bool:
        return self.outcome is PutOutcome.INSERTED

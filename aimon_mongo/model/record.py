"""Session records, log segments, quarantined inbox entries."""

from __future__ import annotations

from typing import Any

from pydantic import Field, JsonValue

from aimon_mongo.model._base import Frozen, NonBlankStr, UtcDatetime


class SessionTotals(Frozen):
    """Absolute accumulated totals of a session (stored keys: turnCount, iterations, promptTokens,
    completionTokens, totalTokens, reasoningTokens)."""

    turn_count: int = 0
    iterations: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0


class SessionRecord(Frozen):
    """A session's record: the encoded transcript plus four side fields owned by other writers.

    ``transcript`` is the encoded transcript text (``None`` until the first merge); ``agent_ref`` the
    agent binding (set once, never overwritten by ``provision``); ``budget_override`` an opaque JSON
    object or ``None``. Absent stored fields read as these defaults.
    """

    session_id: NonBlankStr
    transcript: str | None = None
    agent_ref: str | None = None
    compaction_failure_count: int = 0
    session_totals: SessionTotals | None = None
    budget_override: dict[str, JsonValue] | None = None
    updated_at: UtcDatetime | None = None


class LogSegment(Frozen):
    """An immutable sealed range of a session log; ``payload`` is the encoded entry list."""

    session_id: NonBlankStr
    segment_id: NonBlankStr
    from_seq: int = Field(ge=0)
    to_seq: int
    entry_count: int = Field(ge=1)
    payload: str
    created_at: UtcDatetime


class SegmentInfo(Frozen):
    """Id and creation time of a stored segment (what garbage collection needs)."""

    segment_id: str
    created_at: UtcDatetime


class SegmentScanPage(Frozen):
    """One page of a store-wide scan for sessions with segments created before a cutoff.

    ``next_cursor`` is opaque; ``None`` means the scan is complete. A page may over-report or repeat a
    session, never miss one.
    """

    session_ids: tuple[str, ...]
    next_cursor: str | None = None


class QuarantinedEntry(Frozen):
    """An inbox entry that could not be decoded, kept with its raw stored form.

    ``raw`` is what the backend stored: a BSON document as a dict (MongoDB), the envelope text (Redis,
    PostgreSQL). ``entry_id`` is the entry's id in the inbox it came from.
    """

    id: str
    session_id: str
    entry_id: str
    error: str
    raw: Any
    quarantined_at: UtcDatetime

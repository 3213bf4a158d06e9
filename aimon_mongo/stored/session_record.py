"""Session records: the transcript plus four side fields.

MongoDB writes fields partially (an absent field reads as its default); ``updatedAt`` is server time on
every write. ``transcript`` is text written by the shared record codec (declared here as text only);
``budgetOverride`` is an opaque JSON object.
PostgreSQL keeps ``transcript`` as ``text`` (``jsonb`` rejects NUL characters).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, NotRequired, TypedDict

from aimon_mongo.stored.declare import (
    BsonDate,
    Family,
    Int32,
    Int64,
    Jsonb,
    PgInteger,
    PgText,
    PgTimestamptz,
    body,
    root,
)

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("session-record", FORMAT_VERSION)


@body
class SessionTotalsJson(TypedDict):
    """Absolute accumulated totals (the same keys as the ``STATUS`` signal's ``totals``)."""

    turnCount: int
    iterations: int
    promptTokens: int
    completionTokens: int
    totalTokens: int
    reasoningTokens: int


@root("mongo.session-record.document", FAMILY)
class MongoSessionRecordDocument(TypedDict):
    """A document of ``session_records``."""

    _id: str
    transcript: NotRequired[str]
    agentRef: NotRequired[str]
    compactionFailureCount: NotRequired[Int32]
    sessionTotals: NotRequired[SessionTotalsJson]
    budgetOverride: NotRequired[dict[str, Any]]
    updatedAt: BsonDate
    fencingToken: NotRequired[Int64]  # ours: the highest fencing token that wrote this record


@root("mongo.session-fence.document", FAMILY)
class MongoSessionFenceDocument(TypedDict):
    """Ours: a document of ``session_fences``, the highest fencing token accepted for the session's
    record and log-segment writes."""

    _id: str
    highestToken: Int64


@root("postgres.session-record.row", FAMILY)
class PostgresSessionRecordRow(TypedDict):
    """A row of ``session_record``."""

    session_id: PgText
    transcript: PgText | None
    agent_ref: PgText | None
    compaction_failure_count: PgInteger
    session_totals: Annotated[object, Jsonb(SessionTotalsJson)] | None
    budget_override: Annotated[object, Jsonb(dict[str, Any])] | None
    updated_at: PgTimestamptz

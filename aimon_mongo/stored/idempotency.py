"""Idempotency entries, per backend, with the persisted turn-result projection.

Redis stores the entry as one JSON string with every key always present, in a fixed order (its Lua
scripts match substrings such as ``"holderId":null``; the order is pinned by freeze tests, not here).
MongoDB may hold ``holderId`` as a string, an explicit null, or not at all (after ``releaseHolder``).
"""

from __future__ import annotations

from typing import Annotated, Final, NotRequired, TypedDict

from aimon_mongo.model.idempotency import CompletionReason, IdempotencyStatus
from aimon_mongo.stored.declare import BsonDate, Family, Instant, Int64, Jsonb, PgText, PgTimestamptz, root

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("idempotency", FORMAT_VERSION)


class TurnResultJson(TypedDict):
    """``{success, finalAnswer, errorMessage, completionReason, wasStreamed}`` (artifacts never stored)."""

    success: bool
    finalAnswer: str | None
    errorMessage: str | None
    completionReason: CompletionReason
    wasStreamed: bool


@root("mongo.idempotency.document", FAMILY)
class MongoIdempotencyDocument(TypedDict):
    """A document of ``idempotency_entries`` (``expiresAt`` drives the TTL index)."""

    _id: str
    conversationId: str
    inputHash: str
    status: IdempotencyStatus
    holderId: NotRequired[str | None]
    createdAt: BsonDate
    lastTouchedAt: BsonDate
    expiresAt: BsonDate
    result: TurnResultJson | None
    ttlMillis: NotRequired[Int64]  # ours: the span ``touch`` re-arms (absent in documents of the reference)


@root("redis.idempotency.value", FAMILY)
class RedisIdempotencyValue(TypedDict):
    """The JSON string under ``aimon:conv:idem:<key>`` (PX TTL); ``ttlMillis`` re-arms ``touch``."""

    key: str
    conversationId: str
    inputHash: str
    status: IdempotencyStatus
    holderId: str | None
    createdAt: Instant
    lastTouchedAt: Instant
    ttlMillis: int
    result: TurnResultJson | None


@root("postgres.idempotency.row", FAMILY)
class PostgresIdempotencyRow(TypedDict):
    """A row of ``idempotency_entry``."""

    key: PgText
    conversation_id: PgText
    input_hash: PgText
    status: IdempotencyStatus
    holder_id: PgText | None
    result_blob: Annotated[object, Jsonb(TurnResultJson)] | None
    created_at: PgTimestamptz
    last_touched_at: PgTimestamptz
    expires_at: PgTimestamptz

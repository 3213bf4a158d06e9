"""The inbox: the JSON envelope (Redis stream field ``p``, PostgreSQL ``payload``) and the MongoDB document.

``userInput`` is always a *string* (the ``as_text()`` rendering); ``userInputEncoded`` is written only for
non-text input — a JSON object in the envelope, the same JSON as *text* in MongoDB. The envelope's
``priority`` is the tier name; MongoDB and PostgreSQL store the ordinal. The inbox entry id is never in
the envelope (it is the stream entry id, the row id, the document ``_id``).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, NotRequired, TypedDict

from bson import ObjectId

from aimon_mongo.stored.declare import (
    BsonDate,
    Family,
    Instant,
    Int32,
    Int64,
    Jsonb,
    JsonText,
    PgBigint,
    PgInteger,
    PgText,
    PgTimestamptz,
    body,
    root,
)

from ._common import Principal
from .submit_options import SubmitOptionsJson
from .user_input import UserInputJson

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("inbox", FORMAT_VERSION)

PriorityName = Literal["NOW", "NEXT", "LATER"]
PriorityOrdinal = Literal[0, 1, 2]


@root("inbox.json-envelope", FAMILY)
@body
class InboxEnvelopeJson(TypedDict):
    conversationId: str
    agentRef: str
    userInput: str
    userInputEncoded: NotRequired[UserInputJson]
    priority: PriorityName
    turnId: NotRequired[str]
    contextDiscriminator: NotRequired[str]
    idempotencyKey: NotRequired[str]
    initiator: Principal
    deliveredAt: Instant
    metadata: dict[str, str]
    submitOptions: NotRequired[SubmitOptionsJson]


@root("redis.inbox.stream-entry", FAMILY)
class RedisInboxStreamEntry(TypedDict):
    """One entry of ``aimon:inbox:<session>:<PRIORITY>``: a single field ``p``."""

    p: Annotated[str, JsonText(InboxEnvelopeJson)]


@root("postgres.inbox.row", FAMILY)
class PostgresInboxRow(TypedDict):
    """A row of ``conversation_inbox``. The ``claim_*`` columns are ours (``V6``, additive; absent before it):
    the token of the claim that last handed the row out (NULL: never claimed), how many claims did, and
    when the last one did."""

    id: PgBigint
    conversation_id: PgText
    agent_ref: PgText
    priority: PriorityOrdinal
    payload: Annotated[object, Jsonb(InboxEnvelopeJson)]
    delivered_at: PgTimestamptz
    claim_token: NotRequired[PgBigint | None]
    claim_attempts: NotRequired[PgInteger]
    claimed_at: NotRequired[PgTimestamptz | None]


@root("mongo.inbox.payload", FAMILY)
@body
class MongoInboxPayload(TypedDict):
    """The ``payload`` subdocument: no session id, no priority; absent optionals are explicit nulls."""

    agentRef: str
    contextDiscriminator: str | None
    userInput: str
    userInputEncoded: NotRequired[Annotated[str, JsonText(UserInputJson)]]
    turnId: str | None
    idempotencyKey: str | None
    initiator: Principal
    deliveredAt: BsonDate
    metadata: dict[str, str]
    submitOptions: NotRequired[SubmitOptionsJson]


@root("mongo.inbox.document", FAMILY)
class MongoInboxDocument(TypedDict):
    """A document of ``conversation_inbox``; the top-level ``deliveredAt`` is server time (FIFO order). The
    ``claim*`` fields are ours (additive, written by ``claim`` only): the token of the claim that last
    handed the entry out, how many claims did, and the server time of the last one."""

    _id: ObjectId
    conversationId: str
    priority: PriorityOrdinal
    deliveredAt: BsonDate
    payload: MongoInboxPayload
    claimToken: NotRequired[Int64]
    claimAttempts: NotRequired[Int32]
    claimedAt: NotRequired[BsonDate]


@root("mongo.inbox.quarantine-document", FAMILY)
class MongoInboxQuarantineDocument(TypedDict):
    """Ours: a document of ``conversation_inbox_quarantine``: an inbox document that could not be decoded,
    kept as it was stored (any shape) for inspection and replay."""

    _id: ObjectId
    rawDocument: dict[str, Any]
    error: str
    conversationId: str
    quarantinedAt: BsonDate

"""The conversation lease ("the lock") with its fencing token, per backend.

MongoDB keeps one document per session forever (release expires it in place) so the token survives;
Redis keeps the stamp ``"<holderId>:<token>"`` under ``aimon:conv:lock:<id>`` (PX TTL) and the counter
under ``aimon:conv:lock:fence:<id>``; PostgreSQL keeps the counter in its own table.
"""

from __future__ import annotations

from typing import Annotated, Final, TypedDict

from aimon_mongo.stored.declare import (
    BsonDate,
    Family,
    Format,
    Int64,
    PgBigint,
    PgBoolean,
    PgText,
    PgTimestamptz,
    StoredRoot,
    root,
)

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("lease", FORMAT_VERSION)


@root("mongo.lease.document", FAMILY)
class MongoLeaseDocument(TypedDict):
    """A document of ``conversation_locks``; ``holderId`` is null after release."""

    _id: str
    holderId: str | None
    fencingToken: Int64
    leaseExpiresAt: BsonDate
    acquiredAt: BsonDate


REDIS_LEASE_VALUE: Final = StoredRoot("redis.lease.value", FAMILY, Annotated[str, Format("holder-token")])


@root("postgres.lease.row", FAMILY)
class PostgresLeaseRow(TypedDict):
    """A row of ``conversation_lock``."""

    conversation_id: PgText
    holder_id: PgText
    fencing_token: PgBigint
    acquired_at: PgTimestamptz
    lease_expires_at: PgTimestamptz


@root("postgres.lease.fence-row", FAMILY)
class PostgresLeaseFenceRow(TypedDict):
    """A row of ``conversation_lock_fence``: the next token to issue."""

    conversation_id: PgText
    next_token: PgBigint


@root("postgres.lease.token-floor-row", FAMILY)
class PostgresTokenFloorRow(TypedDict):
    """Ours: the one row of ``aimon_token_floor``, the highest token any swept fence row had issued or
    accepted; every new ``conversation_lock_fence`` row starts above it (trigger ``aimon_lock_fence_floor``)."""

    id: PgBoolean
    highest_swept: PgBigint

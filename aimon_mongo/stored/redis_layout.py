"""Redis-only stored shapes (keys of ``aimon_mongo/redis/keys.py``), in the families they belong to.

The Redis forms of the shared codecs (envelope, lease stamp, idempotency value, task value, signal) are
declared in their families' modules; this module declares what only the Redis backend writes: the
session-record hash and its write fence, the two segment hashes, the fencing counter of the lease and
the quarantine stream and the claims hash of the inbox. Redis hash fields and String values are bytes on
the wire; text is declared as ``str``.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, NotRequired, TypedDict

from aimon_mongo.stored.declare import Format, Instant, JsonText, StoredRoot, root

from .inbox import FAMILY as INBOX
from .lease import FAMILY as LEASE
from .log_segment import FAMILY as LOG_SEGMENT
from .session_record import FAMILY as SESSION_RECORD
from .session_record import SessionTotalsJson
from .snapshot_document import SegmentPayloadJson


@root("redis.session-record.hash", SESSION_RECORD)
class RedisSessionRecordHash(TypedDict):
    """The hash ``aimon:session:record:<id>``; ``sessionId`` is the sentinel that makes it exist, absent
    fields read as their defaults. ``updatedAt`` is ours (additive; reference-build records lack it)."""

    sessionId: str
    transcript: NotRequired[str]
    agentRef: NotRequired[str]
    compactionFailureCount: NotRequired[str]  # decimal integer text (HINCRBY)
    sessionTotals: NotRequired[Annotated[str, JsonText(SessionTotalsJson)]]
    budgetOverride: NotRequired[Annotated[str, JsonText(dict[str, Any])]]
    updatedAt: NotRequired[Instant]


REDIS_SESSION_WRITE_FENCE: Final = StoredRoot("redis.session-record.write-fence", SESSION_RECORD, str)
"""``aimon:session:fence:{s:<id>}``: the highest fencing token accepted by record and segment writes
(decimal integer text, never expires)."""


class RedisLogSegmentJson(TypedDict):
    """A value of the hash ``aimon:session:segment:{s:<id>}:data`` (field = segment id)."""

    sessionId: str
    segmentId: str
    fromSeq: int
    toSeq: int
    entryCount: int
    payload: Annotated[str, JsonText(SegmentPayloadJson)]
    createdAt: Instant


REDIS_LOG_SEGMENT_DATA: Final = StoredRoot(
    "redis.log-segment.data-value", LOG_SEGMENT, Annotated[str, JsonText(RedisLogSegmentJson)]
)
REDIS_LOG_SEGMENT_CREATED: Final = StoredRoot("redis.log-segment.created-value", LOG_SEGMENT, str)
"""A value of ``aimon:session:segment:{s:<id>}:created`` (field = segment id): epoch milliseconds."""

REDIS_LEASE_FENCE_COUNTER: Final = StoredRoot("redis.lease.fence-counter", LEASE, str)
"""``aimon:conv:lock:fence:<id>``: the last issued fencing token (decimal text, never expires): ours set it to
``max(counter + 1, TIME ms x 1024)``, reference nodes ``INCR`` it."""


@root("redis.inbox.quarantine-entry", INBOX)
class RedisInboxQuarantineEntry(TypedDict):
    """An entry of ``aimon:inbox:<id>:quarantine``: the raw ``p`` of an entry that could not be decoded
    (bytes as stored, not necessarily text), its id in the inbox stream and the reason."""

    p: str | bytes
    entryId: str
    error: str


REDIS_INBOX_CLAIMS: Final = StoredRoot(
    "redis.inbox.claims-hash", INBOX, dict[str, Annotated[str, Format("token-attempts")]]
)
"""Ours: the hash ``aimon:inbox:<id>:claims`` of a session's claimed entries (acknowledged delivery): field
``<tier>:<stream id>`` (``NOW:1767225600000-0``), value ``<fencing token>:<attempts>``. Stream entries are
never changed, so a build that knows no claims reads and removes claimed entries as any other."""

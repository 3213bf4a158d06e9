"""Sealed session-log segments: an immutable entry list per (session, segment id).

The payload is the text of the snapshot codec's segment payload (``snapshot.segment-payload``); the
record's manifest line carries its ``sha256:`` content hash, computed over that text as written. The
fact sheet gives no BSON widths for the numbers; they follow the Java types (``long`` seqs, ``int``
count).
"""

from __future__ import annotations

from typing import Annotated, Final, NotRequired, TypedDict

from aimon_mongo.stored.declare import (
    BsonDate,
    Family,
    Int32,
    Int64,
    JsonText,
    PgBigint,
    PgInteger,
    PgText,
    PgTimestamptz,
    root,
)

from .snapshot_document import SegmentPayloadJson

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("log-segment", FORMAT_VERSION)


class SegmentKey(TypedDict):
    sessionId: str
    segmentId: str


@root("mongo.log-segment.document", FAMILY)
class MongoLogSegmentDocument(TypedDict):
    """A document of ``session_log_segments`` (``_id`` = ``{sessionId, segmentId}``)."""

    _id: SegmentKey
    sessionId: str
    segmentId: str
    fromSeq: Int64
    toSeq: Int64
    entryCount: Int32
    payload: Annotated[str, JsonText(SegmentPayloadJson)]
    createdAt: BsonDate
    fencingToken: NotRequired[Int64]  # ours: the fencing token of the writer


@root("postgres.log-segment.row", FAMILY)
class PostgresLogSegmentRow(TypedDict):
    """A row of ``session_log_segment`` (primary key ``(session_id, segment_id)``)."""

    session_id: PgText
    segment_id: PgText
    from_seq: PgBigint
    to_seq: PgBigint
    entry_count: PgInteger
    payload: Annotated[str, JsonText(SegmentPayloadJson)]
    created_at: PgTimestamptz

"""Redis-specific stored layouts on top of the shared codecs (pure; no I/O).

* Session record hash ``<records>:<id>``: ``sessionId`` (the sentinel that makes the hash exist),
  ``transcript``, ``agentRef``, ``compactionFailureCount`` (decimal text), ``sessionTotals`` (totals JSON),
  ``budgetOverride`` (JSON object text), and ours, additive: ``updatedAt`` (ISO-8601 instant).
* Segment hashes ``<segments>:{s:<id>}:data`` (segment id → JSON ``{sessionId, segmentId, fromSeq, toSeq,
  entryCount, payload, createdAt}``) and ``…:created`` (segment id → epoch millis, what GC scans).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.codec.stored_fields import instant, integer, json_object, parse_json_object, required_id, required_str
from aimon_mongo.codec.totals import totals_from_json
from aimon_mongo.errors import CodecError
from aimon_mongo.model.record import LogSegment, SessionRecord
from aimon_mongo.redis.replies import text


def record_from_hash(session_id: str, fields: Mapping[str, bytes]) -> SessionRecord:
    """Read a record hash (``HGETALL`` reply as a dict); absent fields read as their defaults."""

    def field(name: str) -> str | None:
        raw = fields.get(name)
        return None if raw is None else text(raw, f"record field '{name}'")

    count = field(n.F_COMPACTION_FAILURE_COUNT)
    totals = field(n.F_SESSION_TOTALS)
    override = field(n.F_BUDGET_OVERRIDE)
    updated = field(n.F_UPDATED_AT)
    if count is not None and not count.lstrip("-").isdigit():
        raise CodecError(f"record field '{n.F_COMPACTION_FAILURE_COUNT}' is not an integer")
    try:
        return SessionRecord(
            session_id=session_id,
            transcript=field(n.F_TRANSCRIPT),
            agent_ref=field(n.F_AGENT_REF),
            compaction_failure_count=0 if count is None else int(count),
            session_totals=None if totals is None else totals_from_json(totals),
            budget_override=None
            if override is None
            else json_object(parse_json_object(override, n.F_BUDGET_OVERRIDE), n.F_BUDGET_OVERRIDE),
            updated_at=None if updated is None else instant(updated, n.F_UPDATED_AT),
        )
    except ValidationError:
        raise CodecError(f"cannot reconstruct the record of session {session_id!r}") from None


def segment_to_json(segment: LogSegment) -> str:
    """The data-hash value of ``segment``."""
    return compact_json(
        {
            n.F_SESSION_ID: segment.session_id,
            n.F_SEGMENT_ID: segment.segment_id,
            n.F_FROM_SEQ: segment.from_seq,
            n.F_TO_SEQ: segment.to_seq,
            n.F_ENTRY_COUNT: segment.entry_count,
            n.F_PAYLOAD: segment.payload,
            n.F_CREATED_AT: format_instant(segment.created_at),
        }
    )


def segment_from_json(raw: bytes | str) -> LogSegment:
    """Read a data-hash value; refuses with :class:`CodecError`."""
    doc = parse_json_object(raw, "log segment")
    try:
        return LogSegment(
            session_id=required_id(doc, n.F_SESSION_ID),
            segment_id=required_id(doc, n.F_SEGMENT_ID),
            from_seq=integer(doc.get(n.F_FROM_SEQ), n.F_FROM_SEQ),
            to_seq=integer(doc.get(n.F_TO_SEQ), n.F_TO_SEQ),
            entry_count=integer(doc.get(n.F_ENTRY_COUNT), n.F_ENTRY_COUNT),
            payload=required_str(doc, n.F_PAYLOAD),
            created_at=instant(doc.get(n.F_CREATED_AT), n.F_CREATED_AT),
        )
    except ValidationError:
        raise CodecError("cannot reconstruct the log segment") from None

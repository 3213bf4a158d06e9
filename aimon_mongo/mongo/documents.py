"""MongoDB-only document layouts and the server-side expressions the stores send (pure, no I/O).

Shapes (``§3`` of the reference; ours marked *additive*):

* ``conversation_locks``: ``{_id: sessionId, holderId, fencingToken: int64, leaseExpiresAt, acquiredAt}``.
* ``session_records``: ``{_id: sessionId, transcript, agentRef, compactionFailureCount, sessionTotals,
  budgetOverride, updatedAt}`` + *additive* ``fencingToken`` (the highest token that wrote the record).
* ``session_log_segments``: ``{_id: {sessionId, segmentId}, sessionId, segmentId, fromSeq, toSeq,
  entryCount, payload, createdAt}`` + *additive* ``fencingToken``.
* ``conversation_inbox_quarantine`` (*additive*): ``{_id, rawDocument, error, conversationId,
  quarantinedAt}``.
* ``session_fences`` (*additive*): ``{_id: sessionId, highestToken: int64}``.

Every caller-supplied value that goes into an aggregation-pipeline update is wrapped in ``$literal``, so a
string such as ``"$where"`` or ``"$$NOW"`` is stored as itself, never read as a field path or variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final

from bson import ObjectId
from bson.int64 import Int64

from aimon_mongo import names as n
from aimon_mongo.codec.idempotency import ttl_millis
from aimon_mongo.codec.stored_fields import (
    instant,
    json_object,
    optional_instant,
    optional_int,
    optional_str,
    require_object,
    required_id,
    required_str,
)
from aimon_mongo.codec.totals import decode_totals
from aimon_mongo.errors import CodecError
from aimon_mongo.model import TaskQuery, TaskState
from aimon_mongo.model.record import LogSegment, QuarantinedEntry, SegmentInfo, SessionRecord
from aimon_mongo.services.leases import Held
from aimon_mongo.validate import require_id, require_instance

NOW = "$$NOW"


def literal(value: Any) -> dict[str, Any]:
    """``value`` as a pipeline constant (never interpreted as a field path, variable or operator)."""
    return {"$literal": value}


def now_plus(ttl: timedelta) -> dict[str, Any]:
    """Server time + ``ttl`` (millisecond precision)."""
    return {"$add": [NOW, ttl_millis(ttl)]}


def expired(field: str) -> dict[str, Any]:
    """``$expr``: the date in ``field`` is not after server time (a missing field counts as expired)."""
    return {"$lte": ["$" + field, NOW]}


def alive(field: str) -> dict[str, Any]:
    """``$expr``: the date in ``field`` is after server time."""
    return {"$gt": ["$" + field, NOW]}


def not_above(token: int) -> dict[str, Any]:
    """Filter: the document's ``fencingToken`` is absent or ``<= token``. The token goes as the Int64 it is
    stored as (the stand-in's SQLite engine compares an int filter with a stored Int64 as unequal types)."""
    return {n.F_FENCING_TOKEN: {"$not": {"$gt": Int64(token)}}}


# --- leases -------------------------------------------------------------------------------------------


CLOCK_TOKEN: Final = {"$multiply": [{"$toLong": NOW}, Int64(1024)]}
"""The clock floor of a fencing token (pipeline expression): server time in epoch milliseconds x 1024, as
Redis's ``TIME ms x 1024`` (docs/guarantees.md, "Failover")."""


def lease_claim(holder_id: str, ttl: timedelta, first: bool) -> list[dict[str, Any]]:
    """The pipeline update that makes ``holder_id`` the holder: token ``max(token + 1, server ms x 1024)``
    (the previous token counts as 0 for a new document), ``acquiredAt`` and ``leaseExpiresAt`` on server
    time. The clock floor keeps a token rolled back with an unreplicated write (``w:1``, a failover) from
    being handed out again: the next token is above it as long as the new primary's clock is not behind."""
    previous = Int64(0) if first else {"$ifNull": ["$" + n.F_FENCING_TOKEN, Int64(0)]}
    # $toLong keeps the stored type int64 (the reference's) on servers whose $add narrows it.
    token: Any = {"$toLong": {"$max": [{"$add": [previous, Int64(1)]}, CLOCK_TOKEN]}}
    return [
        {
            "$set": {
                n.F_HOLDER_ID: literal(holder_id),
                n.F_FENCING_TOKEN: token,
                n.F_ACQUIRED_AT: NOW,
                n.F_LEASE_EXPIRES_AT: now_plus(ttl),
            }
        }
    ]


def lease_from_document(doc: Mapping[str, Any]) -> Held:
    """A held lock document's holder, token and expiry (the caller has checked that it is held)."""
    token = optional_int(doc, n.F_FENCING_TOKEN, 0)
    if token < 1:
        raise CodecError(f"lock document of session {doc.get(n.F_ID)!r} has no valid fencing token")
    return Held(required_id(doc, n.F_HOLDER_ID), token, instant(doc.get(n.F_LEASE_EXPIRES_AT), n.F_LEASE_EXPIRES_AT))


# --- records ------------------------------------------------------------------------------------------


def record_from_document(doc: Mapping[str, Any]) -> SessionRecord:
    """A ``session_records`` document; absent fields read as their defaults."""
    totals = doc.get(n.F_SESSION_TOTALS)
    override = doc.get(n.F_BUDGET_OVERRIDE)
    return SessionRecord(
        session_id=required_id(doc, n.F_ID),
        transcript=optional_str(doc, n.F_TRANSCRIPT),
        agent_ref=optional_str(doc, n.F_AGENT_REF),
        compaction_failure_count=optional_int(doc, n.F_COMPACTION_FAILURE_COUNT, 0),
        session_totals=None if totals is None else decode_totals(totals),
        budget_override=None if override is None else json_object(override, n.F_BUDGET_OVERRIDE),
        updated_at=optional_instant(doc, n.F_UPDATED_AT),
    )


# --- segments -----------------------------------------------------------------------------------------


def segment_key(session_id: str, segment_id: str) -> dict[str, str]:
    """The compound ``_id`` of a segment (key order is part of its identity)."""
    return {n.F_SESSION_ID: session_id, n.F_SEGMENT_ID: segment_id}


def segment_to_document(segment: LogSegment, token: int) -> dict[str, Any]:
    return {
        n.F_ID: segment_key(segment.session_id, segment.segment_id),
        n.F_SESSION_ID: segment.session_id,
        n.F_SEGMENT_ID: segment.segment_id,
        n.F_FROM_SEQ: Int64(segment.from_seq),
        n.F_TO_SEQ: Int64(segment.to_seq),
        n.F_ENTRY_COUNT: segment.entry_count,
        n.F_PAYLOAD: segment.payload,
        n.F_CREATED_AT: segment.created_at,
        n.F_FENCING_TOKEN: Int64(token),
    }


def segment_from_document(doc: Mapping[str, Any]) -> LogSegment:
    return LogSegment(
        session_id=required_id(doc, n.F_SESSION_ID),
        segment_id=required_id(doc, n.F_SEGMENT_ID),
        from_seq=optional_int(doc, n.F_FROM_SEQ, 0),
        to_seq=optional_int(doc, n.F_TO_SEQ, 0),
        entry_count=optional_int(doc, n.F_ENTRY_COUNT, 0),
        payload=required_str(doc, n.F_PAYLOAD),
        created_at=instant(doc.get(n.F_CREATED_AT), n.F_CREATED_AT),
    )


def segment_info_from_document(doc: Mapping[str, Any]) -> SegmentInfo:
    return SegmentInfo(
        segment_id=required_id(doc, n.F_SEGMENT_ID),
        created_at=instant(doc.get(n.F_CREATED_AT), n.F_CREATED_AT),
    )


# --- quarantine ---------------------------------------------------------------------------------------


def quarantine_document(raw: Mapping[str, Any], error: str, session_id: str, at: Any) -> dict[str, Any]:
    return {
        n.F_ID: ObjectId(),
        n.F_RAW_DOCUMENT: dict(raw),
        n.F_ERROR: error,
        n.F_CONVERSATION_ID: session_id,
        n.F_QUARANTINED_AT: at,
    }


def quarantined_from_document(doc: Mapping[str, Any]) -> QuarantinedEntry:
    raw = require_object(doc.get(n.F_RAW_DOCUMENT), f"field '{n.F_RAW_DOCUMENT}'")
    entry_id = raw.get(n.F_ID)
    return QuarantinedEntry(
        id=str(doc.get(n.F_ID)),
        session_id=required_str(doc, n.F_CONVERSATION_ID),
        entry_id="unknown" if entry_id is None else str(entry_id),
        error=required_str(doc, n.F_ERROR),
        raw=dict(raw),
        quarantined_at=instant(doc.get(n.F_QUARANTINED_AT), n.F_QUARANTINED_AT),
    )


# --- background tasks -----------------------------------------------------------------------------


def task_filter(query: TaskQuery | None) -> dict[str, Any]:
    """The server-side filter of ``query`` (``{}`` matches everything)."""
    if query is None:
        return {}
    found: dict[str, Any] = {}  # values are re-checked: a model_construct()ed query skips validation
    if query.state is not None:
        found[n.TASK_STATE] = require_instance(query.state, TaskState, "query.state").value
    if query.agent_runtime_id is not None:
        found[n.TASK_CONTEXT_ID] = require_instance(query.agent_runtime_id, str, "query.agent_runtime_id")
    if query.owner is not None:
        found[f"{n.TASK_OWNER}.{n.PRINCIPAL_TYPE}"] = query.owner.type.value
        found[f"{n.TASK_OWNER}.{n.PRINCIPAL_ID}"] = require_id(query.owner.id, "query.owner.id")
    return found


def object_id(value: str) -> ObjectId | None:
    """The ObjectId spelled by ``value`` (24 hex digits), or ``None``."""
    return ObjectId(value) if ObjectId.is_valid(value) else None

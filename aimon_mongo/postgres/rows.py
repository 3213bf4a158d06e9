"""Rows of the PostgreSQL tables ↔ value types (pure; the column lists match ``sql/V*.sql``).

Only the flat column mapping lives here; JSON inside a column (envelopes, signal payloads, idempotency
results, session totals) goes through the shared codecs in :mod:`aimon_mongo.codec`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aimon_mongo.codec.totals import decode_totals
from aimon_mongo.errors import CodecError
from aimon_mongo.model import BackgroundTask, Principal, PrincipalType, TaskState
from aimon_mongo.model.record import LogSegment, SessionRecord

TASK_COLUMNS = (
    "task_id, subagent_name, description, state, start_time, end_time, output_offset, "
    "owner_type, owner_id, owner_display_name, context_id, last_heartbeat"
)


def task_params(task: BackgroundTask) -> list[Any]:
    """Parameters in :data:`TASK_COLUMNS` order (the owner is flattened; no owner → three NULLs)."""
    owner = task.owner
    return [
        task.task_id,
        task.subagent_name,
        task.description,
        task.state.value,
        task.start_time,
        task.end_time,
        task.output_offset,
        owner.type.value if owner else None,
        owner.id if owner else None,
        owner.display_name if owner else None,
        task.agent_runtime_id,
        task.last_heartbeat,
    ]


def task_from_row(row: Sequence[Any]) -> BackgroundTask:
    """A task from a row selected as :data:`TASK_COLUMNS`."""
    (task_id, subagent, description, state, start, end, offset, o_type, o_id, o_name, context, beat) = row
    try:
        owner = None
        if o_type is not None and o_id is not None:
            owner = Principal(type=PrincipalType(o_type), id=o_id, display_name=o_name or o_id)
        return BackgroundTask(
            task_id=task_id,
            subagent_name=subagent,
            description=description or "",
            state=TaskState(state),
            start_time=start,
            end_time=end,
            output_offset=offset or 0,
            owner=owner,
            agent_runtime_id=context,
            last_heartbeat=beat,
        )
    except ValueError as exc:
        raise CodecError(f"background_task row {task_id!r} cannot be read: {type(exc).__name__}") from None


RECORD_COLUMNS = (
    "session_id, transcript, agent_ref, compaction_failure_count, session_totals, budget_override, updated_at"
)


def record_from_row(row: Sequence[Any]) -> SessionRecord:
    """A record from a row selected as :data:`RECORD_COLUMNS` (JSONB columns arrive parsed)."""
    session_id, transcript, agent_ref, failures, totals, budget, updated_at = row
    if budget is not None and not isinstance(budget, dict):
        raise CodecError(f"session_record {session_id!r}: budget_override is not a JSON object")
    return SessionRecord(
        session_id=session_id,
        transcript=transcript,
        agent_ref=agent_ref,
        compaction_failure_count=failures or 0,
        session_totals=None if totals is None else decode_totals(totals),
        budget_override=budget,
        updated_at=updated_at,
    )


SEGMENT_COLUMNS = "session_id, segment_id, from_seq, to_seq, entry_count, payload, created_at"


def segment_params(segment: LogSegment) -> dict[str, Any]:
    """Named parameters of a segment insert (the session id travels separately, as ``sid``)."""
    return {
        "segment": segment.segment_id,
        "from_seq": segment.from_seq,
        "to_seq": segment.to_seq,
        "entries": segment.entry_count,
        "payload": segment.payload,
        "created": segment.created_at,
    }


def segment_from_row(row: Sequence[Any]) -> LogSegment:
    """A segment from a row selected as :data:`SEGMENT_COLUMNS`."""
    session_id, segment_id, from_seq, to_seq, entries, payload, created_at = row
    return LogSegment(
        session_id=session_id,
        segment_id=segment_id,
        from_seq=from_seq,
        to_seq=to_seq,
        entry_count=entries,
        payload=payload,
        created_at=created_at,
    )


def quarantine_row_id(quarantine_id: str) -> int | None:
    """The quarantine row id named by ``quarantine_id``; ``None`` when it cannot name a row (not decimal, or
    beyond ``bigint``), which then reads as "not there"."""
    if not quarantine_id.isascii() or not quarantine_id.isdigit():
        return None
    value = int(quarantine_id)
    return value if 0 < value < 2**63 else None

"""Hypothesis strategies for the session-state value types (signals, idempotency, tasks, totals)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from aimon_mongo.model import (
    BackgroundTask,
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    Principal,
    PrincipalType,
    SessionSignal,
    SignalKind,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.record import SessionTotals

ids = st.text(min_size=1, max_size=24).filter(lambda s: s.strip() != "" and "\x00" not in s)
texts = st.text(max_size=40)
keys = st.text(max_size=20).filter(lambda s: "\x00" not in s)  # BSON keys cannot hold NUL


def instants(millis: bool = False) -> st.SearchStrategy[datetime]:
    """Aware UTC datetimes; ``millis`` keeps millisecond precision (what BSON dates hold)."""
    base = st.datetimes(
        min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    )
    if millis:
        return base.map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))
    return base


json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | texts | st.floats(
    allow_nan=False, allow_infinity=False
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=10,
)

principals = st.builds(Principal, type=st.sampled_from(PrincipalType), id=ids, display_name=texts)

signals = st.builds(
    SessionSignal,
    session_id=ids,
    kind=st.sampled_from(SignalKind),
    origin_node_id=texts,
    payload=st.dictionaries(keys, json_values, max_size=4),
)

turn_results = st.builds(
    TurnResult,
    success=st.booleans(),
    final_answer=st.none() | texts,
    error_message=st.none() | texts,
    completion_reason=st.sampled_from(CompletionReason),
    was_streamed=st.booleans(),
)


def idempotency_entries(millis: bool = False) -> st.SearchStrategy[IdempotencyEntry]:
    return st.builds(
        IdempotencyEntry,
        key=ids,
        session_id=ids,
        input_hash=texts,
        status=st.sampled_from(IdempotencyStatus),
        holder_id=st.none() | ids,
        result=st.none() | turn_results,
        created_at=instants(millis),
        last_touched_at=instants(millis),
    )


def background_tasks(millis: bool = False) -> st.SearchStrategy[BackgroundTask]:
    optional_instant = st.none() | instants(millis)
    return st.builds(
        BackgroundTask,
        task_id=ids,
        subagent_name=texts,
        description=texts,
        state=st.sampled_from(TaskState),
        start_time=instants(millis),
        end_time=optional_instant,
        output_offset=st.integers(0, 2**62),
        owner=st.none() | principals,
        agent_runtime_id=st.none() | texts,
        last_heartbeat=optional_instant,
    )


counters = st.integers(0, 2**62)
session_totals = st.builds(
    SessionTotals,
    turn_count=counters,
    iterations=counters,
    prompt_tokens=counters,
    completion_tokens=counters,
    total_tokens=counters,
    reasoning_tokens=counters,
)

ttls = st.integers(1, 10**9).map(lambda ms: timedelta(milliseconds=ms))

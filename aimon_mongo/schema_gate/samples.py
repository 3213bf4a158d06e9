"""Sample documents from every pure codec, checked by ``schema_gate check`` against the declared roots.

The declarations (``aimon_mongo/stored``) and the codecs share the key literals of ``aimon_mongo/names.py``
only through mypy (the codecs return the declared TypedDicts). A constant renamed in names.py alone still
type-checks wherever both sides use it, so the gate encodes one sample value per stored root a codec writes
and checks it here: the renamed key is then "not declared" and the declared one "missing", and the gate
refuses naming both. Keys a server adds (``_id`` of an inserted document, the TTL fields an update
computes) are added to the samples the way the store adds them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import Int64, ObjectId

from aimon_mongo.errors import SchemaGateError


def codec_samples() -> Iterator[tuple[str, str, object]]:
    """``(root, codec function, encoded value)`` for every stored root that a pure codec writes."""
    from aimon_mongo import names as n
    from aimon_mongo.codec import idempotency, inbound, signal, submit_options, task, user_input
    from aimon_mongo.model import (
        BackgroundTask,
        FileInput,
        InboundMessage,
        LlmCallMetadata,
        MultimodalInput,
        Principal,
        SessionSignal,
        SignalKind,
        SubmitOptions,
        TaskState,
        TextInput,
    )
    from aimon_mongo.model.idempotency import (
        CompletionReason,
        IdempotencyEntry,
        IdempotencyStatus,
        TurnResult,
    )
    from aimon_mongo.snapshots import (
        JsonSessionSnapshotCodec,
        JsonTaskResultCodec,
        LogEntry,
        Message,
        Role,
        SessionLogFormat,
        SessionSnapshot,
        TaskResult,
        encode_entries,
    )

    at = datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC)
    principal = Principal.user("u-1", "User One")
    options = SubmitOptions(
        principal=principal,
        system_prompt_variables={"k": "v"},
        execution_attributes={"n": 1},
        llm_call_metadata=LlmCallMetadata(
            component="c", parent_component="p", feature="f", principal=principal, trace_id="t", tags={"a": "b"}
        ),
    )
    mixed = MultimodalInput(
        inputs=(TextInput(text="t"), FileInput(mime_type="text/plain", file_name="a.txt", data=b"x"))
    )
    message = InboundMessage(
        turn_id="turn-1",
        session_id="s-1",
        agent_ref="agent",
        context_discriminator="ctx",
        user_input=mixed,
        idempotency_key="idem-1",
        initiator=principal,
        delivered_at=at,
        metadata={"m": "v"},
        submit_options=options,
    )
    yield "user-input", "user_input.encode", user_input.encode(mixed)
    yield "submit-options", "submit_options.encode", submit_options.encode(options)
    envelope = inbound.to_json_envelope(message)
    yield "inbox.json-envelope", "inbound.to_json_envelope", envelope
    yield "redis.inbox.stream-entry", "inbound.to_json_envelope", {n.REDIS_STREAM_FIELD: envelope}
    document = inbound.to_mongo_document(message, ObjectId())
    yield "mongo.inbox.document", "inbound.to_mongo_document", document
    yield "mongo.inbox.payload", "inbound.to_mongo_document", document[n.F_PAYLOAD]

    result = TurnResult(success=True, final_answer="a", completion_reason=CompletionReason.COMPLETED)
    entry = IdempotencyEntry(
        key="k-1",
        session_id="s-1",
        input_hash="h",
        status=IdempotencyStatus.DONE,
        holder_id=None,
        created_at=at,
        last_touched_at=at,
        result=result,
    )
    ttl = timedelta(hours=1)
    yield "redis.idempotency.value", "idempotency.entry_to_json", idempotency.entry_to_json(entry, ttl)
    stored_entry: dict[str, Any] = dict(idempotency.entry_to_mongo(entry))
    stored_entry |= {n.F_EXPIRES_AT: at + ttl, n.IDEM_TTL_MILLIS: Int64(idempotency.ttl_millis(ttl))}  # the store's
    yield "mongo.idempotency.document", "idempotency.entry_to_mongo", stored_entry

    sig = SessionSignal(session_id="s-1", kind=SignalKind.INTERRUPT, origin_node_id="node-1", payload={"x": 1})
    yield "redis.signal.message", "signal.signal_to_json", signal.signal_to_json(sig)
    yield "mongo.signal.document", "signal.signal_to_mongo", {**signal.signal_to_mongo(sig), n.F_ID: ObjectId()}

    bg = BackgroundTask(
        task_id="t-1",
        subagent_name="sub",
        description="d",
        state=TaskState.COMPLETED,
        start_time=at,
        end_time=at,
        output_offset=3,
        owner=principal,
        agent_runtime_id="agent:1",
        last_heartbeat=at,
    )
    yield "redis.background-task.value", "task.task_to_json", task.task_to_json(bg)
    yield "mongo.background-task.document", "task.task_to_mongo", task.task_to_mongo(bg)

    entries = (LogEntry(seq=0, message=Message.text(Role.USER, "hello")),)
    snapshot = SessionSnapshot(session_id="s-1", system_prompt="p", next_seq=1, entries=entries)
    yield "snapshot.document.v1", "JsonSessionSnapshotCodec.encode", JsonSessionSnapshotCodec().encode(snapshot)
    v2 = JsonSessionSnapshotCodec(SessionLogFormat.V2).encode(snapshot)
    yield "snapshot.document.v2", "JsonSessionSnapshotCodec(V2).encode", v2
    yield "snapshot.segment-payload", "encode_entries", encode_entries(entries)
    outcome = TaskResult(success=True, final_answer="a", completion_reason=CompletionReason.COMPLETED)
    yield "task-result.document", "JsonTaskResultCodec.encode", JsonTaskResultCodec().encode(outcome)


def sample_problems(
    check: Callable[[str, object], list[str]],
    samples: Callable[[], Iterator[tuple[str, str, object]]] = codec_samples,
) -> list[SchemaGateError]:
    """One ``codec-drift`` problem per sample that departs from its root (``check`` lists the departures)."""
    problems = []
    for root, codec, value in samples():
        errors = check(root, value)
        if errors:
            problems.append(
                SchemaGateError(
                    "codec-drift",
                    f"{root}: the sample written by {codec} does not conform to the declaration: "
                    + "; ".join(errors)
                    + " (a key renamed in aimon_mongo/names.py or in the codec alone?)",
                )
            )
    return problems

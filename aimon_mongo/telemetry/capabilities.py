"""What each capability records, in one place: per public operation, the span attributes it adds and the
counters it feeds (every operation also gets its span, ``aimon.outcome`` and a latency point), and the
argument names each rule reads (checked against the operation's signature when it is instrumented).

The services and the virtual filesystem apply these rules natively (:func:`traced`); the snapshot and task
stores through :func:`aimon_mongo.telemetry.instrument_store`.

Attributes: ``aimon.session_id``, ``aimon.priority``, ``aimon.batch_size``, ``aimon.unreadable``,
``aimon.fencing_token``, ``aimon.bytes``, ``aimon.attempt``, ``aimon.interrupted``, ``aimon.adopted_after_ms``,
``aimon.outcome``, ``error.type``. Never a payload, a signal's payload, a file's content or an error message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from aimon_mongo.errors import StaleFencingTokenError
from aimon_mongo.services.leases import TAKEN_OVER
from aimon_mongo.telemetry._layer import OUTCOME, Call, Rule, instrument_class, reads

T = TypeVar("T")

SESSION = "aimon.session_id"
PRIORITY = "aimon.priority"
BATCH = "aimon.batch_size"
UNREADABLE = "aimon.unreadable"
TOKEN = "aimon.fencing_token"
BYTES = "aimon.bytes"
ATTEMPT = "aimon.attempt"
INTERRUPTED = "aimon.interrupted"
ADOPTED_AFTER_MS = "aimon.adopted_after_ms"


@reads()
def _plain(call: Call) -> None:
    """Span, outcome and latency only."""


@reads("session_id")
def _session(call: Call) -> None:
    call.set(SESSION, call.arg("session_id"))


def _stale(call: Call, capability: str) -> None:
    """A fenced write refused for a stale token: its outcome, counted as one refusal."""
    if isinstance(call.error, StaleFencingTokenError):
        call.attributes[OUTCOME] = "stale_token"
        call.instruments.stale_token_refusals.add(1, {"aimon.capability": capability})


def _fenced(capability: str) -> Rule:
    """A fenced write ``(session_id, ..., fencing_token)``: the session, the token, a stale-token refusal."""

    @reads("session_id", "fencing_token")
    def fenced(call: Call) -> None:
        call.set(SESSION, call.arg("session_id"))
        call.set(TOKEN, call.arg("fencing_token"))
        _stale(call, capability)

    return fenced


@reads("segment", "fencing_token")
def _segment_put(call: Call) -> None:
    """``put(segment, fencing_token)``: the session is the segment's."""
    call.set(SESSION, getattr(call.arg("segment"), "session_id", None))
    call.set(TOKEN, call.arg("fencing_token"))
    _stale(call, "segments")


# --- inbox --------------------------------------------------------------------------------------------


@reads("message")
def _deliver(call: Call) -> None:
    message = call.arg("message")
    call.set(SESSION, getattr(message, "session_id", None))
    priority = getattr(getattr(message, "priority", None), "name", None)
    call.set(PRIORITY, priority)
    if call.error is None:
        call.instruments.delivered.add(1, {PRIORITY: str(priority)})


@reads("messages")
def _deliver_many(call: Call) -> None:
    messages = list(call.arg("messages") or ())
    call.set(BATCH, len(messages))
    sessions = {getattr(m, "session_id", None) for m in messages}
    if len(sessions) == 1:
        call.set(SESSION, sessions.pop())
    if call.error is None:
        for message in messages:
            call.instruments.delivered.add(1, {PRIORITY: str(getattr(message.priority, "name", None))})


def _batch_attributes(call: Call, batch: Any) -> tuple[int, int]:
    """A collected or claimed batch's size, unreadable count and highest priority (``NOW`` is the highest)
    on the span; ``(messages, unreadable)``."""
    if batch.messages:
        call.set(PRIORITY, min(message.priority for message in batch.messages).name)
    messages, unreadable = len(batch.messages), len(batch.unreadable)
    call.set(BATCH, messages + unreadable)
    call.set(UNREADABLE, unreadable)
    if messages + unreadable == 0:
        call.attributes[OUTCOME] = "empty"
    return messages, unreadable


@reads("session_id")
def _collect(call: Call) -> None:
    """The session, the batch's size and the highest priority it holds (``NOW`` is the highest)."""
    call.set(SESSION, call.arg("session_id"))
    batch = call.result
    if batch is None:
        return
    messages, unreadable = _batch_attributes(call, batch)
    call.instruments.collected.add(messages)
    if unreadable:
        call.instruments.quarantined.add(unreadable)
    call.instruments.collect_batch_size.record(messages + unreadable)


@reads("session_id")
def _peek(call: Call) -> None:
    call.set(SESSION, call.arg("session_id"))
    if call.result is not None:
        call.set(BATCH, len(call.result.messages) + len(call.result.unreadable))


@reads()
def _replay(call: Call) -> None:
    if call.error is None:
        call.instruments.replayed.add(1)


@reads("session_id")
def _list_quarantined(call: Call) -> None:
    call.set(SESSION, call.arg("session_id"))
    if call.result is not None:
        call.set(BATCH, len(call.result))


@reads("session_id", "fencing_token")
def _claim(call: Call) -> None:
    """As collect, with the token; entries moved to the quarantine (unreadable or handed out too often) are
    counted as quarantined."""
    call.set(SESSION, call.arg("session_id"))
    call.set(TOKEN, call.arg("fencing_token"))
    batch = call.result
    if batch is None:
        return
    _, unreadable = _batch_attributes(call, batch)
    if unreadable + len(batch.quarantined):
        call.instruments.quarantined.add(unreadable + len(batch.quarantined))


@reads("session_id", "fencing_token")
def _acknowledge(call: Call) -> None:
    """The session, the token and how many entries the acknowledgement removed."""
    call.set(SESSION, call.arg("session_id"))
    call.set(TOKEN, call.arg("fencing_token"))
    if call.result is not None:
        call.set(BATCH, call.result)


@reads("session_id")
def _quarantine_entries(call: Call) -> None:
    call.set(SESSION, call.arg("session_id"))
    if call.result is not None:
        call.set(BATCH, call.result)
        if call.result:
            call.instruments.quarantined.add(call.result)


@reads()
def _sessions_with_entries(call: Call) -> None:
    if call.result is not None:
        call.set(BATCH, len(call.result.session_ids))


INBOX: Mapping[str, Rule] = {
    "deliver": _deliver,
    "deliver_many": _deliver_many,
    "collect": _collect,
    "peek": _peek,
    "is_empty": _session,
    "purge": _session,
    "list_quarantined": _list_quarantined,
    "replay_quarantined": _replay,
    "delete_quarantined": _plain,
    "claim": _claim,
    "acknowledge": _acknowledge,
    "quarantine_entries": _quarantine_entries,
    "sessions_with_entries": _sessions_with_entries,
}

# --- leases -------------------------------------------------------------------------------------------


@reads("session_id")
def _try_acquire(call: Call) -> None:
    call.set(SESSION, call.arg("session_id"))
    if call.error is not None:
        return
    lease = call.result
    outcome = "acquired" if lease is not None else "held"
    call.attributes[OUTCOME] = outcome
    call.instruments.lease_acquisitions.add(1, {OUTCOME: outcome})
    taken_over = TAKEN_OVER.get()
    TAKEN_OVER.set(None)
    if lease is not None:
        call.set(TOKEN, lease.fencing_token)
        if taken_over if taken_over is not None else lease.fencing_token > 1:
            call.instruments.lease_handovers.add(1)


@reads("lease")
def _lease_arg(call: Call) -> None:
    lease = call.arg("lease")
    call.set(SESSION, getattr(lease, "session_id", None))
    call.set(TOKEN, getattr(lease, "fencing_token", None))


@reads("lease")
def _extend(call: Call) -> None:
    _lease_arg.record(call)
    if call.error is None and call.result is False:
        call.attributes[OUTCOME] = "stale_token"
        call.instruments.stale_token_refusals.add(1, {"aimon.capability": "leases"})


LEASES: Mapping[str, Rule] = {
    "try_acquire": _try_acquire,
    "extend": _extend,
    "release": _lease_arg,
    "find_holder": _session,
}

# --- signals ------------------------------------------------------------------------------------------


@reads("signal")
def _publish(call: Call) -> None:
    signal = call.arg("signal")
    call.set(SESSION, getattr(signal, "session_id", None))
    call.set("aimon.signal_kind", getattr(getattr(signal, "kind", None), "value", None))


@reads("signals")
def _publish_all(call: Call) -> None:
    call.set(BATCH, len(list(call.arg("signals") or ())))


SIGNALS: Mapping[str, Rule] = {
    "publish": _publish,
    "publish_all": _publish_all,
    "subscribe": _session,
    "close": _plain,
}

# --- idempotency, tasks ----------------------------------------------------------------------------------


@reads()
def _put_if_absent(call: Call) -> None:
    outcome = getattr(getattr(call.result, "outcome", None), "value", None)
    if outcome is not None:
        call.attributes[OUTCOME] = str(outcome).lower()


IDEMPOTENCY: Mapping[str, Rule] = {
    "put_if_absent": _put_if_absent,
    **{
        name: _plain
        for name in (
            "mark_done",
            "touch",
            "release_holder",
            "acquire_holder",
            "discard_reservation",
            "compare_and_reset",
            "find_stale_in_flight",
            "find",
        )
    },
}


@reads()
def _task_list(call: Call) -> None:
    if call.result is not None:
        call.set(BATCH, len(call.result))


TASKS: Mapping[str, Rule] = {
    **{name: _plain for name in ("put", "find", "remove", "transition", "heartbeat")},
    "list": _task_list,
}

# --- records, segments (fenced) ---------------------------------------------------------------------------

_RECORD_WRITE = _fenced("records")

RECORDS: Mapping[str, Rule] = {
    **{
        name: _RECORD_WRITE
        for name in (
            "merge_transcript",
            "provision",
            "set_totals_and_budget_override",
            "increment_compaction_failure_count",
            "reset_compaction_failure_count",
            "delete",
        )
    },
    "load": _session,
    "load_many": _plain,
    "exists": _session,
    "list_session_ids": _plain,
}

SEGMENTS: Mapping[str, Rule] = {
    "put": _segment_put,
    "get": _session,
    "get_many": _session,
    "list": _session,
    "list_page": _session,
    "delete": _fenced("segments"),
    "delete_all": _fenced("segments"),
    "scan_sessions": _plain,
}

# --- the virtual filesystem ----------------------------------------------------------------------------


def _size_of(content: Any) -> int | None:
    if isinstance(content, bytes | bytearray | memoryview):
        return len(content)
    if isinstance(content, str):
        return len(content.encode("utf-8"))
    return None


@reads("content")
def _wrote(call: Call) -> None:
    if call.error is not None:
        return
    written = _size_of(call.arg("content"))
    if written is None:  # a stream: the stored size
        written = getattr(call.result, "size", None)
    if isinstance(written, int):
        call.set(BYTES, written)
        call.instruments.vfs_bytes_written.add(written)


@reads()
def _read(call: Call) -> None:
    if call.error is not None:
        return
    result = call.result
    got = _size_of(result)
    if got is None and result is not None and hasattr(result, "lines"):
        got = sum(len(line.encode("utf-8")) for line in result.lines)
    if got is not None:
        call.set(BYTES, got)
        call.instruments.vfs_bytes_read.add(got)


@reads()
def _copied(call: Call) -> None:
    size = getattr(call.result, "size", None)
    if call.error is None and isinstance(size, int):
        call.set(BYTES, size)


FILESYSTEM: Mapping[str, Rule] = {
    "write": _wrote,
    "append": _wrote,
    "read": _read,
    "read_range": _read,
    "read_lines": _read,
    "read_text": _read,
    "copy": _copied,
    "move": _copied,
    **{
        name: _plain
        for name in (
            "initialize",
            "status",
            "open_input",
            "open_output",
            "exists",
            "is_dir",
            "is_file",
            "info",
            "ls",
            "ls_info",
            "ls_recursive",
            "find",
            "glob",
            "grep",
            "touch",
            "mkdir",
            "delete",
            "delete_recursive",
            "usage",
            "fsck",
        )
    },
}

# --- snapshots and task stores ----------------------------------------------------------------------------


@reads("snapshot")
def _snapshot_save(call: Call) -> None:
    snapshot = call.arg("snapshot")
    call.set(SESSION, getattr(snapshot, "session_id", None))
    call.set(BATCH, getattr(snapshot, "message_count", None))


@reads()
def _found(call: Call) -> None:
    if call.error is None and call.result is None:
        call.attributes[OUTCOME] = "missing"


@reads()
def _listed(call: Call) -> None:
    if call.result is not None:
        call.set(BATCH, len(call.result))


@reads("chunk")
def _output_append(call: Call) -> None:
    chunk = call.arg("chunk")
    call.set(BATCH, len(chunk) if isinstance(chunk, str) else 0)


SNAPSHOTS: Mapping[str, Rule] = {"save": _snapshot_save, "load": _found, "evict": _plain, "list_snapshots": _listed}
TASK_OUTPUT: Mapping[str, Rule] = {"append": _output_append, "read": _plain, "length": _plain, "evict": _plain}
TASK_RESULTS: Mapping[str, Rule] = {"save": _plain, "load": _found, "evict": _plain}

# --- session host --------------------------------------------------------------------------------------


@reads("turn", "adopted_after")
def _turn(call: Call) -> None:
    """One turn of :mod:`aimon_mongo.host`: session, token, attempt, batch size, whether it was interrupted,
    its outcome (``acknowledged``, ``failed``, ``cancelled``) and, on a session's first turn after its
    adoption, the time to adopt."""
    turn = call.arg("turn")
    call.set(SESSION, getattr(turn, "session_id", None))
    call.set(TOKEN, getattr(turn, "fencing_token", None))
    call.set(ATTEMPT, getattr(turn, "attempt", None))
    call.set(BATCH, len(getattr(turn, "messages", ())))
    interrupted = getattr(turn, "interrupted", None)
    if interrupted is not None:
        call.set(INTERRUPTED, interrupted.is_set())
    if isinstance(call.result, str):
        call.attributes[OUTCOME] = call.result
    call.instruments.host_turns.add(1, {OUTCOME: call.outcome})
    adopted_after = call.arg("adopted_after")
    if isinstance(adopted_after, float | int):
        call.set(ADOPTED_AFTER_MS, int(adopted_after * 1000))
        call.instruments.host_adoption_time.record(float(adopted_after))


HOST: Mapping[str, Rule] = {"run_turn": _turn}

STORES: Mapping[str, Mapping[str, Rule]] = {
    "snapshots": SNAPSHOTS,
    "task_output": TASK_OUTPUT,
    "task_results": TASK_RESULTS,
}
"""Stores instrumented one by one (:func:`aimon_mongo.telemetry.instrument_store`), by capability name."""

BUNDLE_STORES: Mapping[str, Mapping[str, Rule]] = {
    "inbox": INBOX,
    "leases": LEASES,
    "signals": SIGNALS,
    "idempotency": IDEMPOTENCY,
    "tasks": TASKS,
    "records": RECORDS,
    "segments": SEGMENTS,
}
"""The bundle's stores (property names of ``SessionBackends``) and their rules."""

NATIVE: Mapping[str, Mapping[str, Rule]] = {**BUNDLE_STORES, "vfs": FILESYSTEM, "host": HOST}
"""The capabilities whose classes record natively (:func:`traced`): the services, the filesystem and the
session host."""


def instrument(cls: type, capability: str) -> None:
    """Make the operations ``cls`` defines record spans and metrics through ``opentelemetry-api`` by the
    rules of ``capability`` (a name in :data:`NATIVE`; anything else raises ``ValueError`` naming it)."""
    rules = NATIVE.get(capability)
    if rules is None:
        raise ValueError(f"unknown capability {capability!r} (one of {', '.join(NATIVE)})")
    instrument_class(cls, capability, rules)


def traced(capability: str) -> Callable[[type[T]], type[T]]:
    """Class decorator of a service: :func:`instrument` for ``capability``."""
    if capability not in NATIVE:
        raise ValueError(f"unknown capability {capability!r} (one of {', '.join(NATIVE)})")

    def decorate(cls: type[T]) -> type[T]:
        instrument(cls, capability)
        return cls

    return decorate

"""Injection: ids, keys, holder ids and paths that mean something to a store's query language are stored
literally, and operating on one never reads or writes another's data; non-string ids are refused.

Every hostile id (``tests/reliability/injection_data.py``) gets its own inbox message, lease (held by a
holder whose id is hostile too), idempotency entry, task, session record and log segment. Then every id
is read back (only its own data), a few targets are changed or deleted through every store, and every
other id is checked untouched; the listings (tasks, session ids) hold exactly the literal ids.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import (
    BackgroundTask,
    CompletionReason,
    IdempotencyEntry,
    IdempotencyStatus,
    TaskState,
    TurnResult,
)
from aimon_mongo.model.record import LogSegment
from tests.conformance.helpers import Recorder, message, now_ms, signal, wait_until
from tests.reliability.families import family_name
from tests.reliability.injection_data import HOSTILE, REFUSED, VFS_NAMES
from tests.reliability.plugin import Counts
from tests.vfs.conftest import backend, fs, make_fs

__all__ = ["backend", "fs", "make_fs"]

TTL = timedelta(seconds=120)
TARGETS = ["a*", "a", "%", "$ne", "'; DROP TABLE conversation_inbox; --", "[a]"]
RESULT = TurnResult(success=True, final_answer="done", completion_reason=CompletionReason.COMPLETED)
SIGNAL_IDS = ["a", "ab", "a*", "a?", "[a]", "a%", "a_", "*", ".*", "a:NOW"]


def _entry(key: str, holder: str) -> IdempotencyEntry:
    stamp = now_ms()
    return IdempotencyEntry(
        key=key,
        session_id=key,
        input_hash=f"hash-{key}",
        status=IdempotencyStatus.IN_FLIGHT,
        holder_id=holder,
        created_at=stamp,
        last_touched_at=stamp,
    )


def _segment(session: str) -> LogSegment:
    return LogSegment(
        session_id=session,
        segment_id=session,
        from_seq=0,
        to_seq=0,
        entry_count=1,
        payload=f"[{session!r}]",
        created_at=now_ms(),
    )


Refusals = dict[str, set[str]]


def _holder(kind: str, ident: str, refusals: Refusals) -> str:
    """The holder id used for ``ident``'s lease / idempotency entry: ``ident`` itself, unless refused."""
    return f"holder-{HOSTILE.index(ident)}" if ident in refusals[kind] else ident


async def _with_holder(kind: str, ident: str, refusals: Refusals, call: Any) -> Any:
    """``call(ident)``; when the backend refuses ``ident`` as a holder id with a clear error (Redis keeps
    ``:``, ``"`` and backslash out of holder ids), recorded in ``refusals`` and retried with a plain one."""
    try:
        return await call(ident)
    except InvalidArgumentError as exc:
        assert "holder_id" in str(exc), str(exc)
        refusals[kind].add(ident)
        return await call(_holder(kind, ident, refusals))


async def _store_everything(node: Any, ident: str, refusals: Refusals) -> Any:
    """Store ``ident``'s data; lease and idempotency entry are held by a holder called ``ident`` too."""
    await node.inbox.deliver(message(ident, turn_id=f"own:{ident}"))
    lease = await _with_holder("lease", ident, refusals, lambda h: node.leases.try_acquire(ident, h, TTL))
    assert lease is not None, f"lease of {ident!r} taken by another id"
    put = await _with_holder(
        "idempotency", ident, refusals, lambda h: node.idempotency.put_if_absent(_entry(ident, h), TTL)
    )
    assert put.outcome.name == "INSERTED", ident
    await node.tasks.put(
        BackgroundTask(task_id=ident, subagent_name=ident, state=TaskState.RUNNING, start_time=now_ms())
    )
    token = lease.fencing_token  # the acquisition raised the session's write fence to it
    await node.records.provision(ident, f"agent:{ident}", token)
    await node.records.merge_transcript(ident, f"transcript:{ident}", token)
    await node.segments.put(_segment(ident), token)
    return lease


async def _check_untouched(node: Any, ident: str, refusals: Refusals) -> None:
    """Everything stored for ``ident`` is still there and is its own."""
    peeked = await node.inbox.peek(ident)
    assert [(m.session_id, m.turn_id) for m in peeked.messages] == [(ident, f"own:{ident}")], ident
    holder = await node.leases.find_holder(ident)
    assert holder is not None and (holder.session_id, holder.holder_id) == (ident, _holder("lease", ident, refusals)), (
        ident
    )
    found = await node.idempotency.find(ident)
    assert found is not None and (found.key, found.session_id, found.holder_id, found.status) == (
        ident,
        ident,
        _holder("idempotency", ident, refusals),
        IdempotencyStatus.IN_FLIGHT,
    ), ident
    task = await node.tasks.find(ident)
    assert task is not None and (task.task_id, task.subagent_name, task.state) == (ident, ident, TaskState.RUNNING)
    record = await node.records.load(ident)
    assert record is not None and (record.session_id, record.transcript) == (ident, f"transcript:{ident}"), ident
    assert [s.segment_id for s in await node.segments.list(ident)] == [ident], ident
    kept = await node.segments.get(ident, ident)
    assert kept is not None and kept.payload == f"[{ident!r}]", ident


async def test_hostile_ids_are_stored_literally_and_touch_only_their_own_data(
    cluster: Any, request: pytest.FixtureRequest, reliability_counts: Counts
) -> None:
    node = await cluster.node("node-a")
    refusals: Refusals = {"lease": set(), "idempotency": set()}
    leases = {ident: await _store_everything(node, ident, refusals) for ident in HOSTILE}
    for ident in HOSTILE:
        await _check_untouched(node, ident, refusals)
    assert sorted(t.task_id for t in await node.tasks.list()) == sorted(HOSTILE)
    assert sorted(await node.records.list_session_ids()) == sorted(HOSTILE)

    for target in TARGETS:
        batch = await node.inbox.collect(target)
        assert [(m.session_id, m.turn_id) for m in batch.messages] == [(target, f"own:{target}")]
        await node.inbox.deliver(message(target, turn_id="again"))
        await node.inbox.purge(target)
        assert await node.inbox.is_empty(target)
        await node.leases.release(leases[target])
        assert await node.leases.find_holder(target) is None
        await node.idempotency.mark_done(target, RESULT)
        done = await node.idempotency.find(target)
        assert done is not None and done.status is IdempotencyStatus.DONE
        assert await node.tasks.remove(target) is True
        await node.records.delete(target, leases[target].fencing_token)
        assert await node.records.load(target) is None
        await node.segments.delete_all(target, leases[target].fencing_token)
        assert await node.segments.list(target) == []
    for ident in HOSTILE:
        if ident not in TARGETS:
            await _check_untouched(node, ident, refusals)
    survivors = sorted(set(HOSTILE) - set(TARGETS))
    assert sorted(t.task_id for t in await node.tasks.list()) == survivors
    assert sorted(await node.records.list_session_ids()) == survivors
    assert await node.inbox.list_quarantined() == []

    refused = sum(len(ids) for ids in refusals.values())
    for bad in REFUSED:
        for call in (
            lambda bad=bad: node.inbox.collect(bad),
            lambda bad=bad: node.inbox.purge(bad),
            lambda bad=bad: node.leases.try_acquire(bad, "intruder", TTL),
            lambda bad=bad: node.leases.try_acquire("a", bad, TTL),
            lambda bad=bad: node.idempotency.find(bad),
            lambda bad=bad: node.tasks.remove(bad),
            lambda bad=bad: node.records.delete(bad, 1),
            lambda bad=bad: node.segments.delete_all(bad, 1),
        ):
            with pytest.raises(InvalidArgumentError):
                await call()
            refused += 1
    for ident in survivors:
        await _check_untouched(node, ident, refusals)
    reliability_counts.add("injection", family_name(request), messages=len(HOSTILE), refused_input=refused)


async def test_signals_reach_only_the_literal_session(cluster: Any) -> None:
    a, b = await cluster.node("node-a"), await cluster.node("node-b")
    recorders = {ident: Recorder() for ident in SIGNAL_IDS}
    for ident, recorder in recorders.items():
        await b.signals.subscribe(ident, recorder.handle)
    for target in ("a*", "*", "a"):
        await a.signals.publish(signal(target, "node-a", to=target))
        await wait_until(lambda t=target: any(s.payload.get("to") == t for s in recorders[t].received), target)
    for ident in SIGNAL_IDS:  # a fence per session: everything published before it has arrived by then
        await a.signals.publish(signal(ident, "node-a", fence=ident))
    for ident, recorder in recorders.items():
        await wait_until(lambda r=recorder, i=ident: any(s.payload.get("fence") == i for s in r.received), ident)
    for ident, recorder in recorders.items():
        assert {s.session_id for s in recorder.received} == {ident}
        assert {s.payload.get("to", ident) for s in recorder.received} == {ident}, ident


async def test_hostile_path_names_are_stored_literally_and_listed_exactly(
    fs: Any, backend: str, reliability_counts: Counts
) -> None:
    for name in VFS_NAMES:
        await fs.write(f"{name}/own.txt", name.encode())
        await fs.write(f"files/{name}", name.encode())
    expected = sorted([f"{name}/own.txt" for name in VFS_NAMES] + [f"files/{name}" for name in VFS_NAMES])
    assert await fs.ls_recursive(".") == expected
    for name in VFS_NAMES:
        assert await fs.ls_recursive(name) == [f"{name}/own.txt"], name
        assert await fs.read(f"{name}/own.txt") == name.encode()
        assert await fs.read(f"files/{name}") == name.encode()
        assert await fs.is_dir(name) and await fs.is_file(f"files/{name}")
        assert await fs.ls(name) == [f"{name}/own.txt"], name
        assert await fs.find(name, "*") == [f"{name}/own.txt"], name  # the path is literal, the pattern is not
        usage = await fs.usage(name)
        assert (usage.file_count, usage.total_size) == (1, len(name.encode())), name
    two_letters = sorted(f"files/{n}" for n in VFS_NAMES if len(n) == 2 and n[0] == "a")
    assert sorted(await fs.find("files", "a?")) == two_letters
    gone = ["a", "a*", "%", "$ne", "[a]"]
    for name in gone:
        await fs.delete_recursive(name)
        await fs.delete(f"files/{name}")
    kept = [name for name in VFS_NAMES if name not in gone]
    assert await fs.ls_recursive(".") == sorted(
        [f"{name}/own.txt" for name in kept] + [f"files/{name}" for name in kept]
    )
    for name in kept:
        assert await fs.read(f"{name}/own.txt") == name.encode()
    refused = 0
    for bad in ("../a", "a/../../b", "a\x00b", "/a", "a\\b"):
        with pytest.raises(Exception) as caught:
            await fs.delete_recursive(bad)
        assert type(caught.value).__name__ == "InvalidPathError"
        refused += 1
    reliability_counts.add("injection", f"vfs-{backend}", messages=len(VFS_NAMES), refused_input=refused)

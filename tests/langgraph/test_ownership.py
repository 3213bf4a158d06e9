"""Single writer per thread: claims take the thread's lease (fencing token); a superseded writer's
put / put_writes raise StaleWriteOwnerError before anything is written; the chain never forks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from aimon_mongo.errors import InvalidArgumentError, StaleWriteOwnerError, WriteOwnershipError

SHORT = timedelta(milliseconds=300)


def checkpoint(values: dict[str, Any] | None = None) -> dict[str, Any]:
    cp = dict(empty_checkpoint())
    cp["channel_values"] = values or {}
    cp["channel_versions"] = {k: f"{1:032}.{0.5:016}" for k in values or {}}
    return cp


def config(thread_id: str, parent: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
    if parent is not None:
        conf["checkpoint_id"] = parent
    return {"configurable": conf}


async def put(writer: Any, thread_id: str, parent: str | None = None, step: int = 0) -> str:
    cp = checkpoint({"step": step})
    stored = await writer.aput(config(thread_id, parent), cp, {"source": "loop", "step": step}, cp["channel_versions"])
    return str(stored["configurable"]["checkpoint_id"])


async def ids(saver: Any, thread_id: str) -> list[str]:
    return [t.checkpoint["id"] async for t in saver.alist(config(thread_id))]


async def lapse() -> None:
    await asyncio.sleep(SHORT.total_seconds() + 0.2)


async def test_superseded_writer_is_refused_and_the_chain_does_not_fork(make_async_saver: Callable[..., Any]) -> None:
    """Worker A owns the thread and stalls past its lease; worker B takes over and writes; A's late put
    and put_writes are refused before anything is stored; the tip stays B's."""
    node_a, node_b = make_async_saver(node_id="worker-a", ownership_ttl=SHORT), make_async_saver(node_id="worker-b")
    thread = str(uuid4())
    a = await node_a.aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    await lapse()  # A stalls; its lease lapses
    b = await node_b.aclaim_write_ownership(thread)
    assert b.write_ownership.fencing_token > a.write_ownership.fencing_token
    c2 = await put(b, thread, parent=c1, step=1)

    with pytest.raises(StaleWriteOwnerError) as refused:
        await put(a, thread, parent=c1, step=1)  # A's fork of c1
    assert type(refused.value).is_stale_write_owner_error is True
    assert refused.value.thread_id == thread
    assert refused.value.highest == b.write_ownership.fencing_token
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c2), [("ch", "stale")], "task-1")
    with pytest.raises(StaleWriteOwnerError):
        await a.acheck_write_ownership()

    reader = make_async_saver()
    assert await ids(reader, thread) == [c2, c1]  # no fork: exactly the two legitimate checkpoints
    tip = await reader.aget_tuple(config(thread))
    assert tip.checkpoint["id"] == c2
    assert tip.pending_writes == []
    await b.aput_writes(config(thread, c2), [("ch", "current")], "task-1")
    assert (await reader.aget_tuple(config(thread))).pending_writes == [("task-1", "ch", "current")]


async def test_stale_special_channel_write_cannot_displace_the_current_one(
    make_async_saver: Callable[..., Any],
) -> None:
    node_a, node_b = make_async_saver(node_id="worker-a", ownership_ttl=SHORT), make_async_saver(node_id="worker-b")
    thread = str(uuid4())
    a = await node_a.aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    await lapse()
    b = await node_b.aclaim_write_ownership(thread)
    await b.aput_writes(config(thread, c1), [("__resume__", "current")], "task")
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c1), [("__resume__", "stale")], "task")
    writes = (await make_async_saver().aget_tuple(config(thread, c1))).pending_writes
    assert writes == [("task", "__resume__", "current")]


async def test_refused_large_put_uploads_nothing(make_async_saver: Callable[..., Any]) -> None:
    node_a, node_b = make_async_saver(node_id="a", ownership_ttl=SHORT, inline_limit=16), make_async_saver(node_id="b")
    thread = str(uuid4())
    a = await node_a.aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    await lapse()
    await node_b.aclaim_write_ownership(thread)
    cp = checkpoint({"big": b"x" * 4096})
    with pytest.raises(StaleWriteOwnerError):
        await a.aput(config(thread, c1), cp, {"step": 1}, cp["channel_versions"])
    assert await ids(node_b, thread) == [c1]
    record = await node_b.astored_record(config(thread))
    assert record.checkpoint_id == c1 and record.values[0].value.is_large is False
    assert await large_files(node_b) == 0


async def large_files(saver: Any) -> int:
    store = getattr(saver, "store", None)
    if store is not None:
        return int(store.large_count())
    return int(await saver.database["langgraph_values.files"].count_documents({}))


async def test_live_lease_is_never_taken_over(make_async_saver: Callable[..., Any]) -> None:
    first, second = make_async_saver(node_id="first"), make_async_saver(node_id="second", ownership_ttl=SHORT)
    thread = str(uuid4())
    owner = await first.aclaim_write_ownership(thread)
    with pytest.raises(WriteOwnershipError, match="owned by holder 'first'"):
        await second.aclaim_write_ownership(thread)
    await owner.arelease_write_ownership()
    taken = await second.aclaim_write_ownership(thread, wait=timedelta(seconds=5))
    assert taken.write_ownership.fencing_token > owner.write_ownership.fencing_token
    # A released owner's writes are still accepted until someone else claims: the fence decides.
    other = str(uuid4())
    kept = await first.aclaim_write_ownership(other)
    await kept.arelease_write_ownership()
    await put(kept, other)


async def test_waiting_claim_gets_the_thread_when_the_lease_lapses(make_async_saver: Callable[..., Any]) -> None:
    holder, waiter = make_async_saver(node_id="holder", ownership_ttl=SHORT), make_async_saver(node_id="waiter")
    thread = str(uuid4())
    old = await holder.aclaim_write_ownership(thread)
    new = await waiter.aclaim_write_ownership(thread, wait=timedelta(seconds=10))
    assert new.write_ownership.fencing_token > old.write_ownership.fencing_token
    assert await old.aextend_write_ownership() is False


async def test_ownership_is_per_thread_and_writer_is_bound(make_async_saver: Callable[..., Any]) -> None:
    saver = make_async_saver()
    t1, t2 = str(uuid4()), str(uuid4())
    owner1 = await saver.aclaim_write_ownership(t1)
    await make_async_saver(node_id="other").aclaim_write_ownership(t2)
    c = await put(owner1, t1)
    assert (await saver.aget_tuple(config(t1))).checkpoint["id"] == c
    with pytest.raises(InvalidArgumentError, match="cannot write thread"):
        await put(owner1, t2)
    assert saver.write_ownership is None and owner1.write_ownership.thread_id == t1


async def test_writes_without_a_writer_stay_unfenced(make_async_saver: Callable[..., Any]) -> None:
    """LangGraph's ordinary behaviour: a saver that never claimed writes whatever it is given, even on a
    claimed thread (fencing is opt-in per writer)."""
    saver = make_async_saver()
    thread = str(uuid4())
    await make_async_saver(node_id="owner").aclaim_write_ownership(thread)
    c1 = await put(saver, thread)
    await put(saver, thread, parent=c1, step=1)
    await put(saver, thread, parent=c1, step=2)  # a fork: allowed without a writer
    assert len(await ids(saver, thread)) == 3


async def test_duplicate_put_writes_from_the_owner_is_not_a_rejection(make_async_saver: Callable[..., Any]) -> None:
    thread = str(uuid4())
    owner = await make_async_saver().aclaim_write_ownership(thread)
    c1 = await put(owner, thread)
    await owner.aput_writes(config(thread, c1), [("ch", "v")], "t")
    await owner.aput_writes(config(thread, c1), [("ch", "v2")], "t")
    assert (await owner.aget_tuple(config(thread))).pending_writes == [("t", "ch", "v")]


def test_sync_writer_is_fenced_too(make_sync_saver: Callable[..., Any]) -> None:
    import time

    node_a, node_b = make_sync_saver(node_id="a", ownership_ttl=SHORT), make_sync_saver(node_id="b")
    thread = str(uuid4())
    a = node_a.claim_write_ownership(thread)
    cp = checkpoint({"step": 0})
    c1 = a.put(config(thread), cp, {"step": 0}, cp["channel_versions"])["configurable"]["checkpoint_id"]
    time.sleep(SHORT.total_seconds() + 0.2)
    b = node_b.claim_write_ownership(thread)
    cp2 = checkpoint({"step": 1})
    c2 = b.put(config(thread, c1), cp2, {"step": 1}, cp2["channel_versions"])["configurable"]["checkpoint_id"]
    with pytest.raises(StaleWriteOwnerError):
        a.put(config(thread, c1), cp2 | {"id": empty_checkpoint()["id"]}, {"step": 1}, cp2["channel_versions"])
    with pytest.raises(StaleWriteOwnerError):
        a.put_writes(config(thread, c2), [("ch", "x")], "t")
    assert [t.checkpoint["id"] for t in node_b.list(config(thread))] == [c2, c1]

"""Single writer per thread, as LangGraph's proposed ``write_ownership`` capability (langgraph #8796)
expects: a claim supersedes the current owner at once (a new, higher fencing token); the superseded
writer's put / put_writes raise StaleWriteOwnerError before anything is written, and so does its check;
the chain never forks. Waiting for a live owner's lease instead is the ``supersede=False`` option."""

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


async def pending(saver: Any, thread_id: str, checkpoint_id: str) -> list[tuple[str, str, Any]]:
    found = await saver.aget_tuple(config(thread_id, checkpoint_id))
    return [] if found is None else list(found.pending_writes)


LONG = timedelta(minutes=5)  # a live lease for the whole test: nothing here waits for one to lapse


async def test_a_claim_supersedes_a_live_owner_at_once(make_async_saver: Callable[..., Any]) -> None:
    """Two savers, one thread: B claims the thread A holds (A's lease is live) and owns it at once; A's next
    put and put_writes raise StaleWriteOwnerError and nothing of A's is stored; A's check raises too."""
    node_a, node_b = make_async_saver(node_id="worker-a", ownership_ttl=LONG), make_async_saver(node_id="worker-b")
    thread = str(uuid4())
    a = await node_a.aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    await a.acheck_write_ownership()  # the owner's check passes
    b = await node_b.aclaim_write_ownership(thread)
    assert b.write_ownership.fencing_token > a.write_ownership.fencing_token
    assert (await node_b._leases.find_holder("langgraph-thread:" + thread)).holder_id == "worker-b"
    c2 = await put(b, thread, parent=c1, step=1)

    with pytest.raises(StaleWriteOwnerError) as refused:
        await put(a, thread, parent=c1, step=1)  # A's fork of c1
    assert type(refused.value).is_stale_write_owner_error is True
    assert refused.value.thread_id == thread
    assert refused.value.token == a.write_ownership.fencing_token
    assert refused.value.highest == b.write_ownership.fencing_token
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c2), [("ch", "stale")], "task-1")
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c1), [("ch", "stale")], "task-2")
    with pytest.raises(StaleWriteOwnerError) as checked:
        await a.acheck_write_ownership()
    assert checked.value.is_stale_write_owner_error is True
    assert await a.aextend_write_ownership() is False  # its lease was taken over with the thread

    reader = make_async_saver()  # reads need no ownership
    assert await ids(reader, thread) == [c2, c1]  # no fork: exactly the two legitimate checkpoints
    tip = await reader.aget_tuple(config(thread))
    assert tip.checkpoint["id"] == c2 and tip.parent_config["configurable"]["checkpoint_id"] == c1
    assert await pending(reader, thread, c2) == [] and await pending(reader, thread, c1) == []
    await b.aput_writes(config(thread, c2), [("ch", "current")], "task-1")
    assert await pending(reader, thread, c2) == [("task-1", "ch", "current")]
    await b.acheck_write_ownership()
    assert await b.aextend_write_ownership() is True


async def test_one_saver_claiming_twice_supersedes_its_own_first_writer(make_async_saver: Callable[..., Any]) -> None:
    """The proposal's pattern: claims from the same saver (one holder id) supersede each other too, and a
    superseded writer stays superseded (refused again, nothing durable), also when its holder claims anew."""
    saver = make_async_saver(ownership_ttl=LONG)
    thread = str(uuid4())
    first = await saver.aclaim_write_ownership(thread)
    c1 = await put(first, thread)
    second = await saver.aclaim_write_ownership(thread)
    assert second is not first and saver.write_ownership is None
    for step in (1, 2):
        with pytest.raises(StaleWriteOwnerError):
            await put(first, thread, parent=c1, step=step)
    assert await ids(saver, thread) == [c1]
    third = await saver.aclaim_write_ownership(thread)
    c2 = await put(third, thread, parent=c1, step=1)
    for stale in (first, second):
        with pytest.raises(StaleWriteOwnerError):
            await stale.acheck_write_ownership()
        with pytest.raises(StaleWriteOwnerError):
            await stale.aput_writes(config(thread, c2), [("ch", "stale")], str(uuid4()))
    assert await ids(saver, thread) == [c2, c1]
    assert await pending(saver, thread, c2) == []
    assert (
        third.write_ownership.fencing_token > second.write_ownership.fencing_token > first.write_ownership.fencing_token
    )


async def test_stale_special_channel_write_cannot_displace_the_current_one(
    make_async_saver: Callable[..., Any],
) -> None:
    node_a, node_b = make_async_saver(node_id="worker-a", ownership_ttl=LONG), make_async_saver(node_id="worker-b")
    thread = str(uuid4())
    a = await node_a.aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    b = await node_b.aclaim_write_ownership(thread)
    await b.aput_writes(config(thread, c1), [("__resume__", "current")], "task")
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c1), [("__resume__", "stale")], "task")
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c1), [("ch", "stale")], "task")  # the same task id, a plain channel
    assert await pending(make_async_saver(), thread, c1) == [("task", "__resume__", "current")]


async def test_stale_write_with_the_current_owners_task_id_cannot_displace_it(
    make_async_saver: Callable[..., Any],
) -> None:
    """#8796's collision: both workers ran the same task at the same checkpoint, so their task ids are
    equal; the stored value is the current owner's, whichever write comes last."""
    saver = make_async_saver(ownership_ttl=LONG)
    thread, task = str(uuid4()), str(uuid4())
    stale = await saver.aclaim_write_ownership(thread)
    c1 = await put(stale, thread)
    current = await saver.aclaim_write_ownership(thread)
    await current.aput_writes(config(thread, c1), [("ch", "current")], task)
    with pytest.raises(StaleWriteOwnerError):
        await stale.aput_writes(config(thread, c1), [("ch", "stale")], task)
    assert await pending(saver, thread, c1) == [(task, "ch", "current")]


async def test_refused_large_put_uploads_nothing(make_async_saver: Callable[..., Any]) -> None:
    node_a, node_b = make_async_saver(node_id="a", ownership_ttl=LONG, inline_limit=16), make_async_saver(node_id="b")
    thread = str(uuid4())
    a = await node_a.aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    await node_b.aclaim_write_ownership(thread)
    cp = checkpoint({"big": b"x" * 4096})
    with pytest.raises(StaleWriteOwnerError):
        await a.aput(config(thread, c1), cp, {"step": 1}, cp["channel_versions"])
    with pytest.raises(StaleWriteOwnerError):
        await a.aput_writes(config(thread, c1), [("big", b"y" * 4096)], "task")
    assert await ids(node_b, thread) == [c1]
    record = await node_b.astored_record(config(thread))
    assert record.checkpoint_id == c1 and record.values[0].value.is_large is False
    assert await large_files(node_b) == 0


async def large_files(saver: Any) -> int:
    store = getattr(saver, "store", None)
    if store is not None:
        return int(store.large_count())
    return int(await saver.database["langgraph_values.files"].count_documents({}))


async def test_without_supersede_a_live_lease_is_never_taken_over(make_async_saver: Callable[..., Any]) -> None:
    first, second = make_async_saver(node_id="first"), make_async_saver(node_id="second", ownership_ttl=SHORT)
    thread = str(uuid4())
    owner = await first.aclaim_write_ownership(thread)
    with pytest.raises(WriteOwnershipError, match="owned by holder 'first'"):
        await second.aclaim_write_ownership(thread, supersede=False)
    await owner.acheck_write_ownership()  # the refused claim changed nothing
    await owner.arelease_write_ownership()
    taken = await second.aclaim_write_ownership(thread, supersede=False, wait=timedelta(seconds=5))
    assert taken.write_ownership.fencing_token > owner.write_ownership.fencing_token
    # The lease follows the owner: once B superseded A, a waiting claim waits for B, not for A's old lease.
    third = make_async_saver(node_id="third")
    with pytest.raises(WriteOwnershipError, match="owned by holder 'second'"):
        await third.aclaim_write_ownership(thread, supersede=False)
    # A released owner's writes are still accepted until someone else claims: the fence decides.
    other = str(uuid4())
    kept = await first.aclaim_write_ownership(other)
    await kept.arelease_write_ownership()
    await put(kept, other)


async def test_waiting_claim_gets_the_thread_when_the_lease_lapses(make_async_saver: Callable[..., Any]) -> None:
    holder, waiter = make_async_saver(node_id="holder", ownership_ttl=SHORT), make_async_saver(node_id="waiter")
    thread = str(uuid4())
    old = await holder.aclaim_write_ownership(thread)
    new = await waiter.aclaim_write_ownership(thread, supersede=False, wait=timedelta(seconds=10))
    assert new.write_ownership.fencing_token > old.write_ownership.fencing_token
    assert await old.aextend_write_ownership() is False
    with pytest.raises(StaleWriteOwnerError):
        await old.acheck_write_ownership()


async def test_claim_arguments_are_checked(make_async_saver: Callable[..., Any]) -> None:
    saver = make_async_saver()
    with pytest.raises(InvalidArgumentError, match="wait= applies only to supersede=False"):
        await saver.aclaim_write_ownership("t", wait=timedelta(seconds=1))
    with pytest.raises(InvalidArgumentError, match="supersede must be a bool"):
        await saver.aclaim_write_ownership("t", supersede="no")
    with pytest.raises(InvalidArgumentError, match="wait"):
        await saver.aclaim_write_ownership("t", supersede=False, wait=timedelta(0))


async def test_memory_savers_on_one_store_share_thread_leases() -> None:
    """Given no lease store, memory savers on one store take thread leases from the store's own, as MongoDB
    savers on one database do: the lease names the owner to every saver."""
    from aimon_mongo.langgraph import AsyncAimonMemoryCheckpointSaver, CheckpointMemoryStore

    store = CheckpointMemoryStore()
    a, b = AsyncAimonMemoryCheckpointSaver(store, node_id="a"), AsyncAimonMemoryCheckpointSaver(store, node_id="b")
    thread = str(uuid4())
    owner = await a.aclaim_write_ownership(thread)
    with pytest.raises(WriteOwnershipError, match="owned by holder 'a'"):
        await b.aclaim_write_ownership(thread, supersede=False)
    taken = await b.aclaim_write_ownership(thread)
    assert taken.write_ownership.fencing_token > owner.write_ownership.fencing_token
    with pytest.raises(StaleWriteOwnerError):
        await owner.acheck_write_ownership()


async def test_the_token_comes_from_the_thread_not_from_the_lease_store() -> None:
    """A claim's token is above the thread's fence even when its lease's token is not (the thread was
    claimed through a lease store whose tokens ran higher; here two savers each with a lease store of its
    own): each claim is the fence + 1, and the earlier writer is superseded."""
    from aimon_mongo._async.memory.leases import AsyncMemorySessionLeaseStore
    from aimon_mongo.langgraph import AsyncAimonMemoryCheckpointSaver, CheckpointMemoryStore
    from aimon_mongo.memory import MemoryStorage

    store = CheckpointMemoryStore()
    thread, high = str(uuid4()), 1 << 60
    assert store.claim_fence(thread, high) == high  # claims through another lease store
    savers = [
        AsyncAimonMemoryCheckpointSaver(store, node_id=node, leases=AsyncMemorySessionLeaseStore(MemoryStorage()))
        for node in ("a", "b")
    ]
    a = await savers[0].aclaim_write_ownership(thread)
    c1 = await put(a, thread)
    b = await savers[1].aclaim_write_ownership(thread)
    assert (a.write_ownership.fencing_token, b.write_ownership.fencing_token) == (high + 1, high + 2)
    assert a.write_ownership.lease.fencing_token < high and b.write_ownership.lease.fencing_token < high
    with pytest.raises(StaleWriteOwnerError):
        await put(a, thread, parent=c1, step=1)
    assert await ids(savers[1], thread) == [c1]


async def test_ownership_is_per_thread_and_writer_is_bound(make_async_saver: Callable[..., Any]) -> None:
    saver = make_async_saver()
    t1, t2 = str(uuid4()), str(uuid4())
    owner1 = await saver.aclaim_write_ownership(t1)
    await make_async_saver(node_id="other").aclaim_write_ownership(t2)
    await saver.aclaim_write_ownership(t2)
    c = await put(owner1, t1)
    assert (await saver.aget_tuple(config(t1))).checkpoint["id"] == c
    await owner1.acheck_write_ownership()
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
    await owner.acheck_write_ownership()
    assert (await owner.aget_tuple(config(thread))).pending_writes == [("t", "ch", "v")]


def test_sync_writer_is_superseded_at_once(make_sync_saver: Callable[..., Any]) -> None:
    node_a, node_b = make_sync_saver(node_id="a", ownership_ttl=LONG), make_sync_saver(node_id="b")
    thread = str(uuid4())
    a = node_a.claim_write_ownership(thread)
    cp = checkpoint({"step": 0})
    c1 = a.put(config(thread), cp, {"step": 0}, cp["channel_versions"])["configurable"]["checkpoint_id"]
    with pytest.raises(WriteOwnershipError, match="owned by holder 'a'"):
        node_b.claim_write_ownership(thread, supersede=False)
    b = node_b.claim_write_ownership(thread)
    cp2 = checkpoint({"step": 1})
    c2 = b.put(config(thread, c1), cp2, {"step": 1}, cp2["channel_versions"])["configurable"]["checkpoint_id"]
    with pytest.raises(StaleWriteOwnerError):
        a.put(config(thread, c1), cp2 | {"id": empty_checkpoint()["id"]}, {"step": 1}, cp2["channel_versions"])
    with pytest.raises(StaleWriteOwnerError):
        a.put_writes(config(thread, c2), [("ch", "x")], "t")
    with pytest.raises(StaleWriteOwnerError):
        a.check_write_ownership()
    assert a.extend_write_ownership() is False and b.extend_write_ownership() is True
    assert [t.checkpoint["id"] for t in node_b.list(config(thread))] == [c2, c1]
    assert node_b.get_tuple(config(thread, c2)).pending_writes == []

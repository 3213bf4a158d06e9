"""Retention per thread on the store's clock: a thread expires whole (checkpoints, writes, large values),
writes refresh it (reads when configured), a write continuing an expired thread is refused (never a
broken parent chain), a fresh start begins it anew."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from aimon_mongo.errors import ThreadExpiredError
from aimon_mongo.langgraph import AsyncAimonMemoryCheckpointSaver, CheckpointMemoryStore
from tests.langgraph.conftest import FakeClock


def conf(thread: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint_id:
        c["checkpoint_id"] = checkpoint_id
    return {"configurable": c}


async def put(saver: Any, thread: str, parent: str | None, **values: Any) -> str:
    cp = dict(empty_checkpoint())
    versions = {k: saver.get_next_version(None, None) for k in values}
    cp.update(channel_values=values, channel_versions=versions)
    stored = await saver.aput(conf(thread, parent), cp, {"step": 0}, versions)
    return str(stored["configurable"]["checkpoint_id"])


async def count(saver: Any, thread: str) -> int:
    return len([t async for t in saver.alist(conf(thread))])


async def test_memory_thread_expires_whole_and_writes_refresh_it() -> None:
    clock = FakeClock()
    saver = AsyncAimonMemoryCheckpointSaver(CheckpointMemoryStore(clock), ttl=timedelta(hours=1), inline_limit=8)
    thread, other = str(uuid4()), str(uuid4())
    c1 = await put(saver, thread, None, big="x" * 100)
    await put(saver, other, None, a=1)
    clock.advance(timedelta(minutes=50))
    c2 = await put(saver, thread, c1, a=2)  # refreshes thread (ttl/10 passed since the last touch)
    clock.advance(timedelta(minutes=30))
    assert await saver.asweep_expired() == [other]  # 80 min: other expired, thread refreshed at 50 min
    assert await count(saver, other) == 0
    assert await count(saver, thread) == 2
    clock.advance(timedelta(minutes=31))
    assert await saver.asweep_expired() == [thread]
    assert await count(saver, thread) == 0 and saver.store.large_count() == 0  # whole: values too
    with pytest.raises(ThreadExpiredError, match="cannot be continued"):
        await put(saver, thread, c2, a=3)  # continuing the expired chain is refused
    with pytest.raises(ThreadExpiredError):
        await saver.aput_writes(conf(thread, c2), [("ch", 1)], "task")
    fresh = await put(saver, thread, None, a=1)  # a fresh start begins it anew
    assert [t.checkpoint["id"] async for t in saver.alist(conf(thread))] == [fresh]


async def test_memory_reads_refresh_when_configured() -> None:
    clock = FakeClock()
    store = CheckpointMemoryStore(clock)
    reading = AsyncAimonMemoryCheckpointSaver(store, ttl=timedelta(hours=1), refresh_on_read=True)
    plain = AsyncAimonMemoryCheckpointSaver(store, ttl=timedelta(hours=1))
    read_one, unread = str(uuid4()), str(uuid4())
    await put(plain, read_one, None, a=1)
    await put(plain, unread, None, a=1)
    clock.advance(timedelta(minutes=40))
    assert await plain.aget_tuple(conf(unread)) is not None  # a plain read does not refresh
    assert await reading.aget_tuple(conf(read_one)) is not None
    clock.advance(timedelta(minutes=40))
    assert await plain.asweep_expired() == [unread]
    assert await count(plain, read_one) == 1


async def test_expired_unswept_thread_restarts_cleanly(make_async_saver: Callable[..., Any], saver_kind: str) -> None:
    """On the store's real clock (MongoDB: $$NOW): a short ttl lapses; a continuation is refused; a fresh
    start deletes the expired thread first; sweeping removes expired threads whole."""
    ttl = timedelta(seconds=1)
    saver = make_async_saver(ttl=ttl, inline_limit=8)
    thread, idle = str(uuid4()), str(uuid4())
    c1 = await put(saver, thread, None, big="y" * 64)
    await put(saver, idle, None, big="z" * 64)
    await asyncio.sleep(1.5)
    with pytest.raises(ThreadExpiredError):
        await put(saver, thread, c1, a=1)
    fresh = await put(saver, thread, None, big="w" * 64)
    tup = await make_async_saver(value_cache_bytes=0).aget_tuple(conf(thread))
    assert tup.checkpoint["id"] == fresh and tup.checkpoint["channel_values"] == {"big": "w" * 64}
    assert await saver.asweep_expired() == [idle]
    assert await count(saver, idle) == 0
    threads = {t.thread_id: t for t in await saver.athreads()}
    assert set(threads) == {thread} and threads[thread].checkpoints == 1

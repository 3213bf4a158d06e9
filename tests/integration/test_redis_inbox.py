"""Redis inbox specifics: the collect bound over tiers, unreadable entries kept byte for byte in the
quarantine stream, clients that decode responses, and glob characters in ids and prefixes."""

from __future__ import annotations

from typing import Any

import redis
import redis.asyncio

from aimon_mongo.model import Priority
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeyPrefixes, RedisSessionBackends
from tests.conformance.helpers import message


async def test_collect_takes_at_most_the_bound_over_all_tiers(redis_url: str, redis_prefixes: RedisKeyPrefixes) -> None:
    node = AsyncRedisSessionBackends(redis_url, "node-a", redis_prefixes, collect_limit=5)
    try:
        assert node.inbox.batch_limit == 5
        for i in range(4):
            await node.inbox.deliver(message("s-1", turn_id=f"next-{i}", priority=Priority.NEXT))
        for i in range(3):
            await node.inbox.deliver(message("s-1", turn_id=f"now-{i}", priority=Priority.NOW))
        first = await node.inbox.collect("s-1")
        assert [m.turn_id for m in first.messages] == ["now-0", "now-1", "now-2", "next-0", "next-1"]
        second = await node.inbox.collect("s-1")
        assert [m.turn_id for m in second.messages] == ["next-2", "next-3"]
    finally:
        await node.close()


async def test_unreadable_bytes_are_quarantined_unchanged(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    stream = f"{root}:aimon:inbox:s-1:NEXT"
    not_utf8 = b'{"turnId":"t-9","userInput":"\xff\xfe"}'
    bad_id = redis_client.xadd(stream, {"p": not_utf8}).decode()
    foreign_id = redis_client.xadd(stream, {"payload": b"{}", "other": b"x"}).decode()
    await node.inbox.deliver(message("s-1", turn_id="good"))

    batch = await node.inbox.collect("s-1")
    assert [m.turn_id for m in batch.messages] == ["good"]
    assert [u.id for u in batch.unreadable] == [bad_id, foreign_id]
    assert all(u.reason for u in batch.unreadable)

    stored = redis_client.xrange(f"{root}:aimon:inbox:s-1:quarantine")
    assert [fields[b"entryId"] for _, fields in stored] == [bad_id.encode(), foreign_id.encode()]
    assert stored[0][1][b"p"] == not_utf8  # byte for byte, even though it is not text
    assert stored[1][1][b"p"] == b'{"payload":"{}","other":"x"}'  # a foreign entry keeps every field
    listed = await node.inbox.list_quarantined("s-1")
    assert [(q.entry_id, q.raw) for q in listed] == [(bad_id, not_utf8), (foreign_id, '{"payload":"{}","other":"x"}')]
    assert listed[0].id == f"s-1/{stored[0][0].decode()}"
    assert await node.inbox.delete_quarantined(listed[0].id) is True
    assert await node.inbox.delete_quarantined(listed[1].id) is True
    assert redis_client.exists(f"{root}:aimon:inbox:s-1:quarantine") == 0


async def test_clients_that_decode_responses_work_too(redis_url: str, redis_prefixes: RedisKeyPrefixes) -> None:
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    node = AsyncRedisSessionBackends(client, "node-a", redis_prefixes)
    try:
        raw = redis.Redis.from_url(redis_url)
        raw.xadd(f"{redis_prefixes.inbox}:s-1:NOW", {"p": b"\xff not text"})
        raw.close()
        await node.inbox.deliver(message("s-1", turn_id="good"))
        batch = await node.inbox.collect("s-1")
        assert [m.turn_id for m in batch.messages] == ["good"] and len(batch.unreadable) == 1
        assert (await node.inbox.list_quarantined("s-1"))[0].raw == b"\xff not text"
    finally:
        await node.close()
    assert await client.ping() is True  # a borrowed client stays open
    await client.aclose()


async def test_glob_characters_never_widen_a_scan(redis_url: str, redis_root: str) -> None:
    wild = RedisSessionBackends(redis_url, "node-a", RedisKeyPrefixes().under(f"{redis_root}:w*"))
    tame = RedisSessionBackends(redis_url, "node-b", RedisKeyPrefixes().under(f"{redis_root}:wX"))
    try:
        tame.records.merge_transcript("other", "t", 1)
        tame.inbox.deliver(message("other"))
        wild.records.merge_transcript("*", "t", 1)
        wild.records.merge_transcript("a[bc]?", "t", 1)
        assert wild.records.list_session_ids() == ["*", "a[bc]?"]
        assert tame.records.list_session_ids() == ["other"]
        assert wild.inbox.is_empty("*") and not tame.inbox.is_empty("other")
        wild.inbox.purge("*")
        assert not tame.inbox.is_empty("other")
        assert wild.inbox.list_quarantined() == []
    finally:
        wild.close()
        tame.close()

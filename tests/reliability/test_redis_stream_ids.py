"""Redis inbox entry ids are never handed out twice, even when a collect empties a stream and a deliver
recreates it within the same millisecond (found by the connection-cut run: two different messages came
back with the same id, because the collect deleted the emptied stream and XADD * numbered the new one
from the current millisecond again)."""

from __future__ import annotations

from typing import Any

from aimon_mongo.model import Priority
from tests.conformance.helpers import message, new_id


async def test_ids_stay_unique_when_a_stream_is_emptied_and_refilled_at_once(
    redis_cluster: Any, sizes: Any, reliability_counts: Any
) -> None:
    node = await redis_cluster.node("node-a")
    session = new_id("s")
    rounds = sizes.pick(ci=300, full=5_000)
    seen: dict[str, str] = {}
    for i in range(rounds):  # deliver-collect back to back: many land in one millisecond
        turn = f"t{i}"
        delivered = await node.inbox.deliver(message(session, turn_id=turn, priority=Priority.NOW))
        batch = await node.inbox.collect(session)
        assert [m.id for m in batch.messages] == [delivered]
        assert delivered not in seen, f"id {delivered} of {turn} was already given to {seen[delivered]}"
        seen[delivered] = turn
    reliability_counts.add("stream-ids", "redis-" + ("async" if redis_cluster.is_async else "sync"),
                           messages=rounds, duplicates=rounds - len(seen))  # fmt: skip


async def test_a_stream_kept_within_its_millisecond_is_removed_by_a_later_collect(
    redis_cluster: Any, redis_client: Any
) -> None:
    node = await redis_cluster.node("node-a")
    kept = 0
    for _ in range(20):  # deliver + collect take well under a millisecond here: most rounds keep the stream
        session = new_id("s")
        key = f"{redis_cluster.root}:aimon:inbox:{session}:NOW"
        delivered = await node.inbox.deliver(message(session, priority=Priority.NOW))
        await node.inbox.collect(session)
        kept += redis_client.exists(key)
        while True:
            seconds, micros = redis_client.time()
            if seconds * 1000 + micros // 1000 > int(delivered.split("-")[0]):
                break
        assert (await node.inbox.collect(session)).messages == ()
        assert redis_client.exists(key) == 0, "an empty stream outlived its millisecond"
    print(f"\n{kept} of 20 emptied streams were kept within their millisecond, then removed")

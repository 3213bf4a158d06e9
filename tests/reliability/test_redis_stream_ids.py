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

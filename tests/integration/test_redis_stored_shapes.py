"""What the Redis backend stores, read back raw with redis-py and compared with hard-coded literals.

Keys live under the test's namespace (``<root>:``); the rest of every key is the frozen default layout.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import redis

from aimon_mongo.codec.instant import format_instant
from aimon_mongo.model import (
    BackgroundTask,
    IdempotencyEntry,
    IdempotencyStatus,
    Principal,
    SignalKind,
    TaskState,
    TextInput,
)
from aimon_mongo.model.record import LogSegment, SessionTotals
from aimon_mongo.redis import RedisSessionBackends
from aimon_mongo.schema_gate import assert_conforms
from tests.conformance.helpers import signal
from tests.golden.envelopes import (
    MULTIMODAL_ENVELOPE_JSON,
    TEXT_ENVELOPE_JSON,
    UNREADABLE_ENCODED_ENVELOPE_JSON,
    multimodal_message,
    text_message,
)

TEXT_MESSAGE = text_message()
MULTIMODAL_MESSAGE = multimodal_message()

T0 = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)


def _stream(client: redis.Redis, key: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    return client.xrange(key)  # type: ignore[return-value]


async def test_text_submission_is_stored_byte_for_byte(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    entry_id = await node.inbox.deliver(TEXT_MESSAGE)
    root = redis_cluster.root
    assert _stream(redis_client, f"{root}:aimon:inbox:conv-7f3a:NEXT") == [
        (entry_id.encode(), {b"p": TEXT_ENVELOPE_JSON.encode()})
    ]
    _wait_past_millisecond_of(redis_client, entry_id)
    batch = await node.inbox.collect("conv-7f3a")
    assert batch.messages == (TEXT_MESSAGE.with_id(entry_id),)
    assert redis_client.exists(f"{root}:aimon:inbox:conv-7f3a:NEXT") == 0  # an emptied stream is removed


def _wait_past_millisecond_of(client: redis.Redis, entry_id: str) -> None:
    """Until the server clock has left the millisecond of ``entry_id`` (collect keeps an emptied stream
    within that millisecond, so a recreated stream cannot reuse the id)."""
    while True:
        seconds, micros = client.time()  # type: ignore[misc]
        if seconds * 1000 + micros // 1000 > int(entry_id.split("-")[0]):
            return


async def test_multimodal_submission_keeps_text_and_structure(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    entry_id = await node.inbox.deliver(MULTIMODAL_MESSAGE)
    stored = _stream(redis_client, f"{redis_cluster.root}:aimon:inbox:conv-7f3a:NEXT")
    assert stored == [(entry_id.encode(), {b"p": MULTIMODAL_ENVELOPE_JSON.encode()})]
    assert (await node.inbox.collect("conv-7f3a")).messages == (MULTIMODAL_MESSAGE.with_id(entry_id),)


async def test_envelopes_written_by_other_builds_are_read(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    stream = f"{root}:aimon:inbox:conv-7f3a:NEXT"
    text_id = redis_client.xadd(stream, {"p": TEXT_ENVELOPE_JSON}).decode()
    future_id = redis_client.xadd(stream, {"p": UNREADABLE_ENCODED_ENVELOPE_JSON}).decode()
    batch = await node.inbox.collect("conv-7f3a")
    assert batch.unreadable == ()
    assert batch.messages[0] == TEXT_MESSAGE.with_id(text_id)
    future = batch.messages[1]
    expected = (future_id, "turn-0003", TextInput(text="[Video: video/mp4, 9 bytes]"))
    assert (future.id, future.turn_id, future.user_input) == expected


async def test_lease_lock_and_fencing_counter(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    seconds, micros = redis_client.time()
    lease = await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30))
    assert lease is not None
    # A hybrid token: max(counter + 1, server TIME in ms x 1024), so a promoted replica cannot reissue it.
    assert lease.fencing_token >= (seconds * 1000 + micros // 1000) * 1024
    token = lease.fencing_token
    assert redis_client.get(f"{root}:aimon:conv:lock:s-1") == f"node-a:{token}".encode()
    assert 0 < redis_client.pttl(f"{root}:aimon:conv:lock:s-1") <= 30000
    assert redis_client.get(f"{root}:aimon:conv:lock:fence:s-1") == str(token).encode()
    assert redis_client.ttl(f"{root}:aimon:conv:lock:fence:s-1") == -1  # the counter never expires
    await node.leases.release(lease)
    assert redis_client.exists(f"{root}:aimon:conv:lock:s-1") == 0
    assert redis_client.get(f"{root}:aimon:conv:lock:fence:s-1") == str(token + 1).encode()  # retired
    redis_client.set(f"{root}:aimon:conv:lock:fence:s-1", 2**52)  # a counter ahead of the clock: + 1
    again = await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30))
    assert again is not None and again.fencing_token == 2**52 + 1
    assert redis_client.get(f"{root}:aimon:conv:lock:s-1") == f"node-a:{2**52 + 1}".encode()


async def test_locks_written_by_other_builds_are_honoured(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    redis_client.set(f"{root}:aimon:conv:lock:fence:s-1", 41)
    redis_client.set(f"{root}:aimon:conv:lock:s-1", "ref-node:41", px=30000)
    held = await node.leases.find_holder("s-1")
    assert held is not None and (held.holder_id, held.fencing_token) == ("ref-node", 41)
    assert await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30)) is None
    redis_client.delete(f"{root}:aimon:conv:lock:s-1")
    taken = await node.leases.try_acquire("s-1", "node-a", timedelta(seconds=30))
    assert taken is not None and taken.fencing_token > 41
    redis_client.delete(f"{root}:aimon:conv:lock:s-1")
    assert redis_client.incr(f"{root}:aimon:conv:lock:fence:s-1") == taken.fencing_token + 1  # a reference INCR
    redis_client.set(f"{root}:aimon:conv:lock:s-2", "node-b:3")  # no TTL: corruption, reads as unheld
    assert await node.leases.find_holder("s-2") is None


async def test_idempotency_value_and_in_place_rewrites(
    redis_url: str, redis_prefixes: Any, redis_client: redis.Redis
) -> None:
    node = RedisSessionBackends(redis_url, "node-a", redis_prefixes, clock=lambda: T0 + timedelta(seconds=1))
    try:
        entry = IdempotencyEntry(
            key="k-1", session_id="s-1", input_hash="h", status=IdempotencyStatus.IN_FLIGHT,
            holder_id="node-a/t/1", created_at=T0, last_touched_at=T0,
        )  # fmt: skip
        assert node.idempotency.put_if_absent(entry, timedelta(seconds=60)).inserted
        key = f"{redis_prefixes.idempotency}:k-1"
        assert redis_client.get(key) == (
            b'{"key":"k-1","conversationId":"s-1","inputHash":"h","status":"IN_FLIGHT","holderId":"node-a/t/1",'
            b'"createdAt":"2026-01-02T03:04:05.678Z","lastTouchedAt":"2026-01-02T03:04:05.678Z","ttlMillis":60000,'
            b'"result":null}'
        )
        assert node.idempotency.release_holder("k-1", "node-a/t/1", timedelta(minutes=5))
        assert redis_client.get(key) == (
            b'{"key":"k-1","conversationId":"s-1","inputHash":"h","status":"IN_FLIGHT","holderId":null,'
            b'"createdAt":"2026-01-02T03:04:05.678Z","lastTouchedAt":"2026-01-02T03:04:06.678Z","ttlMillis":300000,'
            b'"result":null}'
        )
        assert 290000 < redis_client.pttl(key) <= 300000
    finally:
        node.close()


async def test_idempotency_scripts_work_on_values_other_builds_wrote(
    redis_cluster: Any, redis_client: redis.Redis
) -> None:
    node = await redis_cluster.node("node-a")
    key = f"{redis_cluster.root}:aimon:conv:idem:ref-key"
    reference_value = (
        '{"key":"ref-key","conversationId":"s-9","inputHash":"abc","status":"IN_FLIGHT","holderId":"ref/main/7",'
        '"createdAt":"2025-12-31T23:59:59Z","lastTouchedAt":"2025-12-31T23:59:59.5Z","ttlMillis":30000,"result":null}'
    )
    redis_client.set(key, reference_value, px=30000)
    assert await node.idempotency.touch("ref-key", "ref/main/7") is True
    touched = json.loads(redis_client.get(key) or b"{}")
    assert list(touched) == [
        "key", "conversationId", "inputHash", "status", "holderId", "createdAt", "lastTouchedAt", "ttlMillis", "result",
    ]  # fmt: skip
    assert touched["lastTouchedAt"] != "2025-12-31T23:59:59.5Z" and touched["ttlMillis"] == 30000
    assert await node.idempotency.compare_and_reset("ref-key", "ref/main/7") is True
    assert redis_client.exists(key) == 0


async def test_record_hash_and_write_fence(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    await node.records.provision("s-1", "assistant", 5)
    await node.records.merge_transcript("s-1", "T", 5)
    await node.records.set_totals_and_budget_override("s-1", SessionTotals(turn_count=2, total_tokens=9), {"m": 1}, 5)
    stored = redis_client.hgetall(f"{root}:aimon:session:record:s-1")
    assert {k: v for k, v in stored.items() if k != b"updatedAt"} == {
        b"sessionId": b"s-1",
        b"agentRef": b"assistant",
        b"transcript": b"T",
        b"sessionTotals": b'{"turnCount":2,"iterations":0,"promptTokens":0,"completionTokens":0,'
        b'"totalTokens":9,"reasoningTokens":0}',
        b"budgetOverride": b'{"m":1}',
    }
    assert redis_client.get(f"{root}:aimon:session:fence:{{s:s-1}}") == b"5"


async def test_segment_hashes_share_the_session_hash_tag(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    segment = LogSegment(
        session_id="s-1", segment_id="g-1", from_seq=0, to_seq=4, entry_count=5, payload="[]", created_at=T0
    )
    await node.segments.put(segment, 3)
    assert redis_client.hgetall(f"{root}:aimon:session:segment:{{s:s-1}}:data") == {
        b"g-1": b'{"sessionId":"s-1","segmentId":"g-1","fromSeq":0,"toSeq":4,"entryCount":5,"payload":"[]",'
        b'"createdAt":"2026-01-02T03:04:05.678Z"}'
    }
    assert redis_client.hgetall(f"{root}:aimon:session:segment:{{s:s-1}}:created") == {b"g-1": b"1767323045678"}
    assert redis_client.get(f"{root}:aimon:session:fence:{{s:s-1}}") == b"3"


async def test_task_value_and_index_set(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    task = BackgroundTask(
        task_id="t-1", subagent_name="researcher", state=TaskState.RUNNING, start_time=T0, output_offset=3,
        owner=Principal.user("u-1", "Ann"), agent_runtime_id="agent:researcher",
    )  # fmt: skip
    await node.tasks.put(task)
    assert redis_client.get(f"{root}:aimon:subagent:task:t-1") == (
        b'{"taskId":"t-1","subagentName":"researcher","state":"RUNNING","startTime":"2026-01-02T03:04:05.678Z",'
        b'"outputOffset":3,"description":"","owner":{"type":"USER","id":"u-1","displayName":"Ann"},'
        b'"contextId":"agent:researcher"}'
    )
    assert redis_client.smembers(f"{root}:aimon:subagent:task:index") == {b"t-1"}
    redis_client.delete(f"{root}:aimon:subagent:task:t-1")  # value gone: list drops the stale index entry
    assert await node.tasks.list() == []
    assert redis_client.smembers(f"{root}:aimon:subagent:task:index") == set()


def _texts(mapping: dict[bytes, bytes]) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in mapping.items()}


async def test_stored_values_conform_to_their_declarations(redis_cluster: Any, redis_client: redis.Redis) -> None:
    """Every Redis root of ``aimon_mongo/stored/`` checked against what the backend actually wrote."""
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    pubsub = redis_client.pubsub()
    pubsub.subscribe(f"{root}:aimon:conv:events:conv-7f3a")
    try:
        await node.inbox.deliver(MULTIMODAL_MESSAGE)
        [(_id, entry)] = _stream(redis_client, f"{root}:aimon:inbox:conv-7f3a:NEXT")
        assert_conforms("redis.inbox.stream-entry", _texts(entry))
        redis_client.xadd(f"{root}:aimon:inbox:conv-7f3a:NOW", {"p": b"\xff damaged"})
        await node.inbox.collect("conv-7f3a")
        [(_qid, quarantined)] = _stream(redis_client, f"{root}:aimon:inbox:conv-7f3a:quarantine")
        raw_p = quarantined.pop(b"p")
        assert raw_p == b"\xff damaged"  # kept as stored: not text
        assert_conforms("redis.inbox.quarantine-entry", {"p": raw_p, **_texts(quarantined)})

        lease = await node.leases.try_acquire("conv-7f3a", "node-a", timedelta(seconds=30))
        assert lease is not None
        assert_conforms("redis.lease.value", (redis_client.get(f"{root}:aimon:conv:lock:conv-7f3a") or b"").decode())
        counter = redis_client.get(f"{root}:aimon:conv:lock:fence:conv-7f3a") or b""
        assert_conforms("redis.lease.fence-counter", counter.decode())

        entry = IdempotencyEntry(
            key="k-1", session_id="conv-7f3a", input_hash="h", status=IdempotencyStatus.IN_FLIGHT,
            holder_id=None, created_at=T0, last_touched_at=T0,
        )  # fmt: skip
        await node.idempotency.put_if_absent(entry, timedelta(seconds=60))
        assert_conforms("redis.idempotency.value", (redis_client.get(f"{root}:aimon:conv:idem:k-1") or b"").decode())

        task = BackgroundTask(task_id="t-1", subagent_name="r", state=TaskState.PENDING, start_time=T0)
        await node.tasks.put(task)
        await node.tasks.transition("t-1", TaskState.COMPLETED)
        value = (redis_client.get(f"{root}:aimon:subagent:task:t-1") or b"").decode()
        assert_conforms("redis.background-task.value", value)

        await node.signals.publish(signal("conv-7f3a", "node-a", SignalKind.STATUS, phase="IDLE"))
        message = pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
        while message is None:
            message = pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
        assert_conforms("redis.signal.message", message["data"].decode())

        await node.records.provision("conv-7f3a", "assistant", lease.fencing_token)
        await node.records.merge_transcript("conv-7f3a", "{}", lease.fencing_token)
        await node.records.set_totals_and_budget_override("conv-7f3a", SessionTotals(), {"m": 1}, lease.fencing_token)
        await node.records.increment_compaction_failure_count("conv-7f3a", lease.fencing_token)
        record = _texts(redis_client.hgetall(f"{root}:aimon:session:record:conv-7f3a"))
        assert_conforms("redis.session-record.hash", record)
        fence = (redis_client.get(f"{root}:aimon:session:fence:{{s:conv-7f3a}}") or b"").decode()
        assert_conforms("redis.session-record.write-fence", fence)

        segment = LogSegment(
            session_id="conv-7f3a", segment_id="g-1", from_seq=0, to_seq=0, entry_count=1,
            payload='{"version":2,"entries":[]}',
            created_at=T0,
        )  # fmt: skip
        await node.segments.put(segment, lease.fencing_token)
        data = _texts(redis_client.hgetall(f"{root}:aimon:session:segment:{{s:conv-7f3a}}:data"))
        created = _texts(redis_client.hgetall(f"{root}:aimon:session:segment:{{s:conv-7f3a}}:created"))
        assert_conforms("redis.log-segment.data-value", data["g-1"])
        assert_conforms("redis.log-segment.created-value", created["g-1"])
    finally:
        pubsub.close()


JAVA_TASK_VALUE = (
    '{"taskId":"java-t","subagentName":"researcher","state":"PENDING",'
    '"startTime":"2026-07-07T10:15:30.123456789Z","outputOffset":0,"description":"crawl",'
    '"lastHeartbeat":"2026-07-07T10:16:00.000000001Z"}'
)


async def test_a_task_a_java_node_wrote_keeps_its_nanoseconds_through_our_rewrites(
    redis_cluster: Any, redis_client: redis.Redis
) -> None:
    node = await redis_cluster.node("node-a")
    key = f"{redis_cluster.root}:aimon:subagent:task:java-t"
    redis_client.set(key, JAVA_TASK_VALUE)
    redis_client.sadd(f"{redis_cluster.root}:aimon:subagent:task:index", "java-t")
    assert await node.tasks.transition("java-t", TaskState.RUNNING) is not None
    after = json.loads(redis_client.get(key) or b"{}")
    assert after["state"] == "RUNNING"
    assert after["startTime"] == "2026-07-07T10:15:30.123456789Z"
    assert after["lastHeartbeat"] == "2026-07-07T10:16:00.000000001Z"
    assert await node.tasks.heartbeat("java-t", datetime(2026, 7, 7, 10, 17, tzinfo=UTC)) is not None
    after = json.loads(redis_client.get(key) or b"{}")
    assert after["startTime"] == "2026-07-07T10:15:30.123456789Z"
    assert after["lastHeartbeat"] == "2026-07-07T10:17:00Z"


async def test_an_idempotency_entry_a_java_node_wrote_keeps_its_nanoseconds(
    redis_cluster: Any, redis_client: redis.Redis
) -> None:
    node = await redis_cluster.node("node-a")
    key = f"{redis_cluster.root}:aimon:conv:idem:java-key"
    redis_client.set(
        key,
        '{"key":"java-key","conversationId":"s-9","inputHash":"abc","status":"IN_FLIGHT","holderId":"ref/main/7",'
        '"createdAt":"2026-07-07T10:15:30.123456789Z","lastTouchedAt":"2026-07-07T10:15:31.987654321Z",'
        '"ttlMillis":30000,"result":null}',
        px=30000,
    )
    assert await node.idempotency.touch("java-key", "ref/main/7") is True
    touched = json.loads(redis_client.get(key) or b"{}")
    assert touched["createdAt"] == "2026-07-07T10:15:30.123456789Z"
    found = await node.idempotency.find("java-key")
    assert found is not None and format_instant(found.created_at) == "2026-07-07T10:15:30.123456789Z"

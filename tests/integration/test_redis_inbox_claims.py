"""Redis acknowledged delivery, read back raw with redis-py and counted with ``MONITOR``: the claims hash
``<inbox>:<id>:claims`` against literals (field ``<tier>:<stream id>``, value ``<token>:<attempts>``); stream
entries never change; ``claim``, ``acknowledge`` and ``quarantine_entries`` one ``EVALSHA`` each; a
reference-style collect (``XRANGE`` + ``XDEL``) still takes claimed entries."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
import redis

from aimon_mongo.model import Priority
from aimon_mongo.schema_gate import assert_conforms
from tests.conformance.helpers import message, new_id, wait_until

T = TypeVar("T")


class Monitor:
    """The commands clients (not scripts) sent that name the test's namespace, seen by ``MONITOR``."""

    def __init__(self, url: str, root: str) -> None:
        self._client = redis.Redis.from_url(url)
        self._root = root
        self._seen: list[str] = []
        self._full: list[str] = []
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._ready.wait(10), "MONITOR did not start"

    def _run(self) -> None:
        with self._client.monitor() as monitor:
            self._ready.set()
            while True:
                seen = monitor.next_command()
                command = str(seen.get("command", ""))
                if command == f"ECHO {self._root}:stop":
                    return
                if seen.get("client_type") != "lua" and self._root in command:
                    self._full.append(command)
                    self._seen.append(command.split(" ", 1)[0].upper())

    async def commands(self, during: Callable[[], Awaitable[T]]) -> tuple[list[str], T]:
        """The commands naming the namespace sent while ``during()`` ran, and what it returned."""
        start = await self._caught_up()
        result = await during()
        end = await self._caught_up()
        return [c for c in self._seen[start:end] if c != "ECHO"], result

    async def _caught_up(self) -> int:
        """MONITOR reports in order: once a fresh ``ECHO`` is seen, so is everything sent before it. The
        position just past it."""
        marker = f"ECHO {self._root}:fence-{new_id()}"
        self._client.echo(marker.split(" ", 1)[1])
        await wait_until(lambda: marker in self._full, "MONITOR to report the fence")
        return self._full.index(marker) + 1

    def close(self) -> None:
        self._client.echo(f"{self._root}:stop")
        self._thread.join(10)
        self._client.close()


@pytest.fixture
def monitor(redis_url: str, redis_cluster: Any) -> Iterator[Monitor]:
    watching = Monitor(redis_url, redis_cluster.root)
    yield watching
    watching.close()


async def test_claim_state_is_a_hash_beside_the_streams(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    session = new_id()
    entry_id = await node.inbox.deliver(message(session, turn_id="a", priority=Priority.NOW))
    stream = f"{root}:aimon:inbox:{session}:NOW"
    before = redis_client.xrange(stream)
    claims = f"{root}:aimon:inbox:{session}:claims"
    assert redis_client.exists(claims) == 0  # nothing until claimed
    await node.inbox.claim(session, 41)
    await node.inbox.claim(session, 42)
    assert redis_client.hgetall(claims) == {f"NOW:{entry_id}".encode(): b"42:2"}
    assert_conforms(
        "redis.inbox.claims-hash", {k.decode(): v.decode() for k, v in redis_client.hgetall(claims).items()}
    )
    assert redis_client.xrange(stream) == before  # the stream entry is never changed
    assert await node.inbox.acknowledge(session, 41, [entry_id]) == 0
    assert await node.inbox.acknowledge(session, 42, [entry_id]) == 1
    assert redis_client.exists(claims) == 0 and redis_client.xlen(stream) == 0


async def test_exhausted_entries_go_to_the_quarantine_stream(redis_cluster: Any, redis_client: redis.Redis) -> None:
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    session = new_id()
    entry_id = await node.inbox.deliver(message(session, turn_id="p"))
    payload = redis_client.xrange(f"{root}:aimon:inbox:{session}:NEXT")[0][1][b"p"]
    await node.inbox.claim(session, 1, max_attempts=1)
    assert (await node.inbox.claim(session, 2, max_attempts=1)).quarantined == [entry_id]
    [(_qid, kept)] = redis_client.xrange(f"{root}:aimon:inbox:{session}:quarantine")
    assert kept == {b"p": payload, b"entryId": entry_id.encode(), b"error": b"handed out 1 times"}
    assert redis_client.exists(f"{root}:aimon:inbox:{session}:claims") == 0


async def test_a_reference_collect_still_takes_claimed_entries(redis_cluster: Any, redis_client: redis.Redis) -> None:
    """The reference reads a tier stream with ``XRANGE`` and removes what it read with ``XDEL``: claimed
    entries go too (a redelivery, never a loss); our acknowledgement then removes nothing, and the claims
    hash left behind goes with the next claim of ours."""
    node = await redis_cluster.node("node-a")
    root = redis_cluster.root
    session = new_id()
    ids = await node.inbox.deliver_many([message(session, turn_id=t) for t in ("a", "b")])
    await node.inbox.claim(session, 5)
    stream = f"{root}:aimon:inbox:{session}:NEXT"
    taken = redis_client.xrange(stream)
    redis_client.xdel(stream, *[entry_id for entry_id, _ in taken])
    assert [entry_id.decode() for entry_id, _ in taken] == ids
    assert await node.inbox.acknowledge(session, 5, ids) == 0
    assert redis_client.exists(f"{root}:aimon:inbox:{session}:claims") == 0  # tidied: every stream is empty


async def test_one_script_per_call(redis_cluster: Any, monitor: Monitor) -> None:
    node = await redis_cluster.node("node-a")
    session = new_id()
    ids = await node.inbox.deliver_many([message(session, turn_id=str(i)) for i in range(4)])
    await node.inbox.claim(new_id(), 1)  # the scripts loaded once per connection owner
    await node.inbox.acknowledge(new_id(), 1, ["1-0"])
    await node.inbox.quarantine_entries(new_id(), ["1-0"], "load")
    seen, batch = await monitor.commands(lambda: node.inbox.claim(session, 3))
    assert seen == ["EVALSHA"] and [m.id for m in batch.messages] == ids
    seen, count = await monitor.commands(lambda: node.inbox.acknowledge(session, 3, ids[:2]))
    assert seen == ["EVALSHA"] and count == 2
    seen, count = await monitor.commands(lambda: node.inbox.quarantine_entries(session, ids[2:], "poison"))
    assert seen == ["EVALSHA"] and count == 2

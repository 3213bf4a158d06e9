"""Input safety: ids and keys must be non-empty str; anything else is refused naming the argument, before
anything reaches the store (so nothing stored is touched)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model import Lease, TaskState
from tests.conformance.helpers import message, new_id

BAD_IDS = [None, {"$ne": None}, {"$gt": ""}, b"session", "", "   ", 42, ["a"], "nul\x00inside"]
TTL = timedelta(seconds=30)
NOW = datetime(2026, 1, 1, tzinfo=UTC)

# (store, method, argument name, call builder taking the bad value)
OPERATIONS: list[tuple[str, str, str, Callable[[Any], tuple[Any, ...]]]] = [
    ("inbox", "collect", "session_id", lambda v: (v,)),
    ("inbox", "peek", "session_id", lambda v: (v,)),
    ("inbox", "is_empty", "session_id", lambda v: (v,)),
    ("inbox", "purge", "session_id", lambda v: (v,)),
    ("leases", "try_acquire", "session_id", lambda v: (v, "holder", TTL)),
    ("leases", "try_acquire", "holder_id", lambda v: ("s", v, TTL)),
    ("leases", "find_holder", "session_id", lambda v: (v,)),
    ("idempotency", "mark_done", "key", lambda v: (v, None)),
    ("idempotency", "touch", "key", lambda v: (v, "h")),
    ("idempotency", "touch", "holder_id", lambda v: ("k", v)),
    ("idempotency", "release_holder", "key", lambda v: (v, "h", TTL)),
    ("idempotency", "release_holder", "expected_holder", lambda v: ("k", v, TTL)),
    ("idempotency", "acquire_holder", "key", lambda v: (v, "h", TTL)),
    ("idempotency", "acquire_holder", "holder_id", lambda v: ("k", v, TTL)),
    ("idempotency", "discard_reservation", "key", lambda v: (v,)),
    ("idempotency", "compare_and_reset", "key", lambda v: (v, "h")),
    ("idempotency", "compare_and_reset", "expected_holder", lambda v: ("k", v)),
    ("idempotency", "find", "key", lambda v: (v,)),
    ("tasks", "find", "task_id", lambda v: (v,)),
    ("tasks", "remove", "task_id", lambda v: (v,)),
    ("tasks", "transition", "task_id", lambda v: (v, TaskState.RUNNING)),
    ("tasks", "heartbeat", "task_id", lambda v: (v, NOW)),
    ("records", "merge_transcript", "session_id", lambda v: (v, "t", 1)),
    ("records", "provision", "session_id", lambda v: (v, "agent", 1)),
    ("records", "increment_compaction_failure_count", "session_id", lambda v: (v, 1)),
    ("records", "reset_compaction_failure_count", "session_id", lambda v: (v, 1)),
    ("records", "load", "session_id", lambda v: (v,)),
    ("records", "exists", "session_id", lambda v: (v,)),
    ("records", "delete", "session_id", lambda v: (v, 1)),
    ("segments", "get", "session_id", lambda v: (v, "seg")),
    ("segments", "get", "segment_id", lambda v: ("s", v)),
    ("segments", "list", "session_id", lambda v: (v,)),
    ("segments", "delete", "session_id", lambda v: (v, "seg", 1)),
    ("segments", "delete", "segment_id", lambda v: ("s", v, 1)),
    ("segments", "delete_all", "session_id", lambda v: (v, 1)),
    ("signals", "subscribe", "session_id", lambda v: (v, _handler)),
]


async def _handler(signal: Any) -> None:
    return None


@pytest.mark.parametrize("bad", BAD_IDS, ids=repr)
async def test_bad_ids_are_refused_naming_the_argument(node: Any, bad: Any) -> None:
    for store, method, argument, build in OPERATIONS:
        call = getattr(getattr(node, store), method)
        with pytest.raises(InvalidArgumentError, match=argument) as info:
            await call(*build(bad))
        assert isinstance(info.value, ValueError), (store, method)


async def test_bad_ids_touch_nothing_stored(node: Any) -> None:
    session = new_id()
    await node.inbox.deliver(message(session, turn_id="kept"))
    lease = await node.leases.try_acquire(session, "node-a", TTL)
    assert lease is not None
    for bad in ({"$ne": None}, {"$regex": ".*"}, {"$exists": True}):
        with pytest.raises(InvalidArgumentError):
            await node.inbox.purge(bad)
        with pytest.raises(InvalidArgumentError):
            await node.inbox.collect(bad)
        with pytest.raises(InvalidArgumentError):
            await node.leases.try_acquire(bad, "intruder", TTL)
    assert [m.turn_id for m in (await node.inbox.collect(session)).messages] == ["kept"]
    held = await node.leases.find_holder(session)
    assert held is not None and held.holder_id == "node-a"


@pytest.mark.parametrize(
    ("store", "method", "args", "argument"),
    [
        ("inbox", "deliver", ({"session_id": "s"},), "message"),
        ("inbox", "collect", ("s", 1), "max_priority"),
        ("inbox", "peek", ("s", 0), "limit"),
        ("leases", "try_acquire", ("s", "h", timedelta(0)), "ttl"),
        ("leases", "try_acquire", ("s", "h", 30), "ttl"),
        ("leases", "extend", ({"session_id": "s"}, TTL), "lease"),
        ("leases", "release", ("lease",), "lease"),
        ("idempotency", "put_if_absent", ({"key": "k"}, TTL), "entry"),
        ("idempotency", "find_stale_in_flight", (datetime(2026, 1, 1),), "cutoff"),
        ("idempotency", "find_stale_in_flight", (NOW, 0), "limit"),
        ("tasks", "put", ({"task_id": "t"},), "task"),
        ("tasks", "transition", ("t", "RUNNING"), "to"),
        ("tasks", "heartbeat", ("t", "now"), "at"),
        ("tasks", "list", ({"state": "RUNNING"},), "query"),
        ("records", "merge_transcript", ("s", "t", 0), "fencing_token"),
        ("records", "merge_transcript", ("s", "t", True), "fencing_token"),
        ("records", "merge_transcript", ("s", "t", "1"), "fencing_token"),
        ("records", "merge_transcript", ("s", b"t", 1), "transcript"),
        ("segments", "put", ({"session_id": "s"}, 1), "segment"),
        ("segments", "scan_sessions", (NOW, {"$gt": ""}, 10), "cursor"),
        ("segments", "scan_sessions", (NOW, None, 0), "limit"),
        ("signals", "publish", ({"session_id": "s"},), "signal"),
    ],
)
async def test_other_arguments_are_checked(
    node: Any, store: str, method: str, args: tuple[Any, ...], argument: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=argument):
        await getattr(getattr(node, store), method)(*args)


async def test_lease_with_forged_ids_is_refused(node: Any) -> None:
    forged = Lease.model_construct(session_id={"$ne": None}, holder_id="h", fencing_token=1, expires_at=NOW)
    with pytest.raises(InvalidArgumentError, match="session_id"):
        await node.leases.extend(forged, TTL)

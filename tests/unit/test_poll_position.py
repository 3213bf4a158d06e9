"""The polling watcher's window over signal ObjectIds (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bson import ObjectId

from aimon_mongo.mongo.poll_position import PollPosition

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def oid(seconds: float, tail: int) -> ObjectId:
    """An ObjectId of second ``T0 + seconds`` whose random/counter part is ``tail`` (as another publisher's)."""
    base = ObjectId.from_datetime(T0 + timedelta(seconds=seconds)).binary[:4]
    return ObjectId(base + tail.to_bytes(8, "big"))


def test_first_query_takes_everything_of_other_nodes() -> None:
    assert PollPosition().query("node-a") == {"originNodeId": {"$ne": "node-a"}}


def test_same_second_ids_of_other_publishers_are_not_missed() -> None:
    position = PollPosition(timedelta(seconds=5))
    high = oid(10, 900)
    position.mark([high])
    low_same_second = oid(10, 5)  # published later by another node, sorts below what was seen
    assert low_same_second < high
    assert position.query("n")["_id"]["$gte"] <= low_same_second
    assert position.unseen([high, low_same_second]) == [low_same_second]


def test_window_follows_the_newest_and_forgets_older_ids() -> None:
    position = PollPosition(timedelta(seconds=5))
    old, new = oid(0, 1), oid(20, 1)
    position.mark([old])
    position.mark([new])
    assert position.query("n")["_id"]["$gte"] == ObjectId.from_datetime(T0 + timedelta(seconds=15))
    assert position.unseen([old, new]) == [old]  # forgotten: below the window, the query no longer asks

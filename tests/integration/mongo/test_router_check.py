"""The router check can fail: commands a sharded cluster would not target are reported, from the commands
the library really sends to the stand-in (the old `_id`-only deliver first)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.model.record import LogSegment
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.mongo.command_log import CommandLog, Recording, describe
from aimon_mongo.mongo.placement import collection_map
from aimon_mongo.mongo.routing import Route, route
from tests.conformance.helpers import message
from tests.fixtures.mongo import CLIENT_OPTIONS
from tests.router_check import violations

PLACEMENTS = collection_map()


@pytest.fixture
def traced(mongo_uri: str, mongo_db_name: str) -> Iterator[tuple[CommandLog, MongoSessionBackends]]:
    log = CommandLog(origins=True)
    client: MongoClient[Any] = MongoClient(mongo_uri, event_listeners=[log], **CLIENT_OPTIONS)
    ensure_schema(client[mongo_db_name])
    bundle = MongoSessionBackends(client[mongo_db_name], "node-r")
    yield log, bundle
    bundle.close()
    client.close()


class _IdOnlyUpserts:
    """The inbox collection as the old deliver used it: the upsert filtered on `_id` alone."""

    def __init__(self, collection: Any) -> None:
        self._collection = collection

    def update_one(self, filter_: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        return self._collection.update_one({"_id": filter_["_id"]}, *args, **kwargs)


def test_the_old_id_only_deliver_is_reported_as_not_targeted(
    traced: tuple[CommandLog, MongoSessionBackends],
) -> None:
    log, bundle = traced
    bundle.inbox.deliver(message("s-warm"))  # the schema check's first-write commands
    with log.recording() as today:
        bundle.inbox.deliver(message("s-1"))
    assert today.round_trips == 1 and violations(today) == []
    assert "MongoInboxDriver.append" in today.commands[0].origin

    driver: Any = bundle.inbox.driver
    driver._inbox = _IdOnlyUpserts(driver._inbox)
    with log.recording() as old:
        bundle.inbox.deliver(message("s-1"))
    [bad] = violations(old)
    assert bad.route is Route.REFUSED and "upsert" in bad.reason
    assert "MongoInboxDriver.append" in str(bad)


def test_a_segment_read_without_the_session_id_scatters(traced: tuple[CommandLog, MongoSessionBackends]) -> None:
    log, bundle = traced
    segment = LogSegment(
        session_id="s-2",
        segment_id="g-1",
        from_seq=0,
        to_seq=1,
        entry_count=1,
        payload="[]",
        created_at=datetime.now(UTC),
    )
    bundle.segments.put(segment, 1)
    with log.recording() as seen:
        assert bundle.segments.get("s-2", "g-1") is not None
        bundle.segments.delete("s-2", "g-1", 1)
    assert violations(seen) == []
    old_get = describe("find", "db", {"find": "session_log_segments", "filter": {"_id": {"sessionId": "s"}}})
    assert route(old_get, PLACEMENTS).route is Route.SCATTER
    old_delete = describe(
        "delete", "db", {"delete": "session_log_segments", "deletes": [{"q": {"_id": {"sessionId": "s"}}, "limit": 1}]}
    )
    assert route(old_delete, PLACEMENTS).route is Route.SCATTER


def test_an_unbounded_operator_scan_is_reported() -> None:
    unbounded = replace(
        describe("find", "db", {"find": "session_records", "filter": {}}),
        origin=("MongoRecordDriver.list_session_ids",),
    )
    bounded = replace(unbounded, command={"find": "session_records", "filter": {}, "limit": 1000})
    hot = replace(unbounded, origin=("MongoRecordDriver.load",))
    assert [v.route for v in violations(Recording([unbounded, bounded, hot]))] == [Route.SCATTER, Route.SCATTER]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ({"find": "conversation_inbox", "filter": {"conversationId": "s", "priority": {"$lte": 2}}}, Route.TARGETED),
        ({"find": "conversation_inbox", "filter": {"conversationId": {"$in": ["a", "b"]}}}, Route.MULTI_SHARD),
        ({"find": "conversation_inbox", "filter": {"_id": 1}}, Route.SCATTER),
        ({"findAndModify": "conversation_locks", "query": {"_id": "s"}, "upsert": True}, Route.TARGETED),
        ({"findAndModify": "conversation_inbox", "query": {"_id": 1}, "remove": True}, Route.REFUSED),
        ({"update": "background_task", "updates": [{"q": {"state": "RUNNING"}, "u": {}}]}, Route.REFUSED),
        ({"update": "background_task", "updates": [{"q": {"state": "x"}, "u": {}, "multi": True}]}, Route.SCATTER),
        ({"insert": "conversation_inbox", "documents": [{"_id": 1}]}, Route.REFUSED),
        ({"insert": "conversation_signals", "documents": [{"_id": 1}]}, Route.TARGETED),
        ({"find": "fs.chunks", "filter": {"files_id": 1}}, Route.TARGETED),
        ({"delete": "fs.chunks", "deletes": [{"q": {"files_id": {"$in": [1, 2]}}, "limit": 0}]}, Route.MULTI_SHARD),
        ({"find": "session_records", "filter": {"$and": [{}, {"_id": {"$gt": "a"}}]}}, Route.SCATTER),
        ({"aggregate": "conversation_signals", "pipeline": [{"$changeStream": {}}]}, Route.TARGETED),
        ({"createIndexes": "conversation_inbox", "indexes": []}, Route.NOT_ROUTED),
        (  # a transactional batched collect: targeted by its session, the transaction fields change nothing
            {
                "findAndModify": "conversation_inbox",
                "query": {"conversationId": "s"},
                "remove": True,
                "txnNumber": 3,
                "autocommit": False,
                "startTransaction": True,
            },
            Route.TARGETED,
        ),
        (
            {"delete": "conversation_inbox", "deletes": [{"q": {"conversationId": "s", "_id": {"$in": [1, 2]}}}]},
            Route.TARGETED,
        ),
        ({"commitTransaction": 1, "txnNumber": 3, "autocommit": False}, Route.NOT_ROUTED),
    ],
)
def test_mongodb_routing_rules(command: dict[str, Any], expected: Route) -> None:
    assert route(describe(next(iter(command)), "db", command), PLACEMENTS).route is expected

"""BackgroundTaskStore.list sends its filter to the server (served by by_state / by_context), never
reading the whole collection when a filter is given. Observed with PyMongo's command monitoring on a real
client against the stand-in."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from pymongo import MongoClient, monitoring

from aimon_mongo.model import BackgroundTask, Principal, TaskQuery, TaskState
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from tests.fixtures.mongo import CLIENT_OPTIONS


class FindFilters(monitoring.CommandListener):
    def __init__(self) -> None:
        self.filters: list[dict[str, Any]] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "find" and event.command.get("find") == "background_task":
            self.filters.append(dict(event.command.get("filter", {})))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        return None

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        return None


@pytest.fixture
def watched(mongo_uri: str, mongo_db_name: str) -> Iterator[tuple[MongoSessionBackends, FindFilters]]:
    listener = FindFilters()
    client: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, event_listeners=[listener], **CLIENT_OPTIONS)
    ensure_schema(client[mongo_db_name])
    bundle = MongoSessionBackends(client[mongo_db_name], "node-a")
    yield bundle, listener
    bundle.close()
    client.close()


def test_list_filters_on_the_server(watched: tuple[MongoSessionBackends, FindFilters]) -> None:
    bundle, listener = watched
    start = datetime(2026, 1, 1, tzinfo=UTC)
    owner = Principal.user("u-1", "Ann")
    for i, state in enumerate([TaskState.RUNNING, TaskState.PENDING, TaskState.RUNNING]):
        bundle.tasks.put(
            BackgroundTask(
                task_id=f"t-{i}", subagent_name="w", state=state, start_time=start, owner=owner,
                agent_runtime_id=f"agent:w:{i % 2}",
            )
        )  # fmt: skip
    listener.filters.clear()
    assert {t.task_id for t in bundle.tasks.list(TaskQuery(state=TaskState.RUNNING))} == {"t-0", "t-2"}
    assert {t.task_id for t in bundle.tasks.list(TaskQuery(agent_runtime_id="agent:w:1"))} == {"t-1"}
    assert {t.task_id for t in bundle.tasks.list(TaskQuery(owner=owner, state=TaskState.PENDING))} == {"t-1"}
    assert len(bundle.tasks.list()) == 3
    assert listener.filters == [
        {"state": "RUNNING"},
        {"contextId": "agent:w:1"},
        {"state": "PENDING", "owner.type": "USER", "owner.id": "u-1"},
        {},
    ]

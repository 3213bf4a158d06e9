"""Real data on Redis and PostgreSQL for the operator tools' tests (the CLI and the console on every backend).

``other_deployment`` is parametrised over ``redis`` and ``postgres``: an isolated namespace (a Redis key root,
a fresh PostgreSQL schema) seeded through the public stores like the MongoDB seed of ``tests/console``:
waiting entries at each priority, one quarantined entry, a held and a released lease, two tasks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from aimon_mongo import names as n
from aimon_mongo import open_backends
from aimon_mongo.model import BackgroundTask, InboundMessage, Principal, Priority, TaskState, TextInput
from aimon_mongo.redis import RedisKeyPrefixes
from tests.fixtures.postgres import drop_schema, new_schema_name
from tests.fixtures.redis import delete_namespace, new_root

SESSION = "c-1"
OTHER = "c-2"
BROKEN = '{"not": "an envelope"}'


@dataclass(frozen=True)
class Deployment:
    """A seeded Redis or PostgreSQL deployment: how to reach it, and the ids the tests look for."""

    kind: str
    uri: str
    cli_args: tuple[str, ...]
    console_options: dict[str, Any]
    bundle_options: dict[str, Any]
    quarantine_id: str
    lease_token: int

    def open(self, node_id: str) -> Any:
        return open_backends(self.uri, node_id=node_id, **self.bundle_options)


def message(session: str, text: str, priority: Priority) -> InboundMessage:
    """A text message from ``USER:alice`` to the ``analyst`` agent."""
    return InboundMessage(
        session_id=session,
        agent_ref="analyst",
        user_input=TextInput(text=text),
        priority=priority,
        initiator=Principal.user("alice"),
        delivered_at=datetime.now(UTC),
    )


def put_tasks(node: Any, context_id: str, tasks: tuple[tuple[str, TaskState], ...]) -> None:
    """Task records of ``USER:alice`` started now, each moved on to its state."""
    now = datetime.now(UTC)
    for task_id, state in tasks:
        node.tasks.put(
            BackgroundTask(
                task_id=task_id,
                subagent_name="analyst",
                state=TaskState.RUNNING,
                start_time=now,
                description="summarise the chart",
                owner=Principal.user("alice"),
                agent_runtime_id=context_id,
            )
        )
        if state is not TaskState.RUNNING:
            node.tasks.transition(task_id, state)


def _plant_unreadable(kind: str, node: Any, target: str) -> None:
    """An inbox entry no node can decode, written beside the stores (as a broken build would)."""
    if kind == "redis":
        node._io.call("XADD", node.keys.inbox_stream(SESSION, Priority.NEXT), "*", n.REDIS_STREAM_FIELD, BROKEN)
        return
    with psycopg.connect(target, autocommit=True) as conn:
        table = sql.Identifier(node.schema, n.PG_CONVERSATION_INBOX)
        conn.execute(
            sql.SQL(
                "INSERT INTO {} (conversation_id, agent_ref, priority, payload) VALUES (%s, %s, 1, %s::jsonb)"
            ).format(table),
            [SESSION, "analyst", BROKEN],
        )


def seed(kind: str, uri: str, dsn: str, options: dict[str, Any]) -> tuple[str, int]:
    node_a = open_backends(uri, node_id="node-a", **options)
    node_b = open_backends(uri, node_id="node-b", **options)
    try:
        assert node_a.inbox.is_empty(SESSION)  # the first use (PostgreSQL: ensure_schema=True creates the tables)
        _plant_unreadable(kind, node_a, dsn)
        batch = node_b.inbox.collect(SESSION)
        assert batch.messages == () and len(batch.unreadable) == 1
        for text, priority in (("first NOW", Priority.NOW), ("a NEXT", Priority.NEXT), ("a LATER", Priority.LATER)):
            node_a.inbox.deliver(message(SESSION, text, priority))
        node_a.inbox.deliver(message(OTHER, "other session", Priority.LATER))
        lease = node_b.leases.try_acquire(SESSION, "node-b", timedelta(minutes=10))
        assert lease is not None
        released = node_a.leases.try_acquire(OTHER, "node-a", timedelta(minutes=10))
        assert released is not None
        node_a.leases.release(released)
        put_tasks(node_b, "agent:analyst:c-1", (("c-1-turn-1", TaskState.COMPLETED), ("c-2-turn-1", TaskState.RUNNING)))
        quarantined = node_a.inbox.list_quarantined(SESSION)
        assert len(quarantined) == 1
        return quarantined[0].id, lease.fencing_token
    finally:
        node_a.close()
        node_b.close()


@pytest.fixture(params=["redis", "postgres"])
def other_deployment(request: pytest.FixtureRequest) -> Iterator[Deployment]:
    """A seeded Redis or PostgreSQL deployment in a namespace of its own (removed afterwards)."""
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        root = new_root()
        options: dict[str, Any] = {"key_prefixes": RedisKeyPrefixes().under(root)}
        try:
            qid, token = seed("redis", url, "", options)
            yield Deployment(
                "redis", url, ("--uri", url, "--redis-root", root), {"redis_root": root}, options, qid, token
            )
        finally:
            delete_namespace(url, root)
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    schema = new_schema_name()
    options = {"schema": schema, "ensure_schema": True, "replication_guard": "off"}
    try:
        qid, token = seed("postgres", dsn, dsn, options)
        yield Deployment(
            "postgres",
            dsn,
            ("--uri", dsn, "--pg-schema", schema),
            {"pg_schema": schema},
            {"schema": schema, "replication_guard": "off"},
            qid,
            token,
        )
    finally:
        drop_schema(dsn, schema)

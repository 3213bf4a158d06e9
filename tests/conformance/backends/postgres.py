"""PostgreSQL families of the conformance suite: ``postgres-sync`` and ``postgres-async``, and the same
through a real PgBouncer in transaction mode: ``postgres-pgbouncer-sync`` and ``postgres-pgbouncer-async``.

Each test gets its own schema (``t_<random>``) created by ``ensure_schema`` on the server at
``POSTGRES_DSN`` and dropped (CASCADE) afterwards; every node of the test is a bundle on that schema.
The PgBouncer nodes are ``pooled`` bundles whose pool goes through PgBouncer (``tests/fixtures/pgbouncer.py``)
and whose LISTEN connection goes directly to the server (``listen_dsn``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg import sql

from aimon_mongo.clock import Clock
from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import InboundMessage, Priority
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends, ensure_schema_async
from tests.conformance.backends import ClusterBase, register
from tests.fixtures.postgres import configured_dsn, drop_schema, new_schema_name


class PostgresCluster(ClusterBase):
    """Nodes on one schema; the inbox stores JSON text, so entries can be damaged for the unreadable tests."""

    can_damage_entries = True
    stored_form = "json-envelope"

    def __init__(self, dsn: str, schema: str, *, is_async: bool, bouncer_dsn: str | None = None) -> None:
        super().__init__()
        self.dsn = dsn
        self.schema = schema
        self.is_async = is_async
        self.bouncer_dsn = bouncer_dsn

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        flavour = AsyncPostgresSessionBackends if self.is_async else PostgresSessionBackends
        if self.bouncer_dsn is not None:
            return flavour(self.bouncer_dsn, node_id, schema=self.schema, clock=clock, pooled=True, listen_dsn=self.dsn)
        return flavour(self.dsn, node_id, schema=self.schema, clock=clock)

    async def store_damaged_entry(self, message: InboundMessage) -> str:
        envelope = json.loads(to_json_envelope(message))
        envelope["initiator"]["type"] = "ROBOT"
        return await self.store_raw_entry(message.session_id, message.priority, json.dumps(envelope))

    async def store_entry_with_bad_instant(self, message: InboundMessage, text: str) -> str:
        envelope = json.loads(to_json_envelope(message))
        envelope["deliveredAt"] = text
        return await self.store_raw_entry(message.session_id, message.priority, json.dumps(envelope))

    async def store_raw_entry(self, session_id: str, priority: Priority | int, raw: Any) -> str:
        """``raw`` is the ``payload`` JSON text (the column is JSONB: text that is not JSON cannot be
        stored at all); the other columns come from the arguments."""
        table = sql.Identifier(self.schema, "conversation_inbox")
        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
            cur = await conn.execute(
                sql.SQL(
                    "INSERT INTO {} (conversation_id, agent_ref, priority, payload, delivered_at) "
                    "VALUES (%s, %s, %s, %s::jsonb, %s) RETURNING id"
                ).format(table),
                [session_id, "assistant", int(priority), raw, datetime.now(UTC)],
            )
            row = await cur.fetchone()
        assert row is not None
        return str(row[0])

    def same_raw(self, stored: Any, kept: Any) -> bool:
        return bool(json.loads(kept) == json.loads(stored))

    def repair(self, raw: Any) -> Any:
        assert isinstance(raw, str)
        return raw.replace('"ROBOT"', '"USER"')


def _factory(is_async: bool, *, through_pgbouncer: bool = False) -> Any:
    @contextlib.asynccontextmanager
    async def factory(request: pytest.FixtureRequest) -> AsyncIterator[PostgresCluster]:
        dsn = request.getfixturevalue("postgres_dsn") if request else configured_dsn()
        bouncer = request.getfixturevalue("pgbouncer_dsn") if through_pgbouncer else None
        schema = new_schema_name()
        await ensure_schema_async(bouncer or dsn, schema)
        cluster = PostgresCluster(dsn, schema, is_async=is_async, bouncer_dsn=bouncer)
        try:
            yield cluster
        finally:
            await cluster.close_all()
            drop_schema(dsn, schema)

    return factory


register("postgres-sync", _factory(is_async=False))
register("postgres-async", _factory(is_async=True))
register("postgres-pgbouncer-sync", _factory(is_async=False, through_pgbouncer=True))
register("postgres-pgbouncer-async", _factory(is_async=True, through_pgbouncer=True))

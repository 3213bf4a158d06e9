"""One InboundMessage stored by Redis and by PostgreSQL: both hold the same envelope JSON.

Redis keeps the envelope text as written (field ``p`` of the stream entry); PostgreSQL keeps a ``jsonb``
value (keys re-ordered on read), so the two stored forms are compared as parsed JSON, and the Redis text is
compared byte for byte with the shared golden string. An envelope whose ``userInputEncoded`` this build
cannot read degrades to its ``userInput`` text on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
import redis
from psycopg import sql

from aimon_mongo.model import InboundMessage, Priority, TextInput
from aimon_mongo.postgres import PostgresSessionBackends
from aimon_mongo.redis import RedisSessionBackends
from tests.golden.envelopes import (
    AT,
    MULTIMODAL_ENVELOPE_JSON,
    SESSION,
    TEXT_ENVELOPE_JSON,
    UNREADABLE_ENCODED_ENVELOPE_JSON,
    multimodal_message,
    text_message,
)


@dataclass(frozen=True)
class Stores:
    """One Redis key prefix and one PostgreSQL schema of this test, with raw access to both."""

    redis_url: str
    redis_prefixes: Any
    redis_root: str
    redis_client: redis.Redis
    postgres_dsn: str
    pg_schema: str
    pg_conn: psycopg.Connection[Any]

    def on_redis(self) -> RedisSessionBackends:
        return RedisSessionBackends(self.redis_url, "node-a", self.redis_prefixes)

    def on_postgres(self) -> PostgresSessionBackends:
        return PostgresSessionBackends(self.postgres_dsn, "node-a", schema=self.pg_schema)

    @property
    def redis_stream(self) -> str:
        return f"{self.redis_root}:aimon:inbox:{SESSION}:NEXT"

    def redis_raw(self) -> str:
        [(_, fields)] = self.redis_client.xrange(self.redis_stream)  # type: ignore[misc]
        return bytes(fields[b"p"]).decode("utf-8")

    def postgres_raw(self) -> str:
        table = sql.Identifier(self.pg_schema, "conversation_inbox")
        row = self.pg_conn.execute(sql.SQL("SELECT payload::text FROM {}").format(table)).fetchone()
        assert row is not None
        return str(row[0])


@pytest.fixture
def stores(
    redis_url: str,
    redis_prefixes: Any,
    redis_root: str,
    redis_client: redis.Redis,
    postgres_dsn: str,
    pg_schema: str,
    pg_conn: psycopg.Connection[Any],
) -> Iterator[Stores]:
    yield Stores(redis_url, redis_prefixes, redis_root, redis_client, postgres_dsn, pg_schema, pg_conn)


@pytest.mark.parametrize(
    ("message", "golden"),
    [(text_message(), TEXT_ENVELOPE_JSON), (multimodal_message(), MULTIMODAL_ENVELOPE_JSON)],
    ids=["text", "multimodal"],
)
def test_the_same_message_is_the_same_envelope_in_both_stores(
    message: InboundMessage, golden: str, stores: Stores
) -> None:
    with stores.on_redis() as on_redis:
        on_redis.inbox.deliver(message)
    with stores.on_postgres() as on_postgres:
        on_postgres.inbox.deliver(message)
    redis_text = stores.redis_raw()
    postgres_text = stores.postgres_raw()
    assert redis_text == golden
    assert json.loads(postgres_text) == json.loads(redis_text)


def test_an_unreadable_encoded_input_degrades_to_text_in_both_stores(stores: Stores) -> None:
    stores.redis_client.xadd(stores.redis_stream, {"p": UNREADABLE_ENCODED_ENVELOPE_JSON})
    stores.pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, agent_ref, priority, payload, delivered_at) "
            "VALUES (%s, 'support-agent', 1, %s::jsonb, %s)"
        ).format(sql.Identifier(stores.pg_schema, "conversation_inbox")),
        [SESSION, UNREADABLE_ENCODED_ENVELOPE_JSON, AT],
    )
    with stores.on_redis() as on_redis:
        from_redis = on_redis.inbox.collect(SESSION)
    with stores.on_postgres() as on_postgres:
        from_postgres = on_postgres.inbox.collect(SESSION)
    expected_text = json.loads(UNREADABLE_ENCODED_ENVELOPE_JSON)["userInput"]
    for batch in (from_redis, from_postgres):
        assert batch.unreadable == ()
        [message] = batch.messages
        assert message.user_input == TextInput(text=expected_text)
        assert message.priority is Priority.NEXT
    assert from_redis.messages[0].model_copy(update={"id": None}) == from_postgres.messages[0].model_copy(
        update={"id": None}
    )

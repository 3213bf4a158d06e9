"""One InboundMessage stored by Redis and by PostgreSQL: both hold the same envelope JSON.

Redis keeps the envelope text as written (field ``p`` of the stream entry); PostgreSQL keeps a ``jsonb``
value (keys re-ordered on read), so the two stored forms are compared as parsed JSON, and the Redis text is
compared byte for byte with the shared golden string. An envelope whose ``userInputEncoded`` this build
cannot read degrades to its ``userInput`` text on both.
"""

from __future__ import annotations

import json
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


def _redis_raw(client: redis.Redis, root: str) -> str:
    [(_, fields)] = client.xrange(f"{root}:aimon:inbox:{SESSION}:NEXT")  # type: ignore[misc]
    return bytes(fields[b"p"]).decode("utf-8")


def _postgres_raw(conn: psycopg.Connection[Any], schema: str) -> str:
    table = sql.Identifier(schema, "conversation_inbox")
    row = conn.execute(sql.SQL("SELECT payload::text FROM {}").format(table)).fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.parametrize(
    ("message", "golden"),
    [(text_message(), TEXT_ENVELOPE_JSON), (multimodal_message(), MULTIMODAL_ENVELOPE_JSON)],
    ids=["text", "multimodal"],
)
def test_the_same_message_is_the_same_envelope_in_both_stores(
    message: InboundMessage,
    golden: str,
    redis_url: str,
    redis_prefixes: Any,
    redis_root: str,
    redis_client: redis.Redis,
    postgres_dsn: str,
    pg_schema: str,
    pg_conn: psycopg.Connection[Any],
) -> None:
    with RedisSessionBackends(redis_url, "node-a", redis_prefixes) as on_redis:
        on_redis.inbox.deliver(message)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as on_postgres:
        on_postgres.inbox.deliver(message)
    redis_text = _redis_raw(redis_client, redis_root)
    postgres_text = _postgres_raw(pg_conn, pg_schema)
    assert redis_text == golden
    assert json.loads(postgres_text) == json.loads(redis_text)


def test_an_unreadable_encoded_input_degrades_to_text_in_both_stores(
    redis_url: str,
    redis_prefixes: Any,
    redis_root: str,
    redis_client: redis.Redis,
    postgres_dsn: str,
    pg_schema: str,
    pg_conn: psycopg.Connection[Any],
) -> None:
    redis_client.xadd(f"{redis_root}:aimon:inbox:{SESSION}:NEXT", {"p": UNREADABLE_ENCODED_ENVELOPE_JSON})
    pg_conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, agent_ref, priority, payload, delivered_at) "
            "VALUES (%s, 'support-agent', 1, %s::jsonb, %s)"
        ).format(sql.Identifier(pg_schema, "conversation_inbox")),
        [SESSION, UNREADABLE_ENCODED_ENVELOPE_JSON, AT],
    )
    with RedisSessionBackends(redis_url, "node-a", redis_prefixes) as on_redis:
        from_redis = on_redis.inbox.collect(SESSION)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as on_postgres:
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

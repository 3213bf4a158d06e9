"""The inbox envelope as PostgreSQL stores it, against the shared golden strings.

PostgreSQL keeps ``payload`` as ``jsonb``, which stores a parsed value: reading it back (``payload::text``)
gives keys re-ordered (by length, then bytes) and spacing added, so the stored *text* can never equal the
golden string byte for byte. What must hold, and is asserted here:

* the stored ``jsonb`` value equals the golden string parsed by the server (``payload = %s::jsonb``) and
  by Python (``json.loads`` of ``payload::text``) — the same keys, values and types, no extra key;
* the text our encoder hands to the server is the golden string byte for byte (so the Redis stream field,
  which keeps text, and the PostgreSQL row hold the same envelope);
* a row written by hand with the golden text (as an older node would) reads back as the same message.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg import sql

from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.model import Priority, TextInput
from aimon_mongo.postgres import PostgresSessionBackends
from tests.golden.envelopes import (
    AT,
    MULTIMODAL_ENVELOPE_JSON,
    SESSION,
    TEXT_ENVELOPE_JSON,
    UNREADABLE_ENCODED_ENVELOPE_JSON,
    multimodal_message,
    text_message,
)


def _stored(conn: psycopg.Connection[Any], schema: str, golden: str) -> tuple[Any, ...]:
    table = sql.Identifier(schema, "conversation_inbox")
    row = conn.execute(
        sql.SQL(
            "SELECT conversation_id, agent_ref, priority, delivered_at, payload::text, payload = %s::jsonb FROM {}"
        ).format(table),
        [golden],
    ).fetchone()
    assert row is not None
    return tuple(row)


def test_text_submission_is_stored_as_the_golden_envelope(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    message = text_message()
    assert to_json_envelope(message) == TEXT_ENVELOPE_JSON
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        entry_id = node.inbox.deliver(message)
    conversation_id, agent_ref, priority, delivered_at, raw, equal = _stored(pg_conn, pg_schema, TEXT_ENVELOPE_JSON)
    assert (conversation_id, agent_ref, priority, delivered_at) == ("conv-7f3a", "support-agent", 1, AT)
    assert equal is True
    assert json.loads(raw) == json.loads(TEXT_ENVELOPE_JSON)
    assert "userInputEncoded" not in json.loads(raw)
    assert entry_id.isdigit()


def test_multimodal_submission_is_stored_as_the_golden_envelope(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    message = multimodal_message()
    assert to_json_envelope(message) == MULTIMODAL_ENVELOPE_JSON
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        node.inbox.deliver(message)
    *_, raw, equal = _stored(pg_conn, pg_schema, MULTIMODAL_ENVELOPE_JSON)
    assert equal is True
    stored = json.loads(raw)
    assert stored == json.loads(MULTIMODAL_ENVELOPE_JSON)
    assert isinstance(stored["userInput"], str) and isinstance(stored["userInputEncoded"], dict)


def _insert_raw(conn: psycopg.Connection[Any], schema: str, envelope: str) -> str:
    table = sql.Identifier(schema, "conversation_inbox")
    row = conn.execute(
        sql.SQL(
            "INSERT INTO {} (conversation_id, agent_ref, priority, payload, delivered_at) "
            "VALUES (%s, 'support-agent', 1, %s::jsonb, %s) RETURNING id"
        ).format(table),
        [SESSION, envelope, AT],
    ).fetchone()
    assert row is not None
    return str(row[0])


def test_an_older_nodes_row_reads_back_as_the_same_message(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    text_id = _insert_raw(pg_conn, pg_schema, TEXT_ENVELOPE_JSON)
    multimodal_id = _insert_raw(pg_conn, pg_schema, MULTIMODAL_ENVELOPE_JSON)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        batch = node.inbox.collect(SESSION)
    assert batch.unreadable == ()
    assert batch.messages == (text_message().with_id(text_id), multimodal_message().with_id(multimodal_id))


def test_unreadable_user_input_encoded_degrades_to_text(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    entry_id = _insert_raw(pg_conn, pg_schema, UNREADABLE_ENCODED_ENVELOPE_JSON)
    with PostgresSessionBackends(postgres_dsn, "node-a", schema=pg_schema) as node:
        batch = node.inbox.collect(SESSION)
        assert node.inbox.list_quarantined() == []
    assert batch.unreadable == ()
    [message] = batch.messages
    assert (message.id, message.turn_id, message.priority) == (entry_id, "turn-0003", Priority.NEXT)
    assert message.user_input == TextInput(text="[Video: video/mp4, 9 bytes]")

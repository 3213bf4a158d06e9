"""SQL text of the stores, qualified with the session schema once, when a store is built (pure).

Templates name tables by placeholder (``{inbox}``, ``{lock}``...); :func:`qualify` replaces each with the
quoted ``"schema"."table"`` identifier and returns plain text, so psycopg sees the same query bytes on
every call (and prepares them after a few executions, unless the bundle is ``pooled``). Values always
travel as ``%s`` parameters.
"""

from __future__ import annotations

from psycopg import sql

from aimon_mongo import names as n

TABLES: dict[str, str] = {
    "lock": n.PG_CONVERSATION_LOCK,
    "fence": n.PG_CONVERSATION_LOCK_FENCE,
    "signal": n.PG_CONVERSATION_SIGNAL,
    "inbox": n.PG_CONVERSATION_INBOX,
    "quarantine": n.PG_INBOX_QUARANTINE,
    "idem": n.PG_IDEMPOTENCY_ENTRY,
    "task": n.PG_BACKGROUND_TASK,
    "record": n.PG_SESSION_RECORD,
    "segment": n.PG_SESSION_LOG_SEGMENT,
    "session_fence": n.PG_SESSION_FENCE,
    "token_floor": n.PG_TOKEN_FLOOR,
}


def qualify(template: str, schema: str) -> str:
    """``template`` with every ``{table}`` placeholder replaced by ``"schema"."table"``."""
    tables = {key: sql.Identifier(schema, table) for key, table in TABLES.items()}
    return sql.SQL(template).format(**tables).as_string(None)

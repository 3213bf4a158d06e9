"""Retention on PostgreSQL: the batched sweeps of every table that grows (pure: SQL text and the report).

Each sweep statement deletes at most ``%(batch)s`` rows and is its own transaction (autocommit), so a
sweep never holds locks on more than one batch and never runs one long ``DELETE``; the runner repeats a
statement until a batch comes back short (or, for the fence sweep, until the keyset page is past the end).
Every ``DELETE`` re-checks its condition on the row it deletes, so a row revived between the selection and
the delete (an idempotency key taken again, a lease re-acquired) is left alone.

**Fence rows and the token floor.** ``conversation_lock_fence`` holds each session's token counter and
``session_fence`` the highest token accepted by its record and segment writes. The fence sweep deletes both
rows of a session only when nothing of the session is left (no lock row — live or lapsed —, no inbox or
quarantined entry, no record, no segment) and no acquisition of the session is under way (a try-lock on the
advisory lock the ``aimon_lock_fence_floor`` trigger takes in shared mode); in the same statement it raises
``aimon_token_floor.highest_swept`` to the highest token the deleted rows had issued or accepted. The
trigger starts every new counter row above that floor, so a session whose rows were swept and that comes
back gets a token higher than any it had before: tokens never go backwards.
"""

from __future__ import annotations

from dataclasses import dataclass

from aimon_mongo import names as n

DEFAULT_BATCH_SIZE = 1000
"""Rows per sweep statement."""

SIGNALS = """
DELETE FROM {signal} WHERE id IN (
    SELECT id FROM {signal} WHERE created_at < %(cutoff)s LIMIT %(batch)s
)
"""
IDEMPOTENCY = """
DELETE FROM {idem} WHERE expires_at < now() AND key IN (
    SELECT key FROM {idem} WHERE expires_at < now() LIMIT %(batch)s
)
"""
LAPSED_LOCKS = """
DELETE FROM {lock} WHERE lease_expires_at < now() - %(grace)s AND conversation_id IN (
    SELECT conversation_id FROM {lock} WHERE lease_expires_at < now() - %(grace)s LIMIT %(batch)s
)
"""
IDLE_FENCES = """
WITH page AS (
    SELECT conversation_id FROM {fence} WHERE conversation_id > %(after)s ORDER BY conversation_id LIMIT %(batch)s
), gone AS (
    DELETE FROM {fence} f USING page
    WHERE f.conversation_id = page.conversation_id
      AND NOT EXISTS (SELECT 1 FROM {lock} l WHERE l.conversation_id = f.conversation_id)
      AND NOT EXISTS (SELECT 1 FROM {inbox} i WHERE i.conversation_id = f.conversation_id)
      AND NOT EXISTS (SELECT 1 FROM {quarantine} q WHERE q.conversation_id = f.conversation_id)
      AND NOT EXISTS (SELECT 1 FROM {record} r WHERE r.session_id = f.conversation_id)
      AND NOT EXISTS (SELECT 1 FROM {segment} g WHERE g.session_id = f.conversation_id)
      AND pg_try_advisory_xact_lock(hashtext(%(lock_space)s), hashtext(f.conversation_id))
    RETURNING f.conversation_id, f.next_token
), gone_sessions AS (
    DELETE FROM {session_fence} s USING gone WHERE s.session_id = gone.conversation_id
    RETURNING s.highest_token
), raised AS (
    UPDATE {token_floor} SET highest_swept = GREATEST(
        highest_swept, (SELECT max(next_token) - 1 FROM gone), (SELECT max(highest_token) FROM gone_sessions)
    ) WHERE EXISTS (SELECT 1 FROM gone)
)
SELECT (SELECT max(conversation_id) FROM page), (SELECT count(*) FROM gone), (SELECT count(*) FROM gone_sessions)
"""
"""One keyset page of counter rows; returns (last id of the page or NULL at the end, counter rows deleted,
session_fence rows deleted)."""


def lock_space(schema: str) -> str:
    """Text hashed into the first key of the advisory locks the fence sweep and the trigger share (the
    trigger builds it as ``TG_TABLE_SCHEMA || '.aimon_token_floor'``)."""
    return f"{schema}.{n.PG_TOKEN_FLOOR}"


@dataclass(frozen=True)
class SweepReport:
    """Rows one :meth:`~aimon_mongo.postgres.AsyncPostgresSessionBackends.sweep` deleted, per table."""

    signals: int = 0
    """``conversation_signal`` rows older than the cutoff."""
    idempotency: int = 0
    """``idempotency_entry`` rows past ``expires_at``."""
    lapsed_locks: int = 0
    """``conversation_lock`` rows whose lease lapsed longer ago than the grace."""
    lock_fences: int = 0
    """``conversation_lock_fence`` rows of sessions with nothing left."""
    session_fences: int = 0
    """``session_fence`` rows of those sessions."""

    @property
    def total(self) -> int:
        return self.signals + self.idempotency + self.lapsed_locks + self.lock_fences + self.session_fences

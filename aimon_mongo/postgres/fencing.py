"""Fenced writes on PostgreSQL: the token check and the write are one statement (pure SQL text).

``session_fence`` keeps the highest fencing token accepted per session. A fenced write is::

    WITH fence AS (<raise the highest token to %(token)s unless it is already higher> RETURNING ...),
         done  AS (<the write, guarded by EXISTS (SELECT 1 FROM fence)> RETURNING ...)
    SELECT <fence result>, <done result>

so the check, the raise and the write commit together (one statement is one transaction). The
upsert's row lock orders concurrent writers of one session: a lower token arriving after a higher one
sees the raised row and is refused, and nothing of its write happens. No row back means "stale".
"""

from __future__ import annotations

FENCE_CTE = """fence AS (
    INSERT INTO {session_fence} AS f (session_id, highest_token) VALUES (%(sid)s, %(token)s)
    ON CONFLICT (session_id) DO UPDATE SET highest_token = EXCLUDED.highest_token, updated_at = now()
    WHERE f.highest_token <= EXCLUDED.highest_token
    RETURNING highest_token
)"""

GUARD = "EXISTS (SELECT 1 FROM fence)"
"""The condition a fenced write's data-modifying statement must include (see :func:`fenced`)."""

CLOCK_TOKEN = "(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint * 1024)"
"""The clock floor of a fencing token (SQL expression): the database clock in epoch milliseconds x 1024, as
Redis's ``TIME ms x 1024``. A token is never below it, so a promoted asynchronous replica whose clock is not
behind the old primary's by more than the failover took issues tokens above every one the old primary handed
out; 1,024 tokens per session per millisecond fit under the next millisecond's floor. ``bigint`` until the
year 285,000 or so (2^63 / 1024 ms)."""

HIGHEST = "SELECT highest_token FROM {session_fence} WHERE session_id = %s"
"""Read after a refusal, to name the token that won in the error."""


def fenced(write: str, result: str) -> str:
    """A fenced statement: ``write`` (a data-modifying statement that must include
    :data:`GUARD` in its condition) becomes the CTE ``done``; the statement returns
    ``(highest_token, <result>)`` — ``result`` may name ``done``'s columns (NULL when the write touched no
    row) — and no row at all when the token was stale."""
    return (
        f"WITH {FENCE_CTE},\ndone AS (\n{write}\n)\n"
        f"SELECT fence.highest_token, {result} FROM fence LEFT JOIN done ON true"
    )

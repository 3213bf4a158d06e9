"""The replication guard of a PostgreSQL bundle (pure: SQL text, the report and the verdict; no I/O).

The rule (docs/guarantees.md, "Failover"): a promoted replica never issues a fencing token lower than or
equal to one the old primary acknowledged. On PostgreSQL the token is drawn by the lease acquisition;
with the guard on, that statement commits with ``synchronous_commit = on`` (set for its own transaction
by :data:`SYNC_COMMIT_ON`), so its reply waits until a synchronous standby flushed the commit. Whether the
deployment has such a standby is read once per bundle (:data:`REPORT_SQL`) and judged by
:func:`verdict` against the bundle's ``replication_guard``:

* ``"require"``: a deployment without a connected synchronous standby is refused
  (:class:`~aimon_mongo.errors.ReplicationGuardError` naming the settings read);
* ``"warn"`` (default): accepted with one WARN naming the settings and the risk;
* ``"off"``: not checked, and acquisitions keep the session's own ``synchronous_commit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from psycopg.errors import Diagnostic

from aimon_mongo.errors import InvalidArgumentError

ReplicationGuard = Literal["require", "warn", "off"]
GUARDS: tuple[str, ...] = get_args(ReplicationGuard)
DEFAULT_GUARD: ReplicationGuard = "warn"

SYNC_COMMIT_ON = "set_config('synchronous_commit', 'on', true) IS NOT NULL"
"""A condition that is always true and sets ``synchronous_commit = on`` for the current transaction only
(the statement's own, in autocommit): the commit then waits for the synchronous standbys' flush."""

REPORT_SQL = """
SELECT current_setting('synchronous_commit'),
       current_setting('synchronous_standby_names'),
       pg_is_in_recovery(),
       count(r.pid),
       count(r.pid) FILTER (WHERE r.sync_state IN ('sync', 'quorum')),
       count(r.pid) FILTER (WHERE r.sync_state IS NULL)
FROM (SELECT 1) AS one LEFT JOIN pg_stat_replication AS r ON true
"""
"""One row: the session's ``synchronous_commit``, ``synchronous_standby_names``, whether the server is a
standby, and the standbys streaming from it: all, synchronous (``sync`` / ``quorum``), hidden
(``sync_state`` NULL: the role may not read ``pg_stat_replication``; grant ``pg_read_all_stats``)."""


@dataclass(frozen=True)
class ReplicationReport:
    """What a bundle read about the replication of its server (see :data:`REPORT_SQL`)."""

    synchronous_commit: str
    synchronous_standby_names: str
    in_recovery: bool
    standbys: int
    synchronous_standbys: int
    hidden_standbys: int

    @property
    def guaranteed(self) -> bool:
        """True when an acquisition committed with ``synchronous_commit = on`` is on a standby before its
        reply: synchronous standbys are configured and at least one is connected as ``sync``/``quorum``."""
        return bool(self.synchronous_standby_names.strip()) and self.synchronous_standbys > 0

    def describe(self) -> str:
        """The settings read, for logs and errors (no values of the caller's data)."""
        names = self.synchronous_standby_names.strip() or "''"
        hidden = f", {self.hidden_standbys} not readable by this role" if self.hidden_standbys else ""
        return (
            f"synchronous_standby_names = {names}, synchronous_commit = {self.synchronous_commit}, "
            f"{self.synchronous_standbys} of {self.standbys} connected standbys synchronous{hidden}"
            + (", the server is itself a standby" if self.in_recovery else "")
        )


def require_guard(value: object) -> ReplicationGuard:
    """``value`` if it is one of :data:`GUARDS`, else :class:`InvalidArgumentError` naming it."""
    if isinstance(value, str) and value in GUARDS:
        return value  # type: ignore[return-value]
    raise InvalidArgumentError(f"replication_guard must be one of {', '.join(GUARDS)}; got {value!r}")


def report_from_row(row: tuple[object, ...]) -> ReplicationReport:
    """The report of :data:`REPORT_SQL`'s row."""
    commit, names, recovery, standbys, synchronous, hidden = row
    return ReplicationReport(str(commit), str(names), bool(recovery), int(standbys), int(synchronous), int(hidden))  # type: ignore[call-overload]


RISK = (
    "fencing tokens stay above every token handed out (their clock floor), but a failover to a replica can "
    "lose the last acknowledged writes other than tokens (deliveries, collects, records, log segments, "
    "write-fence raises, idempotency entries)"
)
"""What a deployment without a synchronous standby is still exposed to (the WARN's and the refusal's words)."""


def verdict(report: ReplicationReport, guard: ReplicationGuard, endpoint: str) -> str | None:
    """``None`` when the guarantee holds (or the guard is off); else the message: the refusal's text for
    ``"require"``, the WARN's for ``"warn"`` (settings read, the risk, what to do)."""
    if guard == "off" or report.guaranteed:
        return None
    remedy = (
        'pass replication_guard="warn" or "off" to accept the risk'
        if guard == "require"
        else 'pass replication_guard="require" to refuse such a deployment, or "off" to silence this'
    )
    return (
        f"PostgreSQL at {endpoint} has no connected synchronous standby ({report.describe()}): {RISK}; "
        f"configure synchronous_standby_names with a streaming standby connected, or {remedy}"
    )


class SyncWaitWatch:
    """A notice handler for one guarded acquisition: records whether the server cancelled the commit's
    wait for the synchronous standbys (``pg_cancel_backend``, a client-side cancel). PostgreSQL then
    reports success with a WARNING ("canceling wait for synchronous replication ...; the transaction has
    already committed locally, but might not have been replicated"); the acquisition must not hand out
    that token. Recognised by its SQLSTATE (01000) and English text: servers with a translated
    ``lc_messages`` are not recognised."""

    def __init__(self) -> None:
        self.cancelled = False

    def __call__(self, diag: Diagnostic) -> None:
        if diag.sqlstate == "01000" and "synchronous replication" in (diag.message_primary or ""):
            self.cancelled = True

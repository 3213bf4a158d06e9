"""PostgreSQL failover: a promoted replica never issues a fencing token ≤ one the old primary acknowledged.

Real servers on loopback: a private primary (``initdb``, its own port and directory) and a streaming
standby (``pg_basebackup -R``), run through partition-then-promote rounds. One round:

1. holder A acquires and releases on the primary (replicated);
2. replication is cut: the standby's ``primary_conninfo`` is pointed at nothing and reloaded, so its
   walreceiver stops;
3. holder B tries to acquire on the primary;
4. the primary is stopped with ``pg_ctl stop -m immediate``, the standby promoted (``pg_ctl promote``);
5. a new standby is made from the promoted server (so the next round has one), and holder C acquires on
   the new primary.

With the replication guard on (``"require"``, a synchronous standby configured): B's acquisition does
not return while the standby is cut off, and ends in ``BackendUnavailable`` when the primary dies, so
nothing unreplicated is ever acknowledged, and C's token is above every acknowledged token: 0 reissued.
The server runs with ``synchronous_commit = local``, so it is the bundle's own per-transaction setting
that waits, not the server default.

Without a synchronous standby to wait for — the default bundle (guard ``"warn"``) on plain asynchronous
replication, or the guard ``"off"`` (also with a synchronous standby that the server's
``synchronous_commit = local`` does not wait for) — B's token is acknowledged and lost with the old
primary: the promoted replica's counter is behind it. The clock floor (``max(counter, clock ms x 1024)``)
still gives C a token above every token handed out: 0 reissued. The control, in the same rounds: the token
the counter alone issues on the promoted replica (the reference build's statement, rolled back before C
acquires) is B's token again in every round, so the floor is what prevents the reissue.

Rounds: 2 with the guard on and with the default bundle, 1 per guard-off scenario by default, 10 each with ``--scale``
(``AIMON_PG_FAILOVER_ROUNDS`` overrides).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import psycopg
import pytest

from aimon_mongo.errors import BackendUnavailable, ReplicationGuardError, SessionLeaseError
from aimon_mongo.model import Lease
from aimon_mongo.postgres import PostgresSessionBackends, ensure_schema
from aimon_mongo.postgres.replication import ReplicationGuard
from tests.reliability.servers import PrivatePostgres

SCHEMA = "failover"
SESSION = "s-failover"
TTL = timedelta(seconds=60)
BLOCKED = 1.5
"""Seconds B's acquisition must stay pending (unacknowledged) while the synchronous standby is cut off."""


def rounds(sizes: Any, ci: int = 2) -> int:
    configured = os.environ.get("AIMON_PG_FAILOVER_ROUNDS")
    return int(configured) if configured else sizes.pick(ci=ci, full=10)


@dataclass
class Pair:
    """The current primary and its streaming standby; :meth:`fail_over` promotes and re-pairs."""

    settings: dict[str, str]
    primary: PrivatePostgres = field(default_factory=PrivatePostgres)
    standby: PrivatePostgres | None = None

    def start(self) -> None:
        self.primary.start()
        self._attach_standby()
        ensure_schema(self.primary.dsn, SCHEMA)

    def _attach_standby(self) -> None:
        self.standby = PrivatePostgres(replica_of=self.primary)
        self.standby.start()
        if self.settings:
            self.primary.configure(**self.settings)
        if self.settings.get("synchronous_standby_names"):
            self.primary.wait_synchronous()
        self.standby.wait_replayed(self.primary)

    def fail_over(self) -> None:
        """Kill the primary, promote the standby, give it a standby of its own."""
        assert self.standby is not None
        old, self.primary = self.primary, self.standby
        old.kill()
        old.destroy()
        self.primary.promote()
        self._attach_standby()

    def destroy(self) -> None:
        for server in (self.primary, self.standby):
            if server is not None:
                server.destroy()


@pytest.fixture
def pair_factory() -> Iterator[Any]:
    made: list[Pair] = []

    def make(settings: dict[str, str]) -> Pair:
        pair = Pair(settings)
        made.append(pair)
        pair.start()
        return pair

    yield make
    for pair in made:
        pair.destroy()


def node(server: PrivatePostgres, guard: ReplicationGuard | None) -> PostgresSessionBackends:
    """A bundle on ``server``; ``guard`` None: the default replication guard."""
    if guard is None:
        return PostgresSessionBackends(server.dsn, "node-f", schema=SCHEMA, timeout=5)
    return PostgresSessionBackends(server.dsn, "node-f", schema=SCHEMA, replication_guard=guard, timeout=5)


@dataclass
class Outcome:
    lease: Lease | None = None
    error: BaseException | None = None


def acquire_in_thread(bundle: PostgresSessionBackends, holder: str) -> tuple[threading.Thread, Outcome]:
    outcome = Outcome()

    def run() -> None:
        try:
            outcome.lease = bundle.leases.try_acquire(SESSION, holder, TTL)
        except BaseException as exc:  # reported to the test thread
            outcome.error = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


@dataclass
class Promoted:
    """What the new primary issued: C's token, and (with a control) the counter-only token drawn before it."""

    token: int
    counter_only: int | None = None


def run_round(
    pair: Pair,
    guard: ReplicationGuard | None,
    n: int,
    acknowledged: list[int],
    control: Callable[[PrivatePostgres], int] | None = None,
) -> tuple[Outcome, bool, Promoted]:
    """One partition-then-promote round; returns B's outcome, whether B was still pending after
    :data:`BLOCKED` seconds of cut-off standby, and what the new primary issued (``control``, when given,
    runs on the new primary before C acquires). ``acknowledged`` collects every token a client was given."""
    assert pair.standby is not None
    with node(pair.primary, guard) as old:
        a = old.leases.try_acquire(SESSION, f"a{n}", TTL)
        assert a is not None
        acknowledged.append(a.fencing_token)
        old.leases.release(a)
        pair.standby.wait_replayed(pair.primary)

        pair.standby.cut_replication()
        thread, b = acquire_in_thread(old, f"b{n}")
        thread.join(BLOCKED if guard == "require" else 30)  # unguarded, B is acknowledged: wait for it
        pending = thread.is_alive()
        if b.lease is not None:
            acknowledged.append(b.lease.fencing_token)
        pair.fail_over()
        thread.join(30)
        assert not thread.is_alive(), "B's acquisition neither returned nor failed after the primary died"
    counter_only = None if control is None else control(pair.primary)
    with node(pair.primary, guard) as new:
        c = new.leases.try_acquire(SESSION, f"c{n}", TTL)
        assert c is not None, "the lease is free on the new primary (A released it, B's is lost or lapsed)"
        new.leases.release(c)
    return b, pending, Promoted(c.fencing_token, counter_only)


def test_guard_on_no_token_is_reissued_after_failover(pair_factory: Any, sizes: Any, reliability_counts: Any) -> None:
    pair = pair_factory({"synchronous_standby_names": "*", "synchronous_commit": "local"})
    acknowledged: list[int] = []
    issued, reissued = 0, 0
    for n in range(rounds(sizes)):
        b, pending, promoted = run_round(pair, "require", n, acknowledged)
        c = promoted.token
        # B was not acknowledged: it waited for the cut-off standby, then lost its primary.
        assert pending, f"round {n}: B's acquisition returned while the synchronous standby was cut off"
        assert b.lease is None
        assert isinstance(b.error, BackendUnavailable), f"round {n}: {b.error!r}"
        issued += 2
        if c <= max(acknowledged):
            reissued += 1
        acknowledged.append(c)
    reliability_counts.add("pg-failover-guard-on", "postgres-sync", messages=issued, duplicates=reissued)
    assert reissued == 0, f"{reissued} reissued tokens; acknowledged: {acknowledged}"
    assert acknowledged == sorted(set(acknowledged))


COUNTER_ONLY = f"""
INSERT INTO {SCHEMA}.conversation_lock_fence AS f (conversation_id, next_token) VALUES (%s, 2)
ON CONFLICT (conversation_id) DO UPDATE SET next_token = f.next_token + 1
RETURNING next_token - 1
"""
"""The token a counter alone would issue (the reference build's step 1, reference fact sheet §5.3): run in a
transaction that is rolled back, so it leaves nothing behind."""


def counter_only_token(server: PrivatePostgres) -> int:
    with psycopg.connect(server.dsn) as conn:
        row = conn.execute(COUNTER_ONLY, [SESSION]).fetchone()
        conn.rollback()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(
    ("settings", "guard"),
    [({}, None), ({}, "off"), ({"synchronous_standby_names": "*", "synchronous_commit": "local"}, "off")],
    ids=["async-replication-default-bundle", "async-replication-guard-off", "sync-standby-local-commit-guard-off"],
)
def test_the_clock_floor_keeps_a_promoted_replica_from_reissuing_a_token(
    pair_factory: Any, sizes: Any, reliability_counts: Any, settings: dict[str, str], guard: ReplicationGuard | None
) -> None:
    """Without a synchronous standby to wait for, B's token is acknowledged and lost in the failover: the
    counter on the promoted replica is behind it, and a counter-only token there is B's token again (the
    floor is necessary). The default bundle's token (``max(counter, clock ms x 1024)``) is above every token
    handed out, in every round."""
    pair = pair_factory(settings)
    acknowledged: list[int] = []
    total, reissued, reissued_by_counter = rounds(sizes, ci=2 if guard is None else 1), 0, 0
    for n in range(total):
        b, pending, c = run_round(pair, guard, n, acknowledged, control=counter_only_token)
        assert not pending
        assert b.error is None
        assert b.lease is not None, "B's acquisition was acknowledged by the old primary"
        assert c.counter_only is not None
        if c.counter_only <= b.lease.fencing_token:
            reissued_by_counter += 1
        if c.token <= max(acknowledged):
            reissued += 1
        acknowledged.append(c.token)
    case = "default" if guard is None else f"guard-{guard}{'-sync-standby' if settings else ''}"
    issued = 3 * total  # A, B and C per round
    reliability_counts.add(f"pg-failover-floor-{case}", "postgres", promotions=total, tokens=issued, reissued=reissued)
    reliability_counts.add(
        f"pg-failover-counter-only-{case}", "postgres", promotions=total, tokens=issued, reissued=reissued_by_counter
    )
    assert reissued_by_counter == total, f"a counter-only token was above B's in {total - reissued_by_counter} rounds"
    assert reissued == 0, f"{reissued} reissued tokens; acknowledged: {acknowledged}"
    assert acknowledged == sorted(set(acknowledged))


def test_require_refuses_until_a_synchronous_standby_is_connected(caplog: pytest.LogCaptureFixture) -> None:
    primary = PrivatePostgres()
    standby: PrivatePostgres | None = None
    try:
        primary.start()
        ensure_schema(primary.dsn, SCHEMA)
        with node(primary, "require") as bundle:
            with pytest.raises(ReplicationGuardError, match="0 of 0 connected standbys synchronous"):
                bundle.leases.try_acquire(SESSION, "h-1", TTL)
            standby = PrivatePostgres(replica_of=primary)
            standby.start()
            primary.wait_streaming()
            with pytest.raises(ReplicationGuardError, match=r"= '', synchronous_commit = on, 0 of 1 connected"):
                bundle.check_replication()  # streaming, but asynchronous
            primary.configure(synchronous_standby_names="*")
            primary.wait_synchronous()
            with caplog.at_level(logging.INFO):
                lease = bundle.leases.try_acquire(SESSION, "h-1", TTL)
            assert any("acquisitions wait for a synchronous standby" in r.getMessage() for r in caplog.records)
            assert lease is not None and lease.fencing_token >= 1
            report = bundle.replication_report
            assert report is not None and report.guaranteed
            assert (report.synchronous_standby_names, report.standbys, report.synchronous_standbys) == ("*", 1, 1)
    finally:
        for server in (primary, standby):
            if server is not None:
                server.destroy()


def test_a_cancelled_standby_wait_hands_out_no_token(pair_factory: Any) -> None:
    """PostgreSQL answers a cancelled synchronous-replication wait with success and a WARNING (the commit
    is local only); the guarded acquisition refuses instead of handing out that token."""
    pair = pair_factory({"synchronous_standby_names": "*", "synchronous_commit": "local"})
    assert pair.standby is not None
    with node(pair.primary, "require") as bundle:
        assert bundle.check_replication().guaranteed  # judged before the cut (after it, "require" refuses)
        pair.standby.cut_replication()
        thread, outcome = acquire_in_thread(bundle, "h-b")
        thread.join(BLOCKED)
        assert thread.is_alive()
        with psycopg.connect(pair.primary.dsn, autocommit=True) as conn:
            cancelled = conn.execute(
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'aimon-mongo node-f' AND wait_event = 'SyncRep'"
            ).fetchall()
        assert cancelled == [(True,)]
        thread.join(30)
        assert outcome.lease is None
        assert isinstance(outcome.error, SessionLeaseError), outcome.error
        assert "wait for the synchronous standby was cancelled" in str(outcome.error)
        assert SESSION in str(outcome.error)

"""The PostgreSQL bundle's replication guard on the shared server (a primary with no standby).

``"require"`` refuses every operation naming the settings it read, ``"warn"`` (the default) accepts with
one WARN naming the risk, ``"off"`` checks nothing. The failover behaviour itself (a synchronous standby,
promotion) is tested on private servers in ``tests/reliability/test_pg_failover.py``.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql

from aimon_mongo.errors import InvalidArgumentError, ReplicationGuardError
from aimon_mongo.postgres import AsyncPostgresSessionBackends, PostgresSessionBackends

TTL = timedelta(seconds=30)


def lock_rows(conn: psycopg.Connection[Any], schema: str) -> int:
    row = conn.execute(
        sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, "conversation_lock"))
    ).fetchone()
    assert row is not None
    return int(row[0])


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "fencing token" in r.getMessage()
    ]


def test_require_refuses_every_operation_naming_the_settings(
    postgres_dsn: str, pg_schema: str, pg_conn: psycopg.Connection[Any]
) -> None:
    with PostgresSessionBackends(postgres_dsn, "node-g", schema=pg_schema, replication_guard="require") as node:
        assert node.replication_report is None  # nothing read before the first use
        with pytest.raises(ReplicationGuardError) as refused:
            node.leases.try_acquire("s-1", "h-1", TTL)
        text = str(refused.value)
        assert "127.0.0.1:5432" in text
        assert "synchronous_standby_names = ''" in text
        assert "0 of 0 connected standbys synchronous" in text
        assert "lose the last acknowledged writes other than tokens" in text
        assert 'replication_guard="warn" or "off"' in text
        with pytest.raises(ReplicationGuardError):  # refused again: the check runs until it passes
            node.inbox.is_empty("s-1")
        with pytest.raises(ReplicationGuardError):
            node.check_replication()
        report = node.replication_report
        assert report is not None
        assert (report.synchronous_standby_names, report.standbys, report.guaranteed) == ("", 0, False)
    assert lock_rows(pg_conn, pg_schema) == 0


async def test_require_refuses_async(postgres_dsn: str, pg_schema: str) -> None:
    node = AsyncPostgresSessionBackends(postgres_dsn, "node-g", schema=pg_schema, replication_guard="require")
    async with node:
        with pytest.raises(ReplicationGuardError, match="synchronous_standby_names = ''"):
            await node.check_replication()
        with pytest.raises(ReplicationGuardError):
            await node.leases.find_holder("s-1")


def test_warn_is_the_default_and_logs_once(postgres_dsn: str, pg_schema: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), PostgresSessionBackends(postgres_dsn, "node-g", schema=pg_schema) as node:
        assert node.replication_guard == "warn"
        lease = node.leases.try_acquire("s-1", "h-1", TTL)
        assert lease is not None and lease.fencing_token >= 1
        assert node.inbox.is_empty("s-1")
        report = node.check_replication()
    assert report.guaranteed is False
    assert report.synchronous_commit == "on"
    [warning] = warnings_of(caplog)
    assert "synchronous_standby_names = ''" in warning
    assert 'replication_guard="require"' in warning


async def test_warn_async(postgres_dsn: str, pg_schema: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        async with AsyncPostgresSessionBackends(postgres_dsn, "node-g", schema=pg_schema) as node:
            assert await node.leases.try_acquire("s-1", "h-1", TTL) is not None
            assert await node.leases.find_holder("s-1") is not None
    assert len(warnings_of(caplog)) == 1


def test_off_checks_nothing(postgres_dsn: str, pg_schema: str, caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.WARNING),
        PostgresSessionBackends(postgres_dsn, "node-g", schema=pg_schema, replication_guard="off") as node,
    ):
        assert node.leases.try_acquire("s-1", "h-1", TTL) is not None
        assert node.replication_report is None
        report = node.check_replication()  # read on request, judged by nobody
        assert report.standbys == 0
    assert warnings_of(caplog) == []


@pytest.mark.parametrize("value", ["on", "", None, "REQUIRE"])
def test_an_unknown_guard_is_refused_naming_it(postgres_dsn: str, value: Any) -> None:
    with pytest.raises(
        InvalidArgumentError, match=f"replication_guard must be one of require, warn, off; got {value!r}"
    ):
        PostgresSessionBackends(postgres_dsn, "node-g", replication_guard=value)
    with pytest.raises(InvalidArgumentError, match="replication_guard"):
        AsyncPostgresSessionBackends(postgres_dsn, "node-g", replication_guard=value)

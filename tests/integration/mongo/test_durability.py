"""Write and read concern at construction: majority by default on the protocol collections, an explicit
opt-out that warns, an unacknowledged database refused; retryable writes stay on."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from pymongo import MongoClient
from pymongo.write_concern import WriteConcern

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.mongo.command_log import CommandLog
from aimon_mongo.vfs import GridFSFileSystem
from tests.conformance.helpers import message
from tests.fixtures.mongo import CLIENT_OPTIONS


@pytest.fixture
def logged(mongo_uri: str, mongo_db_name: str) -> Iterator[tuple[CommandLog, MongoClient[Any]]]:
    log = CommandLog()
    client: MongoClient[Any] = MongoClient(mongo_uri, event_listeners=[log], w=1, **CLIENT_OPTIONS)
    ensure_schema(client[mongo_db_name])
    yield log, client
    client.close()


def test_protocol_writes_and_reads_carry_majority_on_a_w1_database(
    logged: tuple[CommandLog, MongoClient[Any]], mongo_db_name: str
) -> None:
    log, client = logged
    bundle = MongoSessionBackends(client[mongo_db_name], "node-d")
    bundle.inbox.deliver(message("s-warm"))  # schema check
    with log.recording() as seen:
        bundle.inbox.deliver(message("s-1"))
        lease = bundle.leases.try_acquire("s-1", "h", timedelta(seconds=30))
        assert lease is not None
        bundle.records.merge_transcript("s-1", "t", lease.fencing_token)
        assert bundle.leases.find_holder("s-1") is not None
        assert len(bundle.inbox.collect("s-1").messages) == 1
    # Inside a transaction (the batched collect) a statement carries no concern of its own: the first one
    # carries the transaction's read concern and the commit its write concern.
    in_txn = [c for c in seen.commands if c.command.get("autocommit") is False]
    alone = [c for c in seen.commands if c.command.get("autocommit") is not False]
    writes = [c for c in alone if c.name in ("update", "findAndModify", "insert", "delete")]
    assert writes and all(c.command.get("writeConcern") == {"w": "majority"} for c in writes), [
        (c.name, c.command.get("writeConcern")) for c in writes
    ]
    commits = [c for c in in_txn if c.name == "commitTransaction"]
    assert all(c.command.get("writeConcern") == {"w": "majority"} for c in commits), commits
    starts = [c for c in in_txn if c.command.get("startTransaction")]
    assert all(c.command.get("readConcern") == {"level": "majority"} for c in starts), starts
    assert len(starts) == len(commits) and bool(commits) == bool(bundle.inbox.collects_in_transactions)
    written = {c.collection for c in writes + [c for c in in_txn if c.name == "delete"]}
    assert {"conversation_locks", "session_fences", "session_records", "conversation_inbox"} <= written
    reads = [c for c in alone if c.name == "find"]
    assert reads and all(c.command.get("readConcern") == {"level": "majority"} for c in reads)
    bundle.close()


def test_as_configured_keeps_the_database_concern_and_warns(
    logged: tuple[CommandLog, MongoClient[Any]], mongo_db_name: str, caplog: pytest.LogCaptureFixture
) -> None:
    log, client = logged
    with caplog.at_level(logging.WARNING, logger="aimon_mongo.mongo.durability"):
        bundle = MongoSessionBackends(client[mongo_db_name], "node-w", durability="as_configured")
    [warning] = caplog.records
    assert "node-w" in warning.getMessage() and "fencing tokens keep their clock floor" in warning.getMessage()
    assert "{'w': 1}" in warning.getMessage()
    bundle.inbox.deliver(message("s-warm"))
    with log.recording() as seen:
        bundle.inbox.deliver(message("s-2"))
    assert seen.commands[0].command.get("writeConcern") == {"w": 1}
    bundle.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="aimon_mongo.mongo.durability"):
        majority = client.get_database(mongo_db_name, write_concern=WriteConcern("majority"))
        MongoSessionBackends(majority, "node-m", durability="as_configured").close()
    assert caplog.records == []


def test_an_unacknowledged_database_and_unknown_options_are_refused(
    mongo_client: MongoClient[Any], mongo_db_name: str
) -> None:
    blind = mongo_client.get_database(mongo_db_name, write_concern=WriteConcern(w=0))
    for durability in ("majority", "as_configured"):
        with pytest.raises(InvalidArgumentError, match="unacknowledged"):
            MongoSessionBackends(blind, "node-0", durability=durability)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError, match="unacknowledged"):
            GridFSFileSystem(blind, durability=durability)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="'w1'"):
        MongoSessionBackends(mongo_client[mongo_db_name], "node-x", durability="w1")  # type: ignore[arg-type]


def test_the_gridfs_filesystem_writes_with_majority(
    logged: tuple[CommandLog, MongoClient[Any]], mongo_db_name: str
) -> None:
    log, client = logged
    with GridFSFileSystem(client, mongo_db_name, chunk_size=64) as fs:
        fs.write("a.txt", b"x" * 100)
        with log.recording() as seen:
            fs.write("a.txt", b"y" * 100)
            assert fs.read("a.txt") == b"y" * 100
    writes = [c for c in seen.commands if c.name in ("update", "insert", "delete", "findAndModify")]
    assert writes and all(c.command.get("writeConcern") == {"w": "majority"} for c in writes)


def test_retryable_writes_stay_on_with_majority(changestream_uri: str, mongo_db_name: str) -> None:
    """On a replica set (SecantusDB) the driver numbers each protocol write for a retry (``txnNumber``)."""
    log = CommandLog()
    client: MongoClient[Any] = MongoClient(changestream_uri, event_listeners=[log], **CLIENT_OPTIONS)
    try:
        ensure_schema(client[mongo_db_name])
        bundle = MongoSessionBackends(client[mongo_db_name], "node-r")
        bundle.inbox.deliver(message("s-warm"))
        with log.recording() as seen:
            bundle.inbox.deliver(message("s-3"))
            assert bundle.leases.try_acquire("s-3", "h", timedelta(seconds=30)) is not None
        writes = [c for c in seen.commands if c.name in ("update", "findAndModify")]
        assert writes and all("txnNumber" in c.command for c in writes)
        assert all(c.command.get("writeConcern") == {"w": "majority"} for c in writes)
        bundle.close()
    finally:
        client.drop_database(mongo_db_name)
        client.close()

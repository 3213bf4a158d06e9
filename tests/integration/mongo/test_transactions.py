"""The one transaction helper (``aimon_mongo._sync.mongo.transactions``) on the stand-in: a real write
conflict is retried on PyMongo's label, the retries are bounded, and a refusing deployment is named."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient
from pymongo.asynchronous.client_session import AsyncClientSession
from pymongo.errors import OperationFailure
from pymongo.synchronous.client_session import ClientSession
from pymongo.synchronous.database import Database

from aimon_mongo._async.mongo.transactions import run_in_transaction as async_run_in_transaction
from aimon_mongo._sync.mongo.transactions import (
    TRANSIENT,
    RetryTransaction,
    TransactionConflict,
    TransactionsRefused,
    run_in_transaction,
)
from aimon_mongo.standin import StandinServer
from tests.fixtures.mongo import CLIENT_OPTIONS


def _interfering_body(client: MongoClient[Any], db: Database[Any], interfere_times: int) -> tuple[Any, list[int]]:
    """A body that increments ``n`` of one document; its first ``interfere_times`` runs let another
    transaction change the same document and commit first (a genuine write conflict)."""
    coll = db["tx"]
    runs: list[int] = []

    def body(session: ClientSession) -> str:
        runs.append(1)
        coll.update_one({"_id": "d"}, {"$inc": {"n": 1}}, session=session)
        if len(runs) <= interfere_times:
            with client.start_session() as other, other.start_transaction():
                coll.update_one({"_id": "d"}, {"$inc": {"other": 1}}, session=other)
        return "done"

    return body, runs


def test_a_write_conflict_is_retried_on_its_label(mongo_client: MongoClient[Any], mongo_db: Database[Any]) -> None:
    mongo_db["tx"].insert_one({"_id": "d", "n": 0, "other": 0})
    body, runs = _interfering_body(mongo_client, mongo_db, interfere_times=2)
    assert run_in_transaction(mongo_client, body, attempts=5) == "done"
    assert len(runs) == 3
    doc = mongo_db["tx"].find_one({"_id": "d"})
    assert doc is not None and (doc["n"], doc["other"]) == (1, 2)  # exactly one of our three runs committed


def test_retries_are_bounded(mongo_client: MongoClient[Any], mongo_db: Database[Any]) -> None:
    mongo_db["tx"].insert_one({"_id": "d", "n": 0, "other": 0})
    body, runs = _interfering_body(mongo_client, mongo_db, interfere_times=100)
    with pytest.raises(TransactionConflict, match="still conflicted after 3 attempts") as caught:
        run_in_transaction(mongo_client, body, attempts=3, backoff=0.001)
    assert len(runs) == 3
    assert isinstance(caught.value.__cause__, Exception) and caught.value.__cause__.has_error_label(TRANSIENT)  # type: ignore[attr-defined]
    doc = mongo_db["tx"].find_one({"_id": "d"})
    assert doc is not None and (doc["n"], doc["other"]) == (0, 3)  # none of ours committed


def test_a_body_asks_for_a_rerun_and_other_errors_propagate(
    mongo_client: MongoClient[Any], mongo_db: Database[Any]
) -> None:
    coll = mongo_db["tx"]
    calls: list[int] = []

    def body(session: ClientSession) -> int:
        calls.append(1)
        coll.insert_one({"_id": len(calls)}, session=session)
        if len(calls) < 3:
            raise RetryTransaction
        return len(calls)

    assert run_in_transaction(mongo_client, body, attempts=3) == 3
    assert [d["_id"] for d in coll.find()] == [3]  # the aborted runs left nothing

    def failing(session: ClientSession) -> None:
        coll.insert_one({"_id": "x"}, session=session)
        raise LookupError("not a transaction problem")

    with pytest.raises(LookupError):
        run_in_transaction(mongo_client, failing, attempts=5)
    assert coll.find_one({"_id": "x"}) is None
    with pytest.raises(ValueError, match="attempts must be a positive int, got 0"):
        run_in_transaction(mongo_client, failing, attempts=0)


def test_a_resent_commit_is_answered_for_the_transaction_it_names(
    mongo_client: MongoClient[Any], mongo_db: Database[Any]
) -> None:
    """What a client meets when it sends ``commitTransaction`` again because the first answer was lost: a
    committed transaction is ``ok`` again; one whose commit was refused is error 251 with the
    ``TransientTransactionError`` label (mongod's answer; the stand-in's own answer was ``ok``, which made a
    retried commit report a transaction that removed nothing as committed)."""
    coll = mongo_db["tx"]
    coll.insert_one({"_id": "d", "n": 0, "other": 0})
    with mongo_client.start_session() as session:
        session.start_transaction()
        coll.update_one({"_id": "d"}, {"$inc": {"n": 1}}, session=session)
        session.commit_transaction()
        session.commit_transaction()  # sent again: the same transaction, still committed

        session.start_transaction()
        coll.update_one({"_id": "d"}, {"$inc": {"n": 1}}, session=session)
        with mongo_client.start_session() as other, other.start_transaction():
            coll.update_one({"_id": "d"}, {"$inc": {"other": 1}}, session=other)
        with pytest.raises(OperationFailure) as refused:
            session.commit_transaction()
        assert (refused.value.code, refused.value.has_error_label(TRANSIENT)) == (112, True)
        with pytest.raises(OperationFailure) as resent:
            session.commit_transaction()
        assert (resent.value.code, resent.value.has_error_label(TRANSIENT)) == (251, True)
    doc = coll.find_one({"_id": "d"})
    assert doc is not None and (doc["n"], doc["other"]) == (1, 1)


async def test_async_flavour_commits(mongo_uri: str, mongo_db: Database[Any]) -> None:
    client: AsyncMongoClient[Any] = AsyncMongoClient(mongo_uri, **CLIENT_OPTIONS)
    try:

        async def body(session: AsyncClientSession) -> str:
            await client[mongo_db.name]["tx"].insert_one({"_id": 1}, session=session)
            return "ok"

        assert await async_run_in_transaction(client, body, attempts=1) == "ok"
        assert mongo_db["tx"].count_documents({}) == 1
    finally:
        await client.close()


def test_a_deployment_without_transactions_is_named() -> None:
    server = StandinServer(refuse_transactions=True)
    uri = server.start()
    try:
        with MongoClient(uri, **CLIENT_OPTIONS) as client:

            def body(session: ClientSession) -> None:
                client["t_refuse"]["tx"].insert_one({"_id": 1}, session=session)

            with pytest.raises(TransactionsRefused, match="runs no transactions"):
                run_in_transaction(client, body, attempts=5)
    finally:
        server.stop()

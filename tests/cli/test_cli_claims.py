"""``aimon-mongo inbox claims`` and the ``claimed`` figure of ``inbox stats`` on the MongoDB stand-in, Redis
and PostgreSQL: per session its holder and the entries claimed and not yet acknowledged, with attempts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from aimon_mongo.model import Priority
from tests.backend_seed import OTHER, SESSION, Deployment, message, other_deployment  # noqa: F401 (fixture)
from tests.cli.conftest import Cli
from tests.cli.test_cli_backends import OtherCli, other_cli  # noqa: F401 (fixture)


def claim_some(bundle: Any, session: str, token: int) -> tuple[list[str], str]:
    """Claim the session's entries twice under ``token`` (attempt 2 each), after a first claim deliver one
    more (attempt 1), acknowledge nothing: the ids claimed twice, and the id claimed once."""
    first = bundle.inbox.claim(session, token)
    twice = [m.id for m in first.messages]
    assert twice
    once = bundle.inbox.deliver(message(session, "came later", Priority.LATER))
    again = bundle.inbox.claim(session, token)
    assert again.attempts == {**dict.fromkeys(twice, 2), once: 1}
    return twice, once


def check_claims(run: Any, holder: str, token: int, twice: list[str], once: str, stored: int) -> None:
    """What ``inbox claims`` and ``inbox stats`` show once :func:`claim_some` ran on ``SESSION``."""
    rows = run("inbox", "claims", "--json").json()
    assert [row["session_id"] for row in rows] == [SESSION]
    row = rows[0]
    assert (row["lease"]["holder_id"], row["lease"]["state"], row["lease"]["fencing_token"]) == (holder, "held", token)
    found = {entry["entry_id"]: entry for entry in row["claimed"]}
    assert set(found) == {*twice, once}
    assert {entry["claim_token"] for entry in row["claimed"]} == {token}
    assert {entry_id: entry["attempts"] for entry_id, entry in found.items()} == {**dict.fromkeys(twice, 2), once: 1}
    assert all(set(entry) == {"entry_id", "claim_token", "attempts", "claimed_at"} for entry in row["claimed"])
    assert run("inbox", "claims", "--json", "--session", OTHER).json() == [
        {"session_id": OTHER, "lease": row_lease(run, OTHER), "claimed": []}
    ]
    stats = {r["session_id"]: r for r in run("inbox", "stats", "--json").json()}
    assert (stats[SESSION]["claimed"], stats[SESSION]["total"]) == (len(twice) + 1, stored)
    assert stats.get(OTHER, {"claimed": 0})["claimed"] == 0
    table = run("inbox", "claims").stdout
    assert SESSION in table and holder in table and once in table and "came later" not in table  # no payloads
    assert "claimed" in run("inbox", "stats").stdout


def row_lease(run: Any, session: str) -> Any:
    listed = {row["session_id"]: row for row in run("leases", "list", "--json").json()}
    return listed.get(session)


def test_claims_on_mongo(cli: Cli, node: Any) -> None:
    for text, priority in (("first NOW", Priority.NOW), ("a NEXT", Priority.NEXT)):
        node.inbox.deliver(message(SESSION, text, priority))
    node.inbox.deliver(message(OTHER, "other session", Priority.LATER))
    assert cli("inbox", "claims", "--json").json() == []
    assert "no claimed entries" in cli("inbox", "claims").stdout
    lease = node.leases.try_acquire(SESSION, "node-test", timedelta(minutes=10))
    assert lease is not None
    twice, once = claim_some(node, SESSION, lease.fencing_token)
    check_claims(cli, "node-test", lease.fencing_token, twice, once, stored=3)
    assert node.inbox.acknowledge(SESSION, lease.fencing_token, [once]) == 1
    left = cli("inbox", "claims", "--json").json()[0]["claimed"]
    assert sorted(entry["entry_id"] for entry in left) == sorted(twice)
    assert all(entry["claimed_at"] is not None for entry in left)  # MongoDB keeps the claim time


def test_claims_on_redis_and_postgres(other_cli: OtherCli, other_deployment: Deployment) -> None:  # noqa: F811
    assert other_cli("inbox", "claims", "--json").json() == []
    node = other_deployment.open("node-b")
    try:
        twice, once = claim_some(node, SESSION, other_deployment.lease_token)
        check_claims(other_cli, "node-b", other_deployment.lease_token, twice, once, stored=4)
        assert node.inbox.acknowledge(SESSION, other_deployment.lease_token, twice) == len(twice)
    finally:
        node.close()
    left = other_cli("inbox", "claims", "--json").json()[0]["claimed"]
    assert [(entry["entry_id"], entry["attempts"]) for entry in left] == [(once, 1)]
    kept = left[0]["claimed_at"]
    assert (kept is None) if other_deployment.kind == "redis" else (kept is not None)

"""The console's session view shows the session's claimed entries (holder, claim token, attempts, claim
time) and the ``claimed`` figure, on the MongoDB stand-in, Redis and PostgreSQL (JSON API and page)."""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient

from aimon_mongo.console import ConsoleData
from aimon_mongo.demo import transcript as demo
from aimon_mongo.mongo import MongoSessionBackends
from tests.backend_seed import SESSION, Deployment, other_deployment  # noqa: F401 (fixture)
from tests.cli.test_cli_claims import claim_some
from tests.console.conftest import Seeded
from tests.console.test_backends import client_of, other_data  # noqa: F401 (fixture)


def check_view(data: ConsoleData, session: str, holder: str, token: int, twice: list[str], once: str) -> None:
    client = client_of(data)
    detail = client.get("/api/session", params={"id": session}).json()
    assert detail["claimed"] == len(twice) + 1 and detail["lease"]["holder_id"] == holder
    claimed = {entry["entry_id"]: entry for entry in detail["claimed_entries"]}
    assert {entry_id: (e["claim_token"], e["attempts"]) for entry_id, e in claimed.items()} == {
        **dict.fromkeys(twice, (token, 2)),
        once: (token, 1),
    }
    listed = {row["session_id"]: row for row in client.get("/api/sessions").json()["items"]}
    assert listed[session]["claimed"] == len(twice) + 1
    listing = client.get("/sessions").text
    assert '<th class="n">claimed</th>' in listing and f'#claimed">{len(twice) + 1}</a>' in listing
    html = client.get("/session", params={"id": session}).text
    assert 'id="claimed"' in html and once in html and f"{len(twice) + 1} entries" in html
    nobody = client.get("/api/session", params={"id": "c-none"}).json()
    assert (nobody["claimed"], nobody["claimed_entries"]) == (0, [])
    assert "no claimed entries" in client.get("/session", params={"id": "c-none"}).text


def test_claimed_entries_on_mongo(console_data: ConsoleData, seeded: Seeded, mongo_client: MongoClient[Any]) -> None:
    node = MongoSessionBackends(mongo_client[seeded.db_name], "node-b")
    try:
        twice, once = claim_some(node, demo.SESSION_ID, seeded.lease_token)
    finally:
        node.close()
    check_view(console_data, demo.SESSION_ID, "node-b", seeded.lease_token, twice, once)


def test_claimed_entries_on_redis_and_postgres(other_data: ConsoleData, other_deployment: Deployment) -> None:  # noqa: F811
    node = other_deployment.open("node-b")
    try:
        twice, once = claim_some(node, SESSION, other_deployment.lease_token)
    finally:
        node.close()
    check_view(other_data, SESSION, "node-b", other_deployment.lease_token, twice, once)

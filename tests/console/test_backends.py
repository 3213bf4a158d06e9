"""The console on Redis and on PostgreSQL (``aimon-mongo console --uri redis://…`` / ``postgresql://…``):
every page and JSON route over data seeded through the public stores, keyset paging of sessions, the
quarantine's replay and delete, the live signal tail, and the files and snapshots that only MongoDB has."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.console import ConsoleData, ConsoleSettings, create_app
from aimon_mongo.model import Priority, SessionSignal, SignalKind
from tests.backend_seed import OTHER, SESSION, Deployment, message, other_deployment  # noqa: F401 (fixture)


@pytest.fixture
def other_data(other_deployment: Deployment) -> Iterator[ConsoleData]:  # noqa: F811
    data = ConsoleData(uri=other_deployment.uri, **other_deployment.console_options)
    yield data
    data.close()


def client_of(data: ConsoleData, **settings: Any) -> TestClient:
    return TestClient(create_app(data, ConsoleSettings(**settings)), base_url="http://127.0.0.1:8008")


def test_sessions_session_and_server_time(other_data: ConsoleData, other_deployment: Deployment) -> None:  # noqa: F811
    client = client_of(other_data)
    page = client.get("/api/sessions").json()
    assert page["server_time"] is not None and page["next_after"] is None
    rows = {row["session_id"]: row for row in page["items"]}
    assert list(rows) == [SESSION, OTHER]
    first = rows[SESSION]
    assert (first["NOW"], first["NEXT"], first["LATER"], first["total"], first["quarantined"]) == (1, 1, 1, 3, 1)
    assert first["lease"]["state"] == "held" and first["lease"]["holder_id"] == "node-b"
    assert first["lease"]["fencing_token"] == other_deployment.lease_token
    assert rows[OTHER]["lease"]["state"] == "released" and rows[OTHER]["total"] == 1
    one = client.get("/api/sessions", params={"limit": 1}).json()
    assert [r["session_id"] for r in one["items"]] == [SESSION] and one["next_after"] == SESSION
    rest = client.get("/api/sessions", params={"after": SESSION}).json()
    assert [r["session_id"] for r in rest["items"]] == [OTHER]

    detail = client.get("/api/session", params={"id": SESSION}).json()
    assert [w["priority"] for w in detail["waiting"]] == ["NOW", "NEXT", "LATER"]
    assert [w["text"] for w in detail["waiting"]] == ["first NOW", "a NEXT", "a LATER"]
    nobody = client.get("/api/session", params={"id": "c-none"}).json()
    assert (nobody["total"], nobody["lease"]) == (0, None)
    assert client.get("/api/server").json()["server_time"] is not None

    html = client.get("/sessions").text
    assert 'class="session-link"' in html and SESSION in html and "node-b" in html
    assert "Redis" in html if other_deployment.kind == "redis" else "PostgreSQL" in html
    assert 'href="/files"' not in html and 'href="/snapshots"' not in html  # GridFS is MongoDB's
    assert client.get("/session", params={"id": SESSION}).status_code == 200


def test_quarantine_tasks_and_no_files(other_data: ConsoleData, other_deployment: Deployment) -> None:  # noqa: F811
    client = client_of(other_data, allow_writes=True)
    items = client.get("/api/quarantine").json()["items"]
    assert [(e["id"], e["session_id"]) for e in items] == [(other_deployment.quarantine_id, SESSION)]
    assert client.get("/api/quarantine", params={"session": OTHER}).json()["items"] == []
    entry = client.get("/api/quarantine/entry", params={"id": other_deployment.quarantine_id}).json()
    assert entry["raw"] == {"not": "an envelope"}
    assert client.get("/api/quarantine/entry", params={"id": "nope"}).status_code == 404
    assert client.get("/quarantine").status_code == 200
    shown = client.get("/quarantine/entry", params={"id": other_deployment.quarantine_id})
    assert shown.status_code == 200 and "an envelope" in shown.text

    tasks = client.get("/api/tasks").json()["items"]
    assert sorted((t["task_id"], t["state"]) for t in tasks) == [("c-1-turn-1", "COMPLETED"), ("c-2-turn-1", "RUNNING")]
    running = client.get("/api/tasks", params={"state": "RUNNING", "owner": "USER:alice"}).json()["items"]
    assert [t["task_id"] for t in running] == ["c-2-turn-1"]
    paged = client.get("/api/tasks", params={"limit": 1}).json()
    assert len(paged["items"]) == 1 and paged["has_more"] is True
    assert "c-2-turn-1" in client.get("/tasks").text

    for path in ("/files", "/snapshots", "/api/files", "/api/snapshots"):
        refused = client.get(path)
        assert refused.status_code == 404 and "kept in MongoDB (GridFS)" in refused.text, path

    corrected = to_json_envelope(message(SESSION, "fixed", Priority.NEXT))
    confirm = client.get("/quarantine/replay", params={"id": other_deployment.quarantine_id})
    csrf = confirm.cookies.get("aimon_console_csrf") or client.cookies.get("aimon_console_csrf")
    done = client.post(
        "/quarantine/replay",
        data={"id": other_deployment.quarantine_id, "corrected": corrected, "csrf": csrf, "confirm": "yes"},
    )
    assert done.status_code == 200 and f"replayed {other_deployment.quarantine_id} as inbox entry" in done.text
    after = client.get("/api/session", params={"id": SESSION}).json()
    assert (after["NEXT"], after["total"], after["quarantined"]) == (2, 4, 0)


def test_signal_tail_reads_the_backends_signals(other_data: ConsoleData, other_deployment: Deployment) -> None:  # noqa: F811
    seen: list[SessionSignal] = []
    subscription = other_data.backends.signals.subscribe(SESSION, seen.append)
    publisher = other_deployment.open("node-b")
    try:
        publisher.signals.publish(SessionSignal(session_id=SESSION, kind=SignalKind.INTERRUPT, origin_node_id="node-b"))
        import time

        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        subscription.unsubscribe()
        publisher.close()
    assert [(s.kind, s.origin_node_id) for s in seen] == [(SignalKind.INTERRUPT, "node-b")]

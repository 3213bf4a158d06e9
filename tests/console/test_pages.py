"""Console pages and API beyond the browser walk: keyset pagination over many sessions, page bounds,
the quarantine replay refusal, the snapshot filter by context id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo import MongoClient

from aimon_mongo.demo import transcript as demo
from aimon_mongo.model import Priority
from aimon_mongo.mongo import MongoSessionBackends
from tests.console.conftest import XSS_TASK, AppClient, Seeded, message


def test_sessions_paginate_by_keyset(
    app_client: AppClient, seeded: Seeded, mongo_client: MongoClient[dict[str, Any]]
) -> None:
    node = MongoSessionBackends(mongo_client[seeded.db_name], "node-a")
    try:
        for i in range(120):
            node.inbox.deliver(message(f"s-{i:03d}", "hello", Priority.NEXT))
    finally:
        node.close()
    client = app_client()
    seen: list[str] = []
    after = ""
    pages = 0
    while True:
        page = client.get("/api/sessions", params={"after": after, "limit": 50}).json()
        assert len(page["items"]) <= 50
        seen.extend(item["session_id"] for item in page["items"])
        pages += 1
        if page["next_after"] is None:
            break
        after = page["next_after"]
    assert pages == 3 and seen == sorted(seen) and len(seen) == len(set(seen)) == 122  # c-1, c-2, s-000..s-119
    html = client.get("/sessions?limit=50").text
    assert html.count('class="session-link"') == 50 and 'id="next-page"' in html
    assert client.get("/api/sessions?limit=501").status_code == 422
    assert client.get("/sessions?limit=0").status_code == 422


def test_server_time_carries_its_zone(app_client: AppClient) -> None:
    client = app_client()
    for url in ("/api/server", "/api/sessions"):
        shown = client.get(url).json()["server_time"]
        assert shown.endswith("Z"), (url, shown)  # UTC, said so: a reader never has to guess the zone
        assert abs(datetime.fromisoformat(shown) - datetime.now(UTC)) < timedelta(minutes=5)


def test_replay_that_still_cannot_decode_keeps_the_entry(app_client: AppClient, seeded: Seeded) -> None:
    client = app_client(allow_writes=True)
    page = client.get(f"/quarantine/replay?id={seeded.quarantine_id}").text
    token = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    refused = client.post("/quarantine/replay", data={"id": seeded.quarantine_id, "confirm": "yes", "csrf": token})
    assert refused.status_code == 400 and "not replayed, the entry is kept" in refused.text
    assert "deliveredAt" in refused.text
    bad_json = client.post(
        "/quarantine/replay", data={"id": seeded.quarantine_id, "confirm": "yes", "csrf": token, "corrected": "{"}
    )
    assert bad_json.status_code == 400 and "not Extended JSON" in bad_json.text
    assert [e["id"] for e in client.get("/api/quarantine").json()["items"]] == [seeded.quarantine_id]
    detail = client.get("/api/quarantine/entry", params={"id": seeded.quarantine_id}).json()
    assert detail["raw"]["payload"]["deliveredAt"] == "yesterday"
    assert client.get("/api/quarantine/entry", params={"id": "nope"}).status_code == 404


def test_snapshots_by_context_and_transcript_api(app_client: AppClient, seeded: Seeded) -> None:
    client = app_client()
    every = client.get("/api/snapshots").json()["items"]
    assert {e["task_id"] for e in every} == {demo.TASK_ID, XSS_TASK}
    only = client.get("/api/snapshots", params={"context": demo.CONTEXT_ID}).json()["items"]
    assert [e["task_id"] for e in only] == [demo.TASK_ID]
    transcript = client.get("/api/transcript", params={"task": demo.TASK_ID}).json()
    assert transcript["session_id"] == demo.SESSION_ID and transcript["rewind_message_count"] == 0
    assert any(line["kind"] == "tool_call" or "write_file" in line["text"] for line in transcript["lines"])
    session = client.get("/api/session", params={"id": demo.SESSION_ID}).json()
    assert (session["NOW"], session["NEXT"], session["LATER"], session["quarantined"]) == (1, 1, 1, 1)
    assert session["lease"]["holder_id"] == "node-b" and session["lease"]["state"] == "held"
    assert [w["priority"] for w in session["waiting"]] == ["NOW", "NEXT", "LATER"]
    tasks = client.get("/api/tasks", params={"owner": "USER:alice", "state": "RUNNING"}).json()["items"]
    assert [t["task_id"] for t in tasks] == ["c-2-turn-1"]
    assert client.get("/api/tasks", params={"state": "SLEEPING"}).status_code == 400


def test_a_page_of_sessions_costs_the_same_whatever_the_store_holds(
    mongo_uri: str, seeded: Seeded, mongo_client: MongoClient[dict[str, Any]]
) -> None:
    from aimon_mongo.inspect import Inspector
    from aimon_mongo.inspect.mongo import MongoInspectionDriver
    from aimon_mongo.mongo.collections import MongoCollectionNames
    from aimon_mongo.mongo.command_log import CommandLog

    node = MongoSessionBackends(mongo_client[seeded.db_name], "node-a")
    log = CommandLog()
    counted: MongoClient[dict[str, Any]] = MongoClient(mongo_uri, event_listeners=[log], tz_aware=True)
    try:
        for i in range(30):
            node.inbox.deliver(message(f"s-{i:03d}", "hello", Priority.NEXT))

        def page() -> tuple[int, list[dict[str, Any]]]:
            with log.recording() as seen:
                driver = MongoInspectionDriver(counted[seeded.db_name], MongoCollectionNames())
                rows, _ = Inspector(driver, node.inbox).session_page("", 10)
            return seen.round_trips, rows

        before, rows = page()
        assert [r["total"] for r in rows[2:]] == [1] * 8
        for i in range(30):
            for _ in range(3):
                node.inbox.deliver(message(f"s-{i:03d}", "more", Priority.LATER))
        after, rows = page()
        assert [(r["NEXT"], r["LATER"], r["total"]) for r in rows[2:]] == [(1, 3, 4)] * 8
        assert after == before <= 2 * 11 + 1 + 2 + 2  # index seeks for 11 ids per collection, then the page's figures
    finally:
        node.close()
        counted.close()


def test_a_long_transcript_is_paged(app_client: AppClient, console_data: Any) -> None:
    from aimon_mongo.snapshots import Message, Role, SessionSnapshot

    messages = [Message.text(Role.USER if i % 2 == 0 else Role.ASSISTANT, f"message number {i}") for i in range(450)]
    console_data.snapshot_store.save("long-1", "analyst", None, SessionSnapshot.of_messages("c-long", messages))
    client = app_client()
    first = client.get("/snapshots/view?task=long-1").text
    assert first.count('class="msg ') == 200 and "message number 199<" in first and "message number 200<" not in first
    assert "Messages 1–200 of 450." in first and "offset=200" in first
    last = client.get("/snapshots/view?task=long-1&offset=400").text
    assert last.count('class="msg ') == 50 and "message number 449<" in last and 'id="next-page"' not in last

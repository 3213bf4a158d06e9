"""``aimon-mongo inbox ...`` and ``quarantine ...`` against the stand-in."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bson import ObjectId, json_util
from pymongo import MongoClient

from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.model import ImageInput, InboundMessage, MultimodalInput, Principal, Priority, TextInput
from tests.cli.conftest import Cli


def _message(session: str, text: str, priority: Priority, **extra: Any) -> InboundMessage:
    return InboundMessage(
        session_id=session,
        agent_ref="analyst",
        user_input=extra.pop("user_input", TextInput(text=text)),
        priority=priority,
        initiator=Principal.user("alice"),
        delivered_at=datetime.now(UTC),
        **extra,
    )


def test_peek_lists_in_collect_order_without_consuming(cli: Cli, node: Any) -> None:
    later = node.inbox.deliver(_message("c-1", "later", Priority.LATER))
    image = MultimodalInput(inputs=(TextInput(text="see"), ImageInput(mime_type="image/png", data=b"\x89PNG")))
    now = node.inbox.deliver(_message("c-1", "", Priority.NOW, user_input=image, turn_id="t-1"))
    node.inbox.deliver(_message("c-2", "elsewhere", Priority.NEXT))
    for _ in range(2):
        peeked = cli("inbox", "peek", "--json", "c-1").json()
        assert peeked["session_id"] == "c-1" and peeked["unreadable"] == []
        assert [m["id"] for m in peeked["messages"]] == [now, later]
    first = peeked["messages"][0]
    assert first["priority"] == "NOW" and first["turnId"] == "t-1"
    assert first["userInput"] == "see [Image: image/png, 4 bytes]"
    assert first["userInputEncoded"]["type"] == "multimodal"
    assert first["initiator"] == {"type": "USER", "id": "alice", "displayName": "alice"}
    assert "userInputEncoded" not in peeked["messages"][1]
    assert len(cli("inbox", "peek", "--json", "--limit", "1", "c-1").json()["messages"]) == 1
    table = cli("inbox", "peek", "c-1")
    assert table.code == 0 and "NOW" in table.stdout and "LATER" in table.stdout and "USER:alice" in table.stdout
    assert len(node.inbox.collect("c-1").messages) == 2  # peek consumed nothing
    assert "is empty" in cli("inbox", "peek", "c-1").stdout


def _quarantine_one(node: Any, db: Any, session: str = "c-7") -> dict[str, Any]:
    """Store an entry whose payload instant is text and collect it: it lands in the quarantine.

    Returns the entry as it should have been stored (the correction an operator would replay)."""
    doc = to_mongo_document(_message(session, "needs a fix", Priority.NEXT, turn_id="t-9"), ObjectId())
    db["conversation_inbox"].insert_one({**doc, "payload": {**doc["payload"], "deliveredAt": "yesterday"}})
    batch = node.inbox.collect(session)
    assert batch.messages == () and len(batch.unreadable) == 1
    return doc


def test_stats_counts_per_session_and_priority(
    cli: Cli, node: Any, mongo_client: MongoClient[Any], mongo_db_name: str
) -> None:
    for session, priority in (
        ("c-1", Priority.NOW),
        ("c-1", Priority.NEXT),
        ("c-1", Priority.NEXT),
        ("c-2", Priority.LATER),
    ):
        node.inbox.deliver(_message(session, "x", priority))
    _quarantine_one(node, mongo_client[mongo_db_name])
    rows = {row["session_id"]: row for row in cli("inbox", "stats", "--json").json()}
    assert set(rows) == {"c-1", "c-2", "c-7"}
    c1 = rows["c-1"]
    assert (c1["NOW"], c1["NEXT"], c1["LATER"], c1["total"], c1["quarantined"]) == (1, 2, 0, 3, 0)
    assert c1["oldest"] is not None
    assert (rows["c-2"]["LATER"], rows["c-2"]["total"]) == (1, 1)
    assert (rows["c-7"]["total"], rows["c-7"]["quarantined"]) == (0, 1)
    only = cli("inbox", "stats", "--json", "--session", "c-2").json()
    assert [row["session_id"] for row in only] == ["c-2"]
    table = cli("inbox", "stats")
    assert table.code == 0 and "c-1" in table.stdout and "quarantined" in table.stdout


def test_quarantine_list_show_replay_delete(
    cli: Cli, node: Any, mongo_client: MongoClient[Any], mongo_db_name: str, tmp_path: Path
) -> None:
    db = mongo_client[mongo_db_name]
    original = _quarantine_one(node, db)
    entries = cli("quarantine", "list", "--json").json()
    assert len(entries) == 1
    entry = entries[0]
    assert entry["session_id"] == "c-7" and entry["entry_id"] == str(original["_id"])
    assert "deliveredAt" in entry["error"]
    assert cli("quarantine", "list", "--json", "--session", "other").json() == []
    assert entry["id"] in cli("quarantine", "list").stdout

    shown = cli("quarantine", "show", "--json", entry["id"]).json()
    assert shown["raw"]["payload"]["deliveredAt"] == "yesterday" and shown["raw"]["payload"]["turnId"] == "t-9"
    assert shown["raw"]["_id"] == {"$oid": str(original["_id"])}
    assert "raw document:" in cli("quarantine", "show", entry["id"]).stdout

    still_bad = cli("quarantine", "replay", entry["id"]).failed_with_one_line()
    assert "deliveredAt" in still_bad
    assert len(cli("quarantine", "list", "--json").json()) == 1  # a failed replay keeps the entry

    corrected = tmp_path / "fixed.json"
    corrected.write_text(json_util.dumps(original))
    replayed = cli("quarantine", "replay", "--json", "--from", str(corrected), entry["id"]).json()
    assert replayed["quarantine_id"] == entry["id"]
    assert cli("quarantine", "list", "--json").json() == []
    peeked = cli("inbox", "peek", "--json", "c-7").json()["messages"]
    assert [(m["id"], m["priority"], m["turnId"]) for m in peeked] == [(replayed["inbox_id"], "NEXT", "t-9")]

    second = cli("quarantine", "list", "--json").json()
    assert second == []
    _quarantine_one(node, db, "c-8")
    victim = cli("quarantine", "list", "--json").json()[0]["id"]
    assert cli("quarantine", "delete", victim).code == 0
    assert cli("quarantine", "list", "--json").json() == []


def test_quarantine_unknown_ids_fail_with_one_line(cli: Cli, node: Any, tmp_path: Path) -> None:
    missing = str(ObjectId())
    assert "no quarantined entry" in cli("quarantine", "show", missing).failed_with_one_line()
    assert "not an ObjectId" in cli("quarantine", "show", "zzz").failed_with_one_line()
    assert "no quarantined entry" in cli("quarantine", "delete", missing).failed_with_one_line()
    assert "no quarantined entry" in cli("quarantine", "replay", missing).failed_with_one_line()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not a JSON document" in cli("quarantine", "replay", "--from", str(bad), missing).failed_with_one_line()
    assert cli("quarantine", "replay", "--from", str(tmp_path / "absent.json"), missing).code == 2


def test_inbox_groups_as_a_real_process(cli_process: Cli, node: Any) -> None:
    entry = node.inbox.deliver(_message("c-1", "hello", Priority.NEXT))
    peeked = cli_process("inbox", "peek", "--json", "c-1").json()
    assert [m["id"] for m in peeked["messages"]] == [entry]
    assert cli_process("inbox", "stats", "--json").json()[0]["total"] == 1
    assert cli_process("quarantine", "list", "--json").json() == []
    cli_process("quarantine", "delete", str(ObjectId())).failed_with_one_line()


def test_quarantine_show_is_readable_and_replay_takes_its_json(
    cli: Cli, node: Any, mongo_client: MongoClient[Any], mongo_db_name: str, tmp_path: Path
) -> None:
    _quarantine_one(node, mongo_client[mongo_db_name])
    entry = cli("quarantine", "list", "--json").json()[0]
    shown = cli("quarantine", "show", entry["id"]).stdout
    assert "\\u000a" not in shown and '  "payload": {' in shown.splitlines()  # indented JSON, a line per member
    raw = shown.split("raw document:\n", 1)[1]
    assert json.loads(raw)["payload"]["deliveredAt"] == "yesterday"

    saved = tmp_path / "entry.json"
    saved.write_text(cli("quarantine", "show", "--json", entry["id"]).stdout)
    kept = cli("quarantine", "replay", "--from", str(saved), entry["id"]).failed_with_one_line()
    assert "deliveredAt" in kept and "the entry is kept" in kept  # its raw member was replayed, still bad
    wrong_shape = tmp_path / "wrong.json"
    wrong_shape.write_text('{"hello": "world"}')
    wants = cli("quarantine", "replay", "--from", str(wrong_shape), entry["id"]).failed_with_one_line()
    assert "--from wants the stored document" in wants and "quarantine show ID --json" in wants
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    assert "not a document" in cli("quarantine", "replay", "--from", str(listed), entry["id"]).failed_with_one_line()
    other = str(ObjectId())
    assert f"not '{other}'" in cli("quarantine", "replay", "--from", str(saved), other).failed_with_one_line()

    fixed = json.loads(saved.read_text())
    fixed["raw"]["payload"]["deliveredAt"] = fixed["raw"]["deliveredAt"]  # the repair: a real instant
    saved.write_text(json.dumps(fixed))
    replayed = cli("quarantine", "replay", "--json", "--from", str(saved), entry["id"]).json()
    assert replayed["quarantine_id"] == entry["id"]
    assert cli("quarantine", "list", "--json").json() == []
    assert [m["id"] for m in cli("inbox", "peek", "--json", "c-7").json()["messages"]] == [replayed["inbox_id"]]

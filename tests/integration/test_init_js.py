"""db/mongodb/init.js run by real mongosh creates exactly what ensure_schema creates."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

from aimon_mongo.mongo import ensure_schema

ROOT = Path(__file__).resolve().parents[2]
MONGOSH = ROOT / "node_modules" / ".bin" / "mongosh"
INIT_JS = ROOT / "db" / "mongodb" / "init.js"
INDEX_FIELDS = ("name", "key", "unique", "partialFilterExpression", "expireAfterSeconds")


def run_init_js(uri: str, db_name: str) -> subprocess.CompletedProcess[str]:
    if not MONGOSH.exists():
        pytest.fail("mongosh is not installed: run ./dev setup (it runs npm ci from package-lock.json)", pytrace=False)
    command = [str(MONGOSH), uri, "--quiet", "--eval", f'var dbName = "{db_name}"', "--file", str(INIT_JS)]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def described(client: MongoClient[dict[str, Any]], db_name: str) -> dict[str, Any]:
    """Collections with their options and index specs (the fields that matter), read back with PyMongo."""
    database = client[db_name]
    shape: dict[str, Any] = {}
    for info in database.list_collections():
        options = {k: v for k, v in info.get("options", {}).items() if k in ("capped", "size")}
        indexes = sorted(
            (
                {k: (dict(v) if k == "key" else v) for k, v in index.items() if k in INDEX_FIELDS and v is not False}
                for index in database[info["name"]].list_indexes()
            ),
            key=lambda index: index["name"],
        )
        shape[info["name"]] = {"options": options, "indexes": indexes}
    return shape


@pytest.fixture
def second_db(mongo_client: MongoClient[dict[str, Any]]) -> Iterator[str]:
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield name
    mongo_client.drop_database(name)


def test_init_js_equals_ensure_schema(
    mongo_uri: str, mongo_client: MongoClient[dict[str, Any]], mongo_db_name: str, second_db: str
) -> None:
    first = run_init_js(mongo_uri, mongo_db_name)
    assert first.returncode == 0, first.stderr[-2000:]
    assert f"schema ready in database {mongo_db_name}" in first.stdout
    again = run_init_js(mongo_uri, mongo_db_name)  # idempotent
    assert again.returncode == 0, again.stderr[-2000:]
    assert "created collection" not in again.stdout

    ensure_schema(mongo_client[second_db])
    ensure_schema(mongo_client[second_db])  # idempotent too
    from_script = described(mongo_client, mongo_db_name)
    from_python = described(mongo_client, second_db)
    assert from_script == from_python
    assert set(from_script) == {
        "conversation_locks", "conversation_inbox", "conversation_inbox_quarantine", "idempotency_entries",
        "conversation_signals", "background_task", "scheduled_task_interrupts", "session_records",
        "session_log_segments", "session_fences", "langgraph_checkpoints", "langgraph_threads",
        "langgraph_values.files", "langgraph_values.chunks",
    }  # fmt: skip
    assert from_script["conversation_signals"]["options"] == {"capped": True, "size": 67108864}
    assert from_script["scheduled_task_interrupts"]["options"] == {"capped": True, "size": 1048576}
    assert {"name": "ttl_expires_at", "key": {"expiresAt": 1}, "expireAfterSeconds": 0} in (
        from_script["idempotency_entries"]["indexes"]
    )
    assert from_script["conversation_locks"]["indexes"] == [{"name": "_id_", "key": {"_id": 1}, "unique": True}]


def test_init_js_warns_on_a_standalone_server(
    mongo_uri: str, mongo_client: MongoClient[dict[str, Any]], mongo_db_name: str
) -> None:
    result = run_init_js(mongo_uri, mongo_db_name)
    assert result.returncode == 0, result.stderr[-2000:]
    is_replica_set = mongo_client.admin.command("hello").get("setName") is not None
    assert ("not a replica set" in result.stdout) is not is_replica_set

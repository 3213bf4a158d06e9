"""``aimon-mongo leases ...``, ``tasks list`` and ``init-db`` against the stand-in."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pymongo import MongoClient

from aimon_mongo.model import BackgroundTask, Principal, TaskState
from tests.cli.conftest import ROOT, Cli

SCHEMA = {
    "conversation_locks": [],
    "conversation_inbox": ["by_conv_priority_fifo"],
    "conversation_inbox_quarantine": ["by_conv_quarantined_at"],
    "idempotency_entries": ["ttl_expires_at", "by_status_touch"],
    "conversation_signals": [],
    "background_task": ["by_state", "by_context"],
    "scheduled_task_interrupts": [],
    "session_records": [],
    "session_log_segments": ["by_session"],
    "session_fences": [],
    "langgraph_checkpoints": ["by_thread_ns_checkpoint", "by_thread_ns_value_key", "by_run_id"],
    "langgraph_threads": ["by_expires_at", "ttl_purge_at"],
    "langgraph_values.files": ["by_thread"],
    "langgraph_values.chunks": ["files_id_1_n_1"],
}


def test_lease_states_on_server_time(cli: Cli, node: Any) -> None:
    never = cli("leases", "show", "--json", "c-1").json()
    assert never == {
        "session_id": "c-1",
        "state": "none",
        "holder_id": None,
        "fencing_token": None,
        "acquired_at": None,
        "expires_at": None,
    }
    assert "never been leased" in cli("leases", "show", "c-1").stdout
    held = node.leases.try_acquire("c-1", "node-b", timedelta(seconds=30))
    shown = cli("leases", "show", "--json", "c-1").json()
    assert (shown["state"], shown["holder_id"], shown["fencing_token"]) == ("held", "node-b", held.fencing_token)
    assert datetime.fromisoformat(shown["expires_at"]) == held.expires_at
    node.leases.release(held)
    released = cli("leases", "show", "--json", "c-1").json()
    assert (released["state"], released["holder_id"], released["fencing_token"]) == (
        "released",
        None,
        held.fencing_token,
    )
    short = node.leases.try_acquire("c-1", "node-a", timedelta(milliseconds=200))
    assert short.fencing_token > held.fencing_token
    deadline = time.monotonic() + 20
    while cli("leases", "show", "--json", "c-1").json()["state"] != "expired":
        assert time.monotonic() < deadline, "the 200 ms lease never read as expired"
        time.sleep(0.1)
    table = cli("leases", "show", "c-1")
    assert table.code == 0 and "expired" in table.stdout and "node-a" in table.stdout
    node.leases.try_acquire("c-2", "node-a", timedelta(seconds=30))
    listed = cli("leases", "list", "--json").json()
    assert [(row["session_id"], row["state"]) for row in listed] == [("c-1", "expired"), ("c-2", "held")]
    assert "no lease records" not in cli("leases", "list").stdout


def _task(task_id: str, state: TaskState, context: str | None) -> BackgroundTask:
    return BackgroundTask(
        task_id=task_id,
        subagent_name="analyst",
        state=state,
        start_time=datetime.now(UTC),
        owner=Principal.user("alice"),
        agent_runtime_id=context,
    )


def test_tasks_list_filters(cli: Cli, node: Any) -> None:
    assert cli("tasks", "list", "--json").json() == []
    assert "no matching tasks" in cli("tasks", "list").stdout
    node.tasks.put(_task("t-1", TaskState.RUNNING, "agent:analyst:c-1"))
    node.tasks.put(_task("t-2", TaskState.RUNNING, "agent:analyst:c-2"))
    node.tasks.put(_task("t-3", TaskState.PENDING, "agent:analyst:c-1"))
    node.tasks.transition("t-2", TaskState.COMPLETED)
    every = cli("tasks", "list", "--json").json()
    assert sorted(task["task_id"] for task in every) == ["t-1", "t-2", "t-3"]
    done = cli("tasks", "list", "--json", "--state", "COMPLETED").json()
    assert [(t["task_id"], t["state"]) for t in done] == [("t-2", "COMPLETED")]
    assert done[0]["end_time"] is not None and done[0]["agent_runtime_id"] == "agent:analyst:c-2"
    c1 = cli("tasks", "list", "--json", "--context", "agent:analyst:c-1").json()
    assert sorted(t["task_id"] for t in c1) == ["t-1", "t-3"]
    both = cli("tasks", "list", "--json", "--state", "running", "--context", "agent:analyst:c-1").json()
    assert [t["task_id"] for t in both] == ["t-1"]
    table = cli("tasks", "list")
    assert "t-3" in table.stdout and "PENDING" in table.stdout and "USER:alice" in table.stdout
    assert cli("tasks", "list", "--state", "SLEEPING").code == 2


def test_init_db_creates_the_schema_idempotently(cli: Cli, mongo_client: MongoClient[Any], mongo_db_name: str) -> None:
    for _ in range(2):
        created = cli("init-db", "--json").json()
        assert created["database"] == mongo_db_name
        rows = {row["collection"]: row for row in created["collections"]}
        assert {name: sorted(row["indexes"]) for name, row in rows.items()} == {
            name: sorted(indexes) for name, indexes in SCHEMA.items()
        }
        assert all(row["exists"] and all(row["indexes"].values()) for row in rows.values())
        assert rows["conversation_signals"]["capped"] and rows["scheduled_task_interrupts"]["capped"]
    db = mongo_client[mongo_db_name]
    assert set(SCHEMA) <= set(db.list_collection_names())
    names = {index["name"] for index in db["conversation_inbox"].list_indexes()}
    assert "by_conv_priority_fifo" in names
    assert "by_conv_priority_fifo" in cli("init-db").stdout


def test_init_db_print_js(cli: Cli) -> None:
    printed = cli("init-db", "--print-js")
    assert printed.code == 0
    path = Path(printed.stdout.strip())
    assert path.is_file() and path.parts[-3:] == ("aimon_mongo", "mongo", "init.js")  # package data
    assert path.read_bytes() == (ROOT / "db" / "mongodb" / "init.js").read_bytes()
    assert cli("init-db", "--print-js", "--json").json() == {"init_js": str(path)}


def test_session_groups_as_a_real_process(cli_process: Cli) -> None:
    created = cli_process("init-db", "--json").json()
    assert len(created["collections"]) == len(SCHEMA)
    assert cli_process("leases", "show", "--json", "c-1").json()["state"] == "none"
    assert cli_process("leases", "list", "--json").json() == []
    assert cli_process("tasks", "list", "--json", "--state", "FAILED").json() == []
    assert cli_process("tasks", "list", "--state", "nope").code == 2

"""The demo: README's first command runs it to the end on a machine with no MongoDB configured.

``./dev demo`` runs as a real process with no ``MONGODB_URI`` / ``AIMON_MONGODB_URI``: it starts the
local stand-in itself and stops it. The ``--json`` summary is checked in-process against the test
stand-in: the fenced write of the old holder is refused and the fencing token increases.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

from pymongo import MongoClient

from tests.cli.conftest import ROOT, Cli


def test_readme_first_command_runs_the_demo_without_mongodb() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "./dev demo" in readme.split("```bash", 1)[1].split("```", 1)[0].splitlines()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI", "COLUMNS")}
    done = subprocess.run(["./dev", "demo"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    for text in (
        "local stand-in (mongoeco), started for this run",
        "node-b acquires the lease on c-1",
        "fencing token ",
        "node-a holds c-1 with fencing token ",
        "refused: StaleFencingTokenError",
        "node-a got TURN_RESULT from node-b",
        "workspace/c-1/report.md",
        "task-snapshot/",
        "#3 ASSISTANT",
        "the stand-in was stopped",
    ):
        assert text in out, text
    assert "Traceback" not in done.stderr
    taken = re.search(r"node-a holds c-1 with fencing token (\d+) \(was (\d+)\)", out)
    assert taken is not None and int(taken[1]) > int(taken[2])


def test_demo_json_summary_shows_fencing(cli: Cli, mongo_client: MongoClient[Any]) -> None:
    first = cli("demo", "--json", "--drop", database=False).json()
    second = cli("demo", "--json", "--drop", database=False).json()
    assert first["database"] != second["database"]  # a fresh database per run
    assert first["database"].startswith("aimon_demo_") and first["dropped"] is True
    assert first["database"] not in mongo_client.list_database_names()
    summary = first
    assert summary["ok"] is True and summary["mongodb"]["standin"] is False
    assert [m["kind"] for m in summary["delivered"]] == ["text", "multimodal"]
    assert [(m["priority"], m["kind"]) for m in summary["collected"]] == [("NOW", "multimodal"), ("NEXT", "text")]
    assert summary["lease_b"]["holder_id"] == "node-b"
    assert summary["lease_a_refused_while_held"] is True
    assert summary["lease_a"]["holder_id"] == "node-a"
    assert summary["lease_a"]["fencing_token"] > summary["lease_b"]["fencing_token"]
    assert summary["token_increased"] is True
    stale = summary["stale_write"]
    assert stale == {
        "holder_id": "node-b",
        "fencing_token": summary["lease_b"]["fencing_token"],
        "refused": True,
        "error": "StaleFencingTokenError",
        "message": stale["message"],
    }
    assert f"already accepted token {summary['lease_a']['fencing_token']}" in stale["message"]
    assert summary["record_transcript_intact"] is True
    assert summary["signal"]["kind"] == "TURN_RESULT" and summary["signal"]["received_by"] == "node-a"
    assert summary["signal"]["origin_node_id"] == "node-b"
    assert summary["snapshot"]["context_id"] == "agent:analyst:c-1"
    assert summary["snapshot"]["path"] == "task-snapshot/c-1-turn-1.json"
    assert summary["tree"] == [
        "task-snapshot/c-1-turn-1.json",
        "workspace/c-1/inputs/chart.png",
        "workspace/c-1/notes.md",
        "workspace/c-1/report.md",
    ]
    kinds = [line["kind"] for line in summary["transcript"]]
    assert "tool_call" in kinds and "artifact" in kinds and kinds[-2] == "rewind"


def test_demo_keeps_its_database_for_browsing(cli: Cli, mongo_client: MongoClient[Any]) -> None:
    summary = cli("demo", "--json", database=False).json()
    database = summary["database"]
    try:
        tasks = cli("--session-db", database, "tasks", "list", "--json", database=False).json()
        assert [(t["task_id"], t["state"]) for t in tasks] == [("c-1-turn-1", "COMPLETED")]
        shown = cli("--db", database, "snapshots", "show", "--json", "c-1-turn-1", database=False).json()
        assert shown["lines"] == summary["transcript"]
        lease = cli("--session-db", database, "leases", "show", "--json", "c-1", database=False).json()
        assert (lease["state"], lease["fencing_token"]) == ("released", summary["lease_a"]["fencing_token"])
    finally:
        mongo_client.drop_database(database)


def test_drop_demo_drops_both_databases_and_refuses_others(cli: Cli, mongo_client: MongoClient[Any]) -> None:
    session_db, files_db = f"aimon_demo_s{os.getpid()}", f"aimon_demo_f{os.getpid()}"
    told = cli("demo", "--session-db", session_db, "--db", files_db, database=False)
    assert told.code == 0, told.stderr
    assert f"aimon-mongo drop-demo {session_db} {files_db}" in told.stdout  # the hint names both, no mongosh
    mongo_client["not_a_demo"]["x"].insert_one({"kept": True})
    try:
        line = cli("drop-demo", session_db, "not_a_demo", database=False).failed_with_one_line()
        assert "'not_a_demo' holds no demo run" in line and "nothing was dropped" in line
        assert {session_db, files_db, "not_a_demo"} <= set(mongo_client.list_database_names())
        dropped = cli("drop-demo", session_db, files_db, database=False)
        assert dropped.code == 0, dropped.stderr
        assert dropped.stdout.split() == ["dropped", session_db, "dropped", files_db]
        assert not {session_db, files_db} & set(mongo_client.list_database_names())
    finally:
        for name in (session_db, files_db, "not_a_demo"):
            mongo_client.drop_database(name)


def test_demo_drop_says_both_databases(cli: Cli, mongo_client: MongoClient[Any]) -> None:
    session_db, files_db = f"aimon_demo_t{os.getpid()}", f"aimon_demo_g{os.getpid()}"
    told = cli("demo", "--drop", "--session-db", session_db, "--db", files_db, database=False)
    assert told.code == 0, told.stderr
    assert f"databases {session_db} and {files_db} dropped" in told.stdout
    assert not {session_db, files_db} & set(mongo_client.list_database_names())

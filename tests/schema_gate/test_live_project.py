"""The live project: its declarations, baseline and checkpoint pass the gate; the test command runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from aimon_mongo.schema_gate import main
from aimon_mongo.schema_gate.loader import load_inventory
from tests.schema_gate.conftest import REPO

EXPECTED_ROOTS = {
    "gridfs.directory-marker.document": ("vfs", 1),
    "gridfs.directory-marker.metadata": ("vfs", 1),
    "gridfs.file.document": ("vfs", 1),
    "gridfs.file.metadata": ("vfs", 1),
    "inbox.json-envelope": ("inbox", 1),
    "mongo.background-task.document": ("background-task", 1),
    "mongo.idempotency.document": ("idempotency", 1),
    "mongo.inbox.document": ("inbox", 1),
    "mongo.inbox.payload": ("inbox", 1),
    "mongo.lease.document": ("lease", 1),
    "mongo.log-segment.document": ("log-segment", 1),
    "mongo.session-record.document": ("session-record", 1),
    "mongo.signal.document": ("signal", 1),
    "postgres.background-task.row": ("background-task", 1),
    "postgres.idempotency.row": ("idempotency", 1),
    "postgres.inbox.row": ("inbox", 1),
    "postgres.lease.fence-row": ("lease", 1),
    "postgres.lease.row": ("lease", 1),
    "postgres.log-segment.row": ("log-segment", 1),
    "postgres.session-record.row": ("session-record", 1),
    "postgres.signal.row": ("signal", 1),
    "redis.background-task.value": ("background-task", 1),
    "redis.idempotency.value": ("idempotency", 1),
    "redis.inbox.stream-entry": ("inbox", 1),
    "redis.lease.value": ("lease", 1),
    "redis.signal.message": ("signal", 1),
    "snapshot.document.v1": ("snapshot-document", 2),
    "snapshot.document.v2": ("snapshot-document", 2),
    "snapshot.envelope": ("snapshot-envelope", 1),
    "snapshot.segment-payload": ("snapshot-document", 2),
    "submit-options": ("submit-options", 1),
    "task-result.document": ("task-result", 1),
    "user-input": ("user-input", 1),
}


def test_every_stored_shape_is_declared_with_its_family_and_version() -> None:
    inventory = load_inventory()
    declared = {name: (e.family, e.version) for name, e in inventory.roots.items()}
    # Later issues add roots (through `record`); the baseline's roots stay declared in their families.
    assert {name: declared.get(name, (None, 0))[0] for name in EXPECTED_ROOTS} == {
        name: family for name, (family, _) in EXPECTED_ROOTS.items()
    }
    assert all(declared[name][1] >= version for name, (_, version) in EXPECTED_ROOTS.items())


def test_the_live_project_passes_check(capsys) -> None:
    assert main(["check", "--root", str(REPO)]) == 0
    assert capsys.readouterr().out.startswith("schema gate: ")


def test_python_dash_m_runs_standalone_with_exit_codes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo.schema_gate", "check", "--json"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    usage = subprocess.run(
        [sys.executable, "-m", "aimon_mongo.schema_gate", "record"], cwd=REPO, capture_output=True, text=True
    )
    assert usage.returncode == 2
    assert "the following arguments are required: id" in usage.stderr


def test_the_live_baseline_is_finalized_in_v1() -> None:
    checkpoint = json.loads((REPO / "schema" / "finalized" / "v1.json").read_text("utf-8"))
    assert list(checkpoint["acceptedRecords"]) == ["2026-11-30-baseline"]
    assert {name: root["family"] for name, root in checkpoint["roots"].items()} == {
        name: family for name, (family, _) in EXPECTED_ROOTS.items()
    }


def test_the_test_command_runs_the_gate() -> None:
    dev = (REPO / "dev").read_text("utf-8")
    test_branch = dev[dev.index("  test)") : dev.index("\n  *)", dev.index("  test)"))]  # to the next branch
    assert "gen_sync.py --check" in test_branch
    assert test_branch.index("gen_sync.py --check") < test_branch.index("-m aimon_mongo.schema_gate check")


def test_live_docs_freshness_is_checked(tmp_path: Path) -> None:
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    (tmp_path / "docs").mkdir()
    docs = tmp_path / "docs" / "persisted-formats.md"
    shutil.copy(REPO / "docs" / "persisted-formats.md", docs)
    assert main(["check", "--root", str(tmp_path)]) == 0
    docs.write_text(docs.read_text("utf-8").replace("| required |", "| optional |", 1), "utf-8")
    assert main(["check", "--root", str(tmp_path), "--json"]) == 1

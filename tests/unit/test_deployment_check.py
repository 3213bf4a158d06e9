"""scripts/deployment_check.py (``./dev test --mongodb URI ...``) without a server: its arguments, the
redaction of secrets, which tests it keeps, the report rendered from a JUnit file, and the CI workflow
that runs it (.github/workflows/real-mongodb.yml)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("deployment_check", ROOT / "scripts" / "deployment_check.py")
assert _spec is not None and _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
sys.modules["deployment_check"] = check  # dataclasses look their module up by name
_spec.loader.exec_module(check)

SECRET = "s3cr%40t-pw"
"""A password as written in a URI (percent-encoded ``s3cr@t-pw``)."""


def test_arguments() -> None:
    options = check.parse_args(["--mongodb", "mongodb://h/", "--postgres", "dbname=x", "--report", "r.md"])
    assert options.servers == {"mongodb": "mongodb://h/", "postgres": "dbname=x"}
    assert options.report == Path("r.md") and not options.quick
    assert options.suites == ("conformance", "reliability", "round trips")
    assert options.benchmarks == ("mongo_session", "vfs", "snapshots", "langgraph_savers", "deepagents_backend",
                                  "postgres_session")  # fmt: skip
    every = check.parse_args(["--redis", "redis://h", "--mongodb", "mongodb://h", "--postgres", "x", "--quick"])
    assert every.quick and every.suites == ("conformance", "round trips") and every.benchmarks == ()
    assert check.parse_args(["--redis=redis://h", "--mongodb=mongodb://h", "--postgres=x"]).benchmarks[-1] == "host"
    assert check.parse_args(["--redis", "redis://h"]).report == Path("deployment-report.md")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "give at least one of --mongodb, --redis, --postgres"),
        (["--quick"], "give at least one of --mongodb, --redis, --postgres"),
        (
            ["--mongodb", f"http://u:{SECRET}@h/"],
            "--mongodb must be a mongodb:// or mongodb+srv:// URI, got 'http://***@h/'",
        ),
        (["--redis", "127.0.0.1:6379"], "--redis must be a redis://, rediss:// or unix:// URL, got '127.0.0.1:6379'"),
        (["--redis", "redis://h", "--report", "r.json"], "--report is the Markdown file"),
        (["--redis", "redis://h", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_exit_2_naming_the_value(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        check.parse_args(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and says in err and SECRET not in err


def test_scrubber_removes_secrets_written_and_decoded_from_free_text() -> None:
    scrub = check.Scrubber([f"mongodb://app:{SECRET}@h/", "redis://h:6379", f"host=db password={SECRET}"])
    text = f"auth failed for app / s3cr@t-pw at mongodb://app:{SECRET}@h/x; dsn host=db password={SECRET}"
    assert scrub(text) == "auth failed for app / *** at mongodb://***@h/x; dsn host=db password=***"


@pytest.mark.parametrize(
    ("name", "family"),
    [("mongo-sync", "mongodb"), ("sync-mongo", "mongodb"), ("gridfs-async", "mongodb"), ("redis-async", "redis"),
     ("async-postgres", "postgres"), ("memory-sync", None), ("local-async", None),
     ("redis-cluster-sync", "private"), ("postgres-pgbouncer-async", "private")],
)  # fmt: skip
def test_family_names(name: str, family: str | None) -> None:
    assert check.family_of_name(name) == family


def test_an_unknown_family_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown backend family 'cassandra-sync'"):
        check.family_of_name("cassandra-sync")


def test_deselect_reasons() -> None:
    def why(nodeid: str, fixtures: list[str], params: dict[str, object], standalone: bool = False) -> str | None:
        return check.deselect_reason(nodeid, fixtures, params, {"mongodb", "postgres"}, standalone)

    assert why("tests/conformance/test_inbox.py::t[mongo-sync]", ["cluster"], {"cluster": "mongo-sync"}) is None
    assert why("tests/reliability/test_injection.py::t[gridfs-sync]", ["backend"], {"backend": "gridfs-sync"}) is None
    assert why("tests/x.py::t", ["postgres_dsn"], {}) is None
    assert why("tests/x.py::t[redis-sync]", ["cluster"], {"cluster": "redis-sync"}) == (
        "needs a server not given: Redis"
    )
    assert why("tests/x.py::t[memory-sync]", ["cluster"], {"cluster": "memory-sync"}) == (
        "reaches no server (in-memory or local families, pure checks)"
    )
    assert str(why("tests/reliability/test_restart.py::t[mongo-sync]", [], {})).startswith("starts private servers")
    assert str(why("tests/x.py::t", ["mongo_uri", "refusing_uri"], {})).startswith("starts private servers")
    assert why("tests/x.py::t", ["changestream_uri"], {}) is None
    assert why("tests/x.py::t", ["changestream_uri"], {}, standalone=True) == (
        "needs a MongoDB replica set (the deployment is standalone)"
    )
    cut = "tests/reliability/test_connection_cuts.py::t[sync-postgres]"
    assert check.deselect_reason(cut, ["target"], {"target": "postgres"}, {"postgres"}, False, {"mongodb"}) is None
    assert check.deselect_reason(cut, ["target"], {"target": "postgres"}, {"postgres"}, False, {"postgres"}) == (
        "connects through a local proxy without password or TLS (the server's URI has one)"
    )


@pytest.mark.parametrize(
    ("uri", "secure"),
    [("mongodb://localhost:27017/?replicaSet=rs0", False), (f"mongodb://app:{SECRET}@h/", True),
     ("mongodb+srv://cluster0.example.net/", True), ("mongodb://h/?tls=true", True), ("redis://h:6379/0", False),
     ("rediss://h:6380", True), ("postgresql://postgres@h/db", False), ("host=h sslmode=require", True),
     ("postgresql://u@h/db?sslmode=prefer", False), (f"host=h password={SECRET}", True)],
)  # fmt: skip
def test_secured(uri: str, secure: bool) -> None:
    assert check.secured(uri) is secure


def test_the_plugin_keeps_only_tests_of_the_servers_given(tmp_path: Path) -> None:
    """Collection only (no server starts): every id of the suites is classified, none of another family kept."""
    deselected = tmp_path / "deselected.json"
    env = {**os.environ, check.SELECT_ENV: "redis", check.DESELECTED_ENV: str(deselected),
           "PYTHONPATH": str(ROOT / "scripts")}  # fmt: skip
    paths = [path for paths in check.SUITES.values() for path in paths]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "deployment_check", "--co", "-q", "-p", "no:cacheprovider", *paths],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    kept = [line for line in done.stdout.splitlines() if "::" in line]
    ids = [line.partition("[")[2] for line in kept if "[" in line]  # the parameters, e.g. "redis-sync]"
    assert [i for i in ids if i == "redis-sync]"] and [i for i in ids if i == "redis-async]"]
    others = ("mongo", "gridfs", "postgres", "memory", "local", "redis-cluster")
    assert not [i for i in ids if any(other in i for other in others)]
    assert "tests/integration/test_redis_inbox_claims.py::" in done.stdout
    reasons = json.loads(deselected.read_text())
    assert set(reasons) == {
        "needs a server not given: MongoDB",
        "needs a server not given: PostgreSQL",
        "reaches no server (in-memory or local families, pure checks)",
        "starts private servers (restarts, failovers, Redis Cluster, PgBouncer, refusing stand-in)",
    }


JUNIT = f"""<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="tests.conformance.test_inbox" name="test_a[mongo-sync]" time="0.1"/>
<testcase classname="tests.conformance.test_inbox" name="test_b[mongo-async]" time="0.1">
  <failure message="AssertionError: assert 2 == 1&#10;second line">long traceback</failure></testcase>
<testcase classname="tests.reliability.test_load" name="test_c[mongo-sync]" time="0.1"/>
<testcase classname="tests.reliability.test_load" name="test_d[mongo-async]" time="0.1">
  <error message="failed on setup with &quot;ServerSelectionTimeoutError: mongodb://app:{SECRET}@h/&quot;">x</error>
</testcase>
<testcase classname="tests.integration.mongo.test_round_trips" name="test_inbox" time="0.1">
  <skipped type="pytest.skip" message="not on this server">skip</skipped></testcase>
</testsuite></testsuites>
"""


def test_counts_from_a_junit_file() -> None:
    suites = check.counts_from_junit(JUNIT)
    assert {name: (s.passed, s.failed, s.errors, s.skipped) for name, s in suites.items()} == {
        "conformance": (1, 1, 0, 0),
        "reliability": (1, 0, 1, 0),
        "round trips": (0, 0, 0, 1),
    }
    assert suites["conformance"].failures == [
        {"test": "tests/conformance/test_inbox.py::test_b[mongo-async]", "outcome": "failed",
         "reason": "AssertionError: assert 2 == 1"},
    ]  # fmt: skip


def test_the_report_from_a_junit_file_has_the_counts_and_no_secret() -> None:
    options = check.parse_args(["--mongodb", f"mongodb://app:{SECRET}@h/?replicaSet=rs0", "--report", "r.md"])
    facts = {"mongodb": {"version": "8.0.4", "topology": "replica set 'rs0', 1 data-bearing member(s)",
                         "standalone": False, "storage engine": "wiredTiger"}}  # fmt: skip
    tests = {
        "exit code": 1,
        "seconds": 90.0,
        "junit": JUNIT,
        "deselected": {"needs a server not given: Redis": 7},
        "reliability counts": [{"scenario": "load", "backend": "mongo-sync", "messages": 800, "duplicates": 0,
                                "lost": 0, "errors": 0}],
    }  # fmt: skip
    bench = {"benchmark": "MongoDB session", "case": "deliver+collect", "unit": "msg/s", "ours": [900.0, 1000.0],
             "raw": [1000.0, 1000.0], "target": 0.8, "floor": None, "higher_is_better": True, "note": ""}  # fmt: skip
    benchmarks = [
        {"name": "mongo_session", "seconds": 61.0, "ok": True, "results": [bench],
         "environment": {"MongoDB session server": f"MONGODB_URI mongodb://app:{SECRET}@h/ (reports 8.0.4)"}},
        {"name": "vfs", "seconds": 3.0, "ok": False, "error": '  File "x.py", line 3\npymongo.errors.Timeout: slow'},
    ]  # fmt: skip
    report = check.build_report(options, facts, tests, benchmarks, seconds=300.0, date="2026-12-03 08:00 UTC")
    text = check.render(report)
    dumped = json.dumps(report)
    assert SECRET not in text and SECRET not in dumped and "s3cr@t-pw" not in text
    assert report["headline"] == (
        "**1 failed, 1 errors** of 5 selected tests (2 passed, 1 skipped); 1 benchmark rows from 1 of 2 "
        "benchmarks (**failed: vfs**)"
    )
    lines = text.splitlines()
    assert lines[0] == "# aimon-mongo against a deployment: " + report["headline"]
    assert "- date: 2026-12-03 08:00 UTC, took 5.0 minutes" in lines
    assert ("- **MongoDB** `mongodb://***@h/?replicaSet=rs0`: version 8.0.4, topology replica set 'rs0', "
            "1 data-bearing member(s), storage engine wiredTiger") in lines  # fmt: skip
    assert "| conformance | 1 | 1 | 0 | 0 |" in lines
    assert "| reliability | 1 | 0 | 1 | 0 |" in lines
    assert "| round trips | 0 | 0 | 0 | 1 |" in lines
    assert "- 7: needs a server not given: Redis" in lines
    assert "- `tests/conformance/test_inbox.py::test_b[mongo-async]` (failed): AssertionError: assert 2 == 1" in lines
    assert ('- `tests/reliability/test_load.py::test_d[mongo-async]` (error): failed on setup with '
            '"ServerSelectionTimeoutError: mongodb://***@h/"') in lines  # fmt: skip
    assert "| scenario | backend | messages |" in lines and "| load | mongo-sync | 800 |" in lines
    row = "| MongoDB session | deliver+collect | 950 msg/s | 1,000 msg/s | 0.90x / **0.95x** / 1.00x | ≥ 0.80x | yes |"
    assert row in lines
    assert "- vfs: 3 s, **failed**: pymongo.errors.Timeout: slow" in lines
    assert "- MongoDB session server: MONGODB_URI mongodb://***@h/ (reports 8.0.4)" in lines


def test_dev_test_dispatches_server_arguments_to_the_check() -> None:
    done = subprocess.run(["./dev", "test", "--quick"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "give at least one of --mongodb, --redis, --postgres" in done.stderr


def test_the_ci_workflow_runs_the_check_on_mongodb_7_and_8_replica_sets() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "real-mongodb.yml").read_text(encoding="utf-8"))
    job = workflow["jobs"]["deployment-check"]
    assert job["strategy"]["matrix"]["mongodb"] == ["7.0", "8.0"]
    assert set(job["services"]) == {"redis", "postgres"}
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "--replSet rs0" in runs and "rs.initiate(" in runs
    assert "./dev test --mongodb 'mongodb://localhost:27017/?replicaSet=rs0'" in runs
    uploads = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and uploads[0]["if"] == "always()"

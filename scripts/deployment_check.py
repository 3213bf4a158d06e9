"""One command against a real deployment: the conformance, reliability and round-trip suites and the
benchmarks, run against the servers given, and a report a user can attach to an issue.

    ./dev test --mongodb URI [--redis URL] [--postgres DSN] [--report PATH] [--quick]
    .venv/bin/python scripts/deployment_check.py --mongodb URI ...      # the same, without ./dev

At least one of ``--mongodb``, ``--redis``, ``--postgres``. What it does, in order:

1. records the server facts (MongoDB ``buildInfo`` version, topology from ``hello``, storage engine when
   ``serverStatus`` shows it; Redis ``INFO server`` version and mode; PostgreSQL version and role);
2. runs pytest on the suites (:data:`SUITES`) with ``MONGODB_URI`` / ``REDIS_URL`` / ``POSTGRES_DSN`` set to
   the servers given. This module is also the pytest plugin of that run (``-p deployment_check``): it keeps
   the tests that reach a given server and deselects, counting them by reason, the ones that do not — the
   in-memory families, the families of servers not given, the tests that start private servers of their own
   (restarts, failovers, Redis Cluster, PgBouncer, a transaction-refusing stand-in), on a standalone
   MongoDB the replica-set tests, and for a server whose URI has a password or asks for TLS the
   connection-cut tests (their proxy passes host and port on, not credentials or TLS);
3. runs the benchmarks of the families given (:data:`BENCHMARKS`), one ``benchmarks/run.py --only`` each;
4. writes ``PATH`` (Markdown, default ``deployment-report.md``) and ``PATH`` with ``.json``: the date, the
   package version and git commit, Python and driver versions, the server facts, pytest counts per suite
   with the failures' node ids and first lines (from a JUnit XML file), the reliability counts table and
   the benchmark rows. User names, passwords and secret URI parameters are masked everywhere in both files;
   no stored payload is written.

``--quick`` runs the conformance and round-trip suites only (no reliability suite, no benchmarks).
Exit status: 0 when every selected test passed and every benchmark ran, 1 otherwise, 2 for bad arguments
or a server that does not answer.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from aimon_mongo.mongo.clients import MASK, display_uri, uri_secrets

ROOT = Path(__file__).resolve().parents[1]

FAMILIES = ("mongodb", "redis", "postgres")
"""The server families a user can give, in the order the report shows them."""
ENV = {"mongodb": "MONGODB_URI", "redis": "REDIS_URL", "postgres": "POSTGRES_DSN"}
"""The environment overrides the test fixtures and the benchmarks read (docs/testing.md)."""
TITLES = {"mongodb": "MongoDB", "redis": "Redis", "postgres": "PostgreSQL"}

SUITES: dict[str, tuple[str, ...]] = {
    "conformance": ("tests/conformance",),
    "reliability": ("tests/reliability",),
    "round trips": (
        "tests/integration/mongo/test_round_trips.py",
        "tests/integration/mongo/test_inbox_claims.py",
        "tests/integration/mongo/test_inbox_batches.py",
        "tests/integration/mongo/test_router_check.py",
        "tests/integration/mongo/test_command_log.py",
        "tests/integration/test_redis_inbox_claims.py",
        "tests/integration/test_postgres_inbox_claims.py",
    ),
}
"""Suite name -> its paths. The round-trip suite: commands per operation counted on the wire (CommandLog,
Redis ``MONITOR``, libpq's trace) and the router check of what MongoDB would route."""
QUICK_SUITES = ("conformance", "round trips")

PRIVATE_SERVER_FILES = {
    "tests/reliability/test_restart.py": "restarts private servers it starts itself",
    "tests/reliability/test_redis_failover.py": "fails over a private Redis primary and replica",
    "tests/reliability/test_pg_failover.py": "fails over a private PostgreSQL primary and standby",
}
"""Tests whose family ids name a server family but which run on private servers they start and kill."""
PLAIN_PROXY_FILES = ("tests/reliability/test_connection_cuts.py",)
"""Tests that reach the server through a local TCP proxy with host, port (and PostgreSQL user and database)
only: no password, no TLS. Deselected for a server whose URI has either."""

BENCHMARKS: dict[str, tuple[str, ...]] = {
    "mongodb": ("mongo_session", "vfs", "snapshots", "langgraph_savers", "deepagents_backend"),
    "redis": ("redis_session",),
    "postgres": ("postgres_session",),
}
"""``benchmarks/`` scripts per family given; ``host`` runs when all three are given (it uses every family).
Not run: ``pg_failover`` (private servers), ``postgres_scale`` (a local PgBouncer), ``codec`` (no server)."""
ALL_FAMILIES_BENCHMARK = "host"

_FAMILY_OF_NAME = {
    "mongo": "mongodb",
    "gridfs": "mongodb",
    "redis": "redis",
    "postgres": "postgres",
    "memory": None,
    "local": None,
    "redis-cluster": "private",
    "postgres-pgbouncer": "private",
}
"""Backend family names in test ids (without ``-sync`` / ``-async``) -> the family it reaches: ``None`` no
server, ``"private"`` servers the tests start themselves (Redis Cluster nodes, a PgBouncer)."""
_FAMILY_PARAMS = ("cluster", "chaos_cluster", "target", "backend")
"""The parameters whose values name a backend family (a conformance ``BackendFamily`` or a string)."""
_FIXTURES = {
    "mongo_uri": "mongodb",
    "changestream_uri": "mongodb",
    "redis_url": "redis",
    "postgres_dsn": "postgres",
    "refusing_uri": "private",
    "redis_cluster_nodes": "private",
    "pgbouncer_dsn": "private",
}
SELECT_ENV = "AIMON_DEPLOYMENT_FAMILIES"
"""Set for the pytest run: the families given, comma-separated (read by the plugin hooks below)."""
STANDALONE_ENV = "AIMON_DEPLOYMENT_MONGODB_STANDALONE"
SECURED_ENV = "AIMON_DEPLOYMENT_SECURED"
"""Set for the pytest run: the families whose URI has a password or asks for TLS, comma-separated."""
_TLS = re.compile(r"^(mongodb\+srv|rediss)://|[?&;\s](tls|ssl)=true\b|sslmode=(require|verify-ca|verify-full)", re.I)
DESELECTED_ENV = "AIMON_DEPLOYMENT_DESELECTED"
"""Set for the pytest run: where the plugin writes its deselection counts (JSON)."""

_URI = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", re.IGNORECASE)


# -- secrets --------------------------------------------------------------------------------------------------


def secured(uri: str) -> bool:
    """Whether ``uri`` carries a password or asks for TLS (what the plain-proxy tests cannot pass on)."""
    return bool(uri_secrets(uri) or _TLS.search(uri))


class Scrubber:
    """Removes the secrets of the given servers from any text: every URI in it is shown as
    :func:`~aimon_mongo.mongo.clients.display_uri` shows it, then every secret string of four characters or
    more (:func:`~aimon_mongo.mongo.clients.uri_secrets`) is replaced by ``***``."""

    def __init__(self, uris: Iterable[str]) -> None:
        self.secrets = sorted({s for uri in uris for s in uri_secrets(uri) if len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        text = _URI.sub(lambda m: display_uri(m.group(0)), text)
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text


# -- arguments ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    servers: dict[str, str]
    """Family -> URI / URL / DSN, only the families given."""
    report: Path
    quick: bool = False

    @property
    def suites(self) -> tuple[str, ...]:
        return QUICK_SUITES if self.quick else tuple(SUITES)

    @property
    def benchmarks(self) -> tuple[str, ...]:
        if self.quick:
            return ()
        names = [name for family in FAMILIES if family in self.servers for name in BENCHMARKS[family]]
        if set(self.servers) == set(FAMILIES):
            names.append(ALL_FAMILIES_BENCHMARK)
        return tuple(names)


def parse_args(argv: Sequence[str]) -> Options:
    """The command line; an error (exit 2) when no server is given or an argument is unknown."""
    parser = argparse.ArgumentParser(
        prog="./dev test", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mongodb", metavar="URI", help="a MongoDB deployment (mongodb:// or mongodb+srv://)")
    parser.add_argument("--redis", metavar="URL", help="a Redis server (redis:// or rediss://)")
    parser.add_argument("--postgres", metavar="DSN", help="a PostgreSQL server (postgresql:// or key=value)")
    parser.add_argument(
        "--report",
        metavar="PATH",
        type=Path,
        default=Path("deployment-report.md"),
        help="the Markdown report to write (its JSON goes next to it; default: %(default)s)",
    )
    parser.add_argument("--quick", action="store_true", help="conformance and round-trip suites only")
    args = parser.parse_args(list(argv))
    servers = {family: getattr(args, family) for family in FAMILIES if getattr(args, family)}
    if not servers:
        parser.error("give at least one of --mongodb, --redis, --postgres")
    if "mongodb" in servers and not servers["mongodb"].startswith(("mongodb://", "mongodb+srv://")):
        parser.error(f"--mongodb must be a mongodb:// or mongodb+srv:// URI, got {display_uri(servers['mongodb'])!r}")
    if "redis" in servers and not servers["redis"].startswith(("redis://", "rediss://", "unix://")):
        parser.error(f"--redis must be a redis://, rediss:// or unix:// URL, got {display_uri(servers['redis'])!r}")
    if args.report.suffix == ".json":
        parser.error(f"--report is the Markdown file (its JSON goes next to it), got {str(args.report)!r}")
    return Options(servers, args.report, args.quick)


# -- which tests reach the deployment (pytest plugin hooks) ---------------------------------------------------


def family_of_name(name: str) -> str | None:
    """``"mongo-sync"`` -> ``"mongodb"``, ``"sync-redis"`` -> ``"redis"``, ``"memory-async"`` -> ``None``,
    ``"redis-cluster-sync"`` -> ``"private"``; an unknown name raises (this table must learn it)."""
    base = re.sub(r"^(sync|async)-|-(sync|async)$", "", name)
    if base not in _FAMILY_OF_NAME:
        raise ValueError(f"unknown backend family {name!r} in a test id: add it to deployment_check._FAMILY_OF_NAME")
    return _FAMILY_OF_NAME[base]


def reached(nodeid: str, fixtures: Iterable[str], params: Mapping[str, Any]) -> set[str | None]:
    """The families one test reaches: from its parameters naming a backend family and its fixtures."""
    found: set[str | None] = set()
    for key in _FAMILY_PARAMS:
        if key in params:
            value = params[key]
            found.add(family_of_name(value if isinstance(value, str) else str(value.name)))
    found |= {_FIXTURES[name] for name in fixtures if name in _FIXTURES}
    if nodeid.split("::")[0] in PRIVATE_SERVER_FILES:
        found.add("private")
    return found


def deselect_reason(
    nodeid: str,
    fixtures: Iterable[str],
    params: Mapping[str, Any],
    given: set[str],
    standalone: bool,
    secure: Iterable[str] = (),
) -> str | None:
    """Why a test does not run against the given servers (``None``: it runs)."""
    fixtures = list(fixtures)
    families = reached(nodeid, fixtures, params)
    if "private" in families:
        return "starts private servers (restarts, failovers, Redis Cluster, PgBouncer, refusing stand-in)"
    servers = {f for f in families if f is not None}
    if not servers:
        return "reaches no server (in-memory or local families, pure checks)"
    if not servers <= given:
        return "needs a server not given: " + ", ".join(TITLES[f] for f in sorted(servers - given))
    if standalone and "changestream_uri" in fixtures:
        return "needs a MongoDB replica set (the deployment is standalone)"
    if servers & set(secure) and nodeid.split("::")[0] in PLAIN_PROXY_FILES:
        return "connects through a local proxy without password or TLS (the server's URI has one)"
    return None


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    given = {f for f in os.environ.get(SELECT_ENV, "").split(",") if f}
    if not given:
        return
    standalone = os.environ.get(STANDALONE_ENV) == "1"
    secure = {f for f in os.environ.get(SECURED_ENV, "").split(",") if f}
    kept, dropped, reasons = [], [], Counter[str]()
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        why = deselect_reason(item.nodeid, getattr(item, "fixturenames", ()), params, given, standalone, secure)
        if why is None:
            kept.append(item)
        else:
            dropped.append(item)
            reasons[why] += 1
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    target = os.environ.get(DESELECTED_ENV)
    if target:
        Path(target).write_text(json.dumps(dict(reasons), indent=1) + "\n", encoding="utf-8")


# -- server facts ---------------------------------------------------------------------------------------------


def mongodb_facts(uri: str) -> dict[str, Any]:
    from pymongo import MongoClient
    from pymongo.errors import PyMongoError

    client: MongoClient[dict[str, Any]] = MongoClient(uri, serverSelectionTimeoutMS=15_000)
    try:
        build = client.admin.command("buildInfo")
        hello = client.admin.command("hello")
        if hello.get("msg") == "isdbgrid":
            topology = "sharded cluster (mongos)"
        elif hello.get("setName"):
            topology = f"replica set {hello['setName']!r}, {len(hello.get('hosts', []))} data-bearing member(s)"
        else:
            topology = "standalone"
        try:
            engine = str(client.admin.command("serverStatus").get("storageEngine", {}).get("name") or "not shown")
        except PyMongoError as exc:
            engine = f"not visible ({type(exc).__name__})"
        return {
            "version": str(build.get("version")),
            "topology": topology,
            "standalone": topology == "standalone",
            "storage engine": engine,
            "max wire version": hello.get("maxWireVersion"),
        }
    finally:
        client.close()


def redis_facts(url: str) -> dict[str, Any]:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=15)
    try:
        info = client.info("server")
        facts = {"version": str(info.get("redis_version")), "mode": str(info.get("redis_mode", "not shown"))}
        if info.get("server_name"):  # Valkey and forks name themselves
            facts["server"] = f"{info['server_name']} {info.get('valkey_version', '')}".strip()
        return facts
    finally:
        client.close()


def postgres_facts(dsn: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(dsn, connect_timeout=15) as conn:
        version = conn.execute("SHOW server_version").fetchone()
        standby = conn.execute("SELECT pg_is_in_recovery()").fetchone()
        commit = conn.execute("SHOW synchronous_commit").fetchone()
    return {
        "version": str(version[0]) if version else "?",
        "role": "standby (in recovery)" if standby and standby[0] else "primary",
        "synchronous_commit": str(commit[0]) if commit else "?",
    }


FACTS = {"mongodb": mongodb_facts, "redis": redis_facts, "postgres": postgres_facts}


# -- the run --------------------------------------------------------------------------------------------------


def git_commit() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return "not a git checkout"
    changed = git("status", "--porcelain", "--untracked-files=no")
    return commit + (" (with uncommitted changes)" if changed else "")


def versions() -> dict[str, str]:
    found = {"Python": platform.python_version()}
    for name in ("aimon-mongo", "pymongo", "redis", "psycopg", "psycopg-pool", "pytest"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def run_pytest(options: Options, work: Path, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The suites in one pytest process; the JUnit file, the deselection counts and the reliability counts."""
    junit, deselected, counts = work / "junit.xml", work / "deselected.json", work / "counts.json"
    env = {key: value for key, value in os.environ.items() if key not in ENV.values()}
    env.update({ENV[family]: uri for family, uri in options.servers.items()})
    env[SELECT_ENV] = ",".join(sorted(options.servers))
    env[STANDALONE_ENV] = "1" if facts.get("mongodb", {}).get("standalone") else "0"
    env[SECURED_ENV] = ",".join(sorted(family for family, uri in options.servers.items() if secured(uri)))
    env[DESELECTED_ENV] = str(deselected)
    env["AIMON_RELIABILITY_COUNTS"] = str(counts)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "scripts"), env.get("PYTHONPATH")]))
    paths = [path for suite in options.suites for path in SUITES[suite]]
    command = [sys.executable, "-m", "pytest", "-p", "deployment_check", "-q", "-rfE", f"--junitxml={junit}", *paths]
    started = time.monotonic()
    exit_code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    return {
        "exit code": exit_code,
        "seconds": round(time.monotonic() - started, 1),
        "junit": junit.read_text(encoding="utf-8") if junit.exists() else None,
        "deselected": json.loads(deselected.read_text(encoding="utf-8")) if deselected.exists() else {},
        "reliability counts": json.loads(counts.read_text(encoding="utf-8")) if counts.exists() else [],
    }


def run_benchmarks(options: Options, work: Path) -> list[dict[str, Any]]:
    """Each benchmark script through ``benchmarks/run.py --only``, so one that fails loses only its rows."""
    env = {key: value for key, value in os.environ.items() if key not in ENV.values()}
    env.update({ENV[family]: uri for family, uri in options.servers.items()})
    ran = []
    for name in options.benchmarks:
        output = work / f"bench-{name}.md"
        command = [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--only", name, "--output", str(output)]
        started = time.monotonic()
        print(f"deployment check: benchmark {name} ...", file=sys.stderr, flush=True)
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        entry: dict[str, Any] = {"name": name, "seconds": round(time.monotonic() - started, 1)}
        saved = output.with_suffix(".json")
        if done.returncode == 0 and saved.exists():
            data = json.loads(saved.read_text(encoding="utf-8"))
            entry |= {"ok": True, "results": data["results"], "environment": data["environment"]}
        else:
            lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
            entry |= {"ok": False, "error": "\n".join(lines[-5:]) or f"exit {done.returncode}"}
        ran.append(entry)
    return ran


# -- the report -----------------------------------------------------------------------------------------------


@dataclass
class SuiteCounts:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    failures: list[dict[str, str]] = field(default_factory=list)
    """``{"test": node id, "outcome": "failed" | "error", "reason": first line}`` per failed test."""

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "errors": self.errors, "skipped": self.skipped,
                "failures": self.failures}  # fmt: skip


def node_id(classname: str, name: str, root: Path = ROOT) -> str:
    """A JUnit ``classname`` + ``name`` back to a pytest node id (``tests/a/test_b.py::Class::test[x]``)."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (root / path).exists():
            return "::".join([path, *parts[cut:], name])
    return "::".join([classname.replace(".", "/") + ".py", name])


def suite_of(nodeid: str, suites: Mapping[str, Sequence[str]] = SUITES) -> str:
    path = nodeid.split("::")[0]
    for suite, paths in suites.items():
        if any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths):
            return suite
    return "other"


def first_line(text: str | None, limit: int = 200) -> str:
    line = next((part.strip() for part in (text or "").splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def counts_from_junit(text: str, root: Path = ROOT) -> dict[str, SuiteCounts]:
    """Passed / failed / error / skipped per suite, and each failure's node id and first line."""
    suites: dict[str, SuiteCounts] = {}
    for case in ET.fromstring(text).iter("testcase"):
        nodeid = node_id(case.get("classname", ""), case.get("name", ""), root)
        counts = suites.setdefault(suite_of(nodeid), SuiteCounts())
        failure, error, skipped = case.find("failure"), case.find("error"), case.find("skipped")
        if failure is not None or error is not None:
            bad = failure if failure is not None else error
            assert bad is not None
            outcome = "failed" if failure is not None else "error"
            counts.failed += outcome == "failed"
            counts.errors += outcome == "error"
            reason = first_line(bad.get("message")) or first_line(bad.text)
            counts.failures.append({"test": nodeid, "outcome": outcome, "reason": reason})
        elif skipped is not None:
            counts.skipped += 1
        else:
            counts.passed += 1
    return suites


def headline(suites: Mapping[str, Mapping[str, Any]], benchmarks: Sequence[Mapping[str, Any]]) -> str:
    """``all 812 selected tests passed (3 skipped); 14 benchmark rows`` or the failures first."""
    total = {key: sum(int(s[key]) for s in suites.values()) for key in ("passed", "failed", "errors", "skipped")}
    ran = sum(total.values())
    rows = sum(len(b.get("results", [])) for b in benchmarks)
    broken = [b["name"] for b in benchmarks if not b.get("ok")]
    if total["failed"] or total["errors"]:
        text = f"**{total['failed']} failed, {total['errors']} errors** of {ran} selected tests "
        text += f"({total['passed']} passed, {total['skipped']} skipped)"
    elif ran:
        text = f"all {ran - total['skipped']} selected tests passed" + (
            f" ({total['skipped']} skipped)" if total["skipped"] else ""
        )
    else:
        text = "no test ran"
    if benchmarks:
        text += f"; {rows} benchmark rows from {len(benchmarks) - len(broken)} of {len(benchmarks)} benchmarks"
        if broken:
            text += " (**failed: " + ", ".join(broken) + "**)"
    return text


def _benchmark_table(results: Sequence[Mapping[str, Any]]) -> str:
    """The benchmark rows as ``benchmarks/run.py`` prints them (its ``_report.table``)."""
    here = str(ROOT / "benchmarks")
    if here not in sys.path:
        sys.path.insert(0, here)
    from _report import table  # benchmarks/_report.py
    from _timing import Result  # benchmarks/_timing.py

    return str(table([Result.from_json(r) for r in results]))


def _md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]


def render(report: Mapping[str, Any]) -> str:
    """The Markdown report from its JSON form (what :func:`build_report` makes)."""
    out = [f"# aimon-mongo against a deployment: {report['headline']}", ""]
    out += [f"- date: {report['date']}, took {report['seconds'] / 60:.1f} minutes",
            f"- aimon-mongo {report['versions'].get('aimon-mongo')} at commit {report['commit']}",
            "- " + ", ".join(f"{k} {v}" for k, v in report["versions"].items() if k != "aimon-mongo"),
            f"- machine: {report['machine']}",
            f"- suites: {', '.join(report['suites'])}" + (" (--quick)" if report["quick"] else ""), ""]  # fmt: skip
    out += ["## Servers", ""]
    for family, facts in report["servers"].items():
        details = ", ".join(f"{k} {v}" for k, v in facts.items() if k not in ("uri", "standalone"))
        out.append(f"- **{TITLES[family]}** `{facts['uri']}`: {details}")
    out += ["", "## Tests", ""]
    suites = report["tests"]["suites"]
    out += _md_table(
        ("suite", "passed", "failed", "errors", "skipped"),
        [(name, s["passed"], s["failed"], s["errors"], s["skipped"]) for name, s in suites.items()],
    )
    out += ["", f"pytest exit code {report['tests']['exit code']}, {report['tests']['seconds'] / 60:.1f} minutes."]
    deselected = report["tests"]["deselected"]
    if deselected:
        out += ["", "Not run against these servers (deselected):", ""]
        out += [f"- {count}: {reason}" for reason, count in sorted(deselected.items())]
    failures = [f for s in suites.values() for f in s["failures"]]
    if failures:
        out += ["", "### Failures", ""]
        out += [f"- `{f['test']}` ({f['outcome']}): {f['reason']}" for f in failures]
    counts = report["tests"]["reliability counts"]
    if counts:
        columns = [c for c in counts[0] if c not in ("scenario", "backend") and any(row[c] for row in counts)]
        out += ["", "### Reliability counts", ""]
        out += _md_table(("scenario", "backend", *columns), [(r["scenario"], r["backend"], *(r[c] for c in columns))
                                                               for r in counts])  # fmt: skip
    if report["benchmarks"]:
        out += ["", "## Benchmarks", "", "Ratios against the raw drivers on the same servers (docs/benchmarks.md).", ""]
        rows = [r for b in report["benchmarks"] for r in b.get("results", [])]
        if rows:
            out += [_benchmark_table(rows), ""]
        for b in report["benchmarks"]:
            failed = "" if b.get("ok") else f", **failed**: {first_line(b['error'].strip().splitlines()[-1])}"
            out.append(f"- {b['name']}: {b['seconds']:.0f} s{failed}")
        environment = {k: v for b in report["benchmarks"] for k, v in b.get("environment", {}).items()}
        out += [f"- {key}: {value}" for key, value in environment.items()]
    return "\n".join(out).rstrip() + "\n"


def build_report(
    options: Options,
    facts: Mapping[str, Mapping[str, Any]],
    tests: Mapping[str, Any],
    benchmarks: Sequence[Mapping[str, Any]],
    *,
    seconds: float,
    date: str,
) -> dict[str, Any]:
    """The report's JSON form: everything :func:`render` shows, scrubbed of the servers' secrets."""
    suites = counts_from_junit(tests["junit"]) if tests.get("junit") else {}
    ordered = {name: suites.pop(name, SuiteCounts()).to_json() for name in options.suites}
    ordered |= {name: counts.to_json() for name, counts in suites.items()}
    report = {
        "headline": headline(ordered, benchmarks),
        "date": date,
        "seconds": round(seconds, 1),
        "commit": git_commit(),
        "versions": versions(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "quick": options.quick,
        "suites": list(options.suites),
        "servers": {family: {"uri": display_uri(options.servers[family]), **facts[family]} for family in facts},
        "tests": {
            "exit code": tests["exit code"],
            "seconds": tests["seconds"],
            "suites": ordered,
            "deselected": tests["deselected"],
            "reliability counts": tests["reliability counts"],
        },
        "benchmarks": list(benchmarks),
    }
    scrub = Scrubber(options.servers.values())
    return dict(json.loads(scrub(json.dumps(report))))


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(sys.argv[1:] if argv is None else argv)
    scrub = Scrubber(options.servers.values())
    begun, date = time.monotonic(), datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    facts: dict[str, dict[str, Any]] = {}
    for family, uri in options.servers.items():
        try:
            facts[family] = FACTS[family](uri)
        except Exception as exc:  # any driver error: the server does not answer as asked
            print(f"deployment check: {TITLES[family]} at {display_uri(uri)} did not answer: {scrub(str(exc))}",
                  file=sys.stderr)  # fmt: skip
            return 2
        print(f"deployment check: {TITLES[family]} {facts[family]}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="aimon-deployment-") as tmp:
        work = Path(tmp)
        tests = run_pytest(options, work, facts)
        benchmarks = run_benchmarks(options, work)
    report = build_report(options, facts, tests, benchmarks, seconds=time.monotonic() - begun, date=date)
    options.report.write_text(scrub(render(report)), encoding="utf-8")
    options.report.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"deployment check: {report['headline']}; wrote {options.report} and its .json", file=sys.stderr)
    ok = tests["exit code"] == 0 and all(b.get("ok") for b in benchmarks)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Run every benchmark and write ``docs/benchmarks.md``: one table of ratios against the raw drivers.

    python benchmarks/run.py                 # every benchmark, then the page and its results (~10 minutes)
    python benchmarks/run.py --repeats 5     # the same rounds for every case (default: each script's own)
    python benchmarks/run.py --render        # run nothing: the page again from benchmarks/results.json and
                                             # the current benchmarks/prose.md
    python benchmarks/run.py --only vfs --merge   # re-run some benchmarks into the saved page (their rows
                                             # replaced, the re-run's date and load named on the page)
    python benchmarks/run.py --only deepagents_backend --merge --script-args "--files 200 --repeats 3"
                                             # the same, with the script's own options (named on the page)
    python benchmarks/run.py --smoke         # tiny sizes, not timed: every benchmark runs and reports every
                                             # case (part of ./dev test); writes nothing unless --output

Each benchmark script (codec, MongoDB / Redis / PostgreSQL session stores, VFS, snapshots, LangGraph
savers, deepagents backends, PostgreSQL at scale, the session host, the ADK services) runs as a child
process with ``--json``; the MongoDB session and snapshot benchmarks share one mongoeco stand-in started
here (``MONGODB_URI`` when set is used by all), the VFS benchmark starts its SecantusDB stand-in. Every
case of every script (its ``CASES``) must be in its report. The page is the generated part (how it was
measured, the machine, the table) followed by the hand-written sections of ``benchmarks/prose.md``; the
figures of every round are saved in ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from _machine import machine  # benchmarks/_machine.py (run as a script)
from _report import Run, missing, page, table
from _timing import SHARED_STANDIN, Report, Result

from aimon_mongo.standin import MONGOECO_VERSION, SECANTUS_VERSION, StandinServer, configured_uri

HERE = Path(__file__).resolve().parent
DOC = HERE.parent / "docs" / "benchmarks.md"
PROSE = HERE / "prose.md"
RESULTS = HERE / "results.json"
BENCHMARKS = (
    "codec", "mongo_session", "redis_session", "postgres_session", "pg_failover", "vfs", "snapshots",
    "langgraph_savers", "deepagents_backend", "postgres_scale", "host",
    "adk_services",
)  # fmt: skip
"""Script names under ``benchmarks/``, in the order they run and appear."""
SHARED_MONGO = ("mongo_session", "snapshots", "langgraph_savers", "deepagents_backend", "host",
                "adk_services")  # fmt: skip
"""The scripts that run on the shared mongoeco stand-in (the VFS one needs SecantusDB)."""
LIBRARIES = ("aimon-mongo", "pydantic", "pydantic-core", "pymongo", "redis", "psycopg", "psycopg-pool", "langgraph",
             "langgraph-checkpoint", "langgraph-checkpoint-mongodb", "deepagents",
             "langgraph-store-mongodb",
             "google-adk", "google-adk-extras")  # fmt: skip


def expected_cases(names: Sequence[str] = BENCHMARKS) -> dict[str, tuple[str, ...]]:
    """Benchmark title -> the cases its script declares (``CASES``), read from the scripts themselves."""
    expected: dict[str, tuple[str, ...]] = {}
    for name in names:
        module = importlib.import_module(name)
        expected[module.TITLE] = tuple(module.CASES)
    return expected


def run_script(
    name: str, smoke: bool, repeats: int | None, env: Mapping[str, str], extra: Sequence[str] = ()
) -> Report:
    """One benchmark script as a child process (``extra``: more of its options); its JSON report."""
    command = [sys.executable, str(HERE / f"{name}.py"), "--json"]
    command += ["--smoke"] if smoke else []
    command += [] if repeats is None else ["--repeats", str(repeats)]
    command += list(extra)
    done = subprocess.run(command, capture_output=True, text=True, env=dict(env), check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks/{name}.py failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return Report.from_json(json.loads(done.stdout.strip().splitlines()[-1]))


def script_env(name: str, env: Mapping[str, str], shared_uri: str | None) -> dict[str, str]:
    """The environment of script ``name``: ``env``, plus the shared stand-in ``shared_uri`` (when one was started)
    for the scripts of :data:`SHARED_MONGO`."""
    if shared_uri is None or name not in SHARED_MONGO:
        return dict(env)
    return {**env, "MONGODB_URI": shared_uri, SHARED_STANDIN: "1"}


def versions() -> dict[str, str]:
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["mongoeco (stand-in)"] = MONGOECO_VERSION
    found["secantusdb (stand-in)"] = SECANTUS_VERSION
    return found


def load_text(loads: Sequence[tuple[float, float, float]]) -> str:
    """The load averages seen before and after each benchmark: the first and the highest one-minute figure."""
    first, busiest = loads[0], max(loads)
    return (f"{first[0]:.1f} / {first[1]:.1f} / {first[2]:.1f} (1 / 5 / 15 min) at the start, one-minute figure "
            f"up to {busiest[0]:.1f} between benchmarks, on {os.cpu_count()} CPUs")  # fmt: skip


def measure(names: Sequence[str], smoke: bool, repeats: int | None, extra: Sequence[str] = ()) -> Run:
    """Run the scripts ``names``, one after the other (``extra``: options given to each, and named in the
    environment as ``<benchmark> command``); every case they declare must be reported."""
    expected = expected_cases(names)
    begun, loads = time.monotonic(), [os.getloadavg()]
    server, shared_uri = None, None
    if configured_uri() is None and any(name in SHARED_MONGO for name in names):
        server = StandinServer("mongoeco")
        shared_uri = server.start()
    results: list[Result] = []
    environment: dict[str, str] = {}
    rounds: dict[str, int] = {}
    round_trips: dict[str, dict[str, int]] = {}
    try:
        for name in names:
            started = time.monotonic()
            report = run_script(name, smoke, repeats, script_env(name, os.environ, shared_uri), extra)
            print(f"{name}: {len(report.results)} cases in {time.monotonic() - started:.1f} s", file=sys.stderr)
            results += report.results
            environment.update(report.environment)
            if extra:
                options = ["--json", *([] if repeats is None else ["--repeats", str(repeats)]), *extra]
                environment[f"{report.results[0].benchmark} command"] = shlex.join([f"benchmarks/{name}.py", *options])
            round_trips.update(report.round_trips)
            rounds[report.results[0].benchmark] = report.rounds
            loads.append(os.getloadavg())
    finally:
        if server is not None:
            server.stop()
    absent = missing(results, expected)
    if absent:
        raise SystemExit("cases missing from the reports: " + ", ".join(absent))
    return Run(
        results,
        machine=machine(),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load=load_text(loads),
        versions=versions(),
        environment=environment,
        rounds=rounds,
        duration=f"{(time.monotonic() - begun) / 60:.1f} minutes",
        round_trips=round_trips,
    )


RERUNS = "Re-run after the whole run"
"""The environment entry naming each benchmark re-run into the page by ``--merge``: when, and under what load."""


def merged(saved: Run, rerun: Run, names: Sequence[str]) -> Run:
    """``saved`` with the rows, rounds, round trips and environment of the benchmarks ``names`` taken from
    ``rerun`` (the rest kept), and the re-run named in :data:`RERUNS` (one line per benchmark, the newest kept)."""
    titles = {importlib.import_module(name).TITLE for name in names}
    earlier = dict(line.split(": ", 1) for line in saved.environment.get(RERUNS, "").split("; ") if ": " in line)
    earlier |= {title: f"{rerun.date}, load average {rerun.load}" for title in sorted(titles)}
    order = list(dict.fromkeys(r.benchmark for r in [*saved.results, *rerun.results]))
    kept = [r for r in saved.results if r.benchmark not in titles]
    results = sorted([*kept, *rerun.results], key=lambda r: order.index(r.benchmark))  # stable: cases keep order
    return Run(
        results,
        machine=saved.machine,
        date=saved.date,
        load=saved.load,
        versions=rerun.versions,
        environment={
            **saved.environment,
            **rerun.environment,
            RERUNS: "; ".join(f"{t}: {w}" for t, w in earlier.items()),
        },
        rounds={**saved.rounds, **rerun.rounds},
        duration=saved.duration,
        round_trips={**saved.round_trips, **rerun.round_trips},
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, not timed; writes nothing by default")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per case (default: each script's own)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help=f"the page to write (default {DOC}); its "
        "results go next to it as .json (for the default page: benchmarks/results.json)",
    )
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, default=BENCHMARKS, help="run only these")
    parser.add_argument("--render", action="store_true", help="run nothing: write the page again from the "
                        "saved results and the current benchmarks/prose.md")  # fmt: skip
    parser.add_argument("--merge", action="store_true", help="with --only: put these benchmarks' new rows in "
                        "place of their saved ones and write the whole page, the re-run named on it")  # fmt: skip
    parser.add_argument("--script-args", default="", help="with --only: more options for each script run "
                        "(e.g. \"--files 200\"), named on the page")  # fmt: skip
    args = parser.parse_args()
    output = args.output or (None if args.smoke else DOC)
    extra = shlex.split(args.script_args)
    if extra and tuple(args.only) == BENCHMARKS:
        parser.error("--script-args are one script's options: give the scripts with --only")
    if args.merge and (args.smoke or args.render or tuple(args.only) == BENCHMARKS):
        parser.error("--merge re-runs some benchmarks (--only) into the saved page: not with --smoke or --render")
    if output == DOC and tuple(args.only) != BENCHMARKS and not args.merge:
        parser.error("--only writes a partial page: give --output a path outside docs/, or --merge")
    saved = RESULTS if output in (None, DOC) else output.with_suffix(".json")
    if args.render:
        run = Run.from_json(json.loads(saved.read_text(encoding="utf-8")))
    else:
        run = measure(args.only, args.smoke, args.repeats, extra)
    if args.merge:
        run = merged(Run.from_json(json.loads(saved.read_text(encoding="utf-8"))), run, args.only)
    text = page(run, PROSE.read_text(encoding="utf-8"))  # built in a smoke run too: the page is exercised
    if output is None:
        print(table(run.results))
        print(f"\n{len(run.results)} cases from {len(args.only)} benchmarks in {run.duration}", file=sys.stderr)
        return 0
    written = [output]
    if not args.render:
        saved.write_text(json.dumps(run.to_json(), indent=1) + "\n", encoding="utf-8")
        written.append(saved)
    output.write_text(text, encoding="utf-8")
    print(f"wrote {' and '.join(map(str, written))} ({len(run.results)} cases)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

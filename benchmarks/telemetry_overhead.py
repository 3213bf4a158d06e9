"""What the native OpenTelemetry instrumentation costs when ``opentelemetry-api`` is installed and no SDK
provider is configured (an application that has not set up exporting), against the disabled path (the
operation undecorated, which is what runs without ``opentelemetry-api``): client CPU per operation.

    python benchmarks/telemetry_overhead.py           # full run (about a minute on the stand-in)
    python benchmarks/telemetry_overhead.py --smoke   # tiny sizes, a few seconds

Both sides call the same store of the same bundle: **ours** through its decorated method (one check per
call: is a provider configured?), **raw** through the undecorated function underneath (``__wrapped__``).
Cases: **memory find_holder** and **memory deliver+collect** on the in-memory backend (no I/O: the check's
cost shows in full), **mongo acquire+release** and **mongo deliver+collect** on the MongoDB stand-in (two
round trips each). Rounds interleaved; the ratio is ours / raw in operations per client-CPU second, target
>= 0.95x (within noise). Not part of ``run.py``'s table: it compares ours with ours; the figures are quoted
in ``benchmarks/prose.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import types
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from _timing import Report, Result, Sample, main, rounds  # benchmarks/_timing.py
from opentelemetry import trace  # imported as an application using the API would have it
from pymongo import MongoClient

from aimon_mongo import telemetry
from aimon_mongo.memory import MemorySessionBackends
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo.mongo import MongoSessionBackends, ensure_schema
from aimon_mongo.standin import StandinServer, configured_uri
from aimon_mongo.telemetry import _otel

TITLE = "telemetry overhead"
CASES = ("memory find_holder", "memory deliver+collect", "mongo acquire+release", "mongo deliver+collect")


def undecorated(store: Any, name: str) -> Callable[..., Any]:
    """``store.<name>`` without its instrumentation: the function the decorator wrapped, bound to ``store``."""
    function = getattr(type(store), name)
    assert hasattr(function, "__wrapped__"), f"{type(store).__name__}.{name} is not instrumented"
    return types.MethodType(function.__wrapped__, store)


def message(session: str) -> InboundMessage:
    return InboundMessage(
        session_id=session,
        agent_ref="bench",
        user_input=TextInput(text="hello"),
        priority=Priority.NEXT,
        initiator=Principal.user("bench"),
        delivered_at=datetime.now(UTC),
    )


def sides(bundle: Any, case: str, count: int) -> dict[str, Callable[[], float]]:
    """The case's two sides over ``bundle``: each does ``count`` operations and returns how many."""
    made: dict[str, Callable[[], float]] = {}
    for side in ("ours", "raw"):

        def bind(store: Any, name: str, side: str = side) -> Callable[..., Any]:
            return getattr(store, name) if side == "ours" else undecorated(store, name)

        session = f"bench-{side}-{uuid.uuid4().hex[:8]}"
        if case.endswith("find_holder"):
            find = bind(bundle.leases, "find_holder")

            def run(find: Callable[..., Any] = find, session: str = session) -> float:
                for _ in range(count):
                    find(session)
                return count

        elif case.endswith("acquire+release"):
            acquire, release = bind(bundle.leases, "try_acquire"), bind(bundle.leases, "release")

            def run(acquire: Any = acquire, release: Any = release, session: str = session) -> float:
                for _ in range(count):
                    release(acquire(session, "bench-node", timedelta(seconds=30)))
                return 2 * count

        else:
            deliver, collect = bind(bundle.inbox, "deliver"), bind(bundle.inbox, "collect")
            one = message(session)

            def run(deliver: Any = deliver, collect: Any = collect, one: Any = one, session: str = session) -> float:
                for _ in range(count):
                    deliver(one)
                    collect(session)
                return 2 * count

        made[side] = run
    return made


def cpu_per_operation(samples: list[Sample]) -> float:
    """Median client CPU per operation, µs."""
    return statistics.median(s.cpu / s.operations for s in samples) * 1e6


def case(bundle: Any, name: str, count: int, repeats: int) -> tuple[Result, str]:
    samples = rounds(sides(bundle, name, count), repeats, gc_off=True)
    ours, raw = cpu_per_operation(samples["ours"]), cpu_per_operation(samples["raw"])
    note = f"client CPU per operation {ours:,.2f} µs ours vs {raw:,.2f} µs raw (+{ours - raw:,.2f} µs)"
    result = Result.timed(TITLE, name, samples["ours"], samples["raw"], clock="cpu", target=0.95, note=note)
    return result, note


def measure(args: argparse.Namespace) -> Report:
    assert type(trace.get_tracer_provider()).__name__ == "ProxyTracerProvider", "an SDK is configured"
    assert telemetry.available() and _otel.live() is None, "opentelemetry-api must be installed, with no provider"
    memory_count, mongo_count = (200, 5) if args.smoke else (20000, 100)
    results: list[Result] = []
    notes: dict[str, str] = {}
    with MemorySessionBackends("bench-node") as node:
        for name in CASES[:2]:
            result, notes[name] = case(node, name, memory_count, args.repeats)
            results.append(result)
    uri = configured_uri()
    server = None if uri else StandinServer("mongoeco")
    if server is not None:
        uri = server.start()
    assert uri is not None
    client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True, serverSelectionTimeoutMS=20000)
    database = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        ensure_schema(client[database])
        with MongoSessionBackends(client[database], "bench-node") as node:
            for name in CASES[2:]:
                result, notes[name] = case(node, name, mongo_count, args.repeats)
                results.append(result)
    finally:
        client.drop_database(database)
        client.close()
        if server is not None:
            server.stop()
    assert _otel.live() is None  # nothing configured a provider meanwhile: every call took the cheap path
    environment = {"telemetry overhead": "opentelemetry-api installed, no SDK provider, vs undecorated (disabled)"}
    environment.update({f"telemetry {name}": note for name, note in notes.items()})
    return Report(results, environment)


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=31))

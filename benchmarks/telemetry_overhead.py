"""What the OpenTelemetry layer costs on the MongoDB session path when ``opentelemetry-api`` is installed
but no SDK is configured (the API's no-op providers): the session benchmark's cases, run by an
instrumented bundle (``aimon_mongo.telemetry.instrument_backends``) against the same bundle uninstrumented.

    python benchmarks/telemetry_overhead.py           # full run (about a minute on the stand-in)
    python benchmarks/telemetry_overhead.py --smoke   # tiny sizes, a few seconds

Cases (from ``benchmarks/mongo_session.py``): **deliver+collect** and **acquire+release**, each on its own
database for each side; rounds interleaved. The ratio is instrumented / plain (operations per second);
target >= 0.95x, i.e. within the noise of the stand-in. Not part of ``run.py``'s table: the figure is
quoted in ``benchmarks/prose.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import uuid
from collections.abc import Callable
from typing import Any

from _timing import Report, Result, cpu_note, main, rounds, times  # benchmarks/_timing.py
from mongo_session import Cases  # benchmarks/mongo_session.py
from opentelemetry import trace
from pymongo import MongoClient

from aimon_mongo import telemetry
from aimon_mongo.memory import MemorySessionBackends
from aimon_mongo.standin import StandinServer, configured_uri

TITLE = "telemetry overhead"
CASES = ("deliver+collect", "acquire+release")


def per_call_cost(calls: int) -> str:
    """The layer's own cost per call, without I/O: ``find_holder`` on the in-memory backend, instrumented
    and plain, interleaved rounds, medians (CPU time of this process)."""
    plain, instrumented = (
        MemorySessionBackends("bench-node"),
        telemetry.instrument_backends(MemorySessionBackends("bench-node")),
    )

    def side(bundle: Any) -> Callable[[], float]:
        find = bundle.leases.find_holder

        def run() -> float:
            for _ in range(calls):
                find("lease-ours")
            return calls

        return run

    samples = rounds({"ours": side(instrumented), "raw": side(plain)}, 9)
    ours = statistics.median(s.cpu / s.operations for s in samples["ours"]) * 1e6
    raw = statistics.median(s.cpu / s.operations for s in samples["raw"]) * 1e6
    return (
        f"{ours - raw:.1f} µs per call added by the layer ({ours:.1f} µs instrumented vs {raw:.1f} µs plain, "
        "in-memory find_holder)"
    )


def measure(args: argparse.Namespace) -> Report:
    batch, lease_repeat = (10, 10) if args.smoke else (64, 50)
    assert type(trace.get_tracer_provider()).__name__ == "ProxyTracerProvider", "an SDK is configured"
    assert telemetry.available()
    uri = configured_uri()
    server = None if uri else StandinServer("mongoeco")
    if server is not None:
        uri = server.start()
    assert uri is not None
    client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=True, serverSelectionTimeoutMS=20000)
    names = [f"bench_{uuid.uuid4().hex[:12]}" for _ in range(2)]
    results = []
    try:
        plain, instrumented = Cases(client, names[0], batch), Cases(client, names[1], batch)
        instrumented.ours = telemetry.instrument_backends(instrumented.ours)
        plan = {
            CASES[0]: (instrumented.ours_deliver_collect, plain.ours_deliver_collect, 1),
            CASES[1]: (instrumented.ours_acquire_release, plain.ours_acquire_release, lease_repeat),
        }
        try:
            for name, (ours, base, repeat) in plan.items():
                sides = {"ours": times(ours, repeat, counted=True), "raw": times(base, repeat, counted=True)}
                samples = rounds(sides, args.repeats)
                note = cpu_note(samples["ours"], samples["raw"])
                results.append(Result.timed(TITLE, name, samples["ours"], samples["raw"], target=0.95, note=note))
        finally:
            plain.close()
            instrumented.close()
    finally:
        for name in names:
            client.drop_database(name)
        client.close()
        if server is not None:
            server.stop()
    layer = per_call_cost(1000 if args.smoke else 20000)
    return Report(results, {
        "telemetry overhead": "instrumented bundle (API, no SDK) vs the same bundle, sync, MongoDB stand-in",
        "telemetry layer cost": layer,
    })  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=31))

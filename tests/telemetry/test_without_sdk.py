"""What the native instrumentation costs an application that does not use it, each in a fresh interpreter:
without ``opentelemetry-api`` (its import blocked by a ``sys.meta_path`` finder) nothing is wrapped and
everything works; with the API installed and no provider configured the operations run unrecorded and
``opentelemetry`` is not even imported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

BLOCK = """
import sys

class NoOpenTelemetry:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoOpenTelemetry())
"""

USE = """
import asyncio, json, sys
from datetime import UTC, datetime, timedelta

from aimon_mongo import telemetry
from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo._sync.services.inbox import Inbox
from aimon_mongo.snapshots import Message, Role, SessionSnapshot, VfsSessionSnapshotStore
from aimon_mongo.vfs import MemoryFileSystem

def message(session):
    return InboundMessage(session_id=session, agent_ref="a", user_input=TextInput(text="hi"), priority=Priority.NOW,
                          initiator=Principal.user("u"), delivered_at=datetime.now(UTC))

with MemorySessionBackends("n") as node, MemoryFileSystem() as fs:
    assert telemetry.instrument_backends(node) is node and telemetry.instrument_filesystem(fs) is fs
    node.inbox.deliver(message("s"))
    collected = len(node.inbox.collect("s").messages)
    lease = node.leases.try_acquire("s", "n", timedelta(seconds=5))
    node.records.merge_transcript("s", "{}", lease.fencing_token)
    fs.write("a.txt", b"abc")
    store = telemetry.instrument_store(VfsSessionSnapshotStore(fs), "snapshots")
    store.save("t", "a", None, SessionSnapshot.of_messages("s", [Message.text(Role.USER, "hi")]))
    read = fs.read("a.txt").decode()
    snapshot = store.load("t") is not None

async def async_side():
    async with AsyncMemorySessionBackends("n") as node:
        await node.inbox.deliver(message("s"))
        return len((await node.inbox.collect("s")).messages)

print(json.dumps({
    "collected": collected, "async_collected": asyncio.run(async_side()), "read": read, "token": lease.fencing_token,
    "snapshot": snapshot,
    "available": telemetry.available(),
    "wrapped": hasattr(Inbox.deliver, "__wrapped__") or hasattr(MemoryFileSystem.write, "__wrapped__"),
    "imported": sorted(m for m in sys.modules if m == "opentelemetry" or m.startswith("opentelemetry.")),
}))
"""


def run(code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_without_opentelemetry_nothing_is_wrapped_and_everything_works() -> None:
    result = run(BLOCK + USE)
    token = result.pop("token")
    assert isinstance(token, int) and token >= 1
    assert result == {
        "collected": 1,
        "async_collected": 1,
        "read": "abc",
        "snapshot": True,
        "available": False,
        "wrapped": False,
        "imported": [],
    }


def test_with_the_api_and_no_provider_nothing_records_and_nothing_is_imported() -> None:
    result = run(USE)
    assert result["available"] is True and result["wrapped"] is True  # decorated: a provider may come later
    assert (result["collected"], result["async_collected"], result["read"]) == (1, 1, "abc")
    assert result["imported"] == []  # not even the namespace package: the check only looks it up


def test_a_provider_configured_after_the_first_operations_receives_the_next_ones() -> None:
    result = run(
        """
        from datetime import timedelta
        from aimon_mongo.memory import MemorySessionBackends
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        node = MemorySessionBackends("n")
        node.leases.find_holder("before")
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        node.leases.find_holder("after")
        import json
        print(json.dumps([dict(s.attributes)["aimon.session_id"] for s in exporter.get_finished_spans()]))
        """
    )
    assert result == ["after"]  # type: ignore[comparison-overlap]


def test_overhead_benchmark_runs_and_reports_every_case(mongo_uri: str) -> None:
    """``benchmarks/telemetry_overhead.py --smoke`` (the figures in docs/benchmarks.md come from its full run)."""
    import os
    from pathlib import Path

    benchmarks = Path(__file__).resolve().parents[2] / "benchmarks"
    env = {**os.environ, "MONGODB_URI": mongo_uri}
    done = subprocess.run(
        [sys.executable, "telemetry_overhead.py", "--smoke", "--json"],
        cwd=benchmarks,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    cases = [result["case"] for result in report["results"]]
    assert cases == ["memory find_holder", "memory deliver+collect", "mongo acquire+release", "mongo deliver+collect"]
    assert all("client CPU per operation" in result["note"] for result in report["results"])


def test_a_provider_configured_by_environment_variable_is_seen() -> None:
    import os

    code = """
        import json
        from aimon_mongo.memory import MemorySessionBackends
        from aimon_mongo.telemetry import _otel

        MemorySessionBackends("n").leases.find_holder("s")
        from opentelemetry import trace
        print(json.dumps([_otel.live() is not None, type(trace.get_tracer_provider()).__module__]))
        """
    env = {**os.environ, "OTEL_PYTHON_TRACER_PROVIDER": "sdk_tracer_provider"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [True, "opentelemetry.sdk.trace"]

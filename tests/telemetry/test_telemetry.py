"""Native OpenTelemetry instrumentation with the SDK's in-memory exporters: the spans and metrics of a
deliver, a collect with one unreadable entry, a lease hand-over and a stale write (MongoDB stand-in), the
async flavour, the filesystem's bytes — all from bundles and filesystems nobody wrapped — and the rules
reading arguments by name. What happens without opentelemetry-api, or with it and no provider, runs in a
child process (tests/telemetry/test_without_sdk.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import StatusCode
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.synchronous.database import Database

from aimon_mongo import telemetry
from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.errors import StaleFencingTokenError
from aimon_mongo.memory import AsyncMemorySessionBackends, MemorySessionBackends
from aimon_mongo.model import InboundMessage, Principal, Priority, TextInput
from aimon_mongo.mongo import AsyncMongoSessionBackends, MongoSessionBackends, ensure_schema
from aimon_mongo.vfs import MemoryFileSystem

SECRET = "the-secret-payload-text"

_exporter = InMemorySpanExporter()
_reader = InMemoryMetricReader()


class _WhileHere(Sampler):
    """Samples while this module's tests run only: the global provider outlives the module (the API never
    replaces one), and the tests that run after it should not fill the in-memory exporter."""

    on = False

    def should_sample(self, *args: Any, **kwargs: Any) -> SamplingResult:
        return SamplingResult(Decision.RECORD_AND_SAMPLE if self.on else Decision.DROP)

    def get_description(self) -> str:
        return "while tests/telemetry runs"


_sampler = _WhileHere()


@pytest.fixture(scope="module", autouse=True)
def sdk() -> Iterator[None]:
    """The SDK as an application would configure it, once per process (global providers)."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider(sampler=_sampler)
        provider.add_span_processor(SimpleSpanProcessor(_exporter))
        trace.set_tracer_provider(provider)
        metrics.set_meter_provider(MeterProvider(metric_readers=[_reader]))
    _sampler.on = True
    yield
    _sampler.on = False


class Metrics:
    """Cumulative metric points read before and after, so a test sees what it added."""

    def __init__(self) -> None:
        self.before = self.read()

    @staticmethod
    def read() -> dict[tuple[str, frozenset[tuple[str, Any]]], float]:
        found: dict[tuple[str, frozenset[tuple[str, Any]]], float] = {}
        data = _reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.data.data_points:
                        key = (metric.name, frozenset(dict(point.attributes or {}).items()))
                        found[key] = float(point.value if hasattr(point, "value") else point.sum)
                        if hasattr(point, "count"):
                            found[(metric.name + ".count", key[1])] = float(point.count)
        return found

    def added(self, name: str, **attributes: Any) -> float:
        """What was added to ``name`` since construction, over the points that carry ``attributes``."""
        after = self.read()
        total = 0.0
        for key, value in after.items():
            if key[0] == name and set(attributes.items()) <= set(key[1]):
                total += value - self.before.get(key, 0.0)
        return total


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    _exporter.clear()
    yield _exporter


def named(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.name == name]


def message(session: str, priority: Priority = Priority.NEXT) -> InboundMessage:
    return InboundMessage(
        session_id=session,
        agent_ref="analyst",
        user_input=TextInput(text=SECRET),
        priority=priority,
        initiator=Principal.user("alice"),
        delivered_at=datetime.now(UTC),
        metadata={"note": SECRET},
    )


@pytest.fixture
def node(mongo_db: Database[dict[str, Any]]) -> Iterator[Any]:
    ensure_schema(mongo_db)
    bundle = MongoSessionBackends(mongo_db, "node-a")  # nothing wrapped: the spans are native
    yield bundle
    bundle.close()


def no_payload(exporter: InMemorySpanExporter) -> None:
    for span in exporter.get_finished_spans():
        assert all(SECRET not in str(value) for value in (span.attributes or {}).values()), span.name


def test_deliver(node: Any, spans: InMemorySpanExporter) -> None:
    from aimon_mongo.ports import SessionBackends, SessionInbox

    assert isinstance(node, SessionBackends) and isinstance(node.inbox, SessionInbox)  # still the contracts
    assert node.node_id == "node-a" and node.inbox.batch_limit == 64
    counted = Metrics()
    node.inbox.deliver(message("c-1", Priority.NOW))
    (span,) = named(spans, "aimon.inbox.deliver")
    assert dict(span.attributes or {}) == {
        "aimon.capability": "inbox",
        "aimon.operation": "deliver",
        "aimon.session_id": "c-1",
        "aimon.priority": "NOW",
        "aimon.outcome": "ok",
    }
    assert span.status.status_code is StatusCode.UNSET
    assert counted.added("aimon.inbox.delivered", **{"aimon.priority": "NOW"}) == 1
    assert counted.added("aimon.operation.duration.count", **{"aimon.operation": "deliver"}) == 1
    no_payload(spans)


def test_collect_with_one_unreadable_entry(
    node: Any, mongo_db: Database[dict[str, Any]], spans: InMemorySpanExporter
) -> None:
    for _ in range(2):
        node.inbox.deliver(message("c-2"))
    bad = to_mongo_document(message("c-2"), ObjectId())
    mongo_db["conversation_inbox"].insert_one({**bad, "payload": {**bad["payload"], "deliveredAt": "yesterday"}})
    counted = Metrics()
    batch = node.inbox.collect("c-2")
    assert len(batch.messages) == 2 and len(batch.unreadable) == 1
    (span,) = named(spans, "aimon.inbox.collect")
    attributes = dict(span.attributes or {})
    # the highest priority collected (issue 27: it said the ceiling, LATER, before)
    assert attributes["aimon.session_id"] == "c-2" and attributes["aimon.priority"] == "NEXT"
    assert (attributes["aimon.batch_size"], attributes["aimon.unreadable"], attributes["aimon.outcome"]) == (3, 1, "ok")
    assert counted.added("aimon.inbox.collected") == 2
    assert counted.added("aimon.inbox.quarantined") == 1
    assert counted.added("aimon.inbox.collect.batch_size") == 3
    assert counted.added("aimon.inbox.collect.batch_size.count") == 1
    no_payload(spans)
    (entry,) = node.inbox.list_quarantined("c-2")
    with pytest.raises(Exception):  # noqa: B017 - still undecodable: the replay is refused, and counted as no replay
        node.inbox.replay_quarantined(entry.id)
    assert named(spans, "aimon.inbox.replay_quarantined")[0].status.status_code is StatusCode.ERROR
    fixed = {**entry.raw, "payload": {**entry.raw["payload"], "deliveredAt": datetime.now(UTC)}}
    node.inbox.replay_quarantined(entry.id, fixed)
    assert counted.added("aimon.inbox.replayed") == 1
    empty = Metrics()
    node.inbox.collect("c-none")
    assert named(spans, "aimon.inbox.collect")[-1].attributes["aimon.outcome"] == "empty"  # type: ignore[index]
    assert empty.added("aimon.inbox.collect.batch_size.count") == 1


def test_lease_hand_over_and_stale_write(mongo_db: Database[dict[str, Any]], spans: InMemorySpanExporter) -> None:
    ensure_schema(mongo_db)
    a = MongoSessionBackends(mongo_db, "node-a")
    b = MongoSessionBackends(mongo_db, "node-b")
    try:
        counted = Metrics()
        first = a.leases.try_acquire("c-3", "node-a", timedelta(seconds=30))
        assert first is not None and first.fencing_token == 1
        assert b.leases.try_acquire("c-3", "node-b", timedelta(seconds=30)) is None
        a.records.provision("c-3", "analyst", first.fencing_token)
        a.leases.release(first)
        second = b.leases.try_acquire("c-3", "node-b", timedelta(seconds=30))
        assert second is not None and second.fencing_token == 2
        b.records.merge_transcript("c-3", "{}", second.fencing_token)
        with pytest.raises(StaleFencingTokenError):
            a.records.merge_transcript("c-3", SECRET, first.fencing_token)
        assert a.leases.extend(first, timedelta(seconds=30)) is False
    finally:
        a.close()
        b.close()
    assert counted.added("aimon.lease.acquisitions", **{"aimon.outcome": "acquired"}) == 2
    assert counted.added("aimon.lease.acquisitions", **{"aimon.outcome": "held"}) == 1
    assert counted.added("aimon.lease.handovers") == 1
    assert counted.added("aimon.fencing.stale_refusals", **{"aimon.capability": "records"}) == 1
    assert counted.added("aimon.fencing.stale_refusals", **{"aimon.capability": "leases"}) == 1
    acquired = [dict(s.attributes or {}) for s in named(spans, "aimon.leases.try_acquire")]
    assert [(x["aimon.outcome"], x.get("aimon.fencing_token")) for x in acquired] == [
        ("acquired", 1),
        ("held", None),
        ("acquired", 2),
    ]
    stale = named(spans, "aimon.records.merge_transcript")[-1]
    assert dict(stale.attributes or {}) == {
        "aimon.capability": "records",
        "aimon.operation": "merge_transcript",
        "aimon.session_id": "c-3",
        "aimon.fencing_token": 1,
        "aimon.outcome": "stale_token",
        "error.type": "StaleFencingTokenError",
    }
    assert counted.added("aimon.operation.duration.count", **{"aimon.outcome": "stale_token"}) == 2
    no_payload(spans)


async def test_async_bundle(async_mongo_db: AsyncDatabase[dict[str, Any]], spans: InMemorySpanExporter) -> None:
    from aimon_mongo.mongo import ensure_schema_async

    await ensure_schema_async(async_mongo_db)
    counted = Metrics()
    async with AsyncMongoSessionBackends(async_mongo_db, "node-a") as node:
        await node.inbox.deliver(message("c-4", Priority.LATER))
        assert not await node.inbox.is_empty("c-4")
    (span,) = named(spans, "aimon.inbox.deliver")
    assert span.attributes["aimon.priority"] == "LATER"  # type: ignore[index]
    assert named(spans, "aimon.inbox.is_empty")[0].attributes["aimon.session_id"] == "c-4"  # type: ignore[index]
    assert counted.added("aimon.inbox.delivered") == 1


def test_filesystem_bytes(spans: InMemorySpanExporter) -> None:
    counted = Metrics()
    with MemoryFileSystem() as fs:
        fs.initialize()
        fs.write("a/b.txt", b"12345")
        fs.write("a/c.txt", "héllo")
        assert fs.read("a/b.txt") == b"12345"
        assert fs.read_range("a/c.txt", 0, 2) == "hé".encode()[:2]
        assert [info.path for info in fs.walk("a")]  # generators pass through
    assert counted.added("aimon.vfs.bytes_written") == 5 + 6
    assert counted.added("aimon.vfs.bytes_read") == 5 + 2
    write = named(spans, "aimon.vfs.write")[0]
    assert dict(write.attributes or {}) == {
        "aimon.capability": "vfs",
        "aimon.operation": "write",
        "aimon.bytes": 5,
        "aimon.outcome": "ok",
    }
    missing = Metrics()
    with MemoryFileSystem() as fs:
        with pytest.raises(FileNotFoundError):
            fs.read("nope.txt")
    failed = named(spans, "aimon.vfs.read")[-1]
    assert failed.attributes["error.type"] == "VfsFileNotFoundError"  # type: ignore[index]
    assert failed.status.status_code is StatusCode.ERROR
    assert missing.added("aimon.vfs.bytes_read") == 0


def test_snapshot_store(spans: InMemorySpanExporter) -> None:
    from aimon_mongo.snapshots import Message, Role, SessionSnapshot, VfsSessionSnapshotStore

    counted = Metrics()
    with MemoryFileSystem() as fs:
        store = telemetry.instrument_store(VfsSessionSnapshotStore(fs), "snapshots")
        snapshot = SessionSnapshot.of_messages("c-5", [Message.text(Role.USER, SECRET)])
        store.save("t-1", "analyst", None, snapshot)
        assert store.load("t-1") is not None and store.load("t-2") is None
    (save,) = named(spans, "aimon.snapshots.save")
    assert save.attributes["aimon.session_id"] == "c-5" and save.attributes["aimon.batch_size"] == 1  # type: ignore[index]
    assert [s.attributes["aimon.outcome"] for s in named(spans, "aimon.snapshots.load")] == ["ok", "missing"]  # type: ignore[index]
    writes = named(spans, "aimon.vfs.write")
    assert writes and all(w.parent is not None and w.parent.span_id == save.context.span_id for w in writes)
    assert counted.added("aimon.vfs.bytes_written") > 0
    no_payload(spans)
    with pytest.raises(ValueError, match="'nope'"):
        telemetry.instrument_store(store, "nope")


@pytest.mark.parametrize(
    ("protocol", "rules"),
    [
        ("aimon_mongo._async.ports:AsyncSessionInbox", "INBOX"),
        ("aimon_mongo._async.ports:AsyncSessionLeaseStore", "LEASES"),
        ("aimon_mongo._async.ports:AsyncSessionSignalBus", "SIGNALS"),
        ("aimon_mongo._async.ports:AsyncIdempotencyStore", "IDEMPOTENCY"),
        ("aimon_mongo._async.ports:AsyncBackgroundTaskStore", "TASKS"),
        ("aimon_mongo._async.ports:AsyncSessionRecordStore", "RECORDS"),
        ("aimon_mongo._async.ports:AsyncSessionLogSegmentStore", "SEGMENTS"),
        ("aimon_mongo._async.snapshots.ports:AsyncSessionSnapshotStore", "SNAPSHOTS"),
        ("aimon_mongo._async.snapshots.ports:AsyncTaskOutputStore", "TASK_OUTPUT"),
        ("aimon_mongo._async.snapshots.ports:AsyncTaskResultStore", "TASK_RESULTS"),
        ("aimon_mongo._async.vfs.protocol:AsyncFileSystem", "FILESYSTEM"),
    ],
)
def test_every_public_operation_of_a_contract_has_its_rule(protocol: str, rules: str) -> None:
    """A new operation in a contract fails here until capabilities.py says what its span records."""
    import importlib
    import inspect

    from aimon_mongo.telemetry import capabilities

    module, name = protocol.split(":")
    contract = getattr(importlib.import_module(module), name)
    operations = {
        attr
        for attr, value in vars(contract).items()
        if not attr.startswith("_") and inspect.isfunction(value) and attr not in ("close", "walk")
    }
    declared = set(getattr(capabilities, rules))
    assert operations - declared == set(), f"{name}: operations without a telemetry rule"


def test_collect_priority_is_the_highest_collected(spans: InMemorySpanExporter) -> None:
    with MemorySessionBackends("node-a") as node:
        node.inbox.deliver(message("c-6", Priority.LATER))
        node.inbox.deliver(message("c-6", Priority.NOW))
        node.inbox.deliver(message("c-6", Priority.NEXT))
        assert [m.priority for m in node.inbox.collect("c-6").messages] == [Priority.NOW, Priority.NEXT, Priority.LATER]
        node.inbox.deliver(message("c-6", Priority.LATER))
        node.inbox.collect("c-6", Priority.LATER)
        node.inbox.collect("c-6")
    first, second, empty = (dict(s.attributes or {}) for s in named(spans, "aimon.inbox.collect"))
    assert first["aimon.priority"] == "NOW" and first["aimon.batch_size"] == 3
    assert second["aimon.priority"] == "LATER"
    assert "aimon.priority" not in empty and empty["aimon.outcome"] == "empty"


def test_claim_and_acknowledge_spans(spans: InMemorySpanExporter) -> None:
    counted = Metrics()
    with MemorySessionBackends("node-a") as node:
        ids = [node.inbox.deliver(message("c-9", p)) for p in (Priority.LATER, Priority.NEXT)]
        node.inbox.claim("c-9", 3, max_attempts=1)
        assert node.inbox.acknowledge("c-9", 3, ids[:1]) == 1
        assert node.inbox.claim("c-9", 4, max_attempts=1).quarantined == ids[1:]
        extra = node.inbox.deliver(message("c-9", Priority.NOW))
        assert node.inbox.quarantine_entries("c-9", [extra], "poison") == 1
        assert node.inbox.sessions_with_entries().session_ids == []
    first, exhausted = (dict(s.attributes or {}) for s in named(spans, "aimon.inbox.claim"))
    assert (first["aimon.session_id"], first["aimon.fencing_token"], first["aimon.batch_size"]) == ("c-9", 3, 2)
    assert first["aimon.priority"] == "NEXT" and first["aimon.unreadable"] == 0
    assert exhausted["aimon.outcome"] == "empty" and exhausted["aimon.batch_size"] == 0
    (ack,) = (dict(s.attributes or {}) for s in named(spans, "aimon.inbox.acknowledge"))
    assert (ack["aimon.fencing_token"], ack["aimon.batch_size"]) == (3, 1)
    (moved,) = (dict(s.attributes or {}) for s in named(spans, "aimon.inbox.quarantine_entries"))
    assert moved["aimon.batch_size"] == 1
    (listed,) = (dict(s.attributes or {}) for s in named(spans, "aimon.inbox.sessions_with_entries"))
    assert listed["aimon.batch_size"] == 0
    assert counted.added("aimon.inbox.quarantined") == 2  # one handed out too often, one moved on request
    no_payload(spans)


def test_wrapping_is_a_no_op_alias_and_no_span_is_recorded_twice(spans: InMemorySpanExporter) -> None:
    with MemorySessionBackends("node-a") as bundle, MemoryFileSystem() as fs:
        assert telemetry.instrument_backends(bundle) is bundle
        assert telemetry.instrument_filesystem(fs) is fs
        wrapped = telemetry.instrument_backends(telemetry.instrument_backends(bundle))
        wrapped.inbox.deliver(message("c-7"))
        telemetry.instrument_filesystem(fs).write("x.txt", b"123")
        fs.touch("x.txt")  # its own is_file, write and timestamp: one span
    assert len(named(spans, "aimon.inbox.deliver")) == 1
    assert [s.name for s in spans.get_finished_spans() if s.name.startswith("aimon.vfs.")] == [
        "aimon.vfs.initialize",
        "aimon.vfs.write",
        "aimon.vfs.touch",
    ]


async def test_memory_async_bundle_records_with_no_wrapping(spans: InMemorySpanExporter) -> None:
    async with AsyncMemorySessionBackends("node-a") as node:
        lease = await node.leases.try_acquire("c-8", "node-a", timedelta(seconds=30))
        assert lease is not None
        await node.records.provision("c-8", "analyst", lease.fencing_token)
        await node.leases.release(lease)
    (acquire,) = named(spans, "aimon.leases.try_acquire")
    assert dict(acquire.attributes or {})["aimon.fencing_token"] == lease.fencing_token
    (provision,) = named(spans, "aimon.records.provision")
    assert provision.attributes["aimon.session_id"] == "c-8"  # type: ignore[index]
    assert named(spans, "aimon.leases.release")[0].attributes["aimon.session_id"] == "c-8"  # type: ignore[index]


def test_keyword_arguments_land_in_their_attributes(spans: InMemorySpanExporter) -> None:
    with MemorySessionBackends("node-a") as node:
        lease = node.leases.try_acquire(ttl=timedelta(seconds=30), holder_id="node-a", session_id="c-9")
        assert lease is not None
        node.records.merge_transcript(fencing_token=lease.fencing_token, transcript=SECRET, session_id="c-9")
        node.inbox.deliver(message=message("c-9", Priority.NOW))
        node.inbox.collect(max_priority=Priority.NEXT, session_id="c-9")
        node.segments.delete_all(fencing_token=lease.fencing_token, session_id="c-9")
    assert named(spans, "aimon.leases.try_acquire")[0].attributes["aimon.session_id"] == "c-9"  # type: ignore[index]
    merge = dict(named(spans, "aimon.records.merge_transcript")[0].attributes or {})
    assert (merge["aimon.session_id"], merge["aimon.fencing_token"]) == ("c-9", lease.fencing_token)
    collect = dict(named(spans, "aimon.inbox.collect")[0].attributes or {})
    assert (collect["aimon.session_id"], collect["aimon.priority"]) == ("c-9", "NOW")
    assert named(spans, "aimon.segments.delete_all")[0].attributes["aimon.fencing_token"] == lease.fencing_token  # type: ignore[index]
    no_payload(spans)


def test_rules_read_arguments_by_name_checked_at_decoration(spans: InMemorySpanExporter) -> None:
    from aimon_mongo.telemetry import capabilities

    class Renamed:
        """A store whose signature moved: the session is the second argument, the token keyword-only."""

        def merge_transcript(self, transcript: str, session_id: str, *, fencing_token: int) -> None:
            return None

    capabilities.traced("records")(Renamed)
    Renamed().merge_transcript(SECRET, "c-10", fencing_token=7)
    Renamed().merge_transcript(SECRET, session_id="c-11", fencing_token=8)
    recorded = [dict(s.attributes or {}) for s in named(spans, "aimon.records.merge_transcript")]
    assert [(x["aimon.session_id"], x["aimon.fencing_token"]) for x in recorded] == [("c-10", 7), ("c-11", 8)]

    class Broken:
        def merge_transcript(self, session: str, transcript: str, token: int) -> None:
            return None

    with pytest.raises(TypeError, match=r"records\.merge_transcript reads 'session_id', 'fencing_token'"):
        capabilities.traced("records")(Broken)
    with pytest.raises(ValueError, match="'nope'"):
        capabilities.traced("nope")


def test_every_store_of_every_bundle_and_every_filesystem_records_natively(
    mongo_db: Database[dict[str, Any]], async_mongo_db: AsyncDatabase[dict[str, Any]]
) -> None:
    """A bundle whose store is not built from its service would record nothing: it fails here."""
    from aimon_mongo.telemetry import capabilities
    from aimon_mongo.telemetry._layer import traced_as
    from aimon_mongo.vfs import AsyncGridFSFileSystem, AsyncLocalFileSystem, GridFSFileSystem, LocalFileSystem

    bundles = [
        MemorySessionBackends("n"),
        AsyncMemorySessionBackends("n"),
        MongoSessionBackends(mongo_db, "n"),
        AsyncMongoSessionBackends(async_mongo_db, "n"),
    ]
    for bundle in bundles:
        for name in capabilities.BUNDLE_STORES:
            assert traced_as(getattr(bundle, name)) == name, (type(bundle).__name__, name)
    bundles[0].close()
    bundles[2].close()
    for fs_class in (MemoryFileSystem, GridFSFileSystem, LocalFileSystem, AsyncGridFSFileSystem, AsyncLocalFileSystem):
        assert fs_class.__dict__.get("__aimon_traced__") == "vfs", fs_class
        for operation in capabilities.FILESYSTEM:
            method = getattr(fs_class, operation, None)  # fsck: GridFS only
            assert (
                method is None or hasattr(method, "__aimon_traced__") or getattr(method, "__isabstractmethod__", False)
            ), (
                fs_class.__name__,
                operation,
            )


def test_a_third_party_bundle_gets_its_stores_wrapped(spans: InMemorySpanExporter) -> None:
    """``instrument_backends`` still wraps what does not record natively — and only that."""

    class TheirInbox:
        def deliver(self, message: InboundMessage) -> str:
            return "id-1"

    class TheirBundle:
        node_id = "theirs"

        def __init__(self) -> None:
            ours = MemorySessionBackends("n")
            self.inbox = TheirInbox()
            self.leases, self.signals, self.idempotency = ours.leases, ours.signals, ours.idempotency
            self.tasks, self.records, self.segments = ours.tasks, ours.records, ours.segments

        def close(self) -> None:
            return None

    bundle = TheirBundle()
    with telemetry.instrument_backends(bundle) as node:
        assert node is not bundle and node.node_id == "theirs" and node.leases is bundle.leases
        assert node.inbox.deliver(message=message("c-12", Priority.NOW)) == "id-1"
        node.leases.find_holder("c-12")
    (deliver,) = named(spans, "aimon.inbox.deliver")
    assert (deliver.attributes["aimon.session_id"], deliver.attributes["aimon.priority"]) == ("c-12", "NOW")  # type: ignore[index]
    assert len(named(spans, "aimon.leases.find_holder")) == 1  # ours: native, not wrapped again


def test_a_third_party_store_the_rules_cannot_read_runs_unrecorded(
    spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture
) -> None:
    class Odd:
        def append(self, what: str) -> None:  # task_output's rule reads "chunk": not instrumented, still works
            return None

    store = telemetry.instrument_store(Odd(), "task_output")
    store.append("x")
    assert "Odd: not instrumented" in caplog.text and "'chunk'" in caplog.text
    assert named(spans, "aimon.task_output.append") == []


async def test_the_host_records_a_span_and_metrics_per_turn(spans: InMemorySpanExporter) -> None:
    """A turn of the session host (aimon_mongo.host): one span with session, token, attempt, batch size, outcome
    and, on the first turn after adoption, the time to adopt; the turn and adoption metrics; never a payload."""
    import asyncio

    from aimon_mongo.host import AsyncSessionHost, Turn
    from aimon_mongo.memory import MemoryStorage

    node = AsyncMemorySessionBackends("node-a", MemoryStorage())
    attempts: list[int] = []

    async def handle(turn: Turn) -> None:
        attempts.append(turn.attempt)
        if turn.attempt == 1:
            raise RuntimeError(SECRET)

    counted = Metrics()
    async with AsyncSessionHost(node, handler=handle, retry_backoff=timedelta(0)) as host:
        await host.submit(message("c-host"))
        await host.submit(message("c-host"))
        for _ in range(1500):
            if len(named(spans, "aimon.host.run_turn")) >= 2:
                break
            await asyncio.sleep(0.02)
    failed, done = named(spans, "aimon.host.run_turn")[:2]
    first, second = dict(failed.attributes or {}), dict(done.attributes or {})
    assert first["aimon.capability"] == "host" and first["aimon.session_id"] == "c-host"
    assert (first["aimon.fencing_token"], first["aimon.attempt"], first["aimon.outcome"]) == (1, 1, "failed")
    assert first["aimon.interrupted"] is False and isinstance(first["aimon.adopted_after_ms"], int)
    assert first["aimon.batch_size"] >= 1
    assert (second["aimon.attempt"], second["aimon.outcome"]) == (2, "acknowledged")
    assert "aimon.adopted_after_ms" not in second  # only the first turn after an adoption
    assert counted.added("aimon.host.turns", **{"aimon.outcome": "failed"}) == 1
    assert counted.added("aimon.host.turns", **{"aimon.outcome": "acknowledged"}) >= 1
    assert counted.added("aimon.host.adoption_time.count") == 1
    no_payload(spans)

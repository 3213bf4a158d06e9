"""OpenTelemetry spans and metrics for the session stores and the virtual filesystem (extra ``otel``:
``opentelemetry-api`` only; the application configures an SDK, or nothing is exported).

Applied at the bundle and filesystem level, once, whatever the backend::

    node = instrument_backends(MongoSessionBackends(db, "node-a"))   # or Redis, PostgreSQL, memory; sync or async
    fs = instrument_filesystem(GridFSFileSystem(client, "aimon"))
    snapshots = instrument_store(VfsSessionSnapshotStore(fs), "snapshots")   # or "task_output", "task_results"

Every public operation then runs in a span ``aimon.<capability>.<operation>`` with the session id,
priority, batch size and outcome as attributes (never a payload), and records its latency in
``aimon.operation.duration``; the counters and histograms each capability feeds are declared in
:mod:`aimon_mongo.telemetry.capabilities`. Without ``opentelemetry-api`` installed both functions return
their argument unchanged. See ``docs/telemetry.md``.
"""

from __future__ import annotations

from typing import Any, TypeVar

from aimon_mongo.telemetry import capabilities
from aimon_mongo.telemetry._layer import Instrumented
from aimon_mongo.telemetry._otel import INSTRUMENTATION_NAME, instruments

__all__ = [
    "INSTRUMENTATION_NAME",
    "InstrumentedBackends",
    "available",
    "instrument_backends",
    "instrument_filesystem",
    "instrument_store",
]

T = TypeVar("T")


def available() -> bool:
    """Whether ``opentelemetry-api`` is installed (otherwise instrumenting changes nothing)."""
    return instruments() is not None


class InstrumentedBackends:
    """A session-backend bundle whose seven stores are instrumented; everything else is the bundle's own
    (``node_id``, ``close()``, ``collection_names``...), and it closes the bundle as a context manager."""

    def __init__(self, bundle: Any) -> None:
        made = instruments()
        assert made is not None
        self._bundle = bundle
        self._stores = {
            name: Instrumented(getattr(bundle, name), name, rules, made)
            for name, rules in capabilities.BUNDLE_STORES.items()
        }

    @property
    def wrapped(self) -> Any:
        """The bundle underneath."""
        return self._bundle

    @property
    def inbox(self) -> Any:
        return self._stores["inbox"]

    @property
    def leases(self) -> Any:
        return self._stores["leases"]

    @property
    def signals(self) -> Any:
        return self._stores["signals"]

    @property
    def idempotency(self) -> Any:
        return self._stores["idempotency"]

    @property
    def tasks(self) -> Any:
        return self._stores["tasks"]

    @property
    def records(self) -> Any:
        return self._stores["records"]

    @property
    def segments(self) -> Any:
        return self._stores["segments"]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bundle, name)

    def __enter__(self) -> InstrumentedBackends:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bundle.close()

    async def __aenter__(self) -> InstrumentedBackends:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._bundle.close()


def instrument_backends(bundle: T) -> T:
    """``bundle`` (any backend's ``SessionBackends``, sync or async) with every store instrumented; the
    bundle itself when ``opentelemetry-api`` is not installed."""
    if instruments() is None:
        return bundle
    return InstrumentedBackends(bundle)  # type: ignore[return-value]


def instrument_store(store: T, capability: str) -> T:
    """A snapshot store (``"snapshots"``), task-output store (``"task_output"``) or task-result store
    (``"task_results"``), sync or async, with its operations instrumented; ``store`` itself without
    ``opentelemetry-api``. An unknown capability raises ``ValueError`` naming it."""
    rules = capabilities.STORES.get(capability)
    if rules is None:
        raise ValueError(f"unknown capability {capability!r} (one of {', '.join(capabilities.STORES)})")
    made = instruments()
    if made is None:
        return store
    return Instrumented(store, capability, rules, made)  # type: ignore[return-value]


def instrument_filesystem(fs: T) -> T:
    """``fs`` (any virtual filesystem, sync or async) with every public operation instrumented and the bytes
    it reads and writes counted; ``fs`` itself when ``opentelemetry-api`` is not installed."""
    made = instruments()
    if made is None:
        return fs
    return Instrumented(fs, "vfs", capabilities.FILESYSTEM, made)  # type: ignore[return-value]

"""OpenTelemetry spans and metrics for the session stores and the virtual filesystem (extra ``otel``:
``opentelemetry-api`` only; the application configures an SDK, or nothing is exported).

Native: the services every backend's bundle is built from (inbox, leases, signals, idempotency, tasks,
records, segments) and every virtual filesystem record through ``opentelemetry-api`` as soon as the
application has configured a tracer or meter provider — nothing to wrap::

    trace.set_tracer_provider(provider)                  # the application's SDK set-up
    node = MongoSessionBackends(db, "node-a")            # or Redis, PostgreSQL, memory; sync or async
    node.inbox.deliver(message)                          # span aimon.inbox.deliver
    snapshots = instrument_store(VfsSessionSnapshotStore(fs), "snapshots")   # these stores are wrapped

Every public operation then runs in a span ``aimon.<capability>.<operation>`` with the session id,
priority, batch size and outcome as attributes (never a payload), and records its latency in
``aimon.operation.duration``; what each capability records is declared once, in
:mod:`aimon_mongo.telemetry.capabilities`. Without ``opentelemetry-api`` installed nothing is wrapped; with
it and no provider configured, an operation pays one cheap check. See ``docs/telemetry.md``.

:func:`instrument_backends` and :func:`instrument_filesystem` are kept for code written before: they return
our bundles and filesystems as they are (their spans are native, never recorded twice) and wrap only a
third party's stores.
"""

from __future__ import annotations

from typing import Any, TypeVar

from aimon_mongo.telemetry import capabilities
from aimon_mongo.telemetry._layer import Instrumented, traced_as
from aimon_mongo.telemetry._otel import INSTRUMENTATION_NAME, installed

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
    """Whether ``opentelemetry-api`` is installed (otherwise nothing records)."""
    return installed()


def _observed(target: Any, capability: str) -> Any:
    """``target`` when its class records ``capability`` natively, else ``target`` in a recording proxy."""
    if traced_as(target) == capability:
        return target
    return Instrumented(target, capability, capabilities.NATIVE[capability])


class InstrumentedBackends:
    """A session-backend bundle of a third party whose stores record spans and metrics through a proxy (ours
    record natively and are returned as they are); everything else is the bundle's own (``node_id``,
    ``close()``, ``collection_names``...), and it closes the bundle as a context manager."""

    def __init__(self, bundle: Any) -> None:
        self._bundle = bundle
        self._stores = {name: _observed(getattr(bundle, name), name) for name in capabilities.BUNDLE_STORES}

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
    """``bundle`` itself: every store of our backends records natively (kept for code written before).
    A third party's bundle whose stores do not gets them wrapped; without ``opentelemetry-api``, ``bundle``."""
    if not installed() or all(traced_as(getattr(bundle, name, None)) == name for name in capabilities.BUNDLE_STORES):
        return bundle
    return InstrumentedBackends(bundle)  # type: ignore[return-value]


def instrument_store(store: T, capability: str) -> T:
    """A snapshot store (``"snapshots"``), task-output store (``"task_output"``) or task-result store
    (``"task_results"``), sync or async, with its operations instrumented; ``store`` itself without
    ``opentelemetry-api``. An unknown capability raises ``ValueError`` naming it."""
    rules = capabilities.STORES.get(capability)
    if rules is None:
        raise ValueError(f"unknown capability {capability!r} (one of {', '.join(capabilities.STORES)})")
    if not installed():
        return store
    return Instrumented(store, capability, rules)  # type: ignore[return-value]


def instrument_filesystem(fs: T) -> T:
    """``fs`` itself: our filesystems record natively (kept for code written before). A third party's
    filesystem gets its operations wrapped; without ``opentelemetry-api``, ``fs``."""
    if not installed():
        return fs
    return _observed(fs, "vfs")  # type: ignore[no-any-return]

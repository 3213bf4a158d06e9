"""Registry of the backends the conformance suite runs against.

Each module here registers one family with :func:`register` (e.g. ``memory``, ``mongo``, ``redis``,
``postgres``), providing a factory for a *cluster*: shared storage from which the tests create one
bundle per node (``await cluster.node("node-a")``). Sync bundles are wrapped in :class:`AsyncFacade`
so every test is written once, as async code, and runs against both flavours.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import pytest

from aimon_mongo.clock import Clock


class Cluster(Protocol):
    """Shared storage of one test; ``node`` builds a bundle (async-facing) for one node id."""

    async def node(self, node_id: str, *, clock: Clock | None = None) -> Any: ...


ClusterFactory = Callable[[pytest.FixtureRequest], AbstractAsyncContextManager[Cluster]]


@dataclass(frozen=True)
class BackendFamily:
    name: str  # e.g. "mongo-sync"
    factory: ClusterFactory
    marks: tuple[Any, ...] = field(default_factory=tuple)


REGISTRY: dict[str, BackendFamily] = {}
FAMILY_MODULES = ("memory", "mongo", "redis", "redis_cluster", "postgres")


def register(name: str, factory: ClusterFactory, *marks: Any) -> None:
    REGISTRY[name] = BackendFamily(name, factory, marks)


def load_all() -> dict[str, BackendFamily]:
    for module in FAMILY_MODULES:
        try:
            importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module}":
                raise
    return REGISTRY


class AsyncFacade:
    """Async view of a sync object: every method call runs in a worker thread (tests only).

    Attributes that are not callables are returned as they are; attributes whose values are store
    objects (``bundle.inbox`` ...) are wrapped too, so ``await facade.inbox.deliver(m)`` works for both
    flavours. Signal handlers given to a sync ``subscribe`` are wrapped so an async test handler works.
    """

    _STORES = ("inbox", "leases", "signals", "idempotency", "tasks", "records", "segments")

    def __init__(self, target: Any) -> None:
        self._target = target

    @property
    def unwrapped(self) -> Any:
        return self._target

    async def __aenter__(self) -> AsyncFacade:
        await asyncio.to_thread(self._target.__enter__)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self._target.__exit__, None, None, None)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if name in self._STORES:
            return AsyncFacade(value)
        if not callable(value):
            return value

        @functools.wraps(value)
        async def call(*args: Any, **kwargs: Any) -> Any:
            if name == "subscribe" and len(args) >= 2:
                args = (args[0], _sync_handler(args[1]), *args[2:])
            result = await asyncio.to_thread(value, *args, **kwargs)
            if name == "subscribe":
                return AsyncFacade(result)
            return result

        return call


def _sync_handler(handler: Callable[[Any], Any]) -> Callable[[Any], None]:
    if not inspect.iscoroutinefunction(handler):
        return handler

    def run(signal: Any) -> None:
        asyncio.run(handler(signal))

    return run


async def maybe_close(bundle: Any) -> None:
    result = bundle.close()
    if inspect.isawaitable(result):
        await result


class ClusterBase:
    """Base of the clusters the factories yield: tracks the bundles it built and closes them.

    A family implements ``build(node_id, clock)`` returning a real bundle (sync or async); ``node()``
    wraps sync ones in :class:`AsyncFacade`. Example factory::

        @contextlib.asynccontextmanager
        async def memory_sync(request):
            cluster = MemoryCluster(flavour="sync")
            try:
                yield cluster
            finally:
                await cluster.close_all()

        register("memory-sync", memory_sync)
    """

    is_async: bool = True

    can_damage_entries: bool = False
    """Whether the inbox stores an encoded form that :meth:`store_damaged_entry` can damage (False for the
    in-memory inbox, which keeps objects and so never has an unreadable entry)."""

    stored_form: str | None = None
    """The inbox's stored form, for tests that store what another build wrote: ``"mongo-document"``,
    ``"json-envelope"`` (Redis stream field ``p``, PostgreSQL ``payload``), ``None`` when it keeps objects."""

    def __init__(self) -> None:
        self._bundles: list[Any] = []

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        raise NotImplementedError

    async def store_damaged_entry(self, message: Any) -> str:
        """Store ``message`` in its session's inbox the way ``deliver`` would, but with the initiator's
        ``type`` replaced by ``"ROBOT"`` (an unknown principal type, so the entry cannot be decoded); returns
        the entry id. Only when ``can_damage_entries``."""
        raise NotImplementedError

    async def store_raw_entry(self, session_id: str, priority: Any, raw: Any) -> str:
        """Store ``raw`` — the inbox's own stored form, possibly damaged — directly in the inbox of
        ``session_id`` at ``priority`` (the tier a collect of that session reads: a ``Priority``, or the
        stored tier itself — an ordinal on MongoDB / PostgreSQL, a stream suffix on Redis — to store an
        entry at a tier no reader knows), bypassing the codec; returns the entry id. The form is the
        family's: a MongoDB document (without ``_id``), the Redis stream field ``p`` (bytes or text; a dict
        stores those fields instead), the PostgreSQL ``payload`` JSON text. Only when
        ``can_damage_entries``."""
        raise NotImplementedError

    def same_raw(self, stored: Any, kept: Any) -> bool:
        """Whether ``kept`` (``QuarantinedEntry.raw``) is the form :meth:`store_raw_entry` stored."""
        raise NotImplementedError

    def repair(self, raw: Any) -> Any:
        """The raw form of a quarantined entry (``QuarantinedEntry.raw``) with ``"ROBOT"`` put back to
        ``"USER"``: what an operator passes to ``replay_quarantined``."""
        raise NotImplementedError

    async def node(self, node_id: str, *, clock: Clock | None = None) -> Any:
        bundle = await self.build(node_id, clock)
        self._bundles.append(bundle)
        return bundle if self.is_async else AsyncFacade(bundle)

    async def close_all(self) -> None:
        for bundle in reversed(self._bundles):
            await maybe_close(bundle)
        self._bundles.clear()

    async def start(self) -> None:
        """Prepare the shared storage (e.g. create the schema); called before the test."""

    async def stop(self) -> None:
        """Close every bundle, then what the cluster itself owns; called after the test."""
        await self.close_all()


def register_cluster(name: str, make: Callable[[pytest.FixtureRequest], ClusterBase], *marks: Any) -> None:
    """Register a family whose clusters ``make(request)`` builds; ``start``/``stop`` bracket each test."""

    @contextlib.asynccontextmanager
    async def factory(request: pytest.FixtureRequest) -> AsyncIterator[ClusterBase]:
        cluster = make(request)
        await cluster.start()
        try:
            yield cluster
        finally:
            await cluster.stop()

    register(name, factory, *marks)

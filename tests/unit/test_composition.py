"""Stores are composed, ``Service(driver)``, and public names carry the path users import them from.

* A bundle's stores are the capability's service over the backend's driver; the store names users construct
  (``AsyncMongoSessionLeaseStore(collection)`` …) are factories returning that composition, and no class in a
  backend exists only to build its base (the six store classes left add backend extras).
* A service's ``repr`` names the service, its driver and where the data lives, never a credential.
* Every class (or class-named factory) a public package re-exports names that package as its ``__module__``,
  and every name marked with a public ``__module__`` is importable from there (``aimon_mongo.exported``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from pymongo import AsyncMongoClient, MongoClient
from redis import Redis
from redis.asyncio import Redis as AsyncRedis

import aimon_mongo
from aimon_mongo import memory, mongo, postgres, redis, services
from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo._async.redis.connection import AsyncRedisIO
from aimon_mongo._sync.redis.connection import RedisIO
from aimon_mongo.clock import system_clock
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.memory import AsyncMemoryLeaseDriver, MemoryInboxDriver, MemoryStorage
from aimon_mongo.mongo import AsyncMongoLeaseDriver, MongoRecordDriver
from aimon_mongo.postgres import AsyncPostgresSegmentDriver
from aimon_mongo.redis import AsyncRedisInboxDriver, RedisKeys, RedisTaskDriver
from aimon_mongo.services import AsyncInbox, AsyncLeaseStore, AsyncSegmentStore, Inbox, RecordStore, TaskStore

PACKAGE = Path(aimon_mongo.__file__).parent
PUBLIC = ["ports", "mongo", "redis", "postgres", "memory", "vfs", "snapshots", "langgraph", "services"]
"""Packages that re-export names written in private modules (``_async`` / ``_sync``)."""
SERVICES = ("Inbox", "LeaseStore", "SignalBus", "Idempotency", "TaskStore", "RecordStore", "SegmentStore")
EXTRAS = {
    "AsyncMongoSessionInbox": {"collects_in_transactions"},
    "AsyncMongoSessionSignalBus": {"watch_mode"},
    "AsyncRedisSessionSignalBus": {"sharded"},
    "AsyncPostgresSessionLeaseStore": {"sweep_lapsed", "sweep_idle_fences"},
    "AsyncPostgresIdempotencyStore": {"sweep_expired"},
    "AsyncPostgresSessionSignalBus": {"listener", "sweep_older_than"},
}
"""The store classes that stay classes, and the extras each adds to its service."""


def test_a_memory_factory_returns_the_service_over_the_memory_driver() -> None:
    storage = MemoryStorage()
    store = memory.AsyncMemorySessionLeaseStore(storage)
    assert type(store) is AsyncLeaseStore and isinstance(store.driver, AsyncMemoryLeaseDriver)
    assert repr(store) == "AsyncLeaseStore(driver=AsyncMemoryLeaseDriver())"
    assert repr(AsyncLeaseStore(AsyncMemoryLeaseDriver(storage))) == repr(store)  # the same composition by hand
    inbox = memory.MemorySessionInbox(MemoryStorage())
    assert type(inbox) is Inbox and isinstance(inbox.driver, MemoryInboxDriver)


def test_a_mongo_factory_names_its_collections() -> None:
    client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient("mongodb://u:secret@localhost:1", connect=False)
    store = mongo.AsyncMongoSessionLeaseStore(client["aimon"]["conversation_locks"])
    assert type(store) is AsyncLeaseStore and isinstance(store.driver, AsyncMongoLeaseDriver)
    assert repr(store) == "AsyncLeaseStore(driver=AsyncMongoLeaseDriver('aimon.conversation_locks'))"
    sync: MongoClient[dict[str, Any]] = MongoClient("mongodb://u:secret@localhost:1", connect=False)
    records = mongo.MongoSessionRecordStore(sync["db"]["session_records"], sync["db"]["session_fences"])
    assert type(records) is RecordStore and isinstance(records.driver, MongoRecordDriver)
    assert repr(records) == "RecordStore(driver=MongoRecordDriver('db.session_records', 'db.session_fences'))"
    sync.close()


def test_a_redis_factory_names_its_server_and_checks_its_limit() -> None:
    inbox = redis.AsyncRedisSessionInbox(AsyncRedisIO(AsyncRedis(host="redis.example", port=6380)), RedisKeys())
    assert type(inbox) is AsyncInbox and isinstance(inbox.driver, AsyncRedisInboxDriver)
    assert repr(inbox) == "AsyncInbox(driver=AsyncRedisInboxDriver('redis.example:6380'))"
    tasks = redis.RedisBackgroundTaskStore(RedisIO(Redis(password="secret")), RedisKeys(), system_clock)
    assert type(tasks) is TaskStore and isinstance(tasks.driver, RedisTaskDriver)
    assert "secret" not in repr(tasks)
    with pytest.raises(InvalidArgumentError, match="collect_limit must be >= 1, got 0"):
        redis.AsyncRedisSessionInbox(AsyncRedisIO(AsyncRedis()), RedisKeys(), collect_limit=0)


def test_a_postgres_factory_names_its_server_never_the_password() -> None:
    pool = AsyncPgPool("postgresql://user:secret@db.example:5433/app")  # opens on first use only
    segments = postgres.AsyncPostgresSessionLogSegmentStore(pool, "public")
    assert type(segments) is AsyncSegmentStore and isinstance(segments.driver, AsyncPostgresSegmentDriver)
    assert repr(segments) == "AsyncSegmentStore(driver=AsyncPostgresSegmentDriver('db.example:5433'))"
    leases = postgres.AsyncPostgresSessionLeaseStore(pool, "public")  # a class: it adds the sweeps
    assert isinstance(leases, AsyncLeaseStore) and "secret" not in repr(leases)
    assert repr(leases).startswith("AsyncPostgresSessionLeaseStore(driver=AsyncPostgresLeaseDriver(")


@pytest.mark.parametrize("flavour", ["async", "sync"])
def test_a_bundle_composes_each_service_over_its_driver(flavour: str) -> None:
    prefix = "Async" if flavour == "async" else ""
    bundle = getattr(memory, f"{prefix}MemorySessionBackends")("node-1")
    for attribute, service in [
        ("inbox", "Inbox"),
        ("leases", "LeaseStore"),
        ("signals", "SignalBus"),
        ("idempotency", "Idempotency"),
        ("tasks", "TaskStore"),
        ("records", "RecordStore"),
        ("segments", "SegmentStore"),
    ]:
        store = getattr(bundle, attribute)
        assert type(store) is getattr(services, prefix + service), attribute
        assert type(store.driver).__name__.startswith(f"{prefix}Memory"), attribute
        assert repr(store).startswith(f"{prefix}{service}(driver={prefix}Memory"), repr(store)


def test_no_backend_class_exists_only_to_build_its_service() -> None:
    """A subclass of a service in a backend adds something (its extras), or it is a factory."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.glob("_async/*/*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            bases = [ast.unparse(base).split("[")[0] for base in getattr(node, "bases", [])]
            if isinstance(node, ast.ClassDef) and any(base.removeprefix("Async") in SERVICES for base in bases):
                members = {item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
                found[node.name] = members - {"__init__"}
    assert found == EXTRAS


def _public_modules() -> list[str]:
    names = [f"aimon_mongo.{package}" for package in PUBLIC]
    for top in ("aimon_mongo._async", "aimon_mongo._sync", *names):
        module = importlib.import_module(top)
        if hasattr(module, "__path__"):
            names += [info.name for info in pkgutil.walk_packages(module.__path__, f"{top}.")]
    return sorted(set(names))


def test_every_public_class_names_the_package_users_import_it_from() -> None:
    for package in PUBLIC:
        module = importlib.import_module(f"aimon_mongo.{package}")
        for name in module.__all__:
            value = getattr(module, name)
            is_class_like = inspect.isclass(value) or (inspect.isfunction(value) and name[:1].isupper())
            if not is_class_like or not value.__module__.startswith("aimon_mongo") or value.__name__ != name:
                continue
            private = [part for part in value.__module__.split(".") if part.startswith("_")]
            assert not private, f"{module.__name__}.{name} says {value.__module__}"


def test_every_name_marked_public_is_importable_from_that_package() -> None:
    marked = 0
    for name in _public_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            home = getattr(value, "__module__", None)
            if not (inspect.isclass(value) or inspect.isfunction(value)) or home == name:
                continue
            if home in {f"aimon_mongo.{package}" for package in PUBLIC} and value.__qualname__ == value.__name__:
                assert getattr(importlib.import_module(home), value.__name__, None) is value, (
                    f"{name}.{value.__name__} claims {home}, which exports another object under that name"
                )
                marked += 1
    assert marked >= 100  # both flavours of the bundles, stores, services, VFS, snapshot stores, savers, ports

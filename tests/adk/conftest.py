"""Fixtures of the ADK service tests: a URL (and its options) per store family; two services opened from
one of them stand for two nodes sharing the store (``memory://<name>`` URLs share one store per process)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from aimon_mongo.adk import AimonArtifactService, AimonSessionService
from tests.fixtures.redis import delete_namespace


def with_database(uri: str, database: str) -> str:
    """``uri`` with ``database`` as its path (the query kept)."""
    parts = urlsplit(uri)
    return urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, ""))


class Opened:
    """Where one test's services live: ``url`` and the ``options`` every service from it takes."""

    def __init__(self, kind: str, url: str, options: dict[str, Any]) -> None:
        self.kind = kind
        self.url = url
        self.options = options


def session_store_of(kind: str, request: pytest.FixtureRequest) -> Opened:
    """The test's session store of family ``kind`` (its own database, key prefix or schema)."""
    if kind == "memory":
        return Opened(kind, f"memory://sessions-{uuid.uuid4().hex}", {})
    if kind == "mongo":
        uri = request.getfixturevalue("mongo_uri")
        database = request.getfixturevalue("mongo_db_name")
        return Opened(kind, with_database(uri, database), {"ensure_schema": True})
    if kind == "redis":
        prefixes = request.getfixturevalue("redis_prefixes")
        as_json = {role: getattr(prefixes, role) for role in prefixes.roles()}
        return Opened(kind, request.getfixturevalue("redis_url"), {"key_prefixes": as_json})
    dsn = request.getfixturevalue("postgres_dsn")
    return Opened(kind, dsn, {"schema": request.getfixturevalue("pg_schema")})


@pytest.fixture(params=["memory", "mongo", "redis", "postgres"])
def session_store(request: pytest.FixtureRequest) -> Iterator[Opened]:
    opened = session_store_of(str(request.param), request)
    yield opened
    if opened.kind == "redis":  # the service moved every prefix under "adk:"
        delete_namespace(opened.url, f"adk:{request.getfixturevalue('redis_root')}")


@pytest.fixture
async def open_sessions(session_store: Opened) -> AsyncIterator[Callable[..., AimonSessionService]]:
    """Opens session services on the test's store (each one a node); closes them after the test."""
    opened: list[AimonSessionService] = []

    def make(**options: Any) -> AimonSessionService:
        service = AimonSessionService.from_url(session_store.url, **{**session_store.options, **options})
        opened.append(service)
        return service

    yield make
    for service in opened:
        await service.close()


@pytest.fixture(params=["memory", "mongo", "file"])
def artifact_store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Opened]:
    kind = str(request.param)
    if kind == "memory":
        yield Opened(kind, f"memory://artifacts-{uuid.uuid4().hex}", {})
    elif kind == "mongo":
        uri = request.getfixturevalue("mongo_uri")
        yield Opened(kind, with_database(uri, request.getfixturevalue("mongo_db_name")), {})
    else:
        yield Opened(kind, f"file://{tmp_path}/artifacts", {})


@pytest.fixture
async def open_artifacts(artifact_store: Opened) -> AsyncIterator[Callable[..., AimonArtifactService]]:
    opened: list[AimonArtifactService] = []

    def make(**options: Any) -> AimonArtifactService:
        service = AimonArtifactService.from_url(artifact_store.url, **{**artifact_store.options, **options})
        opened.append(service)
        return service

    yield make
    for service in opened:
        await service.close()

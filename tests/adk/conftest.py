"""Fixtures of the ADK service tests: a URL (and its options) per store family; two services opened from
one of them stand for two nodes sharing the store (``memory://<name>`` URLs share one store per process)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from aimon_mongo.adk import AimonArtifactService, AimonSessionService


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


@pytest.fixture(params=["memory", "mongo", "redis", "postgres"])
def session_store(request: pytest.FixtureRequest) -> Iterator[Opened]:
    kind = str(request.param)
    if kind == "memory":
        yield Opened(kind, f"memory://sessions-{uuid.uuid4().hex}", {})
    elif kind == "mongo":
        uri = request.getfixturevalue("mongo_uri")
        database = request.getfixturevalue("mongo_db_name")
        yield Opened(kind, with_database(uri, database), {"ensure_schema": True})
    elif kind == "redis":
        url = request.getfixturevalue("redis_url")
        yield Opened(kind, url, {"key_prefixes": request.getfixturevalue("redis_prefixes")})
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        yield Opened(kind, dsn, {"schema": request.getfixturevalue("pg_schema")})


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

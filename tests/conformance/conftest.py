"""The conformance suite: every test here runs against every registered backend, sync and async.

Tests receive ``cluster`` (shared storage; ``await cluster.node("node-a")`` gives a bundle whose stores
are awaited the same way for both flavours) or ``node`` (a ready bundle for ``node-a``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.conformance.backends import load_all
from tests.router_check import router_check

__all__ = ["router_check"]

_FAMILIES = load_all()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cluster" in metafunc.fixturenames:
        metafunc.parametrize(
            "cluster",
            [pytest.param(family, id=name, marks=family.marks) for name, family in sorted(_FAMILIES.items())],
            indirect=True,
        )


@pytest.fixture
async def cluster(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    # Sync bundles run in worker threads (AsyncFacade): give the loop enough of them for the concurrency
    # tests (8 collectors, 4 lease contenders) instead of the default min(32, cpus + 4).
    executor = ThreadPoolExecutor(max_workers=32, thread_name_prefix="conformance")
    asyncio.get_running_loop().set_default_executor(executor)
    family = request.param
    async with family.factory(request) as built:
        yield built


@pytest.fixture
async def node(cluster: Any) -> Any:
    return await cluster.node("node-a")

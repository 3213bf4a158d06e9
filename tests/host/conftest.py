"""The session host's tests run on the async backend families of the conformance suite (``cluster``: shared
storage, ``await cluster.node("node-a")`` a bundle per node), the memory family always; the host is written
once over the port Protocols, so what it guarantees on one family it guarantees on every family whose inbox
passes the claim conformance tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tests.conformance.backends import load_all

HOST_FAMILIES = (
    "memory-async",
    "mongo-async",
    "redis-async",
    "redis-cluster-async",
    "postgres-async",
    "postgres-pgbouncer-async",
)
"""The families the host tests run on (one of each store; sync bundles are the blocking entry's business)."""

_FAMILIES = load_all()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cluster" in metafunc.fixturenames:
        only = getattr(metafunc.function, "host_families", HOST_FAMILIES)
        metafunc.parametrize(
            "cluster",
            [pytest.param(_FAMILIES[name], id=name, marks=_FAMILIES[name].marks) for name in only],
            indirect=True,
        )


def families(*names: str) -> Callable[[Any], Any]:
    """Run the decorated test on these families only (what it needs is, e.g., the memory clock)."""

    def mark(function: Any) -> Any:
        function.host_families = names
        return function

    return mark


@pytest.fixture
async def cluster(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    family = request.param
    async with family.factory(request) as built:
        yield built


async def eventually(predicate: Callable[[], bool], what: str, deadline: float = 30.0) -> None:
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``deadline`` seconds (a deadline, not a
    timing assertion)."""
    end = time.monotonic() + deadline
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline:g} s: {what}")
        await asyncio.sleep(0.02)

"""Driver-level tests: the atomicity of each backend's primitives (the services' contract with their
drivers), on every backend family the conformance suite runs (``cluster`` / ``node`` as there).

A test reaches a store's driver with :func:`driver_of` — ``driver_of(node.inbox)`` — which works for both
flavours: a sync store comes wrapped in the conformance suite's :class:`AsyncFacade`, and its driver is
wrapped the same way, so every call is awaited.
"""

from __future__ import annotations

from typing import Any

from tests.conformance.backends import AsyncFacade
from tests.conformance.conftest import cluster, node, pytest_generate_tests, router_check

__all__ = ["cluster", "driver_of", "node", "pytest_generate_tests", "router_check"]


def driver_of(store: Any) -> Any:
    """The driver under a service (``store.driver``), async-facing for both flavours."""
    if isinstance(store, AsyncFacade):
        return AsyncFacade(store.unwrapped.driver)
    return store.driver

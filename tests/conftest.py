"""Root test configuration: fixture modules live in tests/fixtures/ (one per server family)."""

import pytest

pytest_plugins = [
    "tests.fixtures.mongo",
    "tests.fixtures.postgres",
    "tests.fixtures.pgbouncer",
    "tests.fixtures.redis",
    "tests.fixtures.redis_cluster",
    "tests.reliability.plugin",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` run first, so the parallel workers of ``./dev test`` start them early instead of
    ending the run waiting on one of them (the order is otherwise the files' own)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)

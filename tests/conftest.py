"""Root test configuration: fixture modules live in tests/fixtures/ (one per server family)."""

pytest_plugins = [
    "tests.fixtures.mongo",
    "tests.fixtures.postgres",
    "tests.fixtures.pgbouncer",
    "tests.fixtures.redis",
    "tests.fixtures.redis_cluster",
    "tests.reliability.plugin",
]

"""Conformance families ``redis-cluster-sync`` and ``redis-cluster-async``: a real 3-primary Redis Cluster.

The cluster (``redis_cluster_nodes``, three private ``redis-server --cluster-enabled yes`` on loopback
ports) is started once per test session and torn down after it. Bundles use the opt-in cluster key layout
(``cluster_layout=True``) over ``RedisCluster`` clients (``redis.cluster`` / ``redis.asyncio.cluster``),
one per bundle, closed with the bundle's cluster; each test gets its own key namespace, deleted on every
primary afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio.cluster
import redis.cluster
from redis.backoff import NoBackoff
from redis.retry import Retry

from aimon_mongo.clock import Clock
from aimon_mongo.redis import AsyncRedisSessionBackends, RedisKeys, RedisSessionBackends
from tests.conformance.backends import register
from tests.conformance.backends.redis import RedisCluster
from tests.fixtures.redis import new_root
from tests.fixtures.redis_cluster import delete_cluster_namespace


class ShardedRedisCluster(RedisCluster):
    """The Redis family's test cluster on a real Redis Cluster, in the cluster key layout."""

    def __init__(self, ports: list[int], root: str, *, is_async: bool) -> None:
        super().__init__(f"redis://127.0.0.1:{ports[0]}/0", root, is_async=is_async)
        self.ports = ports
        self.keys = RedisKeys(self.prefixes, cluster=True)
        self._clients: list[Any] = []

    def raw_client(self) -> Any:
        return redis.cluster.RedisCluster(host="127.0.0.1", port=self.ports[0])

    async def build(self, node_id: str, clock: Clock | None) -> Any:
        client: Any
        no_retry = Retry(NoBackoff(), 0)
        if self.is_async:
            client = redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=self.ports[0], retry=no_retry)
            self._clients.append(client)
            return AsyncRedisSessionBackends(client, node_id, self.prefixes, clock, cluster_layout=True)
        client = redis.cluster.RedisCluster(host="127.0.0.1", port=self.ports[0], retry=no_retry)
        self._clients.append(client)
        return RedisSessionBackends(client, node_id, self.prefixes, clock, cluster_layout=True)

    async def close_clients(self) -> None:
        for client in self._clients:
            if self.is_async:
                await client.aclose()
            else:
                client.close()
        self._clients.clear()


def _factory(is_async: bool) -> Any:
    @contextlib.asynccontextmanager
    async def factory(request: pytest.FixtureRequest) -> AsyncIterator[ShardedRedisCluster]:
        nodes = request.getfixturevalue("redis_cluster_nodes")
        cluster = ShardedRedisCluster(nodes.ports, new_root(), is_async=is_async)
        try:
            yield cluster
        finally:
            try:
                await cluster.close_all()
                await cluster.close_clients()
            finally:
                delete_cluster_namespace(nodes.ports, cluster.root)

    return factory


register("redis-cluster-sync", _factory(False))
register("redis-cluster-async", _factory(True))

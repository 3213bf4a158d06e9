"""The bundle: one node's seven stores, usable as a context manager that closes what it started."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from aimon_mongo.errors import SignalBusError
from tests.conformance.helpers import new_id, signal


async def test_a_bundle_closes_when_its_block_ends(cluster: Any) -> None:
    node = await cluster.node("node-ctx")
    session = new_id()
    async with node as same:
        lease = await same.leases.try_acquire(session, "node-ctx", timedelta(seconds=30))
        assert lease is not None and lease.fencing_token >= 1
        await same.signals.publish(signal(session, "node-ctx", n=1))
    with pytest.raises(SignalBusError):
        await node.signals.publish(signal(session, "node-ctx", n=2))
    other = await cluster.node("node-other")
    held = await other.leases.find_holder(session)
    assert held is not None and held.holder_id == "node-ctx"  # closing a bundle does not release its leases

"""Running the batched sweeps of :mod:`aimon_mongo.postgres.retention` (one transaction per batch)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aimon_mongo._async.postgres.pool import AsyncPgPool
from aimon_mongo.errors import AimonStorageError
from aimon_mongo.validate import require_limit


async def sweep_in_batches(
    pool: AsyncPgPool,
    family: type[AimonStorageError],
    statement: str,
    params: Mapping[str, Any],
    batch_size: int,
) -> int:
    """Run ``statement`` (a ``DELETE`` of at most ``%(batch)s`` rows) until a batch deletes fewer than
    ``batch_size`` rows; returns how many it deleted in all."""
    require_limit(batch_size, "batch_size")
    total = 0
    while True:
        async with pool.connection(family) as conn:
            cur = await conn.execute(statement, {**params, "batch": batch_size})
            deleted = max(cur.rowcount, 0)
        total += deleted
        if deleted < batch_size:
            return total

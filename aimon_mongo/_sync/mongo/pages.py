# GENERATED from aimon_mongo/_async/mongo/pages.py by scripts/gen_sync.py; do not edit.
"""Reading a whole collection range in bounded pages (generated from the ``_async`` source).

The operator reads that must visit every shard of a sharded cluster (``list_session_ids``, the task
list) send one bounded ``find`` per page, keyed on ``_id`` (``_id > last`` sorted by ``_id``), instead of
one unbounded cursor: each command returns at most :data:`SCAN_PAGE` documents, and a page costs one
round trip per shard.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo.synchronous.collection import Collection

from aimon_mongo import names as n

SCAN_PAGE = 1000
"""Documents per page of an operator scan."""


def read_in_pages(
    collection: Collection[dict[str, Any]],
    query: Mapping[str, Any],
    projection: Mapping[str, Any] | None = None,
    page: int = SCAN_PAGE,
) -> list[dict[str, Any]]:
    """Every document matching ``query`` in ``_id`` order, read ``page`` documents per command."""
    found: list[dict[str, Any]] = []
    after: Any = None
    while True:
        bounded = dict(query) if after is None else {"$and": [dict(query), {n.F_ID: {"$gt": after}}]}
        docs = collection.find(bounded, projection=projection).sort(n.F_ID, 1).limit(page).to_list(page)
        found.extend(docs)
        if len(docs) < page:
            return found
        after = docs[-1][n.F_ID]

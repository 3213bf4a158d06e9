# GENERATED from aimon_mongo/mongo/_async/fences.py by scripts/gen_sync.py; do not edit.
"""The per-session fence of fenced writes (generated from the ``_async`` source): ``session_fences``.

One document per session, ``{_id: sessionId, highestToken}``, is the single source of truth of the highest
fencing token accepted for the session's records and log segments. :func:`advance_fence` is one
conditional upsert: it matches only while ``highestToken <= token`` and raises the field to ``token``;
when a higher token is stored the filter misses, the upsert turns into an insert of an existing ``_id`` and
fails with a duplicate key: the token is stale.
"""

from __future__ import annotations

from typing import Any

from bson.int64 import Int64
from pymongo.synchronous.collection import Collection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo.services.fencing import Stale


def advance_fence(fences: Collection[dict[str, Any]], session_id: str, token: int) -> Stale | None:
    """Accept ``token`` for ``session_id`` (atomic), or :class:`Stale` naming the higher token stored."""
    try:
        fences.update_one(
            {n.F_ID: session_id, n.F_HIGHEST_TOKEN: {"$lte": Int64(token)}},  # Int64 as stored (see not_above)
            {"$set": {n.F_HIGHEST_TOKEN: Int64(token)}},
            upsert=True,
        )
    except DuplicateKeyError:
        return Stale(highest_token(fences, session_id))
    return None


def highest_token(fences: Collection[dict[str, Any]], session_id: str) -> int | None:
    """The highest token accepted for the session so far (``None``: no fenced write yet)."""
    doc = fences.find_one({n.F_ID: session_id})
    return None if doc is None else int(doc[n.F_HIGHEST_TOKEN])

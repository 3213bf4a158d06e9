"""The per-session fence of fenced writes (async source; the sync twin is generated): ``session_fences``.

One document per session, ``{_id: sessionId, highestToken}``, is the single source of truth of the highest
fencing token accepted for the session's records and log segments. :func:`advance_fence` is one
conditional upsert: it matches only while ``highestToken <= token`` and raises the field to ``token``;
when a higher token is stored the filter misses, the upsert turns into an insert of an existing ``_id`` and
fails with a duplicate key: the token is stale.
"""

from __future__ import annotations

from typing import Any

from bson.int64 import Int64
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo.services.fencing import Stale


async def advance_fence(fences: AsyncCollection[dict[str, Any]], session_id: str, token: int) -> Stale | None:
    """Accept ``token`` for ``session_id`` (atomic), or :class:`Stale` naming the higher token stored."""
    try:
        await fences.update_one(
            {n.F_ID: session_id, n.F_HIGHEST_TOKEN: {"$lte": Int64(token)}},  # Int64 as stored (see not_above)
            {"$set": {n.F_HIGHEST_TOKEN: Int64(token)}},
            upsert=True,
        )
    except DuplicateKeyError:
        return Stale(await highest_token(fences, session_id))
    return None


async def highest_token(fences: AsyncCollection[dict[str, Any]], session_id: str) -> int | None:
    """The highest token accepted for the session so far (``None``: no fenced write yet)."""
    doc = await fences.find_one({n.F_ID: session_id})
    return None if doc is None else int(doc[n.F_HIGHEST_TOKEN])

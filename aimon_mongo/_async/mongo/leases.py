"""MongoDB lease store (async source; the sync twin is generated): ``conversation_locks``.

Every decision uses the server's clock (``$$NOW``), the cold-start insert included:

1. *steal*: ``find_one_and_update`` on ``{_id, $or: [$expr: leaseExpiresAt <= $$NOW, holderId: <the same
   holder>]}`` (a holder re-acquiring its own live lease gets a new token) with a pipeline that sets
   the holder (as a ``$literal``), the token ``max(token + 1, $$NOW ms x 1024)`` and the server-time expiry;
2. otherwise *cold start*: an upsert whose filter can only match a document that has no token yet
   (``fencingToken: {$exists: false}``), so on an existing lock it turns into an insert that fails with a
   duplicate key: the lease is held (or someone won the race) and the answer is ``None``;
3. a grant raises the session's write fence (``session_fences``, :func:`~aimon_mongo._async.mongo.fences.raise_fence`,
   ``$max``) to the token before the token is returned, so no fenced write with a lower token passes once
   it is handed out. One more round trip per grant (steal: 2, cold start: 3; a refusal: 2 as before):
   the lock and the fence are documents of two collections, and a transaction would cost its commit too.
   A lease store alone (no ``fences``, e.g. the LangGraph saver's, whose fence is the thread document)
   raises none.

Release expires the document in place and never deletes it, so the token counter survives. The clock floor
of the token (as Redis's) keeps a promoted member that lost the last acquisitions (``w:1``, a rollback) from
handing a token out twice; majority write concern is the second line (docs/guarantees.md, "Failover").
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bson.int64 import Int64
from pymongo import ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo._async.mongo.fences import raise_fence
from aimon_mongo._async.services.leases import AsyncLeaseStore
from aimon_mongo.exported import exported_from
from aimon_mongo.model import Lease
from aimon_mongo.mongo.documents import NOW, alive, expired, lease_claim, lease_from_document, now_plus
from aimon_mongo.mongo.failures import failures
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.leases import Granted, Held


@exported_from("aimon_mongo.mongo")
class AsyncMongoLeaseDriver:
    """The lease primitives on ``conversation_locks`` (see the module text)."""

    failures: Failures = failures
    resurrects_lapsed = True
    """``extend`` is a token CAS: a lapsed lease nobody took over is revived."""
    holder_id_forbidden_chars = ""

    def __init__(
        self, collection: AsyncCollection[dict[str, Any]], fences: AsyncCollection[dict[str, Any]] | None = None
    ) -> None:
        self._locks = collection
        self._fences = fences

    def __repr__(self) -> str:
        return located(self, self._locks.full_name)

    async def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        doc = await self._locks.find_one_and_update(
            {n.F_ID: session_id, "$or": [{"$expr": expired(n.F_LEASE_EXPIRES_AT)}, {n.F_HOLDER_ID: holder_id}]},
            lease_claim(holder_id, ttl, first=False),
            return_document=ReturnDocument.AFTER,
        )
        taken_over = doc is not None
        if doc is None:
            try:
                doc = await self._locks.find_one_and_update(
                    {n.F_ID: session_id, n.F_FENCING_TOKEN: {"$exists": False}},
                    lease_claim(holder_id, ttl, first=True),
                    upsert=True,
                    return_document=ReturnDocument.AFTER,
                )
            except DuplicateKeyError:
                return None
        if doc is None:
            return None
        held = lease_from_document(doc)
        if self._fences is not None:
            await raise_fence(self._fences, session_id, held.fencing_token)
        return Granted(held.fencing_token, held.expires_at, taken_over=taken_over)

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        result = await self._locks.update_one(_matching(lease), [{"$set": {n.F_LEASE_EXPIRES_AT: now_plus(ttl)}}])
        return result.matched_count == 1

    async def release(self, lease: Lease) -> None:
        await self._locks.update_one(_matching(lease), [{"$set": {n.F_HOLDER_ID: None, n.F_LEASE_EXPIRES_AT: NOW}}])

    async def find(self, session_id: str) -> Held | None:
        doc = await self._locks.find_one(
            {n.F_ID: session_id, n.F_HOLDER_ID: {"$ne": None}, "$expr": alive(n.F_LEASE_EXPIRES_AT)}
        )
        return None if doc is None else lease_from_document(doc)


@exported_from("aimon_mongo.mongo")
def AsyncMongoSessionLeaseStore(
    collection: AsyncCollection[dict[str, Any]], fences: AsyncCollection[dict[str, Any]] | None = None
) -> AsyncLeaseStore:
    """Holder election with fencing tokens on ``conversation_locks`` (the lease service over
    :class:`AsyncMongoLeaseDriver`); ``fences``: the ``session_fences`` collection of the records and
    segments, whose fence every grant raises to its token.

    A factory: the :class:`~aimon_mongo.services.AsyncLeaseStore` service over :class:`AsyncMongoLeaseDriver`."""
    return AsyncLeaseStore(AsyncMongoLeaseDriver(collection, fences))


def _matching(lease: Lease) -> dict[str, Any]:
    # The token is stored as int64: match it as int64 too, so a server that compares numbers by BSON type
    # (the mongoeco SQLite engine does) finds the lock; MongoDB compares across number types anyway.
    token = Int64(lease.fencing_token)
    return {n.F_ID: lease.session_id, n.F_HOLDER_ID: lease.holder_id, n.F_FENCING_TOKEN: token}

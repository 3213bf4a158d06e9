"""MongoDB session-record store (async source; the sync twin is generated): ``session_records``, the
record service over the driver below.

Fenced writes, two steps per write:

1. :func:`advance_fence` on ``session_fences`` (the single source of truth shared with the log segments):
   a token lower than one already accepted for the session is refused there;
2. the write itself, conditional on the record's own ``fencingToken`` (absent or ``<= token``) and setting
   it to ``token``; a newer writer's token on the record makes the filter miss (an update reports no match,
   an upsert fails with a duplicate key) and the write is refused (:class:`Stale`). Each write is one
   atomic document update, so interleaved writes to one record can never reorder.

Guarantee: once a write with token ``T`` has returned, every later write below ``T`` to any record or
segment of the session is refused. Window: a write that passed step 1 *before* ``T`` was accepted and is
delayed between the two steps can still land on a record the ``T`` writer has not written yet (never on one
it has written). The window is the time between the two calls of one write (one round trip); closing it
fully would take a multi-document transaction, which a standalone server cannot run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bson.int64 import Int64
from pymongo import ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError, PyMongoError

from aimon_mongo import names as n
from aimon_mongo._async.mongo.fences import advance_fence
from aimon_mongo._async.mongo.pages import read_in_pages
from aimon_mongo._async.services.records import AsyncRecordStore
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import SessionRecord
from aimon_mongo.mongo.documents import NOW, literal, not_above, record_from_document
from aimon_mongo.mongo.failures import failures
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale
from aimon_mongo.stored.session_record import SessionTotalsJson

_STAMP = {"$currentDate": {n.F_UPDATED_AT: True}}


@exported_from("aimon_mongo.mongo")
class AsyncMongoRecordDriver:
    """The record primitives: the fence step, then one conditional document update (module text)."""

    def __init__(self, records: AsyncCollection[dict[str, Any]], fences: AsyncCollection[dict[str, Any]]) -> None:
        self._records = records
        self._fences = fences
        self.failures: Failures = failures

    def __repr__(self) -> str:
        return located(self, self._records.full_name, self._fences.full_name)

    async def merge_transcript(self, session_id: str, transcript: str, token: int) -> Stale | None:
        if stale := await advance_fence(self._fences, session_id, token):
            return stale
        try:
            await self._records.update_one(
                {n.F_ID: session_id, **not_above(token)},
                {"$set": {n.F_TRANSCRIPT: transcript, n.F_FENCING_TOKEN: Int64(token)}, **_STAMP},
                upsert=True,
            )
        except DuplicateKeyError:
            return await self._newer(session_id) or Stale(None)
        return None

    async def provision(self, session_id: str, agent_ref: str | None, token: int) -> dict[str, Any] | Stale:
        update: dict[str, Any] = {n.F_FENCING_TOKEN: literal(Int64(token)), n.F_UPDATED_AT: NOW}
        if agent_ref is not None:  # an existing binding wins; no binding stays absent (never null)
            update[n.F_AGENT_REF] = {"$ifNull": ["$" + n.F_AGENT_REF, literal(agent_ref)]}
        if stale := await advance_fence(self._fences, session_id, token):
            return stale
        try:
            doc = await self._records.find_one_and_update(
                {n.F_ID: session_id, **not_above(token)},
                [{"$set": update}],
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )
        except DuplicateKeyError:
            return await self._newer(session_id) or Stale(None)
        if doc is None:  # an upsert with return_document=AFTER always returns the document
            raise PyMongoError("the provisioning upsert returned no document")
        return doc

    async def set_totals(
        self, session_id: str, totals: SessionTotalsJson, override: dict[str, Any] | None, token: int
    ) -> Stale | None:
        update: dict[str, Any] = {"$set": {n.F_SESSION_TOTALS: totals, n.F_FENCING_TOKEN: Int64(token)}, **_STAMP}
        if override is None:
            update["$unset"] = {n.F_BUDGET_OVERRIDE: ""}
        else:
            update["$set"][n.F_BUDGET_OVERRIDE] = override
        return await self._update_existing(session_id, token, update)

    async def increment_failures(self, session_id: str, token: int) -> int | Stale:
        if stale := await advance_fence(self._fences, session_id, token):
            return stale
        doc = await self._records.find_one_and_update(
            {n.F_ID: session_id, **not_above(token)},
            {"$inc": {n.F_COMPACTION_FAILURE_COUNT: 1}, "$set": {n.F_FENCING_TOKEN: Int64(token)}, **_STAMP},
            return_document=ReturnDocument.AFTER,
        )
        if doc is None:
            return await self._newer(session_id) or 0
        return int(doc[n.F_COMPACTION_FAILURE_COUNT])

    async def reset_failures(self, session_id: str, token: int) -> Stale | None:
        update = {"$set": {n.F_COMPACTION_FAILURE_COUNT: 0, n.F_FENCING_TOKEN: Int64(token)}, **_STAMP}
        return await self._update_existing(session_id, token, update)

    async def delete(self, session_id: str, token: int) -> Stale | None:
        if stale := await advance_fence(self._fences, session_id, token):
            return stale
        result = await self._records.delete_one({n.F_ID: session_id, **not_above(token)})
        return None if result.deleted_count else await self._newer(session_id)

    async def load(self, session_id: str) -> dict[str, Any] | None:
        return await self._records.find_one({n.F_ID: session_id})

    async def load_many(self, session_ids: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
        # $in on the shard key: a sharded cluster asks only the shards that own these ids; bounded by their count,
        # all in the first reply (the default first batch is 101 documents, then a getMore)
        ids = list(session_ids)
        docs = await self._records.find({n.F_ID: {"$in": ids}}, limit=len(ids), batch_size=len(ids)).to_list(None)
        return [(str(doc[n.F_ID]), doc) for doc in docs]

    def decode(self, raw: dict[str, Any], session_id: str) -> SessionRecord:
        return record_from_document(raw)

    async def exists(self, session_id: str) -> bool:
        return await self._records.find_one({n.F_ID: session_id}, projection={n.F_ID: 1}) is not None

    async def list_session_ids(self) -> list[str]:
        return [str(doc[n.F_ID]) for doc in await read_in_pages(self._records, {}, projection={n.F_ID: 1})]

    async def _update_existing(self, session_id: str, token: int, update: dict[str, Any]) -> Stale | None:
        """A fenced update of an existing record; no-op when there is none."""
        if stale := await advance_fence(self._fences, session_id, token):
            return stale
        result = await self._records.update_one({n.F_ID: session_id, **not_above(token)}, update)
        return None if result.matched_count else await self._newer(session_id)

    async def _newer(self, session_id: str) -> Stale | None:
        """After a fenced write missed the record: :class:`Stale` naming the record's token when it exists
        (a newer writer's token is on it), ``None`` when there is no record."""
        doc = await self._records.find_one({n.F_ID: session_id}, projection={n.F_FENCING_TOKEN: 1})
        if doc is None:
            return None
        return Stale(None if doc.get(n.F_FENCING_TOKEN) is None else int(doc[n.F_FENCING_TOKEN]))


@exported_from("aimon_mongo.mongo")
def AsyncMongoSessionRecordStore(
    records: AsyncCollection[dict[str, Any]], fences: AsyncCollection[dict[str, Any]]
) -> AsyncRecordStore[dict[str, Any]]:
    """Session records in ``session_records``, fenced by ``session_fences`` (see the module text).

    A factory: the :class:`~aimon_mongo.services.AsyncRecordStore` service over :class:`AsyncMongoRecordDriver`."""
    return AsyncRecordStore(AsyncMongoRecordDriver(records, fences))

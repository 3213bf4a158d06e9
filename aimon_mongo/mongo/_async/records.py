"""MongoDB session-record store (async source; the sync twin is generated): ``session_records``.

Fenced writes, two steps per write:

1. :func:`advance_fence` on ``session_fences`` (the single source of truth shared with the log segments):
   a token lower than one already accepted for the session is refused there;
2. the write itself, conditional on the record's own ``fencingToken`` (absent or ``<= token``) and setting
   it to ``token``; a newer writer's token on the record makes the filter miss (an update reports no match,
   an upsert fails with a duplicate key) and the write is refused. Each write is one atomic document
   update, so interleaved writes to one record can never reorder.

Guarantee: once a write with token ``T`` has returned, every later write below ``T`` to any record or
segment of the session is refused. Window: a write that passed step 1 *before* ``T`` was accepted and is
delayed between the two steps can still land on a record the ``T`` writer has not written yet (never on one
it has written). The window is the time between the two calls of one write (one round trip); closing it
fully would take a multi-document transaction, which a standalone server cannot run.
"""

from __future__ import annotations

from typing import Any

from bson.int64 import Int64
from pymongo import ReturnDocument
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo.codec.totals import encode_totals
from aimon_mongo.errors import SessionRecordStoreError, StaleFencingTokenError
from aimon_mongo.model.record import SessionRecord, SessionTotals
from aimon_mongo.mongo._async.fences import advance_fence
from aimon_mongo.mongo._async.pages import read_in_pages
from aimon_mongo.mongo.documents import NOW, literal, not_above, record_from_document
from aimon_mongo.mongo.failures import failures
from aimon_mongo.validate import optional_budget_override, optional_id, require_id, require_instance, require_token

_STAMP = {"$currentDate": {n.F_UPDATED_AT: True}}


class AsyncMongoSessionRecordStore:
    def __init__(self, records: AsyncCollection[dict[str, Any]], fences: AsyncCollection[dict[str, Any]]) -> None:
        self._records = records
        self._fences = fences

    async def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        require_instance(transcript, str, "transcript")
        token = require_token(fencing_token)
        with failures(SessionRecordStoreError, f"merge_transcript of session {session_id!r}"):
            await advance_fence(self._fences, session_id, token)
            try:
                await self._records.update_one(
                    {n.F_ID: session_id, **not_above(token)},
                    {"$set": {n.F_TRANSCRIPT: transcript, n.F_FENCING_TOKEN: Int64(token)}, **_STAMP},
                    upsert=True,
                )
            except DuplicateKeyError:
                raise await self._stale(session_id, token) from None

    async def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        require_id(session_id, "session_id")
        optional_id(agent_ref, "agent_ref")
        token = require_token(fencing_token)
        update: dict[str, Any] = {n.F_FENCING_TOKEN: literal(Int64(token)), n.F_UPDATED_AT: NOW}
        if agent_ref is not None:  # an existing binding wins; no binding stays absent (never null)
            update[n.F_AGENT_REF] = {"$ifNull": ["$" + n.F_AGENT_REF, literal(agent_ref)]}
        with failures(SessionRecordStoreError, f"provision of session {session_id!r}"):
            await advance_fence(self._fences, session_id, token)
            try:
                doc = await self._records.find_one_and_update(
                    {n.F_ID: session_id, **not_above(token)},
                    [{"$set": update}],
                    upsert=True,
                    return_document=ReturnDocument.AFTER,
                )
            except DuplicateKeyError:
                raise await self._stale(session_id, token) from None
        if doc is None:  # an upsert with return_document=AFTER always returns the document
            raise SessionRecordStoreError(f"provision of session {session_id!r} returned no document")
        return record_from_document(doc)

    async def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, Any] | None,
        fencing_token: int,
    ) -> None:
        require_id(session_id, "session_id")
        require_instance(totals, SessionTotals, "totals")
        budget_override = optional_budget_override(budget_override)
        token = require_token(fencing_token)
        update: dict[str, Any] = {
            "$set": {n.F_SESSION_TOTALS: encode_totals(totals), n.F_FENCING_TOKEN: Int64(token)},
            **_STAMP,
        }
        if budget_override is None:
            update["$unset"] = {n.F_BUDGET_OVERRIDE: ""}
        else:
            update["$set"][n.F_BUDGET_OVERRIDE] = budget_override
        await self._update_existing(session_id, token, update, "set_totals_and_budget_override")

    async def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with failures(SessionRecordStoreError, f"increment_compaction_failure_count of session {session_id!r}"):
            await advance_fence(self._fences, session_id, token)
            doc = await self._records.find_one_and_update(
                {n.F_ID: session_id, **not_above(token)},
                {"$inc": {n.F_COMPACTION_FAILURE_COUNT: 1}, "$set": {n.F_FENCING_TOKEN: Int64(token)}, **_STAMP},
                return_document=ReturnDocument.AFTER,
            )
            if doc is None:
                await self._refuse_if_newer(session_id, token)
                return 0
        return int(doc[n.F_COMPACTION_FAILURE_COUNT])

    async def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        token = require_token(fencing_token)
        update = {"$set": {n.F_COMPACTION_FAILURE_COUNT: 0, n.F_FENCING_TOKEN: Int64(token)}, **_STAMP}
        await self._update_existing(session_id, token, update, "reset_compaction_failure_count")

    async def load(self, session_id: str) -> SessionRecord | None:
        require_id(session_id, "session_id")
        with failures(SessionRecordStoreError, f"load of session {session_id!r}"):
            doc = await self._records.find_one({n.F_ID: session_id})
        return None if doc is None else record_from_document(doc)

    async def exists(self, session_id: str) -> bool:
        require_id(session_id, "session_id")
        with failures(SessionRecordStoreError, f"exists of session {session_id!r}"):
            doc = await self._records.find_one({n.F_ID: session_id}, projection={n.F_ID: 1})
        return doc is not None

    async def list_session_ids(self) -> list[str]:
        with failures(SessionRecordStoreError, "list of session ids"):
            docs = await read_in_pages(self._records, {}, projection={n.F_ID: 1})
        return [str(doc[n.F_ID]) for doc in docs]

    async def delete(self, session_id: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with failures(SessionRecordStoreError, f"delete of session {session_id!r}"):
            await advance_fence(self._fences, session_id, token)
            result = await self._records.delete_one({n.F_ID: session_id, **not_above(token)})
            if result.deleted_count == 0:
                await self._refuse_if_newer(session_id, token)

    async def _update_existing(self, session_id: str, token: int, update: dict[str, Any], what: str) -> None:
        """A fenced update of an existing record; no-op when there is none."""
        with failures(SessionRecordStoreError, f"{what} of session {session_id!r}"):
            await advance_fence(self._fences, session_id, token)
            result = await self._records.update_one({n.F_ID: session_id, **not_above(token)}, update)
            if result.matched_count == 0:
                await self._refuse_if_newer(session_id, token)

    async def _refuse_if_newer(self, session_id: str, token: int) -> None:
        """After a write matched nothing: raise if the record exists (a newer writer's token is on it)."""
        if await self._records.find_one({n.F_ID: session_id}, projection={n.F_ID: 1}) is not None:
            raise await self._stale(session_id, token)

    async def _stale(self, session_id: str, token: int) -> StaleFencingTokenError:
        doc = await self._records.find_one({n.F_ID: session_id}, projection={n.F_FENCING_TOKEN: 1})
        highest = None if doc is None or doc.get(n.F_FENCING_TOKEN) is None else int(doc[n.F_FENCING_TOKEN])
        return StaleFencingTokenError(session_id, token, highest)

"""MongoDB idempotency store (async source; the sync twin is generated): ``idempotency_entries``.

Expiry is on server time: ``expiresAt`` is always ``$$NOW + span`` and every operation treats an entry whose
``expiresAt`` has passed as absent (the TTL monitor may lag ~60 s; nothing waits for it). ``lastTouchedAt``
is stamped with ``$$NOW`` by every write after the first (``put_if_absent`` keeps the entry's own stamps).

Differences from the reference (on purpose, the same rule on every backend of ours):

* ``touch`` slides the entry's *own* span — the TTL it was last armed with, kept in the additive field
  ``ttlMillis`` — where the reference re-armed the 24-hour done TTL;
* a lapsed entry is absent for every operation (the reference reported it as ``EXISTING`` until the TTL
  monitor removed it);
* ``release_holder`` ``$unset``s ``holderId`` like the reference; "no holder" matches a missing or null
  ``holderId`` everywhere (the reference's ``discardReservation`` matched only the missing form).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from bson.int64 import Int64
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo.codec.idempotency import encode_result, entry_from_mongo, entry_to_mongo, ttl_millis
from aimon_mongo.errors import CodecError, IdempotencyStoreError
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, PutOutcome, PutResult, TurnResult
from aimon_mongo.mongo.documents import NOW, alive, expired, literal, now_plus
from aimon_mongo.mongo.failures import failures
from aimon_mongo.validate import require_aware, require_id, require_instance, require_limit, require_positive

log = logging.getLogger(__name__)

DEFAULT_DONE_TTL = timedelta(hours=24)
_PUT_ATTEMPTS = 2
_IN_FLIGHT = IdempotencyStatus.IN_FLIGHT.value
_LIVE = {"$expr": alive(n.F_EXPIRES_AT)}


def _armed(ttl: timedelta) -> dict[str, Any]:
    """``$set`` fields that stamp a write and arm ``ttl``."""
    return {n.F_LAST_TOUCHED_AT: NOW, n.F_EXPIRES_AT: now_plus(ttl), n.IDEM_TTL_MILLIS: literal(Int64(ttl_millis(ttl)))}


class AsyncMongoIdempotencyStore:
    def __init__(self, collection: AsyncCollection[dict[str, Any]], done_ttl: timedelta = DEFAULT_DONE_TTL) -> None:
        self._entries = collection
        self._done_ttl = require_positive(done_ttl, "done_ttl")

    async def put_if_absent(self, entry: IdempotencyEntry, ttl: timedelta) -> PutResult:
        require_instance(entry, IdempotencyEntry, "entry")
        require_positive(ttl, "ttl")
        fields = {key: literal(value) for key, value in entry_to_mongo(entry).items() if key != n.F_ID}
        fields.update({n.F_EXPIRES_AT: now_plus(ttl), n.IDEM_TTL_MILLIS: literal(Int64(ttl_millis(ttl)))})
        with failures(IdempotencyStoreError, f"put_if_absent of key {entry.key!r}"):
            for _ in range(_PUT_ATTEMPTS):
                try:  # an upsert that can only insert (every entry has a status)
                    await self._entries.update_one(
                        {n.F_ID: entry.key, n.F_STATUS: {"$exists": False}}, [{"$set": fields}], upsert=True
                    )
                    return PutResult(outcome=PutOutcome.INSERTED)
                except DuplicateKeyError:
                    pass
                taken = await self._entries.find_one_and_update(
                    {n.F_ID: entry.key, "$expr": expired(n.F_EXPIRES_AT)}, [{"$set": fields}]
                )
                if taken is not None:  # the stored entry had lapsed: this one replaces it
                    return PutResult(outcome=PutOutcome.INSERTED)
                existing = await self._entries.find_one({n.F_ID: entry.key})
                if existing is not None:
                    return PutResult(outcome=PutOutcome.EXISTING, existing=entry_from_mongo(existing))
        raise IdempotencyStoreError(f"put_if_absent of key {entry.key!r} kept racing with expiry; try again")

    async def mark_done(self, key: str, result: TurnResult) -> None:
        require_id(key, "key")
        require_instance(result, TurnResult, "result")
        update = {
            n.F_STATUS: IdempotencyStatus.DONE.value,
            n.F_RESULT: literal(encode_result(result)),
            n.F_HOLDER_ID: None,
            **_armed(self._done_ttl),
        }
        with failures(IdempotencyStoreError, f"mark_done of key {key!r}"):
            done = await self._entries.update_one({n.F_ID: key, **_LIVE}, [{"$set": update}])
        if done.matched_count == 0:
            log.warning("mark_done: no live idempotency entry %r", key)

    async def touch(self, key: str, holder_id: str) -> bool:
        require_id(key, "key")
        require_id(holder_id, "holder_id")
        span = {"$ifNull": ["$" + n.IDEM_TTL_MILLIS, {"$subtract": ["$" + n.F_EXPIRES_AT, "$" + n.F_LAST_TOUCHED_AT]}]}
        update = {n.F_LAST_TOUCHED_AT: NOW, n.F_EXPIRES_AT: {"$add": [NOW, span]}}
        return await self._update(key, holder_id, [{"$set": update}], "touch")

    async def release_holder(self, key: str, expected_holder: str, ttl: timedelta) -> bool:
        require_id(key, "key")
        require_id(expected_holder, "expected_holder")
        require_positive(ttl, "ttl")
        return await self._update(key, expected_holder, [{"$set": _armed(ttl)}, {"$unset": n.F_HOLDER_ID}], "release")

    async def acquire_holder(self, key: str, holder_id: str, ttl: timedelta) -> bool:
        require_id(key, "key")
        require_id(holder_id, "holder_id")
        require_positive(ttl, "ttl")
        update = {n.F_HOLDER_ID: literal(holder_id), **_armed(ttl)}
        return await self._update(key, None, [{"$set": update}], "acquire")

    async def discard_reservation(self, key: str) -> bool:
        require_id(key, "key")
        return await self._delete(key, None, "discard_reservation")

    async def compare_and_reset(self, key: str, expected_holder: str) -> bool:
        require_id(key, "key")
        require_id(expected_holder, "expected_holder")
        return await self._delete(key, expected_holder, "compare_and_reset")

    async def find_stale_in_flight(self, cutoff: datetime, limit: int = 256) -> list[IdempotencyEntry]:
        cutoff = require_aware(cutoff, "cutoff")
        require_limit(limit)
        query = {
            n.F_STATUS: _IN_FLIGHT,
            n.F_LAST_TOUCHED_AT: {"$lt": cutoff},
            n.F_HOLDER_ID: {"$type": "string"},
            **_LIVE,
        }
        with failures(IdempotencyStoreError, "find_stale_in_flight"):
            docs = await self._entries.find(query).sort(n.F_LAST_TOUCHED_AT, 1).limit(limit).to_list(limit)
        stale: list[IdempotencyEntry] = []
        for doc in docs:
            try:
                stale.append(entry_from_mongo(doc))
            except CodecError as exc:
                log.warning("unreadable idempotency entry %r skipped: %s", doc.get(n.F_ID), exc)
        return stale

    async def find(self, key: str) -> IdempotencyEntry | None:
        require_id(key, "key")
        with failures(IdempotencyStoreError, f"find of key {key!r}"):
            doc = await self._entries.find_one({n.F_ID: key, **_LIVE})
        return None if doc is None else entry_from_mongo(doc)

    async def _update(self, key: str, holder_id: str | None, pipeline: list[dict[str, Any]], what: str) -> bool:
        with failures(IdempotencyStoreError, f"{what} of key {key!r}"):
            result = await self._entries.update_one(_in_flight(key, holder_id), pipeline)
        return result.matched_count == 1

    async def _delete(self, key: str, holder_id: str | None, what: str) -> bool:
        with failures(IdempotencyStoreError, f"{what} of key {key!r}"):
            result = await self._entries.delete_one(_in_flight(key, holder_id))
        return result.deleted_count == 1


def _in_flight(key: str, holder_id: str | None) -> dict[str, Any]:
    """A live ``IN_FLIGHT`` entry held by ``holder_id`` (``None``: no holder, missing or null)."""
    return {n.F_ID: key, n.F_STATUS: _IN_FLIGHT, n.F_HOLDER_ID: holder_id, **_LIVE}

# GENERATED from aimon_mongo/_async/mongo/idempotency.py by scripts/gen_sync.py; do not edit.
"""MongoDB idempotency store (generated from the ``_async`` source): ``idempotency_entries``.

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

from datetime import datetime, timedelta
from typing import Any

from bson.int64 import Int64
from pymongo.synchronous.collection import Collection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo._sync.services.idempotency import DEFAULT_DONE_TTL, Idempotency
from aimon_mongo.codec.idempotency import encode_result, entry_from_mongo, entry_to_mongo, ttl_millis
from aimon_mongo.exported import exported_from
from aimon_mongo.model import IdempotencyEntry, IdempotencyStatus, TurnResult
from aimon_mongo.mongo.documents import NOW, alive, expired, literal, now_plus
from aimon_mongo.mongo.failures import failures
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures

__all__ = ["DEFAULT_DONE_TTL", "MongoIdempotencyDriver", "MongoIdempotencyStore"]

_IN_FLIGHT = IdempotencyStatus.IN_FLIGHT.value
_LIVE = {"$expr": alive(n.F_EXPIRES_AT)}
# touch re-arms the entry's own span: ttlMillis, or (an entry of the reference) what it was last armed with
_OWN_SPAN = {"$ifNull": ["$" + n.IDEM_TTL_MILLIS, {"$subtract": ["$" + n.F_EXPIRES_AT, "$" + n.F_LAST_TOUCHED_AT]}]}


def _armed(ttl: timedelta) -> dict[str, Any]:
    """``$set`` fields that stamp a write and arm ``ttl``."""
    return {n.F_LAST_TOUCHED_AT: NOW, n.F_EXPIRES_AT: now_plus(ttl), n.IDEM_TTL_MILLIS: literal(Int64(ttl_millis(ttl)))}


@exported_from("aimon_mongo.mongo")
class MongoIdempotencyDriver:
    """The primitives over ``idempotency_entries``: one update, delete or find each (see the module text)."""

    failures: Failures = failures
    holder_id_forbidden_chars = ""

    def __init__(self, collection: Collection[dict[str, Any]]) -> None:
        self._entries = collection

    def __repr__(self) -> str:
        return located(self, self._entries.full_name)

    def decode(self, raw: dict[str, Any]) -> IdempotencyEntry:
        return entry_from_mongo(raw)

    def put(self, entry: IdempotencyEntry, ttl: timedelta) -> tuple[bool, dict[str, Any] | None]:
        fields = {key: literal(value) for key, value in entry_to_mongo(entry).items() if key != n.F_ID}
        fields.update({n.F_EXPIRES_AT: now_plus(ttl), n.IDEM_TTL_MILLIS: literal(Int64(ttl_millis(ttl)))})
        try:  # an upsert that can only insert (every entry has a status)
            self._entries.update_one(
                {n.F_ID: entry.key, n.F_STATUS: {"$exists": False}}, [{"$set": fields}], upsert=True
            )
            return True, None
        except DuplicateKeyError:
            pass
        lapsed = {n.F_ID: entry.key, "$expr": expired(n.F_EXPIRES_AT)}
        if self._entries.find_one_and_update(lapsed, [{"$set": fields}]) is not None:
            return True, None  # the stored entry had lapsed: this one replaces it
        return False, self._entries.find_one({n.F_ID: entry.key})

    def mark_done(self, key: str, result: TurnResult, ttl: timedelta) -> bool:
        update = {
            n.F_STATUS: IdempotencyStatus.DONE.value,
            n.F_RESULT: literal(encode_result(result)),
            n.F_HOLDER_ID: None,
            **_armed(ttl),
        }
        done = self._entries.update_one({n.F_ID: key, **_LIVE}, [{"$set": update}])
        return done.matched_count == 1

    def touch(self, key: str, holder_id: str) -> bool:
        update = {n.F_LAST_TOUCHED_AT: NOW, n.F_EXPIRES_AT: {"$add": [NOW, _OWN_SPAN]}}
        result = self._entries.update_one(_held(key, holder_id), [{"$set": update}])
        return result.matched_count == 1

    def rehold(self, key: str, expected: str | None, holder_id: str | None, ttl: timedelta) -> bool:
        pipeline: list[dict[str, Any]]
        if holder_id is None:  # "no holder" written as the reference writes it: the field $unset
            pipeline = [{"$set": _armed(ttl)}, {"$unset": n.F_HOLDER_ID}]
        else:
            pipeline = [{"$set": {n.F_HOLDER_ID: literal(holder_id), **_armed(ttl)}}]
        result = self._entries.update_one(_held(key, expected), pipeline)
        return result.matched_count == 1

    def delete_held(self, key: str, expected: str | None) -> bool:
        return (self._entries.delete_one(_held(key, expected))).deleted_count == 1

    def stale_candidates(self, cutoff: datetime, limit: int) -> list[tuple[str, dict[str, Any]]]:
        query = {
            n.F_STATUS: _IN_FLIGHT,
            n.F_LAST_TOUCHED_AT: {"$lt": cutoff},
            n.F_HOLDER_ID: {"$type": "string"},
            **_LIVE,
        }
        docs = self._entries.find(query).sort(n.F_LAST_TOUCHED_AT, 1).limit(limit).to_list(limit)
        return [(str(doc.get(n.F_ID)), doc) for doc in docs]

    def find(self, key: str) -> dict[str, Any] | None:
        return self._entries.find_one({n.F_ID: key, **_LIVE})


def _held(key: str, holder_id: str | None) -> dict[str, Any]:
    """A live ``IN_FLIGHT`` entry held by ``holder_id`` (``None``: no holder, missing or null)."""
    return {n.F_ID: key, n.F_STATUS: _IN_FLIGHT, n.F_HOLDER_ID: holder_id, **_LIVE}


@exported_from("aimon_mongo.mongo")
def MongoIdempotencyStore(
    collection: Collection[dict[str, Any]], done_ttl: timedelta = DEFAULT_DONE_TTL
) -> Idempotency:
    """Client-key de-duplication and holder-loss detection on ``idempotency_entries`` (the module text).

    A factory: the :class:`~aimon_mongo.services.Idempotency` service over :class:`MongoIdempotencyDriver`."""
    return Idempotency(MongoIdempotencyDriver(collection), done_ttl)

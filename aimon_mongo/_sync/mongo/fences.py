# GENERATED from aimon_mongo/_async/mongo/fences.py by scripts/gen_sync.py; do not edit.
"""The one fence mechanism of MongoDB (generated from the ``_async`` source).

A fence is one field of one document (``{_id: key, <field>: highest token}``) holding the highest fencing
token accepted for ``key``; it only ever goes up. Two users, one mechanism:

* ``session_fences`` (``{_id: sessionId, highestToken}``), the single source of truth of the highest token
  accepted for a session's records and log segments: every fenced write calls :func:`advance_fence` first
  (``create=True``): one conditional upsert that matches only while ``highestToken <= token`` and raises the
  field to ``token``; when a higher token is stored the filter misses, the upsert turns into an insert of an
  existing ``_id`` and fails with a duplicate key: the token is stale.
* the LangGraph saver's thread documents (``langgraph_threads``, field ``fencing_token``): a claim of write
  ownership calls :func:`take_next_token` (the fence goes to ``max(fence + 1, floor)``, a token above every
  earlier claim's, so the claim supersedes at once), and every fenced write calls :func:`advance_fence` with
  ``create=False`` and ``also`` (a ``write_seq`` increment) in the write's transaction, so a claim racing the
  write conflicts with it on this one document (see :mod:`aimon_mongo._sync.langgraph.mongo`).

Tokens are stored as ``Int64`` (a server that compares numbers by BSON type then matches them too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bson.int64 import Int64
from pymongo import ReturnDocument
from pymongo.synchronous.client_session import ClientSession
from pymongo.synchronous.collection import Collection
from pymongo.errors import DuplicateKeyError

from aimon_mongo import names as n
from aimon_mongo.services.fencing import Stale


def advance_fence(
    fences: Collection[dict[str, Any]],
    key: str,
    token: int,
    *,
    field: str = n.F_HIGHEST_TOKEN,
    create: bool = True,
    also: Mapping[str, Any] | None = None,
    session: ClientSession | None = None,
) -> Stale | None:
    """Accept ``token`` for ``key`` (atomic), or :class:`Stale` naming the higher token stored.

    ``create``: a key without a fence document gets one (else that is stale too, ``Stale(None)``);
    ``also``: more fields the same update sets (aggregation expressions: the update is a pipeline), so the
    document is modified even when the token does not change.
    """
    update: dict[str, Any] | list[dict[str, Any]] = {"$set": {field: Int64(token)}}
    if also:
        update = [{"$set": {field: Int64(token), **also}}]
    try:
        result = fences.update_one(
            {n.F_ID: key, field: {"$lte": Int64(token)}}, update, upsert=create, session=session
        )
    except DuplicateKeyError:
        return Stale(highest_token(fences, key, field=field, session=session))
    if result.matched_count == 0 and result.upserted_id is None:
        return Stale(highest_token(fences, key, field=field, session=session))
    return None


def take_next_token(
    fences: Collection[dict[str, Any]],
    key: str,
    floor: int,
    *,
    field: str = n.F_HIGHEST_TOKEN,
    session: ClientSession | None = None,
) -> int:
    """Raise the fence of ``key`` to ``max(fence + 1, floor)`` (a missing fence counts as 0) in one atomic
    update and return it: a token strictly above every token taken or accepted before."""
    doc = fences.find_one_and_update(
        {n.F_ID: key},
        [{"$set": {field: {"$toLong": {"$max": [{"$add": [{"$ifNull": ["$" + field, Int64(0)]}, 1]}, Int64(floor)]}}}}],
        projection={field: 1},
        upsert=True,
        return_document=ReturnDocument.AFTER,
        session=session,
    )
    assert doc is not None  # an upsert returning the document after the update always finds one
    return int(doc[field])


def highest_token(
    fences: Collection[dict[str, Any]],
    key: str,
    *,
    field: str = n.F_HIGHEST_TOKEN,
    session: ClientSession | None = None,
) -> int | None:
    """The highest token accepted for ``key`` so far (``None``: no fence yet)."""
    doc = fences.find_one({n.F_ID: key}, projection={field: 1}, session=session)
    token = None if doc is None else doc.get(field)
    return None if token is None else int(token)

"""MongoDB inbox driver (async source; the sync twin is generated): ``conversation_inbox`` + quarantine.

* ``append`` of one entry: an upsert on a pre-allocated ObjectId with a pipeline ``$set``, so the top-level
  ``deliveredAt`` (the FIFO key) is the server's ``$$NOW``; no de-duplication here.
* ``append`` of several: the same upserts in one ordered bulk write (one ``update`` command).
* ``take``: at most :attr:`batch_limit` entries per call (filter session + priority ordinal ``<=`` max,
  no priority filter when max is ``LATER``; sort priority then ``deliveredAt``). Where the deployment runs
  transactions (a replica set, a sharded cluster, a stand-in that accepts them) the batch is found with
  one ``find`` and removed in a transaction (``delete`` of those ids + commit), 3 round trips (1 when
  empty), run again on a write conflict with another collector. A deployment that refuses the first
  transaction (a standalone ``mongod``) gets the ``find_one_and_delete`` loop, one round trip per entry,
  from then on.
  At-most-once: an entry is deleted before the service decodes it; the raw document of one that cannot
  be decoded is moved to ``conversation_inbox_quarantine`` (one ``insert``) — it can be listed, replayed
  or deleted. If the server fails in the middle of the loop, the entries already removed are returned
  (not lost); the failure is raised only when nothing was removed yet.

Acknowledged delivery (additive fields on the entry: ``claimToken`` Int64, ``claimAttempts`` int,
``claimedAt`` server time; a reference-build collect still removes claimed entries):

* ``claim``: one ``find`` of the eligible entries (``claimToken`` absent or ``<=`` the token, FIFO, limit
  64), then in a transaction one ``update`` marking the ones to hand out (``$inc`` of ``claimAttempts``) —
  plus, for entries handed out ``max_attempts`` times already, one ``insert`` into the quarantine and one
  ``delete`` — and the commit: 3 round trips (1 when nothing is eligible). Each write names every entry
  with the attempt count the ``find`` read, so an entry another claimer changed in between makes the count
  short: the transaction is aborted and run again from the ``find``. Without transactions: one
  ``findAndModify`` per entry.
* ``acknowledge``: one ``delete`` of the named entries whose ``claimToken`` is exactly the token.
* ``move_to_quarantine``: ``find``, then ``insert`` + ``delete`` in a transaction (without transactions:
  quarantined first, then deleted — a failure in between keeps both copies, never none).
* ``sessions_with_entries``: pages of a ``find`` sorted by ``conversationId`` (a bounded, declared scatter
  on a sharded cluster: a periodic listing, never on a turn's path).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence  # sync: from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bson import Int64, ObjectId
from pymongo import ReturnDocument, UpdateOne
from pymongo.asynchronous.client_session import AsyncClientSession
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import PyMongoError

from aimon_mongo import names as n
from aimon_mongo._async.mongo.transactions import (
    RetryTransaction,
    TransactionConflict,
    TransactionsRefused,
    run_in_transaction,
)
from aimon_mongo._async.services.inbox import AsyncInbox, Claimed, Triage, handed_out
from aimon_mongo.clock import Clock
from aimon_mongo.codec.inbound import to_mongo_document
from aimon_mongo.codec.inbox_entry import decode_mongo_entry, replayed_document
from aimon_mongo.exported import exported_from
from aimon_mongo.model import InboundMessage, Priority, UnreadableEntry
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.mongo.documents import NOW, literal, object_id, quarantine_document, quarantined_from_document
from aimon_mongo.mongo.failures import failures
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_BATCH_SIZE = 64
TRANSACTION_ATTEMPTS = 8
"""Transactional collects run per call before a conflicted one falls back to the loop (which always
makes progress)."""
_FIFO = [(n.F_PRIORITY, 1), (n.F_DELIVERED_AT, 1)]
SESSION_SCAN_PAGE = 1024
"""Entries one ``find`` of :meth:`AsyncMongoInboxDriver.sessions_with_entries` reads at most."""
_Delivery = tuple[ObjectId, dict[str, Any], list[dict[str, Any]]]
"""An encoded entry: its pre-allocated id, the upsert's filter and its pipeline."""


@exported_from("aimon_mongo.mongo")
class AsyncMongoInboxDriver:
    """Collection calls only (see the module text)."""

    batch_limit: int | None = MAX_BATCH_SIZE
    quarantines_in_take = False
    takes_in_order = False
    """The ``find_one_and_delete`` loop can take an urgent entry delivered while it ran after a later tier."""
    failures: Failures = failures
    decode_replay = staticmethod(replayed_document)

    def __init__(
        self,
        inbox: AsyncCollection[dict[str, Any]],
        quarantine: AsyncCollection[dict[str, Any]],
        clock: Clock,
    ) -> None:
        self._inbox = inbox
        self._quarantine = quarantine
        self._clock = clock
        self.batched: bool | None = None
        """Whether ``take`` runs in a transaction: ``None`` until the first take finds out."""

    def __repr__(self) -> str:
        return located(self, self._inbox.full_name, self._quarantine.full_name)

    @staticmethod
    def encode(message: InboundMessage) -> _Delivery:
        """The new entry's id, the upsert's filter and its pipeline: every field literal, ``deliveredAt`` the
        server's ``$$NOW``."""
        oid = ObjectId()
        doc = to_mongo_document(message, oid)
        stage: dict[str, Any] = {key: literal(value) for key, value in doc.items() if key != n.F_ID}
        stage[n.F_DELIVERED_AT] = NOW
        # the whole shard key (conversationId) in the filter: mongos routes the upsert to one shard; `_id`
        # first, so a server that builds the new document in filter order stores `_id` first as before
        return oid, {n.F_ID: oid, n.F_CONVERSATION_ID: message.session_id}, [{"$set": stage}]

    @staticmethod
    def decode(raw: dict[str, Any], session_id: str) -> InboundMessage | UnreadableEntry:
        return decode_mongo_entry(raw, session_id)

    async def append(self, entries: Sequence[tuple[InboundMessage, _Delivery]]) -> list[str]:
        """One upsert, or one ordered bulk write of them (one ``update`` command, split by the driver only past
        the server's batch limits). The entries of one call share the server time that one command sees, and
        the FIFO index keeps equal keys in insertion order, so the call's order holds."""
        if len(entries) == 1:
            [(_, (_, target, pipeline))] = entries
            await self._inbox.update_one(target, pipeline, upsert=True)
        else:
            writes = [UpdateOne(target, pipeline, upsert=True) for _, (_, target, pipeline) in entries]
            await self._inbox.bulk_write(writes, ordered=True)
        return [str(oid) for _, (oid, _, _) in entries]

    async def take(self, session_id: str, ceiling: Priority, triage: Triage[dict[str, Any]]) -> list[dict[str, Any]]:
        """At most :data:`MAX_BATCH_SIZE` entries in FIFO order: in a transaction where the deployment runs
        them, else by the ``find_one_and_delete`` loop."""
        query: dict[str, Any] = {n.F_CONVERSATION_ID: session_id}
        if ceiling is not Priority.LATER:
            # Only below the last tier: a take of everything also takes entries whose stored priority no tier
            # names (a foreign or damaged write), so they are quarantined instead of keeping is_empty() False
            # for ever; they sort after LATER (numbers) or before NOW (null, negative numbers).
            query[n.F_PRIORITY] = {"$lte": ceiling.ordinal}
        docs = None if self.batched is False else await self._take_in_transaction(session_id, query)
        return await self._take_one_by_one(query) if docs is None else docs

    async def _take_in_transaction(self, session_id: str, query: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The batch in FIFO order, removed in one transaction: ``find`` (limit 64), then ``delete`` of those
        ids + ``commitTransaction`` in a transaction — 3 round trips, 1 when the inbox is empty. The delete
        must remove every id found, else another collector took some: abort and run again; a write conflict
        runs it again too, up to :data:`TRANSACTION_ATTEMPTS` times in all
        (:func:`~aimon_mongo._async.mongo.transactions.run_in_transaction`). An entry's message
        never changes after delivery (a claim changes only its claim fields), so what the ``find`` read is
        what the transaction removed. ``None``: use the
        loop instead — the deployment refuses transactions (remembered for this inbox) or every attempt met
        a conflict. Any other failure raises: not committed (nothing removed), or a commit whose outcome is
        unknown."""

        async def take(session: AsyncClientSession) -> list[dict[str, Any]]:
            docs = await self._inbox.find(query).sort(_FIFO).limit(MAX_BATCH_SIZE).to_list()
            if docs:
                ids = [doc[n.F_ID] for doc in docs]
                target = {n.F_CONVERSATION_ID: session_id, n.F_ID: {"$in": ids}}
                removed = await self._inbox.delete_many(target, session=session)
                if removed.deleted_count != len(ids):
                    raise RetryTransaction  # another collector took some of them
            return docs

        docs = await self._transact(take)
        if docs:
            self.batched = True
        return docs

    async def _take_one_by_one(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        """Up to 64 ``find_one_and_delete`` calls in FIFO order; a server failure after the first removal
        ends the batch early (what was removed is returned, never lost)."""
        docs: list[dict[str, Any]] = []
        for _ in range(MAX_BATCH_SIZE):
            try:
                doc = await self._inbox.find_one_and_delete(query, sort=_FIFO)
            except PyMongoError:
                if not docs:
                    raise  # nothing was removed yet
                log.warning("inbox collect of session %s stopped early by a server error", query[n.F_CONVERSATION_ID])
                break
            if doc is None:
                break
            docs.append(doc)
        return docs

    async def quarantine(self, session_id: str, entries: Sequence[tuple[dict[str, Any], UnreadableEntry]]) -> None:
        """One ``insert`` of the raw documents (unordered: one refused document does not stop the others)."""
        at = self._clock()
        kept = [quarantine_document(doc, entry.reason, session_id, at) for doc, entry in entries]
        await self._quarantine.insert_many(kept, ordered=False)

    async def peek(self, session_id: str, limit: int) -> list[dict[str, Any]]:
        """At most :data:`MAX_BATCH_SIZE` entries."""
        found = self._inbox.find({n.F_CONVERSATION_ID: session_id}).sort(_FIFO)
        return await found.to_list(min(limit, MAX_BATCH_SIZE))

    async def is_empty(self, session_id: str) -> bool:
        return await self._inbox.find_one({n.F_CONVERSATION_ID: session_id}, projection={n.F_ID: 1}) is None

    async def purge(self, session_id: str) -> None:
        await self._inbox.delete_many({n.F_CONVERSATION_ID: session_id})

    async def list_quarantined(self, session_id: str | None, limit: int) -> list[QuarantinedEntry]:
        query = {} if session_id is None else {n.F_CONVERSATION_ID: session_id}
        docs = await self._quarantine.find(query).sort([(n.F_QUARANTINED_AT, 1), (n.F_ID, 1)]).to_list(limit)
        return [quarantined_from_document(doc) for doc in docs]

    async def find_quarantined(self, quarantine_id: str) -> dict[str, Any] | None:
        oid = object_id(quarantine_id)
        return None if oid is None else await self._quarantine.find_one({n.F_ID: oid})

    async def restore(self, quarantine_id: str, message: InboundMessage, encoded: _Delivery) -> str | None:
        """Deliver first, then drop the quarantine document (a failure in between leaves a duplicate, never a
        loss); when another replay dropped it first, the new entry is withdrawn again and ``None`` returned."""
        (new_id,) = await self.append([(message, encoded)])
        if (await self._quarantine.delete_one({n.F_ID: object_id(quarantine_id)})).deleted_count == 1:
            return new_id
        await self._inbox.delete_one(encoded[1])  # the filter of the upsert: this entry, by id and session
        return None

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        oid = object_id(quarantine_id)
        return oid is not None and (await self._quarantine.delete_one({n.F_ID: oid})).deleted_count == 1

    async def claim(
        self, session_id: str, token: int, ceiling: Priority, limit: int, max_attempts: int
    ) -> Claimed[dict[str, Any]]:
        """See the module text: in a transaction where the deployment runs them, else one entry per call."""
        query = self._eligible(session_id, token, ceiling)
        if self.batched is not False:
            found: list[bool] = []
            claimed = await self._transact(
                lambda s: self._claim_found(s, session_id, token, query, limit, max_attempts, found)
            )
            if claimed is not None:
                if found:
                    self.batched = True
                return claimed
        return await self._claim_one_by_one(session_id, token, query, limit, max_attempts)

    @staticmethod
    def _eligible(session_id: str, token: int, ceiling: Priority) -> dict[str, Any]:
        query: dict[str, Any] = {n.F_CONVERSATION_ID: session_id, n.F_CLAIM_TOKEN: {"$not": {"$gt": Int64(token)}}}
        if ceiling is not Priority.LATER:
            query[n.F_PRIORITY] = {"$lte": ceiling.ordinal}  # as in take
        return query

    async def _claim_found(
        self,
        session: AsyncClientSession,
        session_id: str,
        token: int,
        query: dict[str, Any],
        limit: int,
        max_attempts: int,
        found: list[bool],
    ) -> Claimed[dict[str, Any]]:
        """The body of a claim's transaction: the ``find`` (outside the transaction, as collect's: nothing to
        commit when it finds nothing), then the writes over what it read; run again from the ``find`` when a
        write sees that another claimer or collector changed an entry meanwhile. ``found`` gets an item once
        a write ran in the transaction (the deployment then runs transactions)."""
        docs = await self._inbox.find(query).sort(_FIFO).limit(limit).to_list()
        if not docs:
            return Claimed()
        found.append(True)
        handed = [doc for doc in docs if _attempts(doc) < max_attempts]
        exhausted = [doc for doc in docs if _attempts(doc) >= max_attempts]
        if handed:
            marked = await self._inbox.update_many(
                _unchanged(session_id, handed),
                {
                    "$set": {n.F_CLAIM_TOKEN: Int64(token)},
                    "$inc": {n.F_CLAIM_ATTEMPTS: 1},
                    "$currentDate": {n.F_CLAIMED_AT: True},
                },
                session=session,
            )
            if marked.modified_count != len(handed):
                raise RetryTransaction  # another claimer or collector changed some of them
        if exhausted:
            at = self._clock()
            kept = [quarantine_document(doc, handed_out(_attempts(doc)), session_id, at) for doc in exhausted]
            await self._quarantine.insert_many(kept, session=session)
            removed = await self._inbox.delete_many(_unchanged(session_id, exhausted), session=session)
            if removed.deleted_count != len(exhausted):
                raise RetryTransaction
        return Claimed([(doc, _attempts(doc) + 1) for doc in handed], [str(doc[n.F_ID]) for doc in exhausted])

    async def _claim_one_by_one(
        self, session_id: str, token: int, query: dict[str, Any], limit: int, max_attempts: int
    ) -> Claimed[dict[str, Any]]:
        """Up to ``limit`` ``findAndModify`` calls in FIFO order (a deployment without transactions): each
        marks one entry and returns it as it was; one that had been handed out ``max_attempts`` times is then
        quarantined (insert, then a delete of it as this call marked it)."""
        handed: list[tuple[dict[str, Any], int]] = []
        exhausted: list[str] = []
        seen: list[ObjectId] = []
        update = {
            "$set": {n.F_CLAIM_TOKEN: Int64(token)},
            "$inc": {n.F_CLAIM_ATTEMPTS: 1},
            "$currentDate": {n.F_CLAIMED_AT: True},
        }
        for _ in range(limit):
            target = {**query, n.F_ID: {"$nin": seen}} if seen else query
            doc = await self._inbox.find_one_and_update(
                target, update, sort=_FIFO, return_document=ReturnDocument.BEFORE
            )
            if doc is None:
                break
            seen.append(doc[n.F_ID])
            if _attempts(doc) < max_attempts:
                handed.append((doc, _attempts(doc) + 1))
                continue
            kept = quarantine_document(doc, handed_out(_attempts(doc)), session_id, self._clock())
            await self._quarantine.insert_one(kept)
            mine = {n.F_CONVERSATION_ID: session_id, n.F_ID: doc[n.F_ID], n.F_CLAIM_TOKEN: Int64(token)}
            await self._inbox.delete_one({**mine, n.F_CLAIM_ATTEMPTS: _attempts(doc) + 1})
            exhausted.append(str(doc[n.F_ID]))
        return Claimed(handed, exhausted)

    async def acknowledge(self, session_id: str, token: int, entry_ids: Sequence[str]) -> int:
        """One ``delete``; an id that is not an ObjectId removes nothing."""
        oids = [oid for entry_id in entry_ids if (oid := object_id(entry_id)) is not None]
        if not oids:
            return 0
        target = {n.F_CONVERSATION_ID: session_id, n.F_ID: {"$in": oids}, n.F_CLAIM_TOKEN: Int64(token)}
        return (await self._inbox.delete_many(target)).deleted_count

    async def move_to_quarantine(self, session_id: str, reasons: Sequence[tuple[str, str]]) -> list[str]:
        """``find``, then ``insert`` + ``delete`` in a transaction where the deployment runs them."""
        why = {oid: reason for entry_id, reason in reasons if (oid := object_id(entry_id)) is not None}
        if not why:
            return []
        named = {n.F_CONVERSATION_ID: session_id, n.F_ID: {"$in": list(why)}}

        async def move(session: AsyncClientSession | None) -> list[str]:
            docs = await self._inbox.find(named).to_list()  # read again by a transaction run again
            if not docs:
                return []
            at = self._clock()
            kept = [quarantine_document(doc, why[doc[n.F_ID]], session_id, at) for doc in docs]
            await self._quarantine.insert_many(kept, session=session)
            removed = await self._inbox.delete_many(_unchanged(session_id, docs), session=session)
            if session is not None and removed.deleted_count != len(docs):
                raise RetryTransaction  # some changed or went meanwhile: read them again
            return [str(doc[n.F_ID]) for doc in docs]

        if self.batched is not False:
            moved = await self._transact(move)
            if moved is not None:
                return moved
        return await move(None)

    async def _transact(
        self,
        body: Callable[[AsyncClientSession], Awaitable[T]],  # sync: body: Callable[[ClientSession], T],
    ) -> T | None:
        """``body`` in a transaction (:func:`run_in_transaction`); ``None`` when the deployment refuses
        transactions (remembered: :attr:`batched` becomes False) or every attempt met a conflict (nothing
        was written). Any other failure raises: not committed, or a commit whose outcome is unknown."""
        try:
            result = await run_in_transaction(
                self._inbox.database.client,
                body,
                attempts=TRANSACTION_ATTEMPTS,
                read_concern=self._inbox.read_concern,
                write_concern=self._inbox.write_concern,
            )
        except TransactionsRefused:
            log.info("the inbox takes one entry per round trip: the server refuses transactions")
            self.batched = False
            return None
        except TransactionConflict:
            return None
        return result

    async def sessions_with_entries(self, after: str | None, limit: int) -> list[str]:
        """Pages of :data:`SESSION_SCAN_PAGE` entries sorted by ``conversationId``, each after the last
        session seen, until ``limit`` sessions are found (one ``find`` per page)."""
        found: list[str] = []
        cursor = after
        while len(found) < limit:
            query: dict[str, Any] = {} if cursor is None else {n.F_CONVERSATION_ID: {"$gt": cursor}}
            page = self._inbox.find(query, projection={n.F_CONVERSATION_ID: 1, n.F_ID: 0})
            docs = await page.sort(n.F_CONVERSATION_ID, 1).limit(SESSION_SCAN_PAGE).to_list()
            for doc in docs:
                sid = doc.get(n.F_CONVERSATION_ID)
                if isinstance(sid, str) and (not found or sid != found[-1]) and (cursor is None or sid > cursor):
                    found.append(sid)
            if len(docs) < SESSION_SCAN_PAGE or not found:
                break
            cursor = found[-1]
        return found[:limit]


def _attempts(doc: dict[str, Any]) -> int:
    """How many claims handed the entry out (0 when none did, or the field is not a count)."""
    value = doc.get(n.F_CLAIM_ATTEMPTS)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _hand_out(token: int) -> dict[str, Any]:
    """The update of one hand-out: the claim token (as Int64), one more attempt, the server time."""
    return {
        "$set": {n.F_CLAIM_TOKEN: Int64(token)},
        "$inc": {n.F_CLAIM_ATTEMPTS: 1},
        "$currentDate": {n.F_CLAIMED_AT: True},
    }


def _unchanged(session_id: str, docs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Filter: each of ``docs`` while its claim count is still the one read (a claim always raises it)."""
    clauses = [{n.F_ID: doc[n.F_ID], n.F_CLAIM_ATTEMPTS: doc.get(n.F_CLAIM_ATTEMPTS)} for doc in docs]
    return {n.F_CONVERSATION_ID: session_id, "$or": clauses}


@exported_from("aimon_mongo.mongo")
class AsyncMongoSessionInbox(AsyncInbox[_Delivery, dict[str, Any], dict[str, Any]]):
    """Cross-node mailbox per session on ``conversation_inbox`` (see the module text)."""

    def __init__(
        self,
        inbox: AsyncCollection[dict[str, Any]],
        quarantine: AsyncCollection[dict[str, Any]],
        clock: Clock,
    ) -> None:
        self._mongo = AsyncMongoInboxDriver(inbox, quarantine, clock)
        super().__init__(self._mongo)

    @property
    def collects_in_transactions(self) -> bool | None:
        """Whether ``collect`` takes its batch in a transaction (True) or one entry per round trip (False,
        the deployment refused transactions); ``None`` until the first collect found out."""
        return self._mongo.batched

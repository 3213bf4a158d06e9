"""MongoDB inbox (async source; the sync twin is generated): ``conversation_inbox`` + quarantine.

* ``deliver``: an upsert on a pre-allocated ObjectId with a pipeline ``$set``, so the top-level
  ``deliveredAt`` (the FIFO key) is the server's ``$$NOW``; no de-duplication here.
* ``deliver_many``: the same upserts in one ordered bulk write (one ``update`` command).
* ``collect``: at most :attr:`batch_limit` entries per call (filter session + priority ordinal ``<=`` max,
  no priority filter when max is ``LATER``; sort priority then ``deliveredAt``). Where the deployment runs
  transactions (a replica set, a sharded cluster, a stand-in that accepts them) the batch is found with
  one ``find`` and removed in a transaction (``delete`` of those ids + commit), 3 round trips (1 when
  empty), run again on a write conflict with another collector. A deployment that refuses the first
  transaction (a standalone ``mongod``) gets the ``find_one_and_delete`` loop, one round trip per entry,
  from then on.
  At-most-once: an entry is deleted before it is decoded; each decodes on its own, and one that cannot
  be decoded is reported as an :class:`UnreadableEntry` (one WARN naming session and entry id) and its
  raw document is moved to ``conversation_inbox_quarantine`` — nothing is lost, and it can be listed,
  replayed or deleted. If the quarantine insert itself fails, the loss is logged at ERROR (the window the
  reference also has).
* If the server fails in the middle of a collect, the entries already removed are returned (not lost);
  the failure is raised only when nothing was removed yet.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from bson import ObjectId
from pymongo import UpdateOne
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import ConfigurationError, OperationFailure, PyMongoError

from aimon_mongo import names as n
from aimon_mongo.clock import Clock
from aimon_mongo.codec.inbound import from_mongo_document, to_mongo_document
from aimon_mongo.codec.inbox_entry import decode_mongo_entry
from aimon_mongo.errors import CodecError, SessionInboxError
from aimon_mongo.model import CollectedBatch, InboundMessage, Priority, UnreadableEntry
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.mongo.documents import NOW, literal, object_id, quarantine_document, quarantined_from_document
from aimon_mongo.mongo.failures import failures
from aimon_mongo.validate import (
    delivery_action,
    optional_id,
    require_id,
    require_instance,
    require_limit,
    require_message,
    require_messages,
)

log = logging.getLogger(__name__)

MAX_BATCH_SIZE = 64
TRANSACTION_ATTEMPTS = 8
"""Transactional collects run per call before a conflicted one falls back to the loop (which always
makes progress)."""
_TRANSIENT = "TransientTransactionError"
_UNKNOWN_COMMIT = "UnknownTransactionCommitResult"
_ILLEGAL_OPERATION = 20
"""The code a standalone ``mongod`` answers a transaction with ("Transaction numbers are only allowed on a
replica set member or mongos")."""
_FIFO = [(n.F_PRIORITY, 1), (n.F_DELIVERED_AT, 1)]


def _delivery(message: InboundMessage) -> tuple[ObjectId, dict[str, Any], list[dict[str, Any]]]:
    """The new entry's id, the upsert's filter and its pipeline: every field literal, ``deliveredAt`` the
    server's ``$$NOW``."""
    oid = ObjectId()
    doc = to_mongo_document(message, oid)
    stage: dict[str, Any] = {key: literal(value) for key, value in doc.items() if key != n.F_ID}
    stage[n.F_DELIVERED_AT] = NOW
    # the whole shard key (conversationId) in the filter: mongos routes the upsert to one shard; `_id` first,
    # so a server that builds the new document in filter order stores `_id` first as before
    return oid, {n.F_ID: oid, n.F_CONVERSATION_ID: message.session_id}, [{"$set": stage}]


def _refuses_transactions(exc: PyMongoError) -> bool:
    """True when the deployment cannot run transactions at all (not a conflict, not a failure)."""
    if isinstance(exc, ConfigurationError):  # no sessions (PyMongo decides from the handshake)
        return True
    return isinstance(exc, OperationFailure) and exc.code == _ILLEGAL_OPERATION


class AsyncMongoSessionInbox:
    batch_limit: int | None = MAX_BATCH_SIZE

    def __init__(
        self,
        inbox: AsyncCollection[dict[str, Any]],
        quarantine: AsyncCollection[dict[str, Any]],
        clock: Clock,
    ) -> None:
        self._inbox = inbox
        self._quarantine = quarantine
        self._clock = clock
        self._batched: bool | None = None
        """Whether ``collect`` runs in a transaction: ``None`` until the first collect finds out."""

    @property
    def collects_in_transactions(self) -> bool | None:
        """Whether ``collect`` takes its batch in a transaction (True) or one entry per round trip (False,
        the deployment refused transactions); ``None`` until the first collect found out."""
        return self._batched

    async def deliver(self, message: InboundMessage) -> str:
        require_message(message)
        oid, target, pipeline = _delivery(message)
        with failures(SessionInboxError, f"inbox deliver to session {message.session_id!r}"):
            await self._inbox.update_one(target, pipeline, upsert=True)
        return str(oid)

    async def deliver_many(self, messages: Sequence[InboundMessage]) -> list[str]:
        """One ordered bulk write of the upserts :meth:`deliver` sends (one ``update`` command, split by the
        driver only past the server's batch limits). The entries of one call share the server time that one
        command sees, and the FIFO index keeps equal keys in insertion order, so the call's order holds."""
        writes = [_delivery(message) for message in require_messages(messages)]  # all encoded before any I/O
        if not writes:
            return []
        with failures(SessionInboxError, delivery_action(messages)):
            await self._inbox.bulk_write(
                [UpdateOne(target, pipeline, upsert=True) for _, target, pipeline in writes], ordered=True
            )
        return [str(oid) for oid, _, _ in writes]

    async def collect(self, session_id: str, max_priority: Priority = Priority.LATER) -> CollectedBatch:
        require_id(session_id, "session_id")
        require_instance(max_priority, Priority, "max_priority")
        query: dict[str, Any] = {n.F_CONVERSATION_ID: session_id}
        if max_priority is not Priority.LATER:
            # Only below the last tier: a collect of everything also takes entries whose stored priority no
            # tier names (a foreign or damaged write), so they are quarantined instead of keeping is_empty()
            # False for ever; they sort after LATER (numbers) or before NOW (null, negative numbers).
            query[n.F_PRIORITY] = {"$lte": max_priority.ordinal}
        docs = None if self._batched is False else await self._take_in_transaction(session_id, query)
        if docs is None:
            docs = await self._take_one_by_one(session_id, query)
        messages: list[InboundMessage] = []
        unreadable: list[UnreadableEntry] = []
        for doc in docs:  # decoded only now: every one of them is already removed (at-most-once)
            decoded = decode_mongo_entry(doc, session_id)
            if isinstance(decoded, UnreadableEntry):
                unreadable.append(decoded)
                await self._keep(doc, decoded, session_id)
            else:
                messages.append(decoded)
        messages.sort(key=lambda m: m.priority.ordinal)  # stable: FIFO within a tier
        return CollectedBatch(messages=tuple(messages), unreadable=tuple(unreadable))

    async def _take_in_transaction(self, session_id: str, query: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The batch in FIFO order, removed in one transaction: ``find`` (limit 64), then ``delete`` of those
        ids + ``commitTransaction`` in a transaction — 3 round trips, 1 when the inbox is empty. The delete
        must remove every id found, else another collector took some: abort and run again; a write conflict
        (a refused commit) runs it again too, up to :data:`TRANSACTION_ATTEMPTS` times. Entries are never
        changed after delivery, so what the ``find`` read is what the transaction removed. ``None``: use the
        loop instead — the deployment refuses transactions (remembered for this inbox) or every attempt met
        a conflict."""
        client = self._inbox.database.client
        for _ in range(TRANSACTION_ATTEMPTS):
            try:
                docs = await self._inbox.find(query).sort(_FIFO).limit(MAX_BATCH_SIZE).to_list()
                if not docs:
                    return docs
                ids = [doc[n.F_ID] for doc in docs]
                target = {n.F_CONVERSATION_ID: session_id, n.F_ID: {"$in": ids}}
                async with client.start_session() as session:
                    await session.start_transaction(
                        read_concern=self._inbox.read_concern, write_concern=self._inbox.write_concern
                    )
                    removed = await self._inbox.delete_many(target, session=session)
                    if removed.deleted_count != len(ids):
                        await session.abort_transaction()
                        continue  # another collector took some of them
                    try:
                        await session.commit_transaction()
                    except OperationFailure as exc:
                        if exc.has_error_label(_UNKNOWN_COMMIT):
                            raise
                        continue  # the server says it did not commit (a write conflict): nothing was removed
            except PyMongoError as exc:
                if _refuses_transactions(exc):
                    log.info("collect takes one entry per round trip: the server refuses transactions")
                    self._batched = False
                    return None
                if isinstance(exc, OperationFailure) and exc.has_error_label(_TRANSIENT):
                    continue  # a write conflict: nothing was removed (a lost connection is not retried here)
                with failures(SessionInboxError, f"inbox collect of session {session_id!r}"):
                    raise  # translated: not committed (nothing removed), or a commit whose outcome is unknown
            self._batched = True
            return docs
        return None

    async def _take_one_by_one(self, session_id: str, query: dict[str, Any]) -> list[dict[str, Any]]:
        """Up to 64 ``find_one_and_delete`` calls in FIFO order; a server failure after the first removal
        ends the batch early (what was removed is returned, never lost)."""
        docs: list[dict[str, Any]] = []
        for _ in range(MAX_BATCH_SIZE):
            try:
                doc = await self._inbox.find_one_and_delete(query, sort=_FIFO)
            except PyMongoError:
                if not docs:
                    with failures(SessionInboxError, f"inbox collect of session {session_id!r}"):
                        raise  # translated by failures(): nothing was removed yet
                log.warning("inbox collect of session %s stopped early by a server error", session_id)
                break
            if doc is None:
                break
            docs.append(doc)
        return docs

    async def peek(self, session_id: str, limit: int = 64) -> CollectedBatch:
        require_id(session_id, "session_id")
        require_limit(limit)
        with failures(SessionInboxError, f"inbox peek of session {session_id!r}"):
            docs = (
                await self._inbox.find({n.F_CONVERSATION_ID: session_id})
                .sort(_FIFO)
                .to_list(min(limit, MAX_BATCH_SIZE))
            )
        messages: list[InboundMessage] = []
        unreadable: list[UnreadableEntry] = []
        for doc in docs:
            decoded = decode_mongo_entry(doc, session_id)
            if isinstance(decoded, UnreadableEntry):
                unreadable.append(decoded)
            else:
                messages.append(decoded)
        return CollectedBatch(messages=tuple(messages), unreadable=tuple(unreadable))

    async def is_empty(self, session_id: str) -> bool:
        require_id(session_id, "session_id")
        with failures(SessionInboxError, f"inbox is_empty of session {session_id!r}"):
            found = await self._inbox.find_one({n.F_CONVERSATION_ID: session_id}, projection={n.F_ID: 1})
        return found is None

    async def purge(self, session_id: str) -> None:
        require_id(session_id, "session_id")
        with failures(SessionInboxError, f"inbox purge of session {session_id!r}"):
            await self._inbox.delete_many({n.F_CONVERSATION_ID: session_id})

    async def list_quarantined(self, session_id: str | None = None, limit: int = 100) -> list[QuarantinedEntry]:
        optional_id(session_id, "session_id")
        require_limit(limit)
        query = {} if session_id is None else {n.F_CONVERSATION_ID: session_id}
        with failures(SessionInboxError, "list quarantined inbox entries"):
            docs = await self._quarantine.find(query).sort([(n.F_QUARANTINED_AT, 1), (n.F_ID, 1)]).to_list(limit)
        return [quarantined_from_document(doc) for doc in docs]

    async def replay_quarantined(self, quarantine_id: str, raw: Any = None) -> str:
        require_id(quarantine_id, "quarantine_id")
        oid = object_id(quarantine_id)
        with failures(SessionInboxError, f"replay of quarantined entry {quarantine_id!r}"):
            kept = None if oid is None else await self._quarantine.find_one({n.F_ID: oid})
        if kept is None:
            raise SessionInboxError(f"no quarantined entry {quarantine_id!r}")
        stored = kept.get(n.F_RAW_DOCUMENT)
        source = stored if raw is None else raw
        if isinstance(source, Mapping) and n.F_ID not in source and isinstance(stored, Mapping):
            source = {n.F_ID: stored.get(n.F_ID), **source}
        if not isinstance(source, Mapping):
            raise CodecError(f"quarantined entry {quarantine_id!r} has no raw document to replay")
        message = from_mongo_document(source)  # CodecError: still unreadable, the entry stays
        new_id = await self.deliver(message)
        with failures(SessionInboxError, f"replay of quarantined entry {quarantine_id!r}"):
            await self._quarantine.delete_one({n.F_ID: oid})
        log.info("quarantined entry %s of session %s replayed as %s", quarantine_id, message.session_id, new_id)
        return new_id

    async def delete_quarantined(self, quarantine_id: str) -> bool:
        require_id(quarantine_id, "quarantine_id")
        oid = object_id(quarantine_id)
        if oid is None:
            return False
        with failures(SessionInboxError, f"delete of quarantined entry {quarantine_id!r}"):
            result = await self._quarantine.delete_one({n.F_ID: oid})
        return result.deleted_count == 1

    async def _keep(self, doc: Mapping[str, Any], entry: UnreadableEntry, session_id: str) -> None:
        """Move a removed, undecodable document to the quarantine (best effort, never raises)."""
        try:
            await self._quarantine.insert_one(quarantine_document(doc, entry.reason, session_id, self._clock()))
        except PyMongoError as exc:
            log.error(
                "unreadable inbox entry %s of session %s could not be quarantined and is lost: %s",
                entry.id,
                session_id,
                type(exc).__name__,
            )

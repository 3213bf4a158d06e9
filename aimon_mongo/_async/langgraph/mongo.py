"""The MongoDB checkpoint saver (async source on ``AsyncMongoClient``; the sync twin is generated).

Layout in ``aimon_mongo/langgraph/documents.py``. One ``put`` is one ``insert_one`` (plus the uploads
of its large values); one ``put_writes`` is one pipeline update; ``get_tuple`` is one query, plus one for
values introduced by earlier checkpoints that the value cache does not hold.

Fenced writes (through a writer from ``aclaim_write_ownership``) run in a transaction (the one helper,
:mod:`aimon_mongo._async.mongo.transactions`) whose first statement is the one fence mechanism
(:mod:`aimon_mongo._async.mongo.fences`): it updates the thread document only if its ``fencing_token`` is not
above the writer's token and always modifies it (``write_seq``). A claim takes the next token in that same
field (:func:`~aimon_mongo._async.mongo.fences.take_next_token`, ``max(fence + 1, lease token)``) before it
returns, so the two writes conflict on one document: either the write commits first (it was the owner's)
or it sees the raised fence and aborts, having written nothing. Transactions need a replica set or a
sharded cluster; on a server without them the claim itself is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from bson.int64 import Int64
from pymongo import ASCENDING, DESCENDING, ReplaceOne, ReturnDocument
from pymongo.asynchronous.client_session import AsyncClientSession
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.asynchronous.mongo_client import AsyncMongoClient
from pymongo.errors import DuplicateKeyError, PyMongoError

from aimon_mongo import names as n
from aimon_mongo._async.langgraph.driver import Touch
from aimon_mongo._async.langgraph.saver import AsyncCheckpointSaverBase
from aimon_mongo._async.mongo.chunks import AsyncChunkReader, AsyncChunkWriter, MissingChunks
from aimon_mongo._async.mongo.fences import advance_fence, highest_token, take_next_token
from aimon_mongo._async.mongo.leases import AsyncMongoSessionLeaseStore
from aimon_mongo._async.mongo.transactions import TransactionsRefused, run_in_transaction
from aimon_mongo._async.ports import AsyncSessionLeaseStore
from aimon_mongo.errors import CheckpointStoreError, StaleWriteOwnerError, ThreadExpiredError, WriteOwnershipError
from aimon_mongo.exported import exported_from
from aimon_mongo.langgraph.documents import (
    STORED,
    checkpoint_document,
    checkpoint_fields,
    identity,
    merge_writes_pipeline,
    record_from_document,
    span_ms,
    value_document,
    value_from_document,
)
from aimon_mongo.langgraph.records import (
    CheckpointRecord,
    PendingWriteRecord,
    Relocation,
    Scalar,
    StoredValue,
    ThreadInfo,
)
from aimon_mongo.mongo.clients import open_client
from aimon_mongo.mongo.documents import NOW, literal, now_plus
from aimon_mongo.mongo.durability import MAJORITY, durable
from aimon_mongo.mongo.failures import failures
from aimon_mongo.validate import require_id, require_instance

_STALE_SWEEP = timedelta(minutes=10)
_TRANSACTION_ATTEMPTS = 40  # a transaction that conflicts (a claim racing a write): ~9 s of retries in all
_FIRST_BACKOFF = 0.005
_ID = n.F_ID
# Always modifies the thread document (so a racing claim conflicts); $toLong keeps it int64 on every server.
_NEXT_WRITE_SEQ = {n.LG_F_WRITE_SEQ: {"$toLong": {"$add": [{"$ifNull": ["$" + n.LG_F_WRITE_SEQ, Int64(0)]}, Int64(1)]}}}
_Body = Callable[[AsyncClientSession | None], Awaitable[None]]  # sync: _Body = Callable[[ClientSession | None], None]


def _live(thread_filter: dict[str, Any]) -> dict[str, Any]:
    """Filter: the thread document is live (no retention, or not yet expired; not being swept)."""
    return {
        **thread_filter,
        n.LG_F_SWEEPING: {"$exists": False},
        n.LG_F_EXPIRED_AT: {"$exists": False},
        "$expr": {
            "$or": [{"$eq": [{"$type": "$" + n.LG_F_EXPIRES_AT}, "missing"]}, {"$gt": ["$" + n.LG_F_EXPIRES_AT, NOW]}]
        },
    }


class AsyncMongoCheckpointDriver:
    """The checkpoint driver on one database (``langgraph_checkpoints``, ``langgraph_threads`` and the
    ``langgraph_values`` GridFS bucket)."""

    def __init__(self, database: AsyncDatabase[Any], chunk_size: int = n.LG_VALUES_CHUNK_SIZE) -> None:
        self.database = database
        self._client: AsyncMongoClient[Any] = database.client
        self.checkpoints = database[n.LG_CHECKPOINTS]
        self.threads_collection = database[n.LG_THREADS]
        self.files = database[f"{n.LG_VALUES_BUCKET}.{n.GRIDFS_FILES_SUFFIX}"]
        self.chunks = database[f"{n.LG_VALUES_BUCKET}.{n.GRIDFS_CHUNKS_SUFFIX}"]
        self.chunk_size = chunk_size

    # --- fenced and retention-aware writes --------------------------------------------------------

    async def _transaction(self, body: _Body) -> None:
        """Run ``body`` in a transaction, retrying transient conflicts (a claim racing the write) up to
        :data:`_TRANSACTION_ATTEMPTS` times."""
        try:
            await run_in_transaction(self._client, body, attempts=_TRANSACTION_ATTEMPTS, backoff=_FIRST_BACKOFF)
        except TransactionsRefused as exc:
            raise WriteOwnershipError(
                "fenced writes need MongoDB transactions (a replica set or a sharded cluster)"
            ) from exc

    async def _fenced(
        self,
        thread_id: str,
        token: int,
        touch: Touch | None,
        keep: set[Any],
        write: _Body,
    ) -> None:
        async def body(session: AsyncClientSession | None) -> None:
            stale = await advance_fence(
                self.threads_collection,
                thread_id,
                token,
                field=n.LG_F_FENCING_TOKEN,
                create=False,
                also=_NEXT_WRITE_SEQ,
                session=session,
            )
            if stale is not None:
                raise StaleWriteOwnerError(thread_id, token, stale.highest)
            if touch is not None and not await self._refresh(thread_id, touch, session):
                raise ThreadExpiredError(thread_id)
            await write(session)

        try:
            await self._transaction(body)
        except ThreadExpiredError:
            assert touch is not None
            await self._revive_or_refuse(thread_id, touch, keep)  # outside: deletes, then retry once
            await self._transaction(body)

    async def _refresh(self, thread_id: str, touch: Touch, session: AsyncClientSession | None) -> bool:
        """Set ``expires_at`` = server now + ttl on a live (or new) thread; False when it expired."""
        try:
            await self.threads_collection.update_one(
                _live({_ID: thread_id}),
                [{"$set": {n.LG_F_EXPIRES_AT: now_plus(touch.ttl), n.LG_F_TTL_MS: literal(Int64(span_ms(touch.ttl)))}}],
                upsert=True,
                session=session,
            )
        except DuplicateKeyError:
            return False
        return True

    async def _revive_or_refuse(self, thread_id: str, touch: Touch, keep: set[Any]) -> None:
        """The thread expired: refuse a continuation; for a fresh start delete the expired thread (sparing
        the files of the checkpoint being written) and make it live again."""
        if touch.continuation:
            raise ThreadExpiredError(
                f"thread {thread_id!r} expired; a checkpoint continuing it is refused (start the thread afresh)"
            )
        claimed = await self.threads_collection.find_one_and_update(
            {
                _ID: thread_id,
                n.LG_F_SWEEPING: {"$exists": False},
                "$or": [
                    {n.LG_F_EXPIRED_AT: {"$exists": True}},
                    {n.LG_F_EXPIRES_AT: {"$exists": True}, "$expr": {"$lte": ["$" + n.LG_F_EXPIRES_AT, NOW]}},
                ],
            },
            [{"$set": {n.LG_F_SWEEPING: NOW}}],
        )
        if claimed is None:
            if await self._refresh(thread_id, touch, None):
                return
            raise ThreadExpiredError(f"thread {thread_id!r} is being deleted after its retention expired; retry")
        await self._drop_data(thread_id, keep)
        await self.threads_collection.update_one(
            {_ID: thread_id},
            [
                {"$set": {n.LG_F_EXPIRES_AT: now_plus(touch.ttl), n.LG_F_TTL_MS: literal(Int64(span_ms(touch.ttl)))}},
                {"$unset": [n.LG_F_SWEEPING, n.LG_F_EXPIRED_AT, n.LG_F_PURGE_AT]},
            ],
        )

    async def touch(self, thread_id: str, touch: Touch) -> None:
        with failures(CheckpointStoreError, f"retention refresh of thread {thread_id!r}"):
            if not await self._refresh(thread_id, touch, None):
                await self._revive_or_refuse(thread_id, touch, set())

    async def insert_checkpoint(self, record: CheckpointRecord, fence: int | None, touch: Touch | None) -> None:
        keep = {v.value.file_id for v in record.values if v.value.is_large}

        async def write(session: AsyncClientSession | None) -> None:
            try:
                await self.checkpoints.insert_one(checkpoint_document(record), session=session)
            except DuplicateKeyError:  # a re-put, or early pending writes: keep the writes
                await self.checkpoints.update_one(
                    identity(record.thread_id, record.checkpoint_ns, record.checkpoint_id),
                    {"$set": checkpoint_fields(record)},
                    session=session,
                )

        with failures(
            CheckpointStoreError, f"put of checkpoint {record.checkpoint_id!r} of thread {record.thread_id!r}"
        ):
            if fence is not None:
                await self._fenced(record.thread_id, fence, touch, keep, write)
                return
            if touch is not None and not await self._refresh(record.thread_id, touch, None):
                await self._revive_or_refuse(record.thread_id, touch, keep)
            await write(None)

    async def add_writes(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_id: str,
        writes: Sequence[PendingWriteRecord],
        fence: int | None,
        touch: Touch | None,
    ) -> None:
        pipeline = merge_writes_pipeline(list(writes))

        async def write(session: AsyncClientSession | None) -> None:
            await self.checkpoints.update_one(
                identity(thread_id, checkpoint_ns, checkpoint_id), pipeline, upsert=True, session=session
            )

        with failures(CheckpointStoreError, f"put_writes of checkpoint {checkpoint_id!r} of thread {thread_id!r}"):
            if fence is not None:
                await self._fenced(thread_id, fence, touch, set(), write)
                return
            if touch is not None and not await self._refresh(thread_id, touch, None):
                await self._revive_or_refuse(thread_id, touch, set())
            await write(None)

    async def claim_fence(self, thread_id: str, floor: int) -> int:
        taken: list[int] = []

        async def body(session: AsyncClientSession | None) -> None:
            taken[:] = [
                await take_next_token(
                    self.threads_collection, thread_id, floor, field=n.LG_F_FENCING_TOKEN, session=session
                )
            ]

        with failures(CheckpointStoreError, f"write-ownership fence of thread {thread_id!r}"):
            await self._transaction(body)
        return taken[0]

    async def fence(self, thread_id: str) -> int | None:
        with failures(CheckpointStoreError, f"fence read of thread {thread_id!r}"):
            return await highest_token(self.threads_collection, thread_id, field=n.LG_F_FENCING_TOKEN)

    # --- reads -----------------------------------------------------------------------------------------

    async def get_checkpoint(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None
    ) -> CheckpointRecord | None:
        query: dict[str, Any] = {n.LG_F_THREAD_ID: thread_id, n.LG_F_CHECKPOINT_NS: checkpoint_ns, **STORED}
        if checkpoint_id is not None:
            query[n.LG_F_CHECKPOINT_ID] = checkpoint_id
        with failures(CheckpointStoreError, f"get_tuple of thread {thread_id!r}"):
            doc = await self.checkpoints.find_one(query, sort=[(n.LG_F_CHECKPOINT_ID, DESCENDING)])
        return None if doc is None else record_from_document(doc)

    async def list_checkpoints(
        self,
        thread_id: str | None,
        checkpoint_ns: str | None,
        checkpoint_id: str | None,
        before_id: str | None,
        metadata: Sequence[tuple[str, Scalar]],
        limit: int | None,
    ) -> AsyncIterator[CheckpointRecord]:
        query: dict[str, Any] = dict(STORED)
        if thread_id is not None:
            query[n.LG_F_THREAD_ID] = thread_id
        if checkpoint_ns is not None:
            query[n.LG_F_CHECKPOINT_NS] = checkpoint_ns
        ids: dict[str, Any] = {}
        if checkpoint_id is not None:
            ids["$eq"] = checkpoint_id
        if before_id is not None:
            ids["$lt"] = before_id
        if ids:
            query[n.LG_F_CHECKPOINT_ID] = ids
        if metadata:
            query["$and"] = [
                {n.LG_F_METADATA_KEYS: {"$elemMatch": {n.LG_F_KEY: key, n.LG_F_VALUE: value}}}
                for key, value in metadata
            ]
        with failures(CheckpointStoreError, f"list of thread {thread_id!r}"):
            cursor = self.checkpoints.find(query, sort=[(n.LG_F_CHECKPOINT_ID, DESCENDING)], limit=limit or 0)
            async for doc in cursor:
                yield record_from_document(doc)

    async def find_values(
        self, thread_id: str, checkpoint_ns: str, keys: Sequence[str]
    ) -> dict[str, list[tuple[str, StoredValue]]]:
        wanted = set(keys)
        out: dict[str, list[tuple[str, StoredValue]]] = {}
        query = {
            n.LG_F_THREAD_ID: thread_id,
            n.LG_F_CHECKPOINT_NS: checkpoint_ns,
            f"{n.LG_F_VALUES}.{n.LG_F_KEY}": {"$in": list(keys)},
        }
        with failures(CheckpointStoreError, f"value lookup of thread {thread_id!r}"):
            async for doc in self.checkpoints.find(query, projection={n.LG_F_CHECKPOINT_ID: 1, n.LG_F_VALUES: 1}):
                for value_doc in doc.get(n.LG_F_VALUES) or []:
                    if value_doc.get(n.LG_F_KEY) in wanted:
                        value = value_from_document(value_doc)
                        out.setdefault(value.key, []).append((str(doc[n.LG_F_CHECKPOINT_ID]), value.value))
        return out

    async def thread_checkpoints(self, thread_id: str) -> list[CheckpointRecord]:
        with failures(CheckpointStoreError, f"read of thread {thread_id!r}"):
            docs = await self.checkpoints.find(
                {n.LG_F_THREAD_ID: thread_id, **STORED},
                sort=[(n.LG_F_CHECKPOINT_NS, ASCENDING), (n.LG_F_CHECKPOINT_ID, ASCENDING)],
            ).to_list(None)
        return [record_from_document(doc) for doc in docs]

    async def find_checkpoint(self, checkpoint_id: str, thread_id: str | None) -> CheckpointRecord | None:
        query: dict[str, Any] = {n.LG_F_CHECKPOINT_ID: checkpoint_id, **STORED}
        if thread_id is not None:
            query[n.LG_F_THREAD_ID] = thread_id
        with failures(CheckpointStoreError, f"lookup of checkpoint {checkpoint_id!r}"):
            doc = await self.checkpoints.find_one(query)
        return None if doc is None else record_from_document(doc)

    async def checkpoints_of_runs(self, run_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        with failures(CheckpointStoreError, "lookup of checkpoints by run id"):
            docs = await self.checkpoints.find(
                {n.LG_F_RUN_ID: {"$in": list(run_ids)}},
                projection={n.LG_F_THREAD_ID: 1, n.LG_F_CHECKPOINT_NS: 1, n.LG_F_CHECKPOINT_ID: 1},
            ).to_list(None)
        return [(d[n.LG_F_THREAD_ID], d[n.LG_F_CHECKPOINT_NS], d[n.LG_F_CHECKPOINT_ID]) for d in docs]

    async def threads(self, limit: int) -> list[ThreadInfo]:
        pipeline: list[dict[str, Any]] = [
            {"$match": dict(STORED)},
            {
                "$group": {
                    _ID: "$" + n.LG_F_THREAD_ID,
                    "checkpoints": {"$sum": 1},
                    "namespaces": {"$addToSet": "$" + n.LG_F_CHECKPOINT_NS},
                    "latest": {"$max": "$" + n.LG_F_CHECKPOINT_ID},
                }
            },
            {"$sort": {"latest": -1}},
            {"$limit": limit},
        ]
        with failures(CheckpointStoreError, "list of threads"):
            groups = await (await self.checkpoints.aggregate(pipeline)).to_list(None)
            states = {
                d[_ID]: d
                for d in await self.threads_collection.find({_ID: {"$in": [g[_ID] for g in groups]}}).to_list(None)
            }
        infos = []
        for group in groups:
            state = states.get(group[_ID], {})
            token = state.get(n.LG_F_FENCING_TOKEN)
            infos.append(
                ThreadInfo(
                    thread_id=group[_ID],
                    checkpoints=int(group["checkpoints"]),
                    namespaces=tuple(sorted(group["namespaces"])),
                    latest_checkpoint_id=group["latest"],
                    fencing_token=None if token is None else int(token),
                    expires_at=state.get(n.LG_F_EXPIRES_AT),
                    state="expired" if n.LG_F_EXPIRED_AT in state or n.LG_F_SWEEPING in state else "live",
                )
            )
        return infos

    # --- large values (GridFS layout, through the one chunk reader/writer) ---------------------------------

    async def put_large(self, thread_id: str, checkpoint_ns: str, data: bytes) -> Any:
        writer = AsyncChunkWriter(self.chunks, ObjectId(), self.chunk_size)
        metadata = {n.LG_META_THREAD_ID: thread_id, n.LG_META_CHECKPOINT_NS: checkpoint_ns}
        with failures(CheckpointStoreError, f"large-value upload of thread {thread_id!r}"):
            try:
                await writer.write(data)
                await writer.finish()
                await self.files.insert_one(writer.files_document(thread_id, metadata, datetime.now(UTC)))
            except BaseException:
                try:
                    await writer.discard()
                except PyMongoError:
                    pass
                raise
        return writer.file_id

    async def get_large(self, file_id: Any) -> bytes:
        with failures(CheckpointStoreError, f"large-value read {file_id!r}"):
            meta = await self.files.find_one({_ID: file_id})
            if meta is None:
                raise CheckpointStoreError(f"large value {file_id!r} is missing (its thread was deleted?)")
            reader = AsyncChunkReader(self.chunks, file_id, int(meta[n.GRIDFS_LENGTH]), int(meta[n.GRIDFS_CHUNK_SIZE]))
            try:
                return await reader.read()
            except MissingChunks as exc:
                raise CheckpointStoreError(f"large value {file_id!r} is missing chunks") from exc

    async def delete_large(self, file_ids: Sequence[Any]) -> None:
        ids = list(file_ids)
        if not ids:
            return
        with failures(CheckpointStoreError, f"delete of {len(ids)} large values"):
            await self.files.delete_many({_ID: {"$in": ids}})  # files first: a file never outlives its chunks
            await self.chunks.delete_many({n.GRIDFS_FILES_ID: {"$in": ids}})

    # --- deletes and copies ----------------------------------------------------------------------------

    async def insert_copies(self, records: Sequence[CheckpointRecord]) -> None:
        ops = [
            ReplaceOne(identity(r.thread_id, r.checkpoint_ns, r.checkpoint_id), checkpoint_document(r), upsert=True)
            for r in records
        ]
        with failures(CheckpointStoreError, f"copy of {len(ops)} checkpoints"):
            for start in range(0, len(ops), 64):
                await self.checkpoints.bulk_write(ops[start : start + 64])

    async def _drop_data(self, thread_id: str, keep: set[Any]) -> None:
        await self.checkpoints.delete_many({n.LG_F_THREAD_ID: thread_id})
        files = await self.files.find(
            {f"{n.GRIDFS_METADATA}.{n.LG_META_THREAD_ID}": thread_id}, projection={_ID: 1}
        ).to_list(None)
        await self.delete_large([f[_ID] for f in files if f[_ID] not in keep])

    async def delete_thread(self, thread_id: str) -> None:
        with failures(CheckpointStoreError, f"delete of thread {thread_id!r}"):
            await self._drop_data(thread_id, set())
            state = await self.threads_collection.find_one({_ID: thread_id})
            if state is None:
                return
            if state.get(n.LG_F_FENCING_TOKEN) is None:
                await self.threads_collection.delete_one({_ID: thread_id})
            else:
                await self.threads_collection.replace_one(
                    {_ID: thread_id}, {n.LG_F_FENCING_TOKEN: state[n.LG_F_FENCING_TOKEN]}
                )

    async def delete_checkpoints(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_ids: Sequence[str],
        relocations: Sequence[Relocation],
        drop_files: Sequence[Any],
    ) -> None:
        with failures(CheckpointStoreError, f"delete of {len(checkpoint_ids)} checkpoints of thread {thread_id!r}"):
            for move in relocations:
                await self.checkpoints.update_one(
                    identity(thread_id, checkpoint_ns, move.checkpoint_id),
                    {"$push": {n.LG_F_VALUES: {"$each": [value_document(v) for v in move.values]}}},
                )
            await self.checkpoints.delete_many(
                {
                    n.LG_F_THREAD_ID: thread_id,
                    n.LG_F_CHECKPOINT_NS: checkpoint_ns,
                    n.LG_F_CHECKPOINT_ID: {"$in": list(checkpoint_ids)},
                }
            )
        await self.delete_large(drop_files)

    async def sweep_expired(self, limit: int) -> list[str]:
        swept: list[str] = []
        stale = span_ms(_STALE_SWEEP)
        with failures(CheckpointStoreError, "sweep of expired threads"):
            while len(swept) < limit:
                doc = await self.threads_collection.find_one_and_update(
                    {
                        n.LG_F_EXPIRED_AT: {"$exists": False},
                        "$or": [
                            {
                                n.LG_F_SWEEPING: {"$exists": False},
                                n.LG_F_EXPIRES_AT: {"$exists": True},
                                "$expr": {"$lte": ["$" + n.LG_F_EXPIRES_AT, NOW]},
                            },
                            {
                                n.LG_F_SWEEPING: {"$exists": True},
                                "$expr": {"$lte": ["$" + n.LG_F_SWEEPING, {"$add": [NOW, Int64(-stale)]}]},
                            },
                        ],
                    },
                    [{"$set": {n.LG_F_SWEEPING: NOW}}],
                    return_document=ReturnDocument.AFTER,
                )
                if doc is None:
                    break
                thread_id = doc[_ID]
                await self._drop_data(thread_id, set())
                ttl_ms = int(doc.get(n.LG_F_TTL_MS) or 0)
                await self.threads_collection.update_one(
                    {_ID: thread_id},
                    [
                        {"$set": {n.LG_F_EXPIRED_AT: NOW, n.LG_F_PURGE_AT: {"$add": [NOW, Int64(max(ttl_ms, 1))]}}},
                        {"$unset": [n.LG_F_SWEEPING, n.LG_F_EXPIRES_AT]},
                    ],
                )
                swept.append(thread_id)
        return swept


def default_lease_store(database: AsyncDatabase[Any]) -> AsyncSessionLeaseStore:
    """The lease store of a saver given none: MongoDB's on the default ``conversation_locks`` collection of
    ``database``, majority write and read concern (as the session bundle builds it)."""
    return AsyncMongoSessionLeaseStore(durable(database[n.MONGO_LOCKS], MAJORITY))


@exported_from("aimon_mongo.langgraph")
class AsyncAimonCheckpointSaver(AsyncCheckpointSaverBase):
    """LangGraph checkpoint saver on MongoDB, native async (``AsyncMongoClient``).

    ``database`` is an ``AsyncDatabase`` (borrowed; run ``ensure_schema`` / ``db/mongodb/init.js`` on it
    once). Write ownership takes leases from ``leases``, any lease store (default: the MongoDB lease store on
    ``conversation_locks`` of the same database, majority concern — what ``AsyncMongoSessionBackends(database,
    ...).leases`` is), held as ``node_id``. Other keyword arguments as for
    :class:`AsyncCheckpointSaverBase` (``ttl``, ``refresh_on_read``, ``inline_limit``, ...).
    """

    def __init__(
        self,
        database: AsyncDatabase[Any],
        *,
        leases: AsyncSessionLeaseStore | None = None,
        node_id: str = "langgraph",
        chunk_size: int = n.LG_VALUES_CHUNK_SIZE,
        **options: Any,
    ) -> None:
        require_instance(database, AsyncDatabase, "database")
        if leases is None:
            leases = default_lease_store(database)
        self.database = database
        self._owned_client: AsyncMongoClient[Any] | None = None
        super().__init__(AsyncMongoCheckpointDriver(database, chunk_size), leases=leases, node_id=node_id, **options)

    @classmethod
    def from_conn_string(
        cls, conn_string: str, db_name: str = n.DEFAULT_SESSION_DATABASE, *, ensure: bool = True, **options: Any
    ) -> _OwnedSaver:
        """``async with AsyncAimonCheckpointSaver.from_conn_string(uri) as saver:`` — a saver on its own client
        (closed on exit), database ``db_name``, with the schema ensured first unless ``ensure=False``."""
        return _OwnedSaver(cls, conn_string, db_name, ensure, options)

    async def aclose(self) -> None:
        """Close the client if this saver opened it (``from_conn_string``)."""
        if self._owned_client is not None:
            await self._owned_client.close()
            self._owned_client = None


class _OwnedSaver:
    """The context manager of :meth:`AsyncAimonCheckpointSaver.from_conn_string`."""

    def __init__(
        self, cls: type[AsyncAimonCheckpointSaver], uri: str, db_name: str, ensure: bool, options: Mapping[str, Any]
    ) -> None:
        self._cls = cls
        self._uri = require_id(uri, "conn_string")
        self._db_name = require_id(db_name, "db_name")
        self._ensure = ensure
        self._options = dict(options)
        self._saver: AsyncAimonCheckpointSaver | None = None

    async def __aenter__(self) -> AsyncAimonCheckpointSaver:
        from aimon_mongo._async.mongo.schema import ensure_schema

        client: AsyncMongoClient[Any] = open_client(AsyncMongoClient, self._uri)
        try:
            database = client[self._db_name]
            if self._ensure:
                await ensure_schema(database)
            saver = self._cls(database, **self._options)
        except BaseException:
            await client.close()
            raise
        saver._owned_client = client
        self._saver = saver
        return saver

    async def __aexit__(self, *exc: object) -> None:
        if self._saver is not None:
            await self._saver.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._db_name!r})"

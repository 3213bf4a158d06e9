"""The MongoDB inspection driver: aggregations and index seeks on the session collections (raw PyMongo).

Keyset pages by session id (so 100k sessions are never one answer): the ids come from a skip-scan of each
collection's session index (one single-document ``find`` per distinct session, jumping past the previous
one), so a page costs ``O(limit)`` index seeks whatever the number of entries or sessions; the figures are
then counted for those sessions only. Lease states are decided on the server's clock (``$$NOW``), like the
lease store decides them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from pymongo.synchronous.collection import Collection
from pymongo.synchronous.database import Database

from aimon_mongo import names as n
from aimon_mongo.codec.task import task_from_mongo
from aimon_mongo.inspect.service import ClaimedEntry, LeaseState, Waiting
from aimon_mongo.model import BackgroundTask, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.documents import alive, object_id, quarantined_from_document, task_filter

Doc = dict[str, Any]


class MongoInspectionDriver:
    """Inspection of the session collections of ``database`` (collection names ``names``)."""

    backend = "MongoDB"

    def __init__(self, database: Database[Doc], names: MongoCollectionNames | None = None) -> None:
        self.database = database
        self.names = names or MongoCollectionNames()

    def server_time(self) -> datetime | None:
        # command() decodes with PyMongo's default options unless told: naive datetimes, without their zone
        found = self.database.command("hello", codec_options=self.database.codec_options).get("localTime")
        return found if isinstance(found, datetime) else None

    def sessions_after(self, after: str, limit: int) -> list[str]:
        ids: set[str] = set()
        for collection in (self.names.inbox, self.names.quarantine):
            ids.update(distinct_after(self.database[collection], n.F_CONVERSATION_ID, after, limit))
        locks = self.database[self.names.locks].find({n.F_ID: {"$gt": after}}, {n.F_ID: 1}).sort(n.F_ID, 1)
        ids.update(str(doc[n.F_ID]) for doc in locks.limit(limit))
        return sorted(ids)[:limit]

    def waiting(self, sessions: Sequence[str] | None) -> Iterator[Waiting]:
        groups = self.database[self.names.inbox].aggregate(
            [
                *_match(sessions),
                {
                    "$group": {
                        "_id": {"s": f"${n.F_CONVERSATION_ID}", "p": f"${n.F_PRIORITY}"},
                        "count": {"$sum": 1},
                        "oldest": {"$min": f"${n.F_DELIVERED_AT}"},
                    }
                },
            ]
        )
        for group in groups:
            yield group["_id"].get("s"), group["_id"].get("p"), group["count"], group.get("oldest")

    def quarantined(self, sessions: Sequence[str] | None) -> Iterator[tuple[str, int]]:
        groups = self.database[self.names.quarantine].aggregate(
            [*_match(sessions), {"$group": {"_id": f"${n.F_CONVERSATION_ID}", "count": {"$sum": 1}}}]
        )
        for group in groups:
            yield str(group["_id"]), group["count"]

    def claimed(self, sessions: Sequence[str] | None) -> Iterator[ClaimedEntry]:
        query: Doc = {n.F_CLAIM_TOKEN: {"$exists": True}}
        if sessions is not None:
            query[n.F_CONVERSATION_ID] = {"$in": list(sessions)}
        fields = {n.F_CONVERSATION_ID: 1, n.F_CLAIM_TOKEN: 1, n.F_CLAIM_ATTEMPTS: 1, n.F_CLAIMED_AT: 1}
        for doc in self.database[self.names.inbox].find(query, fields):
            yield ClaimedEntry(
                session_id=str(doc.get(n.F_CONVERSATION_ID)),
                entry_id=str(doc[n.F_ID]),
                claim_token=int(doc[n.F_CLAIM_TOKEN]),
                attempts=int(doc.get(n.F_CLAIM_ATTEMPTS) or 0),
                claimed_at=doc.get(n.F_CLAIMED_AT),
            )

    def leases(self, sessions: Sequence[str] | None) -> list[LeaseState]:
        locks = self.database[self.names.locks]
        scope = {} if sessions is None else {n.F_ID: {"$in": list(sessions)}}
        live = {doc[n.F_ID] for doc in locks.find({**scope, "$expr": alive(n.F_LEASE_EXPIRES_AT)}, {n.F_ID: 1})}
        rows: list[LeaseState] = []
        for doc in locks.find(scope).sort(n.F_ID, 1):
            holder = doc.get(n.F_HOLDER_ID)
            token = doc.get(n.F_FENCING_TOKEN)
            rows.append(
                LeaseState(
                    session_id=str(doc[n.F_ID]),
                    state="released" if holder is None else ("held" if doc[n.F_ID] in live else "expired"),
                    holder_id=holder,
                    fencing_token=None if token is None else int(token),
                    acquired_at=doc.get(n.F_ACQUIRED_AT),
                    expires_at=doc.get(n.F_LEASE_EXPIRES_AT),
                )
            )
        return rows

    def quarantine_page(
        self, session_id: str | None, after: str | None, limit: int
    ) -> tuple[list[QuarantinedEntry], str | None]:
        query: Doc = {} if session_id is None else {n.F_CONVERSATION_ID: session_id}
        if after is not None:
            start = object_id(after)
            if start is None:
                return [], None
            query[n.F_ID] = {"$gt": start}
        docs = list(self.database[self.names.quarantine].find(query).sort(n.F_ID, 1).limit(limit + 1))
        entries = [quarantined_from_document(doc) for doc in docs[:limit]]
        return entries, (entries[-1].id if len(docs) > limit and entries else None)

    def find_quarantined(self, quarantine_id: str) -> QuarantinedEntry | None:
        oid = object_id(quarantine_id)
        doc = None if oid is None else self.database[self.names.quarantine].find_one({n.F_ID: oid})
        return None if doc is None else quarantined_from_document(doc)

    def tasks_page(self, query: TaskQuery | None, offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
        found = self.database[self.names.tasks].find(task_filter(query)).sort(n.F_ID, 1)
        docs = list(found.skip(offset).limit(limit + 1))
        tasks = [task_from_mongo(doc) for doc in docs[:limit]]
        if query is not None:
            tasks = [task for task in tasks if query.matches(task)]
        return tasks, len(docs) > limit

    def close(self) -> None:
        """Nothing to close: the database is borrowed."""


def _match(sessions: Sequence[str] | None) -> list[Doc]:
    return [] if sessions is None else [{"$match": {n.F_CONVERSATION_ID: {"$in": list(sessions)}}}]


def distinct_after(collection: Collection[Doc], field: str, after: str, limit: int) -> list[str]:
    """Up to ``limit`` distinct string values of ``field`` above ``after``, in order, by index seeks (one
    single-document ``find`` per value) rather than by grouping every document."""
    found: list[str] = []
    cursor = after
    while len(found) < limit:
        doc = collection.find_one({field: {"$gt": cursor}}, {field: 1, n.F_ID: 0}, sort=[(field, 1)])
        value = None if doc is None else doc.get(field)
        if not isinstance(value, str):
            break
        found.append(value)
        cursor = value
    return found

"""Operator views over the MongoDB session collections, a page at a time (the CLI and the web console).

Read-only queries: which sessions have waiting entries, a lease record or quarantined entries (keyset
pages by session id, so 100k sessions are never one answer), their inbox depth per priority, their lease
state decided on the server's clock (like the lease store decides it), and pages of quarantined entries
and task records. Nothing here writes; replay and delete go through the inbox store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pymongo.synchronous.collection import Collection
from pymongo.synchronous.database import Database

from aimon_mongo import names as n
from aimon_mongo.codec.task import task_from_mongo
from aimon_mongo.model import BackgroundTask, Priority, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.documents import alive, object_id, quarantined_from_document, task_filter

PRIORITY_NAMES = {p.ordinal: p.name for p in Priority}
"""Stored priority ordinal -> name (an unknown ordinal counts as ``other``)."""

Doc = dict[str, Any]


def _scope(sessions: Sequence[str] | None, field: str) -> Doc:
    return {} if sessions is None else {field: {"$in": list(sessions)}}


def empty_stats(session_id: str) -> Doc:
    """The figures of a session with nothing waiting and nothing quarantined."""
    return {
        "session_id": session_id,
        **{name: 0 for name in PRIORITY_NAMES.values()},
        "other": 0,
        "total": 0,
        "oldest": None,
        "quarantined": 0,
    }


def inbox_stats(database: Database[Doc], inbox: str, quarantine: str, sessions: Sequence[str] | None) -> list[Doc]:
    """Per session (of ``sessions``, or all): entries per priority, total, oldest delivery, quarantined
    entries; sorted by session id. Only sessions with a waiting or quarantined entry appear."""
    match = [] if sessions is None else [{"$match": _scope(sessions, n.F_CONVERSATION_ID)}]
    by_priority = database[inbox].aggregate(
        [
            *match,
            {
                "$group": {
                    "_id": {"s": f"${n.F_CONVERSATION_ID}", "p": f"${n.F_PRIORITY}"},
                    "count": {"$sum": 1},
                    "oldest": {"$min": f"${n.F_DELIVERED_AT}"},
                }
            },
        ]
    )
    quarantined = database[quarantine].aggregate(
        [*match, {"$group": {"_id": f"${n.F_CONVERSATION_ID}", "count": {"$sum": 1}}}]
    )
    rows: dict[str, Doc] = {}

    def row(session: object) -> Doc:
        key = str(session)
        return rows.setdefault(key, empty_stats(key))

    for group in by_priority:
        entry = row(group["_id"].get("s"))
        name = PRIORITY_NAMES.get(group["_id"].get("p"), "other")
        entry[name] += group["count"]
        entry["total"] += group["count"]
        oldest = group.get("oldest")
        if isinstance(oldest, datetime) and (entry["oldest"] is None or oldest < entry["oldest"]):
            entry["oldest"] = oldest
    for group in quarantined:
        row(group["_id"])["quarantined"] += group["count"]
    return [rows[key] for key in sorted(rows)]


def lease_states(locks: Collection[Doc], sessions: Sequence[str] | None) -> list[Doc]:
    """The lock documents (of ``sessions``, or all) sorted by session id, each with its state on the
    server's clock: ``held`` (holder, expiry in the future), ``expired`` (holder, lease ran out),
    ``released`` (no holder). The fencing token is given in every state: it only ever grows."""
    scope = _scope(sessions, n.F_ID)
    live = {doc[n.F_ID] for doc in locks.find({**scope, "$expr": alive(n.F_LEASE_EXPIRES_AT)}, {n.F_ID: 1})}
    rows = []
    for doc in locks.find(scope).sort(n.F_ID, 1):
        holder = doc.get(n.F_HOLDER_ID)
        state = "released" if holder is None else ("held" if doc[n.F_ID] in live else "expired")
        token = doc.get(n.F_FENCING_TOKEN)
        rows.append(
            {
                "session_id": str(doc[n.F_ID]),
                "state": state,
                "holder_id": holder,
                "fencing_token": None if token is None else int(token),
                "acquired_at": doc.get(n.F_ACQUIRED_AT),
                "expires_at": doc.get(n.F_LEASE_EXPIRES_AT),
            }
        )
    return rows


def session_page(
    database: Database[Doc], names: MongoCollectionNames, after: str, limit: int
) -> tuple[list[Doc], str | None]:
    """Sessions whose id sorts after ``after`` that have a waiting entry, a quarantined entry or a lease
    record: at most ``limit`` rows (inbox depth per priority plus ``lease``, the lease state or ``None``),
    and the cursor of the next page (``None`` on the last).

    The ids come from a skip-scan of each collection's session index (one ``find`` of one document per
    distinct session, jumping past the previous one), so a page costs ``O(limit)`` index seeks whatever
    the number of entries or sessions; the figures are then counted for those sessions only."""
    ids: set[str] = set()
    for collection in (names.inbox, names.quarantine):
        ids.update(distinct_after(database[collection], n.F_CONVERSATION_ID, after, limit + 1))
    locks = database[names.locks].find({n.F_ID: {"$gt": after}}, {n.F_ID: 1}).sort(n.F_ID, 1).limit(limit + 1)
    ids.update(str(doc[n.F_ID]) for doc in locks)
    ordered = sorted(ids)
    page, more = ordered[:limit], len(ordered) > limit
    stats = {row["session_id"]: row for row in inbox_stats(database, names.inbox, names.quarantine, page)}
    leases = {row["session_id"]: row for row in lease_states(database[names.locks], page)}
    rows = []
    for session in page:
        row = stats.get(session) or empty_stats(session)
        rows.append({**row, "lease": leases.get(session)})
    return rows, (page[-1] if more and page else None)


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


def quarantine_page(
    collection: Collection[Doc], session_id: str | None, after: str | None, limit: int
) -> tuple[list[QuarantinedEntry], str | None]:
    """Quarantined entries oldest first (by id), of one session or of all, after the entry ``after``: at
    most ``limit``, and the cursor of the next page (``None`` on the last)."""
    query: Doc = {} if session_id is None else {n.F_CONVERSATION_ID: session_id}
    if after is not None:
        start = object_id(after)
        if start is None:
            return [], None
        query[n.F_ID] = {"$gt": start}
    docs = list(collection.find(query).sort(n.F_ID, 1).limit(limit + 1))
    entries = [quarantined_from_document(doc) for doc in docs[:limit]]
    return entries, (entries[-1].id if len(docs) > limit and entries else None)


def find_quarantined(collection: Collection[Doc], quarantine_id: str) -> QuarantinedEntry | None:
    """One quarantined entry with its raw document, or ``None`` (also for an id that is no ObjectId)."""
    oid = object_id(quarantine_id)
    doc = None if oid is None else collection.find_one({n.F_ID: oid})
    return None if doc is None else quarantined_from_document(doc)


def tasks_page(
    collection: Collection[Doc], query: TaskQuery | None, offset: int, limit: int
) -> tuple[list[BackgroundTask], bool]:
    """Task records matching ``query`` by task id, ``limit`` from ``offset``; and whether more follow."""
    docs = list(collection.find(task_filter(query)).sort(n.F_ID, 1).skip(offset).limit(limit + 1))
    tasks = [task_from_mongo(doc) for doc in docs[:limit]]
    if query is not None:
        tasks = [task for task in tasks if query.matches(task)]
    return tasks, len(docs) > limit

"""The Redis inspection driver: ``SCAN`` over the session key families, ``XLEN`` / ``XRANGE`` per stream.

Redis keeps no index by session, so listing sessions scans the inbox keys and the lease keys once per
page (``O(keys)``; the figures are then read for the page's sessions only, one pipeline each). The
oldest delivery of a tier is its first stream entry's id (the server's clock when it was appended). A
lease key expires with its lease, so a lease is ``held`` or, once only its fencing counter is left,
``released`` (there is no ``expired`` record, and the acquisition time is not kept). Claimed entries come
from each session's claims hash (``<tier>:<stream id>`` -> ``<token>:<attempts>``), those whose stream
entry is still stored (a collect may have removed it; the field lingers until the streams are empty); the
claim time is not kept. Quarantine pages
and task pages read through the bundle's stores (their own order), sliced here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from aimon_mongo.codec.instant import from_epoch_millis
from aimon_mongo.errors import AimonStorageError
from aimon_mongo.inspect.service import ClaimedEntry, LeaseState, Waiting, listed_page, page_after
from aimon_mongo.model import BackgroundTask, Priority, TaskQuery
from aimon_mongo.model.record import QuarantinedEntry

if TYPE_CHECKING:
    from aimon_mongo.redis import RedisSessionBackends

SCAN_COUNT = 512
QUARANTINE_READ_LIMIT = 1_000_000
"""The most quarantined entries a quarantine page is chosen from (the store lists them whole)."""


class RedisInspectionDriver:
    """Inspection of the keys of one Redis bundle (its client, key prefixes and layout)."""

    backend = "Redis"

    def __init__(self, bundle: RedisSessionBackends) -> None:
        self._bundle = bundle
        self._io = bundle._io  # the bundle's client wrapper: failure translation, cluster-aware SCAN
        self._keys = bundle.keys

    def _scan(self, pattern: str) -> Iterator[str]:
        cursor = 0
        while True:
            cursor, batch = self._io.scan(cursor, pattern, SCAN_COUNT)
            for raw in batch:
                yield raw.decode("utf-8", "replace")
            if int(cursor) == 0:
                return

    def _inbox_sessions(self) -> set[str]:
        return {s for key in self._scan(self._keys.inbox_scan_pattern()) if (s := self._keys.session_of_inbox_key(key))}

    def _lock_sessions(self) -> set[str]:
        return {s for key in self._scan(self._keys.lock_scan_pattern()) if (s := self._keys.session_of_lock_key(key))}

    def server_time(self) -> datetime | None:
        with self._io.guard(AimonStorageError, "server time"):
            seconds, micros = self._io.call("TIME")
        return from_epoch_millis(int(seconds) * 1000 + int(micros) // 1000)

    def sessions_after(self, after: str, limit: int) -> list[str]:
        with self._io.guard(AimonStorageError, "session listing"):
            found = self._inbox_sessions() | self._lock_sessions()
        return sorted(s for s in found if s > after)[:limit]

    def waiting(self, sessions: Sequence[str] | None) -> Iterator[Waiting]:
        with self._io.guard(AimonStorageError, "inbox figures"):
            scope = sorted(self._inbox_sessions()) if sessions is None else list(sessions)
            pipe = self._io.pipeline()
            for sid in scope:
                for stream in self._keys.inbox_streams(sid):
                    self._io.queue(pipe, "XLEN", stream)
                    self._io.queue(pipe, "XRANGE", stream, "-", "+", "COUNT", 1)
            replies = pipe.execute() if scope else []
        at = 0
        for sid in scope:
            for priority in Priority:
                length, first = int(replies[at]), replies[at + 1]
                at += 2
                if length:
                    oldest = from_epoch_millis(int(first[0][0].split(b"-", 1)[0])) if first else None
                    yield sid, priority.ordinal, length, oldest

    def quarantined(self, sessions: Sequence[str] | None) -> Iterator[tuple[str, int]]:
        with self._io.guard(AimonStorageError, "quarantine figures"):
            scope = sorted(self._inbox_sessions()) if sessions is None else list(sessions)
            pipe = self._io.pipeline()
            for sid in scope:
                self._io.queue(pipe, "XLEN", self._keys.quarantine(sid))
            counts = pipe.execute() if scope else []
        yield from ((sid, int(count)) for sid, count in zip(scope, counts, strict=True) if int(count))

    def claimed(self, sessions: Sequence[str] | None) -> Iterator[ClaimedEntry]:
        with self._io.guard(AimonStorageError, "claimed entries"):
            scope = sorted(self._inbox_sessions()) if sessions is None else list(sessions)
            pipe = self._io.pipeline()
            for sid in scope:
                self._io.queue(pipe, "HGETALL", self._keys.claims(sid))
            hashes = pipe.execute() if scope else []
            found: list[tuple[str, str, int, int]] = []
            pipe = self._io.pipeline()
            for sid, fields in zip(scope, hashes, strict=True):
                for field, value in sorted((fields or {}).items()):
                    tier, _, stream_id = field.decode("utf-8", "replace").partition(":")
                    token, _, attempts = value.decode("utf-8", "replace").partition(":")
                    if tier not in Priority.__members__ or not token.isdigit() or not attempts.isdigit():
                        continue  # not a field the claim script writes
                    found.append((sid, stream_id, int(token), int(attempts)))
                    self._io.queue(pipe, "XRANGE", self._keys.inbox_stream(sid, Priority[tier]), stream_id, stream_id)
            stored = pipe.execute() if found else []
        for (sid, stream_id, token, attempts), entries in zip(found, stored, strict=True):
            if entries:
                yield ClaimedEntry(
                    session_id=sid, entry_id=stream_id, claim_token=token, attempts=attempts, claimed_at=None
                )

    def leases(self, sessions: Sequence[str] | None) -> list[LeaseState]:
        with self._io.guard(AimonStorageError, "lease listing"):
            scope = sorted(self._lock_sessions()) if sessions is None else sorted(set(sessions))
            tokens = self._io.get_many([self._keys.lock_fence(sid) for sid in scope]) if scope else []
        rows: list[LeaseState] = []
        for sid, counter in zip(scope, tokens, strict=True):
            lease = self._bundle.leases.find_holder(sid)
            if lease is None and counter is None:
                continue  # never leased
            token = lease.fencing_token if lease is not None else int(counter or 0) or None
            rows.append(
                LeaseState(
                    session_id=sid,
                    state="held" if lease is not None else "released",
                    holder_id=None if lease is None else lease.holder_id,
                    fencing_token=token,
                    acquired_at=None,
                    expires_at=None if lease is None else lease.expires_at,
                )
            )
        return rows

    def quarantine_page(
        self, session_id: str | None, after: str | None, limit: int
    ) -> tuple[list[QuarantinedEntry], str | None]:
        return page_after(self._bundle.inbox.list_quarantined(session_id, QUARANTINE_READ_LIMIT), after, limit)

    def find_quarantined(self, quarantine_id: str) -> QuarantinedEntry | None:
        session_id = quarantine_id.rpartition("/")[0]
        if not session_id.strip():
            return None
        entries = self._bundle.inbox.list_quarantined(session_id, QUARANTINE_READ_LIMIT)
        return next((entry for entry in entries if entry.id == quarantine_id), None)

    def tasks_page(self, query: TaskQuery | None, offset: int, limit: int) -> tuple[list[BackgroundTask], bool]:
        return listed_page(self._bundle.tasks.list(query), offset, limit)

    def close(self) -> None:
        """Nothing to close: the bundle's client is borrowed."""

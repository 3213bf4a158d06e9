# GENERATED from aimon_mongo/_async/services/records.py by scripts/gen_sync.py; do not edit.
"""The session-record service (generated from the ``_async`` source): every rule of the port
:class:`~aimon_mongo._sync.ports.SessionRecordStore`, over a driver of one store's fenced primitives.

The service checks every argument, encodes the totals (one codec for every store), names failures in
:class:`~aimon_mongo.errors.SessionRecordStoreError` and refuses a stale fencing token with
:class:`~aimon_mongo.errors.StaleFencingTokenError` (see :mod:`aimon_mongo.services.fencing`). A driver
runs each fenced write as one atomic step — the session's fence check (shared with the log segments) and
the write — and reads the record in its own stored layout, which it decodes (:meth:`RecordDriver.decode`).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Generic, Protocol, TypeVar

from pydantic import JsonValue

from aimon_mongo.codec.totals import encode_totals
from aimon_mongo.errors import InvalidArgumentError, SessionRecordStoreError
from aimon_mongo.exported import exported_from
from aimon_mongo.model.record import SessionRecord, SessionTotals
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.fencing import Stale, accepted
from aimon_mongo.stored.session_record import SessionTotalsJson
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import optional_budget_override, optional_id, require_id, require_instance, require_token

Raw = TypeVar("Raw")


class RecordDriver(Protocol[Raw]):
    """One store's record primitives. Each write is fenced: when ``token`` is below the highest token the
    session's fence accepted, nothing is written and the primitive returns :class:`Stale`; otherwise the
    token becomes the fence's highest, atomically with the write. Arguments arrive checked."""

    failures: Failures

    def merge_transcript(self, session_id: str, transcript: str, token: int) -> Stale | None:
        """Set the transcript (and the update time), creating the record when missing."""
        ...

    def provision(self, session_id: str, agent_ref: str | None, token: int) -> Raw | Stale:
        """Create the record when missing, bind ``agent_ref`` when it has no binding; the record after."""
        ...

    def set_totals(
        self, session_id: str, totals: SessionTotalsJson, override: dict[str, Any] | None, token: int
    ) -> Stale | None:
        """On an existing record only: set the totals and the override (``None`` removes it)."""
        ...

    def increment_failures(self, session_id: str, token: int) -> int | Stale:
        """On an existing record only: add one to the compaction failure count; the new count, else 0."""
        ...

    def reset_failures(self, session_id: str, token: int) -> Stale | None:
        """On an existing record only: set the compaction failure count to 0."""
        ...

    def delete(self, session_id: str, token: int) -> Stale | None:
        """Remove the record, if any (the fence stays)."""
        ...

    def load(self, session_id: str) -> Raw | None:
        """The stored record, undecoded; ``None`` when there is none."""
        ...

    def load_many(self, session_ids: Sequence[str]) -> list[tuple[str, Raw]]:
        """``(session id, stored record)`` of those of ``session_ids`` (distinct, at least one) that exist,
        undecoded, in any order. One request."""
        ...

    def decode(self, raw: Raw, session_id: str) -> SessionRecord:
        """The record in ``raw`` (a :class:`~aimon_mongo.errors.CodecError` when it cannot be read)."""
        ...

    def exists(self, session_id: str) -> bool: ...

    def list_session_ids(self) -> list[str]: ...


@exported_from("aimon_mongo.services")
@traced("records")
class RecordStore(Generic[Raw]):
    """Session records, written by partial, atomic, fenced writes (the port's contract); a backend's
    public record store is this service bound to its driver."""

    def __init__(self, driver: RecordDriver[Raw]) -> None:
        self._driver = driver

    __repr__ = composed_repr

    @property
    def driver(self) -> RecordDriver[Raw]:
        """The store's primitives (driver-level tests reach them here)."""
        return self._driver

    def _failures(self, action: str) -> AbstractContextManager[None]:
        return self._driver.failures(SessionRecordStoreError, action)

    def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        """Write the encoded transcript, preserving the side fields; creates the record if missing."""
        sid = require_id(session_id, "session_id")
        require_instance(transcript, str, "transcript")
        token = require_token(fencing_token)
        with self._failures(f"merge_transcript of session {sid!r}"):
            accepted(self._driver.merge_transcript(sid, transcript, token), sid, token)

    def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        """Ensure the record exists and, when it has no agent binding yet, bind ``agent_ref``; an existing
        binding is never overwritten. Returns the record as it stands afterwards."""
        sid = require_id(session_id, "session_id")
        ref = optional_id(agent_ref, "agent_ref")
        token = require_token(fencing_token)
        with self._failures(f"provision of session {sid!r}"):
            raw = accepted(self._driver.provision(sid, ref, token), sid, token)
        return self._driver.decode(raw, sid)

    def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, JsonValue] | None,
        fencing_token: int,
    ) -> None:
        """Write both fields absolutely (``None`` clears the override). No-op when no record exists."""
        sid = require_id(session_id, "session_id")
        encoded = encode_totals(require_instance(totals, SessionTotals, "totals"))
        override = optional_budget_override(budget_override)
        token = require_token(fencing_token)
        with self._failures(f"set_totals_and_budget_override of session {sid!r}"):
            accepted(self._driver.set_totals(sid, encoded, override, token), sid, token)

    def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        """Atomically add one and return the new count; 0 (no-op) when no record exists."""
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with self._failures(f"increment_compaction_failure_count of session {sid!r}"):
            return accepted(self._driver.increment_failures(sid, token), sid, token)

    def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        """Set the count back to 0. No-op when no record exists."""
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with self._failures(f"reset_compaction_failure_count of session {sid!r}"):
            accepted(self._driver.reset_failures(sid, token), sid, token)

    def load(self, session_id: str) -> SessionRecord | None:
        """The record, or ``None``."""
        sid = require_id(session_id, "session_id")
        with self._failures(f"load of session {sid!r}"):
            raw = self._driver.load(sid)
        return None if raw is None else self._driver.decode(raw, sid)

    def load_many(self, session_ids: Sequence[str]) -> dict[str, SessionRecord]:
        """The records of ``session_ids`` that exist, by session id; one request to the store, however many."""
        if isinstance(session_ids, str) or not isinstance(session_ids, Sequence):
            raise InvalidArgumentError(f"session_ids must be a sequence of str, got {type(session_ids).__name__}")
        wanted = list(dict.fromkeys(require_id(sid, "session_ids[]") for sid in session_ids))
        if not wanted:
            return {}
        with self._failures(f"load of {len(wanted)} sessions"):
            raws = self._driver.load_many(wanted)
        return {sid: self._driver.decode(raw, sid) for sid, raw in raws}

    def exists(self, session_id: str) -> bool:
        """Whether the session has a record."""
        sid = require_id(session_id, "session_id")
        with self._failures(f"exists of session {sid!r}"):
            return self._driver.exists(sid)

    def list_session_ids(self) -> list[str]:
        """The ids of every session with a record."""
        with self._failures("list of session ids"):
            return self._driver.list_session_ids()

    def delete(self, session_id: str, fencing_token: int) -> None:
        """Delete the record (no-op when missing); the session's fence stays."""
        sid = require_id(session_id, "session_id")
        token = require_token(fencing_token)
        with self._failures(f"delete of session {sid!r}"):
            accepted(self._driver.delete(sid, token), sid, token)

# GENERATED from aimon_mongo/memory/_async/records.py by scripts/gen_sync.py; do not edit.
"""The in-memory session-record store (generated from the ``_async`` source)."""

from __future__ import annotations

import logging

from pydantic import JsonValue

from aimon_mongo.memory.storage import MemoryStorage
from aimon_mongo.model.record import (
    SessionRecord,
    SessionTotals,
)
from aimon_mongo.validate import (
    optional_budget_override,
    optional_id,
    require_id,
    require_instance,
    require_token,
)

log = logging.getLogger(__name__)


class MemorySessionRecordStore:
    def __init__(self, storage: MemoryStorage) -> None:
        self._table = storage.records

    def merge_transcript(self, session_id: str, transcript: str, fencing_token: int) -> None:
        require_id(session_id, "session_id")
        require_instance(transcript, str, "transcript")
        self._table.merge_transcript(session_id, transcript, require_token(fencing_token))

    def provision(self, session_id: str, agent_ref: str | None, fencing_token: int) -> SessionRecord:
        require_id(session_id, "session_id")
        return self._table.provision(session_id, optional_id(agent_ref, "agent_ref"), require_token(fencing_token))

    def set_totals_and_budget_override(
        self,
        session_id: str,
        totals: SessionTotals,
        budget_override: dict[str, JsonValue] | None,
        fencing_token: int,
    ) -> None:
        require_id(session_id, "session_id")
        require_instance(totals, SessionTotals, "totals")
        budget_override = optional_budget_override(budget_override)
        self._table.set_totals_and_budget_override(session_id, totals, budget_override, require_token(fencing_token))

    def increment_compaction_failure_count(self, session_id: str, fencing_token: int) -> int:
        return self._table.increment_compaction_failure_count(
            require_id(session_id, "session_id"), require_token(fencing_token)
        )

    def reset_compaction_failure_count(self, session_id: str, fencing_token: int) -> None:
        self._table.reset_compaction_failure_count(require_id(session_id, "session_id"), require_token(fencing_token))

    def load(self, session_id: str) -> SessionRecord | None:
        return self._table.load(require_id(session_id, "session_id"))

    def exists(self, session_id: str) -> bool:
        return self._table.load(require_id(session_id, "session_id")) is not None

    def list_session_ids(self) -> list[str]:
        return self._table.list_session_ids()

    def delete(self, session_id: str, fencing_token: int) -> None:
        self._table.delete(require_id(session_id, "session_id"), require_token(fencing_token))

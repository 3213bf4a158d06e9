"""Every declared stored shape (``aimon_mongo/stored/*.py`` TypedDicts) against hard-coded key lists, and
every key of them against ``aimon_mongo/names.py``: the declarations and names.py cannot drift apart.

The key lists are literals (the frozen-names rule): a rename in a declaration fails the first test; a stored
key that no names.py constant holds fails the second (names.py is the one home of the persisted literals;
``test_names_frozen.py`` pins each constant, and ``schema_gate check`` refuses a constant renamed alone by
checking sample documents of every codec against the declarations). PostgreSQL rows
are the exception to the second test: their column names live in the SQL schema (``db/postgres``), pinned by
``tests/freeze/test_postgres_schema_freeze.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
import typing

import aimon_mongo.stored
from aimon_mongo import names
from tests.helpers import JSON_ENVELOPE_KEYS

DECLARED_KEYS: dict[str, tuple[str, ...]] = {
    "adk.AdkArtifactAttributes": (
        "adk.kind",
        "adk.mime_type",
        "adk.custom_metadata",
        "adk.file_uri",
        "adk.create_time",
    ),
    "adk.AdkListingEntryJson": (),
    "adk.AdkSessionHeaderJson": ("v", "state", "created", "updated", "events", "rev"),
    "_common.Principal": ("type", "id", "displayName"),
    "background_task.MongoBackgroundTaskDocument": (
        "_id",
        "subagentName",
        "description",
        "state",
        "startTime",
        "outputOffset",
        "endTime",
        "owner",
        "contextId",
        "lastHeartbeat",
    ),
    "background_task.RedisBackgroundTaskValue": (
        "taskId",
        "subagentName",
        "state",
        "startTime",
        "endTime",
        "outputOffset",
        "description",
        "owner",
        "contextId",
        "lastHeartbeat",
    ),
    "background_task.PostgresBackgroundTaskRow": (
        "task_id",
        "subagent_name",
        "description",
        "state",
        "start_time",
        "end_time",
        "output_offset",
        "owner_type",
        "owner_id",
        "owner_display_name",
        "context_id",
        "last_heartbeat",
    ),
    "idempotency.TurnResultJson": ("success", "finalAnswer", "errorMessage", "completionReason", "wasStreamed"),
    "idempotency.MongoIdempotencyDocument": (
        "_id",
        "conversationId",
        "inputHash",
        "status",
        "holderId",
        "createdAt",
        "lastTouchedAt",
        "expiresAt",
        "result",
        "ttlMillis",
    ),
    "idempotency.RedisIdempotencyValue": (
        "key",
        "conversationId",
        "inputHash",
        "status",
        "holderId",
        "createdAt",
        "lastTouchedAt",
        "ttlMillis",
        "result",
    ),
    "idempotency.PostgresIdempotencyRow": (
        "key",
        "conversation_id",
        "input_hash",
        "status",
        "holder_id",
        "result_blob",
        "created_at",
        "last_touched_at",
        "expires_at",
    ),
    "inbox.InboxEnvelopeJson": JSON_ENVELOPE_KEYS,  # the literal tuple in tests/helpers.py
    "inbox.RedisInboxStreamEntry": ("p",),
    "inbox.PostgresInboxRow": (
        "id",
        "conversation_id",
        "agent_ref",
        "priority",
        "payload",
        "delivered_at",
        "claim_token",
        "claim_attempts",
        "claimed_at",
    ),
    "inbox.MongoInboxPayload": (
        "agentRef",
        "contextDiscriminator",
        "userInput",
        "userInputEncoded",
        "turnId",
        "idempotencyKey",
        "initiator",
        "deliveredAt",
        "metadata",
        "submitOptions",
    ),
    "inbox.MongoInboxDocument": (
        "_id",
        "conversationId",
        "priority",
        "deliveredAt",
        "payload",
        "claimToken",
        "claimAttempts",
        "claimedAt",
    ),
    "inbox.MongoInboxQuarantineDocument": ("_id", "rawDocument", "error", "conversationId", "quarantinedAt"),
    "langgraph.SerdePair": ("type", "data"),
    "langgraph.ChannelVersion": ("channel", "version"),
    "langgraph.MetadataKey": ("key", "value"),
    "langgraph.StoredChannelValue": ("key", "channel", "version", "type", "size", "data", "file_id"),
    "langgraph.StoredPendingWrite": (
        "key",
        "task_id",
        "task_path",
        "idx",
        "channel",
        "type",
        "size",
        "data",
        "file_id",
    ),
    "langgraph.MongoCheckpointDocument": (
        "_id",
        "thread_id",
        "checkpoint_ns",
        "checkpoint_id",
        "parent_checkpoint_id",
        "checkpoint",
        "channel_versions",
        "metadata",
        "metadata_keys",
        "run_id",
        "fencing_token",
        "values",
        "writes",
    ),
    "langgraph.MongoEarlyWritesDocument": ("_id", "thread_id", "checkpoint_ns", "checkpoint_id", "writes"),
    "langgraph.MongoThreadDocument": (
        "_id",
        "fencing_token",
        "write_seq",
        "ttl_ms",
        "expires_at",
        "sweeping",
        "expired_at",
        "purge_at",
    ),
    "langgraph.ValueFileMetadata": ("thread_id", "checkpoint_ns"),
    "langgraph.GridFsValueFileDocument": ("_id", "length", "chunkSize", "uploadDate", "filename", "metadata"),
    "lease.MongoLeaseDocument": ("_id", "holderId", "fencingToken", "leaseExpiresAt", "acquiredAt"),
    "lease.PostgresLeaseRow": ("conversation_id", "holder_id", "fencing_token", "acquired_at", "lease_expires_at"),
    "lease.PostgresLeaseFenceRow": ("conversation_id", "next_token"),
    "lease.PostgresTokenFloorRow": ("id", "highest_swept"),
    "log_segment.SegmentKey": ("sessionId", "segmentId"),
    "log_segment.MongoLogSegmentDocument": (
        "_id",
        "sessionId",
        "segmentId",
        "fromSeq",
        "toSeq",
        "entryCount",
        "payload",
        "createdAt",
        "fencingToken",
    ),
    "log_segment.PostgresLogSegmentRow": (
        "session_id",
        "segment_id",
        "from_seq",
        "to_seq",
        "entry_count",
        "payload",
        "created_at",
    ),
    "redis_layout.RedisSessionRecordHash": (
        "sessionId",
        "transcript",
        "agentRef",
        "compactionFailureCount",
        "sessionTotals",
        "budgetOverride",
        "updatedAt",
    ),
    "redis_layout.RedisLogSegmentJson": (
        "sessionId",
        "segmentId",
        "fromSeq",
        "toSeq",
        "entryCount",
        "payload",
        "createdAt",
    ),
    "redis_layout.RedisInboxQuarantineEntry": ("p", "entryId", "error"),
    "session_record.SessionTotalsJson": (
        "turnCount",
        "iterations",
        "promptTokens",
        "completionTokens",
        "totalTokens",
        "reasoningTokens",
    ),
    "session_record.MongoSessionRecordDocument": (
        "_id",
        "transcript",
        "agentRef",
        "compactionFailureCount",
        "sessionTotals",
        "budgetOverride",
        "updatedAt",
        "fencingToken",
    ),
    "session_record.MongoSessionFenceDocument": ("_id", "highestToken"),
    "session_record.PostgresSessionRecordRow": (
        "session_id",
        "transcript",
        "agent_ref",
        "compaction_failure_count",
        "session_totals",
        "budget_override",
        "updated_at",
    ),
    "signal.MongoSignalDocument": ("_id", "conversationId", "kind", "originNodeId", "payload"),
    "signal.RedisSignalMessage": ("conversationId", "kind", "originNodeId", "payload"),
    "signal.PostgresSignalRow": ("id", "conversation_id", "kind", "origin_node_id", "payload", "created_at"),
    "snapshot_document.TextBlockJson": ("type", "text"),
    "snapshot_document.InlineImageBlockJson": ("type", "mimeType", "source", "data"),
    "snapshot_document.UrlImageBlockJson": ("type", "mimeType", "source", "url"),
    "snapshot_document.DocumentBlockJson": ("type", "mimeType", "data", "fileName"),
    "snapshot_document.ToolUseJson": ("id", "name", "input"),
    "snapshot_document.ToolResultJson": ("toolUseId", "content", "isError"),
    "snapshot_document.ArtifactJson": ("path", "fileName", "size", "mimeType", "toolUseId", "downloadToken"),
    "snapshot_document.ReasoningJson": ("provider", "payload", "toolUseId"),
    "snapshot_document.MessageJson": ("role", "content", "toolUses", "toolResults", "artifacts", "reasoning"),
    "snapshot_document.RewindPointV1Json": ("messageCount", "userInput", "submitOptions"),
    "snapshot_document.SnapshotDocumentV1Json": (
        "version",
        "conversationId",
        "systemPrompt",
        "messages",
        "rewindPoint",
    ),
    "snapshot_document.LogEntryJson": ("seq", "origin", "message"),
    "snapshot_document.SummarySpanJson": (
        "fromSeq",
        "toSeq",
        "summaryText",
        "boundaryId",
        "trigger",
        "preTokenCount",
        "messagesSummarized",
        "discoveredToolNames",
    ),
    "snapshot_document.SeqRangeJson": ("fromSeq", "toSeq"),
    "snapshot_document.ElisionJson": ("seq", "placeholder"),
    "snapshot_document.ViewStateJson": ("summarySpan", "droppedRanges", "elisions"),
    "snapshot_document.ManifestLineJson": ("fromSeq", "toSeq", "segmentId", "contentHash", "entryCount"),
    "snapshot_document.RewindPointV2Json": ("seq", "userInput", "submitOptions"),
    "snapshot_document.SnapshotDocumentV2Json": (
        "version",
        "conversationId",
        "systemPrompt",
        "nextSeq",
        "floorSeq",
        "entries",
        "viewState",
        "manifest",
        "rewindPoint",
    ),
    "snapshot_document.SegmentPayloadJson": ("version", "entries"),
    "snapshot_envelope.SnapshotEnvelopeJson": ("v", "subagentName", "contextId", "snapshot"),
    "submit_options.LlmCallMetadataJson": ("component", "parentComponent", "feature", "principal", "traceId", "tags"),
    "submit_options.SubmitOptionsJson": (
        "principal",
        "systemPromptVariables",
        "executionAttributes",
        "llmCallMetadata",
    ),
    "task_result.TaskResultJson": (
        "version",
        "success",
        "finalAnswer",
        "errorMessage",
        "completionReason",
        "iterationCount",
        "durationMillis",
        "totalTokens",
        "summaryTruncated",
    ),
    "user_input.TextInputJson": ("type", "text"),
    "user_input.ImageInputJson": ("type", "mimeType", "data"),
    "user_input.AudioInputJson": ("type", "mimeType", "data"),
    "user_input.FileInputJson": ("type", "mimeType", "fileName", "data"),
    "user_input.MultimodalInputJson": ("type", "inputs"),
    "vfs.FileMetadataDocument": ("path", "uploadDate", "contentSha256", "copiedFrom", "predecessor", "attributes"),
    "vfs.DirectoryMarkerMetadataDocument": ("type", "path", "uploadDate"),
    "vfs.GridFsFileDocument": ("_id", "filename", "length", "chunkSize", "uploadDate", "metadata"),
    "vfs.GridFsDirectoryMarkerDocument": ("_id", "filename", "length", "chunkSize", "uploadDate", "metadata"),
}
"""``module.TypedDict`` -> its keys in declaration order."""

SQL_COLUMNS = frozenset(name for name in DECLARED_KEYS if name.split(".")[1].startswith("Postgres"))


def _declared() -> dict[str, tuple[str, ...]]:
    found = {}
    for info in sorted(pkgutil.iter_modules(aimon_mongo.stored.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"aimon_mongo.stored.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, type) and typing.is_typeddict(value) and value.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = tuple(value.__annotations__)
    return found


def test_every_declared_shape_has_the_pinned_keys() -> None:
    assert _declared() == DECLARED_KEYS


def test_every_stored_key_is_a_names_constant() -> None:
    values = {value for name, value in vars(names).items() if name.isupper() and isinstance(value, str)}
    missing = {
        shape: sorted(set(keys) - values)
        for shape, keys in DECLARED_KEYS.items()
        if shape not in SQL_COLUMNS and set(keys) - values
    }
    assert missing == {}

"""Every literal in ``aimon_mongo/names.py``, pinned against a hard-coded value.

Each assertion compares a constant with a literal written here, never with another constant: a rename that
goes through a shared constant would follow the rename and never fail. The last test fails when names.py
gains a public constant that no assertion here pins, so a new persisted literal cannot slip in unpinned.
"""

from __future__ import annotations

import ast
from pathlib import Path

from aimon_mongo import names


def test_default_databases_gridfs() -> None:
    """Default databases, GridFS."""
    assert names.DEFAULT_SESSION_DATABASE == "aimon_session"
    assert names.DEFAULT_VFS_DATABASE == "aimon"
    assert names.DEFAULT_GRIDFS_BUCKET == "fs"
    assert names.DEFAULT_GRIDFS_CHUNK_SIZE == 1048576


def test_mongodb_collections() -> None:
    """MongoDB collections (db/mongodb/init.js)."""
    assert names.MONGO_LOCKS == "conversation_locks"
    assert names.MONGO_INBOX == "conversation_inbox"
    assert names.MONGO_IDEMPOTENCY == "idempotency_entries"
    assert names.MONGO_SIGNALS == "conversation_signals"
    assert names.MONGO_BACKGROUND_TASKS == "background_task"
    assert names.MONGO_SCHEDULED_TASK_INTERRUPTS == "scheduled_task_interrupts"
    assert names.MONGO_SESSION_RECORDS == "session_records"
    assert names.MONGO_SESSION_LOG_SEGMENTS == "session_log_segments"
    assert names.MONGO_INBOX_QUARANTINE == "conversation_inbox_quarantine"
    assert names.MONGO_SESSION_FENCES == "session_fences"
    assert names.MONGO_SIGNALS_CAPPED_SIZE == 67108864
    assert names.MONGO_SCHEDULED_TASK_INTERRUPTS_CAPPED_SIZE == 1048576


def test_mongodb_index_names() -> None:
    """MongoDB index names."""
    assert names.MONGO_IDX_INBOX_FIFO == "by_conv_priority_fifo"
    assert names.MONGO_IDX_IDEMPOTENCY_TTL == "ttl_expires_at"
    assert names.MONGO_IDX_IDEMPOTENCY_STATUS_TOUCH == "by_status_touch"
    assert names.MONGO_IDX_TASK_STATE == "by_state"
    assert names.MONGO_IDX_TASK_CONTEXT == "by_context"
    assert names.MONGO_IDX_SEGMENT_SESSION == "by_session"
    assert names.MONGO_IDX_QUARANTINE_CONV == "by_conv_quarantined_at"


def test_mongodb_document_keys() -> None:
    """MongoDB document keys (DocumentKeys)."""
    assert names.F_ID == "_id"
    assert names.F_HOLDER_ID == "holderId"
    assert names.F_FENCING_TOKEN == "fencingToken"
    assert names.F_LEASE_EXPIRES_AT == "leaseExpiresAt"
    assert names.F_ACQUIRED_AT == "acquiredAt"
    assert names.F_CONVERSATION_ID == "conversationId"
    assert names.F_PRIORITY == "priority"
    assert names.F_DELIVERED_AT == "deliveredAt"
    assert names.F_CLAIM_TOKEN == "claimToken"
    assert names.F_CLAIM_ATTEMPTS == "claimAttempts"
    assert names.F_CLAIMED_AT == "claimedAt"
    assert names.F_PAYLOAD == "payload"
    assert names.F_INPUT_HASH == "inputHash"
    assert names.F_STATUS == "status"
    assert names.F_RESULT == "result"
    assert names.F_CREATED_AT == "createdAt"
    assert names.F_LAST_TOUCHED_AT == "lastTouchedAt"
    assert names.F_EXPIRES_AT == "expiresAt"
    assert names.F_KIND == "kind"
    assert names.F_ORIGIN_NODE_ID == "originNodeId"
    assert names.F_SUBAGENT_NAME == "subagentName"
    assert names.F_DESCRIPTION == "description"
    assert names.F_STATE == "state"
    assert names.F_START_TIME == "startTime"
    assert names.F_END_TIME == "endTime"
    assert names.F_OUTPUT_OFFSET == "outputOffset"
    assert names.F_OWNER == "owner"
    assert names.F_CONTEXT_ID == "contextId"
    assert names.F_LAST_HEARTBEAT == "lastHeartbeat"
    assert names.F_TRANSCRIPT == "transcript"
    assert names.F_AGENT_REF == "agentRef"
    assert names.F_COMPACTION_FAILURE_COUNT == "compactionFailureCount"
    assert names.F_SESSION_TOTALS == "sessionTotals"
    assert names.F_BUDGET_OVERRIDE == "budgetOverride"
    assert names.F_UPDATED_AT == "updatedAt"
    assert names.F_SESSION_ID == "sessionId"
    assert names.F_SEGMENT_ID == "segmentId"
    assert names.F_FROM_SEQ == "fromSeq"
    assert names.F_TO_SEQ == "toSeq"
    assert names.F_ENTRY_COUNT == "entryCount"
    assert names.F_TASK_ID == "taskId"
    assert names.F_REASON == "reason"
    assert names.F_RAW_DOCUMENT == "rawDocument"
    assert names.F_ERROR == "error"
    assert names.F_QUARANTINED_AT == "quarantinedAt"
    assert names.F_HIGHEST_TOKEN == "highestToken"


def test_inbox_envelope_keys() -> None:
    """Inbox envelope keys (JSON in Redis/PostgreSQL, payload subdocument in MongoDB)."""
    assert names.ENV_CONVERSATION_ID == "conversationId"
    assert names.ENV_AGENT_REF == "agentRef"
    assert names.ENV_USER_INPUT == "userInput"
    assert names.ENV_USER_INPUT_ENCODED == "userInputEncoded"
    assert names.ENV_PRIORITY == "priority"
    assert names.ENV_TURN_ID == "turnId"
    assert names.ENV_CONTEXT_DISCRIMINATOR == "contextDiscriminator"
    assert names.ENV_IDEMPOTENCY_KEY == "idempotencyKey"
    assert names.ENV_INITIATOR == "initiator"
    assert names.ENV_DELIVERED_AT == "deliveredAt"
    assert names.ENV_METADATA == "metadata"
    assert names.ENV_SUBMIT_OPTIONS == "submitOptions"


def test_principal_subtree() -> None:
    """Principal subtree."""
    assert names.PRINCIPAL_TYPE == "type"
    assert names.PRINCIPAL_ID == "id"
    assert names.PRINCIPAL_DISPLAY_NAME == "displayName"


def test_submitoptions_subtree() -> None:
    """SubmitOptions subtree (SubmitOptionsCodec)."""
    assert names.SO_PRINCIPAL == "principal"
    assert names.SO_SYSTEM_PROMPT_VARIABLES == "systemPromptVariables"
    assert names.SO_EXECUTION_ATTRIBUTES == "executionAttributes"
    assert names.SO_LLM_CALL_METADATA == "llmCallMetadata"
    assert names.SO_RETIRED_USER_CONTEXT_INJECTION == "userContextInjection"
    assert names.LLM_COMPONENT == "component"
    assert names.LLM_PARENT_COMPONENT == "parentComponent"
    assert names.LLM_FEATURE == "feature"
    assert names.LLM_PRINCIPAL == "principal"
    assert names.LLM_TRACE_ID == "traceId"
    assert names.LLM_TAGS == "tags"


def test_userinputcodec_field_names_and_type_tags() -> None:
    """UserInputCodec field names and type tags."""
    assert names.UI_TYPE == "type"
    assert names.UI_TEXT == "text"
    assert names.UI_MIME_TYPE == "mimeType"
    assert names.UI_FILE_NAME == "fileName"
    assert names.UI_DATA == "data"
    assert names.UI_INPUTS == "inputs"
    assert names.UI_TAG_TEXT == "text"
    assert names.UI_TAG_IMAGE == "image"
    assert names.UI_TAG_AUDIO == "audio"
    assert names.UI_TAG_FILE == "file"
    assert names.UI_TAG_MULTIMODAL == "multimodal"


def test_signal_message_keys() -> None:
    """Signal message keys (Redis JSON, Mongo document)."""
    assert names.SIG_CONVERSATION_ID == "conversationId"
    assert names.SIG_KIND == "kind"
    assert names.SIG_ORIGIN_NODE_ID == "originNodeId"
    assert names.SIG_PAYLOAD == "payload"


def test_idempotency_entry() -> None:
    """Idempotency entry (Redis JSON value; result projection everywhere)."""
    assert names.IDEM_KEY == "key"
    assert names.IDEM_CONVERSATION_ID == "conversationId"
    assert names.IDEM_INPUT_HASH == "inputHash"
    assert names.IDEM_STATUS == "status"
    assert names.IDEM_HOLDER_ID == "holderId"
    assert names.IDEM_CREATED_AT == "createdAt"
    assert names.IDEM_LAST_TOUCHED_AT == "lastTouchedAt"
    assert names.IDEM_TTL_MILLIS == "ttlMillis"
    assert names.IDEM_RESULT == "result"
    assert names.RESULT_SUCCESS == "success"
    assert names.RESULT_FINAL_ANSWER == "finalAnswer"
    assert names.RESULT_ERROR_MESSAGE == "errorMessage"
    assert names.RESULT_COMPLETION_REASON == "completionReason"
    assert names.RESULT_WAS_STREAMED == "wasStreamed"


def test_background_task() -> None:
    """Background task (Redis JSON value)."""
    assert names.TASK_TASK_ID == "taskId"
    assert names.TASK_SUBAGENT_NAME == "subagentName"
    assert names.TASK_STATE == "state"
    assert names.TASK_START_TIME == "startTime"
    assert names.TASK_END_TIME == "endTime"
    assert names.TASK_OUTPUT_OFFSET == "outputOffset"
    assert names.TASK_DESCRIPTION == "description"
    assert names.TASK_OWNER == "owner"
    assert names.TASK_CONTEXT_ID == "contextId"
    assert names.TASK_LAST_HEARTBEAT == "lastHeartbeat"


def test_session_totals_keys() -> None:
    assert names.TOTALS_TURN_COUNT == "turnCount"
    assert names.TOTALS_ITERATIONS == "iterations"
    assert names.TOTALS_PROMPT_TOKENS == "promptTokens"
    assert names.TOTALS_COMPLETION_TOKENS == "completionTokens"
    assert names.TOTALS_TOTAL_TOKENS == "totalTokens"
    assert names.TOTALS_REASONING_TOKENS == "reasoningTokens"


def test_session_host_signals() -> None:
    """The host channel (a signal session id) and the payload keys of the host's signals."""
    assert names.HOST_SIGNAL_SESSION == "_aimon_hosts"
    assert names.HOST_PAYLOAD_SESSIONS == "sessions"
    assert names.HOST_PAYLOAD_ENTRY_ID == "entryId"
    assert names.HOST_PAYLOAD_PRIORITY == "priority"


def test_adk_session_header_and_artifact_attributes() -> None:
    """The ADK services' stored keys (aimon_mongo.adk): the session header and an artifact's attributes."""
    assert names.ADK_HEADER_VERSION == "v"
    assert names.ADK_HEADER_STATE == "state"
    assert names.ADK_HEADER_CREATED == "created"
    assert names.ADK_HEADER_UPDATED == "updated"
    assert names.ADK_HEADER_EVENTS == "events"
    assert names.ADK_HEADER_REVISION == "rev"
    assert names.ADK_ATTR_KIND == "adk.kind"
    assert names.ADK_ATTR_MIME_TYPE == "adk.mime_type"
    assert names.ADK_ATTR_CUSTOM_METADATA == "adk.custom_metadata"
    assert names.ADK_ATTR_FILE_URI == "adk.file_uri"
    assert names.ADK_ATTR_CREATE_TIME == "adk.create_time"


def test_redis_keys_prefixes_and_channels() -> None:
    """Redis keys, prefixes and channels."""
    assert names.REDIS_INBOX_PREFIX == "aimon:inbox"
    assert names.REDIS_CONV_PREFIX == "aimon:conv"
    assert names.REDIS_IDEMPOTENCY_PREFIX == "aimon:conv:idem"
    assert names.REDIS_SESSION_RECORD_PREFIX == "aimon:session:record"
    assert names.REDIS_SEGMENT_PREFIX == "aimon:session:segment"
    assert names.REDIS_TASK_STOP_CHANNEL == "aimon:subagent:task-stop"
    assert names.REDIS_BACKGROUND_TASK_PREFIX == "aimon:subagent:task"
    assert names.REDIS_LOCK_SEGMENT == "lock"
    assert names.REDIS_FENCE_SEGMENT == "lock:fence"
    assert names.REDIS_CONTROL_SEGMENT == "control"
    assert names.REDIS_EVENTS_SEGMENT == "events"
    assert names.REDIS_STREAM_FIELD == "p"
    assert names.REDIS_QUARANTINE_SUFFIX == "quarantine"
    assert names.REDIS_CLAIMS_SUFFIX == "claims"
    assert names.REDIS_INDEX_SUFFIX == "index"
    assert names.REDIS_SEGMENT_DATA_SUFFIX == "data"
    assert names.REDIS_SEGMENT_CREATED_SUFFIX == "created"


def test_redis_additive_keys_and_fields() -> None:
    """Redis keys and stream fields that are ours (additive): write fence, hash tag, quarantine fields."""
    assert names.REDIS_HASH_TAG_OPEN == "{s:"
    assert names.REDIS_HASH_TAG_CLOSE == "}"
    assert names.REDIS_SESSION_FENCE_PREFIX == "aimon:session:fence"
    assert names.REDIS_QUARANTINE_ENTRY_ID_FIELD == "entryId"
    assert names.REDIS_QUARANTINE_ERROR_FIELD == "error"


def test_session_totals_subtree() -> None:
    """Session totals subtree (record "sessionTotals", STATUS signal "totals")."""
    assert names.TOTALS_TURN_COUNT == "turnCount"
    assert names.TOTALS_ITERATIONS == "iterations"
    assert names.TOTALS_PROMPT_TOKENS == "promptTokens"
    assert names.TOTALS_COMPLETION_TOKENS == "completionTokens"
    assert names.TOTALS_TOTAL_TOKENS == "totalTokens"
    assert names.TOTALS_REASONING_TOKENS == "reasoningTokens"


def test_postgresql() -> None:
    """PostgreSQL (sql/V1__init.sql, sql/V2__session_log_segment.sql)."""
    assert names.PG_DEFAULT_SCHEMA == "aimon_session"
    assert names.PG_CONVERSATION_LOCK == "conversation_lock"
    assert names.PG_CONVERSATION_LOCK_FENCE == "conversation_lock_fence"
    assert names.PG_CONVERSATION_SIGNAL == "conversation_signal"
    assert names.PG_CONVERSATION_INBOX == "conversation_inbox"
    assert names.PG_IDEMPOTENCY_ENTRY == "idempotency_entry"
    assert names.PG_BACKGROUND_TASK == "background_task"
    assert names.PG_SESSION_RECORD == "session_record"
    assert names.PG_SESSION_LOG_SEGMENT == "session_log_segment"
    assert names.PG_INBOX_QUARANTINE == "conversation_inbox_quarantine"
    assert names.PG_SIGNAL_DOORBELL_CHANNEL == "conversation_signal_doorbell"
    assert names.PG_COL_CONVERSATION_ID == "conversation_id"
    assert names.PG_COL_CONTEXT_ID == "context_id"
    assert names.PG_IDX_LOCK_LEASE_EXPIRES_AT == "conversation_lock_lease_expires_at_idx"
    assert names.PG_IDX_SIGNAL_FETCH == "conversation_signal_fetch_idx"
    assert names.PG_IDX_SIGNAL_CREATED_AT == "conversation_signal_created_at_idx"
    assert names.PG_IDX_INBOX_DRAIN == "conversation_inbox_drain_idx"
    assert names.PG_IDX_IDEMPOTENCY_INFLIGHT_STALE == "idempotency_entry_inflight_stale_idx"
    assert names.PG_IDX_IDEMPOTENCY_EXPIRES_AT == "idempotency_entry_expires_at_idx"
    assert names.PG_IDX_TASK_STATE == "background_task_state_idx"
    assert names.PG_IDX_TASK_CONTEXT == "background_task_context_idx"
    assert names.PG_SESSION_FENCE == "session_fence"
    assert names.PG_SCHEMA_VERSION == "aimon_schema_version"
    assert names.PG_IDX_INBOX_QUARANTINE_CONV == "conversation_inbox_quarantine_conv_idx"
    assert names.PG_IDX_TASK_OWNER == "background_task_owner_idx"
    assert names.PG_IDX_SEGMENT_SCAN == "session_log_segment_scan_idx"
    assert names.PG_TOKEN_FLOOR == "aimon_token_floor"
    assert names.PG_TOKEN_FLOOR_TRIGGER == "aimon_lock_fence_floor"


def test_snapshot_envelope() -> None:
    """Snapshot envelope (VfsSessionSnapshotStore)."""
    assert names.SNAP_ENV_VERSION == "v"
    assert names.SNAP_ENV_SUBAGENT_NAME == "subagentName"
    assert names.SNAP_ENV_CONTEXT_ID == "contextId"
    assert names.SNAP_ENV_SNAPSHOT == "snapshot"
    assert names.SNAP_ENV_FORMAT_VERSION == 1
    assert names.SNAP_STORE_BASE_DIR == "task-snapshot"
    assert names.SNAP_STORE_SUFFIX == ".json"
    assert names.SNAP_ATTR_SUBAGENT_NAME == "snapshotSubagentName"
    assert names.SNAP_ATTR_CONTEXT_ID == "snapshotContextId"
    assert names.SNAP_ATTR_FORMAT_VERSION == "snapshotFormatVersion"
    assert names.SNAP_ATTR_MESSAGE_COUNT == "snapshotMessageCount"
    assert names.SNAP_DOC_VERSION == "version"
    assert names.SNAP_DOC_CONVERSATION_ID == "conversationId"


def test_session_snapshot_document() -> None:
    """Session snapshot document (JsonSessionSnapshotCodec, versions 1 and 2)."""
    assert names.SNAP_FORMAT_V1 == 1
    assert names.SNAP_FORMAT_V2 == 2
    assert names.SNAP_DOC_SYSTEM_PROMPT == "systemPrompt"
    assert names.SNAP_DOC_MESSAGES == "messages"
    assert names.SNAP_DOC_NEXT_SEQ == "nextSeq"
    assert names.SNAP_DOC_FLOOR_SEQ == "floorSeq"
    assert names.SNAP_DOC_ENTRIES == "entries"
    assert names.SNAP_DOC_VIEW_STATE == "viewState"
    assert names.SNAP_DOC_MANIFEST == "manifest"
    assert names.SNAP_DOC_REWIND_POINT == "rewindPoint"
    assert names.SNAP_RETIRED_COMPACTION_FAILURE_COUNT == "compactionFailureCount"
    assert names.SNAP_REWIND_MESSAGE_COUNT == "messageCount"
    assert names.SNAP_REWIND_SEQ == "seq"
    assert names.SNAP_REWIND_USER_INPUT == "userInput"
    assert names.SNAP_REWIND_SUBMIT_OPTIONS == "submitOptions"
    assert names.SNAP_ENTRY_SEQ == "seq"
    assert names.SNAP_ENTRY_ORIGIN == "origin"
    assert names.SNAP_ENTRY_MESSAGE == "message"
    assert names.SNAP_ORIGIN_CONVERSATION == "CONVERSATION"
    assert names.SNAP_ORIGIN_SYNTHETIC == "SYNTHETIC"
    assert names.SNAP_VIEW_SUMMARY_SPAN == "summarySpan"
    assert names.SNAP_VIEW_DROPPED_RANGES == "droppedRanges"
    assert names.SNAP_VIEW_ELISIONS == "elisions"
    assert names.SNAP_SPAN_FROM_SEQ == "fromSeq"
    assert names.SNAP_SPAN_TO_SEQ == "toSeq"
    assert names.SNAP_SPAN_SUMMARY_TEXT == "summaryText"
    assert names.SNAP_SPAN_BOUNDARY_ID == "boundaryId"
    assert names.SNAP_SPAN_TRIGGER == "trigger"
    assert names.SNAP_SPAN_PRE_TOKEN_COUNT == "preTokenCount"
    assert names.SNAP_SPAN_MESSAGES_SUMMARIZED == "messagesSummarized"
    assert names.SNAP_SPAN_DISCOVERED_TOOL_NAMES == "discoveredToolNames"
    assert names.SNAP_RANGE_FROM_SEQ == "fromSeq"
    assert names.SNAP_RANGE_TO_SEQ == "toSeq"
    assert names.SNAP_ELISION_SEQ == "seq"
    assert names.SNAP_ELISION_PLACEHOLDER == "placeholder"
    assert names.SNAP_MANIFEST_FROM_SEQ == "fromSeq"
    assert names.SNAP_MANIFEST_TO_SEQ == "toSeq"
    assert names.SNAP_MANIFEST_SEGMENT_ID == "segmentId"
    assert names.SNAP_MANIFEST_CONTENT_HASH == "contentHash"
    assert names.SNAP_MANIFEST_ENTRY_COUNT == "entryCount"
    assert names.SNAP_CONTENT_HASH_PREFIX == "sha256:"
    assert names.SNAP_MSG_ROLE == "role"
    assert names.SNAP_MSG_CONTENT == "content"
    assert names.SNAP_MSG_TOOL_USES == "toolUses"
    assert names.SNAP_MSG_TOOL_RESULTS == "toolResults"
    assert names.SNAP_MSG_ARTIFACTS == "artifacts"
    assert names.SNAP_MSG_REASONING == "reasoning"
    assert names.SNAP_ROLE_USER == "USER"
    assert names.SNAP_ROLE_ASSISTANT == "ASSISTANT"
    assert names.SNAP_ROLE_TOOL == "TOOL"
    assert names.SNAP_BLOCK_TYPE == "type"
    assert names.SNAP_BLOCK_TEXT == "text"
    assert names.SNAP_BLOCK_MIME_TYPE == "mimeType"
    assert names.SNAP_BLOCK_SOURCE == "source"
    assert names.SNAP_BLOCK_DATA == "data"
    assert names.SNAP_BLOCK_URL == "url"
    assert names.SNAP_BLOCK_FILE_NAME == "fileName"
    assert names.SNAP_BLOCK_TAG_TEXT == "text"
    assert names.SNAP_BLOCK_TAG_IMAGE == "image"
    assert names.SNAP_BLOCK_TAG_DOCUMENT == "document"
    assert names.SNAP_IMAGE_SOURCE_BASE64 == "base64"
    assert names.SNAP_IMAGE_SOURCE_URL == "url"
    assert names.SNAP_TOOL_USE_ID == "id"
    assert names.SNAP_TOOL_USE_NAME == "name"
    assert names.SNAP_TOOL_USE_INPUT == "input"
    assert names.SNAP_RESULT_TOOL_USE_ID == "toolUseId"
    assert names.SNAP_RESULT_CONTENT == "content"
    assert names.SNAP_RESULT_IS_ERROR == "isError"
    assert names.SNAP_ARTIFACT_PATH == "path"
    assert names.SNAP_ARTIFACT_FILE_NAME == "fileName"
    assert names.SNAP_ARTIFACT_SIZE == "size"
    assert names.SNAP_ARTIFACT_MIME_TYPE == "mimeType"
    assert names.SNAP_ARTIFACT_TOOL_USE_ID == "toolUseId"
    assert names.SNAP_ARTIFACT_DOWNLOAD_TOKEN == "downloadToken"
    assert names.SNAP_REASONING_PROVIDER == "provider"
    assert names.SNAP_REASONING_PAYLOAD == "payload"
    assert names.SNAP_REASONING_TOOL_USE_ID == "toolUseId"


def test_task_result_document() -> None:
    """Task result document (JsonTaskResultCodec, flat, no envelope)."""
    assert names.TASKRES_FORMAT_VERSION == 1
    assert names.TASKRES_VERSION == "version"
    assert names.TASKRES_SUCCESS == "success"
    assert names.TASKRES_FINAL_ANSWER == "finalAnswer"
    assert names.TASKRES_ERROR_MESSAGE == "errorMessage"
    assert names.TASKRES_COMPLETION_REASON == "completionReason"
    assert names.TASKRES_ITERATION_COUNT == "iterationCount"
    assert names.TASKRES_DURATION_MILLIS == "durationMillis"
    assert names.TASKRES_TOTAL_TOKENS == "totalTokens"
    assert names.TASKRES_SUMMARY_TRUNCATED == "summaryTruncated"
    assert names.TASKRES_BASE_DIR == "task-result"
    assert names.TASKRES_SUFFIX == ".json"


def test_task_output_segments() -> None:
    """Task output (VfsTaskOutputStore): append-only segments "<base_dir>/<task_id>/<start:020d>.seg"."""
    assert names.TASKOUT_BASE_DIR == "task-output"
    assert names.TASKOUT_SEGMENT_SUFFIX == ".seg"
    assert names.TASKOUT_START_DIGITS == 20


def test_virtual_filesystem_on_gridfs() -> None:
    """Virtual filesystem on GridFS."""
    assert names.VFS_MARKER_TYPE == "directory"
    assert names.VFS_META_TYPE == "type"
    assert names.VFS_META_PATH == "path"
    assert names.VFS_META_UPLOAD_DATE == "uploadDate"
    assert names.VFS_META_CONTENT_SHA256 == "contentSha256"
    assert names.VFS_META_COPIED_FROM == "copiedFrom"
    assert names.VFS_ETAG_PREFIX == "sha256:"
    assert names.VFS_META_PREDECESSOR == "predecessor"
    assert names.VFS_META_ATTRIBUTES == "attributes"
    assert names.VFS_PREDECESSOR_ABSENT_PREFIX == "absent:"
    assert names.VFS_PREDECESSOR_INDEX == "metadata.predecessor_1"


def test_gridfs_storage_shape() -> None:
    """GridFS storage shape (the GridFS specification's own names) and the VFS URL scheme."""
    assert names.GRIDFS_FILES_SUFFIX == "files"
    assert names.GRIDFS_CHUNKS_SUFFIX == "chunks"
    assert names.GRIDFS_FILENAME == "filename"
    assert names.GRIDFS_LENGTH == "length"
    assert names.GRIDFS_CHUNK_SIZE == "chunkSize"
    assert names.GRIDFS_UPLOAD_DATE == "uploadDate"
    assert names.GRIDFS_METADATA == "metadata"
    assert names.GRIDFS_FILES_ID == "files_id"
    assert names.GRIDFS_N == "n"
    assert names.VFS_GRIDFS_SCHEME == "gridfs"


def test_keys_shared_with_the_wider_runtime() -> None:
    """Keys shared with the wider runtime."""
    assert names.TOOL_CONTEXT_CONVERSATION_ID == "conversationId"
    assert names.TOOL_CONTEXT_INVOKING_CONVERSATION_ID == "invokingConversationId"
    assert names.ROUTING_KEY_CONTEXT == "ctx"
    assert names.OPENSEARCH_FIELD_CONTEXT_ID == "context_id"


def test_langgraph_checkpointer() -> None:
    """LangGraph checkpointer (aimon_mongo.langgraph)."""
    assert names.LG_CHECKPOINTS == "langgraph_checkpoints"
    assert names.LG_THREADS == "langgraph_threads"
    assert names.LG_VALUES_BUCKET == "langgraph_values"
    assert names.LG_VALUES_CHUNK_SIZE == 1048576
    assert names.LG_IDX_CHECKPOINT == "by_thread_ns_checkpoint"
    assert names.LG_IDX_VALUE_KEY == "by_thread_ns_value_key"
    assert names.LG_IDX_RUN_ID == "by_run_id"
    assert names.LG_IDX_THREAD_EXPIRES == "by_expires_at"
    assert names.LG_IDX_THREAD_PURGE == "ttl_purge_at"
    assert names.LG_IDX_VALUES_THREAD == "by_thread"
    assert names.LG_IDX_VALUES_CHUNKS == "files_id_1_n_1"
    assert names.LG_LEASE_PREFIX == "langgraph-thread:"
    assert names.LG_F_THREAD_ID == "thread_id"
    assert names.LG_F_CHECKPOINT_NS == "checkpoint_ns"
    assert names.LG_F_CHECKPOINT_ID == "checkpoint_id"
    assert names.LG_F_PARENT_CHECKPOINT_ID == "parent_checkpoint_id"
    assert names.LG_F_CHECKPOINT == "checkpoint"
    assert names.LG_F_CHANNEL_VERSIONS == "channel_versions"
    assert names.LG_F_METADATA == "metadata"
    assert names.LG_F_METADATA_KEYS == "metadata_keys"
    assert names.LG_F_RUN_ID == "run_id"
    assert names.LG_F_VALUES == "values"
    assert names.LG_F_WRITES == "writes"
    assert names.LG_F_FENCING_TOKEN == "fencing_token"
    assert names.LG_F_TYPE == "type"
    assert names.LG_F_DATA == "data"
    assert names.LG_F_CHANNEL == "channel"
    assert names.LG_F_VERSION == "version"
    assert names.LG_F_KEY == "key"
    assert names.LG_F_VALUE == "value"
    assert names.LG_F_FILE_ID == "file_id"
    assert names.LG_F_SIZE == "size"
    assert names.LG_F_TASK_ID == "task_id"
    assert names.LG_F_TASK_PATH == "task_path"
    assert names.LG_F_IDX == "idx"
    assert names.LG_F_TTL_MS == "ttl_ms"
    assert names.LG_F_EXPIRES_AT == "expires_at"
    assert names.LG_F_WRITE_SEQ == "write_seq"
    assert names.LG_F_SWEEPING == "sweeping"
    assert names.LG_F_EXPIRED_AT == "expired_at"
    assert names.LG_F_PURGE_AT == "purge_at"
    assert names.LG_META_THREAD_ID == "thread_id"
    assert names.LG_META_CHECKPOINT_NS == "checkpoint_ns"
    assert names.LG_EMPTY_TYPE == "empty"


def _pinned_here() -> set[str]:
    """Names compared with a literal (``assert names.X == "..."``) somewhere in this file."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    pinned: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)):
            continue
        left, right = node.test.left, node.test.comparators[0]
        if isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name) and left.value.id == "names":
            ast.literal_eval(right)  # raises unless the pin is a literal written here
            pinned.add(left.attr)
    return pinned


def test_every_public_constant_is_pinned() -> None:
    public = {name for name in vars(names) if name.isupper() and not name.startswith("_")}
    pinned = _pinned_here()
    assert public - pinned == set(), "constants in names.py without a literal pin here"
    assert pinned - public == set(), "pins here for constants names.py no longer has"

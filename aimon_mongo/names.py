"""Every persisted literal of aimon-mongo, once.

These strings are what nodes of older and newer builds (and the Java reference system) read and write:
collection, table, key and channel names, document keys, type tags. Changing one is a data migration,
not a cleanup. Freeze tests (``tests/freeze/``) pin each value against a hard-coded literal; never
"fix" an inconsistent spelling here (the inconsistencies are frozen too).
"""

from __future__ import annotations

from typing import Final

# --- Default databases, GridFS ---
# Frozen: deployments hold data under these names (the GridFS default moved from "at/aimon", which
# MongoDB rejects, to "aimon"; nothing can live under the old name).
DEFAULT_SESSION_DATABASE: Final = "aimon_session"
DEFAULT_VFS_DATABASE: Final = "aimon"
DEFAULT_GRIDFS_BUCKET: Final = "fs"
DEFAULT_GRIDFS_CHUNK_SIZE: Final = 1024 * 1024

# --- MongoDB collections (db/mongodb/init.js) ---
# Frozen: "conversation" spellings survived the Conversation -> Session rename on purpose.
MONGO_LOCKS: Final = "conversation_locks"
MONGO_INBOX: Final = "conversation_inbox"
MONGO_IDEMPOTENCY: Final = "idempotency_entries"
MONGO_SIGNALS: Final = "conversation_signals"
MONGO_BACKGROUND_TASKS: Final = "background_task"
MONGO_SCHEDULED_TASK_INTERRUPTS: Final = "scheduled_task_interrupts"
MONGO_SESSION_RECORDS: Final = "session_records"
MONGO_SESSION_LOG_SEGMENTS: Final = "session_log_segments"
# Ours (additive): raw documents that could not be decoded, kept for inspection and replay.
MONGO_INBOX_QUARANTINE: Final = "conversation_inbox_quarantine"
# Ours (additive): highest fencing token accepted per session for fenced record/segment writes.
MONGO_SESSION_FENCES: Final = "session_fences"

# Capped collection sizes (bytes). Frozen with init.js.
MONGO_SIGNALS_CAPPED_SIZE: Final = 64 * 1024 * 1024
MONGO_SCHEDULED_TASK_INTERRUPTS_CAPPED_SIZE: Final = 1024 * 1024

# --- MongoDB index names ---
# Frozen: operators and init.js refer to indexes by these explicit names.
MONGO_IDX_INBOX_FIFO: Final = "by_conv_priority_fifo"
MONGO_IDX_IDEMPOTENCY_TTL: Final = "ttl_expires_at"
MONGO_IDX_IDEMPOTENCY_STATUS_TOUCH: Final = "by_status_touch"
MONGO_IDX_TASK_STATE: Final = "by_state"
MONGO_IDX_TASK_CONTEXT: Final = "by_context"
MONGO_IDX_SEGMENT_SESSION: Final = "by_session"
# Ours (additive).
MONGO_IDX_QUARANTINE_CONV: Final = "by_conv_quarantined_at"

# --- MongoDB document keys (DocumentKeys) ---
# Frozen: stored field names of every Mongo collection ("conversationId" / "contextId" are the frozen
# spellings of session id and agent runtime id).
F_ID: Final = "_id"
F_HOLDER_ID: Final = "holderId"
F_FENCING_TOKEN: Final = "fencingToken"
F_LEASE_EXPIRES_AT: Final = "leaseExpiresAt"
F_ACQUIRED_AT: Final = "acquiredAt"
F_CONVERSATION_ID: Final = "conversationId"
F_PRIORITY: Final = "priority"
F_DELIVERED_AT: Final = "deliveredAt"
F_CLAIM_TOKEN: Final = "claimToken"  # ours (additive): the token of the claim that last handed an entry out
F_CLAIM_ATTEMPTS: Final = "claimAttempts"  # ours (additive): how many claims handed the entry out
F_CLAIMED_AT: Final = "claimedAt"  # ours (additive): server time of the last hand-out
F_PAYLOAD: Final = "payload"
F_INPUT_HASH: Final = "inputHash"
F_STATUS: Final = "status"
F_RESULT: Final = "result"
F_CREATED_AT: Final = "createdAt"
F_LAST_TOUCHED_AT: Final = "lastTouchedAt"
F_EXPIRES_AT: Final = "expiresAt"
F_KIND: Final = "kind"
F_ORIGIN_NODE_ID: Final = "originNodeId"
F_SUBAGENT_NAME: Final = "subagentName"
F_DESCRIPTION: Final = "description"
F_STATE: Final = "state"
F_START_TIME: Final = "startTime"
F_END_TIME: Final = "endTime"
F_OUTPUT_OFFSET: Final = "outputOffset"
F_OWNER: Final = "owner"
F_CONTEXT_ID: Final = "contextId"
F_LAST_HEARTBEAT: Final = "lastHeartbeat"
F_TRANSCRIPT: Final = "transcript"
F_AGENT_REF: Final = "agentRef"
F_COMPACTION_FAILURE_COUNT: Final = "compactionFailureCount"
F_SESSION_TOTALS: Final = "sessionTotals"
F_BUDGET_OVERRIDE: Final = "budgetOverride"
F_UPDATED_AT: Final = "updatedAt"
F_SESSION_ID: Final = "sessionId"
F_SEGMENT_ID: Final = "segmentId"
F_FROM_SEQ: Final = "fromSeq"
F_TO_SEQ: Final = "toSeq"
F_ENTRY_COUNT: Final = "entryCount"
F_TASK_ID: Final = "taskId"
F_REASON: Final = "reason"
# Ours (additive): quarantine documents and fence records.
F_RAW_DOCUMENT: Final = "rawDocument"
F_ERROR: Final = "error"
F_QUARANTINED_AT: Final = "quarantinedAt"
F_HIGHEST_TOKEN: Final = "highestToken"

# --- Inbox envelope keys (JSON in Redis/PostgreSQL, payload subdocument in MongoDB) ---
# Frozen: both builds read entries the other wrote; "userInput" stays a *string* (asText rendering) and
# "userInputEncoded" is written only for non-text input.
ENV_CONVERSATION_ID: Final = "conversationId"
ENV_AGENT_REF: Final = "agentRef"
ENV_USER_INPUT: Final = "userInput"
ENV_USER_INPUT_ENCODED: Final = "userInputEncoded"
ENV_PRIORITY: Final = "priority"
ENV_TURN_ID: Final = "turnId"
ENV_CONTEXT_DISCRIMINATOR: Final = "contextDiscriminator"
ENV_IDEMPOTENCY_KEY: Final = "idempotencyKey"
ENV_INITIATOR: Final = "initiator"
ENV_DELIVERED_AT: Final = "deliveredAt"
ENV_METADATA: Final = "metadata"
ENV_SUBMIT_OPTIONS: Final = "submitOptions"

# --- Principal subtree ---
# Frozen: {type, id, displayName} wherever a principal is stored.
PRINCIPAL_TYPE: Final = "type"
PRINCIPAL_ID: Final = "id"
PRINCIPAL_DISPLAY_NAME: Final = "displayName"

# --- SubmitOptions subtree (SubmitOptionsCodec) ---
# Frozen: shared by every inbox backend and by stored transcripts' rewind points.
SO_PRINCIPAL: Final = "principal"
SO_SYSTEM_PROMPT_VARIABLES: Final = "systemPromptVariables"
SO_EXECUTION_ATTRIBUTES: Final = "executionAttributes"
SO_LLM_CALL_METADATA: Final = "llmCallMetadata"
# Retired: ignored on read, never written, never to be reused for another meaning.
SO_RETIRED_USER_CONTEXT_INJECTION: Final = "userContextInjection"
LLM_COMPONENT: Final = "component"
LLM_PARENT_COMPONENT: Final = "parentComponent"
LLM_FEATURE: Final = "feature"
LLM_PRINCIPAL: Final = "principal"
LLM_TRACE_ID: Final = "traceId"
LLM_TAGS: Final = "tags"

# --- UserInputCodec field names and type tags ---
# Frozen: the same encoding is in inbox entries and in every stored subagent transcript.
UI_TYPE: Final = "type"
UI_TEXT: Final = "text"
UI_MIME_TYPE: Final = "mimeType"
UI_FILE_NAME: Final = "fileName"
UI_DATA: Final = "data"
UI_INPUTS: Final = "inputs"
UI_TAG_TEXT: Final = "text"
UI_TAG_IMAGE: Final = "image"
UI_TAG_AUDIO: Final = "audio"
UI_TAG_FILE: Final = "file"
UI_TAG_MULTIMODAL: Final = "multimodal"

# --- Signal message keys (Redis JSON, Mongo document) ---
# Frozen: nodes of both builds exchange these.
SIG_CONVERSATION_ID: Final = "conversationId"
SIG_KIND: Final = "kind"
SIG_ORIGIN_NODE_ID: Final = "originNodeId"
SIG_PAYLOAD: Final = "payload"

# --- Idempotency entry (Redis JSON value; result projection everywhere) ---
# Frozen: key order of the Redis value is part of the contract (Lua matches substrings of it).
IDEM_KEY: Final = "key"
IDEM_CONVERSATION_ID: Final = "conversationId"
IDEM_INPUT_HASH: Final = "inputHash"
IDEM_STATUS: Final = "status"
IDEM_HOLDER_ID: Final = "holderId"
IDEM_CREATED_AT: Final = "createdAt"
IDEM_LAST_TOUCHED_AT: Final = "lastTouchedAt"
IDEM_TTL_MILLIS: Final = "ttlMillis"
IDEM_RESULT: Final = "result"
RESULT_SUCCESS: Final = "success"
RESULT_FINAL_ANSWER: Final = "finalAnswer"
RESULT_ERROR_MESSAGE: Final = "errorMessage"
RESULT_COMPLETION_REASON: Final = "completionReason"
RESULT_WAS_STREAMED: Final = "wasStreamed"

# --- Session totals subtree (record "sessionTotals", STATUS signal "totals") ---
# Frozen: absolute counters read by nodes of both builds (Mongo subdocument, Redis/PostgreSQL JSON).
TOTALS_TURN_COUNT: Final = "turnCount"
TOTALS_ITERATIONS: Final = "iterations"
TOTALS_PROMPT_TOKENS: Final = "promptTokens"
TOTALS_COMPLETION_TOKENS: Final = "completionTokens"
TOTALS_TOTAL_TOKENS: Final = "totalTokens"
TOTALS_REASONING_TOKENS: Final = "reasoningTokens"

# --- Session host signals (aimon_mongo.host; ours, additive) ---
# The host-wide channel: a session id no conversation uses, on which hosts tell each other which sessions
# wait for a holder (YIELD on drain and hand-over, MESSAGE_ENQUEUED from a client when nobody holds the
# session). Payload keys of the host's signals (session channel and host channel).
HOST_SIGNAL_SESSION: Final = "_aimon_hosts"
HOST_PAYLOAD_SESSIONS: Final = "sessions"
HOST_PAYLOAD_ENTRY_ID: Final = "entryId"
HOST_PAYLOAD_PRIORITY: Final = "priority"

# --- Background task (Redis JSON value) ---
# Frozen: "contextId" holds the agent runtime id.
TASK_TASK_ID: Final = "taskId"
TASK_SUBAGENT_NAME: Final = "subagentName"
TASK_STATE: Final = "state"
TASK_START_TIME: Final = "startTime"
TASK_END_TIME: Final = "endTime"
TASK_OUTPUT_OFFSET: Final = "outputOffset"
TASK_DESCRIPTION: Final = "description"
TASK_OWNER: Final = "owner"
TASK_CONTEXT_ID: Final = "contextId"
TASK_LAST_HEARTBEAT: Final = "lastHeartbeat"

# --- Redis keys, prefixes and channels ---
# Frozen, including their inconsistency with each other ("aimon:conv" vs "aimon:inbox" vs
# "aimon:conv:idem"): harmonising them is a data migration.
REDIS_INBOX_PREFIX: Final = "aimon:inbox"  # streams <prefix>:<id>:NOW|NEXT|LATER
REDIS_CONV_PREFIX: Final = "aimon:conv"  # lock, fence, signal channels
REDIS_IDEMPOTENCY_PREFIX: Final = "aimon:conv:idem"  # <prefix>:<key>
REDIS_SESSION_RECORD_PREFIX: Final = "aimon:session:record"  # hash <prefix>:<id>
REDIS_SEGMENT_PREFIX: Final = "aimon:session:segment"  # <prefix>:{s:<id>}:data / :created
REDIS_TASK_STOP_CHANNEL: Final = "aimon:subagent:task-stop"
# The reference's background-task prefix literal could not be recovered; this one is ours.
REDIS_BACKGROUND_TASK_PREFIX: Final = "aimon:subagent:task"  # <prefix>:<taskId> + <prefix>:index
REDIS_LOCK_SEGMENT: Final = "lock"  # <conv>:lock:<id>
REDIS_FENCE_SEGMENT: Final = "lock:fence"  # <conv>:lock:fence:<id>
REDIS_CONTROL_SEGMENT: Final = "control"  # <conv>:control:<id>
REDIS_EVENTS_SEGMENT: Final = "events"  # <conv>:events:<id>
REDIS_STREAM_FIELD: Final = "p"  # the single stream-entry field holding the envelope JSON
REDIS_QUARANTINE_SUFFIX: Final = "quarantine"  # ours: <inbox>:<id>:quarantine
REDIS_CLAIMS_SUFFIX: Final = "claims"  # ours: hash <inbox>:<id>:claims, "<tier>:<stream id>" -> "<token>:<attempts>"
REDIS_INDEX_SUFFIX: Final = "index"
REDIS_SEGMENT_DATA_SUFFIX: Final = "data"
REDIS_SEGMENT_CREATED_SUFFIX: Final = "created"
REDIS_HASH_TAG_OPEN: Final = "{s:"  # segment keys: <prefix>:{s:<id>}:data (one cluster slot per session)
REDIS_HASH_TAG_CLOSE: Final = "}"
# Ours (additive): highest fencing token accepted per session for fenced record/segment writes, a String
# at <prefix>:{s:<id>} (the hash tag puts it in the slot of the session's segment keys).
REDIS_SESSION_FENCE_PREFIX: Final = "aimon:session:fence"
# Ours (additive): fields of a quarantine stream entry besides "p" (the raw envelope text).
REDIS_QUARANTINE_ENTRY_ID_FIELD: Final = "entryId"  # the id the entry had in its inbox stream
REDIS_QUARANTINE_ERROR_FIELD: Final = "error"  # why it could not be decoded (never the payload)

# --- PostgreSQL (sql/V1__init.sql, sql/V2__session_log_segment.sql) ---
# Frozen: tables, columns, index names and the LISTEN/NOTIFY channel.
PG_DEFAULT_SCHEMA: Final = "aimon_session"
PG_CONVERSATION_LOCK: Final = "conversation_lock"
PG_CONVERSATION_LOCK_FENCE: Final = "conversation_lock_fence"
PG_CONVERSATION_SIGNAL: Final = "conversation_signal"
PG_CONVERSATION_INBOX: Final = "conversation_inbox"
PG_IDEMPOTENCY_ENTRY: Final = "idempotency_entry"
PG_BACKGROUND_TASK: Final = "background_task"
PG_SESSION_RECORD: Final = "session_record"
PG_SESSION_LOG_SEGMENT: Final = "session_log_segment"
PG_INBOX_QUARANTINE: Final = "conversation_inbox_quarantine"  # ours (additive)
PG_SIGNAL_DOORBELL_CHANNEL: Final = "conversation_signal_doorbell"
PG_COL_CONVERSATION_ID: Final = "conversation_id"
PG_COL_CONTEXT_ID: Final = "context_id"
PG_IDX_LOCK_LEASE_EXPIRES_AT: Final = "conversation_lock_lease_expires_at_idx"
PG_IDX_SIGNAL_FETCH: Final = "conversation_signal_fetch_idx"
PG_IDX_SIGNAL_CREATED_AT: Final = "conversation_signal_created_at_idx"
PG_IDX_INBOX_DRAIN: Final = "conversation_inbox_drain_idx"
PG_IDX_IDEMPOTENCY_INFLIGHT_STALE: Final = "idempotency_entry_inflight_stale_idx"
PG_IDX_IDEMPOTENCY_EXPIRES_AT: Final = "idempotency_entry_expires_at_idx"
PG_IDX_TASK_STATE: Final = "background_task_state_idx"
PG_IDX_TASK_CONTEXT: Final = "background_task_context_idx"
# Ours (sql/V3__aimon_additions.sql and the migration ledger), frozen once deployed: ensure_schema() and
# operators find applied versions, fences and quarantined entries under these names.
PG_SESSION_FENCE: Final = "session_fence"
PG_SCHEMA_VERSION: Final = "aimon_schema_version"
PG_IDX_INBOX_QUARANTINE_CONV: Final = "conversation_inbox_quarantine_conv_idx"
# Ours (sql/V4__scale_indexes.sql): indexes the task-by-owner and segment-scan plans use.
PG_IDX_TASK_OWNER: Final = "background_task_owner_idx"
PG_IDX_SEGMENT_SCAN: Final = "session_log_segment_scan_idx"
# Ours (sql/V5__token_floor.sql): the floor under fencing tokens that lets retention delete fence rows.
PG_TOKEN_FLOOR: Final = "aimon_token_floor"
PG_TOKEN_FLOOR_TRIGGER: Final = "aimon_lock_fence_floor"

# --- Snapshot envelope (VfsSessionSnapshotStore) ---
# Frozen: {"v":1, "subagentName", "contextId" (only when known), "snapshot": {...}}.
SNAP_ENV_VERSION: Final = "v"
SNAP_ENV_SUBAGENT_NAME: Final = "subagentName"
SNAP_ENV_CONTEXT_ID: Final = "contextId"
SNAP_ENV_SNAPSHOT: Final = "snapshot"
SNAP_ENV_FORMAT_VERSION: Final = 1
# Frozen: where the snapshot store keeps its objects, "<base_dir>/<task_id>.json" (default base dir).
SNAP_STORE_BASE_DIR: Final = "task-snapshot"
SNAP_STORE_SUFFIX: Final = ".json"
# Frozen: the snapshot document keeps the session id under "conversationId".
SNAP_DOC_VERSION: Final = "version"
SNAP_DOC_CONVERSATION_ID: Final = "conversationId"

# --- Session snapshot document (JsonSessionSnapshotCodec, versions 1 and 2) ---
# Frozen: stored subagent transcripts and session records of every older build are read with these keys;
# the same message encoding is the payload of sealed log segments.
SNAP_FORMAT_V1: Final = 1
SNAP_FORMAT_V2: Final = 2
SNAP_DOC_SYSTEM_PROMPT: Final = "systemPrompt"
SNAP_DOC_MESSAGES: Final = "messages"  # v1 only
SNAP_DOC_NEXT_SEQ: Final = "nextSeq"  # v2 only
SNAP_DOC_FLOOR_SEQ: Final = "floorSeq"  # v2 only
SNAP_DOC_ENTRIES: Final = "entries"  # v2 and the segment payload
SNAP_DOC_VIEW_STATE: Final = "viewState"  # v2, only when non-empty
SNAP_DOC_MANIFEST: Final = "manifest"  # v2, only when something was sealed
SNAP_DOC_REWIND_POINT: Final = "rewindPoint"
# Retired without a version bump: ignored on read, never written, never to be reused.
SNAP_RETIRED_COMPACTION_FAILURE_COUNT: Final = "compactionFailureCount"
SNAP_REWIND_MESSAGE_COUNT: Final = "messageCount"  # v1 position
SNAP_REWIND_SEQ: Final = "seq"  # v2 position
SNAP_REWIND_USER_INPUT: Final = "userInput"
SNAP_REWIND_SUBMIT_OPTIONS: Final = "submitOptions"
SNAP_ENTRY_SEQ: Final = "seq"
SNAP_ENTRY_ORIGIN: Final = "origin"
SNAP_ENTRY_MESSAGE: Final = "message"
SNAP_ORIGIN_CONVERSATION: Final = "CONVERSATION"
SNAP_ORIGIN_SYNTHETIC: Final = "SYNTHETIC"
SNAP_VIEW_SUMMARY_SPAN: Final = "summarySpan"
SNAP_VIEW_DROPPED_RANGES: Final = "droppedRanges"
SNAP_VIEW_ELISIONS: Final = "elisions"
SNAP_SPAN_FROM_SEQ: Final = "fromSeq"
SNAP_SPAN_TO_SEQ: Final = "toSeq"
SNAP_SPAN_SUMMARY_TEXT: Final = "summaryText"
SNAP_SPAN_BOUNDARY_ID: Final = "boundaryId"
SNAP_SPAN_TRIGGER: Final = "trigger"
SNAP_SPAN_PRE_TOKEN_COUNT: Final = "preTokenCount"
SNAP_SPAN_MESSAGES_SUMMARIZED: Final = "messagesSummarized"
SNAP_SPAN_DISCOVERED_TOOL_NAMES: Final = "discoveredToolNames"
SNAP_RANGE_FROM_SEQ: Final = "fromSeq"
SNAP_RANGE_TO_SEQ: Final = "toSeq"
SNAP_ELISION_SEQ: Final = "seq"
SNAP_ELISION_PLACEHOLDER: Final = "placeholder"
SNAP_MANIFEST_FROM_SEQ: Final = "fromSeq"
SNAP_MANIFEST_TO_SEQ: Final = "toSeq"
SNAP_MANIFEST_SEGMENT_ID: Final = "segmentId"
SNAP_MANIFEST_CONTENT_HASH: Final = "contentHash"
SNAP_MANIFEST_ENTRY_COUNT: Final = "entryCount"
SNAP_CONTENT_HASH_PREFIX: Final = "sha256:"  # + lowercase hex SHA-256 of the payload's UTF-8 bytes
# Message objects (both versions).
SNAP_MSG_ROLE: Final = "role"
SNAP_MSG_CONTENT: Final = "content"
SNAP_MSG_TOOL_USES: Final = "toolUses"
SNAP_MSG_TOOL_RESULTS: Final = "toolResults"
SNAP_MSG_ARTIFACTS: Final = "artifacts"
SNAP_MSG_REASONING: Final = "reasoning"  # added without a version bump
SNAP_ROLE_USER: Final = "USER"
SNAP_ROLE_ASSISTANT: Final = "ASSISTANT"
SNAP_ROLE_TOOL: Final = "TOOL"
# Content blocks (their own tags, not the userInput tags).
SNAP_BLOCK_TYPE: Final = "type"
SNAP_BLOCK_TEXT: Final = "text"
SNAP_BLOCK_MIME_TYPE: Final = "mimeType"
SNAP_BLOCK_SOURCE: Final = "source"
SNAP_BLOCK_DATA: Final = "data"
SNAP_BLOCK_URL: Final = "url"
SNAP_BLOCK_FILE_NAME: Final = "fileName"
SNAP_BLOCK_TAG_TEXT: Final = "text"
SNAP_BLOCK_TAG_IMAGE: Final = "image"
SNAP_BLOCK_TAG_DOCUMENT: Final = "document"
SNAP_IMAGE_SOURCE_BASE64: Final = "base64"
SNAP_IMAGE_SOURCE_URL: Final = "url"
SNAP_TOOL_USE_ID: Final = "id"
SNAP_TOOL_USE_NAME: Final = "name"
SNAP_TOOL_USE_INPUT: Final = "input"
SNAP_RESULT_TOOL_USE_ID: Final = "toolUseId"
SNAP_RESULT_CONTENT: Final = "content"
SNAP_RESULT_IS_ERROR: Final = "isError"
SNAP_ARTIFACT_PATH: Final = "path"
SNAP_ARTIFACT_FILE_NAME: Final = "fileName"
SNAP_ARTIFACT_SIZE: Final = "size"
SNAP_ARTIFACT_MIME_TYPE: Final = "mimeType"
SNAP_ARTIFACT_TOOL_USE_ID: Final = "toolUseId"
SNAP_ARTIFACT_DOWNLOAD_TOKEN: Final = "downloadToken"
SNAP_REASONING_PROVIDER: Final = "provider"
SNAP_REASONING_PAYLOAD: Final = "payload"
SNAP_REASONING_TOOL_USE_ID: Final = "toolUseId"

# --- Task result document (JsonTaskResultCodec, flat, no envelope) ---
# Frozen: "<base_dir>/<task_id>.json" objects written by every older build; the codec's version is the
# version of record.
TASKRES_FORMAT_VERSION: Final = 1
TASKRES_VERSION: Final = "version"
TASKRES_SUCCESS: Final = "success"
TASKRES_FINAL_ANSWER: Final = "finalAnswer"
TASKRES_ERROR_MESSAGE: Final = "errorMessage"
TASKRES_COMPLETION_REASON: Final = "completionReason"
TASKRES_ITERATION_COUNT: Final = "iterationCount"
TASKRES_DURATION_MILLIS: Final = "durationMillis"
TASKRES_TOTAL_TOKENS: Final = "totalTokens"
TASKRES_SUMMARY_TRUNCATED: Final = "summaryTruncated"
# Frozen: where the task-result store keeps its objects, "<base_dir>/<task_id>.json" (default base dir).
TASKRES_BASE_DIR: Final = "task-result"
TASKRES_SUFFIX: Final = ".json"

# --- Task output (VfsTaskOutputStore): append-only segments "<base_dir>/<task_id>/<start:020d>.seg" ---
# Frozen: readers of every build map offsets to segments by these file names alone; <start> is the
# segment's first offset in UTF-16 code units, zero-padded to 20 digits so name order is offset order.
TASKOUT_BASE_DIR: Final = "task-output"
TASKOUT_SEGMENT_SUFFIX: Final = ".seg"
TASKOUT_START_DIGITS: Final = 20

# --- Snapshot store: listing attributes of a stored envelope (VFS file attributes, all text) ---
# Frozen: list_snapshots reads these instead of the envelope; absent (older builds, foreign writers) it
# reads the envelope.
SNAP_ATTR_SUBAGENT_NAME: Final = "snapshotSubagentName"
SNAP_ATTR_CONTEXT_ID: Final = "snapshotContextId"
SNAP_ATTR_FORMAT_VERSION: Final = "snapshotFormatVersion"
SNAP_ATTR_MESSAGE_COUNT: Final = "snapshotMessageCount"

# --- Virtual filesystem on GridFS ---
# Frozen: directory markers are zero-length files whose filename ends in "/" with metadata.type
# "directory"; file metadata keys are read by nodes of both builds.
VFS_MARKER_TYPE: Final = "directory"
VFS_META_TYPE: Final = "type"
VFS_META_PATH: Final = "path"
VFS_META_UPLOAD_DATE: Final = "uploadDate"
VFS_META_CONTENT_SHA256: Final = "contentSha256"
VFS_META_COPIED_FROM: Final = "copiedFrom"
VFS_ETAG_PREFIX: Final = "sha256:"
# Frozen: a conditional write stores the revision it replaced (or "absent:<path>") here; a unique partial
# index on it lets exactly one writer replace a given revision, across nodes.
VFS_META_PREDECESSOR: Final = "predecessor"
VFS_PREDECESSOR_ABSENT_PREFIX: Final = "absent:"
VFS_PREDECESSOR_INDEX: Final = "metadata.predecessor_1"
# Frozen: caller-supplied per-file attributes (string -> string), a sub-document of the file metadata.
VFS_META_ATTRIBUTES: Final = "attributes"

# --- GridFS storage shape (the GridFS specification's own names, as every driver writes them) ---
# Frozen: buckets written by any MongoDB driver, by the reference and by us are the same collections and
# fields; the VFS reads them verbatim.
GRIDFS_FILES_SUFFIX: Final = "files"  # collection <bucket>.files
GRIDFS_CHUNKS_SUFFIX: Final = "chunks"  # collection <bucket>.chunks
GRIDFS_FILENAME: Final = "filename"
GRIDFS_LENGTH: Final = "length"
GRIDFS_CHUNK_SIZE: Final = "chunkSize"
GRIDFS_UPLOAD_DATE: Final = "uploadDate"
GRIDFS_METADATA: Final = "metadata"
GRIDFS_FILES_ID: Final = "files_id"
GRIDFS_N: Final = "n"
# Frozen once published: the scheme of the working directory ("gridfs://<db>/<bucket>") and the fsspec
# protocol name registered in pyproject.toml; users write it in URLs.
VFS_GRIDFS_SCHEME: Final = "gridfs"

# --- LangGraph checkpointer (aimon_mongo.langgraph; ours, additive) ---
# Frozen once published: the collections, GridFS bucket, index names and document keys of the
# checkpoint saver. Field names follow LangGraph's own vocabulary (snake_case, as its configs spell them).
LG_CHECKPOINTS: Final = "langgraph_checkpoints"
LG_THREADS: Final = "langgraph_threads"
LG_VALUES_BUCKET: Final = "langgraph_values"  # GridFS bucket: langgraph_values.files / .chunks
LG_VALUES_CHUNK_SIZE: Final = 1024 * 1024
LG_IDX_CHECKPOINT: Final = "by_thread_ns_checkpoint"
LG_IDX_VALUE_KEY: Final = "by_thread_ns_value_key"
LG_IDX_RUN_ID: Final = "by_run_id"
LG_IDX_THREAD_EXPIRES: Final = "by_expires_at"
LG_IDX_THREAD_PURGE: Final = "ttl_purge_at"
LG_IDX_VALUES_THREAD: Final = "by_thread"
LG_IDX_VALUES_CHUNKS: Final = "files_id_1_n_1"  # the name every driver gives the GridFS chunks index
# The lease key of a thread's write ownership in the session LeaseStore ("<prefix><thread_id>").
LG_LEASE_PREFIX: Final = "langgraph-thread:"
# Checkpoint documents.
LG_F_THREAD_ID: Final = "thread_id"
LG_F_CHECKPOINT_NS: Final = "checkpoint_ns"
LG_F_CHECKPOINT_ID: Final = "checkpoint_id"
LG_F_PARENT_CHECKPOINT_ID: Final = "parent_checkpoint_id"
LG_F_CHECKPOINT: Final = "checkpoint"
LG_F_CHANNEL_VERSIONS: Final = "channel_versions"
LG_F_METADATA: Final = "metadata"
LG_F_METADATA_KEYS: Final = "metadata_keys"
LG_F_RUN_ID: Final = "run_id"
LG_F_VALUES: Final = "values"
LG_F_WRITES: Final = "writes"
LG_F_FENCING_TOKEN: Final = "fencing_token"
# Sub-documents: a serde pair, a channel version, a metadata key, a stored value, a pending write.
LG_F_TYPE: Final = "type"
LG_F_DATA: Final = "data"
LG_F_CHANNEL: Final = "channel"
LG_F_VERSION: Final = "version"
LG_F_KEY: Final = "key"
LG_F_VALUE: Final = "value"
LG_F_FILE_ID: Final = "file_id"
LG_F_SIZE: Final = "size"
LG_F_TASK_ID: Final = "task_id"
LG_F_TASK_PATH: Final = "task_path"
LG_F_IDX: Final = "idx"
# Thread documents (fence, retention, sweep state).
LG_F_TTL_MS: Final = "ttl_ms"
LG_F_EXPIRES_AT: Final = "expires_at"
LG_F_WRITE_SEQ: Final = "write_seq"
LG_F_SWEEPING: Final = "sweeping"
LG_F_EXPIRED_AT: Final = "expired_at"
LG_F_PURGE_AT: Final = "purge_at"
# GridFS file metadata of a stored value.
LG_META_THREAD_ID: Final = "thread_id"
LG_META_CHECKPOINT_NS: Final = "checkpoint_ns"
# The serde type stored for a channel listed in new_versions without a value (LangGraph's own spelling).
LG_EMPTY_TYPE: Final = "empty"

# --- Keys shared with the wider runtime ---
# Frozen: out-of-tree tools read the raw strings.
TOOL_CONTEXT_CONVERSATION_ID: Final = "conversationId"
TOOL_CONTEXT_INVOKING_CONVERSATION_ID: Final = "invokingConversationId"
# Frozen: AgentExecutionEventPayload context key (routing).
ROUTING_KEY_CONTEXT: Final = "ctx"
# Frozen: an indexed OpenSearch field; renaming it needs a reindex.
OPENSEARCH_FIELD_CONTEXT_ID: Final = "context_id"

# --- Google ADK services (ours, additive; aimon_mongo.adk, stored/adk.py) ---
# The session header (the transcript of an ADK session record): {v, state, created, updated, events, rev}.
ADK_HEADER_VERSION: Final = "v"
ADK_HEADER_STATE: Final = "state"
ADK_HEADER_CREATED: Final = "created"
ADK_HEADER_UPDATED: Final = "updated"
ADK_HEADER_EVENTS: Final = "events"
ADK_HEADER_REVISION: Final = "rev"
# An artifact version's attributes (GridFS metadata.attributes, or the .meta.json sidecar).
ADK_ATTR_KIND: Final = "adk.kind"
ADK_ATTR_MIME_TYPE: Final = "adk.mime_type"
ADK_ATTR_CUSTOM_METADATA: Final = "adk.custom_metadata"
ADK_ATTR_FILE_URI: Final = "adk.file_uri"
ADK_ATTR_CREATE_TIME: Final = "adk.create_time"

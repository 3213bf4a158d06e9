"""Freeze: every persisted snapshot, task-result and task-output key, tag, path part and version, against
hard-coded literals.

A rename here is a data migration: stored transcripts, sealed segments and task results of every older
build are read with these names. The set of ``SNAP_*`` / ``TASKRES_*`` names is pinned too, so a new
persisted key cannot be added without being frozen here.
"""

from __future__ import annotations

from aimon_mongo import names
from aimon_mongo.snapshots import (
    FORMAT_VERSION,
    FORMAT_VERSION_V2,
    ImageSource,
    LogOrigin,
    Role,
    SessionLogFormat,
    task_result,
)

SNAPSHOT_NAMES = {
    "SNAP_ENV_VERSION": "v",
    "SNAP_ENV_SUBAGENT_NAME": "subagentName",
    "SNAP_ENV_CONTEXT_ID": "contextId",
    "SNAP_ENV_SNAPSHOT": "snapshot",
    "SNAP_ENV_FORMAT_VERSION": 1,
    "SNAP_STORE_BASE_DIR": "task-snapshot",
    "SNAP_STORE_SUFFIX": ".json",
    "SNAP_ATTR_SUBAGENT_NAME": "snapshotSubagentName",
    "SNAP_ATTR_CONTEXT_ID": "snapshotContextId",
    "SNAP_ATTR_FORMAT_VERSION": "snapshotFormatVersion",
    "SNAP_ATTR_MESSAGE_COUNT": "snapshotMessageCount",
    "SNAP_FORMAT_V1": 1,
    "SNAP_FORMAT_V2": 2,
    "SNAP_DOC_VERSION": "version",
    "SNAP_DOC_CONVERSATION_ID": "conversationId",
    "SNAP_DOC_SYSTEM_PROMPT": "systemPrompt",
    "SNAP_DOC_MESSAGES": "messages",
    "SNAP_DOC_NEXT_SEQ": "nextSeq",
    "SNAP_DOC_FLOOR_SEQ": "floorSeq",
    "SNAP_DOC_ENTRIES": "entries",
    "SNAP_DOC_VIEW_STATE": "viewState",
    "SNAP_DOC_MANIFEST": "manifest",
    "SNAP_DOC_REWIND_POINT": "rewindPoint",
    "SNAP_RETIRED_COMPACTION_FAILURE_COUNT": "compactionFailureCount",
    "SNAP_REWIND_MESSAGE_COUNT": "messageCount",
    "SNAP_REWIND_SEQ": "seq",
    "SNAP_REWIND_USER_INPUT": "userInput",
    "SNAP_REWIND_SUBMIT_OPTIONS": "submitOptions",
    "SNAP_ENTRY_SEQ": "seq",
    "SNAP_ENTRY_ORIGIN": "origin",
    "SNAP_ENTRY_MESSAGE": "message",
    "SNAP_ORIGIN_CONVERSATION": "CONVERSATION",
    "SNAP_ORIGIN_SYNTHETIC": "SYNTHETIC",
    "SNAP_VIEW_SUMMARY_SPAN": "summarySpan",
    "SNAP_VIEW_DROPPED_RANGES": "droppedRanges",
    "SNAP_VIEW_ELISIONS": "elisions",
    "SNAP_SPAN_FROM_SEQ": "fromSeq",
    "SNAP_SPAN_TO_SEQ": "toSeq",
    "SNAP_SPAN_SUMMARY_TEXT": "summaryText",
    "SNAP_SPAN_BOUNDARY_ID": "boundaryId",
    "SNAP_SPAN_TRIGGER": "trigger",
    "SNAP_SPAN_PRE_TOKEN_COUNT": "preTokenCount",
    "SNAP_SPAN_MESSAGES_SUMMARIZED": "messagesSummarized",
    "SNAP_SPAN_DISCOVERED_TOOL_NAMES": "discoveredToolNames",
    "SNAP_RANGE_FROM_SEQ": "fromSeq",
    "SNAP_RANGE_TO_SEQ": "toSeq",
    "SNAP_ELISION_SEQ": "seq",
    "SNAP_ELISION_PLACEHOLDER": "placeholder",
    "SNAP_MANIFEST_FROM_SEQ": "fromSeq",
    "SNAP_MANIFEST_TO_SEQ": "toSeq",
    "SNAP_MANIFEST_SEGMENT_ID": "segmentId",
    "SNAP_MANIFEST_CONTENT_HASH": "contentHash",
    "SNAP_MANIFEST_ENTRY_COUNT": "entryCount",
    "SNAP_CONTENT_HASH_PREFIX": "sha256:",
    "SNAP_MSG_ROLE": "role",
    "SNAP_MSG_CONTENT": "content",
    "SNAP_MSG_TOOL_USES": "toolUses",
    "SNAP_MSG_TOOL_RESULTS": "toolResults",
    "SNAP_MSG_ARTIFACTS": "artifacts",
    "SNAP_MSG_REASONING": "reasoning",
    "SNAP_ROLE_USER": "USER",
    "SNAP_ROLE_ASSISTANT": "ASSISTANT",
    "SNAP_ROLE_TOOL": "TOOL",
    "SNAP_BLOCK_TYPE": "type",
    "SNAP_BLOCK_TEXT": "text",
    "SNAP_BLOCK_MIME_TYPE": "mimeType",
    "SNAP_BLOCK_SOURCE": "source",
    "SNAP_BLOCK_DATA": "data",
    "SNAP_BLOCK_URL": "url",
    "SNAP_BLOCK_FILE_NAME": "fileName",
    "SNAP_BLOCK_TAG_TEXT": "text",
    "SNAP_BLOCK_TAG_IMAGE": "image",
    "SNAP_BLOCK_TAG_DOCUMENT": "document",
    "SNAP_IMAGE_SOURCE_BASE64": "base64",
    "SNAP_IMAGE_SOURCE_URL": "url",
    "SNAP_TOOL_USE_ID": "id",
    "SNAP_TOOL_USE_NAME": "name",
    "SNAP_TOOL_USE_INPUT": "input",
    "SNAP_RESULT_TOOL_USE_ID": "toolUseId",
    "SNAP_RESULT_CONTENT": "content",
    "SNAP_RESULT_IS_ERROR": "isError",
    "SNAP_ARTIFACT_PATH": "path",
    "SNAP_ARTIFACT_FILE_NAME": "fileName",
    "SNAP_ARTIFACT_SIZE": "size",
    "SNAP_ARTIFACT_MIME_TYPE": "mimeType",
    "SNAP_ARTIFACT_TOOL_USE_ID": "toolUseId",
    "SNAP_ARTIFACT_DOWNLOAD_TOKEN": "downloadToken",
    "SNAP_REASONING_PROVIDER": "provider",
    "SNAP_REASONING_PAYLOAD": "payload",
    "SNAP_REASONING_TOOL_USE_ID": "toolUseId",
}

TASK_RESULT_NAMES = {
    "TASKRES_FORMAT_VERSION": 1,
    "TASKRES_VERSION": "version",
    "TASKRES_SUCCESS": "success",
    "TASKRES_FINAL_ANSWER": "finalAnswer",
    "TASKRES_ERROR_MESSAGE": "errorMessage",
    "TASKRES_COMPLETION_REASON": "completionReason",
    "TASKRES_ITERATION_COUNT": "iterationCount",
    "TASKRES_DURATION_MILLIS": "durationMillis",
    "TASKRES_TOTAL_TOKENS": "totalTokens",
    "TASKRES_SUMMARY_TRUNCATED": "summaryTruncated",
    "TASKRES_BASE_DIR": "task-result",
    "TASKRES_SUFFIX": ".json",
}

TASK_OUTPUT_NAMES = {
    "TASKOUT_BASE_DIR": "task-output",
    "TASKOUT_SEGMENT_SUFFIX": ".seg",
    "TASKOUT_START_DIGITS": 20,
}


def test_every_snapshot_name_is_frozen() -> None:
    for name, literal in SNAPSHOT_NAMES.items():
        assert getattr(names, name) == literal, name


def test_every_task_result_name_is_frozen() -> None:
    for name, literal in TASK_RESULT_NAMES.items():
        assert getattr(names, name) == literal, name


def test_every_task_output_name_is_frozen() -> None:
    for name, literal in TASK_OUTPUT_NAMES.items():
        assert getattr(names, name) == literal, name


def test_no_snapshot_or_task_result_name_is_left_unfrozen() -> None:
    declared = {name for name in vars(names) if name.startswith(("SNAP_", "TASKRES_", "TASKOUT_"))}
    assert declared == set(SNAPSHOT_NAMES) | set(TASK_RESULT_NAMES) | set(TASK_OUTPUT_NAMES)


def test_stored_enum_names_and_versions_are_frozen() -> None:
    assert [r.value for r in Role] == ["USER", "ASSISTANT", "TOOL"]
    assert [o.value for o in LogOrigin] == ["CONVERSATION", "SYNTHETIC"]
    assert [s.value for s in ImageSource] == ["base64", "url"]
    assert [(f.name, f.wire_version) for f in SessionLogFormat] == [("V1", 1), ("V2", 2)]
    assert (FORMAT_VERSION, FORMAT_VERSION_V2, task_result.FORMAT_VERSION) == (1, 2, 1)

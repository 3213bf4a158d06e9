"""Transcript snapshots and the task stores.

Pure: the ``SessionSnapshot`` model, its JSON codec (versions 1 and 2), sealed segment payloads, the task
result codec, a plain-text rendering, the store envelope and path rules. Stores (async source, generated
sync twins): the filesystem snapshot store with browsing, the scoped and in-memory snapshot stores, the
task-output and task-result stores. See ``docs/snapshots.md``.
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

# Imported now: the function ``render`` has the name of its module, which would replace it on this package
# once the module is imported (the import system sets the attribute) if it were loaded lazily.
from aimon_mongo.snapshots.render import LineKind, RenderLine, render, render_lines

if TYPE_CHECKING:
    from aimon_mongo._async.snapshots.memory_store import AsyncInMemorySessionSnapshotStore
    from aimon_mongo._async.snapshots.ports import (
        AsyncSessionSnapshotStore,
        AsyncTaskOutputStore,
        AsyncTaskResultStore,
    )
    from aimon_mongo._async.snapshots.scoped import AsyncScopedSessionSnapshotStore
    from aimon_mongo._async.snapshots.snapshot_store import AsyncVfsSessionSnapshotStore
    from aimon_mongo._async.snapshots.task_output import AsyncVfsTaskOutputStore
    from aimon_mongo._async.snapshots.task_result_store import AsyncVfsTaskResultStore
    from aimon_mongo._sync.snapshots.memory_store import InMemorySessionSnapshotStore
    from aimon_mongo._sync.snapshots.ports import SessionSnapshotStore, TaskOutputStore, TaskResultStore
    from aimon_mongo._sync.snapshots.scoped import ScopedSessionSnapshotStore
    from aimon_mongo._sync.snapshots.snapshot_store import VfsSessionSnapshotStore
    from aimon_mongo._sync.snapshots.task_output import VfsTaskOutputStore
    from aimon_mongo._sync.snapshots.task_result_store import VfsTaskResultStore
    from aimon_mongo.snapshots.browse import SnapshotEntry
    from aimon_mongo.snapshots.codec import (
        FORMAT_VERSION,
        FORMAT_VERSION_V2,
        JsonSessionSnapshotCodec,
        content_hash,
        decode_entries,
        encode_entries,
    )
    from aimon_mongo.snapshots.envelope import ResumableSession, SessionSnapshotCodec
    from aimon_mongo.snapshots.layout import DEFAULT_OUTPUT_BASE_DIR, DEFAULT_RESULT_BASE_DIR, DEFAULT_SNAPSHOT_BASE_DIR
    from aimon_mongo.snapshots.lru import DEFAULT_MAX_SNAPSHOTS
    from aimon_mongo.snapshots.message import (
        Artifact,
        ContentBlock,
        DocumentBlock,
        ImageBlock,
        ImageSource,
        Message,
        ReasoningTrace,
        Role,
        TextBlock,
        ToolResult,
        ToolUse,
    )
    from aimon_mongo.snapshots.model import (
        Elision,
        LogEntry,
        LogOrigin,
        ManifestEntry,
        RewindPoint,
        SeqRange,
        SessionLogFormat,
        SessionSnapshot,
        SummarySpan,
        ViewState,
        log_state_problem,
    )
    from aimon_mongo.snapshots.output import OutputSlice
    from aimon_mongo.snapshots.task_result import JsonTaskResultCodec, TaskResult

__all__ = [
    "DEFAULT_MAX_SNAPSHOTS",
    "DEFAULT_OUTPUT_BASE_DIR",
    "DEFAULT_RESULT_BASE_DIR",
    "DEFAULT_SNAPSHOT_BASE_DIR",
    "FORMAT_VERSION",
    "FORMAT_VERSION_V2",
    "Artifact",
    "AsyncInMemorySessionSnapshotStore",
    "AsyncScopedSessionSnapshotStore",
    "AsyncSessionSnapshotStore",
    "AsyncTaskOutputStore",
    "AsyncTaskResultStore",
    "AsyncVfsSessionSnapshotStore",
    "AsyncVfsTaskOutputStore",
    "AsyncVfsTaskResultStore",
    "ContentBlock",
    "DocumentBlock",
    "Elision",
    "ImageBlock",
    "ImageSource",
    "InMemorySessionSnapshotStore",
    "JsonSessionSnapshotCodec",
    "JsonTaskResultCodec",
    "LineKind",
    "LogEntry",
    "LogOrigin",
    "ManifestEntry",
    "Message",
    "OutputSlice",
    "ReasoningTrace",
    "RenderLine",
    "ResumableSession",
    "RewindPoint",
    "Role",
    "ScopedSessionSnapshotStore",
    "SeqRange",
    "SessionLogFormat",
    "SessionSnapshot",
    "SessionSnapshotCodec",
    "SessionSnapshotStore",
    "SnapshotEntry",
    "SummarySpan",
    "TaskOutputStore",
    "TaskResult",
    "TaskResultStore",
    "TextBlock",
    "ToolResult",
    "ToolUse",
    "VfsSessionSnapshotStore",
    "VfsTaskOutputStore",
    "VfsTaskResultStore",
    "ViewState",
    "content_hash",
    "decode_entries",
    "encode_entries",
    "log_state_problem",
    "render",
    "render_lines",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "DEFAULT_MAX_SNAPSHOTS": "aimon_mongo.snapshots.lru",
            "DEFAULT_OUTPUT_BASE_DIR": "aimon_mongo.snapshots.layout",
            "DEFAULT_RESULT_BASE_DIR": "aimon_mongo.snapshots.layout",
            "DEFAULT_SNAPSHOT_BASE_DIR": "aimon_mongo.snapshots.layout",
            "FORMAT_VERSION": "aimon_mongo.snapshots.codec",
            "FORMAT_VERSION_V2": "aimon_mongo.snapshots.codec",
            "Artifact": "aimon_mongo.snapshots.message",
            "AsyncInMemorySessionSnapshotStore": "aimon_mongo._async.snapshots.memory_store",
            "AsyncScopedSessionSnapshotStore": "aimon_mongo._async.snapshots.scoped",
            "AsyncSessionSnapshotStore": "aimon_mongo._async.snapshots.ports",
            "AsyncTaskOutputStore": "aimon_mongo._async.snapshots.ports",
            "AsyncTaskResultStore": "aimon_mongo._async.snapshots.ports",
            "AsyncVfsSessionSnapshotStore": "aimon_mongo._async.snapshots.snapshot_store",
            "AsyncVfsTaskOutputStore": "aimon_mongo._async.snapshots.task_output",
            "AsyncVfsTaskResultStore": "aimon_mongo._async.snapshots.task_result_store",
            "ContentBlock": "aimon_mongo.snapshots.message",
            "DocumentBlock": "aimon_mongo.snapshots.message",
            "Elision": "aimon_mongo.snapshots.model",
            "ImageBlock": "aimon_mongo.snapshots.message",
            "ImageSource": "aimon_mongo.snapshots.message",
            "InMemorySessionSnapshotStore": "aimon_mongo._sync.snapshots.memory_store",
            "JsonSessionSnapshotCodec": "aimon_mongo.snapshots.codec",
            "JsonTaskResultCodec": "aimon_mongo.snapshots.task_result",
            "LogEntry": "aimon_mongo.snapshots.model",
            "LogOrigin": "aimon_mongo.snapshots.model",
            "ManifestEntry": "aimon_mongo.snapshots.model",
            "Message": "aimon_mongo.snapshots.message",
            "OutputSlice": "aimon_mongo.snapshots.output",
            "ReasoningTrace": "aimon_mongo.snapshots.message",
            "ResumableSession": "aimon_mongo.snapshots.envelope",
            "RewindPoint": "aimon_mongo.snapshots.model",
            "Role": "aimon_mongo.snapshots.message",
            "ScopedSessionSnapshotStore": "aimon_mongo._sync.snapshots.scoped",
            "SeqRange": "aimon_mongo.snapshots.model",
            "SessionLogFormat": "aimon_mongo.snapshots.model",
            "SessionSnapshot": "aimon_mongo.snapshots.model",
            "SessionSnapshotCodec": "aimon_mongo.snapshots.envelope",
            "SessionSnapshotStore": "aimon_mongo._sync.snapshots.ports",
            "SnapshotEntry": "aimon_mongo.snapshots.browse",
            "SummarySpan": "aimon_mongo.snapshots.model",
            "TaskOutputStore": "aimon_mongo._sync.snapshots.ports",
            "TaskResult": "aimon_mongo.snapshots.task_result",
            "TaskResultStore": "aimon_mongo._sync.snapshots.ports",
            "TextBlock": "aimon_mongo.snapshots.message",
            "ToolResult": "aimon_mongo.snapshots.message",
            "ToolUse": "aimon_mongo.snapshots.message",
            "VfsSessionSnapshotStore": "aimon_mongo._sync.snapshots.snapshot_store",
            "VfsTaskOutputStore": "aimon_mongo._sync.snapshots.task_output",
            "VfsTaskResultStore": "aimon_mongo._sync.snapshots.task_result_store",
            "ViewState": "aimon_mongo.snapshots.model",
            "content_hash": "aimon_mongo.snapshots.codec",
            "decode_entries": "aimon_mongo.snapshots.codec",
            "encode_entries": "aimon_mongo.snapshots.codec",
            "log_state_problem": "aimon_mongo.snapshots.model",
        },
    )

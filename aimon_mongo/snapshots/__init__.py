"""Transcript snapshots and the task stores.

Pure: the ``SessionSnapshot`` model, its JSON codec (versions 1 and 2), sealed segment payloads, the task
result codec, a plain-text rendering, the store envelope and path rules. Stores (async source, generated
sync twins): the filesystem snapshot store with browsing, the scoped and in-memory snapshot stores, the
task-output and task-result stores. See ``docs/snapshots.md``.
"""

from aimon_mongo.snapshots._async.memory_store import AsyncInMemorySessionSnapshotStore
from aimon_mongo.snapshots._async.ports import (
    AsyncSessionSnapshotStore,
    AsyncTaskOutputStore,
    AsyncTaskResultStore,
)
from aimon_mongo.snapshots._async.scoped import AsyncScopedSessionSnapshotStore
from aimon_mongo.snapshots._async.snapshot_store import AsyncVfsSessionSnapshotStore
from aimon_mongo.snapshots._async.task_output import AsyncVfsTaskOutputStore
from aimon_mongo.snapshots._async.task_result_store import AsyncVfsTaskResultStore
from aimon_mongo.snapshots._sync.memory_store import InMemorySessionSnapshotStore
from aimon_mongo.snapshots._sync.ports import SessionSnapshotStore, TaskOutputStore, TaskResultStore
from aimon_mongo.snapshots._sync.scoped import ScopedSessionSnapshotStore
from aimon_mongo.snapshots._sync.snapshot_store import VfsSessionSnapshotStore
from aimon_mongo.snapshots._sync.task_output import VfsTaskOutputStore
from aimon_mongo.snapshots._sync.task_result_store import VfsTaskResultStore
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
from aimon_mongo.snapshots.render import LineKind, RenderLine, render, render_lines
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

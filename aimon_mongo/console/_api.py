"""Response models of the console's JSON API (they make its OpenAPI document)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel


class LeaseView(BaseModel):
    """A session's lease record; ``state`` is decided on the server's clock."""

    session_id: str
    state: str
    holder_id: str | None
    fencing_token: int | None
    acquired_at: datetime | None
    expires_at: datetime | None


class ClaimedView(BaseModel):
    """An entry claimed by the session's holder and not acknowledged yet: the claim's fencing token, how
    many claims handed it out, when the last one did (server time; ``None`` on Redis, which does not keep it)."""

    entry_id: str
    claim_token: int
    attempts: int
    claimed_at: datetime | None


class SessionView(BaseModel):
    """Waiting entries of a session per priority, its quarantined and claimed entries and its lease."""

    session_id: str
    NOW: int
    NEXT: int
    LATER: int
    other: int
    total: int
    oldest: datetime | None
    quarantined: int
    claimed: int
    lease: LeaseView | None


class SessionPage(BaseModel):
    server_time: datetime | None
    items: list[SessionView]
    next_after: str | None


class WaitingEntry(BaseModel):
    id: str | None
    priority: str
    delivered_at: datetime | None
    initiator: str
    agent_ref: str | None
    text: str


class SessionDetail(SessionView):
    claimed_entries: list[ClaimedView]
    waiting: list[WaitingEntry]
    unreadable: list[str]


class QuarantineView(BaseModel):
    id: str
    session_id: str
    entry_id: str
    error: str
    quarantined_at: datetime


class QuarantinePage(BaseModel):
    items: list[QuarantineView]
    next_after: str | None


class QuarantineDetail(QuarantineView):
    raw: Any


class SnapshotView(BaseModel):
    task_id: str
    subagent_name: str | None
    context_id: str | None
    message_count: int | None
    size: int
    modified: datetime | None
    format_version: int | None
    problem: str | None


class SnapshotPage(BaseModel):
    items: list[SnapshotView]
    offset: int
    has_more: bool


class TranscriptLine(BaseModel):
    kind: str
    text: str


class TranscriptView(BaseModel):
    task_id: str
    subagent_name: str | None
    context_id: str | None
    session_id: str
    message_count: int
    rewind_message_count: int | None
    lines: list[TranscriptLine]


class FileView(BaseModel):
    path: str
    is_dir: bool
    size: int
    modified: datetime
    mime: str | None
    etag: str | None


class FilePage(BaseModel):
    path: str
    items: list[FileView]
    offset: int
    total: int


class UsageView(BaseModel):
    path: str
    total_size: int
    file_count: int
    directory_count: int


class TaskView(BaseModel):
    task_id: str
    subagent_name: str
    state: str
    owner: str | None
    context_id: str | None
    start_time: datetime | None
    end_time: datetime | None
    description: str | None


class TaskPage(BaseModel):
    items: list[TaskView]
    offset: int
    has_more: bool


class ServerView(BaseModel):
    server_time: datetime | None
    allow_writes: bool
    node_id: str

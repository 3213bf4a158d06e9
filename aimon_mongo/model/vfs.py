"""Value types of the virtual filesystem: file information, usage totals, backend status."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from aimon_mongo.model._base import Frozen, UtcDatetime


class FileInfo(Frozen):
    """What a filesystem knows about one file or directory, without reading its content.

    ``path`` is relative to the filesystem root. Directories have ``size`` 0 and no ``etag``. Whenever a
    file's content changes, ``etag`` changes (``"sha256:<hex>"`` on GridFS and in memory), so compare
    etags, not sizes and times, when both sides have one.
    """

    path: str
    size: int = Field(ge=0)
    created: UtcDatetime
    modified: UtcDatetime
    is_dir: bool = False
    mime: str | None = None
    etag: str | None = None
    custom_metadata: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _modified_not_before_created(self) -> FileInfo:
        if self.modified < self.created:
            raise ValueError("modified cannot be before created")
        return self


class Usage(Frozen):
    """Totals of a subtree: bytes and files (at any depth) and directories strictly below it."""

    total_size: int = Field(ge=0)
    file_count: int = Field(ge=0)
    directory_count: int = Field(ge=0)


class BackendState(StrEnum):
    """Whether a backend answered its last health check."""

    CONNECTED = "CONNECTED"
    DISCONNECTED = "DISCONNECTED"
    DEGRADED = "DEGRADED"
    UNKNOWN = "UNKNOWN"


class BackendType(StrEnum):
    """Which kind of storage a filesystem runs on."""

    MEMORY = "MEMORY"
    LOCAL = "LOCAL"
    GRIDFS = "GRIDFS"


class BackendStatus(Frozen):
    """Result of :meth:`status` (which never raises): state, when it was checked, and why it failed."""

    type: BackendType
    state: BackendState
    last_checked: UtcDatetime
    error_message: str | None = None

    @property
    def is_available(self) -> bool:
        """True only when the backend answered (``CONNECTED``)."""
        return self.state is BackendState.CONNECTED


class MissingChunks(Frozen):
    """A GridFS file whose chunk count does not match its length (unreadable past the gap)."""

    path: str
    file_id: str
    expected: int = Field(ge=0)
    found: int = Field(ge=0)


class DuplicateMarker(Frozen):
    """Several directory markers under one name (concurrent ``mkdir``); one is enough."""

    path: str
    count: int = Field(ge=2)


class FsckReport(Frozen):
    """What ``fsck`` found in a GridFS bucket, and what ``repair=True`` removed."""

    orphaned_chunks: int = Field(ge=0)
    """Chunk documents whose file document is gone (and that are older than the grace period)."""
    orphaned_file_ids: list[str]
    pending_chunks: int = Field(ge=0)
    """Chunks without a file document that are younger than the grace period: maybe an upload in flight."""
    files_missing_chunks: list[MissingChunks]
    duplicate_markers: list[DuplicateMarker]
    repaired: bool
    removed_chunks: int = Field(default=0, ge=0)
    removed_markers: int = Field(default=0, ge=0)

    @property
    def clean(self) -> bool:
        """True when nothing was found (pending chunks do not count)."""
        return not (self.orphaned_chunks or self.files_missing_chunks or self.duplicate_markers)


class LineWindow(Frozen):
    """A window of a text file's lines (``read_lines``): line ends kept, as :meth:`str.splitlines` cuts."""

    lines: list[str]
    offset: int = Field(ge=0)
    """0-based index of the first line asked for."""
    total_lines: int | None = None
    """How many lines the file has, when the read reached its end (else unknown)."""
    has_more: bool = False
    """Whether lines follow the window."""


class GrepMatch(Frozen):
    """One line holding the searched literal."""

    path: str
    line: int = Field(ge=1)
    """1-based line number (lines are ``\\n``-separated)."""
    text: str
    """The line without its ``\\n``."""


class GrepResult(Frozen):
    """What ``grep`` found; ``truncated`` says a cap stopped it early, ``truncation_reason`` which one."""

    matches: list[GrepMatch]
    truncated: bool = False
    truncation_reason: Literal["max_count", "max_bytes"] | None = None
    files_searched: int = Field(default=0, ge=0)
    bytes_searched: int = Field(default=0, ge=0)

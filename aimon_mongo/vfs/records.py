"""Stored revisions and their metadata (pure): what a bucket holds per file, and how it reads back.

A *revision* is one stored version of a name (on GridFS: one ``<bucket>.files`` document). Several may
exist for one name while an overwrite is in flight; the newest wins: latest ``uploadDate``, ties broken
by the larger ``_id``. Metadata keys are the frozen ones of ``names.py`` (``path``, ``uploadDate``,
``contentSha256``, ``copiedFrom``; markers add ``type: "directory"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from aimon_mongo.codec.instant import as_utc, format_instant
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.names import (
    VFS_ETAG_PREFIX,
    VFS_MARKER_TYPE,
    VFS_META_ATTRIBUTES,
    VFS_META_CONTENT_SHA256,
    VFS_META_COPIED_FROM,
    VFS_META_PATH,
    VFS_META_PREDECESSOR,
    VFS_META_TYPE,
    VFS_META_UPLOAD_DATE,
    VFS_PREDECESSOR_ABSENT_PREFIX,
)
from aimon_mongo.vfs.mime import mime_type
from aimon_mongo.vfs.paths import ROOT

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_RESERVED_KEYS = frozenset(
    {
        VFS_META_PATH,
        VFS_META_UPLOAD_DATE,
        VFS_META_CONTENT_SHA256,
        VFS_META_TYPE,
        VFS_META_PREDECESSOR,
        VFS_META_ATTRIBUTES,
    }
)
# Stored timestamps have millisecond precision (BSON dates); a restamp moves a revision one tick later.
TICK = timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True)
class Revision:
    """One stored version of a name."""

    id: Any
    filename: str
    length: int
    upload_date: datetime
    metadata: Mapping[str, Any] | None = field(default=None)
    chunk_size: int | None = field(default=None)

    @property
    def content_sha256(self) -> str | None:
        """The recorded content hash (lower-case hex), if any."""
        value = (self.metadata or {}).get(VFS_META_CONTENT_SHA256)
        return value if isinstance(value, str) and value.strip() else None

    @property
    def etag(self) -> str:
        """``sha256:<hex>`` when the content hash was recorded, else the revision id (a never-equal form)."""
        digest = self.content_sha256
        return VFS_ETAG_PREFIX + digest if digest else str(self.id)


def newest_first_key(revision: Revision) -> tuple[datetime, str]:
    """Sort key, used with ``reverse=True``, that puts the winning revision first."""
    return (as_utc(revision.upload_date), _id_key(revision.id))


def _id_key(value: Any) -> str:
    # ObjectIds compare by their hex form (time, then machine/counter); foreign ids compare by text.
    return value.binary.hex() if hasattr(value, "binary") else str(value)


def custom_metadata(metadata: Mapping[str, Any] | None) -> dict[str, str]:
    """String-valued metadata other than the keys the VFS itself manages (e.g. ``copiedFrom``), then the
    caller's ``attributes`` (text values only; a managed key never comes from them)."""
    found = {
        key: value
        for key, value in (metadata or {}).items()
        if key not in _RESERVED_KEYS and isinstance(key, str) and isinstance(value, str)
    }
    attributes = (metadata or {}).get(VFS_META_ATTRIBUTES)
    if isinstance(attributes, Mapping):
        for key, value in attributes.items():
            if isinstance(key, str) and isinstance(value, str):
                found.setdefault(key, value)
    return found


def file_info(revision: Revision) -> FileInfo:
    """What :meth:`info` reports for a file: size, timestamps of the newest revision, mime, etag."""
    stamp = as_utc(revision.upload_date)
    return FileInfo(
        path=revision.filename,
        size=revision.length,
        created=stamp,
        modified=stamp,
        mime=mime_type(revision.filename),
        etag=revision.etag,
        custom_metadata=custom_metadata(revision.metadata),
    )


def directory_info(path: str, stamp: datetime | None) -> FileInfo:
    """What :meth:`info` reports for a directory (timestamps of its marker or first entry; epoch if none)."""
    when = as_utc(stamp) if stamp is not None else EPOCH
    return FileInfo(path=path or ROOT, size=0, created=when, modified=when, is_dir=True)


def file_metadata(
    path: str, started: datetime, copied_from: str | None = None, attributes: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The ``metadata`` of a new file revision, before the content hash is known."""
    metadata: dict[str, Any] = {VFS_META_PATH: path}
    if copied_from is not None:
        metadata[VFS_META_COPIED_FROM] = copied_from
    metadata[VFS_META_UPLOAD_DATE] = format_instant(started)
    if attributes:
        metadata[VFS_META_ATTRIBUTES] = dict(attributes)
    return metadata


def with_content_hash(metadata: Mapping[str, Any], sha256_hex: str) -> dict[str, Any]:
    """The metadata completed with the content hash (recorded when the upload finishes)."""
    return {**metadata, VFS_META_CONTENT_SHA256: sha256_hex}


def marker_metadata(directory: str, started: datetime) -> dict[str, Any]:
    """The ``metadata`` of a directory marker: ``type: "directory"``, the path without ``/``, the time."""
    return {
        VFS_META_TYPE: VFS_MARKER_TYPE,
        VFS_META_PATH: directory,
        VFS_META_UPLOAD_DATE: format_instant(started),
    }


def is_marker(metadata: Mapping[str, Any] | None) -> bool:
    """Whether stored metadata tags a directory marker."""
    return (metadata or {}).get(VFS_META_TYPE) == VFS_MARKER_TYPE


def predecessor_key(base: Revision | None, name: str) -> str:
    """What a conditional write records as the revision it replaces: the base revision's id as text, or
    ``absent:<name>`` for a write that requires the name to be absent. Unique per replaced revision."""
    return VFS_PREDECESSOR_ABSENT_PREFIX + name if base is None else str(base.id)


def with_predecessor(metadata: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The metadata of a conditionally written revision (the predecessor key added)."""
    return {**metadata, VFS_META_PREDECESSOR: key}


K = TypeVar("K")
V = TypeVar("V")


class Hints(Generic[K, V]):
    """A bounded map of hints: what a process last saw under a key, kept only to skip a lookup next time (its
    users check a hint against the store). At most ``limit`` keys, each with the value last put under it; when
    full, a new key clears the map (no iteration over it: threads of a sync filesystem share it)."""

    def __init__(self, limit: int) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        self._limit = limit
        self._values: dict[K, V] = {}

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as ``key``'s latest hint."""
        if key not in self._values and len(self._values) >= self._limit:
            self._values.clear()
        self._values[key] = value

    def get(self, key: K) -> V | None:
        """``key``'s hint, if one is kept."""
        return self._values.get(key)

    def forget(self, key: K) -> None:
        """Drop ``key``'s hint, if one is kept."""
        self._values.pop(key, None)

    def __len__(self) -> int:
        return len(self._values)


class KnownRevisions:
    """The revision last read or written under each name, kept by a bucket filesystem as a hint: a conditional
    write on that revision's etag takes it as its base without looking the file up again (the commit checks
    it). At most ``limit`` names (:class:`Hints`).
    """

    def __init__(self, limit: int = 1024) -> None:
        self._by_name: Hints[str, Revision] = Hints(limit)

    def remember(self, revision: Revision) -> None:
        """Keep ``revision`` as its name's latest known one."""
        self._by_name.put(revision.filename, revision)

    def get(self, name: str, etag: str) -> Revision | None:
        """The remembered revision of ``name`` if its etag is ``etag``."""
        known = self._by_name.get(name)
        return known if known is not None and known.etag == etag else None

# GENERATED from aimon_mongo/_async/vfs/store.py by scripts/gen_sync.py; do not edit.
"""What a bucket store offers the bucket filesystem (GridFS, and its in-memory twin).

A bucket store holds *revisions* (:class:`~aimon_mongo.vfs.records.Revision`) under names kept in byte
order: file names and directory-marker names (ending in ``/``). It knows nothing about directories,
validation or the VFS contract; :class:`~aimon_mongo._sync.vfs.bucket.BucketFileSystem` builds
those on top of these primitives, so the GridFS and memory backends share every rule.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from aimon_mongo.vfs.listing import Seek
from aimon_mongo.vfs.records import Revision

Committed = tuple[Revision, list[Revision]]
"""A conditional commit's outcome: the new revision and the (now older) revisions it supersedes."""


class Upload(Protocol):
    """A revision being written; invisible until :meth:`commit` (or :meth:`commit_if`)."""

    def write(self, data: bytes) -> None:
        """Append bytes."""
        ...

    def commit(self, metadata: Mapping[str, Any], not_before: datetime | None = None) -> Revision:
        """Store the revision with its final metadata, stamped now but no earlier than ``not_before``; it
        is visible from now on."""
        ...

    def commit_if(self, metadata: Mapping[str, Any], base: Revision | None) -> Committed | None:
        """Store the revision only if ``base`` is still the name's newest revision (``None``: if the name
        has no revision), atomically with respect to every other conditional commit.

        Returns the new revision and the other revisions seen at commit (all older now), or ``None`` when
        the condition failed; then no revision of this upload is stored, but its content is kept: commit again
        (with another ``base``) or :meth:`abort`.
        """
        ...

    def abort(self) -> None:
        """Discard what was written (idempotent)."""
        ...


class Download(Protocol):
    """A stream over one revision's bytes.

    Raises :class:`~aimon_mongo.errors.FileReplacedError` when the revision is retired while being read.
    """

    size: int

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes from the position (all that is left when ``-1``)."""
        ...

    def seek(self, position: int) -> None:
        """Move to an absolute position (validated by the caller; may be past the end)."""
        ...

    def tell(self) -> int:
        """The position."""
        ...

    def close(self) -> None:
        """Release the stream."""
        ...


@dataclass(frozen=True, slots=True)
class WriteCheck:
    """What a write needs to know before it uploads, read in one round trip."""

    stored: dict[str, list[tuple[Any, datetime]]]
    """The revisions (id, upload date) of each checked name that is stored (absent names left out)."""
    has_children: bool
    """Whether any name is stored under ``<name>/`` (then the name is a directory)."""


class BucketStore(Protocol):
    """The storage primitives of a bucket."""

    store_errors: tuple[type[BaseException], ...]
    """Exceptions of the underlying driver, reported as :class:`~aimon_mongo.errors.BackendConnectionError`."""

    unavailable_errors: tuple[type[BaseException], ...]
    """Those of :attr:`store_errors` that mean "the store cannot be reached" (a ``VfsBackendUnavailable``)."""

    def prepare(self) -> None:
        """Create what writes and lookups rely on (indexes); idempotent. Called before the first write only,
        so reading never creates anything."""
        ...

    def ping(self) -> None:
        """Raise unless the storage answers."""
        ...

    def newest(self, name: str) -> Revision | None:
        """The winning revision of a name (latest upload date, then largest id)."""
        ...

    def revisions(self, name: str) -> list[Revision]:
        """Every revision of a name, newest first."""
        ...

    def first_name(self, seek: Seek) -> tuple[str, datetime] | None:
        """The smallest stored name in the seek's range, with the upload date of its oldest revision."""
        ...

    def page(self, seek: Seek, limit: int, *, details: bool) -> list[Revision]:
        """At most ``limit`` revisions with names in the seek's range, by name then upload date, in one read.

        Without ``details`` only the id, name and upload date need be filled in (what ``ls`` needs)."""
        ...

    def write_check(self, name: str, parents: Sequence[str]) -> WriteCheck:
        """The revisions of ``name`` and of its ``parents``, and whether ``name`` has children: one read."""
        ...

    def retire_older(self, name: str, winner: Revision, known: Sequence[Any]) -> int:
        """Delete every revision of ``name`` that sorts older than ``winner`` (one command, so concurrent
        writers leave exactly the newest), then the content of the ``known`` ones (best effort: content of
        a concurrent loser stays for ``fsck``). Returns how many deletions failed."""
        ...

    def revision_ids(self, names: Sequence[str]) -> dict[str, list[Any]]:
        """The revision ids of each of ``names`` that is stored (absent names are left out)."""
        ...

    def scan(self, prefix: str, *, contents: bool = False) -> Generator[tuple[Revision, bytes | None], None]:
        """Every revision whose name starts with ``prefix``, by name then upload date, in one stream; with
        ``contents``, each with its whole content when it fits one chunk (else ``None``: read it with
        :meth:`open_download`), fetched in the same stream."""
        ...

    def ids_under(self, name: str, prefix: str) -> list[Any]:
        """Ids of every revision named ``name`` or starting with ``prefix``."""
        ...

    def open_upload(self, name: str, metadata: Mapping[str, Any]) -> Upload:
        """Start a new revision of ``name``."""
        ...

    def open_download(self, revision: Revision) -> Download:
        """Read one revision."""
        ...

    def open_newest(self, name: str) -> tuple[Revision, Download] | None:
        """The winning revision of a name (as :meth:`newest`), opened for reading: one round trip where the
        store can bring the content of a one-chunk file along."""
        ...

    def delete_ids(self, ids: Sequence[Any]) -> int:
        """Delete revisions (best effort); return how many could not be deleted."""
        ...

    def restamp(self, revision_id: Any, upload_date: datetime) -> None:
        """Move a revision's upload date (used when node clocks disagree)."""
        ...

    def totals(self, prefix: str) -> tuple[int, int]:
        """Bytes and count of the non-marker revisions under ``prefix`` (server-side where possible)."""
        ...

    def names_under(self, prefix: str) -> Generator[str, None]:
        """Every stored name under ``prefix`` (repeats allowed)."""
        ...

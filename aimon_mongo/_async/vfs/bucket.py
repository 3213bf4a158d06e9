"""The VFS contract on a bucket of revisions: every rule the GridFS and in-memory backends share.

Storage model (``docs/vfs.md``): a file is its newest revision under ``filename == path``; a directory is
a marker (a zero-length revision named ``path/`` with ``metadata.type = "directory"``) or the prefix of
any stored name (an implied directory). Overwrites are upload-then-retire: the new revision becomes
visible whole when its upload completes, then every other revision of the name is retired, so readers
always see one complete revision and exactly one survives concurrent writers.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from aimon_mongo._async.vfs.base import READ_CHUNK, AsyncFileSystemBase, check_attributes, check_conditions
from aimon_mongo._async.vfs.store import AsyncBucketStore, AsyncDownload, AsyncUpload, Committed
from aimon_mongo._async.vfs.streams import AsyncReaderBase, AsyncWriterBase
from aimon_mongo.codec.instant import as_utc, to_millis
from aimon_mongo.errors import (
    BackendConnectionError,
    DirectoryNotEmptyError,
    FileReplacedError,
    InvalidPathError,
    RevisionMismatchError,
    VfsFileExistsError,
    VfsFileNotFoundError,
    VirtualFileSystemError,
    display_path,
)
from aimon_mongo.model.vfs import FileInfo, Usage
from aimon_mongo.vfs.globbing import CompiledGlob
from aimon_mongo.vfs.guard import backend_errors
from aimon_mongo.vfs.listing import Entry, RangeScan, Seek, directory_count, is_marker_name
from aimon_mongo.vfs.messages import (
    IS_A_DIRECTORY,
    NOT_A_DIRECTORY,
    ROOT_DELETE,
    parent_is_a_file,
    partial_delete,
)
from aimon_mongo.vfs.paths import (
    ROOT,
    SEPARATOR,
    ancestors,
    base_name,
    dir_path,
    dir_prefix,
    is_root,
    levels,
    successor,
    validate_dir_path,
    validate_file_path,
    validate_path,
)
from aimon_mongo.vfs.records import (
    TICK,
    KnownRevisions,
    Revision,
    directory_info,
    file_info,
    file_metadata,
    marker_metadata,
    newest_first_key,
    with_content_hash,
)

log = logging.getLogger(__name__)

_READ_ATTEMPTS = 3

Guard = Callable[[str, str | None], AbstractContextManager[None]]


def _filename(revision: Revision) -> str:
    return revision.filename


class _BucketReader(AsyncReaderBase):
    """An input stream on one revision."""

    def __init__(self, download: AsyncDownload, path: str, guard: Guard, etag: str) -> None:
        self._download = download
        self._path = path
        self._guard = guard
        self._etag = etag

    @property
    def etag(self) -> str:
        return self._etag

    @property
    def size(self) -> int:
        return self._download.size

    async def _read(self, size: int) -> bytes:
        with self._guard("Failed to read file", self._path):
            return await self._download.read(size)

    async def _seek(self, position: int) -> None:
        await self._download.seek(position)

    def tell(self) -> int:
        return self._download.tell()

    async def _release(self) -> None:
        await self._download.close()


@dataclass(frozen=True, slots=True)
class _Condition:
    """What a conditional (or appending) writer requires at commit: ``base`` still the newest revision."""

    base: Revision | None
    expected: str | None
    hinted: bool = False
    """``base`` is the revision this filesystem last read or wrote with the expected etag, not looked up at
    open: if another revision with that etag is newest at commit, the commit is retried on it."""


class _BucketWriter(AsyncWriterBase):
    """An output stream: SHA-256 of every byte into one upload; upload-then-retire on close."""

    def __init__(
        self,
        fs: AsyncBucketFileSystem,
        path: str,
        upload: AsyncUpload,
        metadata: dict[str, Any],
        predecessors: set[Any],
        condition: _Condition | None = None,
        not_before: datetime | None = None,
    ) -> None:
        super().__init__(path, fs.max_file_size)
        self._fs = fs
        self._upload = upload
        self._metadata = metadata
        self.predecessors = predecessors
        self._not_before = not_before
        self._condition = condition
        self._sha = hashlib.sha256()

    async def _write(self, chunk: bytes) -> None:
        self._sha.update(chunk)
        with self._fs._guard("Failed to write file", self._path):
            await self._upload.write(chunk)

    async def commit(self) -> Revision:
        """Make the new revision visible without retiring the old ones (``move`` retires later)."""
        self._finish()
        try:
            with self._fs._guard("Failed to write file", self._path):
                metadata = with_content_hash(self._metadata, self._sha.hexdigest())
                return await self._upload.commit(metadata, self._not_before)
        except BaseException:
            await self._discard()
            raise

    async def _commit_if(self, condition: _Condition) -> Committed:
        self._finish()
        metadata = with_content_hash(self._metadata, self._sha.hexdigest())
        try:
            with self._fs._guard("Failed to write file", self._path):
                outcome = await self._upload.commit_if(metadata, condition.base)
                if outcome is None:
                    current = await self._fs._store.newest(self._path)
                    if (
                        condition.hinted
                        and current is not None
                        and current.etag == condition.expected
                        and (condition.base is None or current.id != condition.base.id)
                    ):  # the remembered base was replaced by the same content: the condition still holds
                        outcome = await self._upload.commit_if(metadata, current)
                        if outcome is None:
                            current = await self._fs._store.newest(self._path)
                if outcome is None:
                    await self._discard()
        except BaseException:
            await self._discard()
            raise
        if outcome is None:
            raise RevisionMismatchError(self._path, condition.expected, current.etag if current else None)
        return outcome

    async def close(self) -> FileInfo:
        if self._condition is None:
            revision = await self.commit()
            await self._fs._supersede(self._path, revision, self.predecessors)
            self._fs._known.remember(revision)
            return file_info(revision)
        revision, superseded = await self._commit_if(self._condition)
        await self._fs._retire(self._path, [old.id for old in superseded])
        self._fs._known.remember(revision)
        return file_info(revision)

    async def _discard(self) -> None:
        try:
            await self._upload.abort()
        except Exception as exc:  # the upload's chunks become orphans for fsck; the caller's error wins
            log.warning("could not discard an aborted upload of %s: %s", display_path(self._path), exc)


class AsyncBucketFileSystem(AsyncFileSystemBase):
    """The VFS contract over an :class:`~aimon_mongo._async.vfs.store.AsyncBucketStore`."""

    keeps_attributes = True

    def __init__(self, store: AsyncBucketStore, max_file_size: int | None) -> None:
        super().__init__(max_file_size)
        self._store = store
        self._schema_ready = False
        self._known = KnownRevisions()

    def _guard(self, action: str, path: str | None) -> AbstractContextManager[None]:
        return backend_errors(self._store.store_errors, action, path, self.backend_type, self._store.unavailable_errors)

    async def _initialize(self) -> None:
        with self._guard("Failed to initialize filesystem", None):
            await self._store.ping()

    async def _ensure_schema(self) -> None:
        if not self._schema_ready:
            await self._store.prepare()
            self._schema_ready = True

    async def ensure_schema(self) -> None:
        """Create the indexes writes rely on (idempotent); the first write does it too."""
        self._life.require_open()
        with self._guard("Failed to prepare filesystem", None):
            await self._ensure_schema()

    async def _release(self) -> None:
        return None

    async def _ping(self) -> None:
        await self._store.ping()

    # --- lookups -------------------------------------------------------------------------------

    async def _first_under(self, prefix: str) -> tuple[str, datetime] | None:
        """The first stored name under a directory prefix (its own marker included)."""
        return await self._store.first_name(Seek(prefix, True, successor(prefix) if prefix else None))

    async def _require_directory(self, path: str) -> str:
        """The prefix of an existing directory; refuses files and missing paths."""
        if is_root(path):
            return ""
        name = dir_path(path)
        if await self._store.newest(name) is not None:
            raise InvalidPathError(path, NOT_A_DIRECTORY)
        prefix = name + SEPARATOR
        if await self._first_under(prefix) is None:
            raise VfsFileNotFoundError(path, self.backend_type)
        return prefix

    async def _children(self, path: str, details: bool) -> list[Entry[Revision]]:
        if not is_root(path) and await self._store.newest(dir_path(path)) is not None:
            raise InvalidPathError(path, NOT_A_DIRECTORY)
        scan: RangeScan[Revision] = RangeScan(dir_prefix(path), _filename, every_revision=details)
        entries: list[Entry[Revision]] = []
        while (seek := scan.next_seek) is not None:
            entries.extend(scan.feed(await self._store.page(seek, scan.limit, details=details)))
        if not scan.found and not is_root(path):
            raise VfsFileNotFoundError(path, self.backend_type)
        return sorted(entries, key=lambda entry: entry.child.path)

    # --- queries -------------------------------------------------------------------------------

    async def exists(self, path: str) -> bool:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p):
            return True
        name = dir_path(p)
        with self._guard("Failed to check existence", p):
            if not p.endswith(SEPARATOR) and await self._store.newest(name) is not None:
                return True
            return await self._first_under(name + SEPARATOR) is not None

    async def is_dir(self, path: str) -> bool:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p):
            return True
        name = dir_path(p)
        with self._guard("Failed to check directory", p):
            if await self._store.newest(name) is not None:
                return False
            return await self._first_under(name + SEPARATOR) is not None

    async def is_file(self, path: str) -> bool:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p) or p.endswith(SEPARATOR):
            return False
        with self._guard("Failed to check file", p):
            return await self._store.newest(p) is not None

    async def info(self, path: str) -> FileInfo:
        self._life.require_open()
        p = validate_path(path)
        with self._guard("Failed to get metadata", p):
            if is_root(p):
                first = await self._first_under("")
                return directory_info(ROOT, first[1] if first else None)
            name = dir_path(p)
            if not p.endswith(SEPARATOR):
                revision = await self._store.newest(name)
                if revision is not None:
                    return file_info(revision)
            first = await self._first_under(name + SEPARATOR)
        if first is None:
            raise VfsFileNotFoundError(p, self.backend_type)
        return directory_info(name, first[1])

    async def ls(self, path: str = ROOT) -> list[str]:
        self._life.require_open()
        p = validate_dir_path(path)
        with self._guard("Failed to list directory", p):
            return [entry.child.path for entry in await self._children(p, details=False)]

    async def ls_info(self, path: str = ROOT) -> list[FileInfo]:
        self._life.require_open()
        p = validate_dir_path(path)
        infos: list[FileInfo] = []
        with self._guard("Failed to list directory", p):
            for entry in await self._children(p, details=True):
                if entry.child.is_dir:
                    infos.append(directory_info(entry.child.path, entry.rows[0].upload_date))
                elif entry.complete:
                    infos.append(file_info(max(entry.rows, key=newest_first_key)))
                elif (revision := await self._store.newest(entry.child.path)) is not None:
                    infos.append(file_info(revision))
        return infos

    async def _winners(
        self, path: str, prefix: str, *, contents: bool = False
    ) -> AsyncGenerator[tuple[Revision, bytes | None], None]:
        """The newest revision of every file whose name starts with ``prefix``, in name order; with
        ``contents``, each with its whole content where the store fetched it along (one-chunk files)."""
        scan = self._store.scan(prefix, contents=contents)
        kept: tuple[Revision, bytes | None] | None = None  # the newest revision so far of the current name
        try:
            with self._guard("Failed to list directory", path):
                async for item in scan:
                    name = item[0].filename
                    if is_marker_name(name):
                        continue
                    if kept is not None:
                        if kept[0].filename == name:
                            if newest_first_key(item[0]) > newest_first_key(kept[0]):
                                kept = item
                            continue
                        yield kept
                    kept = item
            if kept is not None:
                yield kept
        finally:
            await scan.aclose()

    async def walk(self, path: str = ROOT) -> AsyncGenerator[FileInfo, None]:
        self._life.require_open()
        p = validate_dir_path(path)
        with self._guard("Failed to list directory", p):
            prefix = await self._require_directory(p)
        winners = self._winners(p, prefix)
        try:
            async for revision, _ in winners:
                yield file_info(revision)
        finally:
            await winners.aclose()

    async def _candidates(self, root: str, pattern: CompiledGlob | None) -> AsyncGenerator[tuple[FileInfo, Any], None]:
        """Only the names under the pattern's literal prefix: one range scan of the filename index (the
        directory itself is checked only when the scan finds nothing)."""
        prefix = dir_prefix(root)
        winners = self._winners(root, prefix + (pattern.prefix if pattern is not None else ""))
        found = False
        try:
            async for revision, _ in winners:
                found = True
                if pattern is None or pattern.matches(revision.filename[len(prefix) :]):  # no info for the others
                    yield file_info(revision), revision
        finally:
            await winners.aclose()
        if not found:
            with self._guard("Failed to list directory", root):
                await self._require_directory(root)

    async def _grep_sources(
        self, path: str, pattern: CompiledGlob | None
    ) -> AsyncGenerator[tuple[str, bytes | None], None]:
        """One range scan that brings the content of every one-chunk file along (GridFS: one ``aggregate``
        with a ``$lookup`` of the first chunk); larger files are streamed by the caller."""
        prefix = dir_prefix(path)
        winners = self._winners(path, prefix + (pattern.prefix if pattern is not None else ""), contents=True)
        found = False
        try:
            async for revision, content in winners:
                found = True
                if pattern is None or pattern.matches(revision.filename[len(prefix) :]):
                    yield revision.filename, content
        finally:
            await winners.aclose()
        if found:
            return
        try:
            with self._guard("Failed to list directory", path):
                await self._require_directory(path)
        except InvalidPathError as exc:  # the path is a file: grep that file
            if exc.reason != NOT_A_DIRECTORY or path.endswith(SEPARATOR):
                raise
            if pattern is None or pattern.matches(base_name(path)):
                yield path, None

    async def _set_modified(self, path: str, modified: datetime) -> FileInfo:
        with self._guard("Failed to set modified time", path):
            revisions = await self._store.revisions(path)
            if not revisions:
                raise VfsFileNotFoundError(path, self.backend_type)
            winner = revisions[0]
            await self._retire(path, [revision.id for revision in revisions[1:]])
            stamp = to_millis(modified)
            await self._store.restamp(winner.id, stamp)
        return file_info(replace(winner, upload_date=stamp))

    async def usage(self, path: str | None = None) -> Usage:
        self._life.require_open()
        p = ROOT if path is None else validate_dir_path(path)
        with self._guard("Failed to compute usage", p):
            prefix = await self._require_directory(p)
            total_size, file_count = await self._store.totals(prefix)
            names = [name async for name in self._store.names_under(prefix)]
        return Usage(total_size=total_size, file_count=file_count, directory_count=directory_count(prefix, names))

    # --- reading -------------------------------------------------------------------------------

    async def open_input(self, path: str) -> _BucketReader:
        self._life.require_open()
        p = validate_file_path(path)
        with self._guard("Failed to read file", p):
            opened = await self._store.open_newest(p)
            if opened is None:
                if await self._first_under(p + SEPARATOR) is not None:
                    raise InvalidPathError(p, IS_A_DIRECTORY)
                raise VfsFileNotFoundError(p, self.backend_type)
            revision, download = opened
        self._known.remember(revision)
        return _BucketReader(download, p, self._guard, revision.etag)

    async def read(self, path: str) -> bytes:
        """The whole content of the newest revision; reopens if a newer write retires it mid-read."""
        attempt = 1
        while True:
            try:
                return await super().read(path)
            except FileReplacedError:
                if attempt >= _READ_ATTEMPTS:
                    raise
                attempt += 1

    # --- writing -------------------------------------------------------------------------------

    async def _open_writer(
        self,
        name: str,
        copied_from: str | None = None,
        *,
        append: bool = False,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: dict[str, str] | None = None,
    ) -> _BucketWriter:
        await self._ensure_schema()
        if if_revision is not None and not append:
            # The named revision exists as a file, so the path is no directory and no parent is a file.
            known = self._known.get(name, if_revision)
            if known is not None:
                required = _Condition(known, if_revision, hinted=True)  # checked at commit (claim + newest)
            else:
                current = await self._store.newest(name)
                if current is None or current.etag != if_revision:
                    raise RevisionMismatchError(name, if_revision, current.etag if current else None)
                required = _Condition(current, current.etag)
            metadata = file_metadata(name, datetime.now(UTC), copied_from, attributes)
            upload = await self._store.open_upload(name, metadata)
            return _BucketWriter(self, name, upload, metadata, set(), required)
        parents = ancestors(name)
        check = await self._store.write_check(name, parents)
        stored = check.stored
        blocker = next((parent for parent in parents if parent in stored), None)
        if blocker is not None:
            raise InvalidPathError(name, parent_is_a_file(blocker))
        # An existing file is no directory: writers never put names under a file (see the parent check).
        if name not in stored and check.has_children:
            raise InvalidPathError(name, IS_A_DIRECTORY)
        condition: _Condition | None = None
        base: Revision | None = None
        if append or if_absent or if_revision is not None:
            base = await self._store.newest(name) if name in stored else None
            actual = base.etag if base is not None else None
            if (if_absent and base is not None) or (if_revision is not None and actual != if_revision):
                raise RevisionMismatchError(name, if_revision, actual)
            condition = _Condition(base, actual)
        previous = stored.get(name, [])
        # Stamped after every revision it replaces, whatever the node clocks say: it wins every lookup.
        not_before = max((as_utc(stamp) for _, stamp in previous), default=None)
        metadata = file_metadata(name, datetime.now(UTC), copied_from, attributes)
        upload = await self._store.open_upload(name, metadata)
        writer = _BucketWriter(
            self,
            name,
            upload,
            metadata,
            {revision_id for revision_id, _ in previous},
            condition,
            None if not_before is None else not_before + TICK,
        )
        if append and base is not None:
            await self._copy_revision(base, writer)
        return writer

    async def _copy_revision(self, revision: Revision, writer: _BucketWriter) -> None:
        """Feed a stored revision's bytes into a writer (copy, and the old content of an append)."""
        try:
            download = await self._store.open_download(revision)
            try:
                while chunk := await download.read(READ_CHUNK):
                    await writer.write(chunk)
            finally:
                await download.close()
        except BaseException:
            await writer.abort()
            raise

    async def open_output(
        self,
        path: str,
        *,
        append: bool = False,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: Mapping[str, str] | None = None,
    ) -> _BucketWriter:
        self._life.require_open()
        p = validate_file_path(path)
        check_conditions(if_revision, if_absent)
        kept = check_attributes(attributes, self.supports_attributes, p)
        with self._guard("Failed to write file", p):
            return await self._open_writer(
                p, append=append, if_revision=if_revision, if_absent=if_absent, attributes=kept
            )

    async def _retire(self, path: str, ids: list[Any]) -> None:
        """Delete superseded revisions (best effort: a stranded old revision costs storage, not correctness)."""
        if not ids:
            return
        try:
            if await self._store.delete_ids(ids):
                log.warning("superseded revisions of %s could not all be retired", display_path(path))
        except self._store.store_errors as exc:
            log.warning("could not retire superseded revisions of %s: %s", display_path(path), exc)

    async def _supersede(self, path: str, mine: Revision, predecessors: set[Any]) -> None:
        """Retire every revision of ``path`` older than ours (one command: of concurrent writers exactly the
        newest survives) and the content of those our upload replaced (best effort, like :meth:`_retire`)."""
        try:
            if await self._store.retire_older(path, mine, list(predecessors)):
                log.warning("superseded revisions of %s could not all be retired", display_path(path))
        except self._store.store_errors as exc:
            log.warning("could not retire superseded revisions of %s: %s", display_path(path), exc)

    async def _settle(self, path: str, mine: Revision, predecessors: set[Any]) -> Revision:
        """Retire every revision of ``path`` but the winner; return the winner.

        Only revisions that sort older than another one are deleted, so the newest always survives and
        the last writer to settle leaves exactly one. If the only revisions sorting newer than ours
        already existed when our upload started, node clocks disagree: ours is moved one tick past them.
        """
        try:
            revisions = await self._store.revisions(path)
            ids = [revision.id for revision in revisions]
            if mine.id not in ids:
                return revisions[0] if revisions else mine
            position = ids.index(mine.id)
            if position and all(revision.id in predecessors for revision in revisions[:position]):
                stamp = max(as_utc(revision.upload_date) for revision in revisions[:position]) + TICK
                await self._store.restamp(mine.id, stamp)
                mine = replace(mine, upload_date=stamp)
                revisions = [mine, *(revision for revision in revisions if revision.id != mine.id)]
            losers = [revision.id for revision in revisions[1:]]
            if losers and await self._store.delete_ids(losers):
                log.warning("superseded revisions of %s could not all be retired", display_path(path))
            return revisions[0]
        except self._store.store_errors as exc:  # a stranded old revision costs storage, never correctness
            log.warning("could not retire superseded revisions of %s: %s", display_path(path), exc)
            return mine

    async def mkdir(self, path: str) -> None:
        self._life.require_open()
        p = validate_dir_path(path)
        if is_root(p):
            return
        wanted = levels(p)
        with self._guard("Failed to create directory", p):
            await self._ensure_schema()
            existing = await self._store.revision_ids([level[:-1] for level in wanted] + wanted)
            for level in wanted:
                if level[:-1] in existing:
                    raise VfsFileExistsError(level[:-1], self.backend_type)
            started = datetime.now(UTC)
            for level in wanted:
                if level not in existing:
                    metadata = marker_metadata(level[:-1], started)
                    upload = await self._store.open_upload(level, metadata)
                    await upload.commit(metadata)

    # --- deleting ------------------------------------------------------------------------------

    async def _delete_revisions(self, name: str, revisions: list[Revision]) -> None:
        if await self._store.delete_ids([revision.id for revision in revisions]):
            raise BackendConnectionError(f"Failed to delete file: {display_path(name)}", name, self.backend_type)

    async def delete(self, path: str) -> None:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p):
            raise VirtualFileSystemError(ROOT_DELETE, p)
        name = dir_path(p)
        with self._guard("Failed to delete file", p):
            if not p.endswith(SEPARATOR):
                revisions = await self._store.revisions(name)
                if revisions:
                    await self._delete_revisions(name, revisions)
                    return
            prefix = name + SEPARATOR
            first = await self._first_under(prefix)
            if first is None:
                raise VfsFileNotFoundError(p, self.backend_type)
            if first[0] != prefix or await self._store.first_name(Seek(prefix, False, successor(prefix))):
                raise DirectoryNotEmptyError(p)
            await self._delete_revisions(prefix, await self._store.revisions(prefix))

    async def delete_recursive(self, path: str) -> None:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p):
            raise VirtualFileSystemError(ROOT_DELETE, p)
        name = dir_path(p)
        with self._guard("Failed to delete", p):
            ids = await self._store.ids_under(name, name + SEPARATOR)
            if not ids:
                raise VfsFileNotFoundError(p, self.backend_type)
            failed = await self._store.delete_ids(ids)
        if failed:
            raise VirtualFileSystemError(partial_delete(failed), p)

    # --- copy and move -------------------------------------------------------------------------

    async def _copy_into(self, source: str, destination: str, overwrite: bool) -> _BucketWriter:
        revision = await self._store.newest(source)
        if revision is None:
            raise VfsFileNotFoundError(source, self.backend_type)
        if not overwrite and await self._store.newest(destination) is not None:
            raise VfsFileExistsError(destination, self.backend_type)
        writer = await self._open_writer(destination, copied_from=source)
        await self._copy_revision(revision, writer)
        return writer

    async def copy(self, source: str, destination: str, overwrite: bool = False) -> FileInfo:
        self._life.require_open()
        src, dst = validate_file_path(source), validate_file_path(destination)
        with self._guard(f"Failed to copy from {display_path(src)} to {display_path(dst)}", None):
            writer = await self._copy_into(src, dst, overwrite)
            return await writer.close()

    async def move(self, source: str, destination: str, overwrite: bool = False) -> FileInfo:
        self._life.require_open()
        src, dst = validate_file_path(source), validate_file_path(destination)
        with self._guard(f"Failed to move from {display_path(src)} to {display_path(dst)}", None):
            if src == dst:
                current = await self._store.newest(src)
                if current is None:
                    raise VfsFileNotFoundError(src, self.backend_type)
                return file_info(current)
            writer = await self._copy_into(src, dst, overwrite)
            revision = await writer.commit()
        try:
            with self._guard("Failed to delete file", src):
                await self._delete_revisions(src, await self._store.revisions(src))
        except Exception as exc:
            await self._compensate_move(src, dst, revision, exc)
        return file_info(await self._settle(dst, revision, writer.predecessors))

    async def _compensate_move(self, src: str, dst: str, revision: Revision, cause: Exception) -> None:
        """Undo the copy of a move whose source could not be deleted: drop only the new revision, so the
        destination's previous content (not yet retired) is what remains."""
        try:
            failed = await self._store.delete_ids([revision.id])
        except Exception:
            failed = 1
        if failed:
            raise VirtualFileSystemError(
                "Move failed: source delete failed after copy, and compensation also failed. State may be "
                f"inconsistent for source={display_path(src)} destination={display_path(dst)}",
                src,
            ) from cause
        raise BackendConnectionError(
            f"Move failed: could not delete source after copy: {display_path(src)}", src, self.backend_type
        ) from cause

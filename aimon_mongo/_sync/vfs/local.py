# GENERATED from aimon_mongo/_async/vfs/local.py by scripts/gen_sync.py; do not edit.
"""The virtual filesystem in a local directory (generated from the ``_async`` source).

Paths map to files under the base directory. Symbolic links are refused wherever they appear (any
existing component of a path that is a link, even one pointing inside the base) and are invisible in
listings; validated paths cannot climb out of the base. Writes go to a hidden temporary file in the
target directory and are renamed over the target on close, so a failed or over-cap write leaves the
previous content and readers never see a partial file. The file calls are blocking: this backend is for
tests, tools and single-node use, where they are short.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
import uuid
from collections.abc import Generator, Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from aimon_mongo._sync.vfs.base import FileSystemBase, check_attributes, check_conditions, copy_stream
from aimon_mongo._sync.vfs.streams import ReaderBase, WriterBase
from aimon_mongo.errors import (
    BackendConnectionError,
    DirectoryNotEmptyError,
    InvalidPathError,
    RevisionMismatchError,
    VfsFileExistsError,
    VfsFileNotFoundError,
    VirtualFileSystemError,
    display_path,
)
from aimon_mongo.exported import exported_from
from aimon_mongo.model.vfs import BackendType, FileInfo, Usage
from aimon_mongo.vfs.guard import backend_errors
from aimon_mongo.vfs.host_limits import DEFAULT_NAME_MAX, DEFAULT_PATH_MAX, host_limits
from aimon_mongo.vfs.hostlock import directory_lock
from aimon_mongo.vfs.messages import (
    ESCAPE,
    IS_A_DIRECTORY,
    NOT_A_DIRECTORY,
    NOT_REGULAR,
    ROOT_DELETE,
    SYMLINK,
    host_path_too_long,
    name_too_long,
    parent_is_a_file,
    partial_delete,
)
from aimon_mongo.vfs.mime import mime_type
from aimon_mongo.vfs.paths import (
    ROOT,
    SEPARATOR,
    ancestors,
    dir_path,
    is_root,
    join,
    levels,
    validate_dir_path,
    validate_file_path,
    validate_path,
)
from aimon_mongo.vfs.sizecap import NO_MAX_FILE_SIZE

TEMP_PREFIX = ".aimon-tmp-"
_COPY_CHUNK = 1024 * 1024


def _stamp(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1_000_000_000, UTC)


def _visible(entry: os.DirEntry[str]) -> bool:
    return not entry.name.startswith(TEMP_PREFIX) and not entry.is_symlink()


class _LocalReader(ReaderBase):
    def __init__(self, handle: IO[bytes], size: int, etag: str) -> None:
        self._handle = handle
        self._size = size
        self._etag = etag

    @property
    def size(self) -> int:
        return self._size

    @property
    def etag(self) -> str:
        return self._etag

    def _read(self, size: int) -> bytes:
        return self._handle.read(size)

    def _seek(self, position: int) -> None:
        self._handle.seek(position)

    def tell(self) -> int:
        return self._handle.tell()

    def _release(self) -> None:
        self._handle.close()


class _LocalWriter(WriterBase):
    """Writes a temporary sibling, renamed over the target on close (under the directory's lock).

    ``condition`` (when given) is the etag the target must still have at the rename (``None``: absent).
    """

    def __init__(
        self, fs: LocalFileSystem, path: str, target: Path, condition: tuple[str | None] | None = None
    ) -> None:
        super().__init__(path, fs.max_file_size)
        self._fs = fs
        self._target = target
        self._condition = condition
        self._temp = target.with_name(f"{TEMP_PREFIX}{uuid.uuid4().hex}")
        descriptor = os.open(self._temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        self._handle = os.fdopen(descriptor, "wb")

    def _write(self, chunk: bytes) -> None:
        with self._fs._guard("Failed to write file", self._path):
            self._handle.write(chunk)

    def close(self) -> FileInfo:
        self._finish()
        try:
            with self._fs._guard("Failed to write file", self._path):
                self._handle.close()
                with directory_lock(self._target.parent):
                    if self._target.is_dir() and not self._target.is_symlink():
                        raise InvalidPathError(self._path, IS_A_DIRECTORY)
                    current = self._fs._current_etag(self._path)
                    if self._condition is not None and current != self._condition[0]:
                        raise RevisionMismatchError(self._path, self._condition[0], current)
                    self._fs._stamp_after(self._temp, self._target)
                    os.replace(self._temp, self._target)
        except BaseException:
            self._discard()
            raise
        return self._fs.info(self._path)

    def _discard(self) -> None:
        self._handle.close()
        try:
            os.unlink(self._temp)
        except FileNotFoundError:
            pass


@exported_from("aimon_mongo.vfs")
class LocalFileSystem(FileSystemBase):
    """A virtual filesystem rooted at a local directory (created at :meth:`initialize` if missing).

    ``content_hash_etag=True`` reports ``sha256:<hex>`` etags (read from the file on every ``info``);
    otherwise the etag is the nanosecond modification time, size and inode. Every write through this
    class gives the file a modification time later than its previous one (at least by a nanosecond), so
    successive revisions never share an etag.
    """

    backend_type = BackendType.LOCAL

    def __init__(
        self,
        base_path: str | os.PathLike[str],
        max_file_size: int | None = NO_MAX_FILE_SIZE,
        *,
        create: bool = True,
        content_hash_etag: bool = False,
    ) -> None:
        super().__init__(max_file_size)
        self._base = Path(os.path.realpath(os.fspath(base_path)))
        self._create = create
        self._content_hash_etag = content_hash_etag
        self._name_max, self._path_max = DEFAULT_NAME_MAX, DEFAULT_PATH_MAX

    @property
    def working_directory(self) -> str:
        return str(self._base)

    def _guard(self, action: str, path: str | None) -> AbstractContextManager[None]:
        return backend_errors((OSError,), action, path, self.backend_type)

    def _initialize(self) -> None:
        with self._guard("Failed to initialize local filesystem", str(self._base)):
            if self._create:
                self._base.mkdir(parents=True, exist_ok=True)
            if not self._base.is_dir() or not os.access(self._base, os.W_OK):
                raise BackendConnectionError(
                    f"Base path is not a writable directory: {self._base}", backend_type=self.backend_type
                )
            self._name_max, self._path_max = host_limits(self._base)

    def _release(self) -> None:
        return None

    def _ping(self) -> None:
        if not self._base.is_dir():
            raise FileNotFoundError(f"base directory is gone: {self._base}")

    # --- path mapping --------------------------------------------------------------------------

    def _host(self, path: str) -> Path:
        """The host path of a validated VFS path; refuses any existing component that is a symlink."""
        if is_root(path):
            return self._base
        parts = dir_path(path).split(SEPARATOR)
        if any(len(part.encode("utf-8", "surrogatepass")) > self._name_max for part in parts):
            raise InvalidPathError(path, name_too_long(self._name_max))
        current = self._base
        for part in parts:
            current = current / part
            try:
                mode = os.lstat(current).st_mode
            except (FileNotFoundError, NotADirectoryError):
                break
            if stat.S_ISLNK(mode):
                raise InvalidPathError(path, SYMLINK)
        target = self._base.joinpath(*parts)
        if os.path.commonpath([self._base, target]) != str(self._base):
            raise InvalidPathError(path, ESCAPE)
        if len(os.fsencode(target)) >= self._path_max:
            raise InvalidPathError(path, host_path_too_long(self._path_max))
        return target

    def _lstat(self, path: str) -> os.stat_result | None:
        try:
            return os.lstat(self._host(path))
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _etag(self, host: Path, st: os.stat_result) -> str:
        if not self._content_hash_etag:
            return f"{st.st_mtime_ns:x}-{st.st_size:x}-{st.st_ino:x}"
        digest = hashlib.sha256()
        with open(host, "rb") as handle:
            while chunk := handle.read(_COPY_CHUNK):
                digest.update(chunk)
        return "sha256:" + digest.hexdigest()

    def _info(self, path: str, host: Path, st: os.stat_result) -> FileInfo:
        modified = _stamp(st.st_mtime_ns)
        birth = getattr(st, "st_birthtime_ns", None)
        created = min(_stamp(birth), modified) if isinstance(birth, int) else modified
        if stat.S_ISDIR(st.st_mode):
            return FileInfo(path=dir_path(path), size=0, created=created, modified=modified, is_dir=True)
        return FileInfo(
            path=path,
            size=st.st_size,
            created=created,
            modified=modified,
            mime=mime_type(path),
            etag=self._etag(host, st),
        )

    def _entries(self, path: str) -> list[tuple[str, os.DirEntry[str]]]:
        """Visible entries of a directory (no symlinks, no temporaries), by VFS path."""
        with os.scandir(self._host(path)) as scan:
            entries = [(join(path, entry.name), entry) for entry in scan if _visible(entry)]
        return sorted(entries, key=lambda item: item[0])

    def _require_directory(self, path: str) -> None:
        st = self._lstat(path)
        if st is None:
            raise VfsFileNotFoundError(path, self.backend_type)
        if not stat.S_ISDIR(st.st_mode):
            raise InvalidPathError(path, NOT_A_DIRECTORY)

    def _files_under(self, path: str) -> tuple[list[tuple[str, Path, os.stat_result]], int]:
        """Every regular file below a directory (sorted by path) and the number of directories."""
        files: list[tuple[str, Path, os.stat_result]] = []
        directories = 0
        pending = [path]
        while pending:
            current = pending.pop()
            for child, entry in self._entries(current):
                if entry.is_dir(follow_symlinks=False):
                    directories += 1
                    pending.append(child)
                elif entry.is_file(follow_symlinks=False):
                    files.append((child, Path(entry.path), entry.stat(follow_symlinks=False)))
        files.sort(key=lambda item: item[0])
        return files, directories

    # --- queries -------------------------------------------------------------------------------

    def exists(self, path: str) -> bool:
        self._life.require_open()
        p = validate_path(path)
        with self._guard("Failed to check existence", p):
            st = self._lstat(p)
        return st is not None and (stat.S_ISDIR(st.st_mode) or (stat.S_ISREG(st.st_mode) and p == dir_path(p)))

    def is_dir(self, path: str) -> bool:
        self._life.require_open()
        p = validate_path(path)
        with self._guard("Failed to check directory", p):
            st = self._lstat(p)
        return st is not None and stat.S_ISDIR(st.st_mode)

    def is_file(self, path: str) -> bool:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p) or p.endswith(SEPARATOR):
            return False
        with self._guard("Failed to check file", p):
            st = self._lstat(p)
        return st is not None and stat.S_ISREG(st.st_mode)

    def info(self, path: str) -> FileInfo:
        self._life.require_open()
        p = validate_path(path)
        with self._guard("Failed to get metadata", p):
            host = self._host(p)
            st = self._lstat(p)
            if st is None or not (stat.S_ISDIR(st.st_mode) or (stat.S_ISREG(st.st_mode) and p == dir_path(p))):
                raise VfsFileNotFoundError(p, self.backend_type)
            return self._info(ROOT if is_root(p) else p, host, st)

    def ls(self, path: str = ROOT) -> list[str]:
        self._life.require_open()
        p = validate_dir_path(path)
        with self._guard("Failed to list directory", p):
            self._require_directory(p)
            return [child for child, _ in self._entries(dir_path(p))]

    def ls_info(self, path: str = ROOT) -> list[FileInfo]:
        self._life.require_open()
        p = validate_dir_path(path)
        with self._guard("Failed to list directory", p):
            self._require_directory(p)
            return [
                self._info(child, Path(entry.path), entry.stat(follow_symlinks=False))
                for child, entry in self._entries(dir_path(p))
            ]

    def walk(self, path: str = ROOT) -> Generator[FileInfo, None]:
        self._life.require_open()
        p = validate_dir_path(path)
        with self._guard("Failed to list directory", p):
            self._require_directory(p)
            files, _ = self._files_under(dir_path(p))
        for child, host, st in files:
            yield self._info(child, host, st)

    def usage(self, path: str | None = None) -> Usage:
        self._life.require_open()
        p = ROOT if path is None else validate_dir_path(path)
        with self._guard("Failed to compute usage", p):
            self._require_directory(p)
            files, directories = self._files_under(dir_path(p))
        return Usage(
            total_size=sum(st.st_size for _, _, st in files), file_count=len(files), directory_count=directories
        )

    # --- reading and writing -------------------------------------------------------------------

    def _regular_file(self, path: str) -> tuple[Path, os.stat_result]:
        host = self._host(path)
        st = self._lstat(path)
        if st is None:
            raise VfsFileNotFoundError(path, self.backend_type)
        if stat.S_ISDIR(st.st_mode):
            raise InvalidPathError(path, IS_A_DIRECTORY)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidPathError(path, NOT_REGULAR)
        return host, st

    def open_input(self, path: str) -> _LocalReader:
        self._life.require_open()
        p = validate_file_path(path)
        with self._guard("Failed to read file", p):
            host, _ = self._regular_file(p)
            descriptor = os.open(host, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            opened = os.fstat(descriptor)  # the file this descriptor reads, whatever replaces the path later
            return _LocalReader(os.fdopen(descriptor, "rb"), opened.st_size, self._etag(host, opened))

    def _prepare_target(self, path: str) -> Path:
        """Check that no parent is a file and the target is not a directory; create missing parents."""
        for parent in ancestors(path):
            st = self._lstat(parent)
            if st is not None and not stat.S_ISDIR(st.st_mode):
                raise InvalidPathError(path, parent_is_a_file(parent))
        target = self._host(path)
        st = self._lstat(path)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InvalidPathError(path, IS_A_DIRECTORY)
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def _current_etag(self, path: str) -> str | None:
        """The etag of the regular file at ``path`` now, ``None`` when nothing (or a non-file) is there."""
        host = self._host(path)
        st = self._lstat(path)
        return self._etag(host, st) if st is not None and stat.S_ISREG(st.st_mode) else None

    @staticmethod
    def _stamp_after(temp: Path, target: Path) -> None:
        """Give ``temp`` a modification time later than ``target``'s (so etags of successive revisions differ)."""
        try:
            previous = os.lstat(target).st_mtime_ns
        except (FileNotFoundError, NotADirectoryError):
            return
        stamp = max(time.time_ns(), previous + 1)
        os.utime(temp, ns=(stamp, stamp), follow_symlinks=False)

    def open_output(
        self,
        path: str,
        *,
        append: bool = False,
        if_revision: str | None = None,
        if_absent: bool = False,
        attributes: Mapping[str, str] | None = None,
    ) -> _LocalWriter:
        self._life.require_open()
        p = validate_file_path(path)
        check_conditions(if_revision, if_absent)
        check_attributes(attributes, self.supports_attributes, p)
        with self._guard("Failed to write file", p):
            target = self._prepare_target(p)
            condition: tuple[str | None] | None = None
            if append or if_absent or if_revision is not None:
                current = self._current_etag(p)
                if (if_absent and current is not None) or (if_revision is not None and current != if_revision):
                    raise RevisionMismatchError(p, if_revision, current)
                condition = (current,)
            writer = _LocalWriter(self, p, target, condition)
        if append and condition is not None and condition[0] is not None:
            self._pump(p, writer)
        return writer

    def _pump(self, source: str, writer: _LocalWriter) -> None:
        """Copy a file's bytes into a writer; abort the writer if that fails."""
        try:
            with self.open_input(source) as reader:
                copy_stream(reader, writer)
        except BaseException:
            writer.abort()
            raise

    def _set_modified(self, path: str, modified: datetime) -> FileInfo:
        with self._guard("Failed to set modified time", path):
            host, st = self._regular_file(path)
            stamp = int(modified.timestamp() * 1_000_000) * 1000
            os.utime(host, ns=(st.st_atime_ns, stamp), follow_symlinks=False)
        return self.info(path)

    def mkdir(self, path: str) -> None:
        self._life.require_open()
        p = validate_dir_path(path)
        if is_root(p):
            return
        with self._guard("Failed to create directory", p):
            for level in levels(p):
                name = level[:-1]
                st = self._lstat(name)
                if st is None:
                    self._host(name).mkdir(exist_ok=True)
                elif not stat.S_ISDIR(st.st_mode):
                    raise VfsFileExistsError(name, self.backend_type)

    def delete(self, path: str) -> None:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p):
            raise VirtualFileSystemError(ROOT_DELETE, p)
        with self._guard("Failed to delete file", p):
            host = self._host(p)
            st = self._lstat(p)
            if st is None or (not stat.S_ISDIR(st.st_mode) and p.endswith(SEPARATOR)):
                raise VfsFileNotFoundError(p, self.backend_type)
            if not stat.S_ISDIR(st.st_mode):
                host.unlink()
                return
            try:
                host.rmdir()
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    raise DirectoryNotEmptyError(p) from exc
                raise

    def delete_recursive(self, path: str) -> None:
        self._life.require_open()
        p = validate_path(path)
        if is_root(p):
            raise VirtualFileSystemError(ROOT_DELETE, p)
        with self._guard("Failed to delete", p):
            host = self._host(p)
            st = self._lstat(p)
            if st is None:
                raise VfsFileNotFoundError(p, self.backend_type)
            failed = self._remove_tree(host) if stat.S_ISDIR(st.st_mode) else self._remove_file(host)
        if failed:
            raise VirtualFileSystemError(partial_delete(failed), p)

    @staticmethod
    def _remove_file(host: Path) -> int:
        try:
            host.unlink()
        except OSError:
            return 1
        return 0

    def _remove_tree(self, host: Path) -> int:
        """Delete a directory bottom-up without following links (a link is removed, never entered)."""
        failed = 0
        with os.scandir(host) as scan:
            entries = list(scan)
        for entry in entries:
            child = Path(entry.path)
            failed += self._remove_tree(child) if entry.is_dir(follow_symlinks=False) else self._remove_file(child)
        try:
            host.rmdir()
        except OSError:
            failed += 1
        return failed

    # --- copy and move -------------------------------------------------------------------------

    def _check_transfer(self, source: str, destination: str, overwrite: bool) -> Path:
        try:
            host, _ = self._regular_file(source)
        except InvalidPathError as exc:
            raise VfsFileNotFoundError(source, self.backend_type) from exc
        st = self._lstat(destination)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InvalidPathError(destination, IS_A_DIRECTORY)
        if st is not None and not overwrite:
            raise VfsFileExistsError(destination, self.backend_type)
        return host

    def copy(self, source: str, destination: str, overwrite: bool = False) -> FileInfo:
        self._life.require_open()
        src, dst = validate_file_path(source), validate_file_path(destination)
        with self._guard(f"Failed to copy from {display_path(src)} to {display_path(dst)}", None):
            self._check_transfer(src, dst, overwrite)
            writer = self.open_output(dst)
            self._pump(src, writer)
            return writer.close()

    def move(self, source: str, destination: str, overwrite: bool = False) -> FileInfo:
        self._life.require_open()
        src, dst = validate_file_path(source), validate_file_path(destination)
        with self._guard(f"Failed to move from {display_path(src)} to {display_path(dst)}", None):
            if src == dst:
                return self.info(src)
            host = self._check_transfer(src, dst, overwrite)
            os.replace(host, self._prepare_target(dst))
        return self.info(dst)

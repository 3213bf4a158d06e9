# GENERATED from aimon_mongo/_async/deepagents/files.py by scripts/gen_sync.py; do not edit.
"""deepagents' file operations on a sync VFS (generated from the ``_async`` source).

Every method returns deepagents' own result objects with the wording its backends use (the
``FilesystemBackend`` literals where its backends differ, since the VFS has real directories); nothing
raises for a routine failure. Text is UTF-8; a file deepagents reads as binary (by extension) comes back
whole as base64 ``FileData``. ``edit`` is a conditional write on the revision it read, retried on a
conflict, so concurrent edits are never lost.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from deepagents.backends import protocol as da
from deepagents.backends.utils import (
    InvalidGlobPatternError,
    _get_backend_read_file_type,
    compile_grep_include_glob,
    normalize_read_bounds,
    perform_string_replacement,
    slice_read_response,
)
from langgraph.config import get_config

from aimon_mongo._sync.vfs.protocol import FileSystem
from aimon_mongo._sync.vfs.retry import CONFLICT_ATTEMPTS, retry_conflicts
from aimon_mongo.deepagents.roots import Root, resolve_root, to_agent, to_vfs
from aimon_mongo.errors import (
    InvalidArgumentError,
    InvalidPathError,
    VfsFileNotFoundError,
    VirtualFileSystemError,
)
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.vfs.messages import IS_A_DIRECTORY, NOT_A_DIRECTORY
from aimon_mongo.vfs.paths import ROOT
from aimon_mongo.vfs.textscan import DEFAULT_GREP_MAX_BYTES

WHOLE_READ_LIMIT = 1024 * 1024
"""Text files up to this size are read whole and sliced exactly as deepagents' own backends slice them;
larger ones are read line by line, only as far as the window needs."""

_BINARY_EDIT = "Error: Cannot edit binary files with text replacements."


def _run_config() -> Mapping[str, Any] | None:
    try:
        return get_config()
    except RuntimeError:
        return None


def _upload_error(exc: Exception) -> str:
    """deepagents' error literal for a failed upload or download."""
    if isinstance(exc, VfsFileNotFoundError):
        return da.FILE_NOT_FOUND
    if isinstance(exc, InvalidPathError):
        return da.IS_DIRECTORY if exc.reason == IS_A_DIRECTORY else da.INVALID_PATH
    if isinstance(exc, InvalidArgumentError):
        return da.INVALID_PATH
    return str(exc)


def _entry(root: str, info: FileInfo) -> da.FileInfo:
    path = to_agent(root, info.path)
    if info.is_dir:
        return {"path": path.rstrip("/") + "/", "is_dir": True, "size": 0, "modified_at": info.modified.isoformat()}
    return {"path": path, "is_dir": False, "size": info.size, "modified_at": info.modified.isoformat()}


class DeepAgentsFiles:
    """The operations of deepagents' ``BackendProtocol`` over one sync VFS (see :class:`AimonBackend`)."""

    def __init__(self, filesystem: FileSystem, root: Root, *, conflict_attempts: int = CONFLICT_ATTEMPTS) -> None:
        self.filesystem = filesystem
        self._root = root
        self._attempts = conflict_attempts
        self._initialized = False

    def _workspace(self) -> str:
        """Resolve this call's root (from the LangGraph run's config) and make sure the VFS is ready."""
        if not self._initialized:
            self.filesystem.initialize()  # idempotent
            self._initialized = True
        return resolve_root(self._root, _run_config())

    # --- listing -------------------------------------------------------------------------------

    def ls(self, path: str) -> da.LsResult:
        """Files and directories directly in ``path`` (directories end in ``/``), sorted by path."""
        try:
            root = self._workspace()
            target = to_vfs(root, path)
            try:
                infos = self.filesystem.ls_info(target)
            except VfsFileNotFoundError:
                if target == (root or ROOT):
                    return da.LsResult(entries=[])  # a new thread's workspace
                return da.LsResult(error=f"Path '{path}': path_not_found", entries=None)
            except InvalidPathError as exc:
                if exc.reason != NOT_A_DIRECTORY:
                    raise
                return da.LsResult(error=f"Path '{path}': not_a_directory", entries=None)
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return da.LsResult(error=f"Cannot list '{path}': {exc}", entries=None)
        entries = [_entry(root, info) for info in infos]
        entries.sort(key=lambda entry: entry["path"])
        return da.LsResult(entries=entries)

    # --- reading -------------------------------------------------------------------------------

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> da.ReadResult:
        """The lines ``[offset, offset + limit)`` of a text file, or a binary file whole (base64)."""
        try:
            target = to_vfs(self._workspace(), file_path)
            if _get_backend_read_file_type(file_path) != "text":
                data = self.filesystem.read(target)
                return da.ReadResult(
                    file_data=da.FileData(content=base64.standard_b64encode(data).decode("ascii"), encoding="base64")
                )
            head = self.filesystem.read_range(target, 0, WHOLE_READ_LIMIT + 1)
            if len(head) <= WHOLE_READ_LIMIT:
                return slice_read_response(da.FileData(content=head.decode("utf-8"), encoding="utf-8"), offset, limit)
            return self._read_window(target, offset, limit)
        except (VfsFileNotFoundError, InvalidPathError):
            return da.ReadResult(error=f"File '{file_path}' not found")
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError, UnicodeDecodeError) as exc:
            return da.ReadResult(error=f"Error reading file '{file_path}': {exc}")

    def _read_window(self, target: str, offset: int, limit: int) -> da.ReadResult:
        """A window of a large text file, read only as far as it reaches (deepagents' slicing rules)."""
        offset, limit = normalize_read_bounds(offset, limit)
        if limit == 0:
            return da.ReadResult(file_data=da.FileData(content="", encoding="utf-8"), no_lines_requested=True)
        window = self.filesystem.read_lines(target, offset, limit)
        if not window.lines:
            total = window.total_lines if window.total_lines is not None else offset
            return da.ReadResult(error=f"Line offset {offset} exceeds file length ({total} lines)")
        content = "".join(window.lines).replace("\r\n", "\n").replace("\r", "\n")
        end_line = offset + len(window.lines)
        return da.ReadResult(
            file_data=da.FileData(content=content, encoding="utf-8"),
            total_lines=window.total_lines,
            start_line=offset + 1,
            end_line=end_line,
            next_offset=end_line if window.has_more else None,
        )

    # --- writing -------------------------------------------------------------------------------

    def write(self, file_path: str, content: str) -> da.WriteResult:
        """Create or overwrite a text file."""
        try:
            self.filesystem.write(to_vfs(self._workspace(), file_path), content)
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError, UnicodeEncodeError) as exc:
            return da.WriteResult(error=f"Error writing file '{file_path}': {exc}")
        return da.WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> da.EditResult:
        """Replace ``old_string`` (unique unless ``replace_all``) atomically: a conditional write on the revision
        read, recomputed and retried when another writer changed the file meanwhile."""
        try:
            target = to_vfs(self._workspace(), file_path)

            def attempt() -> da.EditResult:
                with self.filesystem.open_input(target) as reader:
                    etag = reader.etag
                    raw = reader.read()
                try:
                    content = raw.decode("utf-8")
                except UnicodeDecodeError:
                    return da.EditResult(error=_BINARY_EDIT)
                outcome = perform_string_replacement(content, old_string, new_string, replace_all)
                if isinstance(outcome, str):
                    return da.EditResult(error=outcome)
                new_content, occurrences = outcome
                self.filesystem.write(target, new_content, if_revision=etag)
                return da.EditResult(path=file_path, occurrences=int(occurrences))

            return retry_conflicts(attempt, self._attempts)
        except (VfsFileNotFoundError, InvalidPathError):
            return da.EditResult(error=f"Error: File '{file_path}' not found")
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return da.EditResult(error=f"Error editing file '{file_path}': {exc}")

    def delete(self, file_path: str) -> da.DeleteResult:
        """Remove a file, or a directory with everything under it."""
        try:
            self.filesystem.delete_recursive(to_vfs(self._workspace(), file_path))
        except VfsFileNotFoundError:
            return da.DeleteResult(error=f"Error: '{file_path}' not found")
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return da.DeleteResult(error=f"Error deleting '{file_path}': {exc}")
        return da.DeleteResult(path=file_path)

    # --- searching -----------------------------------------------------------------------------

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> da.GrepResult:
        """Lines holding the literal ``pattern``; the file contents are streamed from the store."""
        if glob:
            try:
                compile_grep_include_glob(glob)
            except InvalidGlobPatternError as exc:
                return da.GrepResult(error=str(exc))
        try:
            root = self._workspace()
            target = to_vfs(root, path or "/")
            found = self.filesystem.grep(
                pattern, target, glob or None, max_count=max_count, max_bytes=DEFAULT_GREP_MAX_BYTES
            )
        except VfsFileNotFoundError:
            return da.GrepResult(matches=[])
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return da.GrepResult(error=f"Error searching path '{path or '/'}': {exc}", matches=[])
        matches: list[da.GrepMatch] = [
            {"path": to_agent(root, match.path), "line": match.line, "text": match.text} for match in found.matches
        ]
        return da.GrepResult(matches=matches, truncated=found.truncated)

    def glob(self, pattern: str, path: str | None = None) -> da.GlobResult:
        """Files matching ``pattern`` under ``path`` (newest first), answered from the names alone."""
        try:
            compile_grep_include_glob(pattern)
        except InvalidGlobPatternError as exc:
            return da.GlobResult(error=str(exc))
        try:
            root = self._workspace()
            infos = self.filesystem.glob(pattern, to_vfs(root, path or "/"))
        except VfsFileNotFoundError:
            return da.GlobResult(matches=[])
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return da.GlobResult(error=f"Error globbing path '{path or '/'}': {exc}")
        infos.sort(key=lambda info: info.modified, reverse=True)
        return da.GlobResult(matches=[_entry(root, info) for info in infos])

    # --- bulk transfer -------------------------------------------------------------------------

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[da.FileUploadResponse]:
        """Store each ``(path, bytes)`` as given (binary included); one response per file, in order."""
        responses: list[da.FileUploadResponse] = []
        try:
            root = self._workspace()
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return [da.FileUploadResponse(path=path, error=str(exc)) for path, _ in files]
        for path, content in files:
            try:
                self.filesystem.write(to_vfs(root, path), content)
            except (VirtualFileSystemError, InvalidArgumentError) as exc:
                responses.append(da.FileUploadResponse(path=path, error=_upload_error(exc)))
                continue
            responses.append(da.FileUploadResponse(path=path, error=None))
        return responses

    def download_files(self, paths: list[str]) -> list[da.FileDownloadResponse]:
        """The bytes of each path; one response per path, in order."""
        responses: list[da.FileDownloadResponse] = []
        try:
            root = self._workspace()
        except (VirtualFileSystemError, InvalidArgumentError, RuntimeError) as exc:
            return [da.FileDownloadResponse(path=path, content=None, error=str(exc)) for path in paths]
        for path in paths:
            try:
                content = self.filesystem.read(to_vfs(root, path))
            except (VirtualFileSystemError, InvalidArgumentError) as exc:
                responses.append(da.FileDownloadResponse(path=path, content=None, error=_upload_error(exc)))
                continue
            responses.append(da.FileDownloadResponse(path=path, content=content, error=None))
        return responses

"""One "store down" family: the session stores' :class:`BackendUnavailable` covers the VFS's
:class:`BackendConnectionError` (still importable under its name) and :class:`VfsBackendUnavailable`."""

from __future__ import annotations

import pytest

from aimon_mongo.cli._errors import HINT, failure_line
from aimon_mongo.errors import (
    AimonStorageError,
    BackendConnectionError,
    BackendUnavailable,
    VfsBackendUnavailable,
    VirtualFileSystemError,
)


def test_vfs_storage_failures_are_backend_unavailable() -> None:
    assert issubclass(BackendConnectionError, BackendUnavailable)
    assert issubclass(BackendConnectionError, VirtualFileSystemError)
    assert issubclass(VfsBackendUnavailable, BackendConnectionError)
    with pytest.raises(BackendUnavailable) as caught:
        raise BackendConnectionError("Failed to read: a.txt: OSError: disk", "a.txt", "LOCAL")
    assert caught.value.path == "a.txt" and caught.value.backend_type == "LOCAL"
    assert isinstance(caught.value, AimonStorageError)


def test_the_cli_hints_at_starting_the_server_only_when_it_is_unreachable() -> None:
    assert failure_line(BackendUnavailable("Redis at 127.0.0.1:1 is not reachable")) == (
        f"Redis at 127.0.0.1:1 is not reachable ({HINT})"
    )
    down = VfsBackendUnavailable("Failed to read: a.txt: MongoDB unreachable (ServerSelectionTimeoutError)")
    assert failure_line(down) == f"{down} ({HINT})"
    corrupt = BackendConnectionError("File is corrupt (missing chunks): a.txt", "a.txt")
    assert failure_line(corrupt) == "File is corrupt (missing chunks): a.txt"

"""Reasons and messages the VFS backends share (the reference's wording where it had one)."""

from __future__ import annotations

from aimon_mongo.errors import display_path

NOT_A_DIRECTORY = "Not a directory"
IS_A_DIRECTORY = "path is a directory"
NOT_REGULAR = "Not a regular file"
ROOT_DELETE = "Cannot delete VFS root directory"
SYMLINK = "Symbolic link detected (security violation)"
ESCAPE = "Path traversal detected (security violation)"


def parent_is_a_file(parent: str) -> str:
    """Reason for refusing a write below a file."""
    return f"parent '{display_path(parent)}' is a file"


def partial_delete(failed: int) -> str:
    """Message of a recursive delete that could not remove everything."""
    return f"Recursive delete partially failed: {failed} items could not be deleted"


def name_too_long(limit: int) -> str:
    """Reason for refusing a path with a segment the local filesystem cannot name."""
    return f"path segment exceeds the local filesystem's name limit of {limit} bytes"


def host_path_too_long(limit: int) -> str:
    """Reason for refusing a path that, below the local base directory, is longer than the host allows."""
    return f"path below the local base directory exceeds the host's path limit of {limit} bytes"

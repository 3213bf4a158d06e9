"""Path rules of the virtual filesystem (pure).

A VFS path is a ``/``-separated string relative to the filesystem root, e.g. ``docs/notes/a.txt``. An
accepted path is stored **verbatim** (on GridFS it is the ``filename``), so for every call this module
accepts, the stored name is byte-for-byte the one the reference implementation stores for the same call.
This module is stricter than the reference: it refuses spellings that would create ambiguous or
unreachable names (see ``docs/vfs.md``), which never changes the name of anything it accepts.

Refused, with :class:`~aimon_mongo.errors.InvalidPathError` naming the path and the reason:

* anything but a ``str`` or an :class:`os.PathLike` naming one (``PurePosixPath("a/b")`` is ``"a/b"``), an
  empty or whitespace-only path (except ``""`` as the root of a directory operation);
* NUL and other control characters (U+0000-U+001F, U+007F);
* ``..`` as a segment in any spelling (``../x``, ``..\\x``, ``a/..``), checked before anything else;
* a backslash (it is not a separator here; the reference's directory helpers treat it as one and its
  file helpers do not, so accepting it would make one name mean two things);
* a leading ``/`` (paths are relative to the VFS root; see ``docs/vfs.md``), empty segments (``a//b``)
  and ``.`` segments (``./a``, ``a/./b``);
* for a file: a trailing ``/`` (that is the directory-marker shape) and the root itself;
* more than :data:`MAX_PATH_LENGTH` characters.

The root is spelled ``"."`` (or ``""``) in directory operations. Directory prefixes end in ``/``; the root's
prefix is ``""``.
"""

from __future__ import annotations

import os
import re

from aimon_mongo.errors import InvalidPathError

ROOT = "."
SEPARATOR = "/"
MAX_PATH_LENGTH = 4096

REASON_BLANK = "path cannot be empty or blank"
REASON_NUL = "path contains null byte"
REASON_CONTROL = "path contains control characters"
REASON_TRAVERSAL = "path traversal is not allowed"
REASON_BACKSLASH = "backslash is not a path separator; use '/'"
REASON_ABSOLUTE = "absolute paths are not allowed; paths are relative to the VFS root (drop the leading '/')"
REASON_EMPTY_SEGMENT = "empty path segment ('//')"
REASON_DOT_SEGMENT = "'.' path segment is not allowed"
REASON_TRAILING_SEPARATOR = "file path cannot end with a separator"
REASON_ROOT = "path names the root directory"
REASON_NOT_A_TYPE = "path must be a str or an os.PathLike of str"


_CONTROL = re.compile("[\x00-\x1f\x7f]")
"""A control character (below U+0020, or DEL)."""


def _refuse(path: object, reason: str) -> InvalidPathError:
    return InvalidPathError(path, reason)


def _as_text(path: object) -> str:
    """The text of a path argument: a ``str``, or an ``os.PathLike`` whose ``__fspath__`` is a ``str``."""
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise _refuse(path, f"{REASON_NOT_A_TYPE}, got {type(path).__name__}")


def _check_common(path: object) -> str:
    path = _as_text(path)
    if "\x00" in path:
        raise _refuse(path, REASON_NUL)
    if _CONTROL.search(path):
        raise _refuse(path, REASON_CONTROL)
    if any(segment == ".." for segment in path.replace("\\", SEPARATOR).split(SEPARATOR)):
        raise _refuse(path, REASON_TRAVERSAL)
    if "\\" in path:
        raise _refuse(path, REASON_BACKSLASH)
    if len(path) > MAX_PATH_LENGTH:
        raise _refuse(path, f"path exceeds maximum length of {MAX_PATH_LENGTH} characters ({len(path)} characters)")
    return path


def _check_segments(path: str, body: str) -> None:
    if body.startswith(SEPARATOR):
        raise _refuse(path, REASON_ABSOLUTE)
    for segment in body.split(SEPARATOR):
        if segment == "":
            raise _refuse(path, REASON_EMPTY_SEGMENT)
        if segment == ".":
            raise _refuse(path, REASON_DOT_SEGMENT)


def is_root(path: str) -> bool:
    """Whether a (validated) directory path names the root."""
    return path in ("", ROOT)


def validate_path(path: object) -> str:
    """Validate a path that may name a file, a directory or the root (exists, info, delete, ...)."""
    text = _check_common(path)
    if is_root(text):
        return text
    if not text.strip():
        raise _refuse(text, REASON_BLANK)
    body = text[:-1] if text.endswith(SEPARATOR) and len(text) > 1 else text
    _check_segments(text, body)
    return text


validate_dir_path = validate_path
"""Directory operations accept the same spellings (a trailing ``/`` is allowed: ``docs/`` is ``docs``)."""


def validate_file_path(path: object) -> str:
    """Validate a path that must name a file (write, read, open, copy/move source and destination)."""
    text = _check_common(path)
    if text == ROOT:
        raise _refuse(text, REASON_ROOT)
    if not text.strip():
        raise _refuse(text, REASON_BLANK)
    if text.endswith(SEPARATOR):
        raise _refuse(text, REASON_TRAILING_SEPARATOR)
    _check_segments(text, text)
    return text


def file_name(path: str) -> str:
    """The name a (validated) file path is stored under: the path itself, verbatim."""
    return path


def dir_prefix(path: str) -> str:
    """The stored prefix of a (validated) directory: ``""`` for the root, else the path ending in ``/``."""
    if is_root(path):
        return ""
    return path if path.endswith(SEPARATOR) else path + SEPARATOR


def dir_path(path: str) -> str:
    """The canonical spelling of a (validated) directory path: no trailing ``/``, ``"."`` for the root."""
    if is_root(path):
        return ROOT
    return path[:-1] if path.endswith(SEPARATOR) else path


def successor(prefix: str) -> str:
    """The smallest string greater than every string that starts with ``prefix`` (``prefix`` non-empty).

    For a directory prefix (ending in ``/``, U+002F) this is the prefix with ``0`` (U+0030) in place of the
    slash, so ``name >= prefix and name < successor(prefix)`` selects exactly the names under the prefix, in
    both code-point order (Python) and UTF-8 byte order (MongoDB): UTF-8 preserves code-point order.
    """
    if not prefix:
        raise ValueError("the empty prefix has no successor")
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def ancestors(path: str) -> list[str]:
    """Every proper ancestor directory of a (validated) path, outermost first: ``a/b/c`` -> ``[a, a/b]``."""
    parts = path.rstrip(SEPARATOR).split(SEPARATOR)
    return [SEPARATOR.join(parts[:i]) for i in range(1, len(parts))]


def levels(path: str) -> list[str]:
    """The directory prefixes ``mkdir -p`` creates for a (validated, non-root) path: ``a/b`` -> ``[a/, a/b/]``."""
    return [prefix + SEPARATOR for prefix in [*ancestors(path), dir_path(path)]]


def parent(path: str) -> str:
    """The parent directory of a (validated) path (``"."`` for top-level names)."""
    head, sep, _ = dir_path(path).rpartition(SEPARATOR)
    return head if sep else ROOT


def base_name(path: str) -> str:
    """The last segment of a path."""
    return path.rstrip(SEPARATOR).rpartition(SEPARATOR)[2]


def join(directory: str, name: str) -> str:
    """``directory/name`` with the root spelled as no prefix at all."""
    return dir_prefix(directory) + name

"""Where the snapshot, task-output and task-result stores keep their objects (pure path rules).

* snapshots: ``<base_dir>/<task_id>.json`` (default base dir ``task-snapshot``);
* task results: ``<base_dir>/<task_id>.json`` (default ``task-result``);
* task output: ``<base_dir>/<task_id>/<start>.seg``, ``<start>`` zero-padded to 20 digits (default
  ``task-output``).

Base directories are relative to the root of the filesystem the store is given. A task id must be one
path segment: the reference used it verbatim, so ``../x`` escaped the base directory; here it is refused
with :class:`~aimon_mongo.errors.InvalidArgumentError` before anything is read or written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError, InvalidPathError
from aimon_mongo.vfs.paths import SEPARATOR, base_name, is_root, validate_dir_path, validate_file_path

DEFAULT_SNAPSHOT_BASE_DIR: Final = n.SNAP_STORE_BASE_DIR
DEFAULT_RESULT_BASE_DIR: Final = n.TASKRES_BASE_DIR
DEFAULT_OUTPUT_BASE_DIR: Final = n.TASKOUT_BASE_DIR

_LONG_MAX = 2**63 - 1
_DIGITS = re.compile(r"\d+\Z")
_TASK_ID_RULE = "a task id must be one non-blank path segment (no '/', '\\', '.', '..', NUL or control characters)"


def validate_base_dir(value: object) -> str:
    """A store's base directory: non-blank, one trailing ``/`` stripped, a valid relative VFS directory."""
    if value is None:
        raise InvalidArgumentError("base_dir cannot be None")
    if not isinstance(value, str):
        raise InvalidArgumentError(f"base_dir must be a str, got {type(value).__name__}")
    if not value.strip():
        raise InvalidArgumentError("base_dir cannot be blank")
    text = value[:-1] if value.endswith(SEPARATOR) else value
    try:
        validate_dir_path(text)
    except InvalidPathError as exc:
        raise InvalidArgumentError(f"base_dir {value!r} is not a usable directory: {exc.reason}") from None
    if is_root(text) or not text:
        raise InvalidArgumentError(f"base_dir {value!r} names the filesystem root; give a directory below it")
    return text


def validate_task_id(value: object) -> str:
    """A task id that is safe to use as one path segment; refuses with :class:`InvalidArgumentError`."""
    if not isinstance(value, str):
        raise InvalidArgumentError(f"task id must be a str, got {type(value).__name__}")
    if (
        not value.strip()
        or value in (".", "..")
        or SEPARATOR in value
        or "\\" in value
        or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value)
    ):
        raise InvalidArgumentError(f"{_TASK_ID_RULE}, got {value!r}")
    return value


def object_path(base_dir: str, task_id: str, suffix: str) -> str:
    """``<base_dir>/<task_id><suffix>`` for a validated base dir; validates the task id."""
    path = f"{base_dir}{SEPARATOR}{validate_task_id(task_id)}{suffix}"
    return _checked(path, task_id, validate_file_path)


def task_dir(base_dir: str, task_id: str) -> str:
    """``<base_dir>/<task_id>``: the directory of one task's output segments; validates the task id."""
    path = f"{base_dir}{SEPARATOR}{validate_task_id(task_id)}"
    return _checked(path, task_id, validate_dir_path)


def task_id_of(path: str, suffix: str) -> str | None:
    """The task id an object path in a base directory names, or ``None`` when it is not ``<id><suffix>``."""
    name = base_name(path)
    return name[: -len(suffix)] if name.endswith(suffix) and len(name) > len(suffix) else None


def segment_name(start: int) -> str:
    """The file name of the segment starting at ``start``: ``%020d`` + ``.seg``."""
    return f"{start:0{n.TASKOUT_START_DIGITS}d}{n.TASKOUT_SEGMENT_SUFFIX}"


def segment_path(directory: str, start: int) -> str:
    """The path of the segment starting at ``start`` in a task's directory."""
    return f"{directory}{SEPARATOR}{segment_name(start)}"


def segment_start(path: str) -> int | None:
    """The start offset a segment's name encodes, or ``None`` for names that are not segments.

    Like the reference, any name ``<digits>.seg`` whose number fits a Java ``long`` counts (padding is
    how we write them, not a condition for reading them).
    """
    name = base_name(path)
    if not name.endswith(n.TASKOUT_SEGMENT_SUFFIX):
        return None
    stem = name[: -len(n.TASKOUT_SEGMENT_SUFFIX)]
    if not _DIGITS.match(stem):
        return None
    value = int(stem)
    return value if value <= _LONG_MAX else None


def _checked(path: str, task_id: str, validate: Callable[[object], str]) -> str:
    try:
        validate(path)
    except InvalidPathError as exc:
        raise InvalidArgumentError(f"task id {task_id!r} does not make a valid path: {exc.reason}") from None
    return path

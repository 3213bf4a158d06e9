# GENERATED from aimon_mongo/_async/snapshots/objects.py by scripts/gen_sync.py; do not edit.
"""Best-effort single-object I/O shared by the snapshot and task-result stores, and the filesystem every
store initialises on its first use.

``what`` names the kind of object in the log line (``"session snapshot"``, ``"task result"``); lines name
the task, never the content.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aimon_mongo.errors import InvalidPathError, VfsFileNotFoundError
from aimon_mongo.snapshots.envelope import failure_text
from aimon_mongo.vfs.protocol import FileSystem

log = logging.getLogger("aimon_mongo.snapshots")


class FirstUse:
    """A store's filesystem, initialised on the store's first use of it (``initialize`` is idempotent), as
    the fsspec and deepagents adapters do: a store works on a filesystem nobody initialised yet."""

    def __init__(self, fs: FileSystem) -> None:
        self.fs = fs
        self._ready = False

    def __call__(self) -> FileSystem:
        """The filesystem, initialised (raises what ``initialize`` raises: a closed one, an unreachable server)."""
        if not self._ready:
            self.fs.initialize()
            self._ready = True
        return self.fs


def write_best_effort(
    opened: FirstUse,
    path: str,
    produce: Callable[[], str],
    what: str,
    task_id: str,
    attributes: Callable[[], dict[str, str] | None] | None = None,
) -> None:
    """Write ``produce()`` (UTF-8) at ``path``, replacing the object whole, with the file ``attributes()``
    where the filesystem keeps attributes; any failure is one WARN."""
    try:
        fs = opened()
        data = produce().encode("utf-8")
        kept = attributes() if attributes is not None and fs.supports_attributes else None
        fs.write(path, data, attributes=kept)
    except Exception as exc:
        log.warning("Failed to save %s for task %s: %s", what, task_id, failure_text(exc))


def read_or_none(opened: FirstUse, path: str, what: str, task_id: str) -> bytes | None:
    """The object's bytes; ``None`` when there is none (quiet) or it cannot be read (one WARN)."""
    try:
        return (opened()).read(path)
    except (VfsFileNotFoundError, InvalidPathError):  # nothing there, or a directory
        return None
    except Exception as exc:
        log.warning("Failed to load %s for task %s: %s", what, task_id, failure_text(exc))
        return None


def delete_quietly(opened: FirstUse, path: str, what: str, task_id: str) -> None:
    """Delete the object; nothing for a missing one, other failures at DEBUG only."""
    try:
        (opened()).delete(path)
    except VfsFileNotFoundError:
        pass
    except Exception as exc:
        log.debug("Failed to evict %s for task %s: %s", what, task_id, failure_text(exc))

"""Exception hierarchy of aimon-mongo.

Every error the library raises on purpose derives from :class:`AimonStorageError`, with one subclass per
failure family, so callers can catch a family (``except SessionInboxError``) or everything
(``except AimonStorageError``). Messages name the offending value (an id, a path, a field name) but never
carry message payloads or file contents.
"""

from __future__ import annotations


class AimonStorageError(Exception):
    """Base of every error raised by aimon-mongo."""


class InvalidArgumentError(AimonStorageError, ValueError):
    """An argument was refused before anything was sent to a store (wrong type, empty, unsafe)."""


class CodecError(AimonStorageError):
    """A stored shape could not be encoded or decoded.

    The message names the field and the reason, never the stored payload.
    """


class SnapshotCodecError(CodecError):
    """A session snapshot document (or a sealed segment payload) could not be encoded or decoded.

    The message is the reference codec's (``"Missing or non-textual field 'role'"``, ``"Inconsistent
    session log: ..."``): it names the field and the reason, never message text.
    """


class TaskResultCodecError(CodecError):
    """A stored task result document could not be encoded or decoded."""


class BackendUnavailable(AimonStorageError):
    """The store could not be reached, or did not answer within the configured timeout."""


class BackendRefused(BackendUnavailable):
    """The server was reached and refused the connection: the database or role does not exist, or the
    login failed (retrying will not help; the connection settings must change)."""


class StaleFencingTokenError(AimonStorageError):
    """A fenced write carried a fencing token lower than one the store already accepted."""

    def __init__(self, session_id: str, token: int, highest: int | None) -> None:
        self.session_id = session_id
        self.token = token
        self.highest = highest
        super().__init__(
            f"stale fencing token {token} for session {session_id!r}: the store already accepted token {highest}"
        )


class CheckpointStoreError(AimonStorageError):
    """A LangGraph checkpoint saver operation failed (``aimon_mongo.langgraph``)."""


class StaleWriteOwnerError(StaleFencingTokenError):
    """A write through a superseded write-ownership handle of a LangGraph thread was refused before
    anything was written. ``is_stale_write_owner_error`` is the marker LangGraph's proposed
    ``write_ownership`` conformance capability recognises."""

    is_stale_write_owner_error = True

    def __init__(self, thread_id: str, token: int, highest: int | None) -> None:
        super().__init__(thread_id, token, highest)
        self.thread_id = thread_id
        self.args = (
            f"write refused: the write owner of thread {thread_id!r} with fencing token {token} has been "
            f"superseded (the thread's fence is {highest})",
        )


class WriteOwnershipError(CheckpointStoreError):
    """Write ownership of a thread could not be taken (held by a live owner, or the store cannot fence)."""


class ThreadExpiredError(CheckpointStoreError):
    """A write would continue a LangGraph thread whose retention expired (its checkpoints are deleted or
    being deleted); start the thread afresh instead."""


class SchemaMigrationError(AimonStorageError):
    """Applying a store's schema (tables, indexes, migrations) failed."""


class ReplicationGuardError(AimonStorageError):
    """A PostgreSQL bundle with ``replication_guard="require"`` found no connected synchronous standby: a
    failover could lose acknowledged writes (fencing tokens keep their clock floor). The message names the
    settings read."""


class SessionInboxError(AimonStorageError):
    """The inbox backend failed."""


class SessionLeaseError(AimonStorageError):
    """The lease backend failed (a lease held by someone else is not an error: ``try_acquire`` → None)."""


class SignalBusError(AimonStorageError):
    """The signal bus failed, or was used after ``close()``."""


class IdempotencyStoreError(AimonStorageError):
    """The idempotency backend failed."""


class BackgroundTaskStoreError(AimonStorageError):
    """The background-task backend failed."""


class SessionRecordStoreError(AimonStorageError):
    """The session-record backend failed."""


class SessionLogSegmentStoreError(AimonStorageError):
    """The log-segment backend failed, or refused a duplicate segment id."""


class SchemaGateError(AimonStorageError):
    """The persisted-schema gate refused: a declaration, a change record, a checkpoint or a command.

    ``code`` is a stable machine-readable reason (``decision-required``, ``forked-history``, ...).
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


class MissingExtraError(ModuleNotFoundError, AimonStorageError):
    """A feature needs an optional dependency (an extra) that is not installed.

    The message is one line naming the feature, the missing module and the command that installs it:
    ``aimon_mongo.redis needs the 'redis' package, which is not installed: pip install 'aimon-mongo[redis]'``.
    ``extra`` is the extra's name; ``name`` (as on every ``ModuleNotFoundError``) the missing module.
    """

    def __init__(self, feature: str, extra: str, module: str) -> None:
        self.extra = extra
        super().__init__(
            f"{feature} needs the {module!r} package, which is not installed: pip install 'aimon-mongo[{extra}]'",
            name=module,
        )


# --- Virtual filesystem (aimon_mongo.vfs) ---


def display_path(path: object) -> str:
    """A path as error messages and logs show it: control characters escaped, never raw bytes."""
    text = path if isinstance(path, str) else repr(path)
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


class VirtualFileSystemError(AimonStorageError):
    """Base of every virtual-filesystem failure; ``path`` names the path concerned, when there is one."""

    def __init__(self, message: str, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class VfsFileNotFoundError(VirtualFileSystemError, FileNotFoundError):
    """Nothing exists at the path (``"File not found: <path>"``); also a builtin :class:`FileNotFoundError`."""

    def __init__(self, path: str, backend_type: str | None = None) -> None:
        self.backend_type = backend_type
        suffix = f" (backend: {backend_type})" if backend_type else ""
        super().__init__(f"File not found: {display_path(path)}{suffix}", path)


class VfsFileExistsError(VirtualFileSystemError, FileExistsError):
    """Something already occupies the path (``"File already exists: <path>"``); also a :class:`FileExistsError`."""

    def __init__(self, path: str, backend_type: str | None = None) -> None:
        self.backend_type = backend_type
        suffix = f" (backend: {backend_type})" if backend_type else ""
        super().__init__(f"File already exists: {display_path(path)}{suffix}", path)


class InvalidPathError(VirtualFileSystemError, ValueError):
    """The path was refused (``"Invalid path '<path>': <reason>"``): unsafe, malformed, or the wrong kind."""

    def __init__(self, path: object, reason: str) -> None:
        self.reason = reason
        super().__init__(f"Invalid path '{display_path(path)}': {reason}", path if isinstance(path, str) else None)


class DirectoryNotEmptyError(VirtualFileSystemError):
    """``delete`` of a directory that still has entries (``"Directory not empty: <path>"``)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Directory not empty: {display_path(path)}", path)


class InsufficientStorageError(VirtualFileSystemError):
    """A write crossed the per-file size cap; nothing of the refused content is visible at the path."""

    def __init__(self, max_size: int, path: str | None = None) -> None:
        self.max_size = max_size
        where = f": {display_path(path)}" if path is not None else ""
        super().__init__(f"File content exceeds maximum allowed size of {max_size} bytes{where}", path)


class BackendConnectionError(VirtualFileSystemError, BackendUnavailable):
    """The storage behind the filesystem failed (``"Failed to <action>: <path>: <cause>"``).

    A :class:`BackendUnavailable`, like the session stores' "store down": one family for both, so one
    ``except BackendUnavailable`` covers the stores and the VFS. When the store could not be reached at
    all, the error is the subclass :class:`VfsBackendUnavailable`.
    """

    def __init__(self, message: str, path: str | None = None, backend_type: str | None = None) -> None:
        self.backend_type = backend_type
        super().__init__(message, path)


class VfsBackendUnavailable(BackendConnectionError):
    """The filesystem's store could not be reached (``"...: MongoDB unreachable (<cause>)"``).

    A :class:`BackendConnectionError` (what VFS callers caught so far), hence a :class:`BackendUnavailable`
    (what session-store callers catch), so either ``except`` keeps working.
    """


class RevisionMismatchError(VirtualFileSystemError):
    """A conditional write was refused: the file is no longer at the revision the caller named.

    ``expected`` is the etag the caller gave (``None`` for ``if_absent=True``), ``actual`` the file's etag
    now (``None`` when it is absent). Nothing of the refused write is visible.
    """

    def __init__(self, path: str, expected: str | None, actual: str | None) -> None:
        self.expected = expected
        self.actual = actual
        wanted = "no file" if expected is None else f"revision {expected}"
        found = "absent" if actual is None else f"at revision {actual}"
        super().__init__(f"File changed: {display_path(path)} is {found}, the write required {wanted}", path)


class FileReplacedError(VirtualFileSystemError):
    """The revision being streamed was retired by a newer write; reopen the file to read the new one."""

    def __init__(self, path: str) -> None:
        super().__init__(f"File was replaced while being read: {display_path(path)}", path)


class VfsStateError(VirtualFileSystemError, RuntimeError):
    """The filesystem was used before ``initialize()`` or after ``close()``."""


class UnknownOptionError(InvalidArgumentError, TypeError):
    """A keyword option the receiver does not take (``open_backends(url, colour=...)``); a ``TypeError`` as
    Python's own unexpected-keyword error is, and an :class:`InvalidArgumentError` like every bad input."""

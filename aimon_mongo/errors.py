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


class StaleFencingTokenError(AimonStorageError):
    """A fenced write carried a fencing token lower than one the store already accepted."""

    def __init__(self, session_id: str, token: int, highest: int | None) -> None:
        self.session_id = session_id
        self.token = token
        self.highest = highest
        super().__init__(
            f"stale fencing token {token} for session {session_id!r}: the store already accepted "
            f"token {highest}"
        )


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

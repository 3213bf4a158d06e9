"""Lifecycle of a filesystem instance (pure state; the backends hold the lock around transitions)."""

from __future__ import annotations

from aimon_mongo.errors import VfsStateError

NOT_INITIALIZED = "VirtualFileSystem not initialized. Call initialize() first."
CLOSED = "VirtualFileSystem is closed"
INITIALIZE_AFTER_CLOSE = "Cannot initialize closed VirtualFileSystem"


class Lifecycle:
    """``new`` -> ``initialize()`` -> ``open`` -> ``close()`` -> ``closed``; ``close`` is idempotent."""

    __slots__ = ("closed", "initialized")

    def __init__(self) -> None:
        self.initialized = False
        self.closed = False

    def require_open(self) -> None:
        """Raise unless the filesystem was initialised and is not closed."""
        if self.closed:
            raise VfsStateError(CLOSED)
        if not self.initialized:
            raise VfsStateError(NOT_INITIALIZED)

    def require_initializable(self) -> bool:
        """Raise after close; return whether initialisation is still to be done."""
        if self.closed:
            raise VfsStateError(INITIALIZE_AFTER_CLOSE)
        return not self.initialized

"""Counting the commands (round trips) the library sends to MongoDB, for tests, benchmarks and operators.

A :class:`CommandLog` is a PyMongo ``CommandListener``: pass it as ``event_listeners=[log]`` to a
``MongoClient`` / ``AsyncMongoClient`` and wrap what you want to measure in :meth:`CommandLog.recording`::

    log = CommandLog()
    client = MongoClient(uri, event_listeners=[log])
    with log.recording() as seen:
        inbox.deliver(...)
    assert seen.round_trips == 1

What is kept per command is its name, database, collection and the *shape* of its filter (the field names
of ``filter`` / ``q`` / ``query``), never the values: a log of commands must not carry message payloads.
Connection handshakes and heartbeats (``hello``, ``isMaster``, ``ping``, ``endSessions``, SASL) are not
counted; they are not what an operation costs. A recording also sums the BSON size of every command sent and
every reply received (:attr:`Recording.bytes_sent` / :attr:`Recording.bytes_received`: the documents as the
driver hands them to the listener, re-encoded, so without the few bytes of message framing), only while it
is open.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import bson
from bson.errors import BSONError
from pymongo import monitoring

NOT_ROUND_TRIPS = frozenset(
    {"hello", "ismaster", "isMaster", "ping", "endSessions", "saslStart", "saslContinue", "buildinfo", "buildInfo"}
)
"""Commands a driver sends on its own (handshake, heartbeat, session clean-up): not an operation's cost."""

_FILTER_KEYS = ("filter", "query", "q")


@dataclass(frozen=True)
class SeenCommand:
    """One command as sent: its name, target namespace and the field names of its filter (no values)."""

    name: str
    database: str
    collection: str | None
    filter_fields: tuple[str, ...]
    updates: int = 1
    """For ``update`` / ``delete`` / ``insert``: how many statements the one command carried."""
    upsert: bool = False
    command: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The command document itself, for classification in tests; never logged or shown."""
    origin: tuple[str, ...] = ()
    """With ``CommandLog(origins=True)``: the ``aimon_mongo`` functions on the stack that sent the command,
    innermost first (``("MongoInboxDriver.append", "Inbox.deliver", …)``, the ``Async`` prefix dropped: the
    driver's primitive, then the service method that called it); empty when the library did not send it (a
    test's own command)."""


@dataclass(eq=False)
class Recording:
    """The commands seen while one :meth:`CommandLog.recording` block ran (compared by identity)."""

    commands: list[SeenCommand] = field(default_factory=list)
    documents: int = 0
    """Documents the server returned: in cursor batches (``find`` / ``aggregate`` / ``getMore`` replies) and as
    the ``value`` of a ``findAndModify``."""
    bytes_sent: int = 0
    """BSON bytes of the commands sent (their documents and statements included)."""
    bytes_received: int = 0
    """BSON bytes of the replies of those commands (failed ones included)."""

    @property
    def round_trips(self) -> int:
        """How many commands went to the server."""
        return len(self.commands)

    def by_name(self) -> Counter[str]:
        """Commands counted by name (``{"find": 2, "delete": 1}``)."""
        return Counter(c.name for c in self.commands)


class CommandLog(monitoring.CommandListener):
    """A ``CommandListener`` that records the commands sent while a :meth:`recording` block is open.

    Thread-safe; recordings may nest (each sees every command sent while it is open). ``origins=True``
    also records which library functions sent each command (:attr:`SeenCommand.origin`)."""

    def __init__(self, *, origins: bool = False) -> None:
        self._lock = threading.Lock()
        self._open: list[Recording] = []
        self._origins = origins

    @contextmanager
    def recording(self) -> Iterator[Recording]:
        """Record every command started until the block ends."""
        seen = Recording()
        with self._lock:
            self._open.append(seen)
        try:
            yield seen
        finally:
            with self._lock:
                self._open.remove(seen)

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name in NOT_ROUND_TRIPS:
            return
        with self._lock:
            if not self._open:
                return
            seen = describe(event.command_name, event.database_name, event.command)
            if self._origins:
                seen = replace(seen, origin=library_callers())
            size = _bson_size(event.command)
            for recording in self._open:
                recording.commands.append(seen)
                recording.bytes_sent += size

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if event.command_name in NOT_ROUND_TRIPS:
            return
        with self._lock:
            if not self._open:
                return
            size = _bson_size(event.reply)
            cursor = event.reply.get("cursor")
            batch = cursor.get("firstBatch", cursor.get("nextBatch")) if isinstance(cursor, Mapping) else None
            returned = len(batch) if isinstance(batch, list) else 0
            if event.command_name == "findAndModify" and isinstance(event.reply.get("value"), Mapping):
                returned = 1
            for recording in self._open:
                recording.bytes_received += size
                recording.documents += returned

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        if event.command_name in NOT_ROUND_TRIPS:
            return
        with self._lock:
            size = _bson_size(event.failure) if self._open else 0
            for recording in self._open:
                recording.bytes_received += size


def _bson_size(document: Mapping[str, Any]) -> int:
    """The size of ``document`` as BSON (0 if it cannot be encoded: a count must never fail a command)."""
    try:
        return len(bson.encode(document))
    except (BSONError, TypeError, ValueError):
        return 0


def describe(name: str, database: str, command: Mapping[str, Any]) -> SeenCommand:
    """A :class:`SeenCommand` for one command document (``name`` is the command's first key)."""
    target = command.get(name)
    collection = target if isinstance(target, str) else None
    statements = _statements(name, command)
    first = statements[0] if statements else command
    fields: tuple[str, ...] = ()
    for key in _FILTER_KEYS:
        shape = first.get(key) if isinstance(first, Mapping) else None
        if isinstance(shape, Mapping):
            fields = tuple(shape)
            break
    upsert = bool(command.get("upsert")) or any(isinstance(s, Mapping) and s.get("upsert") for s in statements)
    return SeenCommand(name, database, collection, fields, max(1, len(statements)), upsert, command)


def _statements(name: str, command: Mapping[str, Any]) -> list[Any]:
    key = {"update": "updates", "delete": "deletes", "insert": "documents"}.get(name)
    value = command.get(key) if key else None
    return list(value) if isinstance(value, list) else []


def library_callers() -> tuple[str, ...]:
    """The ``aimon_mongo`` functions on the current stack (async frames included), innermost first."""
    found: list[str] = []
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("aimon_mongo.") and module != __name__:
            found.append(frame.f_code.co_qualname.removeprefix("Async"))
        frame = frame.f_back  # type: ignore[assignment]
    return tuple(found)

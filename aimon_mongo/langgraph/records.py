"""What the checkpoint savers store, as plain values (pure, no I/O): shared by every driver.

A checkpoint is stored as one record: its identity (thread, namespace, id, parent), the serde pair of the
checkpoint *without* ``channel_values`` and ``channel_versions``, the channel versions in plain form, the
serde pair of its metadata plus a queryable projection of the metadata's plain scalar keys, the values of
the channels that changed in it (one per ``(channel, version)``, written once, by the checkpoint that
introduced the version) and its pending writes. A value or write is either inline (the serde bytes) or a
reference to a large-value file (GridFS on MongoDB); the serde's ``(type, bytes)`` pair is never
interpreted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError

Version = str | int | float
"""A channel version as LangGraph hands it over (our own ``get_next_version`` makes strings)."""

Scalar = str | int | float
"""A metadata value the stores can match on the server."""


@dataclass(frozen=True)
class StoredValue:
    """A serde pair as stored: inline ``data``, or the id of a large-value file of ``size`` bytes."""

    type: str
    data: bytes | None = None
    file_id: Any = None
    size: int = 0

    @property
    def is_large(self) -> bool:
        return self.data is None


@dataclass(frozen=True)
class ChannelValue:
    """The value of one ``(channel, version)`` of a thread namespace."""

    channel: str
    version: Version
    value: StoredValue

    @property
    def key(self) -> str:
        return value_key(self.channel, self.version)


@dataclass(frozen=True)
class PendingWriteRecord:
    """One pending write of a task, attached to a checkpoint."""

    task_id: str
    task_path: str
    idx: int
    channel: str
    value: StoredValue

    @property
    def key(self) -> str:
        return write_key(self.task_id, self.idx)


@dataclass(frozen=True)
class CheckpointRecord:
    """One stored checkpoint (see the module docstring)."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    checkpoint: StoredValue
    channel_versions: tuple[tuple[str, Version], ...]
    metadata: StoredValue
    metadata_keys: tuple[tuple[str, Scalar], ...] = ()
    run_id: str | None = None
    values: tuple[ChannelValue, ...] = ()
    writes: tuple[PendingWriteRecord, ...] = ()
    fencing_token: int | None = None

    def value_keys(self) -> dict[str, tuple[str, Version]]:
        """Every ``(channel, version)`` this checkpoint reads, by value key."""
        return {value_key(c, v): (c, v) for c, v in self.channel_versions}

    def moved(self, thread_id: str) -> CheckpointRecord:
        """The same checkpoint on another thread (``copy_thread``)."""
        return replace(self, thread_id=thread_id, fencing_token=None)


@dataclass(frozen=True)
class ThreadInfo:
    """What the stores know about one thread (the CLI's ``threads``)."""

    thread_id: str
    checkpoints: int
    namespaces: tuple[str, ...]
    latest_checkpoint_id: str | None
    fencing_token: int | None = None
    expires_at: Any = None
    state: str = "live"


@dataclass(frozen=True)
class Relocation:
    """Values that must move into a surviving checkpoint before the checkpoints holding them are deleted."""

    checkpoint_id: str
    values: tuple[ChannelValue, ...] = field(default_factory=tuple)


def value_key(channel: str, version: Version) -> str:
    """One string per ``(channel, version)``, unambiguous for any channel name and version type."""
    if isinstance(version, bool) or not isinstance(version, str | int | float):
        raise InvalidArgumentError(f"channel version of {channel!r} must be str, int or float, got {version!r}")
    tag = "s" if isinstance(version, str) else "i" if isinstance(version, int) else "f"
    return f"{len(channel)}:{channel}{tag}{version!r}" if tag == "f" else f"{len(channel)}:{channel}{tag}{version}"


def write_key(task_id: str, idx: int) -> str:
    """The idempotency key of a pending write: ``(task_id, idx)``."""
    return f"{idx}:{task_id}"


def metadata_projection(metadata: Mapping[str, Any]) -> tuple[tuple[str, Scalar], ...]:
    """The top-level metadata entries the stores can pre-filter on: strings and finite numbers (``bool``
    as ``int``, which is how Python's ``==`` compares them)."""
    out: list[tuple[str, Scalar]] = []
    for key, value in metadata.items():
        scalar = _scalar(value)
        if isinstance(key, str) and scalar is not None:
            out.append((key, scalar))
    return tuple(out)


def filter_projection(filter: Mapping[str, Any]) -> tuple[tuple[str, Scalar], ...]:
    """The entries of a ``list(filter=...)`` the stores can match on the server (the rest, and every
    candidate, is checked again on the decoded metadata)."""
    for key in filter:
        if not isinstance(key, str):
            raise InvalidArgumentError(f"metadata filter keys must be str, got {type(key).__name__}: {key!r}")
    return metadata_projection(filter)


def _scalar(value: Any) -> Scalar | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return None


def metadata_matches(metadata: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """The base contract's filter semantics: every filter key equals the metadata's value."""
    return not filter or all(metadata.get(key) == value for key, value in filter.items())


def next_version(current: Version | None) -> str:
    """The version after ``current``: ``"<32-digit counter>.<16-digit random>"`` (sortable, and unique across
    forks, so a ``(channel, version)`` names one value for good)."""
    if current is None:
        number = 0
    elif isinstance(current, int):
        number = current
    elif isinstance(current, float):
        number = int(current)
    else:
        number = int(str(current).split(".")[0])
    return f"{number + 1:032}.{random.random():016}"


def is_unique_version(version: Version) -> bool:
    """True for versions in :func:`next_version`'s format (safe to cache by key: never reused)."""
    if not isinstance(version, str):
        return False
    head, dot, tail = version.partition(".")
    return bool(dot) and len(head) == 32 and head.isdigit() and len(tail) >= 8


def sort_writes(writes: Iterable[PendingWriteRecord]) -> list[PendingWriteRecord]:
    """Pending writes in ``writes_sort_key`` order: ``(task_path, task_id, idx)``."""
    return sorted(writes, key=lambda w: (w.task_path, w.task_id, w.idx))


def merge_writes(
    existing: Iterable[PendingWriteRecord], new: Iterable[PendingWriteRecord]
) -> tuple[PendingWriteRecord, ...]:
    """``put_writes`` semantics: a regular write (``idx >= 0``) is kept if its ``(task_id, idx)`` exists
    (first writer wins); a special-channel write (negative ``idx``, ``WRITES_IDX_MAP``) replaces it."""
    new = tuple(new)
    replaced = {w.key for w in new if w.idx < 0}
    kept = [w for w in existing if w.key not in replaced]
    present = {w.key for w in kept}
    for write in new:
        if write.idx < 0 or write.key not in present:
            kept.append(write)
            present.add(write.key)
    return tuple(kept)


def empty_value() -> StoredValue:
    """The stored form of a channel listed in ``new_versions`` without a value."""
    return StoredValue(n.LG_EMPTY_TYPE, b"")

# GENERATED from aimon_mongo/_async/langgraph/saver.py by scripts/gen_sync.py; do not edit.
"""The checkpoint saver's rules, over any :class:`CheckpointDriver`
(generated from the ``_async`` source).

Storage policy: a checkpoint is one record; the value of a channel is stored once per ``(thread,
namespace, channel, version)``, by the checkpoint whose ``new_versions`` introduced it, so unchanged
channels are never written again; a value above ``inline_limit`` bytes (or beyond ``inline_budget`` per
call) is a large-value file (GridFS on MongoDB) and the record keeps its id. Values are immutable per key,
so the saver keeps an LRU cache of their serde bytes (``value_cache_bytes``) for versions in its own
unique format. Pending writes live in their checkpoint's record.

Single writer per thread (the ``write_ownership`` capability proposed upstream, langgraph #8796):
:meth:`claim_write_ownership` takes the thread's next fencing token from the thread's own fence
(``max(fence + 1, lease token)``, one atomic step of the driver) and returns a writer bound to it, so a
claim supersedes the current owner at once; its writes are checked against the fence atomically with the
write. The thread's lease (from a :class:`~aimon_mongo.ports.SessionLeaseStore`) names the current
owner and how long it is alive: a superseding claim takes it over, a claim with ``supersede=False`` waits
for it to lapse. Writes without a writer are LangGraph's ordinary, unfenced writes.
"""

from __future__ import annotations

import builtins
import copy
import logging
import time
from collections import OrderedDict
from collections.abc import Iterator, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, Self, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from aimon_mongo import names as n
from aimon_mongo._sync.langgraph.driver import CheckpointDriver, Touch, drop_list
from aimon_mongo._sync.ports import SessionLeaseStore
from aimon_mongo.errors import InvalidArgumentError, StaleWriteOwnerError, WriteOwnershipError
from aimon_mongo.exported import exported_from
from aimon_mongo.langgraph.records import (
    ChannelValue,
    CheckpointRecord,
    PendingWriteRecord,
    Relocation,
    StoredValue,
    ThreadInfo,
    Version,
    filter_projection,
    is_unique_version,
    metadata_matches,
    metadata_projection,
    next_version,
    sort_writes,
)
from aimon_mongo.model import Lease
from aimon_mongo.validate import require_id, require_positive

log = logging.getLogger(__name__)

DEFAULT_INLINE_LIMIT = 64 * 1024
DEFAULT_INLINE_BUDGET = 4 * 1024 * 1024
DEFAULT_VALUE_CACHE_BYTES = 64 * 1024 * 1024
DEFAULT_OWNERSHIP_TTL = timedelta(seconds=30)
_TAKEOVER_ATTEMPTS = 20  # a superseding claim racing other claims for the thread's lease
_LIST_PAGE = 32
_List = builtins.list  # the class body defines a method named ``list`` (the sync twin's)


@dataclass(frozen=True)
class WriteOwnership:
    """What a writer holds on its thread: ``fencing_token`` (the thread's fence when it was claimed) fences
    every write it makes; ``lease`` is the thread's lease taken with the claim (its liveness)."""

    thread_id: str
    lease: Lease
    fencing_token: int


class _ValueCache:
    """LRU of serde pairs by ``(thread, namespace, value key)``, bounded in bytes."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[str, str, str], tuple[str, bytes]] = OrderedDict()
        self._size = 0

    def get(self, key: tuple[str, str, str]) -> tuple[str, bytes] | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: tuple[str, str, str], entry: tuple[str, bytes]) -> None:
        size = len(entry[1])
        if size > self.capacity or key in self._entries:
            return
        self._entries[key] = entry
        self._size += size
        while self._size > self.capacity:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._size -= len(dropped)

    def clear(self) -> None:
        self._entries.clear()
        self._size = 0


def _configurable(config: RunnableConfig | None, what: str) -> dict[str, Any]:
    if not isinstance(config, dict) or not isinstance(config.get("configurable"), dict):
        raise InvalidArgumentError(f"{what} must be a RunnableConfig with a 'configurable' mapping")
    return config["configurable"]


def _namespace(value: object, argument: str = "checkpoint_ns") -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{argument} must be a str, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidArgumentError(f"{argument} must not contain a NUL character, got {value!r}")
    return value


def _optional_id(value: object, argument: str) -> str | None:
    return None if value is None else require_id(value, argument)


def _config(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id}}


@exported_from("aimon_mongo.langgraph")
class CheckpointSaverBase(BaseCheckpointSaver[str]):
    """A LangGraph ``BaseCheckpointSaver`` over a checkpoint driver (see the module docstring).

    Keyword arguments: ``serde`` (LangGraph's; default ``JsonPlusSerializer``), ``leases`` (the session
    lease store that issues write ownership), ``node_id`` (the lease holder id of this process),
    ``ownership_ttl`` (lease span of a claim), ``ttl`` (thread retention; ``None`` keeps threads until
    deleted), ``refresh_on_read`` (reads refresh retention too), ``inline_limit`` / ``inline_budget`` (the
    large-value split), ``value_cache_bytes`` (``0`` disables the cache).
    """

    def __init__(
        self,
        driver: CheckpointDriver,
        *,
        serde: SerializerProtocol | None = None,
        leases: SessionLeaseStore | None = None,
        node_id: str = "langgraph",
        ownership_ttl: timedelta = DEFAULT_OWNERSHIP_TTL,
        ttl: timedelta | None = None,
        refresh_on_read: bool = False,
        inline_limit: int = DEFAULT_INLINE_LIMIT,
        inline_budget: int = DEFAULT_INLINE_BUDGET,
        value_cache_bytes: int = DEFAULT_VALUE_CACHE_BYTES,
    ) -> None:
        super().__init__(serde=serde)
        self._driver = driver
        self._leases = leases
        self.node_id = require_id(node_id, "node_id")
        self.ownership_ttl = require_positive(ownership_ttl, "ownership_ttl")
        self.ttl = None if ttl is None else require_positive(ttl, "ttl")
        self.refresh_on_read = bool(refresh_on_read)
        self.inline_limit = _non_negative(inline_limit, "inline_limit")
        self.inline_budget = _non_negative(inline_budget, "inline_budget")
        self._cache = _ValueCache(_non_negative(value_cache_bytes, "value_cache_bytes"))
        self._touched: dict[str, float] = {}
        self._elapsed: Callable[[], float] = time.monotonic  # when this saver last refreshed a thread
        self._owner: WriteOwnership | None = None

    # --- write ownership -----------------------------------------------------------------------------

    @property
    def write_ownership(self) -> WriteOwnership | None:
        """The ownership this writer holds (``None`` on a saver that is not a claimed writer)."""
        return self._owner

    def claim_write_ownership(
        self, thread_id: str, *, supersede: bool = True, wait: timedelta | None = None
    ) -> Self:
        """Take write ownership of ``thread_id``, superseding any current owner, and return a writer: a copy
        of this saver whose ``put`` / ``put_writes`` to ``thread_id`` are fenced by a new fencing token,
        higher than every earlier claim's. From then on the superseded writer's ``put`` / ``put_writes``
        raise :class:`StaleWriteOwnerError` (``is_stale_write_owner_error = True``) before anything is
        written, and its :meth:`check_write_ownership` raises it too.

        The claim also takes the thread's lease (``ownership_ttl``; held as ``node_id``), releasing a live
        holder's. ``supersede=False`` never takes a live lease over: the claim waits up to ``wait`` (none by
        default) for it to lapse or be released, then raises :class:`WriteOwnershipError` naming the
        holder."""
        thread_id = require_id(thread_id, "thread_id")
        if not isinstance(supersede, bool):
            raise InvalidArgumentError(f"supersede must be a bool, got {supersede!r}")
        if supersede and wait is not None:
            raise InvalidArgumentError("wait= applies only to supersede=False (a superseding claim never waits)")
        if self._leases is None:
            raise WriteOwnershipError("write ownership needs a lease store: pass leases= to the saver")
        key = n.LG_LEASE_PREFIX + thread_id
        lease = (self._take_over(key, thread_id) if supersede else self._wait_for(key, thread_id, wait))
        try:
            token = self._driver.claim_fence(thread_id, lease.fencing_token)
        except BaseException:
            self._leases.release(lease)
            raise
        writer = copy.copy(self)
        writer._owner = WriteOwnership(thread_id, lease, token)
        return writer

    def _take_over(self, key: str, thread_id: str) -> Lease:
        """The thread's lease, releasing a live holder's first (a superseding claim)."""
        assert self._leases is not None
        for _ in range(_TAKEOVER_ATTEMPTS):
            lease = self._leases.try_acquire(key, self.node_id, self.ownership_ttl)
            if lease is not None:
                return lease
            holder = self._leases.find_holder(key)
            if holder is not None:
                self._leases.release(holder)
        raise WriteOwnershipError(
            f"thread {thread_id!r}: its lease was taken by other claims {_TAKEOVER_ATTEMPTS} times in a row"
        )

    def _wait_for(self, key: str, thread_id: str, wait: timedelta | None) -> Lease:
        """The thread's lease once no live holder has it, waiting up to ``wait`` (``supersede=False``)."""
        assert self._leases is not None
        deadline = None if wait is None else time.monotonic() + require_positive(wait, "wait").total_seconds()
        while True:
            lease = self._leases.try_acquire(key, self.node_id, self.ownership_ttl)
            if lease is not None:
                return lease
            if deadline is None or time.monotonic() >= deadline:
                holder = self._leases.find_holder(key)
                owner = "another writer" if holder is None else f"holder {holder.holder_id!r} until {holder.expires_at}"
                raise WriteOwnershipError(f"thread {thread_id!r} is owned by {owner}")
            time.sleep(0.05)

    def check_write_ownership(self) -> None:
        """Raise :class:`StaleWriteOwnerError` if a later claim superseded this writer (no-op otherwise)."""
        owner = self._owner
        if owner is None:
            return
        fence = self._driver.fence(owner.thread_id)
        if fence is None or fence > owner.fencing_token:
            raise StaleWriteOwnerError(owner.thread_id, owner.fencing_token, fence)

    def extend_write_ownership(self, ttl: timedelta | None = None) -> bool:
        """Extend this writer's lease (``ownership_ttl`` by default); False when a later claim superseded
        this writer (or took its lapsed lease)."""
        owner = self._require_owner()
        assert self._leases is not None
        fence = self._driver.fence(owner.thread_id)
        if fence is None or fence > owner.fencing_token:
            return False
        return self._leases.extend(owner.lease, ttl or self.ownership_ttl)

    def release_write_ownership(self) -> None:
        """Give the lease up (best effort). The fence stays: this writer's later writes are still accepted
        until another claim succeeds."""
        owner = self._require_owner()
        assert self._leases is not None
        self._leases.release(owner.lease)

    def _require_owner(self) -> WriteOwnership:
        if self._owner is None:
            raise WriteOwnershipError("this saver is not a claimed writer (use claim_write_ownership)")
        return self._owner

    def _fence_for(self, thread_id: str) -> int | None:
        owner = self._owner
        if owner is None:
            return None
        if owner.thread_id != thread_id:
            raise InvalidArgumentError(
                f"this writer owns thread {owner.thread_id!r}; it cannot write thread {thread_id!r}"
            )
        return owner.fencing_token

    # --- retention -------------------------------------------------------------------------------------

    def _touch_for(self, thread_id: str, continuation: bool, fenced: bool) -> Touch | None:
        """The retention refresh a write carries: always when fenced (it is in the same transaction),
        otherwise at most once per ``ttl / 10`` per thread and saver."""
        if self.ttl is None:
            return None
        if not fenced:
            last = self._touched.get(thread_id)
            if last is not None and self._elapsed() - last < self.ttl.total_seconds() / 10:
                return None
        return Touch(self.ttl, continuation)

    def _touched_now(self, thread_id: str) -> None:
        if self.ttl is not None:
            if len(self._touched) > 10_000:
                self._touched.clear()
            self._touched[thread_id] = self._elapsed()

    def sweep_expired(self, limit: int = 1000) -> builtins.list[str]:
        """Delete (whole) every thread whose retention expired on the store's clock, up to ``limit``
        threads; returns their ids. Schedule it (or run ``aimon-mongo langgraph sweep``)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidArgumentError(f"limit must be a positive int, got {limit!r}")
        swept = self._driver.sweep_expired(limit)
        if swept:
            self._cache.clear()
        return swept

    # --- reads -----------------------------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint ``config`` names, or the newest of its thread namespace; pending writes in
        ``writes_sort_key`` order."""
        conf = _configurable(config, "config")
        thread_id = require_id(conf.get("thread_id"), "thread_id")
        checkpoint_ns = _namespace(conf.get("checkpoint_ns", ""))
        checkpoint_id = _optional_id(conf.get("checkpoint_id"), "checkpoint_id")
        record = self._driver.get_checkpoint(thread_id, checkpoint_ns, checkpoint_id)
        if record is None:
            return None
        if self.refresh_on_read and self.ttl is not None:
            self._driver.touch(thread_id, Touch(self.ttl, continuation=True))
            self._touched_now(thread_id)
        values = self._resolve([record])
        return self._tuple(record, values[0])

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first, narrowed by the config's thread / namespace / checkpoint id, the
        metadata ``filter`` (equality per key), ``before`` (a checkpoint config) and ``limit``. Each filter
        entry with a string or number value narrows on the store; every candidate is checked again on its
        decoded metadata."""
        thread_id = checkpoint_ns = checkpoint_id = before_id = None
        if config is not None:
            conf = _configurable(config, "config")
            if conf.get("thread_id") is not None:
                thread_id = require_id(conf["thread_id"], "thread_id")
            if conf.get("checkpoint_ns") is not None:
                checkpoint_ns = _namespace(conf["checkpoint_ns"])
            checkpoint_id = _optional_id(conf.get("checkpoint_id"), "checkpoint_id")
        if before is not None:
            before_id = _optional_id(_configurable(before, "before").get("checkpoint_id"), "before checkpoint_id")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InvalidArgumentError(f"limit must be an int, got {type(limit).__name__}")
        if filter is not None and not isinstance(filter, dict):
            raise InvalidArgumentError(f"filter must be a dict, got {type(filter).__name__}")
        if limit is not None and limit <= 0:
            return
        prefilter = filter_projection(filter or {})
        exact = len(prefilter) == len(filter or {})
        remaining = limit
        page: _List[tuple[CheckpointRecord, Any]] = []
        for record in self._driver.list_checkpoints(
            thread_id, checkpoint_ns, checkpoint_id, before_id, prefilter, limit if exact else None
        ):
            metadata = self.serde.loads_typed(_pair(record.metadata))
            if not metadata_matches(metadata, filter):
                continue
            page.append((record, metadata))
            if remaining is not None:
                remaining -= 1
            if len(page) >= _LIST_PAGE or remaining == 0:
                for item in self._page(page):
                    yield item
                page = []
            if remaining == 0:
                return
        for item in self._page(page):
            yield item

    def _page(self, page: Sequence[tuple[CheckpointRecord, Any]]) -> _List[CheckpointTuple]:
        if not page:
            return []
        records = [record for record, _ in page]
        values = self._resolve(records)
        return [
            self._tuple(record, resolved, metadata)
            for (record, metadata), resolved in zip(page, values, strict=True)
        ]

    def _resolve(self, records: Sequence[CheckpointRecord]) -> _List[dict[str, Any]]:
        """The channel values of each record: its own inline values, then the cache, then one store query
        for every value introduced by an earlier checkpoint (per namespace)."""
        wanted: dict[tuple[str, str], set[str]] = {}
        plans: _List[dict[str, tuple[str, Version, StoredValue | tuple[str, bytes] | None]]] = []
        for record in records:
            own = {v.key: v.value for v in record.values}
            plan: dict[str, tuple[str, Version, StoredValue | tuple[str, bytes] | None]] = {}
            for key, (channel, version) in record.value_keys().items():
                if key in own:
                    plan[key] = (channel, version, own[key])
                    continue
                cached = self._cache.get((record.thread_id, record.checkpoint_ns, key))
                plan[key] = (channel, version, cached)
                if cached is None:
                    wanted.setdefault((record.thread_id, record.checkpoint_ns), set()).add(key)
            plans.append(plan)
        found: dict[tuple[str, str], dict[str, builtins.list[tuple[str, StoredValue]]]] = {}
        for (thread_id, checkpoint_ns), keys in wanted.items():
            found[(thread_id, checkpoint_ns)] = self._driver.find_values(thread_id, checkpoint_ns, sorted(keys))
        out: _List[dict[str, Any]] = []
        for record, plan in zip(records, plans, strict=True):
            holders = found.get((record.thread_id, record.checkpoint_ns), {})
            values: dict[str, Any] = {}
            for key, (channel, version, source) in plan.items():
                if source is None:
                    source = _nearest(holders.get(key, []), record.checkpoint_id)
                    if source is None:
                        log.debug("thread %r: no stored value for channel %r", record.thread_id, channel)
                        continue
                pair = self._pair_of(record, key, version, source)
                if pair[0] != n.LG_EMPTY_TYPE:
                    values[channel] = self.serde.loads_typed(pair)
            out.append(values)
        return out

    def _pair_of(
        self, record: CheckpointRecord, key: str, version: Version, source: StoredValue | tuple[str, bytes]
    ) -> tuple[str, bytes]:
        if isinstance(source, tuple):
            return source
        pair = (source.type, source.data) if source.data is not None else None
        cache_key = (record.thread_id, record.checkpoint_ns, key)
        if pair is None:
            cached = self._cache.get(cache_key)
            pair = cached if cached is not None else (source.type, self._driver.get_large(source.file_id))
        if is_unique_version(version):
            self._cache.put(cache_key, pair)
        return pair

    def _tuple(self, record: CheckpointRecord, values: dict[str, Any], metadata: Any = None) -> CheckpointTuple:
        skeleton = self.serde.loads_typed(_pair(record.checkpoint))
        checkpoint = cast(
            Checkpoint, {**skeleton, "channel_values": values, "channel_versions": dict(record.channel_versions)}
        )
        writes = []
        for write in sort_writes(record.writes):
            pair = (
                (write.value.type, write.value.data)
                if write.value.data is not None
                else (write.value.type, self._driver.get_large(write.value.file_id))
            )
            writes.append((write.task_id, write.channel, self.serde.loads_typed(pair)))
        parent = record.parent_checkpoint_id
        return CheckpointTuple(
            config=_config(record.thread_id, record.checkpoint_ns, record.checkpoint_id),
            checkpoint=checkpoint,
            metadata=self.serde.loads_typed(_pair(record.metadata)) if metadata is None else metadata,
            parent_config=None if parent is None else _config(record.thread_id, record.checkpoint_ns, parent),
            pending_writes=writes,
        )

    # --- writes ----------------------------------------------------------------------------------------

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint: its record plus the values of the channels in ``new_versions`` (unchanged
        channels are not written again). Through a claimed writer the write is fenced."""
        conf = _configurable(config, "config")
        thread_id = require_id(conf.get("thread_id"), "thread_id")
        checkpoint_ns = _namespace(conf.get("checkpoint_ns", ""))
        parent_id = _optional_id(conf.get("checkpoint_id"), "checkpoint_id")
        if not isinstance(checkpoint, dict):
            raise InvalidArgumentError(f"checkpoint must be a dict, got {type(checkpoint).__name__}")
        checkpoint_id = require_id(checkpoint.get("id"), "checkpoint id")
        fence = self._fence_for(thread_id)
        skeleton: dict[str, Any] = dict(checkpoint)
        channel_values: dict[str, Any] = skeleton.pop("channel_values", None) or {}
        versions = dict(skeleton.pop("channel_versions", None) or {})
        for channel, version in new_versions.items():
            versions.setdefault(channel, version)
        full_metadata = get_checkpoint_metadata(config, metadata)
        pairs = {
            channel: (
                self.serde.dumps_typed(channel_values[channel]) if channel in channel_values else (n.LG_EMPTY_TYPE, b"")
            )
            for channel in new_versions
        }
        if fence is not None and self._any_large(pairs.values()):
            self.check_write_ownership()  # refuse before the large values are uploaded
        stored = self._store_values(thread_id, checkpoint_ns, [pairs[c] for c in new_versions])
        values = tuple(
            ChannelValue(channel, version, value)
            for (channel, version), value in zip(new_versions.items(), stored, strict=True)
        )
        run_id = full_metadata.get("run_id")
        record = CheckpointRecord(
            thread_id=thread_id,
            checkpoint_ns=checkpoint_ns,
            checkpoint_id=checkpoint_id,
            parent_checkpoint_id=parent_id,
            checkpoint=_stored(self.serde.dumps_typed(skeleton)),
            channel_versions=tuple((str(c), v) for c, v in versions.items()),
            metadata=_stored(self.serde.dumps_typed(full_metadata)),
            metadata_keys=metadata_projection(full_metadata),
            run_id=run_id if isinstance(run_id, str) else None,
            values=values,
            fencing_token=fence,
        )
        touch = self._touch_for(thread_id, continuation=parent_id is not None, fenced=fence is not None)
        try:
            self._driver.insert_checkpoint(record, fence, touch)
        except BaseException:
            self._discard(drop_list(values))
            raise
        if touch is not None:
            self._touched_now(thread_id)
        for value, pair in zip(values, (pairs[c] for c in new_versions), strict=True):
            if is_unique_version(value.version):
                self._cache.put((thread_id, checkpoint_ns, value.key), pair)
        return _config(thread_id, checkpoint_ns, checkpoint_id)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Attach pending writes to a checkpoint: idempotent on ``(task_id, idx)`` (the special channels of
        ``WRITES_IDX_MAP`` take their negative index and replace an earlier write). Through a claimed writer
        the write is fenced."""
        conf = _configurable(config, "config")
        thread_id = require_id(conf.get("thread_id"), "thread_id")
        checkpoint_ns = _namespace(conf.get("checkpoint_ns", ""))
        checkpoint_id = require_id(conf.get("checkpoint_id"), "checkpoint_id")
        task_id = require_id(task_id, "task_id")
        task_path = _namespace(task_path, "task_path")
        fence = self._fence_for(thread_id)
        channels: _List[str] = []
        for item in writes:
            if not isinstance(item, tuple | builtins.list) or len(item) != 2 or not isinstance(item[0], str):
                raise InvalidArgumentError("writes must be (channel, value) pairs with a str channel")
            channels.append(item[0])
        pairs = [self.serde.dumps_typed(value) for _, value in writes]
        if fence is not None and self._any_large(pairs):
            self.check_write_ownership()
        stored = self._store_values(thread_id, checkpoint_ns, pairs)
        records = tuple(
            PendingWriteRecord(task_id, task_path, WRITES_IDX_MAP.get(channel, idx), channel, value)
            for idx, (channel, value) in enumerate(zip(channels, stored, strict=True))
        )
        touch = self._touch_for(thread_id, continuation=True, fenced=fence is not None)
        try:
            self._driver.add_writes(thread_id, checkpoint_ns, checkpoint_id, records, fence, touch)
        except BaseException:
            self._discard(drop_list(records))
            raise
        if touch is not None:
            self._touched_now(thread_id)

    def _any_large(self, pairs: Any) -> bool:
        total = 0
        for _, data in pairs:
            total += len(data)
            if len(data) > self.inline_limit or total > self.inline_budget:
                return True
        return False

    def _store_values(
        self, thread_id: str, checkpoint_ns: str, pairs: Sequence[tuple[str, bytes]]
    ) -> _List[StoredValue]:
        """Inline each pair, or upload it as a large value: above ``inline_limit``, or once the call's
        inline bytes would pass ``inline_budget`` (largest values go out first)."""
        large = {i for i, (_, data) in enumerate(pairs) if len(data) > self.inline_limit}
        budget = sum(len(data) for i, (_, data) in enumerate(pairs) if i not in large)
        for i in sorted(range(len(pairs)), key=lambda i: -len(pairs[i][1])):
            if budget <= self.inline_budget:
                break
            if i not in large:
                large.add(i)
                budget -= len(pairs[i][1])
        out: _List[StoredValue] = []
        uploaded: _List[Any] = []
        try:
            for i, (type_, data) in enumerate(pairs):
                if i in large:
                    file_id = self._driver.put_large(thread_id, checkpoint_ns, data)
                    uploaded.append(file_id)
                    out.append(StoredValue(type_, None, file_id, len(data)))
                else:
                    out.append(StoredValue(type_, data, None, len(data)))
        except BaseException:
            self._discard(uploaded)
            raise
        return out

    def _discard(self, file_ids: Sequence[Any]) -> None:
        if not file_ids:
            return
        try:
            self._driver.delete_large(file_ids)
        except Exception:  # the files belong to no checkpoint; deleting the thread removes them too
            log.warning("could not remove %d unreferenced large-value files", len(file_ids))

    # --- deletes, copies, prune ---------------------------------------------------------------------

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, pending write and value of the thread (its ownership fence stays)."""
        thread_id = require_id(thread_id, "thread_id")
        self._driver.delete_thread(thread_id)
        self._cache.clear()

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and their writes) whose metadata ``run_id`` is listed. Values that
        surviving checkpoints still read are moved into them first, so no survivor loses a channel."""
        if isinstance(run_ids, str):
            raise InvalidArgumentError("run_ids must be a sequence of str, not one str")
        ids = [require_id(run_id, "run_id") for run_id in run_ids]
        if not ids:
            return
        doomed: dict[str, set[str]] = {}
        for thread_id, _, checkpoint_id in self._driver.checkpoints_of_runs(ids):
            doomed.setdefault(thread_id, set()).add(checkpoint_id)
        for thread_id, checkpoint_ids in doomed.items():
            self._delete_some(thread_id, checkpoint_ids)
        self._cache.clear()

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint of the source thread (every namespace, the whole parent chain, pending
        writes and values; large values are copied, not shared) to the target thread."""
        source = require_id(source_thread_id, "source_thread_id")
        target = require_id(target_thread_id, "target_thread_id")
        if source == target:
            raise InvalidArgumentError(f"source and target thread are the same: {source!r}")
        copies = []
        for record in self._driver.thread_checkpoints(source):
            values = []
            for v in record.values:
                values.append(
                    ChannelValue(v.channel, v.version, self._copy_value(target, record.checkpoint_ns, v.value))
                )
            writes = []
            for w in record.writes:
                value = self._copy_value(target, record.checkpoint_ns, w.value)
                writes.append(PendingWriteRecord(w.task_id, w.task_path, w.idx, w.channel, value))
            copies.append(replace(record.moved(target), values=tuple(values), writes=tuple(writes)))
        if copies:
            self._driver.insert_copies(copies)

    def _copy_value(self, thread_id: str, checkpoint_ns: str, value: StoredValue) -> StoredValue:
        if not value.is_large:
            return value
        data = self._driver.get_large(value.file_id)
        return StoredValue(value.type, None, self._driver.put_large(thread_id, checkpoint_ns, data), value.size)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``"keep_latest"``: keep the newest checkpoint of every namespace (with its pending writes and
        every value it reads), plus, when its metadata carries ``counters_since_delta_snapshot``
        (DeltaChannel, beta), the ancestors back to the oldest delta snapshot it counts from;
        ``"delete"``: delete the threads."""
        if isinstance(thread_ids, str):
            raise InvalidArgumentError("thread_ids must be a sequence of str, not one str")
        if strategy not in ("keep_latest", "delete"):
            raise InvalidArgumentError(f"strategy must be 'keep_latest' or 'delete', got {strategy!r}")
        for thread_id in [require_id(t, "thread_id") for t in thread_ids]:
            if strategy == "delete":
                self._driver.delete_thread(thread_id)
                continue
            records = self._driver.thread_checkpoints(thread_id)
            keep: set[str] = set()
            by_ns: dict[str, dict[str, CheckpointRecord]] = {}
            for record in records:
                by_ns.setdefault(record.checkpoint_ns, {})[record.checkpoint_id] = record
            for chain in by_ns.values():
                latest = chain[max(chain)]
                keep.update(self._kept_chain(latest, chain))
            doomed = {r.checkpoint_id for r in records if r.checkpoint_id not in keep}
            if doomed:
                self._delete_some(thread_id, doomed, records)
        self._cache.clear()

    def _kept_chain(self, latest: CheckpointRecord, chain: dict[str, CheckpointRecord]) -> set[str]:
        """The latest checkpoint and, for DeltaChannel metadata, its ancestors back to the snapshot."""
        kept = {latest.checkpoint_id}
        metadata = self.serde.loads_typed(_pair(latest.metadata))
        counters = metadata.get("counters_since_delta_snapshot") if isinstance(metadata, dict) else None
        depth = 0
        if isinstance(counters, dict):
            for value in counters.values():
                if isinstance(value, tuple | builtins.list) and len(value) == 2 and isinstance(value[1], int):
                    depth = max(depth, value[1])
        current = latest
        while depth > 0 and current.parent_checkpoint_id in chain:
            current = chain[current.parent_checkpoint_id]
            kept.add(current.checkpoint_id)
            depth -= 1
        return kept

    def _delete_some(
        self, thread_id: str, doomed: set[str], records: Sequence[CheckpointRecord] | None = None
    ) -> None:
        """Delete checkpoints of one thread, first moving every value a survivor reads into the oldest
        survivor (of the same namespace) that reads it."""
        if records is None:
            records = self._driver.thread_checkpoints(thread_id)
        by_ns: dict[str, _List[CheckpointRecord]] = {}
        for record in records:
            by_ns.setdefault(record.checkpoint_ns, []).append(record)
        for checkpoint_ns, chain in by_ns.items():
            gone = [r for r in chain if r.checkpoint_id in doomed]
            if not gone:
                continue
            survivors = sorted((r for r in chain if r.checkpoint_id not in doomed), key=lambda r: r.checkpoint_id)
            held_by_survivors = {v.key for r in survivors for v in r.values}
            dying = {v.key: v for r in sorted(gone, key=lambda r: r.checkpoint_id) for v in r.values}
            moves: dict[str, _List[ChannelValue]] = {}
            moved_keys: set[str] = set()
            for survivor in survivors:
                for key in survivor.value_keys():
                    if key in dying and key not in held_by_survivors and key not in moved_keys:
                        moves.setdefault(survivor.checkpoint_id, []).append(dying[key])
                        moved_keys.add(key)
            kept_files = {dying[k].value.file_id for k in moved_keys if dying[k].value.is_large}
            drop = [f for r in gone for f in drop_list([*r.values, *r.writes]) if f not in kept_files]
            self._driver.delete_checkpoints(
                thread_id,
                checkpoint_ns,
                [r.checkpoint_id for r in gone],
                [Relocation(cid, tuple(vals)) for cid, vals in moves.items()],
                drop,
            )

    # --- browsing (the CLI) ------------------------------------------------------------------------------

    def threads(self, limit: int = 100) -> builtins.list[ThreadInfo]:
        """Threads with stored checkpoints, most recently written first (for browsing)."""
        return self._driver.threads(limit)

    def find_checkpoint(self, checkpoint_id: str, thread_id: str | None = None) -> CheckpointRecord | None:
        """The stored record of a checkpoint found by id alone (any thread and namespace unless
        ``thread_id`` is given), without decoding it (browsing)."""
        return self._driver.find_checkpoint(
            require_id(checkpoint_id, "checkpoint_id"), _optional_id(thread_id, "thread_id")
        )

    def history(
        self, thread_id: str, checkpoint_ns: str | None = None, limit: int | None = None
    ) -> builtins.list[CheckpointRecord]:
        """The stored records of a thread's checkpoints, newest first, without decoding them (browsing)."""
        thread_id = require_id(thread_id, "thread_id")
        ns = None if checkpoint_ns is None else _namespace(checkpoint_ns)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InvalidArgumentError(f"limit must be a positive int, got {limit!r}")
        return [r for r in self._driver.list_checkpoints(thread_id, ns, None, None, (), limit)]

    def stored_record(self, config: RunnableConfig) -> CheckpointRecord | None:
        """The stored record of a checkpoint (sizes, large-value ids) without decoding it."""
        conf = _configurable(config, "config")
        return self._driver.get_checkpoint(
            require_id(conf.get("thread_id"), "thread_id"),
            _namespace(conf.get("checkpoint_ns", "")),
            _optional_id(conf.get("checkpoint_id"), "checkpoint_id"),
        )

    def get_next_version(self, current: str | None, channel: None = None) -> str:
        """``"<32-digit counter>.<16-digit random>"``: increasing, and unique across forks."""
        return next_version(current)


def _non_negative(value: object, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgumentError(f"{argument} must be an int >= 0, got {value!r}")
    return value


def _stored(pair: tuple[str, bytes]) -> StoredValue:
    return StoredValue(pair[0], pair[1], None, len(pair[1]))


def _pair(value: StoredValue) -> tuple[str, bytes]:
    return (value.type, value.data or b"")


def _nearest(holders: Sequence[tuple[str, StoredValue]], checkpoint_id: str) -> StoredValue | None:
    """The value held by the newest checkpoint not after ``checkpoint_id`` (else the oldest after it)."""
    if not holders:
        return None
    before = [h for h in holders if h[0] <= checkpoint_id]
    if before:
        return max(before, key=lambda h: h[0])[1]
    return min(holders, key=lambda h: h[0])[1]

"""Redis key, channel and SCAN-pattern builders (pure; no I/O).

Every key is built here from a configured prefix and an already validated id, so a store never formats a
key itself. Default layout (reference §4.1; the prefixes' inconsistency with each other is frozen)::

    aimon:inbox:<id>:NOW|NEXT|LATER           inbox streams, field "p" = envelope JSON
    aimon:inbox:<id>:quarantine               ours: stream of entries that could not be decoded
    aimon:inbox:<id>:claims                   ours: claimed entries, "<tier>:<stream id>" -> "<token>:<attempts>"
    aimon:conv:lock:<id>                      lease, "<holder>:<token>" with PX
    aimon:conv:lock:fence:<id>                fencing counter (max(counter + 1, TIME ms x 1024), never expires)
    aimon:conv:control:<id>                   pub/sub: INTERRUPT EVICT YIELD MESSAGE_ENQUEUED TURN_RESULT
    aimon:conv:events:<id>                    pub/sub: EVENT STATUS
    aimon:conv:idem:<key>                     idempotency entry JSON with PX
    aimon:subagent:task:<taskId>              background task JSON (+ set aimon:subagent:task:index)
    aimon:session:record:<id>                 session record hash
    aimon:session:segment:{s:<id>}:data       segment hash (segment id -> JSON)
    aimon:session:segment:{s:<id>}:created    segment hash (segment id -> epoch millis)
    aimon:session:fence:{s:<id>}              ours: highest fencing token accepted for record/segment writes

SCAN patterns escape the glob characters of the prefixes, and ids are never put into a pattern, so an id
such as ``*`` or ``a[bc]`` matches nothing but its own keys.

The opt-in **cluster layout** (``RedisKeys(prefixes, cluster=True)``, for deployments with only Python
nodes: reference nodes cannot read it) writes every session-scoped id as the hash tag ``{s:<id>}`` the
frozen segment keys already carry, so all keys of one session share a Redis Cluster slot and every
multi-key script touches one slot; background tasks share the tag ``{tasks}`` with their index set::

    aimon:inbox:{s:<id>}:NOW|NEXT|LATER|quarantine|claims
    aimon:conv:lock:{s:<id>}   aimon:conv:lock:fence:{s:<id>}
    aimon:conv:control:{s:<id>}   aimon:conv:events:{s:<id>}      (sharded pub/sub channels)
    aimon:session:record:{s:<id>}
    aimon:subagent:task:{tasks}:<taskId>   aimon:subagent:task:{tasks}:index
    (idempotency entries, segments and the write fence: as in the default layout)

Redis hashes the text between the first ``{`` and the first ``}`` after it, so an id holding ``}`` still
maps all its keys to one slot (the tag ends early, the same way for each key). The prefixes of a cluster
layout may not contain ``{`` or ``}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import ClassVar

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.model.priority import Priority
from aimon_mongo.name_set import NameSet
from aimon_mongo.validate import require_id

_GLOB_SPECIAL = re.compile(r"([\\*?\[\]])")


def glob_escape(text: str) -> str:
    """``text`` with the Redis glob characters (``* ? [ ] \\``) escaped, for ``SCAN MATCH``."""
    return _GLOB_SPECIAL.sub(r"\\\1", text)


def refuse_braces(role: str, value: str, where: str) -> None:
    """:class:`InvalidArgumentError` when the prefix ``value`` of ``role`` holds ``{`` or ``}`` (a hash tag in a
    prefix would move the key's slot); ``where`` ends the message (``" in the cluster layout"``)."""
    if "{" in value or "}" in value:
        raise InvalidArgumentError(f"key_prefixes.{role} must not contain '{{' or '}}'{where}, got {value!r}")


@dataclass(frozen=True)
class RedisKeyPrefixes(NameSet):
    """The configurable prefixes; the defaults are the frozen literals every build shares.

    ``lock`` is the lease store's prefix and ``signals`` the signal bus's (both ``aimon:conv`` by
    default, as two separate settings in the reference). ``segments`` and ``fences`` may not contain
    ``{`` or ``}`` (their keys carry a hash tag). :meth:`~aimon_mongo.name_set.NameSet.of` takes a partial
    mapping of role → prefix.
    """

    what: ClassVar[str] = "key prefix"
    argument: ClassVar[str] = "key_prefixes"

    inbox: str = n.REDIS_INBOX_PREFIX
    lock: str = n.REDIS_CONV_PREFIX
    signals: str = n.REDIS_CONV_PREFIX
    idempotency: str = n.REDIS_IDEMPOTENCY_PREFIX
    tasks: str = n.REDIS_BACKGROUND_TASK_PREFIX
    records: str = n.REDIS_SESSION_RECORD_PREFIX
    segments: str = n.REDIS_SEGMENT_PREFIX
    fences: str = n.REDIS_SESSION_FENCE_PREFIX

    def check(self, role: str, value: str) -> None:
        require_id(value, f"key_prefixes.{role}")
        if role in ("segments", "fences"):  # their keys carry a hash tag
            refuse_braces(role, value, "")

    def under(self, root: str) -> RedisKeyPrefixes:
        """Every prefix moved under ``root`` (``root:aimon:inbox`` ...), e.g. one namespace per test run."""
        require_id(root, "root")
        return replace(self, **{role: f"{root}:{getattr(self, role)}" for role in self.roles()})


CLUSTER_TASK_TAG = "{tasks}"
"""The hash tag every background-task key carries in the cluster layout (with the index set: one slot)."""


class RedisKeys:
    """Builds every key and channel of one backend bundle from its prefixes (``cluster``: the cluster layout)."""

    def __init__(self, prefixes: RedisKeyPrefixes | None = None, *, cluster: bool = False) -> None:
        self.prefixes = prefixes if prefixes is not None else RedisKeyPrefixes()
        if not isinstance(cluster, bool):
            raise InvalidArgumentError(f"cluster must be a bool, got {type(cluster).__name__}")
        self.cluster = cluster
        if cluster:
            for role in self.prefixes.roles():
                refuse_braces(role, getattr(self.prefixes, role), " in the cluster layout")
        self._open = n.REDIS_HASH_TAG_OPEN if cluster else ""
        self._close = n.REDIS_HASH_TAG_CLOSE if cluster else ""

    def _sid(self, session_id: str) -> str:
        """The session id as it appears in a session-scoped key: bare, or as the hash tag ``{s:<id>}``."""
        return f"{self._open}{require_id(session_id, 'session_id')}{self._close}"

    # --- inbox ---
    def inbox_stream(self, session_id: str, priority: Priority) -> str:
        return f"{self.prefixes.inbox}:{self._sid(session_id)}:{priority.name}"

    def inbox_streams(self, session_id: str, max_priority: Priority = Priority.LATER) -> list[str]:
        """The tier streams ``NOW`` .. ``max_priority``, in priority order."""
        return [self.inbox_stream(session_id, p) for p in Priority if p <= max_priority]

    def quarantine(self, session_id: str) -> str:
        return f"{self.prefixes.inbox}:{self._sid(session_id)}:{n.REDIS_QUARANTINE_SUFFIX}"

    def claims(self, session_id: str) -> str:
        """The hash of the session's claimed entries (acknowledged delivery); one slot with its streams."""
        return f"{self.prefixes.inbox}:{self._sid(session_id)}:{n.REDIS_CLAIMS_SUFFIX}"

    def session_of_tier_stream(self, key: str) -> str | None:
        """The session of a tier stream key, or ``None`` for a key of another form."""
        for priority in Priority:
            found = _between(key, f"{self.prefixes.inbox}:{self._open}", f"{self._close}:{priority.name}")
            if found is not None:
                return found
        return None

    def quarantine_pattern(self) -> str:
        return f"{glob_escape(self.prefixes.inbox)}:{self._open}*{self._close}:{n.REDIS_QUARANTINE_SUFFIX}"

    def session_of_quarantine(self, key: str) -> str | None:
        return _between(key, f"{self.prefixes.inbox}:{self._open}", f"{self._close}:{n.REDIS_QUARANTINE_SUFFIX}")

    def inbox_scan_pattern(self) -> str:
        """``SCAN`` pattern of every session's inbox keys (tier streams and quarantine streams)."""
        return f"{glob_escape(self.prefixes.inbox)}:{self._open}*{self._close}:*"

    def session_of_inbox_key(self, key: str) -> str | None:
        """The session of a tier or quarantine stream key, or ``None`` for a key of another form."""
        for suffix in (*(p.name for p in Priority), n.REDIS_QUARANTINE_SUFFIX):
            found = _between(key, f"{self.prefixes.inbox}:{self._open}", f"{self._close}:{suffix}")
            if found is not None:
                return found
        return None

    # --- lease ---
    def lock_scan_pattern(self) -> str:
        """``SCAN`` pattern of every lease key and fencing counter (``<lock>:lock:*`` covers both)."""
        return f"{glob_escape(self.prefixes.lock)}:{n.REDIS_LOCK_SEGMENT}:*"

    def session_of_lock_key(self, key: str) -> str | None:
        """The session of a lease key or fencing counter key, or ``None`` for a key of another form (in
        the frozen layout a session id starting ``fence:`` reads as a counter: the layouts overlap)."""
        fence = _between(key, f"{self.prefixes.lock}:{n.REDIS_FENCE_SEGMENT}:{self._open}", self._close)
        if fence is not None:
            return fence
        return _between(key, f"{self.prefixes.lock}:{n.REDIS_LOCK_SEGMENT}:{self._open}", self._close)

    def lock(self, session_id: str) -> str:
        return f"{self.prefixes.lock}:{n.REDIS_LOCK_SEGMENT}:{self._sid(session_id)}"

    def lock_fence(self, session_id: str) -> str:
        return f"{self.prefixes.lock}:{n.REDIS_FENCE_SEGMENT}:{self._sid(session_id)}"

    # --- signals ---
    def control_channel(self, session_id: str) -> str:
        return f"{self.prefixes.signals}:{n.REDIS_CONTROL_SEGMENT}:{self._sid(session_id)}"

    def events_channel(self, session_id: str) -> str:
        return f"{self.prefixes.signals}:{n.REDIS_EVENTS_SEGMENT}:{self._sid(session_id)}"

    def session_of_channel(self, channel: str) -> str | None:
        """The session id of a control or events channel, ``None`` for any other channel."""
        for segment in (n.REDIS_CONTROL_SEGMENT, n.REDIS_EVENTS_SEGMENT):
            sid = _between(channel, f"{self.prefixes.signals}:{segment}:{self._open}", self._close)
            if sid is not None:
                return sid
        return None

    # --- idempotency ---
    def idempotency(self, key: str) -> str:
        return f"{self.prefixes.idempotency}:{require_id(key, 'key')}"

    def idempotency_pattern(self) -> str:
        return f"{glob_escape(self.prefixes.idempotency)}:*"

    # --- background tasks ---
    def task(self, task_id: str) -> str:
        require_id(task_id, "task_id")
        if task_id == n.REDIS_INDEX_SUFFIX:
            raise InvalidArgumentError(
                f"task_id {task_id!r} is reserved on Redis: {self.task_index()!r} is the index set"
            )
        return f"{self._task_root()}:{task_id}"

    def task_index(self) -> str:
        return f"{self._task_root()}:{n.REDIS_INDEX_SUFFIX}"

    def _task_root(self) -> str:
        return f"{self.prefixes.tasks}:{CLUSTER_TASK_TAG}" if self.cluster else self.prefixes.tasks

    # --- session records ---
    def record(self, session_id: str) -> str:
        return f"{self.prefixes.records}:{self._sid(session_id)}"

    def record_pattern(self) -> str:
        return f"{glob_escape(self.prefixes.records)}:{self._open}*{self._close}"

    def session_of_record(self, key: str) -> str | None:
        return _between(key, f"{self.prefixes.records}:{self._open}", self._close)

    # --- log segments and the write fence ---
    def _tag(self, session_id: str) -> str:
        return f"{n.REDIS_HASH_TAG_OPEN}{require_id(session_id, 'session_id')}{n.REDIS_HASH_TAG_CLOSE}"

    def segment_data(self, session_id: str) -> str:
        return f"{self.prefixes.segments}:{self._tag(session_id)}:{n.REDIS_SEGMENT_DATA_SUFFIX}"

    def segment_created(self, session_id: str) -> str:
        return f"{self.prefixes.segments}:{self._tag(session_id)}:{n.REDIS_SEGMENT_CREATED_SUFFIX}"

    def segment_created_pattern(self) -> str:
        return (
            f"{glob_escape(self.prefixes.segments)}:{glob_escape(n.REDIS_HASH_TAG_OPEN)}*"
            f"{glob_escape(n.REDIS_HASH_TAG_CLOSE)}:{n.REDIS_SEGMENT_CREATED_SUFFIX}"
        )

    def session_of_segment_created(self, key: str) -> str | None:
        return _between(
            key,
            f"{self.prefixes.segments}:{n.REDIS_HASH_TAG_OPEN}",
            f"{n.REDIS_HASH_TAG_CLOSE}:{n.REDIS_SEGMENT_CREATED_SUFFIX}",
        )

    def write_fence(self, session_id: str) -> str:
        return f"{self.prefixes.fences}:{self._tag(session_id)}"


def _between(key: str, head: str, tail: str) -> str | None:
    """The part of ``key`` between ``head`` and ``tail``, or ``None`` when ``key`` is not of that form."""
    if not key.startswith(head) or not key.endswith(tail) or len(key) <= len(head) + len(tail):
        return None
    return key[len(head) : len(key) - len(tail)]

# GENERATED from aimon_mongo/_async/redis/leases.py by scripts/gen_sync.py; do not edit.
"""Lease store on Redis: lock ``<conv>:lock:<id>`` = ``<holder>:<token>`` with PX, and the never-expiring
fencing counter ``<conv>:lock:fence:<id>`` (reference §4.3). A token is ``max(counter + 1, server TIME ms x 1024)``
(hybrid: a promoted replica never reissues one; docs/guarantees.md, "Failover"). A grant raises the
session's write fence (``<fences>:{s:<id>}``) to its token in the same script; a holder re-acquiring its
own live lease gets a new token.

Holder ids may not contain ``:`` (the stamp's separator; the service refuses them, as the reference does),
declared as ``holder_id_forbidden_chars``. Expiry is Redis's own, set with ``PEXPIREAT`` to the server's ``TIME`` + ttl,
so the expiry a caller sees is exactly the one Redis enforces. ``extend`` revives a lapsed lock
whose token is still the counter's latest (nobody acquired since); ``release`` bumps the counter past the
released token so a released lease can never be revived.
"""

from __future__ import annotations

from datetime import timedelta

from aimon_mongo._sync.redis.connection import RedisIO
from aimon_mongo._sync.services.leases import LeaseStore
from aimon_mongo.codec.idempotency import ttl_millis
from aimon_mongo.codec.instant import from_epoch_millis
from aimon_mongo.exported import exported_from
from aimon_mongo.model.lease import Lease
from aimon_mongo.redis.keys import RedisKeys
from aimon_mongo.redis.replies import text
from aimon_mongo.services.composed import located
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.leases import Granted, Held


@exported_from("aimon_mongo.redis")
class RedisLeaseDriver:
    """The lease primitives: one Lua script each over the lock and its fencing counter (see the module text)."""

    resurrects_lapsed = True
    holder_id_forbidden_chars = ":"

    def __init__(self, io: RedisIO, keys: RedisKeys) -> None:
        self._io = io
        self._keys = keys
        self.failures: Failures = io.guard

    def __repr__(self) -> str:
        return located(self, self._io.endpoint)

    def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        keys = [*self._pair(session_id), self._keys.write_fence(session_id)]
        reply = self._io.script("lease_acquire", keys, [holder_id, ttl_millis(ttl)])
        return None if reply is None else Granted(int(reply[0]), from_epoch_millis(reply[1]), taken_over=bool(reply[2]))

    def extend(self, lease: Lease, ttl: timedelta) -> bool:
        args = (_stamp(lease), ttl_millis(ttl), lease.fencing_token)
        return self._io.script("lease_extend", self._pair(lease.session_id), args) is not None

    def release(self, lease: Lease) -> None:
        self._io.script("lease_release", self._pair(lease.session_id), [_stamp(lease), lease.fencing_token])

    def find(self, session_id: str) -> Held | None:
        reply = self._io.script("lease_find", [self._keys.lock(session_id)])
        if reply is None:
            return None
        holder, _, token = text(reply[0], "lock value").rpartition(":")  # no ":" leaves no holder: unreadable
        return Held(holder, int(token) if token.isdigit() else 0, from_epoch_millis(reply[1]))

    def _pair(self, session_id: str) -> list[str]:
        return [self._keys.lock(session_id), self._keys.lock_fence(session_id)]


@exported_from("aimon_mongo.redis")
def RedisSessionLeaseStore(io: RedisIO, keys: RedisKeys) -> LeaseStore:
    """Holder election with fencing tokens that strictly increase per session (the lease service over
    :class:`RedisLeaseDriver`).

    A factory: the :class:`~aimon_mongo.services.LeaseStore` service over :class:`RedisLeaseDriver`."""
    return LeaseStore(RedisLeaseDriver(io, keys))


def _stamp(lease: Lease) -> str:
    return f"{lease.holder_id}:{lease.fencing_token}"

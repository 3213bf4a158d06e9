"""Lease store on Redis: lock ``<conv>:lock:<id>`` = ``<holder>:<token>`` with PX, and the never-expiring
fencing counter ``<conv>:lock:fence:<id>`` (reference §4.3). A token is ``max(counter + 1, server TIME ms x 1024)``
(hybrid: a promoted replica never reissues one; docs/guarantees.md, "Failover").

Holder ids may not contain ``:`` (refused with :class:`~aimon_mongo.errors.InvalidArgumentError`, as in
the reference; the frozen stamp format ``holder-token`` has no ``:`` in the holder), declared as
``holder_id_forbidden_chars``. Expiry is Redis's own, set with ``PEXPIREAT`` to the server's ``TIME`` + ttl,
so the expiry a caller sees is exactly the one Redis enforces. ``extend`` revives a lapsed lock
whose token is still the counter's latest (nobody acquired since); ``release`` bumps the counter past the
released token so a released lease can never be revived.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from aimon_mongo.codec.idempotency import ttl_millis
from aimon_mongo.errors import SessionLeaseError
from aimon_mongo.model.lease import Lease
from aimon_mongo.redis._async.connection import AsyncRedisIO
from aimon_mongo.redis.keys import RedisKeys, require_holder
from aimon_mongo.redis.replies import from_millis, text
from aimon_mongo.validate import require_id, require_lease, require_positive

log = logging.getLogger(__name__)


HOLDER_ID_FORBIDDEN_CHARS = ":"


class AsyncRedisSessionLeaseStore:
    """Holder election with fencing tokens that strictly increase per session (see the module text)."""

    resurrects_lapsed = True
    holder_id_forbidden_chars = HOLDER_ID_FORBIDDEN_CHARS

    def __init__(self, io: AsyncRedisIO, keys: RedisKeys) -> None:
        self._io = io
        self._keys = keys

    async def try_acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Lease | None:
        sid = require_id(session_id, "session_id")
        holder = require_holder(holder_id, "holder_id", HOLDER_ID_FORBIDDEN_CHARS, "the lock stamp's separator")
        millis = ttl_millis(require_positive(ttl, "ttl"))
        keys = [self._keys.lock(sid), self._keys.lock_fence(sid)]
        with self._io.guard(SessionLeaseError, f"lease acquire of session {sid!r}"):
            reply = await self._io.script("lease_acquire", keys, [holder, millis])
        if reply is None:
            return None
        token, expires = reply
        return Lease(session_id=sid, holder_id=holder, fencing_token=int(token), expires_at=from_millis(expires))

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        held = require_lease(lease)
        millis = ttl_millis(require_positive(ttl, "ttl"))
        keys = [self._keys.lock(held.session_id), self._keys.lock_fence(held.session_id)]
        stamp = f"{held.holder_id}:{held.fencing_token}"
        with self._io.guard(SessionLeaseError, f"lease extend of session {held.session_id!r}"):
            reply = await self._io.script("lease_extend", keys, [stamp, millis, held.fencing_token])
        return reply is not None

    async def release(self, lease: Lease) -> None:
        held = require_lease(lease)
        keys = [self._keys.lock(held.session_id), self._keys.lock_fence(held.session_id)]
        stamp = f"{held.holder_id}:{held.fencing_token}"
        try:
            with self._io.guard(SessionLeaseError, f"lease release of session {held.session_id!r}"):
                await self._io.script("lease_release", keys, [stamp, held.fencing_token])
        except Exception as exc:  # best effort, as the contract says
            log.warning("best-effort lease release of session %s failed: %s", held.session_id, exc)

    async def find_holder(self, session_id: str) -> Lease | None:
        sid = require_id(session_id, "session_id")
        with self._io.guard(SessionLeaseError, f"lease lookup of session {sid!r}"):
            reply = await self._io.script("lease_find", [self._keys.lock(sid)])
        if reply is None:
            return None
        stamp, expires = text(reply[0], "lock value"), reply[1]
        holder, sep, token = stamp.rpartition(":")
        if not sep or not holder or not token.isdigit() or int(token) < 1:
            log.warning("lock of session %s holds an unreadable stamp; treating it as unheld", sid)
            return None
        return Lease(session_id=sid, holder_id=holder, fencing_token=int(token), expires_at=from_millis(expires))

"""The lease store, written once (async source; the sync twin is generated): holder election with fencing
tokens that strictly increase per session, across release and expiry, over an :class:`AsyncLeaseDriver`.

Policy here: a holder that re-acquires its own live lease gets a new, higher token (the older process of
the same holder id — a host restarted under the same node id — is fenced, instead of waiting out its
lease); the argument checks (ids, the holder characters a store's lock format reserves, a positive
ttl, a :class:`Lease` instance), the error family :class:`SessionLeaseError` and the words of its
messages, "release is best effort" (a failure is logged at WARN and never raised), an unreadable lock read
as unheld (logged at WARN), the refusal of a grant the replication guard could not confirm, and the
:class:`Lease` built from what the driver returns. The driver owns the atomicity: one grant per free
lock (or per lock held by the same holder id), the token counter that never goes backwards, the session's
write fence raised to the granted token in the same step (so no fenced write with a lower token passes once
the token is handed out), the holder-and-token CAS of extend and release.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Protocol

from aimon_mongo.errors import AimonStorageError, SessionLeaseError
from aimon_mongo.exported import exported_from
from aimon_mongo.model import Lease
from aimon_mongo.services.composed import composed_repr
from aimon_mongo.services.failures import Failures
from aimon_mongo.services.leases import TAKEN_OVER, Granted, Held
from aimon_mongo.telemetry.capabilities import traced
from aimon_mongo.validate import require_holder, require_id, require_lease, require_positive

log = logging.getLogger(__name__)


class AsyncLeaseDriver(Protocol):
    """A store's lease primitives, each atomic on the store (and each one round trip where the store can).

    Every time decision uses the store's clock. Arguments arrive checked.
    """

    failures: Failures
    resurrects_lapsed: bool
    """Whether :meth:`extend` revives a lapsed lease nobody has taken over since."""
    holder_id_forbidden_chars: str
    """Characters the store's lock format reserves; holder ids containing one are refused before a call."""

    async def acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Granted | None:
        """Grant the lease with the session's next token (higher than every token it ever granted, and at
        least the store clock's ms x 1024) unless a live lease of another holder exists (``None`` then); a
        live lease of ``holder_id`` itself is replaced. The session's write fence (the highest token its
        records and segments accept) is raised to the granted token in the same atomic step."""
        ...

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        """Set the expiry to store-now + ``ttl`` if the stored holder and token are the lease's (a CAS)."""
        ...

    async def release(self, lease: Lease) -> None:
        """Give the lease up if the stored holder and token are the lease's (a CAS); the counter survives."""
        ...

    async def find(self, session_id: str) -> Held | None:
        """The session's live lease as stored, or ``None``."""
        ...


@exported_from("aimon_mongo.services")
@traced("leases")
class AsyncLeaseStore:
    """:class:`~aimon_mongo.ports.AsyncSessionLeaseStore` over a driver (see the module text)."""

    resurrects_lapsed: bool
    """Whether ``extend`` revives a lapsed lease nobody has taken over yet (the driver's answer)."""
    holder_id_forbidden_chars: str
    """Characters a holder id may not contain on this store (the driver's; refused with
    ``InvalidArgumentError``)."""

    def __init__(self, driver: AsyncLeaseDriver) -> None:
        self._driver = driver
        self.resurrects_lapsed = driver.resurrects_lapsed
        self.holder_id_forbidden_chars = driver.holder_id_forbidden_chars

    __repr__ = composed_repr

    @property
    def driver(self) -> AsyncLeaseDriver:
        """The store's primitives (read-only; the driver tests use it)."""
        return self._driver

    async def try_acquire(self, session_id: str, holder_id: str, ttl: timedelta) -> Lease | None:
        """Take the lease if nobody else holds a live one; ``None`` when another holder does. A holder that
        already holds the live lease gets a new, higher token (its older lease, e.g. of a process restarted
        under the same holder id, is superseded: its ``extend`` fails). Once a token is returned, every
        fenced write (records, segments) with a lower token is refused, even before the new holder wrote.
        ``ttl`` must be positive. A grant the replication guard could not confirm raises
        :class:`SessionLeaseError` instead of handing out a token no standby may hold."""
        sid = require_id(session_id, "session_id")
        holder = require_holder(holder_id, "holder_id", self.holder_id_forbidden_chars, "its lock format reserves them")
        require_positive(ttl, "ttl")
        with self._driver.failures(SessionLeaseError, f"lease acquire of session {sid!r}"):
            granted = await self._driver.acquire(sid, holder, ttl)
        if granted is None:
            return None
        if not granted.replicated:
            raise SessionLeaseError(
                f"the lease acquisition on session {sid} committed on the primary, but its wait for the "
                "synchronous standby was cancelled: the token is not handed out (the lease lapses after its ttl)"
            )
        token, expires = granted.fencing_token, granted.expires_at
        TAKEN_OVER.set(granted.taken_over)
        return Lease(session_id=sid, holder_id=holder, fencing_token=token, expires_at=expires)

    async def extend(self, lease: Lease, ttl: timedelta) -> bool:
        """Push the expiry of ``lease`` to store-now + ``ttl`` if holder and token still match (a token CAS,
        not a liveness check). False when a newer lease exists."""
        held = require_lease(lease)
        require_positive(ttl, "ttl")
        with self._driver.failures(SessionLeaseError, f"lease extend of session {held.session_id!r}"):
            return await self._driver.extend(held, ttl)

    async def release(self, lease: Lease) -> None:
        """Give the lease up if holder and token still match. Best effort: backend errors are logged at
        WARN, never raised. The token counter survives."""
        held = require_lease(lease)
        try:
            with self._driver.failures(SessionLeaseError, f"lease release of session {held.session_id!r}"):
                await self._driver.release(held)
        except AimonStorageError as exc:
            log.warning("best-effort release of the lease on session %s failed: %s", held.session_id, exc)

    async def find_holder(self, session_id: str) -> Lease | None:
        """The live lease of the session (by the store's clock), or ``None``."""
        sid = require_id(session_id, "session_id")
        with self._driver.failures(SessionLeaseError, f"lease lookup of session {sid!r}"):
            found = await self._driver.find(sid)
        if found is None:
            return None
        if not found.holder_id or found.fencing_token < 1:
            log.warning("lock of session %s holds an unreadable lease; treating it as unheld", sid)
            return None
        holder, token, expires = found
        return Lease(session_id=sid, holder_id=holder, fencing_token=token, expires_at=expires)

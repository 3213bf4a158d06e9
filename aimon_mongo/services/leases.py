"""What a lease driver hands back (flavour-independent: the in-memory lease table, shared by both
flavours, returns these too). The service (:mod:`aimon_mongo._async.services.leases`) builds the
:class:`~aimon_mongo.model.Lease` from them."""

from __future__ import annotations

from contextvars import ContextVar
from datetime import datetime
from typing import NamedTuple

TAKEN_OVER: ContextVar[bool | None] = ContextVar("aimon_lease_taken_over", default=None)
"""Set by the lease service just before ``try_acquire`` returns a lease (:attr:`Granted.taken_over`), read
and cleared by its telemetry rule (the ``aimon.lease.handovers`` counter): since tokens carry a clock floor,
a token above 1 no longer says that the session had a lease before."""


class Granted(NamedTuple):
    """A lease the store granted: its fencing token and expiry (by the store's clock).

    ``replicated`` is False when the store committed the grant but could not confirm that the standbys
    its replication guard requires hold it (PostgreSQL: the commit's wait for the synchronous standby was
    cancelled); the service then refuses to hand the token out.
    """

    fencing_token: int
    expires_at: datetime
    replicated: bool = True
    taken_over: bool | None = None
    """Whether the session had a lease before (its token counter existed); ``None``: the driver cannot
    tell (telemetry then counts a token above 1 as a hand-over)."""


class Held(NamedTuple):
    """The live lease a store holds for a session, as stored. A token < 1 or an empty holder id means
    the store holds something it cannot read as a lease (the service treats it as unheld)."""

    holder_id: str
    fencing_token: int
    expires_at: datetime

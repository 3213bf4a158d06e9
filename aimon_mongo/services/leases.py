"""What a lease driver hands back (flavour-independent: the in-memory lease table, shared by both
flavours, returns these too). The service (:mod:`aimon_mongo._async.services.leases`) builds the
:class:`~aimon_mongo.model.Lease` from them."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple


class Granted(NamedTuple):
    """A lease the store granted: its fencing token and expiry (by the store's clock).

    ``replicated`` is False when the store committed the grant but could not confirm that the standbys
    its replication guard requires hold it (PostgreSQL: the commit's wait for the synchronous standby was
    cancelled); the service then refuses to hand the token out.
    """

    fencing_token: int
    expires_at: datetime
    replicated: bool = True


class Held(NamedTuple):
    """The live lease a store holds for a session, as stored. A token < 1 or an empty holder id means
    the store holds something it cannot read as a lease (the service treats it as unheld)."""

    holder_id: str
    fencing_token: int
    expires_at: datetime

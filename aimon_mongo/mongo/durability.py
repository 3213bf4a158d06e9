"""Write and read concern of the collections whose correctness depends on them (no I/O).

The lease, fence, inbox, record and idempotency protocols are correct across a replica-set failover only
when every write they report is *majority*-committed: with ``w: 1`` an acknowledged lease acquisition or
fence advance can be rolled back by an election, and the promoted primary then hands out the same
fencing token again (two live holders); an acknowledged ``findOneAndDelete`` of ``collect`` can be
rolled back and the entry handed out a second time; an acknowledged ``deliver`` can vanish.

So the MongoDB bundles and the GridFS filesystem take one ``durability`` option:

* ``"majority"`` (the default): those collections are used ``with_options(write_concern=w:majority,
  read_concern=majority)``, whatever the connection string says (retryable writes stay as the client has
  them: on, PyMongo's default);
* ``"as_configured"``: the database's own concerns are kept (an explicit opt-out, e.g. a benchmark on a
  single server); when its write concern is not ``majority`` the bundle logs one WARNING at construction
  naming the risk.

An unacknowledged write concern (``w: 0``) is refused at construction either way: the protocols read
their answers (a duplicate key, a matched count) from the server's reply.
"""

from __future__ import annotations

import logging
from typing import Any, Literal, TypeVar

from pymongo.read_concern import ReadConcern
from pymongo.write_concern import WriteConcern

from aimon_mongo.errors import InvalidArgumentError

log = logging.getLogger(__name__)

Durability = Literal["majority", "as_configured"]
MAJORITY: Durability = "majority"
AS_CONFIGURED: Durability = "as_configured"

MAJORITY_WRITE = WriteConcern("majority")
MAJORITY_READ = ReadConcern("majority")

T = TypeVar("T")

RISK = (
    "a replica-set failover can roll back acknowledged writes: a collected inbox entry handed out twice, a "
    "delivered entry lost, a record or fence write undone (fencing tokens keep their clock floor, so none "
    "is handed out twice while the new primary's clock is not behind)"
)


def require_durability(durability: object, what: str, write_concern: WriteConcern) -> Durability:
    """Check ``durability`` and the database's ``write_concern`` at construction of ``what`` (see the
    module docstring): raises :class:`InvalidArgumentError` for an unknown option or ``w: 0``, logs a
    WARNING for ``"as_configured"`` below majority."""
    if durability not in (MAJORITY, AS_CONFIGURED):
        raise InvalidArgumentError(f"durability must be 'majority' or 'as_configured', got {durability!r}")
    if not write_concern.acknowledged:
        raise InvalidArgumentError(
            f"{what}: the database's write concern {write_concern.document!r} is unacknowledged; "
            "the stores need the server's answer to every write"
        )
    if durability == AS_CONFIGURED and write_concern.document.get("w") != "majority":
        shown = write_concern.document or {"w": "server default"}
        log.warning("%s keeps write concern %s (durability='as_configured'): %s", what, shown, RISK)
    return durability


def durable(target: T, durability: Durability) -> T:
    """``target`` (a collection or database, sync or async) with majority write and read concern, or as it
    is for ``"as_configured"``."""
    if durability == AS_CONFIGURED:
        return target
    with_options: Any = target.with_options  # type: ignore[attr-defined]
    return with_options(write_concern=MAJORITY_WRITE, read_concern=MAJORITY_READ)  # type: ignore[no-any-return]

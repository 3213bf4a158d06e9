"""The one transaction helper (async source; the sync twin is generated): :func:`run_in_transaction`.

``body(session)`` runs in a transaction on ``client``, and what it returns is returned once the commit
succeeded. What is retried is what PyMongo labels as safe to retry, never a guess from an error's text:

* ``TransientTransactionError`` (a write conflict with another transaction, a primary stepping down, a
  connection lost before the commit): nothing was committed; the whole body runs again;
* ``UnknownTransactionCommitResult`` on the commit: the server may or may not have committed; the commit
  (not the body) is sent again, which the server answers for the transaction it already knows; when the
  attempts are used up that error is raised as it came (the outcome is unknown: not a conflict);
* :class:`RetryTransaction` raised by the body (it saw something another writer changed, e.g. a delete
  that removed fewer documents than it found): aborted, then the body runs again.

Each of these counts as one of ``attempts`` (optionally ``backoff`` seconds apart, doubling up to
:data:`MAX_BACKOFF`); when they are used up, :class:`TransactionConflict` is raised with the last failure
as its cause. A deployment that cannot run transactions (a standalone ``mongod``, a client without
sessions) raises :class:`TransactionsRefused` at the first attempt. Both are ``PyMongoError`` subclasses, so
the caller's error translation names them like any other driver failure. Everything else propagates as
raised, the transaction aborted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable  # sync: from collections.abc import Callable
from typing import Any, Final, TypeVar

from pymongo.asynchronous.client_session import AsyncClientSession
from pymongo.asynchronous.mongo_client import AsyncMongoClient
from pymongo.errors import ConfigurationError, OperationFailure, PyMongoError
from pymongo.read_concern import ReadConcern
from pymongo.write_concern import WriteConcern

from aimon_mongo._async_runtime import sleep

T = TypeVar("T")

TRANSIENT: Final = "TransientTransactionError"
UNKNOWN_COMMIT: Final = "UnknownTransactionCommitResult"
ILLEGAL_OPERATION: Final = 20
"""The code a standalone ``mongod`` answers a transaction with ("Transaction numbers are only allowed on a
replica set member or mongos")."""
MAX_BACKOFF: Final = 0.25
"""The longest pause between two attempts, in seconds."""


class TransactionConflict(PyMongoError):
    """Every attempt met a conflict (or an unknown commit result); ``__cause__`` is the last one."""


class TransactionsRefused(PyMongoError):
    """The deployment runs no transactions (a standalone server); ``__cause__`` is its answer."""


class RetryTransaction(Exception):
    """Raised by a transaction's body: abort and run the body again (counts as an attempt)."""


def refuses_transactions(exc: BaseException) -> bool:
    """True when ``exc`` says the deployment cannot run transactions at all (not a conflict, not a failure)."""
    if isinstance(exc, ConfigurationError):  # no sessions (PyMongo decides from the handshake)
        return True
    return isinstance(exc, OperationFailure) and exc.code == ILLEGAL_OPERATION


async def run_in_transaction(
    client: AsyncMongoClient[Any],
    body: Callable[[AsyncClientSession], Awaitable[T]],  # sync: body: Callable[[ClientSession], T],
    *,
    attempts: int,
    backoff: float = 0.0,
    read_concern: ReadConcern | None = None,
    write_concern: WriteConcern | None = None,
) -> T:
    """``body(session)`` in a transaction, committed; retried as the module text says, at most ``attempts``
    times in all."""
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"attempts must be a positive int, got {attempts!r}")
    delay = backoff
    last: BaseException | None = None
    for attempt in range(attempts):
        if attempt and delay > 0:
            await sleep(delay)
            delay = min(delay * 2, MAX_BACKOFF)
        try:
            async with client.start_session() as session:
                await session.start_transaction(read_concern=read_concern, write_concern=write_concern)
                try:
                    result = await body(session)
                except BaseException:
                    if session.in_transaction:
                        await session.abort_transaction()
                    raise
                left = attempts - attempt
                while True:
                    try:
                        await session.commit_transaction()
                        return result
                    except PyMongoError as exc:
                        left -= 1
                        if not exc.has_error_label(UNKNOWN_COMMIT) or exc.has_error_label(TRANSIENT) or left < 1:
                            raise
                        last = exc
        except RetryTransaction as exc:
            last = exc
        except PyMongoError as exc:
            if refuses_transactions(exc):
                raise TransactionsRefused(f"the deployment runs no transactions: {exc}") from exc
            if not exc.has_error_label(TRANSIENT):
                raise
            last = exc
    raise TransactionConflict(f"the transaction still conflicted after {attempts} attempts: {last}") from last

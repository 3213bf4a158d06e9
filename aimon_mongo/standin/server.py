"""Launcher of the mongoeco wire server (runs under Python >= 3.13 in the stand-in's own venv).

This file is executed by path with the stand-in interpreter; it must not import aimon_mongo. It prints
one line ``READY <uri>`` on stdout once the server listens, and exits cleanly on SIGTERM / SIGINT.
"""

import argparse
import asyncio
import signal
import sys


async def main() -> None:
    from mongoeco.engines.memory import MemoryEngine
    from mongoeco.engines.sqlite import SQLiteEngine
    from mongoeco.wire.proxy import AsyncMongoEcoProxyServer

    parser = argparse.ArgumentParser(description="mongoeco wire server for aimon-mongo tests")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--engine", choices=["memory", "sqlite"], default="memory")
    parser.add_argument("--path", default="mongoeco.sqlite")
    parser.add_argument("--dialect", default="7.0")
    parser.add_argument(
        "--refuse-transactions",
        action="store_true",
        help="answer every transaction the way a standalone mongod does (code 20, IllegalOperation)",
    )
    args = parser.parse_args()
    if args.refuse_transactions:
        _refuse_transactions()

    _end_refused_commits()
    _answer_retried_commits()
    engine = MemoryEngine() if args.engine == "memory" else SQLiteEngine(args.path)
    proxy = AsyncMongoEcoProxyServer(engine=engine, host=args.host, port=args.port, mongodb_dialect=args.dialect)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    address = await proxy.start()
    print("READY", address.uri, flush=True)
    try:
        await stop.wait()
    finally:
        await proxy.close()


def _end_refused_commits() -> None:
    """End a transaction whose commit the server refused (a write conflict), as mongod does.

    mongoeco 4.11 raises the conflict but keeps the refused transaction open on the session and its state
    registered in the engine; a later transaction's writes can then be attached to that stale state and be
    dropped by its commit, which still reports success. Aborting it on the refusal (the session's own abort)
    restores mongod's behaviour: a refused commit leaves nothing behind. The refusal also gets what mongod
    gives a write conflict, code 112 (``WriteConflict``) and the ``TransientTransactionError`` label, which is
    what a client retries on (mongoeco's has neither).
    """
    from mongoeco.errors import OperationFailure
    from mongoeco.session import ClientSession

    original = ClientSession.commit_transaction

    def commit_transaction(self):  # type: ignore[no-untyped-def]
        try:
            original(self)
        except OperationFailure as exc:
            if self.transaction_active:
                self.abort_transaction()
            if str(exc).startswith("Write conflict") and not exc.has_error_label("TransientTransactionError"):
                # mongod answers a write conflict with code 112 and this label, which is what clients retry on
                raise OperationFailure(str(exc), code=112, error_labels=("TransientTransactionError",)) from exc
            raise

    ClientSession.commit_transaction = commit_transaction


def _answer_retried_commits() -> None:
    """Answer a commit of a transaction that is no longer open the way mongod does.

    A client sends ``commitTransaction`` again when it did not hear the answer (a connection cut after the
    request left). mongoeco 4.11 answers every commit of a transaction that is not open with ``ok``, also
    when that transaction was refused (a write conflict ended it, see :func:`_end_refused_commits`): the
    client then believes a transaction committed that removed nothing. mongod remembers the session's last
    committed ``txnNumber``: a commit of that number is ``ok`` again; any other is error 251
    (``NoSuchTransaction``) with the ``TransientTransactionError`` label, so the client runs the whole
    transaction again.
    """
    from mongoeco.errors import OperationFailure
    from mongoeco.wire._session_identity import wire_session_key
    from mongoeco.wire.sessions import WireSessionStore

    original = WireSessionStore.commit_transaction
    committed: dict[str, object] = {}  # the last committed txnNumber of each session (mongod keeps it per session)

    def commit_transaction(self, body):  # type: ignore[no-untyped-def]
        key = wire_session_key(body.get("lsid"))
        raw = body.get("txnNumber")
        number = getattr(raw, "value", raw)  # mongoeco hands a BsonInt64 (its ``value``) or an int
        session = self._require_session(body)
        if session.transaction_active:
            reply = original(self, body)
            committed[key] = number
            return reply
        if committed.get(key) == number:
            return {"ok": 1.0}  # the answer to this commit was lost on the way: it committed
        raise OperationFailure(
            f"Transaction with {{ txnNumber: {number} }} has been aborted.",
            code=251,
            error_labels=("TransientTransactionError",),
        )

    WireSessionStore.commit_transaction = commit_transaction


def _refuse_transactions() -> None:
    """Make the server refuse a command that opens or continues a transaction, with the reply a standalone
    mongod gives, before it touches any data (what a client's fallback for standalone servers meets)."""
    from mongoeco.errors import OperationFailure
    from mongoeco.wire.sessions import WireSessionStore

    original = WireSessionStore.resolve_for_command

    def resolve_for_command(self, client, body, *, capability):  # type: ignore[no-untyped-def]
        if body.get("autocommit") is False or "startTransaction" in body:
            raise OperationFailure("Transaction numbers are only allowed on a replica set member or mongos", code=20)
        return original(self, client, body, capability=capability)

    WireSessionStore.resolve_for_command = resolve_for_command


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

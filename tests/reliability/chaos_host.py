"""A node of the chaos suite, as its own process: ``python -m tests.reliability.chaos_host SPEC``.

``SPEC`` is JSON: ``conn`` (what :func:`tests.reliability.lease_worker.describe` returns, the address possibly
rewritten to a TCP proxy), ``node``, ``out`` (a file of JSON lines), ``mode`` and the timings.

* ``mode == "host"``: an :class:`~aimon_mongo.host.AsyncSessionHost` whose handler, per turn, makes a fenced
  write (``records.merge_transcript`` under ``turn.fencing_token``) and logs it (``write``: token, accepted or
  refused, monotonic start and end), raises for the poison message and, on a first hand-out, for a message
  marked ``raise``, and logs every message it handled (``turn``) before returning, so the host acknowledges
  only batches that are in the log. A refused write raises (the turn lost its lease: it must not count).
* ``mode == "collect"``: the at-most-once loop the issue measured (the control): ``inbox.collect`` on every
  session in turn, then the same handling. With ``stall`` set, the node stops after its first non-empty
  collect (prints ``collected`` on stdout and waits): the test kills it right there.

Exits when its stdin closes (the test process is gone). Prints ``ready`` on stdout once connected;
SIGKILL and SIGSTOP are what the test does to it. Logs carry message texts only because the test
generates them (``m<n>``), never user payloads.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from datetime import timedelta
from typing import Any, TextIO

from aimon_mongo.errors import StaleFencingTokenError
from aimon_mongo.host import AsyncSessionHost, Turn
from tests.reliability.lease_worker import connect

POISON = "poison"
RAISE_ONCE = "raise-"


def _writer(out: TextIO) -> Any:
    def emit(event: dict[str, Any]) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    return emit


async def _handle(bundle: Any, node: str, emit: Any, session: str, token: int, attempt: int, texts: list[str]) -> None:
    if POISON in texts:
        raise RuntimeError("the poison message fails every time")
    if attempt == 1 and any(text.startswith(RAISE_ONCE) for text in texts):
        raise RuntimeError("a handler that fails once")
    emit({"e": "begin", "s": session, "t": token, "n": node})
    await asyncio.sleep(0.05)  # the turn's work, before its write: a SIGSTOP here makes the write a stale one
    start = time.monotonic_ns()
    try:
        await bundle.records.merge_transcript(session, f"{node}:{token}", token)
    except StaleFencingTokenError:
        emit({"e": "write", "s": session, "t": token, "ok": False, "n": node, "a": start, "b": time.monotonic_ns()})
        raise
    emit({"e": "write", "s": session, "t": token, "ok": True, "n": node, "a": start, "b": time.monotonic_ns()})
    await asyncio.sleep(0.02)  # a turn takes a while: a kill can land between the write and the acknowledgement
    emit({"e": "turn", "s": session, "t": token, "at": attempt, "n": node, "m": texts, "b": time.monotonic_ns()})


async def _host(spec: dict[str, Any], bundle: Any, emit: Any) -> None:
    node = spec["node"]

    async def handle(turn: Turn) -> None:
        texts = [message.user_input.as_text() for message in turn.messages]
        await _handle(bundle, node, emit, turn.session_id, turn.fencing_token, turn.attempt, texts)

    options = {
        "lease_ttl": timedelta(seconds=spec["ttl"]),
        "scan_interval": timedelta(seconds=spec["scan"]),
        "max_attempts": spec["max_attempts"],
        "retry_backoff": timedelta(milliseconds=50),
    }
    async with AsyncSessionHost(bundle, handler=handle, **options):
        print("ready", flush=True)
        await asyncio.Event().wait()  # until killed


async def _collect(spec: dict[str, Any], bundle: Any, emit: Any) -> None:
    node, sessions = spec["node"], spec["sessions"]
    print("ready", flush=True)
    while True:
        busy = False
        for session in sessions:
            batch = await bundle.inbox.collect(session)
            texts = [message.user_input.as_text() for message in batch.messages]
            if not texts:
                continue
            busy = True
            if spec.get("stall"):
                print("collected " + json.dumps(texts), flush=True)
                await asyncio.Event().wait()  # the test kills this node now: what it collected dies with it
            await asyncio.sleep(0.02)  # the turn (no lease, no token: nothing to fence with)
            emit({"e": "turn", "s": session, "t": 0, "at": 1, "n": node, "m": texts, "b": time.monotonic_ns()})
        if not busy:
            await asyncio.sleep(0.05)  # an idle poll of the at-most-once loop (what the users wrote)


def _exit_with_parent() -> None:
    """End this process when the test's end of its stdin closes (the test process died without killing it)."""
    sys.stdin.read()
    os._exit(3)


async def main(spec: dict[str, Any]) -> None:
    threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    with open(spec["out"], "a", encoding="utf-8") as out:
        emit = _writer(out)
        async with connect(spec["conn"], spec["node"]) as (bundle, _clock):
            await (_host if spec["mode"] == "host" else _collect)(spec, bundle, emit)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))

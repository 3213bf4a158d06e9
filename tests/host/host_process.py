"""One session host as a process of its own, for the cross-process test (``test_processes.py``).

    python -m tests.host.host_process DSN SCHEMA NODE_ID OUT_FILE

Runs an :class:`AsyncSessionHost` on PostgreSQL (schema ``SCHEMA``) as node ``NODE_ID``; every message a turn
handles is appended to ``OUT_FILE`` as ``node token attempt entry-id text`` (one line, flushed) before the
turn returns. SIGTERM drains the host and exits 0; SIGKILL is the crash the test makes.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from datetime import timedelta

from aimon_mongo.host import AsyncSessionHost, Turn
from aimon_mongo.postgres import AsyncPostgresSessionBackends


async def main(dsn: str, schema: str, node_id: str, out_path: str) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    with open(out_path, "a", encoding="utf-8") as out:

        async def handle(turn: Turn) -> None:
            await asyncio.sleep(0.05)  # a turn takes a while: a kill can land inside one
            for message in turn.messages:
                text = message.user_input.as_text()
                out.write(f"{node_id} {turn.fencing_token} {turn.attempt} {message.id} {text}\n")
            out.flush()

        async with AsyncPostgresSessionBackends(dsn, node_id, schema=schema, replication_guard="off") as node:
            options = {"lease_ttl": timedelta(seconds=2), "scan_interval": timedelta(seconds=0.5)}
            async with AsyncSessionHost(node, handler=handle, **options):
                print("ready", flush=True)
                await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))

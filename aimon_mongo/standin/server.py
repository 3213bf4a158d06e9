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
    args = parser.parse_args()

    engine = MemoryEngine() if args.engine == "memory" else SQLiteEngine(args.path)
    proxy = AsyncMongoEcoProxyServer(
        engine=engine, host=args.host, port=args.port, mongodb_dialect=args.dialect
    )
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


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)

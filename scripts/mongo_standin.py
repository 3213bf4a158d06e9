#!/usr/bin/env python3
"""Set up or run the local MongoDB stand-in (the same mechanism the test fixtures and the demo use).

    python scripts/mongo_standin.py setup              # create the cached environments only
    python scripts/mongo_standin.py serve [--engine sqlite --path FILE] [--port N] [--secantus]

``serve`` prints the URI and runs in the foreground until interrupted.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from aimon_mongo.standin import StandinError, StandinServer, ensure_mongoeco, ensure_secantus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    setup = sub.add_parser("setup", help="create the stand-in environments")
    setup.add_argument("--secantus", action="store_true", help="also the SecantusDB (change streams) one")
    serve = sub.add_parser("serve", help="run a stand-in in the foreground")
    serve.add_argument("--engine", choices=["memory", "sqlite"], default="memory")
    serve.add_argument("--path", help="database file of the sqlite engine")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--secantus", action="store_true", help="run SecantusDB (change streams) instead")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.command == "setup":
            print(ensure_mongoeco())
            if args.secantus:
                print(ensure_secantus())
            return 0
        server = StandinServer(
            "secantus" if args.secantus else "mongoeco", engine=args.engine, path=args.path, port=args.port
        )
        print(server.start(), flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        stop.wait()
        server.stop()
        return 0
    except StandinError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

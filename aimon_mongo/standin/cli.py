"""``aimon-mongo standin ...`` and ``python -m aimon_mongo.standin ...``: run the local MongoDB stand-in.

    serve [--port P] [--data DIR] [--host H]   run it in the foreground until Ctrl-C (port 27017 by default,
                                               0 for any free one); --data keeps the databases in DIR
                                               (SQLite engine) across restarts, else they live in memory
    serve --secantus                           SecantusDB instead (a replica set with change streams)
    setup [--secantus]                         only create the stand-in's environment(s)

``serve`` prints the URI to use on stdout, the rest on stderr. Exit status: 0, 1 (it could not start: one
line saying why), 2 (usage), 130 (interrupted while starting).
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from aimon_mongo.standin import (
    MONGOECO_VERSION,
    Engine,
    StandinError,
    StandinServer,
    ensure_mongoeco,
    ensure_secantus,
)

DEFAULT_PORT = 27017
"""MongoDB's own port, so the library's and the command's defaults reach the stand-in as they are."""
DATA_FILE = "aimon-standin.sqlite"
"""The SQLite database file of ``--data DIR``."""


def build_parser(prog: str = "aimon-mongo standin") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A local MongoDB stand-in (mongoeco wire server) for trying aimon-mongo and for tests.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run a stand-in in the foreground until Ctrl-C")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help="port to listen on (0: any free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--data", type=Path, help="keep the databases in this directory (default: in memory)")
    serve.add_argument("--secantus", action="store_true", help="run SecantusDB (change streams) instead")
    setup = sub.add_parser("setup", help="create the stand-in's environment only")
    setup.add_argument("--secantus", action="store_true", help="also the SecantusDB (change streams) one")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "aimon-mongo standin") -> int:
    """Parse ``argv`` and run; returns the exit status. ``prog``: the command the usage names."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        if args.command == "setup":
            print(ensure_mongoeco())
            if args.secantus:
                print(ensure_secantus())
            return 0
        return serve(args.port, args.data, args.host, secantus=args.secantus)
    except StandinError as exc:
        sys.stderr.write(f"aimon-mongo standin: error: {exc}\n")
        return 1
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.stderr.write("aimon-mongo standin: interrupted\n")
        return 130


def _require_free(host: str, port: int) -> None:
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise StandinError(
                f"cannot listen on {host}:{port} ({exc.strerror}; is a MongoDB already running there? "
                "--port picks another, --port 0 any free one)"
            ) from None


def serve(port: int, data: Path | None, host: str = "127.0.0.1", *, secantus: bool = False) -> int:
    """Run a stand-in until SIGINT / SIGTERM; returns 0 once it stopped cleanly."""
    if not 0 <= port <= 65535:
        raise StandinError(f"--port must be between 0 and 65535, got {port}")
    _require_free(host, port)
    if data is not None:
        data.mkdir(parents=True, exist_ok=True)
    if secantus:
        store = None if data is None else data / "secantus"
        server = StandinServer("secantus", path=store, port=port)
        what = "SecantusDB (replica set with change streams)"
    else:
        engine: Engine = "memory" if data is None else "sqlite"
        server = StandinServer(engine=engine, path=None if data is None else data / DATA_FILE, port=port, host=host)
        what = f"mongoeco {MONGOECO_VERSION}"
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        uri = server.start()
        kept = f"data in {data}" if data is not None else "data in memory: it goes when the stand-in stops"
        print(uri, flush=True)
        sys.stderr.write(
            f"MongoDB stand-in ({what}; {kept}) listening on {uri.split('://', 1)[1].split('/', 1)[0]}\n"
            f"  use it: export AIMON_MONGODB_URI='{uri}'\n"
            "  Ctrl-C stops it\n"
        )
        sys.stderr.flush()
        while not stop.wait(0.5):
            if server.exited():
                raise StandinError(f"the stand-in exited on its own (code {server.returncode})")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        server.stop()
    sys.stderr.write(
        "stand-in stopped" + (f"; its data stays in {data} (serve --data again to reuse it)" if data else "") + "\n"
    )
    return 0

"""Turning failures into one clear line and an exit code (0 ok, 1 failed, 2 usage)."""

from __future__ import annotations

import sys
from typing import Any

import typer
from pymongo.errors import ConnectionFailure, PyMongoError, ServerSelectionTimeoutError

from aimon_mongo.errors import AimonStorageError, BackendUnavailable

HINT = "start the server or pass --uri / set AIMON_MONGODB_URI"


def run_guarded(app: typer.Typer, argv: list[str]) -> int:
    """Run the Typer app; map every failure to one stderr line and an exit code."""
    try:
        app(args=argv, prog_name="aimon-mongo")
    except SystemExit as exc:  # Typer's standalone mode: usage errors exit 2, typer.Exit(n) exits n
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except (ServerSelectionTimeoutError, ConnectionFailure) as exc:
        _line(f"cannot reach MongoDB at {_hosts(exc)} ({HINT})")
        return 1
    except BackendUnavailable as exc:
        _line(f"{exc} ({HINT})")
        return 1
    except (AimonStorageError, PyMongoError, OSError) as exc:
        _line(str(exc) or type(exc).__name__)
        return 1
    return 0


def _line(message: str) -> None:
    first = message.strip().splitlines()[0] if message.strip() else "failed"
    sys.stderr.write(f"aimon-mongo: error: {first}\n")


def _hosts(exc: Any) -> str:
    """The hosts of the URI in use (never the credentials), or of the error text as a fallback."""
    from aimon_mongo.cli import _context

    if _context.current is not None:
        return _context.current.hosts()
    return str(exc).split(" ", 1)[0].rstrip(":")

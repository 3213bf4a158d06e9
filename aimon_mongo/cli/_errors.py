"""Turning failures into one clear line and an exit code (0 ok, 1 failed, 2 usage).

The mapping runs inside the command group (:class:`GuardedGroup`), so the console script, ``python -m
aimon_mongo`` and Typer's test runner all behave the same; :func:`run_guarded` is the outer net of the
console script.
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperGroup

from aimon_mongo.connection import URI_PRECEDENCE
from aimon_mongo.errors import (
    AimonStorageError,
    BackendConnectionError,
    BackendRefused,
    BackendUnavailable,
    VfsBackendUnavailable,
)

HINT = "start the server or pass --uri / set AIMON_MONGODB_URI"
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT, what a shell reports for a command stopped by Ctrl-C."""


class CommandFailed(Exception):
    """A command refused or could not finish; the message is the one line shown (exit code 1)."""


class GuardedGroup(TyperGroup):
    """The root command group: any failure below it becomes one stderr line and exit code 1.

    The command groups are registered when a command is looked up or listed, not before the global options
    are parsed: ``aimon-mongo --version`` answers without importing them (nor PyMongo or pydantic).
    """

    def _register_commands(self) -> None:
        if not self.commands:  # built from the app before its command groups were registered
            from aimon_mongo.cli import get_app

            self.commands.update(typer.main.get_command(get_app()).commands)  # type: ignore[attr-defined]

    def list_commands(self, ctx: Any) -> list[str]:
        self._register_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        self._register_commands()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            interrupted(ctx)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:
            line = failure_line(exc)
            if line is None:
                raise
            report(line)
            raise typer.Exit(EXIT_FAILED) from exc


def run_guarded(app: typer.Typer, argv: list[str]) -> int:
    """Run the Typer app; map every failure to one stderr line and an exit code."""
    try:
        app(args=argv, prog_name="aimon-mongo")
    except KeyboardInterrupt:
        interrupted(None)
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # Typer's standalone mode: usage errors exit 2, typer.Exit(n) exits n
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_FAILED)
    except Exception as exc:
        line = failure_line(exc)
        if line is None:
            raise
        report(line)
        return EXIT_FAILED
    return 0


def failure_line(exc: BaseException) -> str | None:
    """The one line to show for a failure, or ``None`` for an unexpected error (a bug: let it raise)."""
    if isinstance(exc, CommandFailed):
        return str(exc)
    # PyMongo's errors exist only once PyMongo was imported (commands import it on first use): before, no
    # failure can be one of them, and looking them up here keeps ``--help`` from loading PyMongo.
    pymongo_errors = sys.modules.get("pymongo.errors")
    if pymongo_errors is not None and _caused_by(exc, pymongo_errors.ConnectionFailure):
        return f"cannot reach MongoDB at {_hosts(exc)}{_source()} ({HINT})"
    if isinstance(exc, BackendUnavailable) and _unreachable(exc):
        return f"{exc} ({HINT})"
    if isinstance(exc, (AimonStorageError, OSError)) or (
        pymongo_errors is not None and isinstance(exc, pymongo_errors.PyMongoError)
    ):
        return str(exc) or type(exc).__name__
    return None


def _unreachable(exc: BackendUnavailable) -> bool:
    """Whether the server could not be reached: a VFS storage failure (a corrupt file, a failed move) is in
    the same family but gets no hint about starting the server."""
    if isinstance(exc, BackendRefused):  # reached, and refused: starting the server is not the fix
        return False
    return not isinstance(exc, BackendConnectionError) or isinstance(exc, VfsBackendUnavailable)


def interrupted(ctx: Any) -> None:
    """Ctrl-C: say so in one line and close what the command opened, ignoring a second Ctrl-C meanwhile
    (else it lands in the interpreter's exit handlers, which print a traceback of their own)."""
    from aimon_mongo.cli_entry import interrupted as say_interrupted

    say_interrupted()
    if ctx is not None:
        ctx.close()  # runs the context's close callbacks now, while SIGINT is ignored
    else:
        from aimon_mongo.cli import _context

        if _context.current is not None:
            _context.current.close()


def report(message: str) -> None:
    """Write ``aimon-mongo: error: <first line>`` to stderr."""
    text = message.strip()
    first = text.splitlines()[0] if text else "failed"
    sys.stderr.write(f"aimon-mongo: error: {first}\n")
    sys.stderr.flush()


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _hosts(exc: BaseException) -> str:
    """The hosts of the URI in use (never the credentials), or of the error text as a fallback."""
    from aimon_mongo.cli import _context

    if _context.current is not None:
        return _context.current.hosts()
    return str(exc).split(" ", 1)[0].rstrip(":")


def _source() -> str:
    """`` (from MONGODB_URI)`` and the like: where the connection string came from, when not --uri."""
    from aimon_mongo.cli import _context

    current = _context.current
    if current is None or current.uri_source == URI_PRECEDENCE[0]:
        return ""
    if current.uri_source is None:
        return f" (the default: none of {', '.join(URI_PRECEDENCE[1:])} is set)"
    return f" (from {current.uri_source})"

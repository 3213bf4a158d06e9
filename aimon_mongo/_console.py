"""The ``aimon-mongo`` console script and ``python -m aimon_mongo``: Ctrl-C is one line, at any moment.

This module imports nothing heavy, so a Ctrl-C while the command's own imports run (typer, PyMongo,
pydantic take a second or two) is caught here too; once the command has finished, further Ctrl-C are
ignored, so none can land in the interpreter's exit handlers (PyMongo joins its threads there) and print
"Exception ignored in atexit callback".
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence

EXIT_INTERRUPTED = 130
_reported: list[bool] = []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``aimon-mongo`` command; returns its exit code."""
    try:
        try:
            from aimon_mongo.cli import main as cli_main

            code = cli_main(argv)
        finally:
            quiet()
    except KeyboardInterrupt:  # also one that was pending when quiet() ran
        interrupted()
        code = EXIT_INTERRUPTED
    return code


def quiet() -> None:
    """Ignore Ctrl-C from now on. ``signal.signal`` first runs the handler of a signal that is already
    pending, so a Ctrl-C that arrived just before raises here: try again until the change is made."""
    while True:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            return
        except KeyboardInterrupt:
            continue


def interrupted() -> None:
    """Ignore further Ctrl-C and say ``aimon-mongo: interrupted`` on stderr, once per process."""
    quiet()
    if not _reported:
        _reported.append(True)
        sys.stderr.write("aimon-mongo: interrupted\n")
        sys.stderr.flush()


def run() -> None:
    """The console-script entry point: exits with :func:`main`'s code."""
    sys.exit(main())

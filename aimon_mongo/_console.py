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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``aimon-mongo`` command; returns its exit code."""
    try:
        from aimon_mongo.cli import main as cli_main

        code = cli_main(argv)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
        _quiet()
        sys.stderr.write("aimon-mongo: interrupted\n")
    _quiet()
    return code


def _quiet() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run() -> None:
    """The console-script entry point: exits with :func:`main`'s code."""
    sys.exit(main())

"""The entry point of the ``aimon-mongo`` command (the console script and ``python -m aimon_mongo``): Ctrl-C
is one line, at any moment. (The command itself is :mod:`aimon_mongo.cli`; the web console is
:mod:`aimon_mongo.console`.)

This module imports nothing heavy, so a Ctrl-C while the command's own imports run (typer, PyMongo,
pydantic take a second or two) is caught here too; once the command has finished, further Ctrl-C are
ignored, so none can land in the interpreter's exit handlers (PyMongo joins its threads there) and print
"Exception ignored in atexit callback".

A Ctrl-C can also land while Python runs a callback it cannot raise out of (the weak-reference callback
of the import lock, a ``__del__``): Python would print "Exception ignored in: ..." with a traceback and
drop the interrupt. :func:`_unraisable` takes such a ``KeyboardInterrupt`` instead: nothing is printed
and the interrupt is delivered again, so it stops the command as any other Ctrl-C does.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

EXIT_INTERRUPTED = 130
EXIT_MISSING_EXTRA = 3
"""The command was installed without the ``cli`` extra: one line says ``pip install 'aimon-mongo[cli]'``."""
_reported: list[bool] = []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``aimon-mongo`` command; returns its exit code."""

    def command() -> int:
        from aimon_mongo._extras import require_extra
        from aimon_mongo.errors import MissingExtraError

        try:
            require_extra("the aimon-mongo command", "cli", "typer", "rich")
        except MissingExtraError as exc:
            sys.stderr.write(f"aimon-mongo: error: {exc}\n")
            return EXIT_MISSING_EXTRA
        from aimon_mongo.cli import main as cli_main

        return cli_main(argv)

    return interruptible(command)


def interruptible(command: Callable[[], int]) -> int:
    """Run ``command`` so that a Ctrl-C at any moment ends it with one line and :data:`EXIT_INTERRUPTED`."""
    if hasattr(signal, "setitimer"):  # not on Windows: there Python reports such an interrupt itself
        signal.signal(signal.SIGALRM, _deliver)
        sys.unraisablehook = _unraisable
    try:
        try:
            code = command()
        finally:
            quiet()
    except KeyboardInterrupt:  # also one that was pending when quiet() ran
        interrupted()
        code = EXIT_INTERRUPTED
    return code


_AGAIN_S = 0.005
"""How soon an interrupt Python could not raise is delivered again (a timer, so that it is raised after
the callback has returned, not inside it or inside this module's hook)."""


def _unraisable(unraisable: Any) -> None:
    """A ``KeyboardInterrupt`` Python could not raise (it landed in a callback): deliver it again, where
    it can be raised, instead of printing it and dropping it; anything else is Python's to report."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        _deliver_later()
        return
    sys.__unraisablehook__(unraisable)


def _deliver_later() -> None:
    signal.setitimer(signal.ITIMER_REAL, _AGAIN_S)


def _deliver(_signum: int, frame: FrameType | None) -> None:
    """The timer of :func:`_deliver_later`: raise the interrupt, unless the command is already ending
    (Ctrl-C is ignored by then) or the timer fired inside the hook itself (then try again)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return
    if frame is not None and frame.f_code in (_unraisable.__code__, _deliver_later.__code__):
        _deliver_later()
        return
    raise KeyboardInterrupt


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

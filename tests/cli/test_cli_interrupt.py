"""A Ctrl-C that lands where Python cannot raise it (a weak-reference callback, as the import lock's) still
stops the command with one line, and nothing is printed about an ignored exception."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.cli.conftest import ROOT

_PROGRAM = textwrap.dedent(
    """
    import sys, time, weakref
    from aimon_mongo.cli_entry import interruptible

    class Held:
        pass

    def interrupt_in_callback(_ref):
        raise KeyboardInterrupt  # as a SIGINT arriving while the import lock's callback runs

    def command():
        held = Held()
        ref = weakref.ref(held, interrupt_in_callback)
        del held
        time.sleep(30)  # the interrupt, delivered again, ends this
        print("not interrupted")
        return 0

    sys.exit(interruptible(command))
    """
)


def _run(program: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.usefixtures("terminal_sigint")
def test_an_interrupt_inside_a_callback_stops_the_command_with_one_line() -> None:
    done = _run(_PROGRAM)
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr == "aimon-mongo: interrupted\n"
    assert "not interrupted" not in done.stdout


def test_another_unraisable_error_is_still_reported() -> None:
    program = _PROGRAM.replace("raise KeyboardInterrupt", "raise ValueError('from a callback')").replace(
        "time.sleep(30)", "pass"
    )
    done = _run(program)
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" in done.stderr and "ValueError: from a callback" in done.stderr

"""Log records while a command runs: one ``aimon-mongo: warning:`` (or ``error:``) line each on stderr.

Without a handler Python prints a library's WARNING records bare (its "last resort"); the command shows
them in the form of its own messages instead. The PostgreSQL pool's WARNING for every failed connection
attempt is left out: the command's one error line names the unreachable server when the attempts run out.
"""

from __future__ import annotations

import logging
import sys

QUIETED = ("psycopg.pool",)
"""Loggers whose WARNING records the command leaves out (their failures end in the command's error line)."""


class _OneLine(logging.Formatter):
    """``aimon-mongo: <level>: <message>``, the record's message only (no traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        return f"aimon-mongo: {record.levelname.lower()}: {record.getMessage()}"


def log_to_stderr() -> None:
    """Send WARNING and above to stderr as ``aimon-mongo: warning: <message>`` (idempotent)."""
    root = logging.getLogger()
    if any(getattr(handler, "aimon_cli", False) for handler in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_OneLine())
    handler.aimon_cli = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    for name in QUIETED:
        logging.getLogger(name).setLevel(logging.ERROR)

"""One line for "the server is down": the hosts PyMongo tried and why, without its topology dump.

A server-selection timeout's text runs to several hundred characters (every server's description, twice,
with the configured socket timeouts). :func:`describe_unreachable` keeps what a person acts on: which
address failed how, and how long the driver waited.
"""

from __future__ import annotations

import re

from pymongo.errors import ConnectionFailure

_TIMEOUTS = re.compile(r" \(configured timeouts: [^)]*\)")
_WAITED = re.compile(r",? ?Timeout: ([0-9.]+s)")
MAX_LENGTH = 240
"""A longer account (many hosts) is cut here, with an ellipsis."""


def describe_unreachable(exc: ConnectionFailure) -> str:
    """``no server answered within 0.3s: localhost:1: [Errno 111] Connection refused`` and the like."""
    text = str(exc)
    head, _, _ = text.partition(", Timeout: ") if ", Timeout: " in text else (text, "", "")
    head = _TIMEOUTS.sub("", head.split(", Topology Description:", 1)[0]).strip(" ,")
    head = re.sub(r",(?=\S)", ", ", head)  # PyMongo joins the hosts' errors with a bare comma
    waited = _WAITED.search(text)
    line = f"no server answered within {waited.group(1)}: {head}" if waited else head
    line = f"{type(exc).__name__}: {line}" if not waited else line
    return line if len(line) <= MAX_LENGTH else line[: MAX_LENGTH - 1] + "…"

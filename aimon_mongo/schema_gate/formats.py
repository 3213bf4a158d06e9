"""Named text formats a declared string may follow, and how conformance checks them.

A format is part of the stored shape (it changes a digest): ``deliveredAt`` holding an ISO instant is a
different promise from ``deliveredAt`` holding any string.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(?:\d{3}|\d{6}|\d{9}))?Z\Z")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\Z")
_HOLDER_TOKEN = re.compile(r"[^:]+:[1-9][0-9]*\Z")
_TOKEN_ATTEMPTS = re.compile(r"[1-9][0-9]*:[1-9][0-9]*\Z")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}\Z")
_SHA256_CONTENT_HASH = re.compile(r"sha256:[0-9a-f]{64}\Z")

FORMATS: Final[dict[str, tuple[str, Callable[[str], bool]]]] = {
    "instant": (
        "ISO-8601 instant in UTC as java.time.Instant.toString() writes it (0, 3, 6 or 9 fraction digits, Z)",
        lambda s: _INSTANT.match(s) is not None,
    ),
    "base64": ("standard base64 with padding, no line breaks", lambda s: _BASE64.match(s) is not None),
    "holder-token": (
        '"<holderId>:<fencingToken>" (holder id without ":")',
        lambda s: _HOLDER_TOKEN.match(s) is not None,
    ),
    "token-attempts": (
        '"<fencingToken>:<attempts>" (two positive decimal integers)',
        lambda s: _TOKEN_ATTEMPTS.match(s) is not None,
    ),
    "sha256-hex": ("lowercase hex SHA-256 (64 characters)", lambda s: _SHA256_HEX.match(s) is not None),
    "sha256-content-hash": (
        '"sha256:" + lowercase hex SHA-256',
        lambda s: _SHA256_CONTENT_HASH.match(s) is not None,
    ),
    "directory-marker-name": ('a directory path ending in "/"', lambda s: s.endswith("/") and s != "/"),
    "file-path": ('a file path (never ending in "/")', lambda s: bool(s) and not s.endswith("/")),
}


def describe_format(name: str) -> str:
    """The one-line description of format ``name``."""
    return FORMATS[name][0]


def matches_format(name: str, text: str) -> bool:
    """Whether ``text`` follows format ``name``."""
    return FORMATS[name][1](text)

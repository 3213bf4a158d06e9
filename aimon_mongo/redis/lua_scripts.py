"""The Lua scripts of the Redis backend, read once from package data (``aimon_mongo/redis/lua/*.lua``).

A script may start with ``--! include _a _b``: the named snippets (``lua/_a.lua`` ...) are prepended, in
order, so shared prologues (the server clock, the fenced-write check) are written once. Scripts are sent
with ``SCRIPT LOAD`` once per connection owner and then run by ``EVALSHA`` (see ``_async/scripts.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

_INCLUDE = "--! include "


@dataclass(frozen=True)
class LuaScript:
    """One runnable script: its name (the file stem), full text and SHA-1 (what ``EVALSHA`` takes)."""

    name: str
    text: str
    sha: str


def _read(name: str) -> str:
    return resources.files("aimon_mongo.redis").joinpath("lua").joinpath(f"{name}.lua").read_text(encoding="utf-8")


@cache
def script(name: str) -> LuaScript:
    """The script ``lua/<name>.lua`` with its includes resolved."""
    body = _read(name)
    first, _, rest = body.partition("\n")
    parts: list[str] = []
    if first.startswith(_INCLUDE):
        parts.extend(_read(snippet) for snippet in first[len(_INCLUDE) :].split())
        body = rest
    parts.append(body)
    text = "\n".join(parts)
    return LuaScript(name, text, hashlib.sha1(text.encode("utf-8")).hexdigest())

"""Small pure helpers for undecoded Redis replies (bytes) and millisecond instants."""

from __future__ import annotations

from aimon_mongo.errors import CodecError


def text(value: bytes | str, what: str) -> str:
    """A reply item as ``str``; refuses bytes that are not UTF-8 (naming ``what``, not the bytes)."""
    if isinstance(value, str):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise CodecError(f"{what} is not UTF-8 text") from None


def pairs(reply: list[bytes] | dict[bytes, bytes]) -> dict[str, bytes]:
    """A field/value reply keyed by text: a flat ``[field, value, ...]`` list (Lua, stream entries) or
    the dict redis-py builds for ``HGETALL``."""
    if isinstance(reply, dict):
        return {text(k, "field name"): v for k, v in reply.items()}
    return {text(reply[i], "field name"): reply[i + 1] for i in range(0, len(reply) - 1, 2)}

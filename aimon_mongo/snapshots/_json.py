"""JSON text in and out the way the reference's Jackson codecs read and write it.

Built on the one JSON reader/writer (:mod:`aimon_mongo.codec.json_text`). Writing: compact (``,`` and ``:``),
non-ASCII as is, control characters escaped with upper-case hex
(``\\u001F``) as Jackson does; NaN and infinities refused. Reading: the first JSON value of the text
(trailing text is ignored, as ``ObjectMapper.readTree`` does), NaN/Infinity literals refused, and the
lenient scalar reads of Jackson's ``asText`` / ``asInt`` / ``asLong`` / ``asBoolean`` / ``hasNonNull``.

Known difference: floats inside arbitrary JSON maps (tool input, submit-option maps) are written in
Python's shortest form, which differs from Java's ``Double.toString`` for exponent forms (``1e+20`` vs
``1.0E20``, ``12345678.0`` vs ``1.2345678E7``); both read back as the same number.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from aimon_mongo.codec.json_text import DECODER, NonStandardNumber, encode_compact
from aimon_mongo.errors import SnapshotCodecError

_LONG_MIN = -(2**63)
_LONG_MAX = 2**63 - 1
LONG_MAX = _LONG_MAX
"""The largest Java ``long``."""
_LOWER_HEX_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")
_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*\Z")
_FLOAT_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*\Z")


class MalformedError(ValueError):
    """A stored shape the reference reports as a wrapped failure; the message is safe to show."""


class JsonSyntaxError(MalformedError):
    """The text is not JSON (the message says where, never what)."""


def loads(text: str) -> object:
    """The first JSON value of ``text``; ``None`` for blank text. Raises :class:`JsonSyntaxError`."""
    start = len(text) - len(text.lstrip())
    if start == len(text):
        return None
    try:
        value, _ = DECODER.raw_decode(text, start)
    except NonStandardNumber as exc:
        raise JsonSyntaxError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(f"not valid JSON ({exc.msg} at position {exc.pos})") from None
    except RecursionError:
        raise JsonSyntaxError("JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer longer than the interpreter converts
        raise JsonSyntaxError(f"not valid JSON ({type(exc).__name__})") from None
    return value


def dumps(obj: object) -> str:
    """Compact JSON text of ``obj`` as Jackson writes it (raises ``ValueError`` for NaN, infinities)."""
    return jackson_escapes(encode_compact(obj))


def jackson_escapes(text: str) -> str:
    """Compact JSON text with its ``\\u00xx`` escapes in Jackson's upper-case hex."""
    if "\\u00" in text:
        text = _LOWER_HEX_ESCAPE.sub(lambda m: m.group(1) + "\\u00" + m.group(2).upper(), text)
    return text


def field(node: object, key: str) -> object:
    """``node[key]`` when ``node`` is an object, else ``None`` (Jackson's ``get`` on a non-object)."""
    return node.get(key) if isinstance(node, dict) else None


def is_scalar(value: object) -> bool:
    """A JSON value node: string, number or boolean (not null, not a container)."""
    return isinstance(value, str | int | float)


def as_text(value: object) -> str:
    """Jackson ``asText``: scalars as their text, ``null`` as ``"null"``, containers as ``""``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double_text(value)
    if value is None:
        return "null"
    return ""


def optional_text(node: object, key: str) -> str | None:
    """``hasNonNull(key) ? asText : null``."""
    value = field(node, key)
    return None if value is None else as_text(value)


def as_int(value: object, default: int) -> int:
    """Jackson ``asInt``/``asLong``: numbers truncate, booleans are 1/0, numeric text parses."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else default
    if isinstance(value, str):
        try:
            if _INT_TEXT.match(value):
                return int(value)
            if _FLOAT_TEXT.match(value):
                number = float(value)
                return int(number) if abs(number) != float("inf") else default
        except ValueError:  # more digits than the interpreter converts
            return default
    return default


def as_bool(value: object, default: bool) -> bool:
    """Jackson ``asBoolean``: booleans, integers (non-zero), the texts ``true``/``false``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        stripped = value.strip()
        if stripped == "true":
            return True
        if stripped == "false":
            return False
    return default


def required_text(node: object, key: str) -> str:
    """A required scalar read as text; absent, null or a container refuses."""
    value = node.get(key) if isinstance(node, dict) else None
    if isinstance(value, str):
        return value
    if not isinstance(value, int | float):
        raise SnapshotCodecError(f"Missing or non-textual field '{key}'")
    return as_text(value)


def required_long(node: object, key: str) -> int:
    """A required integral number within the range of a Java ``long``."""
    value = field(node, key)
    if isinstance(value, bool) or not isinstance(value, int) or not _LONG_MIN <= value <= _LONG_MAX:
        raise SnapshotCodecError(f"Missing or non-integral field '{key}'")
    return value


def array(node: object, key: str) -> list[Any]:
    """The array under ``key``; absent or not an array → empty."""
    value = field(node, key)
    return value if isinstance(value, list) else []


def java_double_text(value: float) -> str:
    """Java's ``Double.toString`` rendering of ``value`` (shortest digits)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        text = repr(value)
        return text if "." in text else text + ".0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(str(d) for d in digits)
    power = exponent + len(mantissa) - 1
    fraction = mantissa[1:] or "0"
    return f"{'-' if sign else ''}{mantissa[0]}.{fraction}E{power}"

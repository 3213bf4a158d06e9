"""Does a stored value conform to its declared root? The one-line check for codec tests.

    from aimon_mongo.schema_gate import assert_conforms

    assert_conforms("mongo.inbox.document", codec.to_mongo_document(message, ObjectId()))
    assert_conforms("inbox.json-envelope", codec.to_json_envelope(message))   # JSON text is parsed

The check runs against the canonical graph the gate digests (so a declaration cannot drift from its
codec unnoticed): required keys present, no undeclared keys in a closed object, scalar types exact
(``int64`` needs ``bson.Int64``, ``int32`` a plain int in range, booleans are never integers), text
formats (ISO instants, base64, ...) matched, literals exact, JSON text parsed and checked. Messages name
the path and the expected type, never the value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Final

from bson import Binary, Int64, ObjectId

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.describe import child_path, describe, discriminator
from aimon_mongo.schema_gate.formats import FORMATS, matches_format
from aimon_mongo.schema_gate.graph import Graph
from aimon_mongo.schema_gate.inventory import Inventory
from aimon_mongo.schema_gate.loader import DEFAULT_DECLARATIONS, load_inventory


def _int_in(bits: int) -> Callable[[object], bool]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


_SCALAR_CHECKS: Final[dict[str, Callable[[object], bool]]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "pg.boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "pg.text": lambda v: isinstance(v, str),
    "int32": lambda v: _int_in(32)(v) and not isinstance(v, Int64),
    "int64": lambda v: isinstance(v, Int64),
    "double": lambda v: isinstance(v, float),
    "date": lambda v: isinstance(v, datetime),
    "objectId": lambda v: isinstance(v, ObjectId),
    "binary": lambda v: isinstance(v, bytes | Binary),
    "pg.smallint": _int_in(16),
    "pg.integer": _int_in(32),
    "pg.bigint": _int_in(64),
    "pg.timestamptz": lambda v: isinstance(v, datetime) and v.utcoffset() is not None,
}


@lru_cache(maxsize=4)
def _inventory(source: str) -> Inventory:
    return load_inventory(source)


def conformance_errors(root: str, value: object, *, declarations: str = DEFAULT_DECLARATIONS) -> list[str]:
    """Every way ``value`` departs from the declared root ``root`` (empty when it conforms).

    A ``str``/``bytes`` value for a root that is not itself text is parsed as JSON first.
    """
    return inventory_errors(_inventory(declarations), root, value)


def inventory_errors(inventory: Inventory, root: str, value: object) -> list[str]:
    """:func:`conformance_errors` against an inventory already loaded (the gate's own, in ``check``)."""
    if root not in inventory.roots:
        raise SchemaGateError("unknown-root", f"no declared root {root!r} (known: {', '.join(inventory.roots)})")
    graph = inventory.roots[root].graph
    if isinstance(value, str | bytes) and graph[0].kind in ("object", "array", "union"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            return [f"$: not JSON text ({exc.msg} at position {exc.pos})"]
    errors: list[str] = []
    _check(graph, 0, value, "$", errors)
    return errors


def assert_conforms(root: str, value: object, *, declarations: str = DEFAULT_DECLARATIONS) -> None:
    """Raise ``AssertionError`` listing every departure of ``value`` from the declared root ``root``."""
    errors = conformance_errors(root, value, declarations=declarations)
    if errors:
        raise AssertionError(f"value does not conform to stored root {root!r}:\n  " + "\n  ".join(errors))


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return type(value).__name__


def _check(graph: Graph, node: int, value: object, path: str, errors: list[str]) -> None:
    n = graph[node]
    if n.kind == "any":
        return
    if n.kind == "primitive":
        scalar, fmt = n.attrs
        if not _SCALAR_CHECKS[scalar](value):
            errors.append(f"{path}: expected {describe(graph, node)}, got {_type_name(value)}")
        elif fmt is not None and isinstance(value, str) and not matches_format(fmt, value):
            errors.append(f"{path}: text does not follow format {fmt!r} ({FORMATS[fmt][0]})")
        return
    if n.kind == "literal":
        expected = n.attrs[0]
        if type(value) is not type(expected) or value != expected:
            errors.append(f"{path}: expected the literal {json.dumps(expected)}, got another {_type_name(value)}")
        return
    if n.kind == "array":
        if not isinstance(value, list | tuple):
            errors.append(f"{path}: expected an array, got {_type_name(value)}")
            return
        for index, item in enumerate(value):
            _check(graph, n.children[0], item, f"{path}[{index}]", errors)
        return
    if n.kind == "encoded":
        _encoded(graph, node, value, path, errors)
        return
    if n.kind == "union":
        _union(graph, node, value, path, errors)
        return
    _object(graph, node, value, path, errors)


def _encoded(graph: Graph, node: int, value: object, path: str, errors: list[str]) -> None:
    encoding = graph[node].attrs[0]
    inner = f"{path}<{encoding}>"
    if encoding == "pg.jsonb" and not isinstance(value, str):
        value = getattr(value, "obj", value)  # psycopg's Jsonb wrapper
        _check(graph, graph[node].children[0], value, inner, errors)
        return
    if not isinstance(value, str):
        errors.append(f"{path}: expected {encoding} (a string), got {_type_name(value)}")
        return
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        errors.append(f"{path}: not JSON text ({exc.msg} at position {exc.pos})")
        return
    _check(graph, graph[node].children[0], parsed, inner, errors)


def _union(graph: Graph, node: int, value: object, path: str, errors: list[str]) -> None:
    attempts: list[tuple[int, list[str]]] = []
    for member in graph[node].children:
        found: list[str] = []
        _check(graph, member, value, path, found)
        if not found:
            return
        attempts.append((member, found))
    if isinstance(value, Mapping):
        tagged = [
            found
            for member, found in attempts
            if (tag := discriminator(graph, member)) and all(value.get(k) == v for k, v in tag)
        ]
        if len(tagged) == 1:
            errors.extend(tagged[0])
            return
    errors.append(f"{path}: matches none of: {describe(graph, node, 1)} (got {_type_name(value)})")


def _object(graph: Graph, node: int, value: object, path: str, errors: list[str]) -> None:
    n = graph[node]
    if not isinstance(value, Mapping):
        errors.append(f"{path}: expected an object, got {_type_name(value)}")
        return
    _body, props, has_additional = n.attrs
    declared = {name: (required, n.children[i]) for i, (name, required) in enumerate(props)}
    for name, (required, child) in declared.items():
        if name in value:
            _check(graph, child, value[name], child_path(path, name), errors)
        elif required:
            errors.append(f"{child_path(path, name)}: required key missing")
    for key in value:
        if not isinstance(key, str):
            errors.append(f"{path}: a key is not a string ({_type_name(key)})")
        elif key not in declared:
            if has_additional:
                _check(graph, n.children[-1], value[key], child_path(path, key[:40]), errors)
            else:
                errors.append(f"{child_path(path, key[:40])}: key not declared for this object")

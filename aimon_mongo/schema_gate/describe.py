"""Short human-readable descriptions of graph nodes and property paths (messages, docs, conformance)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from aimon_mongo.schema_gate.graph import Graph

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def child_path(path: str, name: str) -> str:
    """``$.a`` + ``b`` → ``$.a.b``; names that are not identifiers are quoted: ``$["a.b"]``."""
    return f"{path}.{name}" if _IDENTIFIER.match(name) else f"{path}[{json.dumps(name)}]"


def discriminator(graph: Graph, node: int) -> tuple[tuple[str, str | int], ...]:
    """The required properties of an object whose type is a single literal (``(("type", "image"),)``)."""
    n = graph[node]
    if n.kind != "object":
        return ()
    return tuple(
        (name, graph[n.children[i]].attrs[0])
        for i, (name, required) in enumerate(n.attrs[1])
        if required and graph[n.children[i]].kind == "literal"
    )


def show_discriminator(tag: tuple[tuple[str, str | int], ...]) -> str:
    """``type="image", source="url"``."""
    return ", ".join(f"{name}={json.dumps(value)}" for name, value in tag)


def describe(graph: Graph, node: int, depth: int = 2) -> str:
    """``string``, ``int64``, ``"NEXT" | "NOW"``, ``array of object``, ``json-text of object (type="text")``."""
    n = graph[node]
    if n.kind == "primitive":
        return n.attrs[0] if n.attrs[1] is None else f"{n.attrs[0]} ({n.attrs[1]})"
    if n.kind == "literal":
        return json.dumps(n.attrs[0])
    if n.kind == "any":
        return "any"
    if n.kind == "object":
        _body, props, has_additional = n.attrs
        if has_additional and not props:
            return f"map of {_inner(graph, n.children[-1], depth - 1)}" if depth > 0 else "map"
        tag = discriminator(graph, node)
        return f"object ({show_discriminator(tag)})" if tag else "object"
    if depth <= 0:
        return n.kind
    if n.kind == "array":
        return f"array of {_inner(graph, n.children[0], depth - 1)}"
    if n.kind == "union":
        return " | ".join(display_order(describe(graph, m, depth - 1) for m in n.children))
    return f"{n.attrs[0]} of {_inner(graph, n.children[0], depth - 1)}"


def _inner(graph: Graph, node: int, depth: int) -> str:
    text = describe(graph, node, depth)
    return f"({text})" if graph[node].kind == "union" and depth > 0 else text


def display_order(items: Iterable[str]) -> list[str]:
    """Alphabetical, ``null`` last: how union members are shown (the graph orders them by hash)."""
    return sorted(items, key=lambda text: (text == "null", text))

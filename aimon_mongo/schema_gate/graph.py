"""The canonical schema graph of a stored root, and its digest.

A graph is a list of nodes; node 0 is the root. Node kinds (JSON form, keys sorted when serialised)::

    {"kind": "primitive", "type": T, ["format": F]}      T from declare.SCALAR_TYPES
    {"kind": "literal", "value": V}                      V a string, integer or boolean
    {"kind": "any"}
    {"kind": "array", "items": I}
    {"kind": "object", "body": B, "properties": [{"name", "required", "type"}], "additional": I | null}
    {"kind": "union", "anyOf": [I, ...]}
    {"kind": "encoded", "encoding": E, "content": I}      E: "json-text" or "pg.jsonb"

Canonical means: unions flattened (a union never holds a union), deduplicated, literals subsumed by their
primitive dropped, ``true | false`` written ``boolean``, one-member unions replaced by the member;
properties sorted by name; bisimilar (structurally equal) subgraphs merged, so two declarations of the
same shape give one node, recursive shapes included; nodes numbered root-first, depth-first, with union
members ordered by a structural hash. The digest is SHA-256 over a domain prefix and the compact,
key-sorted JSON of the graph, so it sees stored key names, types, optionality, literals and formats, and
nothing else (no Python names, no declaration order, no comments).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.formats import FORMATS
from aimon_mongo.stored.declare import ENCODINGS, SCALAR_TYPES

DIGEST_DOMAIN: Final = "aimon-schema-gate/graph/v1\n"

KINDS: Final = ("primitive", "literal", "any", "array", "object", "union", "encoded")


@dataclass(frozen=True)
class Node:
    """One node. ``attrs`` holds the static part, ``children`` the edges (see :func:`node_to_json`).

    object attrs: ``(body, ((name, required), ...) sorted by name, has_additional)``; its children are
    the property types in that order, then the additional-properties type when present.
    """

    kind: str
    attrs: tuple[Any, ...]
    children: tuple[int, ...]


Graph = tuple[Node, ...]


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the byte form every digest in the gate is taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(domain: str, value: Any) -> str:
    """SHA-256 (lowercase hex) of ``domain`` followed by the canonical JSON of ``value``."""
    return hashlib.sha256((domain + canonical_json(value)).encode("utf-8")).hexdigest()


def canonicalize(nodes: Sequence[Node], root: int) -> Graph:
    """The canonical graph of the subgraph of ``nodes`` reachable from ``root`` (node 0 is the root)."""
    current, start = list(nodes), root
    while True:
        current, start = _reachable(current, start)
        current, start = _quotient(current, start, _refine(current))
        changed, current, start = _simplify(current, start)
        if not changed:
            break
    return _number(current, start, _refine(current))


def digest(graph: Graph) -> str:
    """The SHA-256 digest of a canonical graph."""
    return sha256_hex(DIGEST_DOMAIN, graph_to_json(graph))


def subgraph_digest(graph: Graph, node: int) -> str:
    """Digest of the canonical graph rooted at ``node`` (comparable across graphs)."""
    return digest(canonicalize(graph, node))


# ---------------------------------------------------------------------------------------- JSON form


def node_to_json(node: Node) -> dict[str, Any]:
    """The JSON object of one node."""
    kind, attrs, ch = node.kind, node.attrs, node.children
    if kind == "primitive":
        out: dict[str, Any] = {"kind": kind, "type": attrs[0]}
        if attrs[1] is not None:
            out["format"] = attrs[1]
        return out
    if kind == "literal":
        return {"kind": kind, "value": attrs[0]}
    if kind == "any":
        return {"kind": kind}
    if kind == "array":
        return {"kind": kind, "items": ch[0]}
    if kind == "object":
        body, props, has_additional = attrs
        properties = [{"name": name, "required": required, "type": ch[i]} for i, (name, required) in enumerate(props)]
        return {"kind": kind, "body": body, "properties": properties, "additional": ch[-1] if has_additional else None}
    if kind == "union":
        return {"kind": kind, "anyOf": list(ch)}
    return {"kind": kind, "encoding": attrs[0], "content": ch[0]}


def graph_to_json(graph: Graph) -> dict[str, Any]:
    """``{"root": 0, "nodes": [...]}``."""
    return {"root": 0, "nodes": [node_to_json(n) for n in graph]}


def graph_from_json(value: object, where: str) -> Graph:
    """Parse and validate the JSON form of a canonical graph (as stored in records and the inventory)."""
    if not isinstance(value, dict) or value.get("root") != 0 or not isinstance(value.get("nodes"), list):
        raise SchemaGateError("invalid-schema", f"{where}: not a schema graph ({{root: 0, nodes: [...]}})")
    raw = value["nodes"]
    nodes = tuple(_node_from_json(item, len(raw), f"{where} node {i}") for i, item in enumerate(raw))
    if not nodes:
        raise SchemaGateError("invalid-schema", f"{where}: a schema graph needs at least one node")
    return nodes


def _node_from_json(item: object, count: int, where: str) -> Node:
    def bad(reason: str) -> SchemaGateError:
        return SchemaGateError("invalid-schema", f"{where}: {reason}")

    def ref(value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
            raise bad(f"node reference {value!r} out of range")
        return value

    if not isinstance(item, dict) or item.get("kind") not in KINDS:
        raise bad("unknown node kind")
    kind = item["kind"]
    if kind == "primitive":
        fmt = item.get("format")
        if item.get("type") not in SCALAR_TYPES or (fmt is not None and fmt not in FORMATS):
            raise bad("unknown primitive type or format")
        return Node(kind, (item["type"], fmt), ())
    if kind == "literal":
        value = item.get("value")
        if not isinstance(value, str | int):  # bool is an int
            raise bad("literal value must be a string, integer or boolean")
        return Node(kind, (value,), ())
    if kind == "any":
        return Node(kind, (), ())
    if kind == "array":
        return Node(kind, (), (ref(item.get("items")),))
    if kind == "union":
        members = item.get("anyOf")
        if not isinstance(members, list) or len(members) < 2:
            raise bad("a union needs at least two members")
        return Node(kind, (), tuple(ref(m) for m in members))
    if kind == "encoded":
        if item.get("encoding") not in ENCODINGS:
            raise bad("unknown encoding")
        return Node(kind, (item["encoding"],), (ref(item.get("content")),))
    props = item.get("properties")
    if not isinstance(props, list) or not isinstance(item.get("body"), bool):
        raise bad("an object needs properties and body")
    names: list[tuple[str, bool]] = []
    children: list[int] = []
    for prop in props:
        if not isinstance(prop, dict) or not isinstance(prop.get("name"), str):
            raise bad("a property needs a name")
        if not isinstance(prop.get("required"), bool):
            raise bad(f"property {prop['name']!r} needs required: true|false")
        names.append((prop["name"], prop["required"]))
        children.append(ref(prop.get("type")))
    if [n for n, _ in names] != sorted({n for n, _ in names}):
        raise bad("properties must be unique and sorted by name")
    additional = item.get("additional")
    if additional is not None:
        children.append(ref(additional))
    return Node(kind, (item["body"], tuple(names), additional is not None), tuple(children))


# -------------------------------------------------------------------------------------- canonical form


def _label(node: Node) -> str:
    return canonical_json([node.kind, list(node.attrs)])


def _refine(nodes: Sequence[Node]) -> list[str]:
    """Structural hashes: equal exactly for bisimilar nodes (naive partition refinement to a fixpoint)."""
    labels = [_label(n) for n in nodes]
    hashes = [hashlib.sha256(label.encode()).hexdigest() for label in labels]
    count = len(set(hashes))
    while True:
        following = []
        for node, label in zip(nodes, labels, strict=True):
            kids = [hashes[c] for c in node.children]
            part = sorted(set(kids)) if node.kind == "union" else kids
            following.append(hashlib.sha256(f"{label}|{','.join(part)}".encode()).hexdigest())
        hashes = following
        new_count = len(set(hashes))
        if new_count == count:
            return hashes
        count = new_count


def _reachable(nodes: Sequence[Node], root: int) -> tuple[list[Node], int]:
    return _renumber(nodes, root, lambda n: nodes[n].children), 0


def _renumber(nodes: Sequence[Node], root: int, ordered: Callable[[int], Sequence[int]]) -> list[Node]:
    """The nodes reachable from ``root``, numbered depth-first in ``ordered`` child order (root is 0)."""
    index: dict[int, int] = {}
    order: list[int] = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n in index:
            continue
        index[n] = len(order)
        order.append(n)
        stack.extend(reversed(ordered(n)))
    return [Node(nodes[n].kind, nodes[n].attrs, tuple(index[c] for c in ordered(n))) for n in order]


def _quotient(nodes: Sequence[Node], root: int, hashes: Sequence[str]) -> tuple[list[Node], int]:
    cls: dict[str, int] = {}
    rep: list[int] = []
    for i, h in enumerate(hashes):
        if h not in cls:
            cls[h] = len(rep)
            rep.append(i)
    out = []
    for i in rep:
        node = nodes[i]
        kids = [cls[hashes[c]] for c in node.children]
        if node.kind == "union":
            kids = list(dict.fromkeys(kids))
        out.append(Node(node.kind, node.attrs, tuple(kids)))
    return out, cls[hashes[root]]


_SUBSUMES: Final = {str: {"string", "pg.text"}, int: {"integer", "number"}, bool: {"boolean"}}


def _simplify(nodes: list[Node], root: int) -> tuple[bool, list[Node], int]:
    """Flatten unions, drop subsumed literals, fold ``true|false``, alias one-member unions."""
    out = list(nodes)
    changed = False
    alias: dict[int, int] = {}
    for i, node in enumerate(nodes):
        if node.kind != "union":
            continue
        members = _flatten(nodes, i)
        prims = {nodes[m].attrs[0] for m in members if nodes[m].kind == "primitive" and nodes[m].attrs[1] is None}
        kept = [m for m in members if not _subsumed(nodes[m], prims)]
        bools = [m for m in kept if nodes[m].kind == "literal" and isinstance(nodes[m].attrs[0], bool)]
        if len({nodes[m].attrs[0] for m in bools}) == 2:
            kept = [m for m in kept if m not in bools]
            out.append(Node("primitive", ("boolean", None), ()))
            kept.append(len(out) - 1)
        kept = list(dict.fromkeys(kept))
        if not kept:
            raise SchemaGateError("invalid-declaration", "a union with no members")
        if kept != list(node.children):
            changed = True
            out[i] = Node("union", (), tuple(kept))
        if len(kept) == 1:
            alias[i] = kept[0]
    if not alias:
        return changed, out, root

    def resolve(n: int) -> int:
        seen = set()
        while n in alias:
            if n in seen:
                raise SchemaGateError("invalid-declaration", "a union that contains only itself")
            seen.add(n)
            n = alias[n]
        return n

    out = [Node(n.kind, n.attrs, tuple(resolve(c) for c in n.children)) for n in out]
    return True, out, resolve(root)


def _flatten(nodes: Sequence[Node], start: int) -> list[int]:
    members: list[int] = []
    seen = {start}
    stack = list(reversed(nodes[start].children))
    while stack:
        m = stack.pop()
        if nodes[m].kind == "union":
            if m in seen:
                continue
            seen.add(m)
            stack.extend(reversed(nodes[m].children))
        else:
            members.append(m)
    return members


def _subsumed(node: Node, prims: set[str]) -> bool:
    if node.kind != "literal":
        return False
    value = node.attrs[0]
    kind = bool if isinstance(value, bool) else type(value)
    return bool(_SUBSUMES.get(kind, set()) & prims)


def _number(nodes: Sequence[Node], root: int, hashes: Sequence[str]) -> Graph:
    def ordered(n: int) -> Sequence[int]:
        node = nodes[n]
        return sorted(node.children, key=lambda c: hashes[c]) if node.kind == "union" else node.children

    return tuple(_renumber(nodes, root, ordered))

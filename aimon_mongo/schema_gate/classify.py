"""The classifier: every structural difference between a root's recorded tip and its current shape.

Each change kind says whether it needs a compatibility review (an explicit ``--decision``) or is
same-version safe (the decision is inferred). Either way every change needs an acknowledgement record:
the classifier finds structural differences; it cannot prove what readers do with them.

=================================  ==================================================================
kind                               review?
=================================  ==================================================================
root-added                         no (no released reader reads a shape that did not exist)
root-removed                       yes
family-changed                     yes
format-version-changed             yes (and only a ``version-bump`` record may carry it)
optional-property-added            no inside a body object (readers ignore unknown keys), else yes
required-property-added            yes
property-removed                   yes
property-made-optional             yes
property-made-required             yes
type-changed                       yes (kind, scalar type, text format or encoding)
literal-values-added               yes
literal-values-removed             yes
union-variants-changed             yes
additional-properties-changed      yes (a map became an object or the reverse)
body-flag-changed                  yes
structure-changed                  yes (fallback: the digests differ and nothing finer was found)
=================================  ==================================================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from aimon_mongo.schema_gate.describe import child_path, describe, discriminator, show_discriminator
from aimon_mongo.schema_gate.graph import Graph, subgraph_digest
from aimon_mongo.schema_gate.inventory import RootSchema

REVIEW: Final = {
    "root-added": False,
    "root-removed": True,
    "family-changed": True,
    "format-version-changed": True,
    "optional-property-added": True,  # False inside a body object
    "required-property-added": True,
    "property-removed": True,
    "property-made-optional": True,
    "property-made-required": True,
    "type-changed": True,
    "literal-values-added": True,
    "literal-values-removed": True,
    "union-variants-changed": True,
    "additional-properties-changed": True,
    "body-flag-changed": True,
    "structure-changed": True,
}


@dataclass(frozen=True)
class Change:
    """One classified difference of one root."""

    root: str
    kind: str
    path: str
    description: str
    review: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "kind": self.kind,
            "path": self.path,
            "description": self.description,
            "requiresCompatibilityReview": self.review,
        }

    def line(self) -> str:
        flag = "compatibility review required" if self.review else "same-version safe"
        return f"{self.root} {self.path}: {self.description} [{self.kind}; {flag}]"


def classify(name: str, before: RootSchema | None, after: RootSchema | None) -> list[Change]:
    """Every change from ``before`` (the recorded tip, ``None`` if absent) to ``after`` (``None`` if gone)."""
    if before is None and after is None:
        return []
    if before is None:
        assert after is not None
        return [_change(name, "root-added", "$", f"new root of family {after.family} (version {after.version})")]
    if after is None:
        return [_change(name, "root-removed", "$", f"root of family {before.family} removed")]
    out: list[Change] = []
    if before.family != after.family:
        out.append(_change(name, "family-changed", "$", f"family {before.family} → {after.family}"))
    if before.version != after.version:
        out.append(_change(name, "format-version-changed", "$", f"format version {before.version} → {after.version}"))
    if before.digest != after.digest:
        comparer = _Comparer(name, before.graph, after.graph)
        comparer.compare(0, 0, "$")
        out.extend(comparer.changes or [_change(name, "structure-changed", "$", "the schema graph changed")])
    return out


def _change(root: str, kind: str, path: str, description: str, review: bool | None = None) -> Change:
    return Change(root, kind, path, description, REVIEW[kind] if review is None else review)


class _Comparer:
    def __init__(self, root: str, before: Graph, after: Graph) -> None:
        self.root, self.before, self.after = root, before, after
        self.changes: list[Change] = []
        self.seen: set[tuple[int, int]] = set()
        self.digests: dict[tuple[int, int], str] = {}

    def add(self, kind: str, path: str, description: str, review: bool | None = None) -> None:
        self.changes.append(_change(self.root, kind, path, description, review))

    def digest(self, side: int, node: int) -> str:
        key = (side, node)
        if key not in self.digests:
            self.digests[key] = subgraph_digest(self.before if side == 0 else self.after, node)
        return self.digests[key]

    def compare(self, b: int, a: int, path: str) -> None:
        if (b, a) in self.seen or self.digest(0, b) == self.digest(1, a):
            return
        self.seen.add((b, a))
        nb, na = self.before[b], self.after[a]
        if "union" in (nb.kind, na.kind) or nb.kind == na.kind == "literal":
            self._union(b, a, path)
        elif nb.kind != na.kind or nb.kind == "primitive" or (nb.kind == "encoded" and nb.attrs != na.attrs):
            self.add("type-changed", path, f"{describe(self.before, b)} → {describe(self.after, a)}")
        elif nb.kind == "array":
            self.compare(nb.children[0], na.children[0], path + "[]")
        elif nb.kind == "encoded":
            self.compare(nb.children[0], na.children[0], f"{path}<{nb.attrs[0]}>")
        elif nb.kind == "object":
            self._object(b, a, path)

    def _object(self, b: int, a: int, path: str) -> None:
        nb, na = self.before[b], self.after[a]
        body_b, props_b, extra_b = nb.attrs
        body_a, props_a, extra_a = na.attrs
        if body_b != body_a:
            self.add("body-flag-changed", path, "now a body object" if body_a else "no longer a body object")
        before = {name: (req, nb.children[i]) for i, (name, req) in enumerate(props_b)}
        after = {name: (req, na.children[i]) for i, (name, req) in enumerate(props_a)}
        for name in sorted(before.keys() - after.keys()):
            self.add("property-removed", child_path(path, name), "property removed")
        for name in sorted(after.keys() - before.keys()):
            req, child = after[name]
            what = describe(self.after, child)
            if req:
                self.add("required-property-added", child_path(path, name), f"required property added ({what})")
            else:
                self.add(
                    "optional-property-added",
                    child_path(path, name),
                    f"optional property added ({what})" + (" to a body" if body_a else ""),
                    review=not body_a,
                )
        for name in sorted(before.keys() & after.keys()):
            (req_b, child_b), (req_a, child_a) = before[name], after[name]
            if req_b and not req_a:
                self.add("property-made-optional", child_path(path, name), "property made optional")
            elif req_a and not req_b:
                self.add("property-made-required", child_path(path, name), "property made required")
            self.compare(child_b, child_a, child_path(path, name))
        if extra_b and extra_a:
            self.compare(nb.children[-1], na.children[-1], path + "{*}")
        elif extra_b != extra_a:
            self.add(
                "additional-properties-changed",
                path,
                "now accepts any further keys (a map)" if extra_a else "no longer accepts further keys",
            )

    def _union(self, b: int, a: int, path: str) -> None:
        mb, ma = _members(self.before, b), _members(self.after, a)
        lit_b = {json.dumps(self.before[m].attrs[0]) for m in mb if self.before[m].kind == "literal"}
        lit_a = {json.dumps(self.after[m].attrs[0]) for m in ma if self.after[m].kind == "literal"}
        if lit_a - lit_b:
            self.add("literal-values-added", path, "literal values added: " + ", ".join(sorted(lit_a - lit_b)))
        if lit_b - lit_a:
            self.add("literal-values-removed", path, "literal values removed: " + ", ".join(sorted(lit_b - lit_a)))
        rest_b = [m for m in mb if self.before[m].kind != "literal"]
        rest_a = [m for m in ma if self.after[m].kind != "literal"]
        same = {self.digest(1, m) for m in rest_a} & {self.digest(0, m) for m in rest_b}
        rest_b = [m for m in rest_b if self.digest(0, m) not in same]
        rest_a = [m for m in rest_a if self.digest(1, m) not in same]
        rest_b, rest_a = self._pair_by_discriminator(rest_b, rest_a, path)
        if len(rest_b) == 1 and len(rest_a) == 1:
            self.compare(rest_b[0], rest_a[0], path)
        elif rest_b or rest_a:
            parts = [f"variant {describe(self.before, m, 1)} removed" for m in rest_b]
            parts += [f"variant {describe(self.after, m, 1)} added" for m in rest_a]
            self.add("union-variants-changed", path, "; ".join(parts))

    def _pair_by_discriminator(self, rest_b: list[int], rest_a: list[int], path: str) -> tuple[list[int], list[int]]:
        tags_b = {m: discriminator(self.before, m) for m in rest_b}
        tags_a = {m: discriminator(self.after, m) for m in rest_a}
        values_b, values_a = list(tags_b.values()), list(tags_a.values())
        paired_b, paired_a = set(), set()
        for mb, tag in tags_b.items():
            if not tag or values_b.count(tag) != 1 or values_a.count(tag) != 1:
                continue
            ma = next(m for m, t in tags_a.items() if t == tag)
            paired_b.add(mb)
            paired_a.add(ma)
            self.compare(mb, ma, f"{path}({show_discriminator(tag)})")
        return [m for m in rest_b if m not in paired_b], [m for m in rest_a if m not in paired_a]


def _members(graph: Graph, node: int) -> list[int]:
    return list(graph[node].children) if graph[node].kind == "union" else [node]

"""The inventory: every declared root with its family, format version, canonical graph and digest.

``schema/inventory.json`` is the committed form (generated; ``check`` refuses a stale one). Record
``<id>.schema.json`` files hold the same per-root entries for the roots a record changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.graph import Graph, digest, graph_from_json, graph_to_json

INVENTORY_SCHEMA_VERSION: Final = 1
ROOT_NAME = re.compile(r"[a-z0-9]+(?:[.-][a-z0-9]+)*\Z")


@dataclass(frozen=True)
class RootSchema:
    """One root as the gate sees it."""

    name: str
    family: str
    version: int
    graph: Graph

    @cached_property
    def digest(self) -> str:
        return digest(self.graph)

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "version": self.version,
            "digest": self.digest,
            "schema": graph_to_json(self.graph),
        }

    @classmethod
    def from_json(cls, name: str, value: object, where: str) -> RootSchema:
        """Parse one root entry; the stored digest must match the stored schema."""
        if not isinstance(value, Mapping):
            raise SchemaGateError("invalid-schema", f"{where}: root {name!r} is not an object")
        family, version = value.get("family"), value.get("version")
        if not isinstance(family, str) or isinstance(version, bool) or not isinstance(version, int):
            raise SchemaGateError("invalid-schema", f"{where}: root {name!r} needs a family and an integer version")
        entry = cls(name, family, version, graph_from_json(value.get("schema"), f"{where} root {name!r}"))
        if value.get("digest") != entry.digest:
            raise SchemaGateError("digest-mismatch", f"{where}: root {name!r}: the digest does not match its schema")
        return entry


@dataclass(frozen=True)
class Inventory:
    """Roots by name."""

    roots: Mapping[str, RootSchema]

    @classmethod
    def of(cls, roots: Iterable[RootSchema]) -> Inventory:
        by_name: dict[str, RootSchema] = {}
        families: dict[str, int] = {}
        for entry in roots:
            if not ROOT_NAME.match(entry.name):
                raise SchemaGateError(
                    "invalid-declaration", f"root name {entry.name!r} must be lower-case words joined by . or -"
                )
            if entry.name in by_name:
                raise SchemaGateError("duplicate-root", f"root {entry.name!r} is declared twice")
            if families.setdefault(entry.family, entry.version) != entry.version:
                raise SchemaGateError(
                    "family-conflict",
                    f"family {entry.family!r} is declared with two versions "
                    f"({families[entry.family]} and {entry.version})",
                )
            by_name[entry.name] = entry
        return cls(dict(sorted(by_name.items())))

    @property
    def families(self) -> dict[str, int]:
        return {e.family: e.version for e in sorted(self.roots.values(), key=lambda e: e.family)}

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": INVENTORY_SCHEMA_VERSION,
            "families": self.families,
            "roots": {name: entry.to_json() for name, entry in self.roots.items()},
        }

    def render(self) -> str:
        """The committed text of ``schema/inventory.json``."""
        return pretty_json(self.to_json())

    @classmethod
    def from_json(cls, value: object, where: str) -> Inventory:
        if not isinstance(value, Mapping) or value.get("schemaVersion") != INVENTORY_SCHEMA_VERSION:
            raise SchemaGateError("invalid-inventory", f"{where}: not a schema inventory (schemaVersion 1)")
        roots = value.get("roots")
        if not isinstance(roots, Mapping):
            raise SchemaGateError("invalid-inventory", f"{where}: roots must be an object")
        return cls.of(RootSchema.from_json(name, entry, where) for name, entry in roots.items())

    @classmethod
    def from_text(cls, text: str, where: str) -> Inventory:
        try:
            return cls.from_json(json.loads(text), where)
        except json.JSONDecodeError as exc:
            raise SchemaGateError("invalid-inventory", f"{where}: not JSON ({exc.msg})") from None


def pretty_json(value: Any) -> str:
    """Indented, key-sorted JSON with a final newline: the committed form of every gate file."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

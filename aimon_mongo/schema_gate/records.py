"""Acknowledgement records under ``schema/changes/``: ``<id>.md`` and ``<id>.schema.json``.

``<id>.md`` holds exactly one machine block (a fenced block with the info string ``json schema-change``)
and the prose sections ``## Summary``, ``## Compatibility`` and ``## Verification``::

    {"schemaVersion": 1, "id": "2026-11-30-baseline", "baseline": true,
     "changes": [{"root": "...", "previous": <record id or null>, "after": <digest or null>,
                  "decision": "same-version" | "version-bump"}]}

``previous`` is the record holding the root's prior shape (``null`` for a root never seen before);
``after`` is the root's new digest (``null`` when the root was removed). ``<id>.schema.json`` holds the
complete after-schemas of the roots whose ``after`` is not null. The record digest (what a finalized
checkpoint locks) covers the machine block and the schemas; the prose is outside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.graph import sha256_hex
from aimon_mongo.schema_gate.inventory import ROOT_NAME, RootSchema, pretty_json

RECORD_SCHEMA_VERSION: Final = 1
RECORD_ID = re.compile(r"\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*\Z")
DIGEST = re.compile(r"[0-9a-f]{64}\Z")
DECISIONS: Final = ("same-version", "version-bump")
MACHINE_INFO: Final = "json schema-change"
SECTIONS: Final = ("Summary", "Compatibility", "Verification")
PLACEHOLDER_MARK: Final = "TODO:"
PLACEHOLDERS: Final = {
    "Summary": "TODO: explain this change (which roots, which keys, why).",
    "Compatibility": (
        "TODO: describe how readers of older and newer builds behave: resume, ignore-and-preserve, "
        "or refuse before mutation (with the diagnostic they give)."
    ),
    "Verification": "TODO: record the checks you ran (test files, counts, results).",
}
RECORD_DIGEST_DOMAIN: Final = "aimon-schema-gate/record/v1\n"
_FENCE = re.compile(r"^```(.*)$")
_HEADING = re.compile(r"^## (.+?)\s*$")


def check_record_id(record_id: str) -> None:
    """Refuse an id that is not ``YYYY-MM-DD-words-joined-by-dashes``."""
    if not isinstance(record_id, str) or not RECORD_ID.match(record_id):
        raise SchemaGateError(
            "invalid-record-id", f"record id {record_id!r} must look like 2026-11-30-short-slug (lower case)"
        )


@dataclass(frozen=True)
class ChangeEntry:
    """One root's transition in a record."""

    root: str
    previous: str | None
    after: str | None
    decision: str

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "previous": self.previous, "after": self.after, "decision": self.decision}


@dataclass(frozen=True)
class Record:
    """A parsed acknowledgement record."""

    id: str
    baseline: bool
    changes: tuple[ChangeEntry, ...]
    schemas: Mapping[str, RootSchema]
    prose: Mapping[str, str] = field(default_factory=dict)

    def machine(self) -> dict[str, Any]:
        return {
            "schemaVersion": RECORD_SCHEMA_VERSION,
            "id": self.id,
            "baseline": self.baseline,
            "changes": [c.to_json() for c in sorted(self.changes, key=lambda c: c.root)],
        }

    def schema_file(self) -> dict[str, Any]:
        return {
            "schemaVersion": RECORD_SCHEMA_VERSION,
            "id": self.id,
            "roots": {name: self.schemas[name].to_json() for name in sorted(self.schemas)},
        }

    @property
    def digest(self) -> str:
        """SHA-256 over the machine block and the schemas (prose excluded)."""
        return sha256_hex(RECORD_DIGEST_DOMAIN, {"record": self.machine(), "schemas": self.schema_file()})

    @property
    def decision(self) -> str:
        return self.changes[0].decision

    def change(self, root: str) -> ChangeEntry | None:
        return next((c for c in self.changes if c.root == root), None)

    def draft_sections(self) -> list[str]:
        """Sections still missing, empty or holding placeholder text."""
        return [s for s in SECTIONS if not self.prose.get(s, "").strip() or PLACEHOLDER_MARK in self.prose.get(s, "")]

    def render(self) -> str:
        """The text of ``<id>.md``."""
        parts = [
            f"# Schema change record {self.id}\n",
            "<!-- The machine block is written by `python -m aimon_mongo.schema_gate` and checked by `check`;",
            "     once the record is finalized it must never change. Edit the prose sections freely. -->\n",
            f"```{MACHINE_INFO}",
            json.dumps(self.machine(), indent=2, ensure_ascii=False),
            "```\n",
        ]
        for section in SECTIONS:
            parts.append(f"## {section}\n")
            parts.append(self.prose.get(section, PLACEHOLDERS[section]).strip() + "\n")
        return "\n".join(parts)


def parse_prose(text: str) -> dict[str, str]:
    """The ``## `` sections of a record (title → text)."""
    sections: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            if current is not None:
                sections[current] = "\n".join(lines).strip()
            current, lines = heading.group(1), []
        elif current is not None:
            lines.append(line)
    if current is not None:
        sections[current] = "\n".join(lines).strip()
    return sections


def _machine_block(text: str, where: str) -> dict[str, Any]:
    blocks: list[list[str]] = []
    inside: list[str] | None = None
    outer_fence = False
    for line in text.splitlines():
        fence = _FENCE.match(line)
        if inside is not None:
            if fence and not fence.group(1).strip():
                blocks.append(inside)
                inside = None
            else:
                inside.append(line)
        elif fence:
            if not outer_fence and fence.group(1).strip() == MACHINE_INFO:
                inside = []
            else:
                outer_fence = not outer_fence
    if len(blocks) != 1:
        raise SchemaGateError(
            "invalid-record", f"{where}: needs exactly one ```{MACHINE_INFO} block, found {len(blocks)}"
        )
    try:
        value = json.loads("\n".join(blocks[0]))
    except json.JSONDecodeError as exc:
        raise SchemaGateError("invalid-record", f"{where}: the machine block is not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise SchemaGateError("invalid-record", f"{where}: the machine block must be a JSON object")
    return value


def parse_record(record_id: str, markdown: str, schema_text: str | None) -> Record:
    """Parse and validate one record from its two files (``schema_text`` None when the file is missing)."""
    where = f"schema/changes/{record_id}.md"
    machine = _machine_block(markdown, where)

    def bad(reason: str) -> SchemaGateError:
        return SchemaGateError("invalid-record", f"{where}: {reason}")

    if set(machine) != {"schemaVersion", "id", "baseline", "changes"} or machine["schemaVersion"] != 1:
        raise bad("the machine block needs exactly schemaVersion (1), id, baseline, changes")
    if machine["id"] != record_id:
        raise bad(f"id {machine['id']!r} does not match the file name")
    if not isinstance(machine["baseline"], bool) or not isinstance(machine["changes"], list) or not machine["changes"]:
        raise bad("baseline must be true/false and changes a non-empty list")
    changes: list[ChangeEntry] = []
    for item in machine["changes"]:
        if not isinstance(item, dict) or set(item) != {"root", "previous", "after", "decision"}:
            raise bad("each change needs exactly root, previous, after, decision")
        root, previous, after, decision = item["root"], item["previous"], item["after"], item["decision"]
        if not isinstance(root, str) or not ROOT_NAME.match(root):
            raise bad(f"invalid root name {root!r}")
        if previous is not None and (not isinstance(previous, str) or not RECORD_ID.match(previous)):
            raise bad(f"{root}: previous must be a record id or null")
        if after is not None and (not isinstance(after, str) or not DIGEST.match(after)):
            raise bad(f"{root}: after must be a 64-hex digest or null")
        if decision not in DECISIONS:
            raise bad(f"{root}: decision must be one of {', '.join(DECISIONS)}")
        changes.append(ChangeEntry(root, previous, after, decision))
    if len({c.root for c in changes}) != len(changes):
        raise bad("a root appears twice in changes")
    schemas = _parse_schemas(record_id, schema_text)
    expected = {c.root: c.after for c in changes if c.after is not None}
    if set(schemas) != set(expected):
        raise SchemaGateError(
            "invalid-record",
            f"schema/changes/{record_id}.schema.json: roots {sorted(schemas)} do not equal the record's "
            f"non-null after roots {sorted(expected)}",
        )
    for name, entry in schemas.items():
        if entry.digest != expected[name]:
            raise SchemaGateError(
                "digest-mismatch", f"schema/changes/{record_id}.schema.json: {name}: schema does not match after digest"
            )
    return Record(
        record_id, machine["baseline"], tuple(sorted(changes, key=lambda c: c.root)), schemas, parse_prose(markdown)
    )


def _parse_schemas(record_id: str, text: str | None) -> dict[str, RootSchema]:
    where = f"schema/changes/{record_id}.schema.json"
    if text is None:
        raise SchemaGateError("invalid-record", f"{where} is missing")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaGateError("invalid-record", f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(value, dict) or value.get("schemaVersion") != 1 or value.get("id") != record_id:
        raise SchemaGateError("invalid-record", f"{where}: needs schemaVersion 1 and id {record_id!r}")
    roots = value.get("roots")
    if not isinstance(roots, dict):
        raise SchemaGateError("invalid-record", f"{where}: roots must be an object")
    return {name: RootSchema.from_json(name, entry, where) for name, entry in roots.items()}


def load_records(directory: Path) -> tuple[dict[str, Record], list[SchemaGateError]]:
    """Every record in ``directory`` and the problems of the files that did not parse."""
    records: dict[str, Record] = {}
    problems: list[SchemaGateError] = []
    if not directory.is_dir():
        return records, problems
    markdown = {p.name[: -len(".md")] for p in directory.glob("*.md") if p.name != "README.md"}
    schemas = {p.name[: -len(".schema.json")] for p in directory.glob("*.schema.json")}
    for orphan in sorted(schemas - markdown):
        problems.append(SchemaGateError("invalid-record", f"schema/changes/{orphan}.schema.json has no {orphan}.md"))
    for record_id in sorted(markdown):
        try:
            check_record_id(record_id)
            schema_path = directory / f"{record_id}.schema.json"
            schema_text = schema_path.read_text("utf-8") if schema_path.is_file() else None
            records[record_id] = parse_record(
                record_id, (directory / f"{record_id}.md").read_text("utf-8"), schema_text
            )
        except SchemaGateError as exc:
            problems.append(exc)
    return records, problems


def write_record(directory: Path, record: Record, *, exclusive: bool) -> list[Path]:
    """Write both files of ``record``; ``exclusive`` refuses to touch an existing record."""
    directory.mkdir(parents=True, exist_ok=True)
    md, schema = directory / f"{record.id}.md", directory / f"{record.id}.schema.json"
    mode = "x" if exclusive else "w"
    if exclusive and (md.exists() or schema.exists()):
        raise SchemaGateError("record-exists", f"record {record.id} already exists; records are created exclusively")
    with md.open(mode, encoding="utf-8") as out:
        out.write(record.render())
    with schema.open(mode, encoding="utf-8") as out:
        out.write(pretty_json(record.schema_file()))
    return [md, schema]


def read_prose_file(path: Path) -> dict[str, str]:
    """A ``--prose`` file: JSON ``{"summary", "compatibility", "verification"}``, all filled in."""
    try:
        value = json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SchemaGateError("invalid-prose", f"cannot read prose file {path}: {exc}") from None
    if not isinstance(value, dict):
        raise SchemaGateError("invalid-prose", f"{path}: must be a JSON object")
    prose: dict[str, str] = {}
    for section in SECTIONS:
        text = value.get(section.lower())
        if not isinstance(text, str) or not text.strip() or PLACEHOLDER_MARK in text:
            raise SchemaGateError("invalid-prose", f"{path}: '{section.lower()}' must be filled-in text")
        prose[section] = text.strip()
    return prose

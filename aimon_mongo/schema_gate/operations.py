"""The gate's operations: check, baseline, record, update, review, finalize, generate.

Each returns an :class:`Outcome` (what the CLI prints, as text or ``--json``); none raises for a refusal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate import checkpoints as cps
from aimon_mongo.schema_gate.classify import Change, classify
from aimon_mongo.schema_gate.conformance import inventory_errors
from aimon_mongo.schema_gate.docs import render as render_docs
from aimon_mongo.schema_gate.history import Delta, History, build_history, pending
from aimon_mongo.schema_gate.inventory import Inventory
from aimon_mongo.schema_gate.loader import DEFAULT_DECLARATIONS, load_inventory
from aimon_mongo.schema_gate.records import (
    ChangeEntry,
    Record,
    check_record_id,
    load_records,
    read_prose_file,
    write_record,
)
from aimon_mongo.schema_gate.samples import sample_problems

OUTCOME_SCHEMA_VERSION: Final = 1


@dataclass(frozen=True)
class Project:
    """Where the gate reads and writes: ``<root>/schema/`` and ``<root>/docs/persisted-formats.md``."""

    root: Path
    declarations: str | Path = DEFAULT_DECLARATIONS

    @property
    def schema_dir(self) -> Path:
        return self.root / "schema"

    @property
    def changes_dir(self) -> Path:
        return self.schema_dir / "changes"

    @property
    def finalized_dir(self) -> Path:
        return self.schema_dir / "finalized"

    @property
    def inventory_path(self) -> Path:
        return self.schema_dir / "inventory.json"

    @property
    def docs_path(self) -> Path:
        return self.root / "docs" / "persisted-formats.md"

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


@dataclass
class Outcome:
    """The result of one operation."""

    operation: str
    ok: bool
    message: str
    code: str | None = None
    changes: list[Change] = field(default_factory=list)
    problems: list[SchemaGateError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    record_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schemaVersion": OUTCOME_SCHEMA_VERSION,
            "ok": self.ok,
            "operation": self.operation,
            "message": self.message,
            "changes": [c.to_json() for c in self.changes],
            "problems": [{"code": p.code, "message": str(p)} for p in self.problems],
            "files": self.files,
        }
        if self.code is not None:
            out["code"] = self.code
        if self.record_id is not None:
            out["recordId"] = self.record_id
        return out

    def text(self) -> str:
        lines = [self.message]
        lines += [f"  [{p.code}] {p}" for p in self.problems]
        lines += [f"  {c.line()}" for c in self.changes]
        lines += [f"  wrote {f}" for f in self.files]
        return "\n".join(lines)


def _refused(operation: str, error: SchemaGateError, changes: Sequence[Change] = ()) -> Outcome:
    return Outcome(operation, False, str(error), error.code, list(changes), [error])


@dataclass(frozen=True)
class _State:
    inventory: Inventory
    history: History
    problems: list[SchemaGateError]


def _state(project: Project) -> _State:
    inventory = load_inventory(project.declarations)
    records, problems = load_records(project.changes_dir)
    history, history_problems = build_history(records)
    return _State(inventory, history, problems + history_problems)


def _write_generated(project: Project, inventory: Inventory) -> list[str]:
    written = []
    for path, text in ((project.inventory_path, inventory.render()), (project.docs_path, render_docs(inventory))):
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")
            written.append(project.relative(path))
    return written


def _freshness(project: Project, inventory: Inventory) -> list[SchemaGateError]:
    problems = []
    for path, text, what in (
        (project.inventory_path, inventory.render(), "inventory"),
        (project.docs_path, render_docs(inventory), "docs"),
    ):
        if not path.is_file():
            problems.append(SchemaGateError(f"{what}-missing", f"{project.relative(path)} is missing (run `generate`)"))
        elif path.read_text("utf-8") != text:
            problems.append(
                SchemaGateError(
                    f"stale-{what}", f"{project.relative(path)} differs from the declarations (run `generate`)"
                )
            )
    return problems


def check(project: Project) -> Outcome:
    """The CI gate: valid history and checkpoints, no drafts, no unacknowledged change, fresh artifacts."""
    try:
        state = _state(project)
    except SchemaGateError as exc:
        return _refused("check", exc)
    problems = list(state.problems)
    for record in state.history.records.values():
        drafts = record.draft_sections()
        if drafts:
            problems.append(
                SchemaGateError(
                    "draft-record", f"{record.id}: section(s) {', '.join(drafts)} still missing or placeholder"
                )
            )
    checkpoints, cp_problems = cps.load_checkpoints(project.finalized_dir)
    problems += cp_problems + cps.verify(checkpoints, state.history, state.inventory)
    if not state.history.records:
        problems.append(
            SchemaGateError("baseline-missing", "no change records yet: create the baseline (`baseline ID`)")
        )
    deltas = pending(state.history, state.inventory)
    changes = [c for d in deltas for c in d.changes]
    if deltas:
        review = any(c.review for c in changes)
        problems.append(
            SchemaGateError(
                "unacknowledged-changes",
                f"{len(deltas)} root(s) differ from their records"
                + (" (compatibility review required)" if review else " (same-version safe)")
                + ": "
                + ", ".join(d.root for d in deltas)
                + "; acknowledge with `record ID`",
            )
        )
    problems += _freshness(project, state.inventory)
    if project.declarations == DEFAULT_DECLARATIONS:  # the codecs of this package write these declarations
        problems += sample_problems(lambda root, value: inventory_errors(state.inventory, root, value))
    if problems:
        return Outcome("check", False, f"schema gate: {len(problems)} problem(s)", problems[0].code, changes, problems)
    finalized = len(checkpoints[-1].accepted) if checkpoints else 0
    message = (
        f"schema gate: {len(state.inventory.roots)} roots match {len(state.history.records)} change records "
        f"({finalized} finalized" + (f" in v{checkpoints[-1].number})" if checkpoints else ")")
    )
    return Outcome("check", True, message)


def generate(project: Project) -> Outcome:
    """Rewrite ``schema/inventory.json`` and ``docs/persisted-formats.md`` from the declarations."""
    try:
        inventory = load_inventory(project.declarations)
    except SchemaGateError as exc:
        return _refused("generate", exc)
    files = _write_generated(project, inventory)
    return Outcome("generate", True, f"generated artifacts for {len(inventory.roots)} roots", files=files)


def baseline(project: Project, record_id: str, prose_file: Path | None = None) -> Outcome:
    """Record every current root as the start of history (only when no record exists yet)."""
    try:
        check_record_id(record_id)
        prose = read_prose_file(prose_file) if prose_file else {}
        if project.changes_dir.is_dir() and any(
            p.name != "README.md" for p in project.changes_dir.iterdir() if p.suffix in (".md", ".json")
        ):
            raise SchemaGateError("history-exists", "baseline creation cannot reset history: records already exist")
        inventory = load_inventory(project.declarations)
        record = _baseline_record(record_id, inventory, prose)
        files = [project.relative(p) for p in write_record(project.changes_dir, record, exclusive=True)]
    except SchemaGateError as exc:
        return _refused("baseline", exc)
    files += _write_generated(project, inventory)
    return Outcome(
        "baseline",
        True,
        f"baseline {record_id}: {len(record.changes)} roots recorded",
        files=files,
        record_id=record_id,
    )


def _baseline_record(record_id: str, inventory: Inventory, prose: Mapping[str, str]) -> Record:
    changes = tuple(ChangeEntry(name, None, e.digest, "same-version") for name, e in inventory.roots.items())
    return Record(record_id, True, changes, dict(inventory.roots), dict(prose))


def _decide(deltas: Sequence[Delta], decision: str | None) -> str:
    """The record's decision, or a refusal: explicit wins (if valid), else inferred, else decision-required."""
    changes = [c for d in deltas for c in d.changes]
    lowered = [d.root for d in deltas if d.version_change < 0]
    if lowered:
        raise SchemaGateError("version-decrease", f"format version decreased for {', '.join(lowered)}")
    raised = [d.root for d in deltas if d.version_change > 0]
    if decision is None:
        if raised:
            return "version-bump"
        flagged = [c for c in changes if c.review]
        if flagged:
            raise SchemaGateError(
                "decision-required",
                f"{len(flagged)} change(s) need a compatibility review: review reader compatibility and choose "
                "--decision same-version or --decision version-bump",
            )
        return "same-version"
    if decision == "same-version" and raised:
        raise SchemaGateError(
            "version-transition-required",
            f"the format version changed for {', '.join(raised)}: only --decision version-bump can record it",
        )
    if decision == "version-bump":
        flat = [d.root for d in deltas if d.before is not None and d.after is not None and d.version_change <= 0]
        if not raised or flat:
            raise SchemaGateError(
                "version-increase-required",
                "--decision version-bump needs the family's format-version constant to increase"
                + (f" (unchanged for {', '.join(flat)})" if flat else ""),
            )
    return decision


def _record_from(record_id: str, deltas: Sequence[Delta], decision: str, prose: Mapping[str, str]) -> Record:
    changes = tuple(ChangeEntry(d.root, d.previous, d.after.digest if d.after else None, decision) for d in deltas)
    schemas = {d.root: d.after for d in deltas if d.after is not None}
    return Record(record_id, False, changes, schemas, dict(prose))


def _validate_with(history: History, record: Record) -> None:
    records = {**history.records, record.id: record}
    _, problems = build_history(records)
    if problems:
        raise problems[0]


def record(project: Project, record_id: str, decision: str | None = None, prose_file: Path | None = None) -> Outcome:
    """Acknowledge every pending change in a new record ``record_id`` (created exclusively)."""
    deltas: list[Delta] = []
    try:
        check_record_id(record_id)
        prose = read_prose_file(prose_file) if prose_file else {}
        state = _state(project)
        if state.problems:
            raise SchemaGateError("history-invalid", f"fix the history first: {state.problems[0]}")
        if not state.history.records:
            raise SchemaGateError("baseline-missing", "no history yet: create the baseline first (`baseline ID`)")
        if record_id in state.history.records:
            raise SchemaGateError(
                "record-exists", f"record {record_id} already exists; records are created exclusively"
            )
        deltas = pending(state.history, state.inventory)
        if not deltas:
            raise SchemaGateError("no-changes", "no stored-shape changes to acknowledge")
        chosen = _decide(deltas, decision)
        new = _record_from(record_id, deltas, chosen, prose)
        _validate_with(state.history, new)
        files = [project.relative(p) for p in write_record(project.changes_dir, new, exclusive=True)]
    except SchemaGateError as exc:
        return _refused("record", exc, [c for d in deltas for c in d.changes])
    files += _write_generated(project, state.inventory)
    draft = "" if prose else "; fill in its Summary, Compatibility and Verification sections"
    return Outcome(
        "record",
        True,
        f"recorded {record_id} ({chosen}) for {len(deltas)} root(s){draft}",
        changes=[c for d in deltas for c in d.changes],
        files=files,
        record_id=record_id,
    )


def update(project: Project, record_id: str, decision: str | None = None, prose_file: Path | None = None) -> Outcome:
    """Refresh an unfinalized record that has no successor against the current declarations."""
    deltas: list[Delta] = []
    try:
        check_record_id(record_id)
        prose_given = read_prose_file(prose_file) if prose_file else None
        state = _state(project)
        if state.problems:
            raise SchemaGateError("history-invalid", f"fix the history first: {state.problems[0]}")
        existing = state.history.records.get(record_id)
        if existing is None:
            raise SchemaGateError("record-missing", f"no record {record_id} to update")
        checkpoints, _ = cps.load_checkpoints(project.finalized_dir)
        if checkpoints and record_id in checkpoints[-1].accepted:
            raise SchemaGateError("finalized-record-update", f"record {record_id} is finalized and can never change")
        if not state.history.is_terminal(record_id):
            raise SchemaGateError(
                "record-has-successors", f"record {record_id} has successors; record a new change instead"
            )
        prose = (
            prose_given
            if prose_given is not None
            else {k: v for k, v in existing.prose.items() if k in ("Summary", "Compatibility", "Verification")}
        )
        rest = {rid: r for rid, r in state.history.records.items() if rid != record_id}
        history, _ = build_history(rest)
        if existing.baseline:
            new = _baseline_record(record_id, state.inventory, prose)
            chosen = "same-version"
        else:
            deltas = pending(history, state.inventory)
            if not deltas:
                raise SchemaGateError("no-changes", f"nothing left to acknowledge in {record_id}; delete it instead")
            chosen = _decide(deltas, decision)
            new = _record_from(record_id, deltas, chosen, prose)
        _validate_with(history, new)
        files = [project.relative(p) for p in write_record(project.changes_dir, new, exclusive=False)]
    except SchemaGateError as exc:
        return _refused("update", exc, [c for d in deltas for c in d.changes])
    files += _write_generated(project, state.inventory)
    return Outcome(
        "update",
        True,
        f"updated {record_id} ({chosen}) for {len(new.changes)} root(s)",
        changes=[c for d in deltas for c in d.changes],
        files=files,
        record_id=record_id,
    )


def finalize(project: Project) -> Outcome:
    """Lock every current record in the next checkpoint ``schema/finalized/vN.json`` (needs a clean check)."""
    verdict = check(project)
    if not verdict.ok:
        return Outcome(
            "finalize",
            False,
            "finalize needs a passing check: " + verdict.message,
            verdict.code,
            verdict.changes,
            verdict.problems,
        )
    try:
        state = _state(project)
        checkpoints, _ = cps.load_checkpoints(project.finalized_dir)
        latest = checkpoints[-1] if checkpoints else None
        if latest is not None and set(latest.accepted) == set(state.history.records):
            raise SchemaGateError("nothing-to-finalize", f"every record is already finalized in v{latest.number}")
        content = cps.build_checkpoint(len(checkpoints) + 1, latest, state.history)
        path = cps.write_checkpoint(project.finalized_dir, content)
    except SchemaGateError as exc:
        return _refused("finalize", exc)
    return Outcome(
        "finalize",
        True,
        f"finalized v{content['checkpoint']}: {len(content['acceptedRecords'])} records locked",
        files=[project.relative(path)],
    )


def review(before: Path, after: Path) -> Outcome:
    """Read-only comparison of two inventory files (e.g. the base branch's and the head's)."""
    try:
        old = Inventory.from_text(before.read_text("utf-8"), str(before))
        new = Inventory.from_text(after.read_text("utf-8"), str(after))
    except OSError as exc:
        return _refused("review", SchemaGateError("review-input", f"cannot read inventory: {exc}"))
    except SchemaGateError as exc:
        return _refused("review", exc)
    changes = [
        c
        for name in sorted(set(old.roots) | set(new.roots))
        for c in classify(name, old.roots.get(name), new.roots.get(name))
    ]
    roots = len({c.root for c in changes})
    flagged = sum(c.review for c in changes)
    message = f"review: {roots} root(s) changed, {len(changes)} change(s), {flagged} need compatibility review"
    return Outcome("review", True, message, changes=changes)

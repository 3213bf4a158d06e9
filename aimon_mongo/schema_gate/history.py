"""History: the records as one linear chain per root, validated, and the tip of every root.

Rules: exactly one baseline (its changes have ``previous: null``, a non-null ``after`` and
``same-version``); every ``previous`` names an existing record that holds the root; at most one successor
per (record, root) — two is a forked history; every change must be reachable from the start of its
root's chain (no cycles, no detached records); no acknowledgement without a difference; one decision per
record; a format-version change only in a ``version-bump`` record, and a ``version-bump`` record only
with increasing format versions (never a decrease).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.classify import Change, classify
from aimon_mongo.schema_gate.inventory import Inventory, RootSchema
from aimon_mongo.schema_gate.records import Record


@dataclass(frozen=True)
class Tip:
    """The last record of a root's chain; ``schema`` is None when that record removed the root."""

    record: str
    schema: RootSchema | None


@dataclass(frozen=True)
class Delta:
    """A root whose current shape differs from its tip."""

    root: str
    previous: str | None
    before: RootSchema | None
    after: RootSchema | None
    changes: tuple[Change, ...]

    @property
    def version_change(self) -> int:
        """+1 when the format version increased, -1 when it decreased, 0 otherwise (or no both sides)."""
        if self.before is None or self.after is None or self.before.version == self.after.version:
            return 0
        return 1 if self.after.version > self.before.version else -1


@dataclass(frozen=True)
class History:
    """Validated records with each root's tip."""

    records: Mapping[str, Record]
    tips: Mapping[str, Tip]
    successors: Mapping[tuple[str, str], str]

    def schema_before(self, record: Record, root: str) -> RootSchema | None:
        entry = record.change(root)
        if entry is None or entry.previous is None:
            return None
        previous = self.records[entry.previous]
        return previous.schemas.get(root)

    def is_terminal(self, record_id: str) -> bool:
        return not any(key[0] == record_id for key in self.successors)


def build_history(records: Mapping[str, Record]) -> tuple[History, list[SchemaGateError]]:
    """Validate ``records``; returns the history (tips of the valid part) and every problem found."""
    problems: list[SchemaGateError] = []
    baselines = [r.id for r in records.values() if r.baseline]
    if records and len(baselines) != 1:
        problems.append(SchemaGateError("invalid-history", f"history needs exactly one baseline, found {baselines}"))
    starts: dict[str, list[str]] = defaultdict(list)
    following: dict[tuple[str, str], list[str]] = defaultdict(list)
    for record in records.values():
        problems.extend(_record_problems(record, records))
        for change in record.changes:
            if change.previous is None:
                starts[change.root].append(record.id)
            else:
                following[(change.previous, change.root)].append(record.id)
    for root, ids in sorted(starts.items()):
        if len(ids) > 1:
            problems.append(
                SchemaGateError("forked-history", f"{root}: several records start its history: {sorted(ids)}")
            )
    for (previous, root), ids in sorted(following.items()):
        if len(ids) > 1:
            problems.append(
                SchemaGateError("forked-history", f"{root}: record {previous} has several successors: {sorted(ids)}")
            )
    successors = {key: ids[0] for key, ids in following.items() if len(ids) == 1}
    tips: dict[str, Tip] = {}
    reached: set[tuple[str, str]] = set()
    for root, ids in starts.items():
        current = ids[0]
        while (current, root) not in reached:
            reached.add((current, root))
            nxt = successors.get((current, root))
            if nxt is None:
                break
            current = nxt
        last = records[current].change(root)
        assert last is not None
        tips[root] = Tip(current, records[current].schemas.get(root) if last.after is not None else None)
    for record in records.values():
        for change in record.changes:
            if (record.id, change.root) not in reached:
                problems.append(
                    SchemaGateError(
                        "broken-history", f"{record.id}: {change.root} is not reachable from its first record"
                    )
                )
    return History(dict(records), tips, successors), problems


def _record_problems(record: Record, records: Mapping[str, Record]) -> Iterable[SchemaGateError]:
    def problem(code: str, message: str) -> SchemaGateError:
        return SchemaGateError(code, f"{record.id}: {message}")

    if len({c.decision for c in record.changes}) != 1:
        yield problem("mixed-decisions", "a record carries one decision for all its roots")
    if record.baseline:
        for change in record.changes:
            if change.previous is not None or change.after is None or change.decision != "same-version":
                yield problem(
                    "invalid-baseline", f"{change.root}: a baseline change needs previous null, an after, same-version"
                )
        return
    increased = False
    for change in record.changes:
        before: RootSchema | None = None
        if change.previous is not None:
            previous = records.get(change.previous)
            entry = previous.change(change.root) if previous else None
            if previous is None or entry is None:
                yield problem(
                    "missing-predecessor", f"{change.root}: previous record {change.previous} does not hold it"
                )
                continue
            before = previous.schemas.get(change.root)
        after = record.schemas.get(change.root)
        if before is None and after is None:
            yield problem("unchanged-acknowledgement", f"{change.root}: removed twice")
            continue
        if before is not None and after is not None and not classify(change.root, before, after):
            yield problem("unchanged-acknowledgement", f"{change.root}: no difference from {change.previous}")
        if before is None or after is None or before.version == after.version:
            if change.decision == "version-bump" and before is not None and after is not None:
                yield problem(
                    "version-increase-required", f"{change.root}: version-bump without a format-version increase"
                )
            continue
        if after.version < before.version:
            yield problem("version-decrease", f"{change.root}: format version {before.version} → {after.version}")
        elif change.decision != "version-bump":
            yield problem(
                "version-transition-required",
                f"{change.root}: format version {before.version} → {after.version} needs decision version-bump",
            )
        else:
            increased = True
    if record.decision == "version-bump" and not increased:
        yield problem("version-increase-required", "a version-bump record needs at least one format-version increase")


def pending(history: History, inventory: Inventory) -> list[Delta]:
    """Roots whose current shape (``inventory``) differs from their recorded tip."""
    deltas: list[Delta] = []
    for root in sorted(set(inventory.roots) | {r for r, t in history.tips.items() if t.schema is not None}):
        tip = history.tips.get(root)
        before = tip.schema if tip else None
        after = inventory.roots.get(root)
        changes = classify(root, before, after)
        if changes:
            deltas.append(Delta(root, tip.record if tip else None, before, after, tuple(changes)))
    return deltas

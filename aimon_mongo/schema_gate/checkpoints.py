"""Finalized checkpoints ``schema/finalized/vN.json``: immutable locks on accepted records.

A checkpoint lists the records it accepts with their record digests (machine block + schemas, prose
excluded), the roots and family versions those records leave as tips, the digest of the previous
checkpoint, and its own digest. Checkpoints are never rewritten; a later one accepts a superset. ``check``
refuses a checkpoint whose own digest, chain link, accepted records or roots do not hold, and a current
family version below a finalized one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.graph import sha256_hex
from aimon_mongo.schema_gate.history import History, build_history
from aimon_mongo.schema_gate.inventory import Inventory, pretty_json

CHECKPOINT_DOMAIN: Final = "aimon-schema-gate/checkpoint/v1\n"
_NAME = re.compile(r"v([1-9][0-9]*)\.json\Z")


@dataclass(frozen=True)
class Checkpoint:
    number: int
    content: Mapping[str, Any]

    @property
    def accepted(self) -> dict[str, str]:
        return dict(self.content["acceptedRecords"])

    @property
    def digest(self) -> str:
        return str(self.content["digest"])


def seal(content: Mapping[str, Any]) -> dict[str, Any]:
    """``content`` with its own digest added (over everything else)."""
    body = {k: v for k, v in content.items() if k != "digest"}
    return {**body, "digest": sha256_hex(CHECKPOINT_DOMAIN, body)}


def tips_of(history: History, accepted: set[str]) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Roots and family versions left by the accepted records (the tips of the accepted chains)."""
    sub, _ = build_history({rid: history.records[rid] for rid in accepted if rid in history.records})
    schemas = [tip.schema for _, tip in sorted(sub.tips.items()) if tip.schema is not None]
    roots = {s.name: {"family": s.family, "version": s.version, "digest": s.digest} for s in schemas}
    families = {s.family: s.version for s in sorted(schemas, key=lambda s: s.family)}
    return roots, families


def build_checkpoint(number: int, previous: Checkpoint | None, history: History) -> dict[str, Any]:
    """The content of checkpoint ``number`` accepting every record of ``history``."""
    accepted = set(history.records)
    roots, families = tips_of(history, accepted)
    return seal(
        {
            "schemaVersion": 1,
            "checkpoint": number,
            "previousCheckpoint": previous.digest if previous else None,
            "families": families,
            "roots": roots,
            "acceptedRecords": {rid: history.records[rid].digest for rid in sorted(accepted)},
        }
    )


def load_checkpoints(directory: Path) -> tuple[list[Checkpoint], list[SchemaGateError]]:
    """Checkpoints in number order, and problems of files that are misnamed or unreadable."""
    found: dict[int, Checkpoint] = {}
    problems: list[SchemaGateError] = []
    if not directory.is_dir():
        return [], problems
    for path in sorted(directory.iterdir()):
        match = _NAME.match(path.name)
        if not match:
            problems.append(
                SchemaGateError("checkpoint-invalid", f"schema/finalized/{path.name}: not a vN.json checkpoint")
            )
            continue
        try:
            content = json.loads(path.read_text("utf-8"))
        except json.JSONDecodeError:
            problems.append(SchemaGateError("checkpoint-invalid", f"schema/finalized/{path.name}: not JSON"))
            continue
        found[int(match.group(1))] = Checkpoint(int(match.group(1)), content)
    numbers = sorted(found)
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(
            SchemaGateError("checkpoint-invalid", f"checkpoints must be v1..vN without gaps, found {numbers}")
        )
    return [found[n] for n in numbers], problems


def verify(checkpoints: list[Checkpoint], history: History, inventory: Inventory | None) -> list[SchemaGateError]:
    """Every problem of the checkpoint chain against the records and the current family versions."""
    problems: list[SchemaGateError] = []
    previous: Checkpoint | None = None
    for cp in checkpoints:
        where = f"schema/finalized/v{cp.number}.json"
        shape_ok = (
            isinstance(cp.content, dict)
            and set(cp.content)
            == {"schemaVersion", "checkpoint", "previousCheckpoint", "families", "roots", "acceptedRecords", "digest"}
            and cp.content["checkpoint"] == cp.number
            and isinstance(cp.content["acceptedRecords"], dict)
        )
        if not shape_ok or seal(cp.content)["digest"] != cp.content.get("digest"):
            problems.append(SchemaGateError("checkpoint-tampered", f"{where}: its content does not match its digest"))
            previous = cp
            continue
        if cp.content["previousCheckpoint"] != (previous.digest if previous else None):
            problems.append(
                SchemaGateError("checkpoint-tampered", f"{where}: previousCheckpoint does not match v{cp.number - 1}")
            )
        accepted = cp.accepted
        if previous is not None and any(accepted.get(k) != v for k, v in previous.accepted.items()):
            problems.append(
                SchemaGateError("checkpoint-tampered", f"{where}: drops or changes a record v{cp.number - 1} accepted")
            )
        for rid, locked in sorted(accepted.items()):
            record = history.records.get(rid)
            if record is None:
                problems.append(
                    SchemaGateError("finalized-record-changed", f"{where}: accepted record {rid} is missing")
                )
            elif record.digest != locked:
                problems.append(
                    SchemaGateError(
                        "finalized-record-changed", f"{where}: accepted record {rid} was edited (digest differs)"
                    )
                )
            else:
                for change in record.changes:
                    if change.previous is not None and change.previous not in accepted:
                        problems.append(
                            SchemaGateError(
                                "checkpoint-not-closed", f"{where}: {rid} builds on unaccepted {change.previous}"
                            )
                        )
        if not any(history.records.get(rid) and history.records[rid].baseline for rid in accepted):
            problems.append(SchemaGateError("checkpoint-not-closed", f"{where}: the baseline is not accepted"))
        roots, families = tips_of(history, set(accepted))
        if roots != cp.content["roots"] or families != cp.content["families"]:
            problems.append(
                SchemaGateError("checkpoint-tampered", f"{where}: roots differ from the accepted records' tips")
            )
        previous = cp
    if checkpoints and inventory is not None:
        finalized = checkpoints[-1].content.get("families", {})
        current = inventory.families
        for family, version in sorted(finalized.items()):
            if family in current and current[family] < version:
                problems.append(
                    SchemaGateError(
                        "finalized-version-order",
                        f"family {family}: current format version {current[family]} is below finalized {version}",
                    )
                )
    return problems


def write_checkpoint(directory: Path, content: Mapping[str, Any]) -> Path:
    """Create ``vN.json`` exclusively (checkpoints are never overwritten)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"v{content['checkpoint']}.json"
    try:
        with path.open("x", encoding="utf-8") as out:
            out.write(pretty_json(content))
    except FileExistsError:
        raise SchemaGateError(
            "checkpoint-exists", f"{path.name} already exists; checkpoints are never rewritten"
        ) from None
    return path

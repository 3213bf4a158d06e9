"""Record files: one machine block, sections, placeholders, strict parsing; review of two inventories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate import main
from aimon_mongo.schema_gate.records import ChangeEntry, Record, check_record_id, parse_prose, parse_record
from tests.schema_gate.conftest import REPO, Gate

BASELINE = REPO / "schema" / "changes" / "2026-11-30-baseline"


def _parse(markdown: str) -> Record:
    return parse_record("2026-11-30-baseline", markdown, BASELINE.with_suffix(".schema.json").read_text("utf-8"))


def test_the_live_baseline_parses_with_its_prose() -> None:
    record = _parse(BASELINE.with_suffix(".md").read_text("utf-8"))
    assert record.baseline and len(record.changes) == 33
    assert record.draft_sections() == []
    assert _parse(record.render()) == record


def test_machine_block_rules() -> None:
    text = BASELINE.with_suffix(".md").read_text("utf-8")
    block = text[text.index("```json schema-change") : text.index("```\n", text.index("```json schema-change") + 5) + 4]
    with pytest.raises(SchemaGateError, match="exactly one"):
        _parse(text + "\n" + block)
    with pytest.raises(SchemaGateError, match="exactly one"):
        _parse(text.replace(block, ""))
    with pytest.raises(SchemaGateError, match="does not match the file name"):
        _parse(text.replace('"id": "2026-11-30-baseline"', '"id": "2026-11-30-other"'))
    with pytest.raises(SchemaGateError, match="decision must be one of"):
        _parse(text.replace('"decision": "same-version"', '"decision": "maybe"', 1))
    with pytest.raises(SchemaGateError, match="do not equal"):
        parse_record(
            "2026-11-30-baseline", text, json.dumps({"schemaVersion": 1, "id": "2026-11-30-baseline", "roots": {}})
        )


def test_prose_sections_and_placeholders() -> None:
    record = Record("2026-01-01-x", False, (ChangeEntry("r", None, "0" * 64, "same-version"),), {})
    assert record.draft_sections() == ["Summary", "Compatibility", "Verification"]
    sections = parse_prose(record.render())
    assert set(sections) == {"Summary", "Compatibility", "Verification"}
    assert all(text.startswith("TODO:") for text in sections.values())
    assert parse_prose("## A\n\n```\n## not a heading\n```\n## B\nb\n") == {"A": "```\n## not a heading\n```", "B": "b"}


def test_record_ids() -> None:
    check_record_id("2026-11-30-add-quarantine")
    for bad in ("baseline", "2026-11-30", "2026-11-30-Upper", "2026-11-30-a_b", "../2026-11-30-x"):
        with pytest.raises(SchemaGateError, match="record id"):
            check_record_id(bad)


def test_review_compares_two_inventories_read_only(gate: Gate, tmp_path: Path) -> None:
    before = tmp_path / "before.json"
    before.write_bytes((gate.root / "schema" / "inventory.json").read_bytes())
    gate.edit(
        "signal.py",
        '    originNodeId: str\n    payload: dict[str, Any]\n\n\n@root("redis',
        '    originNodeId: str\n    payload: dict[str, Any]\n    ts: int\n\n\n@root("redis',
    )
    assert gate.run("generate")[0] == 0
    status, outcome = gate.run(
        "review", "--before", str(before), "--after", str(gate.root / "schema" / "inventory.json")
    )
    assert status == 0
    assert [(c["root"], c["kind"], c["path"]) for c in outcome["changes"]] == [
        ("mongo.signal.document", "required-property-added", "$.ts")
    ]
    assert outcome["message"] == "review: 1 root(s) changed, 1 change(s), 1 need compatibility review"
    assert main(["review", "--before", str(tmp_path / "missing.json"), "--after", str(before)]) == 1

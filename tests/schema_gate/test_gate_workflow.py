"""The gate on an edited COPY of the declarations: what check reports, what record accepts or refuses."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.schema_gate.conftest import BASELINE, Gate


def _machine(path: Path) -> dict:
    text = path.read_text("utf-8")
    start = text.index("```json schema-change\n") + len("```json schema-change\n")
    return json.loads(text[start : text.index("\n```", start)])


def _fill_prose(path: Path) -> None:
    text = path.read_text("utf-8").split("## Summary")[0]
    path.write_text(
        text + "## Summary\n\nAdded a key.\n\n## Compatibility\n\nOlder readers ignore it.\n\n"
        "## Verification\n\nRan the gate tests.\n",
        "utf-8",
    )


def test_unchanged_copy_passes(gate: Gate) -> None:
    status, outcome = gate.run("check")
    assert status == 0, outcome
    assert outcome["ok"] is True
    assert re.fullmatch(r"schema gate: \d+ roots match 1 change records \(1 finalized in v1\)", outcome["message"])


def test_renaming_a_frozen_key_fails_check_naming_root_and_path(gate: Gate, by_root) -> None:
    gate.edit(
        "inbox.py",
        "class InboxEnvelopeJson(TypedDict):\n    conversationId: str",
        "class InboxEnvelopeJson(TypedDict):\n    sessionId: str",
    )
    status, outcome = gate.run("check")
    assert status == 1
    assert outcome["code"] == "unacknowledged-changes"
    changes = by_root(outcome)
    envelope = {(c["kind"], c["path"], c["requiresCompatibilityReview"]) for c in changes["inbox.json-envelope"]}
    assert envelope == {
        ("property-removed", "$.conversationId", True),
        ("required-property-added", "$.sessionId", True),
    }
    # Every root that embeds the envelope sees it too, under its own path.
    assert ("property-removed", "$.p<json-text>.conversationId") in {
        (c["kind"], c["path"]) for c in changes["redis.inbox.stream-entry"]
    }
    assert ("property-removed", "$.payload<pg.jsonb>.conversationId") in {
        (c["kind"], c["path"]) for c in changes["postgres.inbox.row"]
    }
    assert "mongo.inbox.document" not in changes  # its own conversationId key is untouched


def test_renaming_a_frozen_key_text_output_names_root_and_path(gate: Gate, capsys) -> None:
    from aimon_mongo.schema_gate import main

    gate.edit(
        "inbox.py",
        "class InboxEnvelopeJson(TypedDict):\n    conversationId: str",
        "class InboxEnvelopeJson(TypedDict):\n    sessionId: str",
    )
    status = main(["check", "--root", str(gate.root), "--declarations", str(gate.decls)])
    err = capsys.readouterr().err
    assert status == 1
    assert (
        "inbox.json-envelope $.conversationId: property removed "
        "[property-removed; compatibility review required]" in err
    )


def test_optional_field_in_a_body_is_same_version_safe_and_record_infers_it(gate: Gate, by_root) -> None:
    gate.edit(
        "submit_options.py",
        "    llmCallMetadata: NotRequired[LlmCallMetadataJson]\n",
        "    llmCallMetadata: NotRequired[LlmCallMetadataJson]\n    traceParent: NotRequired[str]\n",
    )
    status, outcome = gate.run("check")
    assert status == 1
    kinds = {(c["kind"], c["requiresCompatibilityReview"]) for c in outcome["changes"]}
    assert kinds == {("optional-property-added", False)}
    assert [c["path"] for c in by_root(outcome)["submit-options"]] == ["$.traceParent"]
    assert "$.submitOptions.traceParent" in [c["path"] for c in by_root(outcome)["inbox.json-envelope"]]

    status, outcome = gate.run("record", "2026-02-01-trace-parent", "--prose", str(gate.prose))
    assert status == 0, outcome
    machine = _machine(gate.record_path("2026-02-01-trace-parent"))
    assert {c["decision"] for c in machine["changes"]} == {"same-version"}
    assert {c["previous"] for c in machine["changes"]} == {BASELINE}
    assert gate.run("check")[0] == 0


def test_optional_field_outside_a_body_needs_review(gate: Gate) -> None:
    gate.edit("lease.py", "    acquiredAt: BsonDate\n", "    acquiredAt: BsonDate\n    note: NotRequired[str]\n")
    gate.edit(
        "lease.py",
        "from typing import Annotated, Final, TypedDict",
        "from typing import Annotated, Final, NotRequired, TypedDict",
    )
    _, outcome = gate.run("check")
    assert [(c["root"], c["kind"], c["requiresCompatibilityReview"]) for c in outcome["changes"]] == [
        ("mongo.lease.document", "optional-property-added", True)
    ]


def test_required_field_needs_an_explicit_decision(gate: Gate) -> None:
    gate.edit(
        "submit_options.py",
        "    llmCallMetadata: NotRequired[LlmCallMetadataJson]\n",
        "    llmCallMetadata: NotRequired[LlmCallMetadataJson]\n    tenant: str\n",
    )
    status, outcome = gate.run("record", "2026-02-01-tenant", "--prose", str(gate.prose))
    assert status == 1
    assert outcome["code"] == "decision-required"
    assert not gate.record_path("2026-02-01-tenant").exists()
    assert {c["kind"] for c in outcome["changes"]} == {"required-property-added"}

    status, outcome = gate.run("record", "2026-02-01-tenant", "--decision", "same-version", "--prose", str(gate.prose))
    assert status == 0, outcome
    assert {c["decision"] for c in _machine(gate.record_path("2026-02-01-tenant"))["changes"]} == {"same-version"}
    assert gate.run("check")[0] == 0


def test_version_bump_requires_the_version_constant_to_increase(gate: Gate) -> None:
    gate.edit("task_result.py", "    summaryTruncated: bool\n", "    summaryTruncated: bool\n    costCents: int\n")
    status, outcome = gate.run("record", "2026-02-01-cost", "--decision", "version-bump", "--prose", str(gate.prose))
    assert status == 1
    assert outcome["code"] == "version-increase-required"
    assert not gate.record_path("2026-02-01-cost").exists()

    gate.edit("task_result.py", "names.TASKRES_FORMAT_VERSION)", "2)  # the constant, raised")
    gate.edit("task_result.py", "    version: Literal[1]", "    version: Literal[2]")
    status, outcome = gate.run("record", "2026-02-01-cost", "--decision", "same-version", "--prose", str(gate.prose))
    assert status == 1
    assert outcome["code"] == "version-transition-required"

    status, outcome = gate.run("record", "2026-02-01-cost", "--prose", str(gate.prose))  # inferred
    assert status == 0, outcome
    assert _machine(gate.record_path("2026-02-01-cost"))["changes"] == [
        {
            "root": "task-result.document",
            "previous": BASELINE,
            "after": outcome_digest(gate, "task-result.document"),
            "decision": "version-bump",
        }
    ]
    assert gate.run("check")[0] == 0
    assert gate.run("finalize")[0] == 0


def outcome_digest(gate: Gate, root: str) -> str:
    inventory = json.loads((gate.root / "schema" / "inventory.json").read_text("utf-8"))
    return inventory["roots"][root]["digest"]


def test_a_version_decrease_is_refused(gate: Gate) -> None:
    gate.edit("task_result.py", "names.TASKRES_FORMAT_VERSION)", "0)  # the constant, lowered")
    status, outcome = gate.run("record", "2026-02-01-down", "--decision", "version-bump")
    assert (status, outcome["code"]) == (1, "version-decrease")
    status, outcome = gate.run("check")
    assert "finalized-version-order" in gate.codes(outcome)


def test_record_refuses_when_nothing_changed_and_never_overwrites(gate: Gate) -> None:
    assert gate.run("record", "2026-02-01-nothing")[1]["code"] == "no-changes"
    gate.edit("vfs.py", "    copiedFrom: NotRequired[str]\n", "")
    assert gate.run("record", "2026-02-01-drop", "--decision", "same-version")[0] == 0
    gate.edit("vfs.py", "    path: str\n    uploadDate: Instant\n    contentSha256", "    path: str\n    contentSha256")
    assert gate.run("record", "2026-02-01-drop", "--decision", "same-version")[1]["code"] == "record-exists"
    assert gate.run("record", BASELINE, "--decision", "same-version")[1]["code"] == "record-exists"


def test_drafts_with_placeholders_fail_check_until_the_prose_is_written(gate: Gate) -> None:
    gate.edit(
        "snapshot_document.py",
        "    downloadToken: NotRequired[str]\n",
        "    downloadToken: NotRequired[str]\n    etag: NotRequired[str]\n",
    )
    status, outcome = gate.run("record", "2026-02-01-etag")
    assert status == 0, outcome
    path = gate.record_path("2026-02-01-etag")
    assert "TODO:" in path.read_text("utf-8")
    status, outcome = gate.run("check")
    assert (status, outcome["code"]) == (1, "draft-record")
    assert "Summary, Compatibility, Verification" in outcome["problems"][0]["message"]
    _fill_prose(path)
    assert gate.run("check")[0] == 0
    path.write_text(path.read_text("utf-8").replace("Older readers ignore it.", "TODO: later"), "utf-8")
    assert gate.run("check")[1]["code"] == "draft-record"


def test_editing_a_finalized_checkpoint_fails_check(gate: Gate) -> None:
    path = gate.root / "schema" / "finalized" / "v1.json"
    content = json.loads(path.read_text("utf-8"))
    content["families"]["inbox"] = 7
    path.write_text(json.dumps(content, indent=2), "utf-8")
    status, outcome = gate.run("check")
    assert (status, outcome["code"]) == (1, "checkpoint-tampered")


def test_a_resealed_checkpoint_edit_is_still_caught(gate: Gate) -> None:
    from aimon_mongo.schema_gate.checkpoints import seal

    path = gate.root / "schema" / "finalized" / "v1.json"
    content = json.loads(path.read_text("utf-8"))
    content["roots"]["user-input"]["digest"] = "0" * 64
    path.write_text(json.dumps(seal(content), indent=2), "utf-8")
    status, outcome = gate.run("check")
    assert status == 1
    assert "roots differ from the accepted records' tips" in json.dumps(outcome["problems"])


def test_editing_an_accepted_record_fails_check_but_prose_may_change(gate: Gate) -> None:
    md = gate.record_path(BASELINE)
    md.write_text(md.read_text("utf-8").replace("Test change.", "Test change, explained better."), "utf-8")
    assert gate.run("check")[0] == 0

    schema_path = md.with_name(f"{BASELINE}.schema.json")
    schemas = json.loads(schema_path.read_text("utf-8"))
    entry = schemas["roots"]["redis.lease.value"]
    entry["schema"]["nodes"][0]["format"] = "sha256-hex"
    before = next(c["after"] for c in _machine(md)["changes"] if c["root"] == "redis.lease.value")
    entry["digest"] = _digest(entry)
    schema_path.write_text(json.dumps(schemas, indent=2), "utf-8")
    md.write_text(md.read_text("utf-8").replace(before, entry["digest"]), "utf-8")
    status, outcome = gate.run("check")
    assert status == 1
    assert "finalized-record-changed" in gate.codes(outcome)


def _digest(entry: dict) -> str:
    from aimon_mongo.schema_gate.graph import digest, graph_from_json

    return digest(graph_from_json(entry["schema"], "test"))


def test_update_refuses_a_finalized_record(gate: Gate) -> None:
    gate.edit("vfs.py", "    copiedFrom: NotRequired[str]\n", "")
    status, outcome = gate.run("update", BASELINE, "--decision", "same-version")
    assert (status, outcome["code"]) == (1, "finalized-record-update")


def test_update_refreshes_an_unfinalized_terminal_record(gate: Gate) -> None:
    gate.edit("vfs.py", "    copiedFrom: NotRequired[str]\n", "")
    assert gate.run("record", "2026-02-01-vfs", "--decision", "same-version", "--prose", str(gate.prose))[0] == 0
    gate.edit("vfs.py", "    uploadDate: Instant\n    contentSha256", "    contentSha256")
    assert gate.run("check")[1]["code"] == "unacknowledged-changes"
    status, outcome = gate.run("update", "2026-02-01-vfs")
    assert (status, outcome["code"]) == (1, "decision-required")
    status, outcome = gate.run("update", "2026-02-01-vfs", "--decision", "same-version")
    assert status == 0, outcome
    assert "Test change." in gate.record_path("2026-02-01-vfs").read_text("utf-8")  # prose kept
    assert gate.run("check")[0] == 0
    paths = {c["path"] for c in outcome["changes"] if c["root"] == "gridfs.file.metadata"}
    assert paths == {"$.copiedFrom", "$.uploadDate"}


def test_a_forked_history_is_refused(gate: Gate) -> None:
    gate.edit("vfs.py", "    copiedFrom: NotRequired[str]\n", "")
    assert gate.run("record", "2026-02-01-left", "--decision", "same-version", "--prose", str(gate.prose))[0] == 0
    changes = gate.root / "schema" / "changes"
    for suffix in (".md", ".schema.json"):
        text = (changes / f"2026-02-01-left{suffix}").read_text("utf-8")
        (changes / f"2026-02-01-right{suffix}").write_text(text.replace("2026-02-01-left", "2026-02-01-right"), "utf-8")
    status, outcome = gate.run("check")
    assert status == 1
    assert "forked-history" in gate.codes(outcome)
    assert any("record 2026-01-01-baseline has several successors" in p["message"] for p in outcome["problems"])
    gate.edit("vfs.py", "    uploadDate: Instant\n    contentSha256", "    contentSha256")
    status, outcome = gate.run("record", "2026-02-02-more", "--decision", "same-version")
    assert (status, outcome["code"]) == (1, "history-invalid")
    assert "forked-history" in outcome["message"] or "several successors" in outcome["message"]


def test_baseline_cannot_reset_history(gate: Gate) -> None:
    status, outcome = gate.run("baseline", "2026-03-01-again")
    assert (status, outcome["code"]) == (1, "history-exists")


def test_stale_or_missing_generated_files_fail_check(gate: Gate) -> None:
    docs = gate.root / "docs" / "persisted-formats.md"
    docs.write_text(docs.read_text("utf-8") + "\nhand edit\n", "utf-8")
    status, outcome = gate.run("check")
    assert (status, outcome["code"]) == (1, "stale-docs")
    docs.unlink()
    assert gate.run("check")[1]["code"] == "docs-missing"
    inventory = gate.root / "schema" / "inventory.json"
    inventory.write_text(inventory.read_text("utf-8").replace('"version": 2', '"version": 3', 1), "utf-8")
    assert "stale-inventory" in gate.codes(gate.run("check")[1])
    status, outcome = gate.run("generate")
    assert status == 0
    assert sorted(outcome["files"]) == ["docs/persisted-formats.md", "schema/inventory.json"]
    assert gate.run("check")[0] == 0


def test_check_without_history_asks_for_a_baseline(fresh_gate: Gate) -> None:
    status, outcome = fresh_gate.run("check")
    assert status == 1
    assert {"baseline-missing", "unacknowledged-changes", "inventory-missing", "docs-missing"} <= fresh_gate.codes(
        outcome
    )
    assert {c["kind"] for c in outcome["changes"]} == {"root-added"}


def test_a_new_root_is_same_version_safe(gate: Gate) -> None:
    module = gate.decls / "quarantine.py"
    module.write_text(
        "from __future__ import annotations\n"
        "from typing import Any, Final, TypedDict\n"
        "from aimon_mongo.schema_gate.declare import BsonDate, Family, root\n"
        "FAMILY: Final = Family('quarantine', 1)\n"
        "@root('mongo.inbox-quarantine.document', FAMILY)\n"
        "class Q(TypedDict):\n"
        "    rawDocument: dict[str, Any]\n"
        "    quarantinedAt: BsonDate\n",
        "utf-8",
    )
    status, outcome = gate.run("record", "2026-02-01-quarantine", "--prose", str(gate.prose))
    assert status == 0, outcome
    machine = _machine(gate.record_path("2026-02-01-quarantine"))
    assert machine["changes"] == [
        {
            "root": "mongo.inbox-quarantine.document",
            "previous": None,
            "after": outcome_digest(gate, "mongo.inbox-quarantine.document"),
            "decision": "same-version",
        }
    ]
    module.unlink()
    _, outcome = gate.run("check")
    assert [(c["root"], c["kind"], c["requiresCompatibilityReview"]) for c in outcome["changes"]] == [
        ("mongo.inbox-quarantine.document", "root-removed", True)
    ]
    assert (
        gate.run("record", "2026-02-02-drop-quarantine", "--decision", "same-version", "--prose", str(gate.prose))[0]
        == 0
    )
    assert _machine(gate.record_path("2026-02-02-drop-quarantine"))["changes"][0]["after"] is None
    assert gate.run("check")[0] == 0
    assert gate.run("finalize")[0] == 0
    assert gate.run("finalize")[1]["code"] == "nothing-to-finalize"


def test_check_validates_hand_edited_decisions_against_versions(gate: Gate) -> None:
    gate.edit("task_result.py", "names.TASKRES_FORMAT_VERSION)", "2)  # the constant, raised")
    gate.edit("task_result.py", "    version: Literal[1]", "    version: Literal[2]")
    assert gate.run("record", "2026-02-01-v2", "--prose", str(gate.prose))[0] == 0
    md = gate.record_path("2026-02-01-v2")
    bumped = md.read_text("utf-8")
    md.write_text(bumped.replace('"decision": "version-bump"', '"decision": "same-version"'), "utf-8")
    status, outcome = gate.run("check")
    assert (status, outcome["code"]) == (1, "version-transition-required")
    md.write_text(bumped, "utf-8")
    assert gate.run("check")[0] == 0


def test_an_editor_written_same_version_decision_is_accepted(gate: Gate) -> None:
    gate.edit("task_result.py", "    summaryTruncated: bool\n", "    summaryTruncated: bool\n    costCents: int\n")
    assert gate.run("record", "2026-02-01-cost", "--decision", "version-bump")[1]["code"] == "version-increase-required"
    assert gate.run("record", "2026-02-01-cost", "--decision", "same-version", "--prose", str(gate.prose))[0] == 0
    md = gate.record_path("2026-02-01-cost")
    text = md.read_text("utf-8")
    md.write_text(text.replace('"decision": "same-version"', '"decision": "version-bump"'), "utf-8")
    assert gate.run("check")[1]["code"] == "version-increase-required"
    md.write_text(text, "utf-8")
    assert gate.run("check")[0] == 0

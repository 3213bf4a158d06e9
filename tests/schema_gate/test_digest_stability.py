"""Digests see stored key names, types, optionality and literals — and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from aimon_mongo.schema_gate.loader import load_inventory
from tests.schema_gate.conftest import STORED, copy_declarations


def _digests(source: Path | str) -> dict[str, str]:
    return {name: entry.digest for name, entry in load_inventory(source).roots.items()}


def _rewrite(path: Path, edit) -> None:
    path.write_text(edit(path.read_text("utf-8")), "utf-8")


def test_reordering_renaming_and_comments_leave_every_digest_unchanged(tmp_path: Path) -> None:
    original = _digests("aimon_mongo.stored")
    decls = copy_declarations(tmp_path / "decls")

    # Rename Python classes and aliases everywhere (definitions and uses).
    renames = {
        "InboxEnvelopeJson": "Envelope",
        "UserInputJson": "AnyInput",
        "MessageJson": "Msg",
        "Principal": "WhoDidIt",
        "MongoLeaseDocument": "LockDoc",
        "SubmitOptionsJson": "Opts",
    }
    for module in decls.glob("*.py"):

        def rename(text: str) -> str:
            for old, new in renames.items():
                text = re.sub(rf"\b{old}\b", new, text)
            return text

        _rewrite(module, rename)

    # Comments on every line that can take one, and a comment block at the top of every module.
    for module in decls.glob("*.py"):
        _rewrite(
            module,
            lambda text: "# a comment\n" + re.sub(r"^(    \w+: .+)$", r"\1  # trailing comment", text, flags=re.M),
        )

    # Reverse the field order of a class, and swap two class definitions in a module.
    def reverse_fields(text: str) -> str:
        head, rest = text.split("class Envelope(TypedDict):\n", 1)
        fields, tail = rest.split("\n\n\n", 1)
        return head + "class Envelope(TypedDict):\n" + "\n".join(reversed(fields.splitlines())) + "\n\n\n" + tail

    _rewrite(decls / "inbox.py", reverse_fields)

    def swap_classes(text: str) -> str:
        tool_use = text[text.index("@body\nclass ToolUseJson") : text.index("@body\nclass ToolResultJson")]
        tool_result = text[text.index("@body\nclass ToolResultJson") : text.index("@body\nclass ArtifactJson")]
        return text.replace(tool_use + tool_result, tool_result + tool_use)

    _rewrite(decls / "snapshot_document.py", swap_classes)
    # The copy really changed.
    assert "class Envelope(TypedDict):\n    submitOptions" in (decls / "inbox.py").read_text("utf-8")
    assert (decls / "snapshot_document.py").read_text("utf-8").index("class ToolResultJson") < (
        decls / "snapshot_document.py"
    ).read_text("utf-8").index("class ToolUseJson")

    assert _digests(decls) == original


def test_the_copy_and_the_package_agree() -> None:
    assert _digests(STORED) == _digests("aimon_mongo.stored")


def _one_root(tmp_path: Path, name: str, body: str) -> str:
    decls = tmp_path / name
    decls.mkdir()
    (decls / "__init__.py").write_text("", "utf-8")
    (decls / "m.py").write_text(
        "from __future__ import annotations\n"
        "from typing import Annotated, Final, Literal, NotRequired, TypedDict\n"
        "from aimon_mongo.schema_gate.declare import Family, Int64, Instant, root\n"
        "F: Final = Family('f', 1)\n"
        "@root('r', F)\n"
        "class R(TypedDict):\n" + body,
        "utf-8",
    )
    return load_inventory(decls).roots["r"].digest


def test_key_names_types_optionality_and_literals_change_the_digest(tmp_path: Path) -> None:
    base = "    conversationId: str\n    kind: Literal['A', 'B']\n    n: int\n"
    variants = {
        "base": base,
        "key": base.replace("conversationId", "sessionId"),
        "type": base.replace("n: int", "n: str"),
        "width": base.replace("n: int", "n: Int64"),
        "format": base.replace("conversationId: str", "conversationId: Instant"),
        "optional": base.replace("n: int", "n: NotRequired[int]"),
        "nullable": base.replace("n: int", "n: int | None"),
        "literal": base.replace("'B'", "'C'"),
        "more-literals": base.replace("'B'", "'B', 'C'"),
    }
    digests = {name: _one_root(tmp_path, name, body) for name, body in variants.items()}
    assert len(set(digests.values())) == len(variants), digests
    # ...and the family's version is not part of the digest (it is recorded beside it).
    assert _one_root(tmp_path, "same", base) == digests["base"]

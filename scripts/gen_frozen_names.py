#!/usr/bin/env python3
"""Generate ``docs/frozen-names.md`` from ``aimon_mongo/names.py`` (``--check``: fail if it is stale).

The page mirrors names.py: each ``# --- Section ---`` becomes a heading, the comments that say why a
group is frozen become paragraphs, and each run of constants becomes a table of name, stored value and
the constant's own comment. Values are the module's (so ``64 * 1024 * 1024`` shows as ``67108864``).

    python scripts/gen_frozen_names.py          # rewrite docs/frozen-names.md
    python scripts/gen_frozen_names.py --check  # exit 1 when the page does not match names.py
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tokenize
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "aimon_mongo" / "names.py"
TARGET = ROOT / "docs" / "frozen-names.md"

HEADER = """# Frozen names

<!-- GENERATED from aimon_mongo/names.py by scripts/gen_frozen_names.py; do not edit by hand. -->

Every literal that aimon-mongo persists or exchanges with other nodes: collection, table, key and channel
names, document keys, type tags, default locations. Nodes of older and newer builds (and of the Java
reference system) read and write these strings, so changing one is a data migration, not a cleanup — the
inconsistencies between them are frozen too. Each value lives once in `aimon_mongo/names.py`; the freeze
tests in `tests/freeze/` pin every one of them against a hard-coded literal, and this page is generated
from the same file (a test fails when it is out of date: run `python scripts/gen_frozen_names.py`).

Sections marked *ours (additive)* are additions of this project that older readers ignore; *retired*
names are never written and never reused for another meaning. See [persisted-formats.md](persisted-formats.md)
for the full stored shapes and [schema-gate.md](schema-gate.md) for how changes to them are reviewed.
"""


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """Line number -> (comment text without ``#``, whether the comment is the whole line)."""
    found: dict[int, tuple[str, bool]] = {}
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            whole = not lines[row - 1][:col].strip()
            found[row] = (token.string[1:].strip(), whole)
    return found


def _value(node: ast.expr, namespace: dict[str, Any]) -> str:
    value = eval(compile(ast.Expression(node), str(SOURCE), "eval"), namespace)  # names.py is ours
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(source: str) -> str:
    tree = ast.parse(source)
    namespace: dict[str, Any] = {}
    exec(compile(source, str(SOURCE), "exec"), namespace)  # the values as the module defines them
    comments = _comments(source)
    assignments: dict[int, ast.AnnAssign | ast.Assign] = {}
    for node in tree.body:
        if isinstance(node, (ast.AnnAssign, ast.Assign)):
            assignments[node.lineno] = node
    out: list[str] = [HEADER]
    paragraph: list[str] = []
    in_table = False
    started = False

    def flush() -> None:
        if paragraph:
            out.append("\n" + " ".join(paragraph) + "\n")
            paragraph.clear()

    for number, line in enumerate(source.splitlines(), start=1):
        if number in assignments:
            node = assignments[number]
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if not isinstance(target, ast.Name) or node.value is None or not target.id.isupper():
                continue
            flush()
            if not in_table:
                out.append("\n| Constant | Value | Note |\n|---|---|---|")
                in_table = True
            note = next((comments[n][0] for n in range(number, (node.end_lineno or number) + 1) if n in comments), "")
            out.append(f"| `{target.id}` | `{_cell(_value(node.value, namespace))}` | {_cell(note)} |")
            continue
        comment = comments.get(number)
        if comment is not None and comment[1]:
            text = comment[0]
            if text.startswith("---") and text.endswith("---"):
                flush()
                out.append(f"\n## {text.strip('- ').strip()}")
                in_table = False
                started = True
            elif started:
                if in_table:
                    out.append("")
                    in_table = False
                paragraph.append(text)
            continue
        if not line.strip():
            flush()
            if in_table:
                out.append("")
                in_table = False
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if docs/frozen-names.md is stale")
    args = parser.parse_args(argv)
    page = render(SOURCE.read_text(encoding="utf-8"))
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != page:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run python scripts/gen_frozen_names.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(page, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

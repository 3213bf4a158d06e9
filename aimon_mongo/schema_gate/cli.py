"""``python -m aimon_mongo.schema_gate`` (later also ``aimon-mongo schema``): the gate's command line.

    check                                   the CI gate (exit 1 naming every problem and change)
    generate                                rewrite schema/inventory.json and docs/persisted-formats.md
    baseline ID [--prose FILE]              start the history with every current root
    record ID [--decision D] [--prose FILE] acknowledge the pending changes in a new record
    update ID [--decision D] [--prose FILE] refresh an unfinalized record without successors
    finalize                                lock every record in the next schema/finalized/vN.json
    review --before A --after B             compare two inventory files (read-only)

Every command takes ``--json``, ``--root DIR`` (the project, default: the nearest directory from the
current one upwards holding both pyproject.toml and schema/ — a source checkout) and ``--declarations
PACKAGE_OR_DIR`` (default aimon_mongo.stored). With no such directory and no ``--root``, every command but
``review`` refuses (exit 1) instead of reading or writing the current directory.
Exit status: 0 success, 1 refused or failed, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate import operations as ops
from aimon_mongo.schema_gate.loader import DEFAULT_DECLARATIONS
from aimon_mongo.schema_gate.records import DECISIONS


def _project_root() -> Path | None:
    """The nearest directory from the current one upwards that holds pyproject.toml and schema/."""
    here = Path.cwd()
    for candidate in (here, *here.parents):
        if (candidate / "pyproject.toml").is_file() and (candidate / "schema").is_dir():
            return candidate
    return None


def _no_project(command: str) -> ops.Outcome:
    error = SchemaGateError(
        "no-project",
        f"schema {command}: no project here — neither {Path.cwd()} nor a directory above it holds pyproject.toml "
        "and schema/. The gate compares a source checkout's schema/ and docs/persisted-formats.md with the "
        "declarations; run it in the checkout, or pass --root DIR (the directory that holds, or is to hold, "
        "schema/ and docs/)",
    )
    return ops.Outcome(command, False, str(error), error.code)


PROG = "python -m aimon_mongo.schema_gate"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (exposed so an outer CLI can reuse its help); ``prog`` is the command its usage
    names (``aimon-mongo schema`` when run from there)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Persisted-schema gate: every stored-shape change needs an acknowledgement record.",
    )
    _common_options(parser, json=False, root=None, declarations=DEFAULT_DECLARATIONS)
    # On subcommands the same options default to "not given", so they never override the top-level ones.
    common = argparse.ArgumentParser(add_help=False)
    _common_options(common, json=argparse.SUPPRESS, root=argparse.SUPPRESS, declarations=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", parents=[common], help="the CI gate")
    sub.add_parser("generate", parents=[common], help="rewrite the inventory and docs/persisted-formats.md")
    sub.add_parser("finalize", parents=[common], help="lock every record in the next checkpoint")
    for name in ("baseline", "record", "update"):
        cmd = sub.add_parser(name, parents=[common], help=f"{name} a change record")
        cmd.add_argument("id", help="record id, e.g. 2026-11-30-short-slug")
        cmd.add_argument("--prose", type=Path, default=None, help="JSON {summary, compatibility, verification}")
        if name != "baseline":
            cmd.add_argument("--decision", choices=DECISIONS, default=None)
    cmd = sub.add_parser("review", parents=[common], help="compare two inventory files (read-only)")
    cmd.add_argument("--before", type=Path, required=True)
    cmd.add_argument("--after", type=Path, required=True)
    return parser


def _common_options(parser: argparse.ArgumentParser, **defaults: object) -> None:
    parser.add_argument("--json", action="store_true", default=defaults["json"], help="print the outcome as JSON")
    parser.add_argument(
        "--root", type=Path, default=defaults["root"], help="project directory (holds schema/ and docs/)"
    )
    parser.add_argument("--declarations", default=defaults["declarations"], help="declarations package or directory")


def run(args: argparse.Namespace) -> ops.Outcome:
    """Run the parsed command."""
    command = args.command
    if command == "review":
        return ops.review(args.before, args.after)
    root = args.root or _project_root()
    if root is None:
        return _no_project(command)
    project = ops.Project(root, _declarations(args.declarations))
    if command == "check":
        return ops.check(project)
    if command == "generate":
        return ops.generate(project)
    if command == "finalize":
        return ops.finalize(project)
    if command == "baseline":
        return ops.baseline(project, args.id, args.prose)
    if command == "record":
        return ops.record(project, args.id, args.decision, args.prose)
    if command == "update":
        return ops.update(project, args.id, args.decision, args.prose)
    raise AssertionError(f"unknown command {command!r}")


def _declarations(value: str) -> str | Path:
    return Path(value) if Path(value).is_dir() else value


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Parse ``argv``, run, print the outcome; returns the exit status (0, 1, or 2 for usage). ``prog``: the
    command the usage names."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    outcome = run(args)
    if args.json:
        print(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False))
    else:
        print(outcome.text(), file=sys.stdout if outcome.ok else sys.stderr)
    return 0 if outcome.ok else 1

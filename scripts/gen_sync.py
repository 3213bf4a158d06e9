#!/usr/bin/env python3
"""Generate the synchronous twins of the async sources.

Every module under the one async tree ``aimon_mongo/_async/`` is a source; its twin at the same place
under ``aimon_mongo/_sync/`` is produced by the explicit replacement rules below (the way PyMongo's
``synchro`` and httpcore's ``unasync`` do it) and committed. ``--check`` regenerates in memory and exits 1
naming every stale or missing twin, and every rule that no longer matches anything in the sources it applies
to (a rule nothing needs is deleted, so the list stays the explicit record of what the conversion does).

A source line may end with ``# sync: <text>``: the sync twin then carries ``<text>`` (at the line's own
indentation) instead of the converted line; ``# sync: drop`` removes the line.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "aimon_mongo"
HEADER = "# GENERATED from {source} by scripts/gen_sync.py; do not edit.\n"

# Ordered, explicit rules (regex, replacement). Applied to every line that has no "# sync:" pragma.
RULES: list[tuple[str, str]] = [
    # modules
    (r"\bpymongo\.asynchronous\b", "pymongo.synchronous"),
    (r"\bredis\.asyncio\b", "redis"),
    (r"\baimon_mongo\._async_runtime\b", "aimon_mongo._sync_runtime"),
    (r"\._async\b", "._sync"),
    # syntax
    (r"\basync def\b", "def"),
    (r"\basync with\b", "with"),
    (r"\basync for\b", "for"),
    (r"\bawait ", ""),
    # protocol methods and builtins
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\baclose\b", "close"),
    (r"\baclosing\b", "closing"),
    (r"\basynccontextmanager\b", "contextmanager"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    # docstrings: a twin says that it is generated, and from what
    (
        r"\(async (?:source|flavour) on ``Async(\w+)``; the sync twin is generated\)",
        r"(on ``\1``, generated from the ``_async`` source)",
    ),
    (
        r"\(async (?:source|flavour); the sync twin is generated\)",
        "(generated from the ``_async`` source)",
    ),
    (r"\ban async\b", "a sync"),
    # driver and library names: AsyncMongoClient -> MongoClient, AsyncGridFSBucket -> GridFSBucket,
    # AsyncConnectionPool -> ConnectionPool, AsyncConnection -> Connection, AsyncIterator -> Iterator,
    # and our own AsyncFoo -> Foo.
    (r"\bAsync([A-Z]\w*)", r"\1"),
    # words in prose
    (r"\basync\b", "sync"),
]
_COMPILED = [(re.compile(pattern), repl) for pattern, repl in RULES]

# Extra rules by package (applied before RULES): LangGraph spells its async saver methods with an "a"
# prefix (aput -> put, alist -> list, ...), and our saver's own methods follow that convention.
PACKAGE_RULES: dict[str, list[tuple[str, str]]] = {
    "aimon_mongo/_async/langgraph/": [
        (
            r"\ba(get_tuple|list|put_writes|put|delete_thread|delete_for_runs|copy_thread|prune|get"
            r"|claim_write_ownership|check_write_ownership|extend_write_ownership|release_write_ownership"
            r"|sweep_expired|threads|find_checkpoint|stored_record|history)\b",
            r"\1",
        ),
    ],
}
_PACKAGE_COMPILED = {
    prefix: [(re.compile(pattern), repl) for pattern, repl in rules] for prefix, rules in PACKAGE_RULES.items()
}
_PRAGMA = re.compile(r"^(?P<indent>\s*)(?P<code>.*?)\s*# sync: (?P<text>.*)$")


def convert_line(
    line: str, extra: list[tuple[re.Pattern[str], str]] | None = None, used: Counter[str] | None = None
) -> str | None:
    """The sync form of one source line (``None`` drops it); ``extra`` rules run first. ``used`` counts
    the substitutions each rule (by pattern) made."""
    body = line.rstrip("\n")
    match = _PRAGMA.match(body)
    if match:
        text = match.group("text").strip()
        if text == "drop":
            return None
        return match.group("indent") + text + "\n"
    for pattern, repl in [*(extra or []), *_COMPILED]:
        body, count = pattern.subn(repl, body)
        if count and used is not None:
            used[pattern.pattern] += count
    return body + "\n"


def convert(source_text: str, source_rel: str, used: Counter[str] | None = None) -> str:
    out = [HEADER.format(source=source_rel)]
    extra = [rule for prefix, rules in _PACKAGE_COMPILED.items() if source_rel.startswith(prefix) for rule in rules]
    for line in source_text.splitlines(keepends=True):
        converted = convert_line(line, extra, used)
        if converted is not None:
            out.append(converted)
    return "".join(out)


def unmatched_rules(used: Counter[str]) -> list[str]:
    """The patterns of every rule (general or by package) that made no substitution according to ``used``."""
    patterns = [pattern for pattern, _ in _COMPILED]
    patterns += [pattern for rules in _PACKAGE_COMPILED.values() for pattern, _ in rules]
    return [pattern.pattern for pattern in patterns if not used[pattern.pattern]]


def targets() -> list[tuple[Path, Path]]:
    """Each source of the async tree with the path of its twin in the sync tree."""
    async_tree, sync_tree = PACKAGE / "_async", PACKAGE / "_sync"
    return [(source, sync_tree / source.relative_to(async_tree)) for source in sorted(async_tree.rglob("*.py"))]


def orphans(pairs: list[tuple[Path, Path]]) -> list[Path]:
    expected = {target for _, target in pairs}
    return [p for p in sorted((PACKAGE / "_sync").rglob("*.py")) if p not in expected]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = parser.parse_args(argv)
    pairs = targets()
    problems: list[str] = []
    used: Counter[str] = Counter()
    for source, target in pairs:
        rel = source.relative_to(ROOT).as_posix()
        wanted = convert(source.read_text(encoding="utf-8"), rel, used)
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == wanted:
            continue
        if args.check:
            state = "missing" if current is None else "stale"
            problems.append(f"{target.relative_to(ROOT).as_posix()} is {state} (source {rel})")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(wanted, encoding="utf-8")
            print(f"generated {target.relative_to(ROOT).as_posix()}")
    for orphan in orphans(pairs):
        problems.append(f"{orphan.relative_to(ROOT).as_posix()} has no _async source (delete it)")
    if args.check:
        for pattern in unmatched_rules(used):
            problems.append(f"rule {pattern!r} matches nothing in any _async source (delete it)")
    if problems:
        print("sync twins out of date; run: python scripts/gen_sync.py", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

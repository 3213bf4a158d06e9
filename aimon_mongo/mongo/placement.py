"""Where every collection lives on a sharded MongoDB cluster, as data.

Each collection the library writes has one :class:`Placement`:

* ``SHARDED``: it may be sharded, on a key made only of its *routing fields* (the fields every hot
  operation carries as an equality, so mongos sends each to one shard). :attr:`Placement.key` is the
  recommended key;
* ``ID_ONLY``: it may be sharded on ``_id`` and nothing else. Its protocols read a duplicate-key error of
  an upsert as "someone else holds it" (lease cold start, fences, fenced records, idempotency put); the
  ``_id`` index is unique per shard only, so on any other key a second document with the same ``_id``
  could be inserted on another shard — two lease holders, a fence that goes back;
* ``UNSHARDED``: it must stay on the database's primary shard (capped collections cannot be sharded; the
  LangGraph saver's queries have not been checked against a shard key yet).

:func:`shard_commands` turns the placement (and optional overrides) into the ``shardCollection`` commands
for a cluster, refusing a layout that would break a protocol or send hot operations to every shard;
:func:`shard_collections` sends them through a mongos (``aimon-mongo shard-collections``).
:func:`render_docs` writes the "Sharded cluster" section of ``docs/operations.md`` from this module
(``python -m aimon_mongo.mongo.placement --check`` fails when the page is stale).
"""

from __future__ import annotations

import enum
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.collections import MongoCollectionNames

HASHED = "hashed"


class Kind(enum.Enum):
    SHARDED = "may be sharded"
    ID_ONLY = "_id only"
    UNSHARDED = "must stay unsharded"


ShardKey = tuple[tuple[str, int | str], ...]
"""A shard key as ordered ``(field, 1 | "hashed")`` pairs."""


@dataclass(frozen=True)
class Placement:
    """One collection's place on a sharded cluster."""

    role: str
    """The :class:`MongoCollectionNames` role, or the fixed collection name (LangGraph, GridFS suffix)."""
    kind: Kind
    key: ShardKey | None
    """The recommended shard key (``None``: the collection stays unsharded by default)."""
    routing_fields: tuple[str, ...]
    """The only fields a shard key of this collection may use."""
    why: str
    database: str = "session"
    """``session`` (the session stores' database) or ``vfs`` (the GridFS filesystem's database)."""


def _key(field: str, how: int | str = HASHED) -> ShardKey:
    return ((field, how),)


PLACEMENTS: tuple[Placement, ...] = (
    Placement(
        "locks",
        Kind.ID_ONLY,
        _key(n.F_ID),
        (n.F_ID,),
        "lease cold start reads a duplicate `_id` as 'held'; every lease operation filters on `_id`",
    ),
    Placement(
        "inbox",
        Kind.SHARDED,
        _key(n.F_CONVERSATION_ID),
        (n.F_CONVERSATION_ID,),
        "deliver, collect, peek, is_empty and purge all carry the session id",
    ),
    Placement(
        "quarantine",
        Kind.SHARDED,
        None,
        (n.F_CONVERSATION_ID,),
        "small; replay and delete by `_id` are operator commands (scatter if sharded)",
    ),
    Placement(
        "idempotency",
        Kind.ID_ONLY,
        _key(n.F_ID),
        (n.F_ID,),
        "put reads a duplicate `_id` as 'exists'; every operation filters on the key (`_id`)",
    ),
    Placement(
        "signals",
        Kind.UNSHARDED,
        None,
        (),
        "capped: a capped collection cannot be sharded",
    ),
    Placement(
        "tasks",
        Kind.SHARDED,
        _key(n.F_ID),
        (n.F_ID,),
        "put, find, remove, transition and heartbeat filter on the task id (`_id`)",
    ),
    Placement(
        "scheduled_task_interrupts",
        Kind.UNSHARDED,
        None,
        (),
        "capped: a capped collection cannot be sharded",
    ),
    Placement(
        "records",
        Kind.ID_ONLY,
        _key(n.F_ID),
        (n.F_ID,),
        "fenced writes read a duplicate `_id` as 'a newer token holds it'",
    ),
    Placement(
        "segments",
        Kind.SHARDED,
        _key(n.F_SESSION_ID),
        (n.F_SESSION_ID,),
        "put, get, list, delete and delete_all carry `sessionId`; the `_id` contains it, so `_id` stays unique",
    ),
    Placement(
        "fences",
        Kind.ID_ONLY,
        _key(n.F_ID),
        (n.F_ID,),
        "advance reads a duplicate `_id` as 'a higher token was accepted'",
    ),
    Placement(n.LG_CHECKPOINTS, Kind.UNSHARDED, None, (), "LangGraph saver: not yet checked against a shard key"),
    Placement(n.LG_THREADS, Kind.UNSHARDED, None, (), "LangGraph saver: not yet checked against a shard key"),
    Placement(
        f"{n.LG_VALUES_BUCKET}.{n.GRIDFS_FILES_SUFFIX}",
        Kind.UNSHARDED,
        None,
        (),
        "LangGraph saver: not yet checked against a shard key",
    ),
    Placement(
        f"{n.LG_VALUES_BUCKET}.{n.GRIDFS_CHUNKS_SUFFIX}",
        Kind.UNSHARDED,
        None,
        (),
        "LangGraph saver: not yet checked against a shard key",
    ),
    Placement(
        n.GRIDFS_FILES_SUFFIX,
        Kind.UNSHARDED,
        None,
        (),
        "VFS metadata: revisions are looked up by name range and by `_id`, which no one key routes",
        "vfs",
    ),
    Placement(
        n.GRIDFS_CHUNKS_SUFFIX,
        Kind.SHARDED,
        ((n.GRIDFS_FILES_ID, 1), (n.GRIDFS_N, 1)),
        (n.GRIDFS_FILES_ID, n.GRIDFS_N),
        "reads and writes carry `files_id`; file ids are spread (not monotonic), so new chunks spread too",
        "vfs",
    ),
)
"""Every collection's placement (session database first, then the VFS bucket's ``files`` and ``chunks``)."""

_ROLES = {p.role: p for p in PLACEMENTS}


def placement(role: str) -> Placement:
    """The placement of a role (``"locks"``, ``"inbox"`` ...; a fixed name; ``"files"`` / ``"chunks"``)."""
    try:
        return _ROLES[role]
    except KeyError:
        raise InvalidArgumentError(f"no placement for {role!r}; known: {sorted(_ROLES)}") from None


def collection_map(
    names: MongoCollectionNames | None = None, bucket: str = n.DEFAULT_GRIDFS_BUCKET
) -> dict[str, Placement]:
    """Collection name → placement, for the collection names in use."""
    c = names or MongoCollectionNames()
    out: dict[str, Placement] = {}
    for p in PLACEMENTS:
        if p.database == "vfs":
            out[f"{bucket}.{p.role}"] = p
        else:
            out[getattr(c, p.role, p.role)] = p
    return out


def _normal_key(role: str, value: Any) -> ShardKey | None:
    if value is None:
        return None
    items = value.items() if isinstance(value, Mapping) else value
    try:
        key = tuple((str(field), how) for field, how in items)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"shard key of {role!r} is not a list of (field, 1|'hashed'): {value!r}") from None
    if not key or any(how not in (1, HASHED) or isinstance(how, bool) for _, how in key):
        raise InvalidArgumentError(f"shard key of {role!r} must be (field, 1 | 'hashed') pairs, got {value!r}")
    if sum(how == HASHED for _, how in key) > 1:
        raise InvalidArgumentError(f"shard key of {role!r} has more than one hashed field: {value!r}")
    return key


def check_layout(role: str, key: ShardKey | None) -> None:
    """Raise :class:`InvalidArgumentError` when sharding ``role`` on ``key`` would break a protocol or make
    its hot operations scatter (``None``: left unsharded, always allowed)."""
    p = placement(role)
    if key is None:
        return
    fields = [field for field, _ in key]
    shown = ", ".join(f"{f}: {h!r}" for f, h in key)
    if p.kind is Kind.UNSHARDED:
        raise InvalidArgumentError(f"collection {role!r} must stay unsharded ({p.why}); refused key {{{shown}}}")
    if p.kind is Kind.ID_ONLY and fields != [n.F_ID]:
        raise InvalidArgumentError(
            f"collection {role!r} may be sharded on `_id` only ({p.why}); key {{{shown}}} would allow two "
            "documents with the same `_id` on different shards"
        )
    stray = [f for f in fields if f not in p.routing_fields]
    if stray:
        raise InvalidArgumentError(
            f"shard key {{{shown}}} of {role!r} uses {stray}, which its hot operations do not carry "
            f"(allowed: {list(p.routing_fields)}); they would go to every shard"
        )


def shard_commands(
    session_db: str = n.DEFAULT_SESSION_DATABASE,
    names: MongoCollectionNames | None = None,
    *,
    vfs_db: str | None = n.DEFAULT_VFS_DATABASE,
    bucket: str = n.DEFAULT_GRIDFS_BUCKET,
    overrides: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The ``shardCollection`` commands (for the ``admin`` database) of the layout: the recommended keys,
    changed by ``overrides`` (role → key, or ``None`` to leave a collection unsharded). ``vfs_db=None``
    leaves the GridFS bucket out. Refuses (``InvalidArgumentError``) an unsafe layout before any command."""
    c = names or MongoCollectionNames()
    chosen: dict[str, ShardKey | None] = {p.role: p.key for p in PLACEMENTS}
    for role, value in (overrides or {}).items():
        placement(role)
        chosen[role] = _normal_key(role, value)
    commands: list[dict[str, Any]] = []
    for p in PLACEMENTS:
        key = chosen[p.role]
        check_layout(p.role, key)
        if key is None:
            continue
        if p.database == "vfs":
            if vfs_db is None:
                continue
            namespace = f"{vfs_db}.{bucket}.{p.role}"
        else:
            namespace = f"{session_db}.{getattr(c, p.role, p.role)}"
        commands.append({"shardCollection": namespace, "key": dict(key)})
    return commands


def shard_collections(client: Any, commands: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Send ``commands`` (from :func:`shard_commands`) through ``client``, a sync ``MongoClient`` connected
    to a mongos; refuses a deployment that is not a sharded cluster. Returns the servers' replies."""
    hello = client.admin.command("hello")
    if hello.get("msg") != "isdbgrid":
        raise InvalidArgumentError(
            "shard-collections needs a mongos (a sharded cluster); this server is "
            f"{'a replica set member' if hello.get('setName') else 'a standalone server'}"
        )
    return [dict(client.admin.command(dict(command))) for command in commands]


# --- docs/operations.md -------------------------------------------------------------------------------

DOC_PAGE = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
BEGIN = "<!-- BEGIN sharded-cluster: generated by `python -m aimon_mongo.mongo.placement`; do not edit -->"
END = "<!-- END sharded-cluster -->"


def _shown(key: ShardKey | None) -> str:
    if key is None:
        return "unsharded"
    return "`{" + ", ".join(f"{f}: {h!r}".replace("'", '"') for f, h in key) + "}`"


def render_docs() -> str:
    """The generated part of the "Sharded cluster" section (between :data:`BEGIN` and :data:`END`)."""
    c = MongoCollectionNames()
    lines = [
        BEGIN,
        "",
        "| Collection | Placement | Recommended key | Key may use | Why |",
        "|---|---|---|---|---|",
    ]
    for p in PLACEMENTS:
        name = f"<bucket>.{p.role}" if p.database == "vfs" else getattr(c, p.role, p.role)
        allowed = ", ".join(f"`{f}`" for f in p.routing_fields) or "-"
        lines.append(f"| `{name}` | {p.kind.value} | {_shown(p.key)} | {allowed} | {p.why} |")
    lines += ["", "The commands `aimon-mongo shard-collections` sends for the default names:", "", "```"]
    lines += [mongosh_command(cmd) for cmd in shard_commands()]
    lines += ["```", "", END]
    return "\n".join(lines)


_JS_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def mongosh_command(command: Mapping[str, Any]) -> str:
    """A ``shardCollection`` command (from :func:`shard_commands`) as the mongosh line that sends it:
    ``db.adminCommand({shardCollection: "db.coll", key: {_id: "hashed"}})`` (strings quoted as JSON, a key
    field that is not a plain name quoted too)."""

    def name(field: str) -> str:
        return field if _JS_NAME.fullmatch(field) else json.dumps(field)

    key = ", ".join(f"{name(f)}: {json.dumps(h)}" for f, h in command["key"].items())
    return f"db.adminCommand({{shardCollection: {json.dumps(command['shardCollection'])}, key: {{{key}}}}})"


def refresh_docs(page: Path = DOC_PAGE, *, check: bool = False) -> bool:
    """Rewrite the generated block of ``page``; with ``check``, only report whether it is current."""
    text = page.read_text(encoding="utf-8")
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise InvalidArgumentError(f"{page} has no generated sharded-cluster block ({BEGIN!r} ... {END!r})")
    fresh = text[:start] + render_docs() + text[stop + len(END) :]
    if fresh == text:
        return True
    if not check:
        page.write_text(fresh, encoding="utf-8")
    return False


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m aimon_mongo.mongo.placement [--check]``: regenerate (or check) the docs block."""
    args = list(sys.argv[1:] if argv is None else argv)
    current = refresh_docs(check="--check" in args)
    if "--check" in args and not current:
        print(f"{DOC_PAGE}: the sharded-cluster section is stale; run python -m aimon_mongo.mongo.placement")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

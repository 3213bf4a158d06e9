"""``aimon-mongo shard-collections``: shard the collections of a cluster as :mod:`aimon_mongo.mongo.placement`
declares (through a mongos), refusing a layout that would break a protocol."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag
from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.placement import HASHED, mongosh_command, shard_collections, shard_commands


def parse_key(option: str) -> tuple[str, Any]:
    """``ROLE=none`` → ``(ROLE, None)``; ``ROLE=field[:1|:hashed],...`` → ``(ROLE, [(field, 1|"hashed")])``
    (a field without ``:`` is hashed)."""
    role, sep, spec = option.partition("=")
    if not sep or not role or not spec:
        raise CommandFailed(f"--key wants ROLE=field[:1|:hashed][,field...] or ROLE=none, got {option!r}")
    if spec == "none":
        return role, None
    key: list[tuple[str, int | str]] = []
    for part in spec.split(","):
        field, _, how = part.partition(":")
        if how not in ("", "1", HASHED) or not field:
            raise CommandFailed(f"--key {option!r}: {part!r} is not field, field:1 or field:hashed")
        key.append((field, 1 if how == "1" else HASHED))
    return role, key


def register(app: typer.Typer) -> None:
    @app.command("shard-collections")
    def shard(
        ctx: typer.Context,
        key: Annotated[
            list[str] | None,
            typer.Option("--key", help="Override a collection's key: ROLE=field[:1|:hashed][,...] or ROLE=none."),
        ] = None,
        no_vfs: Annotated[bool, typer.Option("--no-vfs", help="Leave the GridFS bucket out.")] = False,
        print_only: Annotated[
            bool,
            typer.Option("--print", help="Only print the commands, as mongosh lines (nothing is sent)."),
        ] = False,
        as_json: JsonFlag = False,
    ) -> None:
        """Shard the session stores' collections (and the GridFS chunks) through a mongos, as declared."""
        cli = _context.of(ctx)
        cli.require_mongo()  # also for --print: the commands are MongoDB's
        overrides = dict(parse_key(option) for option in key or [])
        try:
            commands = shard_commands(
                cli.session_db,
                vfs_db=None if no_vfs else cli.vfs_db,
                bucket=cli.bucket,
                overrides=overrides,
            )
        except InvalidArgumentError as exc:
            raise CommandFailed(f"refused: {exc}") from None
        if print_only:
            if as_json:
                cli.emit_json(commands)
            else:
                for command in commands:
                    print(mongosh_command(command))
            return
        try:
            replies = shard_collections(cli.client, commands)
        except InvalidArgumentError as exc:
            raise CommandFailed(f"refused: {exc}") from None
        if as_json:
            cli.emit_json([{"command": c, "reply": r} for c, r in zip(commands, replies, strict=True)])
            return
        for command in commands:
            cli.console.print(f"sharded {command['shardCollection']} on {command['key']}")

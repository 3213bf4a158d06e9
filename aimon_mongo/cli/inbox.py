"""``aimon-mongo inbox ...`` and ``aimon-mongo quarantine ...``: operator views of the session inbox, on
every backend (MongoDB, Redis, PostgreSQL), read through :mod:`aimon_mongo.inspect`.

``inbox peek`` reads a session's waiting entries without consuming them; ``inbox stats`` counts entries
per session and priority (plus the quarantined and the claimed ones per session); ``inbox claims`` lists
per session its lease holder and the entries claimed and not yet acknowledged, with their attempts.
``quarantine`` lists, shows, replays and deletes the raw stored forms of entries that could not be
decoded (see ``docs/operations.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, clip, print_table, table, when
from aimon_mongo.codec.inbound import to_json_envelope
from aimon_mongo.errors import CodecError
from aimon_mongo.inspect import PRIORITY_NAMES, ClaimedEntry, InboxStats, LeaseState
from aimon_mongo.model import InboundMessage
from aimon_mongo.model.record import QuarantinedEntry

inbox_app = typer.Typer(help="Waiting inbox entries: peek without consuming, stats.")
quarantine_app = typer.Typer(help="Inbox entries that could not be decoded: list, show, replay, delete.")

SessionArg = Annotated[str, typer.Argument(help="Session (conversation) id.")]
QuarantineId = Annotated[str, typer.Argument(help="Quarantine id (from 'quarantine list').")]
Limit = Annotated[int, typer.Option("--limit", min=1, help="At most this many entries.")]


def _message_json(message: InboundMessage) -> dict[str, Any]:
    """A message as its frozen JSON envelope (the Redis/PostgreSQL form), with the inbox id."""

    return {"id": message.id, **json.loads(to_json_envelope(message))}


@inbox_app.command("peek")
def peek(ctx: typer.Context, session_id: SessionArg, limit: Limit = 64, as_json: JsonFlag = False) -> None:
    """A session's waiting entries in collect order (priority, then arrival), without consuming them."""
    cli = _context.of(ctx)
    batch = cli.inspector().peek(session_id, limit)
    if as_json:
        cli.emit_json(
            {
                "session_id": session_id,
                "messages": [_message_json(m) for m in batch.messages],
                "unreadable": [u.model_dump(mode="json") for u in batch.unreadable],
            }
        )
        return
    listing = table("id", "priority", "delivered", "initiator", "agent", "input")
    for message in batch.messages:
        listing.add_row(
            cell(message.id),
            cell(message.priority.name),
            cell(when(message.delivered_at)),
            cell(f"{message.initiator.type.value}:{message.initiator.id}"),
            cell(message.agent_ref),
            cell(clip(message.user_input.as_text())),
        )
    for entry in batch.unreadable:
        listing.add_row(
            cell(entry.id), cell("?"), cell(""), cell(""), cell(""), cell(f"unreadable: {entry.reason}", "red")
        )
    print_table(cli.console, listing, f"inbox of session {session_id} is empty")


def inbox_stats(cli: _context.CliContext, session_id: str | None) -> list[InboxStats]:
    """Per session: entries per priority, total, oldest delivery, quarantined and claimed entries (sorted by
    session)."""
    return cli.inspector().inbox_stats(None if session_id is None else [session_id])


@inbox_app.command("stats")
def stats(
    ctx: typer.Context,
    session_id: Annotated[str | None, typer.Option("--session", help="Only this session.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Waiting entries per session and priority, the oldest delivery, quarantined and claimed entries."""
    cli = _context.of(ctx)
    rows = inbox_stats(cli, session_id)
    if as_json:
        cli.emit_json(rows)
        return
    numbers = (*PRIORITY_NAMES.values(), "total", "quarantined", "claimed")
    listing = table("session", *numbers, "oldest", right=numbers)
    for entry in rows:
        listing.add_row(
            cell(entry["session_id"], "bold"),
            *(cell(entry[name]) for name in numbers),  # type: ignore[literal-required]
            cell(when(entry["oldest"])),
        )
    print_table(cli.console, listing, "no waiting or quarantined entries")


def claims_by_session(cli: _context.CliContext, session_id: str | None) -> list[dict[str, Any]]:
    """Per session with claimed entries (or the one asked for): its lease (holder, token, state) and its
    claimed, not yet acknowledged entries with their claim token and attempts; sorted by session."""
    inspector = cli.inspector()
    scope = None if session_id is None else [session_id]
    claimed = inspector.claimed_entries(scope)
    sessions = sorted({entry["session_id"] for entry in claimed} | set(scope or ()))
    leases = {row["session_id"]: row for row in inspector.lease_states(sessions)} if sessions else {}
    return [
        {"session_id": sid, "lease": leases.get(sid), "claimed": [e for e in claimed if e["session_id"] == sid]}
        for sid in sessions
    ]


def _holder(lease: LeaseState | None) -> str:
    return "" if lease is None or lease["holder_id"] is None else f"{lease['holder_id']} ({lease['state']})"


def _claim_json(entry: ClaimedEntry) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key != "session_id"}


@inbox_app.command("claims")
def claims(
    ctx: typer.Context,
    session_id: Annotated[str | None, typer.Option("--session", help="Only this session.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Claimed, not yet acknowledged entries per session: the session's holder, each entry's claim token,
    attempts (hand-outs so far) and claim time (server time; not kept on Redis)."""
    cli = _context.of(ctx)
    rows = claims_by_session(cli, session_id)
    if as_json:
        cli.emit_json([{**row, "claimed": [_claim_json(e) for e in row["claimed"]]} for row in rows])
        return
    listing = table(
        "session", "holder", "entry id", "claim token", "attempts", "claimed", right=("claim token", "attempts")
    )
    for row in rows:
        holder = _holder(row["lease"])
        for entry in row["claimed"]:
            listing.add_row(
                cell(row["session_id"], "bold"),
                cell(holder),
                cell(entry["entry_id"]),
                cell(entry["claim_token"]),
                cell(entry["attempts"], "red" if entry["attempts"] > 1 else None),
                cell(when(entry["claimed_at"])),
            )
    print_table(cli.console, listing, "no claimed entries")


def _entry_json(entry: QuarantinedEntry) -> dict[str, Any]:
    """An entry without its raw document ('quarantine show' adds that, as Extended JSON)."""
    return entry.model_dump(mode="json", exclude={"raw"})


@quarantine_app.command("list")
def quarantine_list(
    ctx: typer.Context,
    session_id: Annotated[str | None, typer.Option("--session", help="Only this session.")] = None,
    limit: Limit = 100,
    as_json: JsonFlag = False,
) -> None:
    """Quarantined entries, oldest first (without their raw documents; see 'quarantine show')."""
    cli = _context.of(ctx)
    entries = cli.backends().inbox.list_quarantined(session_id, limit)
    if as_json:
        cli.emit_json([_entry_json(entry) for entry in entries])
        return
    listing = table("id", "session", "entry id", "quarantined", "error")
    for entry in entries:
        listing.add_row(
            cell(entry.id, "bold"),
            cell(entry.session_id),
            cell(entry.entry_id),
            cell(when(entry.quarantined_at)),
            cell(clip(entry.error, 80), "red"),
        )
    print_table(cli.console, listing, "the quarantine is empty")


def _find_quarantined(ctx: typer.Context, quarantine_id: str) -> QuarantinedEntry:
    from bson import ObjectId

    cli = _context.of(ctx)
    found = cli.inspector().find_quarantined(quarantine_id)
    if found is None:
        form = " (not an ObjectId)" if cli.backend == "mongo" and not ObjectId.is_valid(quarantine_id) else ""
        raise CommandFailed(f"no quarantined entry {quarantine_id!r}{form}")
    return found


@quarantine_app.command("show")
def quarantine_show(ctx: typer.Context, quarantine_id: QuarantineId, as_json: JsonFlag = False) -> None:
    """One quarantined entry with its raw stored form (MongoDB: Extended JSON, relaxed; Redis, PostgreSQL:
    the stored envelope text)."""
    from bson import json_util
    from bson.json_util import RELAXED_JSON_OPTIONS

    entry = _find_quarantined(ctx, quarantine_id)
    raw = json.loads(json_util.dumps(entry.raw, json_options=RELAXED_JSON_OPTIONS))
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json({**_entry_json(entry), "raw": raw})
        return
    for label, value in (
        ("id", entry.id),
        ("session", entry.session_id),
        ("entry id", entry.entry_id),
        ("quarantined", when(entry.quarantined_at)),
        ("error", entry.error),
    ):
        cli.console.print(cell(f"{label}: ", "bold") + cell(value), soft_wrap=True)
    cli.console.print(cell("raw document:", "bold"))
    for line in json.dumps(raw, indent=2, ensure_ascii=False).splitlines():  # cell() escapes a line break
        cli.console.print(cell(line), soft_wrap=True, highlight=False)


FROM_WANTS = (
    "--from wants the stored document, corrected: the output of 'quarantine show ID --json' (its \"raw\" "
    "member is replayed) or that member alone, as Extended JSON"
)


def _corrected(from_file: Path, quarantine_id: str) -> Any:
    """The document ``--from`` names: a ``quarantine show --json`` output gives its ``raw`` member (when it
    is the same entry), anything else is taken as the stored document itself."""
    from bson import json_util

    try:
        found = json_util.loads(from_file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandFailed(f"{from_file} is not a JSON document: {type(exc).__name__} ({FROM_WANTS})") from None
    if not isinstance(found, dict):
        raise CommandFailed(f"{from_file} holds a JSON {type(found).__name__}, not a document ({FROM_WANTS})")
    if isinstance(found.get("raw"), dict) and "quarantined_at" in found:  # the shape of 'quarantine show --json'
        if found.get("id") != quarantine_id:
            raise CommandFailed(
                f"{from_file} is quarantined entry {found.get('id')!r} ('quarantine show --json'), "
                f"not {quarantine_id!r}"
            )
        return found["raw"]
    return found


@quarantine_app.command("replay")
def quarantine_replay(
    ctx: typer.Context,
    quarantine_id: QuarantineId,
    from_file: Annotated[
        Path | None,
        typer.Option(
            "--from",
            exists=True,
            dir_okay=False,
            help=(
                "A corrected document to deliver instead: the output of 'quarantine show ID --json', edited "
                "(its raw member), or that member alone (Extended JSON)."
            ),
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Decode the entry again (or a corrected document) and deliver it; the quarantined copy is removed."""
    cli = _context.of(ctx)
    raw = None if from_file is None else _corrected(from_file, quarantine_id)
    try:
        new_id = cli.backends().inbox.replay_quarantined(quarantine_id, raw)
    except CodecError as exc:
        if from_file is None:
            raise
        raise CommandFailed(f"{exc}; the entry is kept ({FROM_WANTS})") from None
    if as_json:
        cli.emit_json({"quarantine_id": quarantine_id, "inbox_id": new_id})
    else:
        cli.console.print(cell(f"replayed {quarantine_id} as inbox entry {new_id}"), soft_wrap=True)


@quarantine_app.command("delete")
def quarantine_delete(ctx: typer.Context, quarantine_id: QuarantineId) -> None:
    """Delete a quarantined entry for good."""
    if not _context.of(ctx).backends().inbox.delete_quarantined(quarantine_id):
        raise CommandFailed(f"no quarantined entry {quarantine_id!r}")
    _context.of(ctx).console.print(cell(f"deleted {quarantine_id}"), soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(inbox_app, name="inbox")
    app.add_typer(quarantine_app, name="quarantine")

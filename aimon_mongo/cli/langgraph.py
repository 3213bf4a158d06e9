"""``aimon-mongo langgraph ...``: browse what the LangGraph checkpoint saver stored (session database).

``threads`` lists threads, ``history THREAD`` a thread's checkpoints newest first, ``show CHECKPOINT`` one
checkpoint: identity, metadata, channels (version, size, inline or GridFS, written here or earlier) and
pending writes (task, channel, size). Channel values and write values are never printed: sizes only.
Metadata is decoded with LangGraph's default serializer; a saver configured with another one (for
example an encrypting serializer) shows ``undecodable`` there. ``sweep`` deletes expired threads.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, print_table, size, table, when

app = typer.Typer(help="LangGraph checkpoints: threads, a thread's history, one checkpoint, retention sweep.")


def _saver(ctx: typer.Context) -> Any:
    try:
        from aimon_mongo.langgraph import AimonCheckpointSaver
    except ImportError as exc:
        raise CommandFailed(
            "the langgraph commands need the langgraph extra: pip install 'aimon-mongo[langgraph]'"
        ) from exc

    cli = _context.of(ctx)
    cli.require_database(cli.session_db, "--session-db")  # reads never create the database
    return AimonCheckpointSaver(cli.session_database, value_cache_bytes=0)


def _metadata(saver: Any, record: Any) -> Any:
    try:
        return saver.serde.loads_typed((record.metadata.type, record.metadata.data or b""))
    except Exception:  # another serializer (encrypted, custom): nothing to show but the fact
        return None


def _record_json(saver: Any, record: Any) -> dict[str, Any]:
    metadata = _metadata(saver, record)
    from aimon_mongo.langgraph.records import value_key

    own = {v.key for v in record.values}
    return {
        "thread_id": record.thread_id,
        "checkpoint_ns": record.checkpoint_ns,
        "checkpoint_id": record.checkpoint_id,
        "parent_checkpoint_id": record.parent_checkpoint_id,
        "metadata": metadata if isinstance(metadata, dict) else None,
        "run_id": record.run_id,
        "fencing_token": record.fencing_token,
        "channels": [
            {
                "channel": channel,
                "version": version,
                "written_here": value_key(channel, version) in own,
                **_where(record, value_key(channel, version)),
            }
            for channel, version in record.channel_versions
        ],
        "pending_writes": [
            {
                "task_id": w.task_id,
                "task_path": w.task_path,
                "idx": w.idx,
                "channel": w.channel,
                "size": w.value.size,
                "stored": "gridfs" if w.value.is_large else "inline",
            }
            for w in sorted(record.writes, key=lambda w: (w.task_path, w.task_id, w.idx))
        ],
    }


def _where(record: Any, key: str) -> dict[str, Any]:
    for value in record.values:
        if value.key == key:
            return {"size": value.value.size, "stored": "gridfs" if value.value.is_large else "inline"}
    return {"size": None, "stored": "earlier checkpoint"}


@app.command("threads")
def threads(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many threads.")] = 100,
    as_json: JsonFlag = False,
) -> None:
    """Threads with checkpoints, most recently written first."""
    cli = _context.of(ctx)
    infos = _saver(ctx).threads(limit)
    if as_json:
        cli.emit_json([info.__dict__ | {"namespaces": list(info.namespaces)} for info in infos])
        return
    listing = table("thread", "checkpoints", "namespaces", "latest checkpoint", "fence", "expires", "state",
                    right=("checkpoints", "fence"))  # fmt: skip
    for info in infos:
        listing.add_row(
            cell(info.thread_id, "bold"),
            cell(info.checkpoints),
            cell(", ".join(ns or '""' for ns in info.namespaces)),
            cell(info.latest_checkpoint_id),
            cell(info.fencing_token),
            cell(when(info.expires_at)),
            cell(info.state, "yellow" if info.state != "live" else None),
        )
    print_table(cli.console, listing, "no LangGraph threads")


@app.command("history")
def history(
    ctx: typer.Context,
    thread_id: Annotated[str, typer.Argument(help="LangGraph thread id.")],
    namespace: Annotated[str | None, typer.Option("--ns", help="Only this checkpoint namespace.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many checkpoints.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """A thread's checkpoints, newest first."""
    cli = _context.of(ctx)
    saver = _saver(ctx)
    records = saver.history(thread_id, namespace, limit)
    if not records:
        raise CommandFailed(f"thread {thread_id!r} has no checkpoints")
    if as_json:
        cli.emit_json([_record_json(saver, r) for r in records])
        return
    listing = table("checkpoint", "ns", "step", "source", "parent", "new values", "writes", "fence",
                    right=("step", "writes", "fence"))  # fmt: skip
    for record in records:
        metadata = _metadata(saver, record)
        meta = metadata if isinstance(metadata, dict) else {}
        listing.add_row(
            cell(record.checkpoint_id, "bold"),
            cell(record.checkpoint_ns or '""'),
            cell(meta.get("step", "undecodable" if metadata is None else "")),
            cell(meta.get("source")),
            cell(record.parent_checkpoint_id),
            cell(", ".join(v.channel for v in record.values)),
            cell(len(record.writes)),
            cell(record.fencing_token),
        )
    print_table(cli.console, listing, "no checkpoints")


@app.command("show")
def show(
    ctx: typer.Context,
    checkpoint_id: Annotated[str, typer.Argument(help="Checkpoint id.")],
    thread_id: Annotated[str | None, typer.Option("--thread", help="Look only in this thread.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """One checkpoint: metadata, channels (sizes, where stored), pending writes."""
    cli = _context.of(ctx)
    saver = _saver(ctx)
    record = saver.find_checkpoint(checkpoint_id, thread_id)
    if record is None:
        raise CommandFailed(f"no checkpoint {checkpoint_id!r}" + ("" if thread_id is None else f" in {thread_id!r}"))
    shown = _record_json(saver, record)
    if as_json:
        cli.emit_json(shown)
        return
    console = cli.console
    console.print(cell(f"checkpoint {record.checkpoint_id}", "bold"), soft_wrap=True)
    for label, key in (("thread", "thread_id"), ("namespace", "checkpoint_ns"), ("parent", "parent_checkpoint_id"),
                       ("run", "run_id"), ("fence", "fencing_token")):  # fmt: skip
        console.print(f"  {label}: {shown[key] if shown[key] not in (None, '') else '-'}", soft_wrap=True, markup=False)
    metadata = shown["metadata"]
    console.print(
        "  metadata: " + ("undecodable" if metadata is None else _short(metadata)), soft_wrap=True, markup=False
    )
    channels = table("channel", "version", "size", "stored", "written here", right=("size",))
    for channel in shown["channels"]:
        channels.add_row(
            cell(channel["channel"], "bold"),
            cell(channel["version"]),
            cell(size(channel["size"])),
            cell(channel["stored"]),
            cell("yes" if channel["written_here"] else ""),
        )
    print_table(console, channels, "no channels")
    writes = table("task", "path", "idx", "channel", "size", "stored", right=("idx", "size"))
    for write in shown["pending_writes"]:
        writes.add_row(
            cell(write["task_id"]), cell(write["task_path"]), cell(write["idx"]), cell(write["channel"]),
            cell(size(write["size"])), cell(write["stored"]),
        )  # fmt: skip
    print_table(console, writes, "no pending writes")


@app.command("sweep")
def sweep(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many threads.")] = 1000,
    as_json: JsonFlag = False,
) -> None:
    """Delete (whole) every thread whose retention expired on the server's clock."""
    cli = _context.of(ctx)
    swept = _saver(ctx).sweep_expired(limit)
    if as_json:
        cli.emit_json({"swept": swept})
    else:
        cli.console.print(f"swept {len(swept)} expired thread(s)", soft_wrap=True, markup=False)


def _short(metadata: dict[str, Any]) -> str:
    parts = []
    for key, value in metadata.items():
        text = repr(value)
        parts.append(f"{key}={text if len(text) <= 60 else text[:60] + '…'}")
    return ", ".join(parts)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="langgraph")

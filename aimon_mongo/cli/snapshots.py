"""``aimon-mongo snapshots ...``: transcript snapshots stored in the filesystem (``task-snapshot/``).

``show`` renders a transcript with :func:`~aimon_mongo.snapshots.render_lines` (the same text as the
library's plain rendering, coloured by line kind on a terminal); ``--json`` gives the lines with their
kinds. Unreadable snapshots are reported with the reason, never skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, print_table, size, table, when
from aimon_mongo.cli._views import print_transcript
from aimon_mongo.errors import VfsFileNotFoundError
from aimon_mongo.snapshots import DEFAULT_SNAPSHOT_BASE_DIR, VfsSessionSnapshotStore, render, render_lines
from aimon_mongo.snapshots.envelope import EnvelopeError, StoredEnvelope, decode_snapshot, read_envelope
from aimon_mongo.snapshots.model import SessionSnapshot

snapshots_app = typer.Typer(help="Transcript snapshots of sub-agent tasks: list, show, export.")

BaseDir = Annotated[str, typer.Option("--base-dir", help="Directory of the snapshot store in the filesystem.")]
TaskId = Annotated[str, typer.Argument(help="Task id (the snapshot is <base-dir>/<task-id>.json).")]


def _store(ctx: typer.Context, base_dir: str) -> VfsSessionSnapshotStore:
    return VfsSessionSnapshotStore(_context.of(ctx).filesystem(), base_dir=base_dir.strip("/") or base_dir)


def _read(store: VfsSessionSnapshotStore, task_id: str) -> tuple[bytes, StoredEnvelope]:
    try:
        data = store.fs.read(store.path_of(task_id))
    except VfsFileNotFoundError:
        raise CommandFailed(f"no snapshot for task {task_id!r} in {store.base_dir}/") from None
    try:
        return data, read_envelope(data)
    except EnvelopeError as exc:
        template, args = exc.warning(task_id)
        raise CommandFailed(template % args) from None


def _decode(store: VfsSessionSnapshotStore, task_id: str, envelope: StoredEnvelope) -> SessionSnapshot:
    try:
        return decode_snapshot(store.codec, envelope)
    except Exception as exc:
        raise CommandFailed(f"snapshot of task {task_id!r} cannot be decoded: {exc}") from None


@snapshots_app.command("list")
def list_snapshots(
    ctx: typer.Context,
    context: Annotated[
        str | None, typer.Option("--context", help="Only snapshots tagged with this agent runtime id.")
    ] = None,
    base_dir: BaseDir = DEFAULT_SNAPSHOT_BASE_DIR,
    as_json: JsonFlag = False,
) -> None:
    """Stored snapshots: task id, subagent, context, messages, size, modified, format version."""
    entries = _store(ctx, base_dir).list_snapshots()
    if context is not None:
        entries = [entry for entry in entries if entry.context_id == context]
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json([entry.model_dump(mode="json") for entry in entries])
        return
    listing = table("task id", "subagent", "context", "messages", "size", "modified", "format", right=("messages",))
    for entry in entries:
        listing.add_row(
            cell(entry.task_id, "bold"),
            cell(entry.subagent_name),
            cell(entry.context_id),
            cell(entry.message_count),
            cell(size(entry.size)),
            cell(when(entry.modified)),
            cell(f"v{entry.format_version}" if entry.format_version is not None else ""),
        )
        if entry.problem is not None:
            listing.add_row(cell(""), cell(f"problem: {entry.problem}", "red"))
    print_table(cli.console, listing, f"no snapshots in {base_dir}/")


def transcript_json(task_id: str, envelope: StoredEnvelope, snapshot: SessionSnapshot) -> dict[str, Any]:
    """The ``show --json`` document."""
    return {
        "task_id": task_id,
        "subagent_name": envelope.subagent_name,
        "context_id": envelope.context_id,
        "session_id": snapshot.session_id,
        "format_version": snapshot.format.wire_version,
        "message_count": snapshot.message_count,
        "lines": [{"kind": line.kind.value, "text": line.text} for line in render_lines(snapshot)],
    }


@snapshots_app.command("show")
def show(
    ctx: typer.Context, task_id: TaskId, base_dir: BaseDir = DEFAULT_SNAPSHOT_BASE_DIR, as_json: JsonFlag = False
) -> None:
    """Render a transcript: roles, text, tool calls and results, artifacts, rewind point."""
    store = _store(ctx, base_dir)
    _, envelope = _read(store, task_id)
    snapshot = _decode(store, task_id, envelope)
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json(transcript_json(task_id, envelope, snapshot))
    else:
        print_transcript(cli.console, task_id, envelope.subagent_name, envelope.context_id, snapshot)


@snapshots_app.command("export")
def export(
    ctx: typer.Context,
    task_id: TaskId,
    file: Annotated[Path, typer.Argument(help="Local file to write ('-' for stdout).")],
    text: Annotated[bool, typer.Option("--text", help="Write the plain-text rendering instead.")] = False,
    base_dir: BaseDir = DEFAULT_SNAPSHOT_BASE_DIR,
    force: Annotated[bool, typer.Option("--force", "-f", help="Replace the local file if it exists.")] = False,
) -> None:
    """Write a stored snapshot to a local file: the stored envelope verbatim, or --text. Refuses to replace
    a file that exists unless --force is given."""
    if str(file) != "-" and (file.exists() or file.is_symlink()):
        if file.is_dir():
            raise CommandFailed(f"{file} is a directory; name the file to write")
        if not force:
            raise CommandFailed(f"{file} already exists (--force replaces it)")
    store = _store(ctx, base_dir)
    data, envelope = _read(store, task_id)
    if text:
        data = render(_decode(store, task_id, envelope)).encode("utf-8")
    if str(file) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    file.write_bytes(data)
    _context.of(ctx).err.print(cell(f"task {task_id} -> {file} ({size(len(data))})"), soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(snapshots_app, name="snapshots")

"""``aimon-mongo vfs ...``: the GridFS virtual filesystem of ``--db`` / ``--bucket``.

Paths are relative to the filesystem root (``.``); ``/`` also names the root and a leading ``/`` is
dropped, so ``/workspace/c-1`` and ``workspace/c-1`` are the same directory.
"""

from __future__ import annotations

import base64
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from aimon_mongo.cli import _context
from aimon_mongo.cli._errors import CommandFailed
from aimon_mongo.cli._output import JsonFlag, cell, short_etag, size, table, when
from aimon_mongo.cli._transfer import download, read_all, upload
from aimon_mongo.cli._views import DIRECTORY_STYLE, display_name, file_tree
from aimon_mongo.errors import VfsFileExistsError, VfsFileNotFoundError
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.vfs import paths, patterns
from aimon_mongo.vfs.protocol import FileSystem

vfs_app = typer.Typer(help="Files of the virtual filesystem (GridFS): ls, tree, cat, get, put, rm, ...")

PathArg = Annotated[str, typer.Argument(help="Path in the filesystem (relative to its root).")]
OptionalPath = Annotated[str, typer.Argument(help="Path in the filesystem (default: the root).")]
Force = Annotated[bool, typer.Option("--force", "-f", help="Replace the destination if it exists.")]


def normalize(path: str) -> str:
    """The VFS spelling of a command-line path: ``/`` and ``""`` are the root, a leading ``/`` is dropped."""
    stripped = path.lstrip("/")
    return stripped if stripped else paths.ROOT


def _fs(ctx: typer.Context, existing: bool = True) -> FileSystem:
    """The filesystem; ``existing``: its database and bucket must exist (reads never create them)."""
    return _context.of(ctx).filesystem(existing)


def _info_json(info: FileInfo) -> dict[str, Any]:
    return info.model_dump(mode="json")


@vfs_app.command("ls")
def ls(
    ctx: typer.Context,
    path: OptionalPath = ".",
    long: Annotated[bool, typer.Option("--long", "-l", help="Show size, modified time and etag.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """List a directory (or show one file)."""
    fs = _fs(ctx)
    target = normalize(path)
    infos = [fs.info(target)] if fs.is_file(target) else fs.ls_info(target)
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json([_info_json(info) for info in infos])
        return
    if not infos:
        where = "the root" if target == paths.ROOT else target
        cli.err.print(cell(f"{where} is an empty directory ({fs.working_directory})", "dim"), soft_wrap=True)
        return
    if not long:
        for info in infos:
            cli.console.print(cell(display_name(info), DIRECTORY_STYLE if info.is_dir else None), soft_wrap=True)
        return
    listing = table("size", "modified", "etag", "name", right=("size",))
    for info in infos:
        listing.add_row(
            cell("" if info.is_dir else size(info.size)),
            cell(when(info.modified)),
            cell(short_etag(info.etag)),
            cell(display_name(info), DIRECTORY_STYLE if info.is_dir else None),
        )
    cli.console.print(listing)


def _tree_json(fs: FileSystem, info: FileInfo, depth: int | None) -> dict[str, Any]:
    node = _info_json(info)
    if info.is_dir:
        children = [] if depth == 0 else fs.ls_info(info.path)
        node["children"] = [_tree_json(fs, child, None if depth is None else depth - 1) for child in children]
    return node


@vfs_app.command("tree")
def tree(
    ctx: typer.Context,
    path: OptionalPath = ".",
    depth: Annotated[int | None, typer.Option("--depth", "-d", min=1, help="Levels to show (default: all).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Show a directory and everything under it as a tree."""
    fs = _fs(ctx)
    target = normalize(path)
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json(_tree_json(fs, fs.info(target), depth))
        return
    if not fs.is_dir(target):
        raise VfsFileNotFoundError(target) if not fs.exists(target) else CommandFailed(f"not a directory: {target}")
    cli.console.print(file_tree(fs, target, depth))


@vfs_app.command("cat")
def cat(ctx: typer.Context, path: PathArg, as_json: JsonFlag = False) -> None:
    """Write a file's content to stdout (bytes as stored)."""
    fs = _fs(ctx)
    target = normalize(path)
    if as_json:
        data = fs.read(target)
        try:
            content, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            content, encoding = base64.b64encode(data).decode("ascii"), "base64"
        _context.of(ctx).emit_json({"path": target, "size": len(data), "encoding": encoding, "content": content})
        return
    sys.stdout.flush()
    out = sys.stdout.buffer
    read_all(fs, target, out.write)
    out.flush()


Recursive = Annotated[bool, typer.Option("--recursive", "-r", help="Copy a directory and everything under it.")]
STDIO = "-"


def _local_plan(fs: FileSystem, source: str, target: Path) -> tuple[list[Path], list[tuple[str, Path]]]:
    """The local directories to create and the (remote file, local file) pairs of a recursive ``get``."""
    directories, files = [target], []
    for info in fs.ls_info(source):
        local = target / paths.base_name(info.path)
        if info.is_dir:
            more_dirs, more_files = _local_plan(fs, info.path, local)
            directories += more_dirs
            files += more_files
        else:
            files.append((info.path, local))
    return directories, files


def _refuse_existing(targets: list[Path], force: bool) -> None:
    existing = [t for t in targets if t.exists() or t.is_symlink()]
    if existing and not force:
        more = f" and {len(existing) - 1} more" if len(existing) > 1 else ""
        raise CommandFailed(f"{existing[0]}{more} already exists (--force replaces it)")
    for t in existing:
        if t.is_dir():
            raise CommandFailed(f"{t} is a directory; a file cannot replace it")


@vfs_app.command("get")
def get(
    ctx: typer.Context,
    source: PathArg,
    destination: Annotated[
        str | None,
        typer.Argument(help="Local file or directory (default: the source's name here; '-' for stdout)."),
    ] = None,
    recursive: Recursive = False,
    force: Annotated[bool, typer.Option("--force", "-f", help="Replace local files that exist.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Download a file (-r: a directory) to the local disk; refuses to replace a local file without -f.

    A progress bar shows for a file over 1 MiB. New files get the mode cp would give them (0666 less the
    umask); a replaced file keeps its mode.
    """
    fs = _fs(ctx)
    src = normalize(source)
    cli = _context.of(ctx)
    if destination == STDIO:
        if not fs.is_file(src):
            raise VfsFileNotFoundError(src) if not fs.exists(src) else CommandFailed(f"not a file: {src}")
        sys.stdout.flush()
        read_all(fs, src, sys.stdout.buffer.write)
        sys.stdout.buffer.flush()
        return
    if fs.is_dir(src):
        if not recursive:
            raise CommandFailed(f"{src} is a directory (-r copies it with everything under it)")
        if destination is None and src == paths.ROOT:
            raise CommandFailed("name a local directory to copy the whole filesystem into")
        target = Path(destination) if destination is not None else Path(paths.base_name(src))
        if target.is_dir() and src != paths.ROOT:
            target = target / paths.base_name(src)
        directories, files = _local_plan(fs, src, target)
    elif fs.is_file(src):
        target = Path(destination) if destination is not None else Path(paths.base_name(src))
        if target.is_dir():
            target = target / paths.base_name(src)
        directories, files = [], [(src, target)]
    else:
        raise VfsFileNotFoundError(src)
    _refuse_existing([local for _, local in files], force)
    for directory in directories:
        directory.mkdir(parents=True, exist_ok=True)
    copied = [(remote, local, download(fs, remote, local, cli.err)) for remote, local in files]
    if as_json:
        listing = [{"source": remote, "destination": str(local), "bytes": n} for remote, local, n in copied]
        cli.emit_json(listing[0] if len(files) == 1 and not directories else listing)
        return
    for remote, local, n in copied:
        cli.console.print(cell(f"{remote} -> {local} ({size(n)})"), soft_wrap=True)
    if directories and not files:
        cli.console.print(cell(f"{src} -> {target} (no files)"), soft_wrap=True)


def _into_directory(fs: FileSystem, destination: str, name: str) -> str:
    """``destination/name`` when ``destination`` is an existing directory (or ends in ``/``), else itself."""
    if destination == paths.ROOT:
        return name
    if destination.endswith("/") or fs.is_dir(destination):
        return f"{destination.rstrip('/')}/{name}"
    return destination


@vfs_app.command("put")
def put(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Local file (-r: directory) to upload; '-' reads stdin.")],
    destination: PathArg,
    recursive: Recursive = False,
) -> None:
    """Upload a local file (-r: a directory), replacing what is at the destination.

    A progress bar shows for a file over 1 MiB. With '-' the content comes from stdin and the destination
    is the file to write.
    """
    fs = _fs(ctx, existing=False)
    cli = _context.of(ctx)
    if source == STDIO:
        target = normalize(destination)
        if target == paths.ROOT or destination.endswith("/") or fs.is_dir(target):
            raise CommandFailed(f"name the file to write from stdin, not a directory: {destination}")
        info = upload(fs, sys.stdin.buffer, target, cli.err)
        cli.console.print(cell(f"stdin -> {info.path} ({size(info.size)}, {info.etag})"), soft_wrap=True)
        return
    local = Path(source)
    if not local.exists():
        raise CommandFailed(f"no such local file or directory: {source}")
    if local.is_dir():
        if not recursive:
            raise CommandFailed(f"{source} is a directory (-r uploads it with everything under it)")
        _put_tree(ctx, fs, local, _into_directory(fs, normalize(destination), local.resolve().name))
        return
    target = _into_directory(fs, normalize(destination), local.name)
    info = upload(fs, local, target, cli.err)
    cli.console.print(cell(f"{source} -> {info.path} ({size(info.size)}, {info.etag})"), soft_wrap=True)


def _put_tree(ctx: typer.Context, fs: FileSystem, local: Path, target: str) -> None:
    cli = _context.of(ctx)
    for directory, subdirectories, files in os.walk(local):
        subdirectories.sort()
        relative = Path(directory).relative_to(local).as_posix()
        remote_dir = target if relative == "." else f"{target}/{relative}"
        fs.mkdir(remote_dir)
        for name in sorted(files):
            info = upload(fs, Path(directory) / name, f"{remote_dir}/{name}", cli.err)
            cli.console.print(cell(f"{Path(directory) / name} -> {info.path} ({size(info.size)})"), soft_wrap=True)


@vfs_app.command("rm")
def rm(
    ctx: typer.Context,
    path: PathArg,
    recursive: Annotated[bool, typer.Option("--recursive", "-r", help="Remove a directory and its content.")] = False,
) -> None:
    """Remove a file or an empty directory (-r: a directory with everything under it)."""
    fs = _fs(ctx)
    target = normalize(path)
    if target == paths.ROOT:
        raise CommandFailed("refusing to remove the root of the filesystem")
    if not fs.exists(target):
        raise VfsFileNotFoundError(target)
    if recursive:
        fs.delete_recursive(target)
    else:
        fs.delete(target)


@vfs_app.command("mkdir")
def mkdir(
    ctx: typer.Context,
    path: PathArg,
    parents: Annotated[
        bool, typer.Option("--parents", "-p", help="Create missing parents; no error if it exists.")
    ] = False,
) -> None:
    """Create a directory."""
    fs = _fs(ctx, existing=False)
    target = normalize(path)
    if not parents:
        if fs.exists(target):
            raise VfsFileExistsError(target)
        parent = paths.parent(target)
        if not fs.is_dir(parent):
            raise CommandFailed(f"parent directory does not exist: {parent} (use -p to create it)")
    fs.mkdir(target)


def _transfer(ctx: typer.Context, source: str, destination: str, force: bool, move: bool) -> None:
    fs = _fs(ctx)
    src = normalize(source)
    if not fs.is_file(src):
        raise VfsFileNotFoundError(src) if not fs.exists(src) else CommandFailed(f"not a file: {src}")
    target = _into_directory(fs, normalize(destination), paths.base_name(src))
    info = fs.move(src, target, overwrite=force) if move else fs.copy(src, target, overwrite=force)
    _context.of(ctx).console.print(cell(f"{src} -> {info.path}"), soft_wrap=True)


@vfs_app.command("mv")
def mv(ctx: typer.Context, source: PathArg, destination: PathArg, force: Force = False) -> None:
    """Move (rename) a file; into a directory when the destination is one."""
    _transfer(ctx, source, destination, force, move=True)


@vfs_app.command("cp")
def cp(ctx: typer.Context, source: PathArg, destination: PathArg, force: Force = False) -> None:
    """Copy a file; into a directory when the destination is one."""
    _transfer(ctx, source, destination, force, move=False)


@vfs_app.command("du")
def du(ctx: typer.Context, path: OptionalPath = ".", as_json: JsonFlag = False) -> None:
    """Bytes, files and directories under a directory (or of the whole filesystem)."""
    fs = _fs(ctx)
    target = normalize(path)
    usage = fs.usage(None if target == paths.ROOT else target)
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json({"path": target, **usage.model_dump(mode="json")})
        return
    cli.console.print(
        cell(
            f"{size(usage.total_size)} ({usage.total_size} bytes) in {usage.file_count} files, "
            f"{usage.directory_count} directories: {target}"
        ),
        soft_wrap=True,
    )


@vfs_app.command("find")
def find(
    ctx: typer.Context,
    pattern: Annotated[str, typer.Argument(help="Glob on the base name: '*' and '?'.")],
    path: Annotated[str, typer.Option("--path", help="Directory to search under.")] = ".",
    max_results: Annotated[int | None, typer.Option("--max", min=1, help="Stop after this many.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Files under a directory whose base name matches a glob ('*' and '?'; no classes, braces or '/')."""
    refused = sorted(set(pattern) & set(patterns.REMOVED))
    if refused or not pattern:
        # the library's find drops these characters (the reference's sanitising): a pattern with them
        # would silently match something else, or nothing
        what = f"has {', '.join(repr(ch) for ch in refused)}" if refused else "is empty"
        raise typer.BadParameter(
            f"{pattern!r} {what}: find matches base names with '*' and '?' only", param_hint="PATTERN"
        )
    fs = _fs(ctx)
    found = fs.find(normalize(path), pattern, max_results)
    cli = _context.of(ctx)
    if as_json:
        cli.emit_json(found)
        return
    for name in found:
        cli.console.print(cell(name), soft_wrap=True)


@vfs_app.command("fsck")
def fsck(
    ctx: typer.Context,
    repair: Annotated[
        bool, typer.Option("--repair", help="Remove orphaned chunks and surplus directory markers.")
    ] = False,
    grace: Annotated[
        float, typer.Option("--grace", min=0, help="Seconds: younger orphaned chunks may be an upload in flight.")
    ] = 3600,
    as_json: JsonFlag = False,
) -> None:
    """Check the GridFS bucket: orphaned chunks, files with missing chunks, duplicate markers."""
    cli = _context.of(ctx)
    report = cli.filesystem().fsck(repair=repair, grace=timedelta(seconds=grace))
    if as_json:
        cli.emit_json({**report.model_dump(mode="json"), "clean": report.clean})
        return
    verdict = "clean" if report.clean else "problems found"
    cli.console.print(cell(f"gridfs://{cli.vfs_db}/{cli.bucket}: {verdict}", "green" if report.clean else "red"))
    orphans = f"orphaned chunks: {report.orphaned_chunks}"
    if report.orphaned_chunks:
        deleted = len(report.orphaned_file_ids)
        orphans += f" (left by {deleted} deleted file{'s' if deleted != 1 else ''})"
    cli.console.print(cell(orphans))
    cli.console.print(cell(f"pending chunks (younger than the grace period): {report.pending_chunks}"))
    for missing in report.files_missing_chunks:
        cli.console.print(
            cell(f"missing chunks: {missing.path} ({missing.found} of {missing.expected})", "red"), soft_wrap=True
        )
    for marker in report.duplicate_markers:
        cli.console.print(cell(f"duplicate directory marker: {marker.path} (x{marker.count})"), soft_wrap=True)
    if report.repaired:
        cli.console.print(cell(f"removed {report.removed_chunks} chunks, {report.removed_markers} markers"))


def register(app: typer.Typer) -> None:
    app.add_typer(vfs_app, name="vfs")

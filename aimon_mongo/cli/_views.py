"""Rich views shared by the commands and the demo: a filesystem tree and a rendered transcript."""

from __future__ import annotations

from rich.console import Console
from rich.tree import Tree

from aimon_mongo.cli._output import cell, size
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.snapshots import LineKind, SessionSnapshot, render_lines
from aimon_mongo.vfs import paths
from aimon_mongo.vfs.protocol import FileSystem

LINE_STYLES: dict[LineKind, str] = {
    LineKind.HEADER: "bold",
    LineKind.ROLE: "bold",
    LineKind.TEXT: "",
    LineKind.MEDIA: "yellow",
    LineKind.TOOL_CALL: "yellow",
    LineKind.TOOL_RESULT: "green",
    LineKind.TOOL_ERROR: "bold red",
    LineKind.ARTIFACT: "blue",
    LineKind.REASONING: "dim",
    LineKind.VIEW: "dim italic",
    LineKind.REWIND: "bold magenta",
}
ROLE_STYLES = {"user": "bold green", "assistant": "bold cyan", "tool": "bold magenta"}
DIRECTORY_STYLE = "bold blue"


def display_name(info: FileInfo) -> str:
    """The last segment of an entry's path, with a trailing ``/`` for a directory."""
    name = paths.base_name(info.path.rstrip("/"))
    return name + "/" if info.is_dir else name


def file_tree(fs: FileSystem, directory: str, depth: int | None = None) -> Tree:
    """A Rich tree of ``directory`` (``depth`` levels, all by default); files show their size."""
    label = directory if directory != paths.ROOT else fs.working_directory
    root = Tree(cell(label, "bold"))
    _grow(fs, root, directory, depth)
    return root


def _grow(fs: FileSystem, branch: Tree, directory: str, depth: int | None) -> None:
    if depth == 0:
        return
    for info in fs.ls_info(directory):
        if info.is_dir:
            child = branch.add(cell(display_name(info), DIRECTORY_STYLE))
            _grow(fs, child, info.path, None if depth is None else depth - 1)
        else:
            label = cell(display_name(info))
            label.append(f"  {size(info.size)}", style="dim")
            branch.add(label)


def print_transcript(
    console: Console, task_id: str, subagent: str, context_id: str | None, snapshot: SessionSnapshot
) -> None:
    """A task header, then the transcript lines coloured by kind (plain text without a terminal)."""
    console.print(cell(f"task {task_id}", "bold underline"), soft_wrap=True)
    console.print(cell(f"subagent {subagent}"), soft_wrap=True)
    console.print(cell(f"context {context_id or '(untagged)'}"), soft_wrap=True)
    for line in render_lines(snapshot):
        style = LINE_STYLES[line.kind]
        if line.kind is LineKind.ROLE:
            role = line.text.split(" ")[1].lower() if " " in line.text else ""
            style = ROLE_STYLES.get(role, style)
        console.print(cell(line.text, style), soft_wrap=True, highlight=False)

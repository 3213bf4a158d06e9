"""Human output of the command: safe table cells, sizes, times, and the shared ``--json`` flag.

Stored strings (paths, ids, reasons, transcript text) never reach Rich as markup and never carry control
characters to the terminal: :func:`cell` escapes both.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from aimon_mongo.snapshots.render import _visible as visible  # the transcript renderer's escaping rule

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of a table (for scripts).")]

_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB")


def cell(value: object, style: str | None = None) -> Text:
    """A table cell (or any printed text) from a stored value: no markup, control characters escaped."""
    text = "" if value is None else str(value)
    return Text(visible(text), style=style or "")


def size(value: int | None) -> str:
    """``512 B``, ``1.5 KiB``, ``3.0 MiB`` (binary units); empty for ``None``."""
    if value is None:
        return ""
    if value < 1024:
        return f"{value} B"
    amount = float(value)
    for unit in _UNITS:
        amount /= 1024
        if amount < 1024 or unit == _UNITS[-1]:
            return f"{amount:.1f} {unit}"
    raise AssertionError("unreachable")


def when(value: datetime | None) -> str:
    """A UTC timestamp to the second, ``2026-11-30 07:12:03Z``; empty for ``None``."""
    if value is None:
        return ""
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def table(*columns: str, title: str | None = None, right: tuple[str, ...] = ()) -> Table:
    """A plain table with the given column headers (``right`` ones right-aligned, for numbers)."""
    result = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left", pad_edge=False)
    for name in columns:
        result.add_column(name, justify="right" if name in right else "left", overflow="fold")
    return result


def clip(text: str, limit: int = 60) -> str:
    """One line of at most ``limit`` characters (line breaks shown as spaces, an ellipsis when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def print_table(console: Console, rows: Table, empty: str) -> None:
    """The table, or a dim one-line ``empty`` message when it has no rows."""
    if rows.row_count:
        console.print(rows)
    else:
        console.print(cell(empty, "dim"), soft_wrap=True)


def short_etag(etag: str | None, digits: int = 16) -> str:
    """``sha256:0f531f23c35faff7`` for a table (the full etag is in ``--json`` output)."""
    if etag is None:
        return ""
    scheme, sep, digest = etag.partition(":")
    return f"{scheme}:{digest[:digits]}" if sep and len(digest) > digits else etag

"""Option checks shared by the commands (imports nothing but Typer: the root options use them)."""

from __future__ import annotations

import typer


def not_blank(value: str | None) -> str | None:
    """Option callback: an empty value (``--uri ''``, an unset shell variable) is a usage error, never read
    as "not given" (which would silently fall back to the environment or the default)."""
    if value is not None and not value.strip():
        raise typer.BadParameter("is empty (leave the option out to use the default)")
    return value

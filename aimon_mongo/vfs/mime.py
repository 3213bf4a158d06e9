"""Mime type from the file extension (pure), the reference's table: nothing is stored per file."""

from __future__ import annotations

_BY_EXTENSION = {
    "txt": "text/plain",
    "pdf": "application/pdf",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "json": "application/json",
    "xml": "application/xml",
}


def mime_type(path: str) -> str | None:
    """The mime type of the lower-cased extension after the last ``.`` of the base name, if known."""
    name = path.rpartition("/")[2]
    _, dot, extension = name.rpartition(".")
    if not dot or not extension:
        return None
    return _BY_EXTENSION.get(extension.lower())

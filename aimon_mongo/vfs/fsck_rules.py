"""What ``fsck`` concludes from a bucket's file documents and chunk counts (pure)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId

from aimon_mongo.codec.instant import as_utc
from aimon_mongo.model.vfs import DuplicateMarker, MissingChunks
from aimon_mongo.names import GRIDFS_CHUNK_SIZE, GRIDFS_FILENAME, GRIDFS_LENGTH, GRIDFS_UPLOAD_DATE
from aimon_mongo.vfs.listing import is_marker_name
from aimon_mongo.vfs.records import EPOCH


@dataclass
class Findings:
    """The problems found; ``surplus_markers`` are the marker ids a repair deletes (the oldest stays)."""

    orphan_ids: list[Any] = field(default_factory=list)
    orphan_chunks: int = 0
    pending_chunks: int = 0
    missing: list[MissingChunks] = field(default_factory=list)
    duplicates: list[DuplicateMarker] = field(default_factory=list)
    surplus_markers: list[Any] = field(default_factory=list)


def _young(file_id: Any, now: datetime, grace: timedelta) -> bool:
    return isinstance(file_id, ObjectId) and file_id.generation_time > now - grace


def _marker_order(doc: Mapping[str, Any]) -> tuple[datetime, str]:
    stamp = doc.get(GRIDFS_UPLOAD_DATE)
    return (as_utc(stamp) if isinstance(stamp, datetime) else EPOCH, str(doc["_id"]))


def analyse(
    files: Iterable[Mapping[str, Any]], chunk_counts: Mapping[Any, int], now: datetime, grace: timedelta
) -> Findings:
    """Compare every file document with the number of chunks stored for it."""
    findings = Findings()
    known: set[Any] = set()
    markers: dict[str, list[Mapping[str, Any]]] = {}
    for doc in files:
        known.add(doc["_id"])
        name = str(doc.get(GRIDFS_FILENAME, ""))
        if is_marker_name(name):
            markers.setdefault(name, []).append(doc)
        length = int(doc.get(GRIDFS_LENGTH, 0) or 0)
        chunk_size = int(doc.get(GRIDFS_CHUNK_SIZE, 0) or 0)
        expected = math.ceil(length / chunk_size) if chunk_size > 0 else 0
        found = chunk_counts.get(doc["_id"], 0)
        if found != expected:
            findings.missing.append(MissingChunks(path=name, file_id=str(doc["_id"]), expected=expected, found=found))
    for file_id, count in chunk_counts.items():
        if file_id in known:
            continue
        if _young(file_id, now, grace):
            findings.pending_chunks += count
        else:
            findings.orphan_ids.append(file_id)
            findings.orphan_chunks += count
    for name, docs in sorted(markers.items()):
        if len(docs) > 1:
            findings.duplicates.append(DuplicateMarker(path=name, count=len(docs)))
            findings.surplus_markers.extend(doc["_id"] for doc in sorted(docs, key=_marker_order)[1:])
    return findings

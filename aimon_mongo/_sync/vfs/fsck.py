# GENERATED from aimon_mongo/_async/vfs/fsck.py by scripts/gen_sync.py; do not edit.
"""``fsck`` of a GridFS bucket: read the file documents and per-file chunk counts, then repair if asked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo.synchronous.collection import Collection

from aimon_mongo.model.vfs import FsckReport
from aimon_mongo.names import GRIDFS_CHUNK_SIZE, GRIDFS_FILENAME, GRIDFS_FILES_ID, GRIDFS_LENGTH, GRIDFS_UPLOAD_DATE
from aimon_mongo.vfs.fsck_rules import analyse

_BATCH = 500


def _delete(collection: Collection[Any], field: str, ids: list[Any]) -> int:
    removed = 0
    for start in range(0, len(ids), _BATCH):
        result = collection.delete_many({field: {"$in": ids[start : start + _BATCH]}})
        removed += result.deleted_count
    return removed


def run_fsck(
    files: Collection[Any], chunks: Collection[Any], *, repair: bool, grace: timedelta
) -> FsckReport:
    """Find orphaned chunks, files with missing chunks and duplicate markers; remove orphans and surplus
    markers when ``repair`` is true. Nothing else is modified."""
    projection = {"_id": 1, GRIDFS_FILENAME: 1, GRIDFS_LENGTH: 1, GRIDFS_CHUNK_SIZE: 1, GRIDFS_UPLOAD_DATE: 1}
    file_docs = [doc for doc in files.find({}, projection)]
    pipeline = [{"$group": {"_id": f"${GRIDFS_FILES_ID}", "count": {"$sum": 1}}}]
    counts = {doc["_id"]: int(doc["count"]) for doc in chunks.aggregate(pipeline)}
    findings = analyse(file_docs, counts, datetime.now(UTC), grace)
    removed_chunks = removed_markers = 0
    if repair:
        removed_chunks = _delete(chunks, GRIDFS_FILES_ID, findings.orphan_ids)
        removed_markers = _delete(files, "_id", findings.surplus_markers)
    return FsckReport(
        orphaned_chunks=findings.orphan_chunks,
        orphaned_file_ids=[str(file_id) for file_id in findings.orphan_ids],
        pending_chunks=findings.pending_chunks,
        files_missing_chunks=findings.missing,
        duplicate_markers=findings.duplicates,
        repaired=repair,
        removed_chunks=removed_chunks,
        removed_markers=removed_markers,
    )

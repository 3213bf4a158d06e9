"""``VfsSessionSnapshotStore``: the envelope of ``task-snapshot/<taskId>.json`` in the VFS.

``snapshot`` is the codec's document embedded as an object (not a string); ``contextId`` is written only
when the agent runtime id is known.
"""

from __future__ import annotations

from typing import Final, Literal, NotRequired, TypedDict

from aimon_mongo import names
from aimon_mongo.stored.declare import Family, body, root

from .snapshot_document import SnapshotDocumentV1Json, SnapshotDocumentV2Json

FAMILY: Final = Family("snapshot-envelope", names.SNAP_ENV_FORMAT_VERSION)


@root("snapshot.envelope", FAMILY)
@body
class SnapshotEnvelopeJson(TypedDict):
    v: Literal[1]
    subagentName: str
    contextId: NotRequired[str]
    snapshot: SnapshotDocumentV1Json | SnapshotDocumentV2Json

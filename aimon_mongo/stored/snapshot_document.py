"""``JsonSessionSnapshotCodec``: snapshot documents of version 1 and 2, and the sealed-segment payload.

The codec writes the later of its write format and the snapshot's own format, so both documents are
current stored shapes. Readers ignore keys they do not know anywhere in these documents (``reasoning``
was added that way without a version bump; ``compactionFailureCount`` was removed that way), hence every
object here is a body.

The family's version constant is the highest document version the codec writes (``SNAP_FORMAT_V2``).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, NotRequired, TypedDict

from aimon_mongo import names
from aimon_mongo.stored.declare import Base64, Family, Format, body, root

from .submit_options import SubmitOptionsJson
from .user_input import UserInputJson

FAMILY: Final = Family("snapshot-document", names.SNAP_FORMAT_V2)


@body
class TextBlockJson(TypedDict):
    type: Literal["text"]
    text: str


@body
class InlineImageBlockJson(TypedDict):
    type: Literal["image"]
    mimeType: str
    source: Literal["base64"]
    data: Base64


@body
class UrlImageBlockJson(TypedDict):
    type: Literal["image"]
    mimeType: str
    source: Literal["url"]
    url: str


@body
class DocumentBlockJson(TypedDict):
    type: Literal["document"]
    mimeType: str
    data: Base64
    fileName: NotRequired[str]


ContentBlockJson = TextBlockJson | InlineImageBlockJson | UrlImageBlockJson | DocumentBlockJson


@body
class ToolUseJson(TypedDict):
    id: str
    name: str
    input: dict[str, Any]


@body
class ToolResultJson(TypedDict):
    toolUseId: str
    content: str
    isError: bool


@body
class ArtifactJson(TypedDict):
    path: str
    fileName: str
    size: int
    mimeType: NotRequired[str]
    toolUseId: NotRequired[str]
    downloadToken: NotRequired[str]


@body
class ReasoningJson(TypedDict):
    provider: str
    payload: str
    toolUseId: NotRequired[str]


@body
class MessageJson(TypedDict):
    role: Literal["USER", "ASSISTANT", "TOOL"]
    content: list[ContentBlockJson]
    toolUses: NotRequired[list[ToolUseJson]]
    toolResults: NotRequired[list[ToolResultJson]]
    artifacts: NotRequired[list[ArtifactJson]]
    reasoning: NotRequired[list[ReasoningJson]]


@body
class RewindPointV1Json(TypedDict):
    messageCount: int
    userInput: UserInputJson
    submitOptions: NotRequired[SubmitOptionsJson]


@root("snapshot.document.v1", FAMILY)
@body
class SnapshotDocumentV1Json(TypedDict):
    version: Literal[1]
    conversationId: str
    systemPrompt: str | None
    messages: list[MessageJson]
    rewindPoint: NotRequired[RewindPointV1Json]


@body
class LogEntryJson(TypedDict):
    seq: int
    origin: Literal["CONVERSATION", "SYNTHETIC"]
    message: MessageJson


@body
class SummarySpanJson(TypedDict):
    fromSeq: int
    toSeq: int
    summaryText: str
    boundaryId: str
    trigger: str
    preTokenCount: int
    messagesSummarized: int
    discoveredToolNames: list[str]


@body
class SeqRangeJson(TypedDict):
    fromSeq: int
    toSeq: int


@body
class ElisionJson(TypedDict):
    seq: int
    placeholder: str


@body
class ViewStateJson(TypedDict):
    summarySpan: NotRequired[SummarySpanJson]
    droppedRanges: list[SeqRangeJson]
    elisions: list[ElisionJson]


@body
class ManifestLineJson(TypedDict):
    fromSeq: int
    toSeq: int
    segmentId: str
    contentHash: Annotated[str, Format("sha256-content-hash")]
    entryCount: int


@body
class RewindPointV2Json(TypedDict):
    seq: int
    userInput: UserInputJson
    submitOptions: NotRequired[SubmitOptionsJson]


@root("snapshot.document.v2", FAMILY)
@body
class SnapshotDocumentV2Json(TypedDict):
    version: Literal[2]
    conversationId: str
    systemPrompt: str | None
    nextSeq: int
    floorSeq: int
    entries: list[LogEntryJson]
    viewState: NotRequired[ViewStateJson]
    manifest: NotRequired[list[ManifestLineJson]]
    rewindPoint: NotRequired[RewindPointV2Json]


@root("snapshot.segment-payload", FAMILY)
@body
class SegmentPayloadJson(TypedDict):
    """What a sealed segment stores: ``{"version": 2, "entries": [...]}``."""

    version: Literal[2]
    entries: list[LogEntryJson]

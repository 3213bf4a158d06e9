"""The Google ADK services (``aimon_mongo.adk``; ours, additive).

Sessions live in stores of their own, with the session-record and log-segment layouts of their backend
(MongoDB collections ``adk_session_records`` / ``adk_session_log_segments`` / ``adk_session_fences`` /
``adk_session_locks``, Redis prefixes under ``adk:``, PostgreSQL schema ``aimon_adk``); what differs is the
text they hold:

* a session record ``adk/<app>/<user>/<session>``: its transcript is the session header
  (``adk.session-header``);
* the records ``adk-app/<app>`` and ``adk-user/<app>/<user>``: their transcript is a state object
  (``adk.state``);
* a segment of a session: one event, ADK's ``Event`` as its own JSON (``adk.event``, ADK's format, kept
  verbatim);
* a segment of ``adk-list/<app>/<user>`` or ``adk-users/<app>``: an empty object (``adk.listing-entry``),
  the segment id naming the session or user.

Artifacts are VFS files; each version's ``attributes`` (GridFS ``metadata.attributes``, memory) or, on a
filesystem without attributes, the sidecar ``<version>.meta.json`` hold ``adk.artifact-attributes``.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, NotRequired, TypedDict

from aimon_mongo.stored.declare import Family, JsonText, StoredRoot, body, root

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("adk", FORMAT_VERSION)


@root("adk.session-header", FAMILY)
@body
class AdkSessionHeaderJson(TypedDict):
    """The transcript text of an ADK session record (JSON)."""

    v: Literal[1]
    state: dict[str, Any]  # session-scoped state (no app:/user:/temp: keys)
    created: float  # seconds since the epoch
    updated: float  # the last event's timestamp (the creation time before any)
    events: int  # how many events: segments 0 .. events-1
    rev: int  # the revision stale writers are told by; +1 per append


ADK_STATE: Final = StoredRoot("adk.state", FAMILY, dict[str, Any])
"""The transcript text of an app or user state record (JSON object, keys without their prefix)."""

ADK_EVENT: Final = StoredRoot("adk.event", FAMILY, dict[str, Any])
"""A session segment's payload: ADK's ``Event.model_dump_json(exclude_none=True)``, ADK's own format."""


@root("adk.listing-entry", FAMILY)
@body
class AdkListingEntryJson(TypedDict):
    """The payload of a listing-index segment: nothing (the segment id is the entry)."""


AdkArtifactAttributes = TypedDict(
    "AdkArtifactAttributes",
    {
        "adk.kind": Literal["inline_data", "text", "file_data"],
        "adk.mime_type": NotRequired[str],
        "adk.custom_metadata": NotRequired[Annotated[str, JsonText(dict[str, Any])]],
        "adk.file_uri": NotRequired[str],
        "adk.create_time": str,  # repr() of the save's time.time()
    },
)
ADK_ARTIFACT_ATTRIBUTES: Final = StoredRoot("adk.artifact-attributes", FAMILY, AdkArtifactAttributes)
"""The VFS attributes of an artifact version file (text to text), or its sidecar's JSON object."""

"""Google ADK services on aimon-mongo (extra ``adk``).

* :class:`AimonSessionService` — ADK's ``BaseSessionService`` on any session bundle (MongoDB, Redis,
  PostgreSQL, memory): a single writer per session across nodes, every refusal ADK's ``StaleSessionError``.
* :class:`AimonArtifactService` — ADK's ``BaseArtifactService`` on any virtual filesystem (GridFS, memory,
  a local directory): versions 0, 1, 2 … never lost or repeated by concurrent savers.
* :func:`register_services` — the ``aimon+…`` URI schemes for ``adk web`` / ``adk api_server``.

See ``docs/adk.md``.
"""

from typing import TYPE_CHECKING

from aimon_mongo._extras import require_extra
from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.adk.artifacts import AimonArtifactService
    from aimon_mongo.adk.registry import register_services
    from aimon_mongo.adk.sessions import AimonSessionService, SessionPage

require_extra("aimon_mongo.adk", "adk", "google.adk", "google.adk.sessions", "google.genai")

__all__ = ["AimonArtifactService", "AimonSessionService", "SessionPage", "register_services"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AimonArtifactService": "aimon_mongo.adk.artifacts",
            "AimonSessionService": "aimon_mongo.adk.sessions",
            "SessionPage": "aimon_mongo.adk.sessions",
            "register_services": "aimon_mongo.adk.registry",
        },
    )

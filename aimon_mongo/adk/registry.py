"""The ``aimon+…`` URI schemes of ADK's service registry, for ``adk web`` and ``adk api_server``.

Put ``services.py`` beside your agents (ADK imports it at start) holding::

    from aimon_mongo.adk import register_services
    register_services()

then start ``adk web --session_service_uri 'aimon+mongodb://host:27017/mydb'
--artifact_service_uri 'aimon+mongodb://host:27017/mydb'``. Session schemes: ``aimon+mongodb``,
``aimon+mongodb+srv``, ``aimon+redis``, ``aimon+rediss``, ``aimon+postgresql``, ``aimon+memory``; artifact
schemes: ``aimon+mongodb``, ``aimon+mongodb+srv``, ``aimon+memory``, ``aimon+file``. The factory strips
``aimon+`` and calls ``from_url``; ADK's own schemes (``memory``, ``file``, ``postgresql`` …) stay ADK's.
"""

from __future__ import annotations

from typing import Any, Final

from aimon_mongo.adk.artifacts import AimonArtifactService
from aimon_mongo.adk.sessions import AimonSessionService
from aimon_mongo.adk.urls import REGISTRY_PREFIX

SESSION_SCHEMES: Final = tuple(
    REGISTRY_PREFIX + s for s in ("mongodb", "mongodb+srv", "redis", "rediss", "postgresql", "memory")
)
ARTIFACT_SCHEMES: Final = tuple(REGISTRY_PREFIX + s for s in ("mongodb", "mongodb+srv", "memory", "file"))

# Options ADK passes to every factory that are not ours (it hands ``agents_dir`` to some).
_ADK_OPTIONS: Final = ("agents_dir",)


def _session_factory(uri: str, **kwargs: Any) -> AimonSessionService:
    for name in _ADK_OPTIONS:
        kwargs.pop(name, None)
    return AimonSessionService.from_url(uri, **kwargs)


def _artifact_factory(uri: str, **kwargs: Any) -> AimonArtifactService:
    for name in _ADK_OPTIONS:
        kwargs.pop(name, None)
    return AimonArtifactService.from_url(uri, **kwargs)


def register_services(registry: Any = None) -> None:
    """Register the ``aimon+…`` session and artifact schemes with ``registry`` (ADK's global one when
    ``None``). Idempotent."""
    if registry is None:
        from google.adk.cli.service_registry import get_service_registry

        registry = get_service_registry()
    for scheme in SESSION_SCHEMES:
        registry.register_session_service(scheme, _session_factory)
    for scheme in ARTIFACT_SCHEMES:
        registry.register_artifact_service(scheme, _artifact_factory)

"""The operator's web console (``aimon-mongo console``, extra ``console``): sessions with inbox depth and
leases, the quarantine (replay and delete with ``--allow-writes``), snapshots and transcripts, files with
previews, usage and the fsck report, tasks by state and owner, and a live signal tail; a JSON API beside
the pages with its OpenAPI document at ``/openapi.json``. See ``docs/console.md``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aimon_mongo.console._data import ConsoleData
from aimon_mongo.console.app import TOKEN_ENV, ConsoleConfigError, ConsoleSettings, create_app, is_loopback

if TYPE_CHECKING:
    import uvicorn

__all__ = [
    "SHUTDOWN_GRACE",
    "TOKEN_ENV",
    "ConsoleConfigError",
    "ConsoleData",
    "ConsoleSettings",
    "create_app",
    "is_loopback",
    "serve",
    "server",
]

SHUTDOWN_GRACE = 2
"""Seconds a stopping console (Ctrl-C) waits for open responses before it ends them: a signal tail open in
a browser tab is a response that never finishes, and uvicorn would otherwise wait for it for ever."""


def server(data: ConsoleData, settings: ConsoleSettings) -> uvicorn.Server:
    """The console's uvicorn server (the settings are checked first); ``run()`` it, or set ``should_exit``
    to stop it."""
    import uvicorn

    config = uvicorn.Config(
        create_app(data, settings),
        host=settings.bind_host.strip("[]"),
        port=settings.bind_port,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    return uvicorn.Server(config)


def serve(data: ConsoleData, settings: ConsoleSettings) -> None:
    """Run the console with uvicorn until interrupted (the settings are checked first)."""
    server(data, settings).run()

"""The operator's web console (``aimon-mongo console``, extra ``console``): sessions with inbox depth and
leases, the quarantine (replay and delete with ``--allow-writes``), snapshots and transcripts, files with
previews, usage and the fsck report, tasks by state and owner, and a live signal tail; a JSON API beside
the pages with its OpenAPI document at ``/openapi.json``. See ``docs/console.md``."""

from aimon_mongo.console._data import ConsoleData
from aimon_mongo.console.app import TOKEN_ENV, ConsoleConfigError, ConsoleSettings, create_app, is_loopback

__all__ = ["TOKEN_ENV", "ConsoleConfigError", "ConsoleData", "ConsoleSettings", "create_app", "is_loopback", "serve"]


def serve(data: ConsoleData, settings: ConsoleSettings) -> None:
    """Run the console with uvicorn until interrupted (the settings are checked first)."""
    import uvicorn

    app = create_app(data, settings)
    uvicorn.run(app, host=settings.bind_host.strip("[]"), port=settings.bind_port, log_level="warning")

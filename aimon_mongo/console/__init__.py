"""The operator's web console (``aimon-mongo console``, extra ``console``): sessions with inbox depth and
leases, the quarantine (replay and delete with ``--allow-writes``), snapshots and transcripts, files with
previews, usage and the fsck report, tasks by state and owner, and a live signal tail; a JSON API beside
the pages with its OpenAPI document at ``/openapi.json``. See ``docs/console.md``."""

from __future__ import annotations

import errno
import socket
from typing import TYPE_CHECKING

from aimon_mongo.console._data import ConsoleData
from aimon_mongo.console.app import (
    TOKEN_ENV,
    ConsoleConfigError,
    ConsoleSettings,
    SignalTails,
    create_app,
    is_loopback,
)

if TYPE_CHECKING:
    import uvicorn

__all__ = [
    "SHUTDOWN_GRACE",
    "TOKEN_ENV",
    "ConsoleBindError",
    "ConsoleConfigError",
    "ConsoleData",
    "ConsoleSettings",
    "create_app",
    "is_loopback",
    "listen",
    "serve",
    "server",
]

SHUTDOWN_GRACE = 2
"""Seconds a stopping console (Ctrl-C) waits for open responses before it cancels them. Signal tails, the
responses that never finish on their own, are ended at once when it starts stopping."""


class ConsoleBindError(OSError):
    """The console cannot listen on its bind address (taken, not an address of this machine, a privileged
    port); the message names the address and why."""


def listen(settings: ConsoleSettings) -> socket.socket:
    """A socket listening on the settings' ``bind_host:bind_port`` (what :func:`serve` hands uvicorn), so
    that a port in use is refused with :class:`ConsoleBindError` before anything else starts."""
    host = _host(settings)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, settings.bind_port), family=family)
    except OSError as exc:
        why = (exc.strerror or type(exc).__name__).lower()
        if exc.errno == errno.EADDRINUSE:
            why += " (another process listens there; --bind picks another HOST:PORT)"
        raise ConsoleBindError(f"cannot listen on {settings.bind_host}:{settings.bind_port}: {why}") from None


def server(data: ConsoleData, settings: ConsoleSettings) -> uvicorn.Server:
    """The console's uvicorn server (the settings are checked first); ``run()`` it, or set ``should_exit``
    to stop it. Stopping ends the open signal tails at once, then waits :data:`SHUTDOWN_GRACE` seconds at
    most for the other responses."""
    import uvicorn

    app = create_app(data, settings)
    tails: SignalTails = app.state.signal_tails

    class ConsoleServer(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            tails.stop()
            await super().shutdown(sockets)

    config = uvicorn.Config(
        app,
        host=_host(settings),
        port=settings.bind_port,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    return ConsoleServer(config)


def _host(settings: ConsoleSettings) -> str:
    """The bind host without the brackets of an IPv6 literal (``[::1]`` → ``::1``)."""
    return settings.bind_host.strip("[]")


def serve(data: ConsoleData, settings: ConsoleSettings, sock: socket.socket | None = None) -> None:
    """Run the console with uvicorn until interrupted (the settings are checked first), on ``sock`` when
    given (from :func:`listen`), else on a socket :func:`listen` opens (:class:`ConsoleBindError` when it
    cannot)."""
    console = server(data, settings)
    with sock if sock is not None else listen(settings) as listening:
        console.run(sockets=[listening])

"""How a composed store shows itself: ``AsyncLeaseStore(driver=AsyncMongoLeaseDriver('aimon.conversation_locks'))``.

A bundle composes ``Service(driver)``; the service's ``repr`` names the service and its driver, and the
driver's names where its data lives (MongoDB collections, a Redis or PostgreSQL ``host:port``), never a
credential, so a log line or a debugger shows which backend a store runs on.
"""

from __future__ import annotations

from typing import Any


def composed_repr(service: Any) -> str:
    """``Service(driver=<driver repr>)``: the ``__repr__`` of every service (``__repr__ = composed_repr``)."""
    return f"{type(service).__name__}(driver={service.driver!r})"


def located(driver: object, *where: str) -> str:
    """A driver's ``repr``: its class name and where its data lives (collection names, ``host:port``)."""
    return f"{type(driver).__name__}({', '.join(repr(place) for place in where)})"

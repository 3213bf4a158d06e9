"""The session host: each session runs on exactly one node, and nothing dies with its node (docs/host.md).

::

    from aimon_mongo.host import AsyncSessionHost, Turn

    async def handle(turn: Turn) -> None:      # the messages of one turn, in priority then arrival order
        ...                                    # fenced writes take turn.fencing_token

    async with AsyncSessionHost(backends, handler=handle, lease_ttl=timedelta(seconds=5)) as host:
        entry_id = await host.submit(message)  # delivers, and wakes (or becomes) the session's holder

:class:`SessionHost` is the blocking entry (the async host on a loop of its own thread).
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo.host._blocking import SessionHost
    from aimon_mongo.host._host import AsyncSessionHost, Handler, Turn, TurnOutcome

__all__ = ["AsyncSessionHost", "Handler", "SessionHost", "Turn", "TurnOutcome"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "AsyncSessionHost": "aimon_mongo.host._host",
            "Handler": "aimon_mongo.host._host",
            "SessionHost": "aimon_mongo.host._blocking",
            "Turn": "aimon_mongo.host._host",
            "TurnOutcome": "aimon_mongo.host._host",
        },
    )

"""What every session-backend bundle shares: use as a context manager that closes it."""

from __future__ import annotations

from typing import Self


class AsyncClosingBundle:
    """``async with Bundle(...) as node:`` closes the bundle on exit (``close()`` is the subclass's)."""

    async def close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

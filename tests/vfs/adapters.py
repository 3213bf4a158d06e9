"""One async face for every backend flavour, so a single contract suite runs against all of them.

A sync filesystem is wrapped so each call runs in a worker thread (``asyncio.to_thread``): the test body
awaits it exactly like an async filesystem, and concurrent calls really run on concurrent threads.
This is test plumbing only; the library itself never wraps one flavour in the other.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable
from typing import Any

from aimon_mongo.vfs.protocol import FileReader, FileWriter


class Threaded:
    """Await-able view of a sync object: method calls run in a thread; streams come back wrapped."""

    def __init__(self, target: Any) -> None:
        self._target = target

    @property
    def wrapped(self) -> Any:
        return self._target

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if not callable(attribute):
            return attribute

        @functools.wraps(attribute)
        async def call(*args: Any, **kwargs: Any) -> Any:
            result = await asyncio.to_thread(attribute, *args, **kwargs)
            return Threaded(result) if isinstance(result, FileReader | FileWriter) else result

        return call

    async def walk(self, path: str = ".") -> AsyncIterator[Any]:
        for item in await asyncio.to_thread(lambda: list(self._target.walk(path))):
            yield item

    def tell(self) -> int:
        return int(self._target.tell())

    async def __aenter__(self) -> Threaded:
        await asyncio.to_thread(self._target.__enter__)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.to_thread(self._target.__exit__, *exc)


Factory = Callable[..., Any]

"""fsspec's own conformance suite (``fsspec.tests.abstract``) against protocol ``gridfs`` on the stand-in,
and against protocol ``aimon`` over the memory and local VFS backends (the same five suites).

Every abstract test class fsspec ships runs unchanged: copy, get, put, open, pipe. (``mv.py`` in that
package holds no abstract class: its two module-level tests drive fsspec's local ``file`` filesystem
with ``chmod``; ``test_vfs_fsspec.py`` covers ``mv`` on ``gridfs``.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fsspec.tests.abstract import AbstractFixtures
from fsspec.tests.abstract.copy import AbstractCopyTests
from fsspec.tests.abstract.get import AbstractGetTests
from fsspec.tests.abstract.open import AbstractOpenTests
from fsspec.tests.abstract.pipe import AbstractPipeTests
from fsspec.tests.abstract.put import AbstractPutTests

from aimon_mongo.vfs import AsyncLocalFileSystem, AsyncMemoryFileSystem
from aimon_mongo.vfs.fsspec import AimonFileSystemSpec, GridFSFileSystemSpec


class GridFSFixtures(AbstractFixtures):  # type: ignore[misc]
    @pytest.fixture
    def fs(self, mongo_uri: str, mongo_db_name: str) -> Iterator[GridFSFileSystemSpec]:
        filesystem = GridFSFileSystemSpec(uri=mongo_uri, database=mongo_db_name, skip_instance_cache=True)
        yield filesystem
        filesystem.close()

    @pytest.fixture
    def fs_join(self) -> Callable[..., str]:
        return lambda *parts: "/".join(parts)

    @pytest.fixture
    def fs_path(self) -> str:
        return "abstract"


class TestGridFSCopy(AbstractCopyTests, GridFSFixtures):  # type: ignore[misc]
    pass


class TestGridFSGet(AbstractGetTests, GridFSFixtures):  # type: ignore[misc]
    pass


class TestGridFSPut(AbstractPutTests, GridFSFixtures):  # type: ignore[misc]
    pass


class TestGridFSOpen(AbstractOpenTests, GridFSFixtures):  # type: ignore[misc]
    pass


class TestGridFSPipe(AbstractPipeTests, GridFSFixtures):  # type: ignore[misc]
    pass


class MemoryFixtures(GridFSFixtures):
    @pytest.fixture
    def fs(self) -> Iterator[AimonFileSystemSpec]:  # type: ignore[override]
        yield AimonFileSystemSpec(filesystem=AsyncMemoryFileSystem(), skip_instance_cache=True)


class LocalFixtures(GridFSFixtures):
    @pytest.fixture
    def fs(self, tmp_path: Any) -> Iterator[AimonFileSystemSpec]:  # type: ignore[override]
        yield AimonFileSystemSpec(filesystem=AsyncLocalFileSystem(tmp_path / "root"), skip_instance_cache=True)


# The same five suites over protocol "aimon", on memory and on a local directory.
_SUITES = (AbstractCopyTests, AbstractGetTests, AbstractPutTests, AbstractOpenTests, AbstractPipeTests)
for _fixtures in (MemoryFixtures, LocalFixtures):
    for _suite in _SUITES:
        _name = "Test" + _fixtures.__name__.removesuffix("Fixtures") + _suite.__name__.removeprefix("Abstract")
        globals()[_name.removesuffix("Tests")] = type(_name.removesuffix("Tests"), (_suite, _fixtures), {})


def test_every_abstract_class_fsspec_ships_is_run() -> None:
    import fsspec.tests.abstract as abstract

    shipped = {name for name in dir(abstract) if name.startswith("Abstract") and name.endswith("Tests")}
    ours: set[Any] = {
        base.__name__
        for cls in (TestGridFSCopy, TestGridFSGet, TestGridFSPut, TestGridFSOpen, TestGridFSPipe)
        for base in cls.__bases__
    }
    assert shipped <= ours, shipped - ours

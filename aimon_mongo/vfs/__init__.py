"""Virtual filesystem: one contract (:mod:`aimon_mongo.vfs.protocol`), three backends, both flavours.

* GridFS — :class:`AsyncGridFSFileSystem` / :class:`GridFSFileSystem` (``docs/vfs.md``);
* a local directory — :class:`AsyncLocalFileSystem` / :class:`LocalFileSystem`;
* memory — :class:`AsyncMemoryFileSystem` / :class:`MemoryFileSystem`;
* an fsspec filesystem for protocol ``gridfs`` in :mod:`aimon_mongo.vfs.fsspec` (needs the ``fsspec`` extra).
"""

from typing import TYPE_CHECKING

from aimon_mongo._lazy import lazy_exports

if TYPE_CHECKING:
    from aimon_mongo._async.vfs.gridfs import AsyncGridFSFileSystem
    from aimon_mongo._async.vfs.local import AsyncLocalFileSystem
    from aimon_mongo._async.vfs.memory import AsyncMemoryFileSystem
    from aimon_mongo._sync.vfs.gridfs import GridFSFileSystem
    from aimon_mongo._sync.vfs.local import LocalFileSystem
    from aimon_mongo._sync.vfs.memory import MemoryFileSystem
    from aimon_mongo.model.vfs import BackendState, BackendStatus, BackendType, FileInfo, FsckReport, Usage
    from aimon_mongo.vfs.protocol import AsyncFileSystem, FileSystem
    from aimon_mongo.vfs.sizecap import NO_MAX_FILE_SIZE

__all__ = [
    "NO_MAX_FILE_SIZE",
    "AsyncFileSystem",
    "AsyncGridFSFileSystem",
    "AsyncLocalFileSystem",
    "AsyncMemoryFileSystem",
    "BackendState",
    "BackendStatus",
    "BackendType",
    "FileInfo",
    "FileSystem",
    "FsckReport",
    "GridFSFileSystem",
    "LocalFileSystem",
    "MemoryFileSystem",
    "Usage",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "NO_MAX_FILE_SIZE": "aimon_mongo.vfs.sizecap",
            "AsyncFileSystem": "aimon_mongo.vfs.protocol",
            "AsyncGridFSFileSystem": "aimon_mongo._async.vfs.gridfs",
            "AsyncLocalFileSystem": "aimon_mongo._async.vfs.local",
            "AsyncMemoryFileSystem": "aimon_mongo._async.vfs.memory",
            "BackendState": "aimon_mongo.model.vfs",
            "BackendStatus": "aimon_mongo.model.vfs",
            "BackendType": "aimon_mongo.model.vfs",
            "FileInfo": "aimon_mongo.model.vfs",
            "FileSystem": "aimon_mongo.vfs.protocol",
            "FsckReport": "aimon_mongo.model.vfs",
            "GridFSFileSystem": "aimon_mongo._sync.vfs.gridfs",
            "LocalFileSystem": "aimon_mongo._sync.vfs.local",
            "MemoryFileSystem": "aimon_mongo._sync.vfs.memory",
            "Usage": "aimon_mongo.model.vfs",
        },
    )

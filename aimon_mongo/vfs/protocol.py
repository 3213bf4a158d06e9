"""The filesystem contract in both flavours, and its value types.

``AsyncFileSystem`` is written in :mod:`aimon_mongo._async.vfs.protocol`; ``FileSystem`` is its generated
sync twin. Every backend implements one of them: memory, local directory, GridFS.
"""

from aimon_mongo._async.vfs.protocol import AsyncFileReader, AsyncFileSystem, AsyncFileWriter
from aimon_mongo._async.vfs.protocol import Content as AsyncContent
from aimon_mongo._sync.vfs.protocol import Content, FileReader, FileSystem, FileWriter
from aimon_mongo.model.vfs import BackendState, BackendStatus, BackendType, FileInfo, FsckReport, Usage

__all__ = [
    "AsyncContent",
    "AsyncFileReader",
    "AsyncFileSystem",
    "AsyncFileWriter",
    "BackendState",
    "BackendStatus",
    "BackendType",
    "Content",
    "FileInfo",
    "FileReader",
    "FileSystem",
    "FileWriter",
    "FsckReport",
    "Usage",
]

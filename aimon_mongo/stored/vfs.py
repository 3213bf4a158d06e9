"""The virtual filesystem on GridFS: ``<bucket>.files`` documents of files and directory markers.

One document per revision; ``filename`` is the VFS path verbatim. ``_id``, ``length``, ``chunkSize`` and
``uploadDate`` are written by the GridFS driver (``length``/``chunkSize`` width is the driver's choice);
``metadata`` is ours. ``contentSha256`` is added after a successful upload, ``copiedFrom`` by copies,
``predecessor`` by conditional writes (the id of the revision replaced, or ``absent:<path>``),
``attributes`` by writes given caller attributes (text to text; the snapshot store's listing keys). A
directory marker is a zero-length file whose name ends in ``/`` with ``metadata.type = "directory"``.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, NotRequired, TypedDict

from bson import ObjectId

from aimon_mongo.stored.declare import BsonDate, Family, Format, Instant, root

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("vfs", FORMAT_VERSION)


@root("gridfs.file.metadata", FAMILY)
class FileMetadataDocument(TypedDict):
    path: str
    uploadDate: Instant
    contentSha256: NotRequired[Annotated[str, Format("sha256-hex")]]
    copiedFrom: NotRequired[str]
    predecessor: NotRequired[str]
    attributes: NotRequired[dict[str, str]]


@root("gridfs.directory-marker.metadata", FAMILY)
class DirectoryMarkerMetadataDocument(TypedDict):
    type: Literal["directory"]
    path: str
    uploadDate: Instant


@root("gridfs.file.document", FAMILY)
class GridFsFileDocument(TypedDict):
    _id: ObjectId
    filename: Annotated[str, Format("file-path")]
    length: int
    chunkSize: int
    uploadDate: BsonDate
    metadata: FileMetadataDocument


@root("gridfs.directory-marker.document", FAMILY)
class GridFsDirectoryMarkerDocument(TypedDict):
    _id: ObjectId
    filename: Annotated[str, Format("directory-marker-name")]
    length: int  # always 0; the driver writes it as int64 (pymongo) or int32, like a file's length
    chunkSize: int
    uploadDate: BsonDate
    metadata: DirectoryMarkerMetadataDocument

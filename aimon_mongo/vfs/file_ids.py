"""GridFS file ids that spread over a sharded ``chunks`` collection (pure; no I/O).

A driver ``ObjectId`` starts with the time, so every new file's chunks (``{files_id, n}`` is the chunk
collection's shard key) land in the top key range, on one shard. :func:`spread_file_id` is still an
``ObjectId`` (every reader, Java nodes and ``mongofiles`` included, sees the usual type), laid out as

    3 bytes of a hash of the file name | 4 bytes of time | 3-byte counter | 2 bytes of process id

so files spread by name over the key space, while the revisions of *one* name still sort by creation
(time, then this process's counter): the newest-revision tie-break (``uploadDate``, then ``_id``) keeps
choosing the revision written last when two share an ``uploadDate``. Ids written before (plain
ObjectIds) stay readable: nothing reads meaning into an id, it is only compared.
"""

from __future__ import annotations

import hashlib

from bson import ObjectId


def spread_file_id(name: str) -> ObjectId:
    """A new file id for a revision of ``name`` (see the module docstring)."""
    fresh = ObjectId().binary  # time (4) | process-random (5) | counter (3)
    prefix = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=3).digest()
    return ObjectId(prefix + fresh[0:4] + fresh[9:12] + fresh[4:6])

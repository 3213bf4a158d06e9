"""ADK's ``BaseArtifactService`` on any aimon-mongo virtual filesystem (GridFS, memory, local directory).

One artifact version is one ordinary VFS file (``fsck``, ``ls`` and the console see it)::

    <root>/<app>/<user>/sessions/<session>/<filename>/<version>   # session-scoped
    <root>/<app>/<user>/user/<filename>/<version>                  # "user:" filenames

Each path component is percent-encoded (a ``/`` in a filename stays inside its component); ``<version>``
is the decimal version, zero-padded to 10 digits. A save claims its version with a conditional write
(``if_absent``): the file is created only if no other save created that version first, atomically, across
nodes on GridFS; a save that loses the race takes the next number. So versions are 0, 1, 2 … with none
lost or repeated however many nodes save one filename at once.

The file's content is the artifact's bytes (``inline_data``) or its UTF-8 text (``text``); ``file_data``
parts keep their URI. What the part was, its MIME type and the custom metadata are kept with the file as
VFS attributes (GridFS, memory); a filesystem without attributes (a local directory) keeps them in a
sidecar ``<version>.meta.json`` written first, as the claim, through the same conditional write.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, Self
from urllib.parse import quote, unquote

from google.adk.artifacts import artifact_util
from google.adk.artifacts.base_artifact_service import ArtifactVersion, BaseArtifactService, ensure_part
from google.adk.errors.input_validation_error import InputValidationError
from google.genai import types

from aimon_mongo import names as n
from aimon_mongo._async.vfs.protocol import AsyncFileSystem
from aimon_mongo.adk.urls import (
    mongo_database_of,
    scheme_of,
    shared_memory_filesystem,
    without_registry_prefix,
)
from aimon_mongo.errors import (
    FileReplacedError,
    InvalidArgumentError,
    RevisionMismatchError,
    VfsFileNotFoundError,
)
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.mongo.clients import display_uri
from aimon_mongo.vfs.records import Hints

DEFAULT_ROOT: Final = "adk-artifacts"
"""The directory under which artifacts are kept, unless ``root=`` says otherwise."""

USER_PREFIX: Final = "user:"
VERSION_DIGITS: Final = 10
META_SUFFIX: Final = ".meta.json"

# VFS attribute names (frozen: stored with every version file)
ATTR_KIND: Final = n.ADK_ATTR_KIND
ATTR_MIME: Final = n.ADK_ATTR_MIME_TYPE
ATTR_METADATA: Final = n.ADK_ATTR_CUSTOM_METADATA
ATTR_FILE_URI: Final = n.ADK_ATTR_FILE_URI
ATTR_CREATED: Final = n.ADK_ATTR_CREATE_TIME

KIND_INLINE: Final = "inline_data"
KIND_TEXT: Final = "text"
KIND_FILE: Final = "file_data"

_MAX_CLAIMS: Final = 100_000
_GLOB_SPECIAL: Final = frozenset("*?[]{}\\,")
"""Characters a glob pattern gives a meaning (percent-encoding leaves none in a path component; a ``root``
might hold one)."""
_READ_ATTEMPTS: Final = 3
_REMEMBERED: Final = 10_000
"""Filenames whose last seen version a service remembers (:class:`~aimon_mongo.vfs.records.Hints`)."""


def _q(component: str) -> str:
    return quote(component, safe="")


def _version_name(version: int) -> str:
    return f"{version:0{VERSION_DIGITS}d}"


def _parse_version(name: str) -> int | None:
    base = name.rsplit("/", 1)[-1]
    if base.endswith(META_SUFFIX):
        base = base[: -len(META_SUFFIX)]
    return int(base) if base.isdigit() and len(base) == VERSION_DIGITS else None


class AimonArtifactService(BaseArtifactService):
    """ADK artifacts as files of an :class:`~aimon_mongo.vfs.AsyncFileSystem` (see the module text).

    ``fs`` is any async filesystem of ours; the service initializes it on first use and closes it in
    :meth:`close` only when ``owns_filesystem``. :meth:`from_url` opens one from a URL.
    """

    def __init__(self, fs: AsyncFileSystem, *, root: str = DEFAULT_ROOT, owns_filesystem: bool = False) -> None:
        if not isinstance(root, str) or not root.strip("/"):
            raise InvalidArgumentError(f"root must be a non-empty directory path, got {root!r}")
        self.fs: Final = fs
        self.root: Final = root.strip("/")
        self._owns = owns_filesystem
        self._ready = False
        self._last_seen: Hints[str, int] = Hints(_REMEMBERED)
        """Per version directory, the highest version this service saw stored: a hint for the next save."""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Self:
        """A service on the filesystem ``url`` names: ``mongodb://host:port/DB?…`` (GridFS; the database is
        the URL's path, ``database=`` overrides; ``bucket=`` and ``chunk_size=`` pass to the filesystem),
        ``memory://`` (one store per URL in this process, shared by every service opened from it) or
        ``file:///abs/dir``. ``root=`` names the directory under which artifacts are kept."""
        url = without_registry_prefix(url)
        scheme = scheme_of(url)
        root = options.pop("root", DEFAULT_ROOT)
        fs: AsyncFileSystem
        owns = True
        if scheme in ("mongodb", "mongodb+srv"):
            from aimon_mongo._async.vfs.gridfs import AsyncGridFSFileSystem

            client_url, database = mongo_database_of(url, options.pop("database", None))
            fs = AsyncGridFSFileSystem.from_uri(client_url, database, **options)
        elif scheme == "memory":
            _no_options("memory://", options)
            fs, owns = shared_memory_filesystem(url), False
        elif scheme == "file":
            from aimon_mongo._async.vfs.local import AsyncLocalFileSystem

            path = url.partition("://")[2]
            if not path.startswith("/"):
                raise InvalidArgumentError(f"a file:// URL names an absolute directory (file:///abs/dir), got {url!r}")
            fs = AsyncLocalFileSystem(unquote(path), **options)
        else:
            raise InvalidArgumentError(
                f"no artifact store for the URL scheme {scheme!r} of {display_uri(url)!r} "
                "(mongodb://, mongodb+srv://, memory://, file://)"
            )
        return cls(fs, root=root, owns_filesystem=owns)

    async def close(self) -> None:
        """Close the filesystem when the service opened it (a filesystem passed in stays open)."""
        if self._owns:
            await self.fs.close()

    async def _ready_fs(self) -> AsyncFileSystem:
        if not self._ready:
            await self.fs.initialize()
            self._ready = True
        return self.fs

    # paths ---------------------------------------------------------------------------------------------

    def _user_dir(self, app_name: str, user_id: str) -> str:
        artifact_util.validate_path_segment(app_name, "app_name")
        artifact_util.validate_path_segment(user_id, "user_id")
        return f"{self.root}/{_q(app_name)}/{_q(user_id)}"

    def _artifact_dir(self, app_name: str, user_id: str, filename: str, session_id: str | None) -> str:
        if not isinstance(filename, str) or not filename:
            raise InputValidationError(f"filename must be a non-empty str, got {filename!r}")
        base = self._user_dir(app_name, user_id)
        if filename.startswith(USER_PREFIX):
            return f"{base}/user/{_q(filename)}"
        if session_id is None:
            raise InputValidationError("Session ID must be provided for session-scoped artifacts.")
        artifact_util.validate_path_segment(session_id, "session_id")
        return f"{base}/sessions/{_q(session_id)}/{_q(filename)}"

    def canonical_uri(self, path: str) -> str:
        """The URI naming the file at ``path`` (the filesystem's working directory, then the path)."""
        where = self.fs.working_directory.rstrip("/")
        if where.startswith("/"):
            where = f"file://{where}"
        elif where == "memory:":
            where = "memory://"
        return f"{where}/{path}" if not where.endswith("//") else f"{where}{path}"

    async def _stored(self, directory: str, *, claimed: bool = False) -> dict[int, FileInfo]:
        """The stored versions of the filename at ``directory``, each with its file's info (attributes
        included where the filesystem keeps them), from one ``glob``; ``claimed``: also versions claimed
        by a sidecar whose file is not written yet (keyed to the sidecar's info)."""
        found: dict[int, FileInfo] = {}
        infos = await self._files_below(directory, 1)
        prefix = directory + "/"
        for info in infos:
            name = info.path[len(prefix) :] if info.path.startswith(prefix) else ""
            version = _parse_version(name) if "/" not in name else None
            if version is None:
                continue
            if not name.endswith(META_SUFFIX):
                found[version] = info
            elif claimed:
                found.setdefault(version, info)
        if found:
            self._last_seen.put(directory, max(found))
        return found

    async def _files_below(self, directory: str, depth: int) -> list[FileInfo]:
        """The files ``depth`` levels below ``directory`` (sidecars and files at other depths may be among
        them), from one ``glob``. A filesystem with attributes (GridFS, memory) is globbed from its root with
        the literal directory in the pattern: its scan is the directory's name range, and when nothing is
        there the root needs no lookup (globbing the directory itself would then look it up, twice on
        GridFS, to report it missing). A local directory walks only ``directory``."""
        fs = await self._ready_fs()
        try:
            if fs.supports_attributes and not _GLOB_SPECIAL.intersection(directory):
                # "{.,}*": a wildcard alone skips a leading "." (a filename may start with one)
                return await fs.glob("/" + directory + "/{.,}*" * (depth - 1) + "/*")
            return await fs.glob("*", directory)
        except VfsFileNotFoundError:
            return []

    async def _versions(self, directory: str, *, claimed: bool = False) -> list[int]:
        """The stored versions (``claimed``: also those claimed by a sidecar whose file is not written yet)."""
        return sorted(await self._stored(directory, claimed=claimed))

    async def _chosen(self, directory: str, version: int | None) -> tuple[int, FileInfo | None] | None:
        """``version`` (no info), or the latest stored with its info when ``None``; ``None`` when there is
        none (or it is not a version)."""
        if version is None:
            stored = await self._stored(directory)
            if not stored:
                return None
            latest = max(stored)
            return latest, stored[latest]
        return (version, None) if isinstance(version, int) and version >= 0 else None

    def _claim_path(self, fs: AsyncFileSystem, path: str) -> str:
        """The file whose conditional write claims the version at ``path``."""
        return path if fs.supports_attributes else path + META_SUFFIX

    # saving --------------------------------------------------------------------------------------------

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: types.Part | dict[str, Any],
        session_id: str | None = None,
        custom_metadata: dict[str, Any] | None = None,
    ) -> int:
        """Store ``artifact`` as the next version of ``filename`` and return that version (0 first)."""
        directory = self._artifact_dir(app_name, user_id, filename, session_id)
        part = ensure_part(artifact)
        content, attributes = self._encode(part, app_name, user_id, session_id)
        if custom_metadata:
            try:
                attributes[ATTR_METADATA] = json.dumps(custom_metadata, sort_keys=True)
            except (TypeError, ValueError) as exc:
                raise InputValidationError(f"custom_metadata must be JSON-serializable: {exc}") from exc
        fs = await self._ready_fs()
        version = await self._first_guess(fs, directory)
        listed = version is None
        for _ in range(_MAX_CLAIMS):
            if version is None:
                versions = await self._versions(directory, claimed=True)
                version = versions[-1] + 1 if versions else 0
            try:
                await self._claim(fs, f"{directory}/{_version_name(version)}", content, attributes)
            except RevisionMismatchError:  # another save took this version first
                # after a listing, the next number; after a guess, the listing
                version, listed = (version + 1 if listed else None), True
                continue
            self._last_seen.put(directory, version)
            return version
        raise InvalidArgumentError(f"no free version of {filename!r} after {_MAX_CLAIMS} attempts")

    async def _first_guess(self, fs: AsyncFileSystem, directory: str) -> int | None:
        """The version a save tries first: 0 for a filename not seen yet, one past the last version seen
        if that version is still stored (one lookup); ``None`` (list first) when it is gone."""
        last = self._last_seen.get(directory)
        if last is None:
            return 0
        if await fs.is_file(self._claim_path(fs, f"{directory}/{_version_name(last)}")):
            return last + 1
        self._last_seen.forget(directory)
        return None

    async def _claim(self, fs: AsyncFileSystem, path: str, content: bytes, attributes: dict[str, str]) -> None:
        attributes[ATTR_CREATED] = repr(_now())
        if fs.supports_attributes:
            await fs.write(path, content, if_absent=True, attributes=attributes)
            return
        # no attributes here: the sidecar is the claim, the file follows (readers list files, not sidecars)
        await fs.write(path + META_SUFFIX, json.dumps(attributes, sort_keys=True), if_absent=True)
        await fs.write(path, content)

    def _encode(
        self, part: types.Part, app_name: str, user_id: str, session_id: str | None
    ) -> tuple[bytes, dict[str, str]]:
        if part.inline_data is not None:
            data = part.inline_data.data or b""
            mime = part.inline_data.mime_type or "application/octet-stream"
            return data, {ATTR_KIND: KIND_INLINE, ATTR_MIME: mime}
        if part.text is not None:
            return part.text.encode("utf-8"), {ATTR_KIND: KIND_TEXT, ATTR_MIME: "text/plain"}
        if part.file_data is not None:
            uri = part.file_data.file_uri or ""
            if artifact_util.is_artifact_ref(part):
                parsed = artifact_util.parse_artifact_uri(uri)
                if not parsed:
                    raise InputValidationError(f"Invalid artifact reference URI: {uri}")
                artifact_util.validate_artifact_reference_scope(
                    app_name=app_name, user_id=user_id, session_id=session_id, parsed_uri=parsed
                )
            attributes = {ATTR_KIND: KIND_FILE, ATTR_FILE_URI: uri}
            if part.file_data.mime_type:
                attributes[ATTR_MIME] = part.file_data.mime_type
            return uri.encode("utf-8"), attributes
        raise InputValidationError(
            "Not supported artifact type: a part with inline_data, text or file_data is stored, "
            f"got one with fields {sorted(part.model_dump(exclude_none=True))}"
        )

    # reading -------------------------------------------------------------------------------------------

    async def _attributes(self, path: str, info: FileInfo | None = None) -> tuple[dict[str, str], str | None] | None:
        """The attributes of the version file at ``path`` (from ``info`` when a listing brought them along)
        and the etag of the file they belong to (``None`` when they come from a sidecar); ``None`` when the
        version is not stored."""
        fs = await self._ready_fs()
        try:
            if fs.supports_attributes:
                if info is None:
                    info = await fs.info(path)
                return dict(info.custom_metadata), info.etag
            info_exists = await fs.is_file(path)
            if not info_exists:
                return None
            return dict(json.loads(await fs.read_text(path + META_SUFFIX))), None
        except VfsFileNotFoundError:
            return None

    async def _content(self, path: str, etag: str | None) -> bytes:
        """The content of ``path``; with ``etag``, only of that file (``FileReplacedError`` if the file is
        another one now: the filename was deleted and saved again since its attributes were read)."""
        fs = await self._ready_fs()
        if etag is None:
            return await fs.read(path)
        async with await fs.open_input(path) as reader:
            if reader.etag != etag:
                raise FileReplacedError(path)
            return await reader.read()

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> types.Part | None:
        """The artifact's part at ``version`` (the latest when ``None``), or ``None`` when there is none."""
        return await self._load(
            app_name, user_id, filename, session_id, version, artifact_util._MAX_ARTIFACT_REFERENCE_DEPTH
        )

    async def _load(
        self, app_name: str, user_id: str, filename: str, session_id: str | None, version: int | None, depth: int
    ) -> types.Part | None:
        directory = self._artifact_dir(app_name, user_id, filename, session_id)
        attempt = 1
        while True:
            chosen = await self._chosen(directory, version)
            if chosen is None:
                return None
            path = f"{directory}/{_version_name(chosen[0])}"
            described = await self._attributes(path, chosen[1])
            if described is None:
                return None
            attributes, etag = described
            try:
                content = await self._content(path, etag)
            except VfsFileNotFoundError:
                return None
            except FileReplacedError:
                if attempt >= _READ_ATTEMPTS:
                    raise
                attempt += 1
                continue
            break
        kind = attributes.get(ATTR_KIND)
        mime = attributes.get(ATTR_MIME)
        if kind == KIND_TEXT:
            return types.Part(text=content.decode("utf-8"))
        if kind == KIND_FILE:
            part = types.Part(file_data=types.FileData(file_uri=attributes.get(ATTR_FILE_URI), mime_type=mime))
            if artifact_util.is_artifact_ref(part):
                parsed = artifact_util.resolve_artifact_reference(
                    file_uri=attributes.get(ATTR_FILE_URI, ""),
                    app_name=app_name,
                    user_id=user_id,
                    session_id=session_id,
                    remaining_depth=depth,
                )
                return await self._load(
                    parsed.app_name, parsed.user_id, parsed.filename, parsed.session_id, parsed.version, depth - 1
                )
            return part
        return types.Part(inline_data=types.Blob(data=content, mime_type=mime))

    async def list_artifact_keys(self, *, app_name: str, user_id: str, session_id: str | None = None) -> list[str]:
        """Every filename of the user's ``user:`` artifacts and, with ``session_id``, of that session's."""
        base = self._user_dir(app_name, user_id)
        directories = [f"{base}/user"]
        if session_id is not None:
            artifact_util.validate_path_segment(session_id, "session_id")
            directories.append(f"{base}/sessions/{_q(session_id)}")
        keys: set[str] = set()
        for directory in directories:
            for info in await self._files_below(directory, 2):  # <key>/<version> (and sidecars)
                key, _, name = info.path[len(directory) + 1 :].partition("/")
                if key and "/" not in name and not name.endswith(META_SUFFIX) and _parse_version(name) is not None:
                    keys.add(unquote(key))
        return sorted(keys)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        """Delete every version of ``filename`` (nothing happens when there is none)."""
        directory = self._artifact_dir(app_name, user_id, filename, session_id)
        fs = await self._ready_fs()
        self._last_seen.forget(directory)
        try:
            await fs.delete_recursive(directory)
        except VfsFileNotFoundError:
            return

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        """The stored versions of ``filename``, ascending."""
        return await self._versions(self._artifact_dir(app_name, user_id, filename, session_id))

    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[ArtifactVersion]:
        """An :class:`ArtifactVersion` per stored version, ascending."""
        directory = self._artifact_dir(app_name, user_id, filename, session_id)
        found = []
        for version, info in sorted((await self._stored(directory)).items()):
            described = await self._describe(directory, version, info)
            if described is not None:
                found.append(described)
        return found

    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> ArtifactVersion | None:
        """The :class:`ArtifactVersion` of ``version`` (the latest when ``None``), or ``None``."""
        directory = self._artifact_dir(app_name, user_id, filename, session_id)
        chosen = await self._chosen(directory, version)
        return None if chosen is None else await self._describe(directory, *chosen)

    async def _describe(self, directory: str, version: int, info: FileInfo | None = None) -> ArtifactVersion | None:
        path = f"{directory}/{_version_name(version)}"
        stored = await self._attributes(path, info)
        if stored is None:
            return None
        attributes = stored[0]
        metadata = json.loads(attributes[ATTR_METADATA]) if ATTR_METADATA in attributes else {}
        described = ArtifactVersion(
            version=version,
            canonical_uri=self.canonical_uri(path),
            custom_metadata=metadata,
            mime_type=attributes.get(ATTR_MIME),
        )
        if ATTR_CREATED in attributes:
            described.create_time = float(attributes[ATTR_CREATED])
        return described


def _now() -> float:
    import time

    return time.time()


def _no_options(what: str, options: Mapping[str, Any]) -> None:
    if options:
        raise InvalidArgumentError(f"{what} takes no option {', '.join(map(repr, sorted(options)))}")

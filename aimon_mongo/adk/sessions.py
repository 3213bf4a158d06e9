"""ADK's ``BaseSessionService`` on any aimon-mongo session bundle (MongoDB, Redis, PostgreSQL, memory).

Stored with the session-record and log-segment layouts of the bundle's backend, in stores of their own when
opened by :meth:`AimonSessionService.from_url` (see ``docs/adk.md``; the texts they hold are declared in
``aimon_mongo/stored/adk.py``, decision record ``schema/changes/2026-12-03-adk-services.md``):

* the **session record** ``adk/<app>/<user>/<session>`` (each part percent-encoded): its ``transcript`` text
  is the session's header, a JSON object ``{"v": 1, "state": {…}, "created": t, "updated": t, "events": n,
  "rev": r}`` (session-scoped state, the event count and the revision stale writers are told by);
* the session's **log segments**, one per event, id ``<seq>`` zero-padded to 12 digits, payload the
  event's JSON: a tail read fetches only the last segments by id, never the whole history;
* the **listing indexes**: log segments of the index ids ``adk-list/<app>/<user>`` (one empty segment per
  session, id the percent-encoded session id: the atomic create-if-absent that refuses a duplicate id) and
  ``adk-users/<app>`` (one per user);
* **app and user state**: the records ``adk-app/<app>`` and ``adk-user/<app>/<user>``, their transcript the
  state's JSON, merged under that record's lease.

Single writer per session: an append takes the session's lease (a new fencing token), checks that the
caller's session is at the stored revision, writes the event segment and the header with that token and
releases the lease. A second writer meanwhile finds the lease held; a writer whose lease lapsed meets the
store's fence. Each of these refusals is ADK's ``StaleSessionError``, on every backend, memory included.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final, Self, TypeVar
from urllib.parse import quote, unquote

from google.adk.errors._stale_session_error import StaleSessionError
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.sessions import _session_util
from google.adk.sessions.base_session_service import BaseSessionService, GetSessionConfig, ListSessionsResponse
from google.adk.sessions.session import Session
from google.adk.sessions.state import State

from aimon_mongo import names as n
from aimon_mongo._async.ports import AsyncSessionBackends
from aimon_mongo.adk.urls import mongo_database_of, scheme_of, shared_memory_storage, without_registry_prefix
from aimon_mongo.errors import InvalidArgumentError, SessionLogSegmentStoreError, StaleFencingTokenError
from aimon_mongo.model.lease import Lease
from aimon_mongo.model.record import LogSegment
from aimon_mongo.mongo.clients import display_uri

A = TypeVar("A")
T = TypeVar("T")

# Where the services opened by ``from_url`` keep ADK's data: stores of their own, apart from the conversation
# stores other builds read (frozen: tests assert these literals).
MONGO_COLLECTIONS: Final = {
    "records": "adk_session_records",
    "segments": "adk_session_log_segments",
    "fences": "adk_session_fences",
    "locks": "adk_session_locks",
}
REDIS_NAMESPACE: Final = "adk"
"""Every Redis key prefix of the bundle is moved under ``adk:`` (``adk:aimon:session:record`` …)."""
POSTGRES_SCHEMA: Final = "aimon_adk"

SESSION_PREFIX: Final = "adk"
LIST_PREFIX: Final = "adk-list"
USERS_PREFIX: Final = "adk-users"
APP_STATE_PREFIX: Final = "adk-app"
USER_STATE_PREFIX: Final = "adk-user"
HEADER_VERSION: Final = 1
SEQ_DIGITS: Final = 12
INDEX_TOKEN: Final = 1
"""The fencing token of the listing indexes (never leased: their writes are single atomic puts/deletes)."""
STALE_MESSAGE: Final = (
    "The session was modified in storage since it was loaded (another writer appended to it, or is appending "
    "now); reload the session before appending."
)
_READ_CONCURRENCY: Final = 32
_READ_BATCH: Final = 500
"""Events read per ``get_many`` request."""
_HEADER_BATCH: Final = 5_000
"""Records (session headers) read per ``load_many`` request of a listing."""
WRITE_LEASE_TTL: Final = timedelta(seconds=30)
"""The default ``write_lease_ttl`` of :class:`AimonSessionService`."""
STATE_LOCK_WAIT: Final = timedelta(seconds=10)
"""The default ``state_lock_wait`` of :class:`AimonSessionService`."""


def _q(part: str) -> str:
    return quote(part, safe="")


def _key(prefix: str, *quoted: str) -> str:
    """A stored id: ``prefix`` and the already percent-encoded parts, joined by ``/``."""
    return "/".join((prefix, *quoted))


def _seq_id(seq: int) -> str:
    return f"{seq:0{SEQ_DIGITS}d}"


@dataclass(frozen=True)
class SessionPage:
    """One page of :meth:`AimonSessionService.list_sessions_page`; ``next_page_token`` is ``None`` at the end."""

    sessions: list[Session]
    next_page_token: str | None


def _timings(
    write_lease_ttl: timedelta = WRITE_LEASE_TTL,
    write_lease_wait: timedelta | None = None,
    state_lock_wait: timedelta = STATE_LOCK_WAIT,
) -> tuple[timedelta, timedelta, timedelta]:
    """The service's three timings, checked (``write_lease_wait`` defaults to ``write_lease_ttl``)."""
    if not isinstance(write_lease_ttl, timedelta) or write_lease_ttl <= timedelta(0):
        raise InvalidArgumentError(f"write_lease_ttl must be a positive timedelta, got {write_lease_ttl!r}")
    if write_lease_wait is None:
        write_lease_wait = write_lease_ttl
    if not isinstance(write_lease_wait, timedelta) or write_lease_wait < timedelta(0):
        raise InvalidArgumentError(f"write_lease_wait must be a timedelta >= 0, got {write_lease_wait!r}")
    if not isinstance(state_lock_wait, timedelta) or state_lock_wait < timedelta(0):
        raise InvalidArgumentError(f"state_lock_wait must be a timedelta >= 0, got {state_lock_wait!r}")
    return write_lease_ttl, write_lease_wait, state_lock_wait


class AimonSessionService(BaseSessionService):
    """ADK sessions on an aimon-mongo session bundle (see the module text for what is stored where).

    ``backends`` is any async bundle (``aimon_mongo.open_async_backends(url, node_id=...)``);
    :meth:`close` closes it when ``owns_backends``. ``write_lease_ttl`` bounds how long a writer that died
    in the middle of an append keeps others out. ``write_lease_wait`` is how long an append waits for the
    session's append lease while another writer holds it (default ``write_lease_ttl``: an append that follows
    a writer who died inside its append waits for that lease to lapse instead of being refused at once, so a
    host's retries are not spent on it; an append that follows a live writer's append is then refused by the
    revision check as before); ``timedelta(0)`` refuses at once. ``state_lock_wait`` is how long an append
    waits for another writer of the same app or user state.
    """

    def __init__(
        self,
        backends: AsyncSessionBackends,
        *,
        owns_backends: bool = False,
        write_lease_ttl: timedelta = WRITE_LEASE_TTL,
        write_lease_wait: timedelta | None = None,
        state_lock_wait: timedelta = STATE_LOCK_WAIT,
    ) -> None:
        self._ttl, write_wait, state_wait = _timings(write_lease_ttl, write_lease_wait, state_lock_wait)
        self.backends: Final = backends
        self._owns = owns_backends
        self._state_wait = state_wait.total_seconds()
        self._write_wait = write_wait.total_seconds()
        self._holder = f"adk-{uuid.uuid4().hex}"

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Self:
        """A service on the bundle ``url`` names: ``mongodb://host:port/DB?…`` (the database is the URL's
        path, the query kept; ``database=`` overrides), ``redis://…``, ``postgresql://…``, or ``memory://``
        (one store per URL in this process, shared by every service opened from it: two services from one
        URL stand for two nodes). ``node_id=`` names the node (a new one by default); the options
        ``write_lease_ttl``, ``write_lease_wait`` and ``state_lock_wait`` are the service's, the rest go to the
        bundle.

        The bundle keeps ADK's data apart from the conversation stores: on MongoDB the collections of
        :data:`MONGO_COLLECTIONS` (``collection_names=`` overrides), on Redis every key prefix under ``adk:``,
        on PostgreSQL the schema ``aimon_adk`` (``schema=`` overrides); MongoDB and PostgreSQL ensure their
        schema unless ``ensure_schema=False``."""
        from aimon_mongo.opening import open_async_backends

        url = without_registry_prefix(url)
        scheme = scheme_of(url)
        node_id = options.pop("node_id", None) or f"adk-node-{uuid.uuid4().hex[:12]}"
        own = {k: options.pop(k) for k in ("write_lease_ttl", "write_lease_wait", "state_lock_wait") if k in options}
        _timings(**own)  # refused before a bundle is opened
        backends: AsyncSessionBackends
        if scheme == "memory":
            from aimon_mongo.memory import AsyncMemorySessionBackends

            if options:
                raise InvalidArgumentError(f"memory:// takes no option {', '.join(map(repr, sorted(options)))}")
            backends = AsyncMemorySessionBackends(node_id, storage=shared_memory_storage(url))
        elif scheme in ("mongodb", "mongodb+srv"):
            client_url, database = mongo_database_of(url, options.pop("database", None))
            if database is not None:
                options["database"] = database
            options["collection_names"] = {**MONGO_COLLECTIONS, **dict(options.get("collection_names") or {})}
            options.setdefault("ensure_schema", True)
            backends = open_async_backends(client_url, node_id=node_id, **options)
        elif scheme in ("redis", "rediss"):
            from aimon_mongo.redis import RedisKeyPrefixes

            options["key_prefixes"] = RedisKeyPrefixes.of(options.get("key_prefixes")).under(REDIS_NAMESPACE)
            backends = open_async_backends(url, node_id=node_id, **options)
        elif scheme in ("postgresql", "postgres"):
            options.setdefault("schema", POSTGRES_SCHEMA)
            options.setdefault("ensure_schema", True)
            backends = open_async_backends(url, node_id=node_id, **options)
        else:
            raise InvalidArgumentError(
                f"no session store for the URL scheme {scheme!r} of {display_uri(url)!r} "
                "(mongodb://, mongodb+srv://, redis://, rediss://, postgresql://, memory://)"
            )
        return cls(backends, owns_backends=True, **own)

    async def close(self) -> None:
        """Close the bundle when the service opened it."""
        if self._owns:
            await self.backends.close()

    # ids -----------------------------------------------------------------------------------------------

    @staticmethod
    def _check(app_name: str, user_id: str, session_id: str | None = None) -> None:
        for name, value in (("app_name", app_name), ("user_id", user_id), ("session_id", session_id)):
            if value is None and name == "session_id":
                continue
            if not isinstance(value, str) or not value:
                raise InvalidArgumentError(f"{name} must be a non-empty str, got {value!r}")

    @staticmethod
    def session_key(app_name: str, user_id: str, session_id: str) -> str:
        """The id our stores keep the ADK session under."""
        return _key(SESSION_PREFIX, _q(app_name), _q(user_id), _q(session_id))

    @staticmethod
    def _list_key(app_name: str, user_id: str) -> str:
        return _key(LIST_PREFIX, _q(app_name), _q(user_id))

    @staticmethod
    def _users_key(app_name: str) -> str:
        return _key(USERS_PREFIX, _q(app_name))

    @staticmethod
    def _app_state_key(app_name: str) -> str:
        return _key(APP_STATE_PREFIX, _q(app_name))

    @staticmethod
    def _user_state_key(app_name: str, user_id: str) -> str:
        return _key(USER_STATE_PREFIX, _q(app_name), _q(user_id))

    # stored JSON ---------------------------------------------------------------------------------------

    async def _load_json(self, key: str) -> dict[str, Any] | None:
        record = await self.backends.records.load(key)
        if record is None or record.transcript is None:
            return None
        loaded = json.loads(record.transcript)
        return loaded if isinstance(loaded, dict) else None

    async def _write_json(self, key: str, value: dict[str, Any], token: int) -> None:
        await self.backends.records.merge_transcript(key, json.dumps(value, separators=(",", ":")), token)

    # leases --------------------------------------------------------------------------------------------

    async def _acquire(self, key: str, wait: float) -> Lease | None:
        deadline = time.monotonic() + wait
        delay = 0.005
        while True:
            lease = await self.backends.leases.try_acquire(key, self._holder, self._ttl)
            if lease is not None or time.monotonic() >= deadline:
                return lease
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.1)

    async def _merge_state(self, key: str, delta: dict[str, Any]) -> None:
        """Merge ``delta`` into the app or user state record ``key`` under that record's lease (again, with a
        new lease, when a stall let another merger take over); :class:`TimeoutError` when the record stays
        locked longer than ``state_lock_wait``."""
        deadline = time.monotonic() + self._state_wait
        while True:
            lease = await self._acquire(key, max(0.0, deadline - time.monotonic()))
            if lease is None:
                raise TimeoutError(
                    f"the shared state {key!r} stayed locked by another writer for {self._state_wait:g} s; "
                    "its delta was not merged"
                )
            try:
                state = await self._load_json(key) or {}
                state.update(delta)
                await self._write_json(key, state, lease.fencing_token)
                return
            except StaleFencingTokenError:
                continue  # this merge stalled past its lease and another one wrote: merge again on top of it
            finally:
                await self.backends.leases.release(lease)

    @staticmethod
    async def _map(function: Callable[[A], Awaitable[T]], items: Iterable[A]) -> list[T]:
        """``function`` over ``items``, at most ``_READ_CONCURRENCY`` at a time, results in order."""
        gate = asyncio.Semaphore(_READ_CONCURRENCY)

        async def one(item: A) -> T:
            async with gate:
                return await function(item)

        return list(await asyncio.gather(*(one(item) for item in items)))

    # create --------------------------------------------------------------------------------------------

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session; an id the user already has is refused with ADK's ``AlreadyExistsError``.

        The listing entry is the claim of the id (an atomic create-if-absent); a creation that fails after
        it keeps the id taken until :meth:`delete_session` frees it.
        """
        self._check(app_name, user_id, session_id)
        session_id = session_id.strip() if session_id and session_id.strip() else str(uuid.uuid4())
        deltas = _session_util.extract_json_safe_state_delta(state or {})
        now = time.time()
        key = self.session_key(app_name, user_id, session_id)
        segments = self.backends.segments
        entry = LogSegment(
            session_id=self._list_key(app_name, user_id),
            segment_id=_q(session_id),
            from_seq=0,
            to_seq=0,
            entry_count=1,
            payload="{}",
            created_at=_utc(now),
        )
        try:
            await segments.put(entry, INDEX_TOKEN)
        except SessionLogSegmentStoreError:
            if await segments.get(entry.session_id, entry.segment_id) is not None:
                raise AlreadyExistsError(f"Session with id {session_id} already exists.") from None
            raise
        user_entry = entry.model_copy(update={"session_id": self._users_key(app_name), "segment_id": _q(user_id)})
        try:
            await segments.put(user_entry, INDEX_TOKEN)
        except SessionLogSegmentStoreError:
            if await segments.get(user_entry.session_id, user_entry.segment_id) is None:
                raise
        if deltas["app"]:
            await self._merge_state(self._app_state_key(app_name), deltas["app"])
        if deltas["user"]:
            await self._merge_state(self._user_state_key(app_name, user_id), deltas["user"])
        lease = await self._acquire(key, self._state_wait)
        if lease is None:
            raise StaleSessionError(STALE_MESSAGE)
        header = {
            n.ADK_HEADER_VERSION: HEADER_VERSION,
            n.ADK_HEADER_STATE: deltas["session"],
            n.ADK_HEADER_CREATED: now,
            n.ADK_HEADER_UPDATED: now,
            n.ADK_HEADER_EVENTS: 0,
            n.ADK_HEADER_REVISION: 0,
        }
        try:
            await self.backends.segments.delete_all(key, lease.fencing_token)  # leftovers of a deleted namesake
            await self._write_json(key, header, lease.fencing_token)
        except StaleFencingTokenError as exc:
            raise StaleSessionError(STALE_MESSAGE) from exc
        finally:
            await self.backends.leases.release(lease)
        session = Session(
            app_name=app_name, user_id=user_id, id=session_id, state=dict(deltas["session"]), last_update_time=now
        )
        session._storage_update_marker = "0"
        return await self._with_shared_state(session)

    # read ----------------------------------------------------------------------------------------------

    async def _shared_states(self, app_name: str, user_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        app_state, user_state = await asyncio.gather(
            self._load_json(self._app_state_key(app_name)), self._load_json(self._user_state_key(app_name, user_id))
        )
        return app_state or {}, user_state or {}

    async def _with_shared_state(self, session: Session) -> Session:
        app_state, user_state = await self._shared_states(session.app_name, session.user_id)
        _merge_prefixed(session.state, app_state, user_state)
        return session

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """The session with its state (app and user state merged in) and events, or ``None``.

        ``config.num_recent_events`` reads only the last segments; ``config.after_timestamp`` walks back
        from the newest event and stops at the first older one.
        """
        self._check(app_name, user_id, session_id)
        session_id = session_id.strip()  # as create_session normalizes it
        key = self.session_key(app_name, user_id, session_id)
        app_key, user_key = self._app_state_key(app_name), self._user_state_key(app_name, user_id)
        loaded = await self._load_jsons([key, app_key, user_key])  # one request
        header, app_state, user_state = loaded.get(key), loaded.get(app_key, {}), loaded.get(user_key, {})
        if header is None:
            return None
        count = int(header[n.ADK_HEADER_EVENTS])
        events = await self._read_events(key, count, config)
        session = Session(
            app_name=app_name,
            user_id=user_id,
            id=session_id,
            state=dict(header.get(n.ADK_HEADER_STATE) or {}),
            events=events,
            last_update_time=float(header[n.ADK_HEADER_UPDATED]),
        )
        session._storage_update_marker = str(header[n.ADK_HEADER_REVISION])
        _merge_prefixed(session.state, app_state, user_state)
        return session

    async def _events_between(self, key: str, start: int, stop: int) -> list[Event]:
        """Events ``start .. stop-1``: one ``get_many`` per :data:`_READ_BATCH` events, those concurrently."""
        segments = self.backends.segments
        batches = [range(first, min(first + _READ_BATCH, stop)) for first in range(start, stop, _READ_BATCH)]
        found = await self._map(lambda seqs: segments.get_many(key, [_seq_id(seq) for seq in seqs]), batches)
        return [Event.model_validate_json(segment.payload) for batch in found for segment in batch]

    async def _read_events(self, key: str, count: int, config: GetSessionConfig | None) -> list[Event]:
        recent = config.num_recent_events if config is not None else None
        after = config.after_timestamp if config is not None else None
        if recent == 0:
            return []
        start = max(0, count - recent) if recent is not None else 0
        if after is None:
            return await self._events_between(key, start, count)
        kept: list[Event] = []
        stop = count
        while stop > start:  # newest first, a window at a time, until an event older than ``after``
            window_start = max(start, stop - _READ_CONCURRENCY)
            window = await self._events_between(key, window_start, stop)
            newer = [e for e in window if e.timestamp >= after]
            kept[:0] = newer
            if len(newer) < len(window):
                break
            stop = window_start
        return kept

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """The user's state shared by all their sessions of the app (keys without ``user:``)."""
        self._check(app_name, user_id)
        return await self._load_json(self._user_state_key(app_name, user_id)) or {}

    # list ----------------------------------------------------------------------------------------------

    async def _user_ids(self, app_name: str) -> list[str]:
        infos = await self.backends.segments.list(self._users_key(app_name))
        return sorted(unquote(i.segment_id) for i in infos)

    async def _listed(self, app_name: str, user_id: str) -> list[str]:
        """The ids of the user's listing index: the session ids as stored (percent-encoded)."""
        return [info.segment_id for info in await self.backends.segments.list(self._list_key(app_name, user_id))]

    async def _load_jsons(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The JSON transcripts of the records ``keys`` that exist: one ``load_many`` per :data:`_HEADER_BATCH`
        keys, those concurrently."""
        records = self.backends.records
        batches = [keys[first : first + _HEADER_BATCH] for first in range(0, len(keys), _HEADER_BATCH)]
        found: dict[str, dict[str, Any]] = {}
        for loaded in await self._map(records.load_many, batches):
            for key, record in loaded.items():
                value = json.loads(record.transcript) if record.transcript is not None else None
                if isinstance(value, dict):
                    found[key] = value
        return found

    async def _summaries(self, app_name: str, listed: list[tuple[str, list[str]]]) -> list[Session]:
        """The sessions, without events, of each ``(user id, ids as stored)`` in ``listed``, in that order
        (those without a header left out); one ``load_many`` per :data:`_HEADER_BATCH` records."""
        app = _q(app_name)
        app_key = _key(APP_STATE_PREFIX, app)
        keys = [app_key]
        prefixes = []
        for user_id, quoted_ids in listed:
            user = _q(user_id)
            prefix = _key(SESSION_PREFIX, app, user, "")
            prefixes.append((_key(USER_STATE_PREFIX, app, user), prefix))
            keys.append(prefixes[-1][0])
            keys += [prefix + quoted for quoted in quoted_ids]
        loaded = await self._load_jsons(keys)
        app_state = loaded.get(app_key, {})
        sessions = []
        for (user_id, quoted_ids), (user_key, prefix) in zip(listed, prefixes, strict=True):
            user_state = loaded.get(user_key, {})
            for quoted in quoted_ids:
                header = loaded.get(prefix + quoted)
                if header is None:  # created a moment ago (header not yet written) or being deleted
                    continue
                session = Session(
                    app_name=app_name,
                    user_id=user_id,
                    id=unquote(quoted),
                    state=dict(header.get(n.ADK_HEADER_STATE) or {}),
                    last_update_time=float(header[n.ADK_HEADER_UPDATED]),
                )
                session._storage_update_marker = str(header[n.ADK_HEADER_REVISION])
                _merge_prefixed(session.state, app_state, user_state)
                sessions.append(session)
        return sessions

    async def list_sessions(self, *, app_name: str, user_id: str | None = None) -> ListSessionsResponse:
        """The user's sessions (every user's when ``user_id`` is ``None``), least recently updated first,
        without events. Reads the listing index once and the headers in ``load_many`` batches."""
        self._check(app_name, user_id or "-")
        users = [user_id] if user_id is not None else await self._user_ids(app_name)
        id_lists = await self._map(lambda user: self._listed(app_name, user), users)
        sessions = await self._summaries(app_name, list(zip(users, id_lists, strict=True)))
        sessions.sort(key=lambda s: (s.last_update_time, s.user_id, s.id))
        return ListSessionsResponse(sessions=sessions)

    async def list_sessions_page(
        self, *, app_name: str, user_id: str, page_size: int = 100, page_token: str | None = None
    ) -> SessionPage:
        """One page of the user's sessions, without events; pass the returned ``next_page_token`` (the id of
        the page's last session) to get the next page.

        The order is that of the stored, percent-encoded ids: ``urllib.parse.quote(session_id, safe="")``
        compared by code point. Letters, digits and ``-._~`` stay as they are, every other character becomes
        the ``%XX`` escapes of its UTF-8 bytes (upper-case hex), so ``%`` escapes come first, then ``-``,
        ``.``, digits, upper case, ``_``, lower case, ``~``. Reads ``page_size + 1`` entries of the user's
        listing index (one request) and that page's headers, never the whole listing."""
        self._check(app_name, user_id)
        if isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1:
            raise InvalidArgumentError(f"page_size must be an int >= 1, got {page_size!r}")
        if page_token is not None and (not isinstance(page_token, str) or not page_token):
            raise InvalidArgumentError(f"page_token must be None or a non-empty str, got {page_token!r}")
        after = None if page_token is None else _q(page_token)
        infos = await self.backends.segments.list_page(self._list_key(app_name, user_id), after, page_size + 1)
        page = [info.segment_id for info in infos[:page_size]]
        sessions = await self._summaries(app_name, [(user_id, page)])
        return SessionPage(sessions=sessions, next_page_token=unquote(page[-1]) if len(infos) > page_size else None)

    # delete --------------------------------------------------------------------------------------------

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session, its events and its listing entry (nothing happens when it does not exist)."""
        self._check(app_name, user_id, session_id)
        session_id = session_id.strip()  # as create_session normalizes it
        key = self.session_key(app_name, user_id, session_id)
        lease = await self._acquire(key, self._state_wait)
        if lease is None:
            raise StaleSessionError(f"session {session_id!r} is being written by another node; retry the delete")
        try:
            await self.backends.records.delete(key, lease.fencing_token)
            await self.backends.segments.delete_all(key, lease.fencing_token)
        except StaleFencingTokenError as exc:
            raise StaleSessionError(STALE_MESSAGE) from exc
        finally:
            await self.backends.leases.release(lease)
        await self.backends.segments.delete(self._list_key(app_name, user_id), _q(session_id), INDEX_TOKEN)

    # append --------------------------------------------------------------------------------------------

    async def append_event(self, session: Session, event: Event) -> Event:
        """Persist ``event`` as the session's next event, as its single writer.

        Raises ADK's ``StaleSessionError`` when ``session`` is not at the stored revision, when another
        writer kept the session's append lease longer than ``write_lease_wait``, or when this writer's lease
        lapsed and a newer writer took over.
        """
        if event.partial:
            return event
        self._apply_temp_state(session, event)
        event = self._trim_temp_delta_state(event)
        delta = event.actions.state_delta if event.actions and event.actions.state_delta else {}
        deltas = _session_util.extract_json_safe_state_delta(delta)
        key = self.session_key(session.app_name, session.user_id, session.id)
        lease = await self._acquire(key, self._write_wait)
        if lease is None:
            raise StaleSessionError(STALE_MESSAGE)
        try:
            header = await self._load_json(key)
            if header is None:
                raise SessionNotFoundError(f"Session {session.id} not found.")
            marker = session._storage_update_marker
            if marker is not None and marker != str(header[n.ADK_HEADER_REVISION]):
                raise StaleSessionError(STALE_MESSAGE)
            if marker is None and float(header[n.ADK_HEADER_UPDATED]) > session.last_update_time:
                raise StaleSessionError(STALE_MESSAGE)
            seq = int(header[n.ADK_HEADER_EVENTS])
            await self._put_event(key, seq, event, lease.fencing_token)
            header[n.ADK_HEADER_STATE] = {**(header.get(n.ADK_HEADER_STATE) or {}), **deltas["session"]}
            header[n.ADK_HEADER_EVENTS] = seq + 1
            header[n.ADK_HEADER_REVISION] = int(header[n.ADK_HEADER_REVISION]) + 1
            header[n.ADK_HEADER_UPDATED] = event.timestamp
            await self._write_json(key, header, lease.fencing_token)
            # the event is stored: a refused append above left nothing behind, app and user state included
            if deltas["app"]:
                await self._merge_state(self._app_state_key(session.app_name), deltas["app"])
            if deltas["user"]:
                await self._merge_state(self._user_state_key(session.app_name, session.user_id), deltas["user"])
        except StaleFencingTokenError as exc:
            raise StaleSessionError(STALE_MESSAGE) from exc
        finally:
            await self.backends.leases.release(lease)
        session._storage_update_marker = str(header[n.ADK_HEADER_REVISION])
        session.last_update_time = event.timestamp
        return self._commit_event_to_session(session, event)

    async def _put_event(self, key: str, seq: int, event: Event, token: int) -> None:
        segment = LogSegment(
            session_id=key,
            segment_id=_seq_id(seq),
            from_seq=seq,
            to_seq=seq,
            entry_count=1,
            payload=event.model_dump_json(exclude_none=True),
            created_at=_utc(event.timestamp),
        )
        segments = self.backends.segments
        try:
            await segments.put(segment, token)
        except SessionLogSegmentStoreError:
            # a writer whose lease lapsed left this segment without counting it in the header: replace it
            if await segments.get(key, segment.segment_id) is None:
                raise
            await segments.delete(key, segment.segment_id, token)
            await segments.put(segment, token)


def _merge_prefixed(state: dict[str, Any], app_state: dict[str, Any], user_state: dict[str, Any]) -> None:
    for name, value in app_state.items():
        state[State.APP_PREFIX + name] = value
    for name, value in user_state.items():
        state[State.USER_PREFIX + name] = value


def _utc(seconds: float) -> Any:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC)

"""The console's web application: server-rendered pages, a JSON API (``/api/...``, ``/openapi.json``) and a
server-sent-event tail of signals, with the safety rules of :class:`ConsoleSettings` applied to every
request.

Safety: read-only unless ``allow_writes`` (the write routes are then not even registered); writes are
POST forms behind a confirmation page, with a CSRF token (a random cookie the form must repeat) and an
``Origin`` check; a token, when set, is required on every request (``Authorization: Bearer``, or the
cookie a ``?token=`` visit sets), and a console bound to a non-loopback address refuses to start
without one; without a token only loopback ``Host`` names are answered (DNS rebinding). Every stored
string goes through Jinja2's autoescape; file routes validate paths with the VFS's own rules (no ``..``);
an unexpected error shows a reference number, never a traceback.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import ipaddress
import json
import logging
import secrets
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.util import ClassNotFound
from pymongo.errors import ConnectionFailure
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import StreamingResponse

import aimon_mongo
from aimon_mongo.console import _api as api
from aimon_mongo.console._data import ConsoleData, NotFound, raw_json
from aimon_mongo.errors import BackendUnavailable, VfsFileNotFoundError
from aimon_mongo.model import Principal, PrincipalType, SessionSignal, TaskQuery, TaskState
from aimon_mongo.model.record import QuarantinedEntry
from aimon_mongo.model.vfs import FileInfo
from aimon_mongo.snapshots import ImageBlock, Message, TextBlock, render_lines
from aimon_mongo.snapshots.message import DocumentBlock
from aimon_mongo.validate import require_id
from aimon_mongo.vfs.paths import validate_file_path, validate_path

log = logging.getLogger(__name__)

TOKEN_ENV = "AIMON_CONSOLE_TOKEN"
"""Environment variable the ``console`` command reads the access token from (``--token`` wins)."""
TOKEN_COOKIE = "aimon_console_token"
CSRF_COOKIE = "aimon_console_csrf"
CSRF_FIELD = "csrf"
DEFAULT_PAGE = 50
WRITE_ACTIONS = ("replay", "delete")
"""The quarantine actions ``--allow-writes`` offers (each a confirmation page and a POST)."""
MAX_PAGE = 500
TEXT_PREVIEW_BYTES = 1 << 20
"""Text files are shown (highlighted) up to this many bytes; the rest is one click away (download)."""
INLINE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types shown inline (an SVG can carry script: it is only ever downloaded)."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
CSP = (
    "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


class ConsoleConfigError(ValueError):
    """The console cannot start with these settings (the message says why)."""


class SignalTails:
    """The open signal tails of one console: :meth:`stop` ends them all at once (the console is stopping).

    A tail is a response that never finishes on its own; a stopping server would wait for it until its
    grace period ran out and then cancel it mid-stream (a traceback in the log). Each tail waits on its own
    event, created in the tail's event loop; :meth:`stop` is called from that loop (the server's).
    """

    def __init__(self) -> None:
        self._open: set[asyncio.Event] = set()
        self.stopped = False

    @contextlib.contextmanager
    def open(self) -> Iterator[asyncio.Event]:
        """An event set when the console stops (already set when it has), for the tail's lifetime."""
        event = asyncio.Event()
        if self.stopped:
            event.set()
        self._open.add(event)
        try:
            yield event
        finally:
            self._open.discard(event)

    def stop(self) -> None:
        """End every open tail, and every tail opened from now on."""
        self.stopped = True
        for event in list(self._open):
            event.set()


async def _next_signal(
    queue: asyncio.Queue[SessionSignal], stopping: asyncio.Event, timeout: float
) -> SessionSignal | None:
    """The next signal of a tail; ``None`` after ``timeout`` seconds without one, or when the console stops."""
    getting = asyncio.ensure_future(queue.get())
    waiting = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait((getting, waiting), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (getting, waiting):
            if not task.done():
                task.cancel()
    return getting.result() if getting.done() and not getting.cancelled() else None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) only accepts connections from this machine."""
    if host.strip("[]") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ConsoleSettings:
    """How the console runs: where it binds, whether it may change anything, and its access token."""

    bind_host: str = "127.0.0.1"
    bind_port: int = 8008
    allow_writes: bool = False
    token: str | None = None

    def check(self) -> None:
        """Refuse a non-loopback bind without a token, and an empty token."""
        if self.token is not None and not self.token.strip():
            raise ConsoleConfigError("the console token is empty")
        if not is_loopback(self.bind_host) and self.token is None:
            raise ConsoleConfigError(
                f"binding to {self.bind_host!r} (not a loopback address) requires a token: pass --token or set "
                f"{TOKEN_ENV}"
            )


Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Entries per page.")]
Offset = Annotated[int, Query(ge=0, le=10_000_000, description="Entries to skip.")]


def create_app(data: ConsoleData, settings: ConsoleSettings | None = None) -> FastAPI:
    """The console application over ``data`` (closed when the application shuts down)."""
    settings = settings or ConsoleSettings()
    settings.check()
    templates = Environment(loader=PackageLoader("aimon_mongo.console", "templates"), autoescape=True)
    templates.filters["when"] = _when
    templates.filters["size"] = _size
    templates.globals["version"] = aimon_mongo.__version__
    templates.globals["has_files"] = data.has_files
    templates.globals["backend"] = {"mongo": "MongoDB", "redis": "Redis", "postgres": "PostgreSQL"}.get(
        data.backend, data.backend
    )
    app = FastAPI(
        title="aimon-mongo console",
        version=aimon_mongo.__version__,
        description="Read-only JSON views of sessions, inboxes, leases, quarantine, snapshots, files and tasks.",
        docs_url=None,
        redoc_url=None,
        debug=False,
    )
    app.state.data = data
    app.state.settings = settings
    tails = SignalTails()
    app.state.signal_tails = tails
    app.router.add_event_handler("shutdown", data.close)

    def page(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        body = templates.get_template(name).render(
            csrf=request.state.csrf, writes=settings.allow_writes, request_path=request.url.path, **values
        )
        return HTMLResponse(body, status_code=status)

    # --- safety on every request ---------------------------------------------------------------------

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    def refusal(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        """A request refused before it reached a route: JSON ``{"detail": ...}`` on the API, as every other
        API error, plain text elsewhere."""
        if wants_json(request):
            return JSONResponse({"detail": message}, status_code=status, headers=headers)
        return PlainTextResponse(message, status_code=status, headers=headers)

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if settings.token is not None:
            supplied = _supplied_token(request)
            if supplied is None or not hmac.compare_digest(supplied.encode(), settings.token.encode()):
                return refusal(request, 401, "authentication required", {"WWW-Authenticate": "Bearer"})
            if request.query_params.get("token") is not None and request.method == "GET":
                kept = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                target = request.url.path + (f"?{urllib.parse.urlencode(kept)}" if kept else "")
                response: Response = RedirectResponse(target, status_code=303)
                response.set_cookie(TOKEN_COOKIE, settings.token, httponly=True, samesite="strict")
                return _harden(response)
        elif (request.url.hostname or "") not in LOOPBACK_NAMES:
            return refusal(request, 421, "this console answers loopback host names only")
        cookie = request.cookies.get(CSRF_COOKIE)
        fresh = cookie is None or len(cookie) < 32
        request.state.csrf = secrets.token_urlsafe(32) if fresh else cookie
        response = await call_next(request)
        if fresh:
            response.set_cookie(CSRF_COOKIE, request.state.csrf, httponly=True, samesite="strict")
        return _harden(response)

    async def checked_form(request: Request) -> dict[str, str]:
        """The POSTed form after the CSRF, origin and confirmation checks (403 / 400 otherwise)."""
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
            raise StarletteHTTPException(403, "cross-origin form refused")
        form = {key: value for key, value in (await request.form()).items() if isinstance(value, str)}
        cookie = request.cookies.get(CSRF_COOKIE) or ""
        sent = form.get(CSRF_FIELD) or ""
        if not cookie or not sent or not hmac.compare_digest(cookie.encode(), sent.encode()):
            raise StarletteHTTPException(403, "missing or wrong CSRF token: reload the page and try again")
        if form.get("confirm") != "yes":
            raise StarletteHTTPException(400, "the action was not confirmed")
        return form

    # --- errors: a clear message, never a traceback ---------------------------------------------------

    def failure(request: Request, status: int, message: str) -> Response:
        if wants_json(request):
            return JSONResponse({"detail": message}, status_code=status)
        if not hasattr(request.state, "csrf"):
            request.state.csrf = ""
        return page(request, "error.html", status=status, status_code=status, message=message)

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> Response:
        return failure(request, 404, str(exc))

    @app.exception_handler(ValueError)
    async def _bad_value(request: Request, exc: ValueError) -> Response:
        return failure(request, 400, str(exc))

    @app.exception_handler(VfsFileNotFoundError)
    async def _no_file(request: Request, exc: VfsFileNotFoundError) -> Response:
        return failure(request, 404, str(exc))

    @app.exception_handler(BackendUnavailable)
    @app.exception_handler(ConnectionFailure)  # the console's own reads: PyMongo found no server in time
    async def _unavailable(request: Request, exc: Exception) -> Response:
        log.warning("console request %s: the store did not answer (%s)", request.url.path, type(exc).__name__)
        return failure(request, 503, "the store did not answer; try again")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        return failure(request, exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return failure(request, 422, f"invalid request: {problems}")

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        reference = uuid.uuid4().hex[:12]
        log.error("console request %s failed (reference %s): %s", request.url.path, reference, type(exc).__name__)
        log.debug("console failure %s", reference, exc_info=exc)
        return failure(request, 500, f"internal error (reference {reference}; details are in the console's log)")

    # --- static files ---------------------------------------------------------------------------------

    pygments_css = HtmlFormatter(cssclass="hl").get_style_defs(".hl")
    static = {
        "console.css": ("text/css", _resource("console.css") + pygments_css),
        "signals.js": ("text/javascript", _resource("signals.js")),
    }

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str) -> Response:
        if name not in static:
            raise NotFound(f"no static file {name!r}")
        media, body = static[name]
        return Response(body, media_type=media, headers={"Cache-Control": "max-age=3600"})

    # --- pages ------------------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def home() -> Response:
        return RedirectResponse("/sessions", status_code=303)

    @app.get("/sessions", include_in_schema=False)
    def sessions_page(request: Request, after: str = "", limit: Page = DEFAULT_PAGE) -> Response:
        rows, next_after = data.sessions(after, limit)
        return page(request, "sessions.html", rows=rows, next_after=next_after, server_time=data.server_time())

    @app.get("/session", include_in_schema=False)
    def session_page(request: Request, id: str) -> Response:
        row = data.session(require_id(id, "id"))
        return page(request, "session.html", row=row, server_time=data.server_time())

    @app.get("/quarantine", include_in_schema=False)
    def quarantine_page(
        request: Request, session: str | None = None, after: str | None = None, limit: Page = DEFAULT_PAGE
    ) -> Response:
        entries, next_after = data.quarantine(session or None, after, limit)
        return page(request, "quarantine.html", entries=entries, next_after=next_after, session=session or "")

    @app.get("/quarantine/entry", include_in_schema=False)
    def quarantine_entry_page(request: Request, id: str) -> Response:
        entry = data.quarantined(id)
        return page(request, "quarantine_entry.html", entry=entry, raw=raw_json(entry))

    def carry_out(action: str, form: dict[str, str]) -> str:
        """Run a confirmed quarantine action; the sentence the done page shows."""
        quarantine_id = form.get("id", "")
        if action == "replay":
            new_id = data.replay(quarantine_id, form.get("corrected", "").strip() or None)
            return f"replayed {quarantine_id} as inbox entry {new_id}"
        data.delete_quarantined(quarantine_id)
        return f"deleted quarantined entry {quarantine_id}"

    def write_routes(action: str) -> None:
        @app.get(f"/quarantine/{action}", include_in_schema=False)
        def confirm(request: Request, id: str) -> Response:
            entry = data.quarantined(id)
            return page(request, "confirm.html", entry=entry, action=action, raw=raw_json(entry))

        @app.post(f"/quarantine/{action}", include_in_schema=False)
        async def act(request: Request) -> Response:
            form = await checked_form(request)
            return page(request, "done.html", message=await run_in_threadpool(carry_out, action, form))

    if settings.allow_writes:
        for action in WRITE_ACTIONS:
            write_routes(action)

    @app.get("/snapshots", include_in_schema=False)
    def snapshots_page(
        request: Request, context: str | None = None, offset: Offset = 0, limit: Page = DEFAULT_PAGE
    ) -> Response:
        entries, more = data.snapshots(context, offset, limit)
        return page(
            request, "snapshots.html", entries=entries, more=more, offset=offset, limit=limit, context=context or ""
        )

    @app.get("/snapshots/view", include_in_schema=False)
    def transcript_page(request: Request, task: str, offset: Offset = 0, limit: Page = 200) -> Response:
        envelope, snapshot = data.transcript(require_id(task, "task"))
        messages = snapshot.messages
        return page(
            request,
            "transcript.html",
            task_id=task,
            envelope=envelope,
            snapshot=snapshot,
            messages=[_message_view(m) for m in messages[offset : offset + limit]],
            offset=offset,
            limit=limit,
            total=len(messages),
            rewind_at=snapshot.rewind_message_count,
            rewind_text=None if snapshot.rewind_point is None else snapshot.rewind_point.user_input.as_text(),
        )

    @app.get("/files", include_in_schema=False)
    def files_page(request: Request, path: str = "", offset: Offset = 0, limit: Page = 100) -> Response:
        path = _dir_path(path)
        children, total = data.listing(path, offset, limit)
        return page(
            request,
            "files.html",
            path=path,
            crumbs=_crumbs(path),
            children=children,
            total=total,
            offset=offset,
            limit=limit,
            usage=data.usage(path),
        )

    @app.get("/files/view", include_in_schema=False)
    def file_page(request: Request, path: str) -> Response:
        path = validate_file_path(path)
        info = data.info(path)
        if info.is_dir:
            return RedirectResponse(f"/files?{urllib.parse.urlencode({'path': path})}", status_code=303)
        image = (info.mime or "") in INLINE_IMAGE_TYPES
        code = None if image else _highlighted(path, data.read(path, TEXT_PREVIEW_BYTES))
        return page(
            request,
            "file.html",
            info=info,
            crumbs=_crumbs(path),
            image=image,
            code=code,
            truncated=info.size > TEXT_PREVIEW_BYTES,
        )

    @app.get("/files/raw", include_in_schema=False)
    def file_raw(path: str, download: bool = False) -> Response:
        path = validate_file_path(path)
        info = data.info(path)
        if info.is_dir:
            raise ValueError(f"{path!r} is a directory")
        inline = not download and (info.mime or "") in INLINE_IMAGE_TYPES
        name = urllib.parse.quote(path.rsplit("/", 1)[-1], safe="")
        return Response(
            data.read(path),
            media_type=info.mime if inline else "application/octet-stream",
            headers={
                "Content-Disposition": f"{'inline' if inline else 'attachment'}; filename*=UTF-8''{name}",
                "Content-Security-Policy": "sandbox; default-src 'none'",
            },
        )

    @app.get("/files/fsck", include_in_schema=False)
    def fsck_page(request: Request) -> Response:
        return page(request, "fsck.html", report=data.fsck())

    @app.get("/tasks", include_in_schema=False)
    def tasks_page(
        request: Request, state: str = "", owner: str = "", offset: Offset = 0, limit: Page = DEFAULT_PAGE
    ) -> Response:
        tasks, more = data.tasks(_task_query(state, owner), offset, limit)
        return page(
            request,
            "tasks.html",
            tasks=tasks,
            more=more,
            offset=offset,
            limit=limit,
            state=state,
            owner=owner,
            states=[s.value for s in TaskState],
        )

    @app.get("/signals", include_in_schema=False)
    def signals_page(request: Request, session: str = "") -> Response:
        if session:
            require_id(session, "session")
        return page(request, "signals.html", session=session)

    @app.get("/signals/stream", include_in_schema=False)
    async def signals_stream(request: Request, session: str) -> Response:
        require_id(session, "session")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[SessionSignal] = asyncio.Queue(maxsize=1000)

        def offer(signal: SessionSignal) -> None:
            if not queue.full():
                queue.put_nowait(signal)

        def handler(signal: SessionSignal) -> None:
            loop.call_soon_threadsafe(offer, signal)

        subscription = await run_in_threadpool(data.backends.signals.subscribe, session, handler)

        async def events() -> AsyncIterator[str]:
            try:
                with tails.open() as stopping:
                    yield ": connected\n\n"
                    idle = 0
                    while not stopping.is_set() and not await request.is_disconnected():
                        signal = await _next_signal(queue, stopping, 1.0)
                        if signal is None:
                            idle += 1
                            if idle % 15 == 0 and not stopping.is_set():
                                yield ": keep-alive\n\n"
                            continue
                        yield f"event: signal\ndata: {json.dumps(_signal_json(signal), ensure_ascii=False)}\n\n"
            finally:
                await run_in_threadpool(subscription.unsubscribe)

        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    # --- JSON API -----------------------------------------------------------------------------------

    @app.get("/api/server", response_model=api.ServerView, tags=["console"])
    def api_server() -> api.ServerView:
        """The server's clock (which decides lease expiry) and whether this console may write."""
        return api.ServerView(server_time=data.server_time(), allow_writes=settings.allow_writes, node_id=data.node_id)

    @app.get("/api/sessions", response_model=api.SessionPage, tags=["sessions"])
    def api_sessions(after: str = "", limit: Page = DEFAULT_PAGE) -> api.SessionPage:
        """Sessions with waiting or quarantined entries or a lease record, after session id ``after``."""
        rows, next_after = data.sessions(after, limit)
        return api.SessionPage(
            server_time=data.server_time(), items=[api.SessionView(**row) for row in rows], next_after=next_after
        )

    @app.get("/api/session", response_model=api.SessionDetail, tags=["sessions"])
    def api_session(id: str) -> api.SessionDetail:
        """One session: inbox depth per priority, lease, its claimed entries (holder's claim token, attempts)
        and its next 100 waiting entries."""
        row: dict[str, Any] = dict(data.session(require_id(id, "id")))
        batch = row.pop("waiting")
        waiting = [
            api.WaitingEntry(
                id=m.id,
                priority=m.priority.name,
                delivered_at=m.delivered_at,
                initiator=f"{m.initiator.type.value}:{m.initiator.id}",
                agent_ref=m.agent_ref,
                text=m.user_input.as_text(),
            )
            for m in batch.messages
        ]
        return api.SessionDetail(**row, waiting=waiting, unreadable=[u.reason for u in batch.unreadable])

    @app.get("/api/quarantine", response_model=api.QuarantinePage, tags=["quarantine"])
    def api_quarantine(
        session: str | None = None, after: str | None = None, limit: Page = DEFAULT_PAGE
    ) -> api.QuarantinePage:
        """Quarantined entries oldest first, of one session or all, after quarantine id ``after``."""
        entries, next_after = data.quarantine(session or None, after, limit)
        return api.QuarantinePage(items=[_quarantine_view(e) for e in entries], next_after=next_after)

    @app.get("/api/quarantine/entry", response_model=api.QuarantineDetail, tags=["quarantine"])
    def api_quarantine_entry(id: str) -> api.QuarantineDetail:
        """One quarantined entry with its raw stored document (relaxed Extended JSON)."""
        entry = data.quarantined(id)
        return api.QuarantineDetail(**_quarantine_view(entry).model_dump(), raw=json.loads(raw_json(entry)))

    @app.get("/api/snapshots", response_model=api.SnapshotPage, tags=["snapshots"])
    def api_snapshots(context: str | None = None, offset: Offset = 0, limit: Page = DEFAULT_PAGE) -> api.SnapshotPage:
        """Stored snapshots (optionally of one context id)."""
        entries, more = data.snapshots(context, offset, limit)
        items = [api.SnapshotView(**e.model_dump()) for e in entries]
        return api.SnapshotPage(items=items, offset=offset, has_more=more)

    @app.get("/api/transcript", response_model=api.TranscriptView, tags=["snapshots"])
    def api_transcript(task: str) -> api.TranscriptView:
        """A snapshot's transcript as rendered lines (roles, text, tool calls and results, artifacts)."""
        envelope, snapshot = data.transcript(require_id(task, "task"))
        return api.TranscriptView(
            task_id=task,
            subagent_name=envelope.subagent_name,
            context_id=envelope.context_id,
            session_id=snapshot.session_id,
            message_count=snapshot.message_count,
            rewind_message_count=snapshot.rewind_message_count,
            lines=[api.TranscriptLine(kind=line.kind.value, text=line.text) for line in render_lines(snapshot)],
        )

    @app.get("/api/files", response_model=api.FilePage, tags=["files"])
    def api_files(path: str = "", offset: Offset = 0, limit: Page = 100) -> api.FilePage:
        """A page of a directory's children (directories first)."""
        path = _dir_path(path)
        children, total = data.listing(path, offset, limit)
        return api.FilePage(path=path, items=[_file_view(i) for i in children], offset=offset, total=total)

    @app.get("/api/files/info", response_model=api.FileView, tags=["files"])
    def api_file_info(path: str) -> api.FileView:
        """What the filesystem knows about one file or directory."""
        return _file_view(data.info(validate_path(path)))

    @app.get("/api/usage", response_model=api.UsageView, tags=["files"])
    def api_usage(path: str = "") -> api.UsageView:
        """Bytes, files and directories below ``path``."""
        path = _dir_path(path)
        return api.UsageView(path=path, **data.usage(path).model_dump())

    @app.get("/api/fsck", tags=["files"])
    def api_fsck() -> dict[str, Any]:
        """The GridFS bucket check (nothing is repaired)."""
        report = data.fsck()
        return {**report.model_dump(mode="json"), "clean": report.clean}

    @app.get("/api/tasks", response_model=api.TaskPage, tags=["tasks"])
    def api_tasks(state: str = "", owner: str = "", offset: Offset = 0, limit: Page = DEFAULT_PAGE) -> api.TaskPage:
        """Task records by state and owner (``TYPE:id``)."""
        tasks, more = data.tasks(_task_query(state, owner), offset, limit)
        items = [
            api.TaskView(
                task_id=t.task_id,
                subagent_name=t.subagent_name,
                state=t.state.value,
                owner=None if t.owner is None else f"{t.owner.type.value}:{t.owner.id}",
                context_id=t.agent_runtime_id,
                start_time=t.start_time,
                end_time=t.end_time,
                description=t.description or None,
            )
            for t in tasks
        ]
        return api.TaskPage(items=items, offset=offset, has_more=more)

    return app


# --- helpers (pure) -----------------------------------------------------------------------------------


def _supplied_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.query_params.get("token") or request.cookies.get(TOKEN_COOKIE)


def _harden(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"  # "no-referrer" would make form posts say Origin: null
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _resource(name: str) -> str:
    from importlib.resources import files

    return (files("aimon_mongo.console") / "static" / name).read_text(encoding="utf-8")


def _dir_path(path: str) -> str:
    """A validated directory path, ``""`` for the root (no ``..``, no absolute path, no backslash)."""
    path = path.strip("/") if path in ("", "/", ".") else path
    return "" if path in ("", ".") else validate_path(path).rstrip("/")


def _crumbs(path: str) -> list[tuple[str, str]]:
    """``(name, path)`` of each ancestor directory of ``path`` and of ``path`` itself."""
    parts = [p for p in path.split("/") if p]
    return [(name, "/".join(parts[: i + 1])) for i, name in enumerate(parts)]


def _task_query(state: str, owner: str) -> TaskQuery | None:
    if not state and not owner:
        return None
    try:
        task_state = TaskState(state) if state else None
    except ValueError:
        raise ValueError(f"unknown task state {state!r} (one of {', '.join(s.value for s in TaskState)})") from None
    principal = None
    if owner:
        kind, _, owner_id = owner.partition(":")
        try:
            principal = Principal(type=PrincipalType(kind), id=owner_id, display_name=owner_id)
        except ValueError:
            raise ValueError(f"owner {owner!r} is not TYPE:id (TYPE one of {', '.join(PrincipalType)})") from None
    return TaskQuery(state=task_state, owner=principal)


def _highlighted(path: str, data: bytes) -> Markup | None:
    """The file's text highlighted by pygments (which escapes it), or ``None`` when it is not text."""
    if b"\x00" in data[:8192]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = data[:-3].decode("utf-8") if len(data) >= TEXT_PREVIEW_BYTES else ""
        except UnicodeDecodeError:
            return None
        if not text:
            return None
    try:
        lexer = get_lexer_for_filename(path.rsplit("/", 1)[-1], stripnl=False)
    except ClassNotFound:
        lexer = TextLexer(stripnl=False)
    return Markup(highlight(text, lexer, HtmlFormatter(cssclass="hl")))


def _message_view(message: Message) -> dict[str, Any]:
    """What the transcript template shows of one message (images as ``data:`` URIs of allowed types)."""
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            blocks.append({"kind": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            if block.data is not None and block.mime_type in INLINE_IMAGE_TYPES:
                uri = f"data:{block.mime_type};base64,{base64.b64encode(block.data).decode('ascii')}"
                blocks.append({"kind": "image", "src": uri, "mime": block.mime_type, "size": len(block.data)})
            else:
                where = "inline" if block.data is not None else f"at {block.url}"
                blocks.append({"kind": "note", "text": f"[image {block.mime_type} {where}, not shown]"})
        elif isinstance(block, DocumentBlock):
            name = block.file_name or "document"
            blocks.append({"kind": "note", "text": f"[document {name}, {block.mime_type}, {len(block.data)} bytes]"})
    return {
        "role": message.role.value,
        "blocks": blocks,
        "tool_uses": [
            {"id": u.id, "name": u.name, "input": json.dumps(u.input, indent=2, ensure_ascii=False)}
            for u in message.tool_uses
        ],
        "tool_results": [
            {"id": r.tool_use_id, "content": r.content, "is_error": r.is_error} for r in message.tool_results
        ],
        "artifacts": [
            {"path": a.path, "name": a.file_name, "size": a.size, "mime": a.mime_type} for a in message.artifacts
        ],
    }


def _quarantine_view(entry: QuarantinedEntry) -> api.QuarantineView:
    return api.QuarantineView(
        id=entry.id,
        session_id=entry.session_id,
        entry_id=entry.entry_id,
        error=entry.error,
        quarantined_at=entry.quarantined_at,
    )


def _file_view(info: FileInfo) -> api.FileView:
    return api.FileView(
        path=info.path, is_dir=info.is_dir, size=info.size, modified=info.modified, mime=info.mime, etag=info.etag
    )


def _signal_json(signal: SessionSignal) -> dict[str, Any]:
    return {
        "session_id": signal.session_id,
        "kind": signal.kind.value,
        "origin_node_id": signal.origin_node_id,
        "payload": signal.payload,
    }


def _when(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def _size(value: int | None) -> str:
    if value is None:
        return ""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value = value / 1024  # type: ignore[assignment]
    return str(value)

"""Local MongoDB stand-ins for tests, the demo and the examples.

No MongoDB server package installs on our machines, so tests talk to MongoDB wire-protocol servers run
as separate processes from their own virtual environments (like a ``mongod`` binary would be):

* **mongoeco** (memory or SQLite engine) — needs Python >= 3.13; everything but change streams.
* **SecantusDB** (``secantusd-py``) — a single-node replica set with change streams; slow
  ``findAndModify``, so only the change-stream tests use it.

For the test suite ``MONGODB_URI`` set means "use this real deployment instead" (see :func:`configured_uri`);
the demo and the examples follow the library's precedence (:func:`mongodb_or_standin`). ``aimon-mongo
standin serve`` / ``python -m aimon_mongo.standin serve`` run one by hand (:mod:`aimon_mongo.standin.cli`).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Literal

from aimon_mongo.connection import resolve_mongodb_uri
from aimon_mongo.errors import AimonStorageError

log = logging.getLogger(__name__)

MONGOECO_VERSION = "4.11.0"
# mongoeco's wire server encodes BSON with PyMongo's bson package (an optional dependency of mongoeco).
MONGOECO_BSON_PYMONGO_VERSION = "4.20.1"
SECANTUS_VERSION = "0.7.0b3"
_SERVER_SCRIPT = Path(__file__).with_name("server.py")
_START_TIMEOUT = 60.0

Engine = Literal["memory", "sqlite"]


class StandinError(AimonStorageError):
    """The local stand-in could not be set up or started; the message says what to install or check."""


def configured_uri() -> str | None:
    """The real deployment the test suite and the benchmarks use instead of a stand-in (``MONGODB_URI``)."""
    return os.environ.get("MONGODB_URI") or None


def standin_home() -> Path:
    """Where the stand-ins' virtual environments live.

    ``AIMON_STANDIN_HOME`` wins; in a source checkout it is the checkout itself (``.venv-mongo-standin/``
    is git-ignored); otherwise ``~/.cache/aimon-mongo``.
    """
    override = os.environ.get("AIMON_STANDIN_HOME")
    if override:
        return Path(override)
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "aimon_mongo").is_dir():
        return checkout
    return Path.home() / ".cache" / "aimon-mongo"


def find_python_313() -> str | None:
    """A Python >= 3.13 interpreter: ``python3.13``/``python3.14`` on PATH, then pyenv's versions."""
    candidates: list[str] = []
    for name in ("python3.13", "python3.14"):
        found = shutil.which(name)
        if found:
            candidates.append(found)
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    for pattern in ("3.13*", "3.14*", "3.15*"):
        candidates.extend(sorted(glob.glob(os.path.join(pyenv_root, "versions", pattern, "bin", "python3"))))
    for candidate in candidates:
        if _runs_python_313(candidate):
            return candidate
    return None


def _runs_python_313(executable: str) -> bool:
    env = {k: v for k, v in os.environ.items() if k != "PYENV_VERSION"}
    try:
        result = subprocess.run(
            [executable, "-c", "import sys; sys.exit(0 if sys.version_info >= (3, 13) else 1)"],
            capture_output=True,
            timeout=30,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ensure_venv(venv: Path, python: str, requirements: list[str]) -> Path:
    """Create ``venv`` with ``python`` and install ``requirements`` once (cached by a stamp file)."""
    requirement = " ".join(requirements)
    exe = venv / "bin" / "python"
    stamp = venv / ".aimon-installed"
    with _file_lock(venv.parent / f".{venv.name}.lock"):
        if exe.exists() and stamp.is_file() and stamp.read_text().strip() == requirement:
            return exe
        log.info("creating stand-in environment %s (%s)", venv, requirement)
        if venv.exists():
            shutil.rmtree(venv)
        _run([python, "-m", "venv", str(venv)], f"create the virtual environment {venv}")
        _run(
            [str(exe), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
            f"install {requirement} into {venv}",
        )
        stamp.write_text(requirement + "\n")
    return exe


def _run(cmd: list[str], what: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYENV_VERSION"}
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        raise StandinError(f"could not {what}: " + " | ".join(tail))


def ensure_mongoeco() -> Path:
    """The interpreter of the mongoeco environment, creating it on first use."""
    python = find_python_313()
    if python is None:
        raise StandinError(
            "the MongoDB stand-in (mongoeco) needs Python >= 3.13, and none was found "
            "(looked for python3.13/python3.14 on PATH and under $PYENV_ROOT/versions). Install one, "
            "e.g. 'pyenv install 3.13', or set MONGODB_URI to a real MongoDB deployment."
        )
    return _ensure_venv(
        standin_home() / ".venv-mongo-standin",
        python,
        [f"mongoeco=={MONGOECO_VERSION}", f"pymongo=={MONGOECO_BSON_PYMONGO_VERSION}"],
    )


def ensure_secantus() -> Path:
    """The ``secantusd-py`` command of the SecantusDB environment, creating it on first use."""
    exe = _ensure_venv(standin_home() / ".venv-secantus", sys.executable, [f"secantusdb=={SECANTUS_VERSION}"])
    return exe.with_name("secantusd-py")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class StandinServer:
    """One stand-in server process. Use as a context manager, or call :meth:`start` / :meth:`stop`.

    ``kind="mongoeco"`` (default) takes ``engine`` ``"memory"`` or ``"sqlite"`` (then ``path`` is the
    database file, which survives restarts); ``kind="secantus"`` starts a SecantusDB replica set with
    change streams. ``port=0`` picks a free port; pass the previous port to restart on the same address.
    ``refuse_transactions=True`` (mongoeco only) makes it answer transactions the way a standalone
    ``mongod`` does (code 20), for the paths that fall back when a deployment has none.
    """

    def __init__(
        self,
        kind: Literal["mongoeco", "secantus"] = "mongoeco",
        *,
        engine: Engine = "memory",
        path: str | os.PathLike[str] | None = None,
        port: int = 0,
        host: str = "127.0.0.1",
        refuse_transactions: bool = False,
    ) -> None:
        self.kind = kind
        self.refuse_transactions = refuse_transactions
        self.engine = engine
        self.path = None if path is None else str(path)
        self.port = port
        self.host = host
        self.uri: str | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None

    def start(self) -> str:
        """Start the server and wait until it answers ``ping``; returns its URI."""
        if self._proc is not None:
            raise StandinError("stand-in already started")
        if self.kind == "mongoeco":
            self.uri = self._start_mongoeco()
        else:
            self.uri = self._start_secantus()
        self._wait_for_ping(self.uri)
        log.info("%s stand-in ready at %s (pid %s)", self.kind, self.uri, self.pid)
        return self.uri

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def exited(self) -> bool:
        """True when the started server process has ended on its own."""
        return self._proc is not None and self._proc.poll() is not None

    @property
    def returncode(self) -> int | None:
        """The server process's exit code once it ended (``None`` while it runs or before it started)."""
        return None if self._proc is None else self._proc.poll()

    def _spawn(self, cmd: list[str]) -> subprocess.Popen[str]:
        env = {k: v for k, v in os.environ.items() if k != "PYENV_VERSION"}
        return subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )

    def _start_mongoeco(self) -> str:
        exe = ensure_mongoeco()
        cmd = [str(exe), str(_SERVER_SCRIPT), "--host", self.host, "--port", str(self.port), "--engine", self.engine]
        if self.engine == "sqlite":
            if self.path is None:
                raise StandinError("the sqlite engine needs a database file path")
            cmd += ["--path", self.path]
        if self.refuse_transactions:
            cmd.append("--refuse-transactions")
        self._proc = self._spawn(cmd)
        assert self._proc.stdout is not None
        line = _read_ready_line(self._proc.stdout, _START_TIMEOUT)
        if line is None:
            output = self._abort()
            raise StandinError(f"mongoeco stand-in did not start: {output[-500:]}")
        uri = line.split(None, 1)[1].strip()
        self.port = int(uri.rsplit(":", 1)[1].split("/", 1)[0])
        self._drain_output()
        return uri

    def _start_secantus(self) -> str:
        exe = ensure_secantus()
        if self.port == 0:
            self.port = free_port()
        storage = self.path or ":memory:"
        cmd = [
            str(exe),
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--storage-path",
            storage,
            "--log-level",
            "WARNING",
        ]
        self._proc = self._spawn(cmd)
        self._drain_output()
        return f"mongodb://{self.host}:{self.port}/?directConnection=true"

    def _drain_output(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        stream = proc.stdout

        def drain() -> None:
            for _ in stream:
                pass

        self._drain = threading.Thread(target=drain, name=f"standin-{self.kind}-output", daemon=True)
        self._drain.start()

    def _wait_for_ping(self, uri: str) -> None:
        from pymongo.errors import PyMongoError

        from aimon_mongo.mongo.clients import mongo_client

        deadline = time.monotonic() + _START_TIMEOUT
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.poll() is not None:
                raise StandinError(f"{self.kind} stand-in exited with code {self._proc.returncode}")
            try:
                with mongo_client(uri, timeout_ms=1000) as client:
                    client.admin.command("ping")
                    return
            except PyMongoError as exc:
                last = exc
                time.sleep(0.1)
        self._abort()
        raise StandinError(f"{self.kind} stand-in at {uri} did not answer ping: {last}")

    def _abort(self) -> str:
        proc = self._proc
        self._proc = None
        if proc is None:
            return ""
        proc.kill()
        out, _ = proc.communicate(timeout=10)
        return out or ""

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout``). Idempotent."""
        proc = self._proc
        self._proc = None
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=timeout)
        if self._drain is not None:
            self._drain.join(timeout=5)

    def __enter__(self) -> StandinServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _read_ready_line(stream: IO[str], timeout: float) -> str | None:
    result: list[str] = []

    def reader() -> None:
        for line in stream:
            if line.startswith("READY "):
                result.append(line)
                return

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    thread.join(timeout)
    return result[0] if result else None


@contextlib.contextmanager
def mongodb_or_standin(
    uri: str | None = None, *, data_file: str | os.PathLike[str] | None = None
) -> Iterator[tuple[str, StandinServer | None]]:
    """``(uri, None)`` for ``uri``, else ``AIMON_MONGODB_URI``, else ``MONGODB_URI``
    (:func:`~aimon_mongo.connection.resolve_mongodb_uri`); with none of them ``(its uri, server)`` of a
    mongoeco stand-in started for the block and stopped after it (what the demo and the examples run on).
    ``data_file``: the stand-in keeps its databases in that SQLite file (they survive the block)."""
    chosen = resolve_mongodb_uri(uri)
    if chosen:
        yield chosen, None
        return
    server = StandinServer() if data_file is None else StandinServer(engine="sqlite", path=data_file)
    started = server.start()
    try:
        yield started, server
    finally:
        server.stop()

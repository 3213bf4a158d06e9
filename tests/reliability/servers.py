"""Private servers a test may stop and restart: Redis, a PostgreSQL cluster, the MongoDB stand-in on SQLite.

Each one runs on its own free port with its own temporary directory (never the shared servers on
5432/6379), keeps its data across :meth:`stop` / :meth:`start` on the same port, and :meth:`destroy`
stops it and removes the directory (call it in a ``finally``). PostgreSQL refuses to run as root, so
as root its binaries run as the ``postgres`` user (``runuser``) and the directory is given to that user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import psycopg.sql
import redis

from aimon_mongo.standin import StandinServer, free_port

START_TIMEOUT = 30.0
TERM_REPEAT = 0.5


class PrivateServerError(RuntimeError):
    """A private server could not be set up, started or stopped (the message says which and why)."""


class PrivateRedis:
    """``redis-server`` with AOF on every write (``appendfsync always``): a restart keeps every reply.

    ``replica_of`` (a port on 127.0.0.1) starts it as a replica of that server; ``extra`` adds
    ``redis-server`` options (e.g. ``("--cluster-enabled", "yes")``).
    """

    def __init__(self, replica_of: int | None = None, extra: tuple[str, ...] = ()) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="aimon-redis-"))
        self.port = free_port()
        self.replica_of = replica_of
        self.extra = extra
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise PrivateServerError("redis-server is not on PATH")
        cmd = [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
               "--appendonly", "yes", "--appendfsync", "always", "--save", "",
               "--daemonize", "no", "--logfile", str(self.dir / "redis.log"), *self.extra]  # fmt: skip
        if self.replica_of is not None:
            cmd += ["--replicaof", "127.0.0.1", str(self.replica_of)]
        self._proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise PrivateServerError(f"redis-server exited with {self._proc.returncode}: {self._log_tail()}")
            client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
            try:
                if client.ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
            finally:
                client.close()
        raise PrivateServerError(f"redis-server on port {self.port} did not answer PING: {self._log_tail()}")

    def stop(self) -> None:
        """SIGTERM: Redis finishes the command it runs, fsyncs the AOF and exits."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _terminate(proc)

    def kill(self) -> None:
        """SIGKILL: the process dies at once, as a crashed primary does."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=START_TIMEOUT)

    def destroy(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.dir / "redis.log").read_text()[-500:]
        return "<no log>"


class PrivatePostgres:
    """A cluster made by ``initdb`` (trust auth) in a temp dir, started and stopped with ``pg_ctl``.

    ``replica_of``: instead of ``initdb``, a streaming standby of that (running) cluster, made by
    ``pg_basebackup -R`` (``primary_conninfo`` and ``standby.signal`` written for it); :meth:`start` it.
    The failover steps: :meth:`cut_replication` (on the standby), :meth:`kill` (on the primary),
    :meth:`promote` (on the standby).
    """

    def __init__(self, replica_of: PrivatePostgres | None = None) -> None:
        self.bin = _postgres_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="aimon-pg-"))
        self.data = self.dir / "data"
        self.sockets = self.dir / "sock"
        self.port = free_port()
        self.sockets.mkdir()
        self._user = "postgres" if os.geteuid() == 0 else None
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            for path in (self.dir, self.sockets):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        if replica_of is None:
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        else:
            self._run("pg_basebackup", "-D", str(self.data), "-R", "-X", "stream", "-c", "fast", "--no-sync",
                      "-h", "127.0.0.1", "-p", str(replica_of.port), "-U", "postgres")  # fmt: skip

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "pg.log"), "-w",
                  "-t", str(int(START_TIMEOUT)), "start")  # fmt: skip
        with psycopg.connect(self.dsn, connect_timeout=5) as conn:
            conn.execute("SELECT 1")

    def stop(self) -> None:
        """``pg_ctl stop -m fast``: open transactions roll back, then a clean shutdown checkpoint."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", str(int(START_TIMEOUT)), "stop")

    def kill(self) -> None:
        """``pg_ctl stop -m immediate``: every process ends at once, no shutdown checkpoint (a crash)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", str(int(START_TIMEOUT)), "stop")

    def promote(self) -> None:
        """``pg_ctl promote -w`` on a standby: it replays what it received, then accepts writes."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", str(int(START_TIMEOUT)), "promote")

    def configure(self, **settings: str) -> None:
        """``ALTER SYSTEM SET`` each setting, then reload the configuration."""
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
            for name, value in settings.items():
                conn.execute(psycopg.sql.SQL("ALTER SYSTEM SET {} = {}").format(
                    psycopg.sql.Identifier(name), psycopg.sql.Literal(value)))  # fmt: skip
            conn.execute("SELECT pg_reload_conf()")

    def cut_replication(self) -> None:
        """On a standby: ``primary_conninfo`` pointed at nothing, then a reload, so the walreceiver stops
        and nothing more streams in (the partition); returns once no walreceiver runs."""
        auto = self.data / "postgresql.auto.conf"
        kept = [line for line in auto.read_text().splitlines() if not line.startswith("primary_conninfo")]
        auto.write_text("\n".join([*kept, "primary_conninfo = ''"]) + "\n")
        self._run("pg_ctl", "-D", str(self.data), "reload")
        self._wait("SELECT count(*) = 0 FROM pg_stat_wal_receiver", "the walreceiver to stop")

    def wait_streaming(self) -> None:
        """On a primary: until a standby streams from it (any ``sync_state``)."""
        self._wait("SELECT count(*) > 0 FROM pg_stat_replication WHERE state = 'streaming'", "a streaming standby")

    def wait_synchronous(self) -> None:
        """On a primary: until a standby streams with ``sync_state`` ``sync``."""
        self._wait("SELECT count(*) > 0 FROM pg_stat_replication WHERE sync_state = 'sync'", "a synchronous standby")

    def wait_replayed(self, primary: PrivatePostgres) -> None:
        """On a standby: until it replayed everything ``primary`` has written so far."""
        with psycopg.connect(primary.dsn, autocommit=True, connect_timeout=5) as conn:
            row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        lsn = row[0] if row else "0/0"
        self._wait(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn", f"replay up to {lsn}")

    def _wait(self, query: str, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
                row = conn.execute(query).fetchone()
            if row and row[0]:
                return
            time.sleep(0.05)
        raise PrivateServerError(f"PostgreSQL on port {self.port}: no {what} within {START_TIMEOUT} s")

    def destroy(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if self._user is not None:
            cmd = ["runuser", "-u", self._user, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False, cwd=self.dir)
        if done.returncode != 0:
            log = ""
            with contextlib.suppress(OSError):
                log = (self.dir / "pg.log").read_text()[-500:]
            raise PrivateServerError(f"{tool} failed ({done.returncode}): {done.stderr[-500:]} {log}")


class PrivateMongoStandin:
    """The mongoeco stand-in on its SQLite engine: data in a file that outlives the process."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="aimon-mongo-"))
        self.path = self.dir / "mongoeco.sqlite"
        self.port = 0
        self.uri = ""
        self._server: StandinServer | None = None

    def start(self) -> None:
        server = StandinServer("mongoeco", engine="sqlite", path=self.path, port=self.port)
        self.uri = server.start()
        self.port = server.port
        self._server = server

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()

    def destroy(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _postgres_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    if on_path is None:
        raise PrivateServerError("no pg_ctl under /usr/lib/postgresql/*/bin nor on PATH")
    return Path(on_path).parent


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, sent again every :data:`TERM_REPEAT` seconds until the process exits (Redis refuses a
    shutdown while it writes its initial AOF, "Writing initial AOF, can't exit.", and then ignores that
    signal); SIGKILL after :data:`START_TIMEOUT`."""
    deadline = time.monotonic() + START_TIMEOUT
    while proc.poll() is None and time.monotonic() < deadline:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=TERM_REPEAT)
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=START_TIMEOUT)


class PrivateRedisCluster:
    """A Redis Cluster of ``primaries`` private ``redis-server --cluster-enabled yes`` on loopback ports
    (no replicas, no AOF), its slots assigned by ``redis-cli --cluster create``; :meth:`destroy` stops all."""

    def __init__(self, primaries: int = 3) -> None:
        options = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--appendonly", "no",
                   "--cluster-node-timeout", "5000")  # fmt: skip
        self.nodes = [PrivateRedis(extra=(*options, "--cluster-port", str(free_port()))) for _ in range(primaries)]

    @property
    def ports(self) -> list[int]:
        return [node.port for node in self.nodes]

    def start(self) -> None:
        for node in self.nodes:
            node.start()
        cli = shutil.which("redis-cli")
        if cli is None:
            raise PrivateServerError("redis-cli is not on PATH")
        addresses = [f"127.0.0.1:{port}" for port in self.ports]
        cmd = [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise PrivateServerError(f"redis-cli --cluster create failed ({done.returncode}): {done.stdout[-500:]}")
        deadline = time.monotonic() + START_TIMEOUT
        for port in self.ports:
            client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
            try:
                while b"cluster_state:ok" not in client.execute_command("CLUSTER", "INFO"):
                    if time.monotonic() > deadline:
                        raise PrivateServerError(f"the cluster node on port {port} never reached cluster_state:ok")
                    time.sleep(0.05)
            finally:
                client.close()

    def destroy(self) -> None:
        for node in self.nodes:
            node.destroy()

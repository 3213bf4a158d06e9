"""The test's handle on one :mod:`tests.reliability.lease_worker` process (start, read events, stop)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 60.0
"""How long the test waits for one event of a worker: generous, the machine has two cores to share."""


class Worker:
    def __init__(self, proc: asyncio.subprocess.Process, name: str, stderr: Path) -> None:
        self.proc = proc
        self.name = name
        self.stderr = stderr

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _diagnosis(self) -> str:
        text = self.stderr.read_text(errors="replace") if self.stderr.exists() else ""
        return f"worker {self.name} (exit code {self.proc.returncode}); stderr tail:\n{text[-3000:]}"

    async def next_event(self, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        assert self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError:
            raise AssertionError(f"no event within {timeout} s from {self._diagnosis()}") from None
        if not line:
            await self.proc.wait()
            raise AssertionError(f"no more events from {self._diagnosis()}")
        event: dict[str, Any] = json.loads(line)
        return event

    async def wait_for(
        self, name: str, seen: list[dict[str, Any]] | None = None, timeout: float = WAIT_SECONDS
    ) -> dict[str, Any]:
        """Read events until one named ``name``; the ones before it are appended to ``seen``. ``timeout``
        bounds the wait for each event."""
        while True:
            event = await self.next_event(timeout)
            if event["event"] == name:
                return event
            if seen is not None:
                seen.append(event)

    async def go(self, session_id: str) -> None:
        """Start one round of the worker's script on ``session_id``."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"session": session_id}).encode() + b"\n")
        await self.proc.stdin.drain()

    async def close(self) -> None:
        """End the worker's input; it exits cleanly."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await self.wait_for("exit")
        code = await asyncio.wait_for(self.proc.wait(), WAIT_SECONDS)
        assert code == 0, self._diagnosis()

    async def stop(self) -> None:
        """Resume (if stopped) and kill the process if it is still running."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGCONT)
                self.proc.kill()
            await self.proc.wait()


@contextlib.asynccontextmanager
async def workers(specs: Sequence[dict[str, Any]], log_dir: Path) -> AsyncIterator[list[Worker]]:
    """Start one worker per spec (all at once) and wait until each is connected and ready; always stopped."""
    started: list[Worker] = []
    try:
        for spec in specs:
            stderr = log_dir / f"{spec['node']}.stderr"
            with stderr.open("wb") as err:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "tests.reliability.lease_worker", json.dumps(spec),
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err, cwd=ROOT,
                )  # fmt: skip
            started.append(Worker(proc, spec["node"], stderr))
        for worker in started:
            await worker.wait_for("ready")
        yield started
    finally:
        for worker in started:
            await worker.stop()

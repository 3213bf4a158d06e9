"""The installed wheel, as a new user gets it: every documented path works without the checkout.

The wheel is built from a copy of the sources, installed with every extra into a fresh virtual environment
outside the repository, and everything runs from an empty directory: the README snippet, the quickstart's
blocks (Python and shell), every example, ``aimon-mongo standin serve`` with the README's commands against
it, and ``aimon-mongo init-db --print-js``. The stand-in's own environment is created by the installed
package in a directory of this test (``AIMON_STANDIN_HOME``), the way a new machine would; pip's cache is
what makes a second run fast.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.examples.test_examples import EXPECTED

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = "all"  # every extra, through the "all" extra (README)
TIMEOUT = 900


def _blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def _commands(block: str) -> list[list[str]]:
    """The ``aimon-mongo`` lines of a shell block, comments dropped."""
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("aimon-mongo ")]


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (
        f"{shlex.join(cmd)} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    )
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], Path]]:
    """(the fresh environment's bin/, the environment to run in, an empty working directory)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "aimon_mongo", source / "aimon_mongo", ignore=shutil.ignore_patterns("__pycache__"))
    env = {
        k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI", "PYTHONPATH", "COLUMNS")
    }
    env["AIMON_STANDIN_HOME"] = str(base / "standin-home")  # the wheel creates the stand-in's environment
    started = time.monotonic()
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(base / "dist"), str(source)], base, env)
    wheel = next((base / "dist").glob("aimon_mongo-*.whl"))
    _run([sys.executable, "-m", "venv", str(base / "venv")], base, env)
    bin_dir = base / "venv" / "bin"
    _run([str(bin_dir / "python"), "-m", "pip", "install", "-q", f"{wheel}[{EXTRAS}]"], base, env, timeout=TIMEOUT)
    print(f"wheel built and installed in {time.monotonic() - started:.0f} s")
    empty = base / "empty"
    empty.mkdir()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    yield bin_dir, env, empty


@pytest.fixture(scope="module")
def served(installed: tuple[Path, dict[str, str], Path]) -> Iterator[str]:
    """``aimon-mongo standin serve`` of the installed wheel (its URI), stopped with Ctrl-C at the end."""
    bin_dir, env, empty = installed
    proc = subprocess.Popen(
        [str(bin_dir / "aimon-mongo"), "standin", "serve", "--port", "0", "--data", str(empty.parent / "data")],
        cwd=empty, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    started = time.monotonic()
    uri = proc.stdout.readline().strip()
    print(f"stand-in environment created and served in {time.monotonic() - started:.0f} s")
    assert uri.startswith("mongodb://"), proc.communicate(timeout=60)
    yield uri
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "stand-in stopped" in err, err


OWN_STANDIN = {"adk_on_host.py", "host_two_nodes.py", "openai_agents_on_host.py"}
"""Examples run on a stand-in of their own: the served one keeps its data in SQLite (``--data``), which runs
one transaction at a time, and the session host claims in concurrent transactions (docs/quickstart.md)."""


@pytest.mark.slow
def test_the_wheel_runs_every_documented_path(installed: tuple[Path, dict[str, str], Path], served: str) -> None:
    bin_dir, base_env, empty = installed
    python = str(bin_dir / "python")
    env = {**base_env, "AIMON_MONGODB_URI": served}
    started = time.monotonic()

    # the package carries what it needs: no checkout next to it
    location = _run([python, "-c", "import aimon_mongo; print(aimon_mongo.__file__)"], empty, env).stdout.strip()
    assert not Path(location).is_relative_to(ROOT), location
    assert (bin_dir.parent / "lib").exists() and location.startswith(str(bin_dir.parent))
    assert _run(["aimon-mongo", "--version"], empty, env).stdout.strip().startswith("aimon-mongo ")

    # README: the Python snippet, then the command block (its demo fills the databases the rest reads)
    readme = ROOT / "README.md"
    (snippet,) = _blocks(readme, "python")
    assert "fencing token:" in _run([python, "-c", snippet], empty, env).stdout
    command_block = next(b for b in _blocks(readme, "bash") if "aimon-mongo vfs tree" in b)
    commands = _commands(command_block)
    assert len(commands) >= 9
    outputs = {shlex.join(cmd): _run(cmd, empty, env).stdout for cmd in commands}
    assert "report.md" in outputs["aimon-mongo vfs tree workspace"]
    assert "c-1-turn-1" in outputs["aimon-mongo snapshots list --context agent:analyst:c-1"]
    lease = outputs["aimon-mongo leases show c-1"]
    assert "c-1" in lease and any(state in lease for state in ("held", "expired", "released")), lease

    # the quickstart: every Python block, then its shell block
    quickstart = ROOT / "docs" / "quickstart.md"
    for block in _blocks(quickstart, "python"):
        assert _run([python, "-c", block], empty, env).stdout.strip()
    shell = next(b for b in _blocks(quickstart, "bash") if "--db aimon_quickstart" in b)
    for cmd in _commands(shell):
        _run(cmd, empty, env)

    # every example, as a script copied next to nothing else
    examples = sorted((ROOT / "examples").glob("*.py"))
    assert sorted(p.name for p in examples) == sorted(EXPECTED)
    for script in examples:
        copy = empty / script.name
        shutil.copy2(script, copy)
        if script.name in OWN_STANDIN:  # offline: the example starts the in-memory stand-in itself
            alone = {k: v for k, v in env.items() if k not in ("AIMON_MONGODB_URI", "MONGODB_URI")}
            out = _run([python, str(copy)], empty, alone).stdout
            assert "MongoDB: local stand-in" in out
        else:
            out = _run([python, str(copy)], empty, env).stdout
            assert "MongoDB: AIMON_MONGODB_URI" in out
        for text in EXPECTED[script.name]:
            assert text in out, (script.name, text)
        copy.unlink()

    # the operator script is package data
    printed = Path(_run(["aimon-mongo", "init-db", "--print-js"], empty, env).stdout.strip())
    assert printed.is_relative_to(bin_dir.parent) and printed.read_bytes() == (ROOT / "db/mongodb/init.js").read_bytes()
    _run([python, "-m", "aimon_mongo.standin", "--help"], empty, env)
    assert sorted(p.name for p in empty.iterdir()) == []  # nothing written into the working directory
    print(f"wheel paths ran in {time.monotonic() - started:.0f} s")

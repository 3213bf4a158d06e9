"""Without an extra, one line names ``pip install 'aimon-mongo[X]'`` (README, "Extras").

Each case runs in a fresh interpreter whose ``sys.meta_path`` starts with a finder that refuses the extra's
package, as an interpreter without it installed would.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

_WITHOUT = """
import sys

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {missing!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""

_CATCH = """
try:
    import {package}
except ImportError as exc:
    from aimon_mongo.errors import MissingExtraError
    print(type(exc).__name__, isinstance(exc, ModuleNotFoundError), isinstance(exc, MissingExtraError), exc.name)
    print(exc)
"""


def run_without(missing: str, code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT.format(missing=missing) + code, *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("package", "missing", "extra"),
    [
        ("aimon_mongo.redis", "redis", "redis"),
        ("aimon_mongo.postgres", "psycopg", "postgres"),
        ("aimon_mongo.langgraph", "langchain_core", "langgraph"),
        ("aimon_mongo.langgraph", "langgraph", "langgraph"),
        ("aimon_mongo.adk", "google", "adk"),
    ],
)
def test_a_package_without_its_extra_raises_one_line_naming_it(package: str, missing: str, extra: str) -> None:
    done = run_without(missing, _CATCH.format(package=package))
    assert done.returncode == 0, done.stderr
    kind, message = done.stdout.strip().split("\n")
    assert kind.split()[:3] == ["MissingExtraError", "True", "True"]
    assert kind.split()[3].split(".")[0] == missing
    assert message.startswith(f"{package} needs the '{missing}")
    assert message.endswith(f"which is not installed: pip install 'aimon-mongo[{extra}]'")


def test_an_uncaught_missing_extra_ends_with_the_one_line() -> None:
    done = run_without("redis", "from aimon_mongo.redis import RedisSessionBackends")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "aimon_mongo.errors.MissingExtraError: aimon_mongo.redis needs the 'redis' package, which is not "
        "installed: pip install 'aimon-mongo[redis]'"
    )


@pytest.mark.parametrize("missing", ["typer", "rich"])
@pytest.mark.parametrize("argv", [["--version"], ["vfs", "ls"]])
def test_the_command_without_the_cli_extra_says_one_line_and_exits_3(missing: str, argv: list[str]) -> None:
    done = run_without(missing, "from aimon_mongo.cli_entry import run\nrun()", *argv)
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr == (
        f"aimon-mongo: error: the aimon-mongo command needs the {missing!r} package, which is not installed: "
        "pip install 'aimon-mongo[cli]'\n"
    )


def test_with_the_extras_installed_nothing_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import aimon_mongo.redis, aimon_mongo.postgres, aimon_mongo.langgraph"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr

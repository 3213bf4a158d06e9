"""Every script in ``examples/`` runs to the end as a real process (CI runs them through ``./dev test``).

They run against the test stand-in through ``MONGODB_URI``; one also runs with no URI at all, starting its
own stand-in the way a newcomer's first run does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
EXPECTED = {
    "adk_on_host.py": [
        "mid-turn (the held message's stored events then: ['user'])",
        "the held message was answered 1 time(s), by ['node-",
        "6 messages sent, 6 answered\n",
        "answered more than once: 0\n",
        "user messages stored more than once: 0\n",
        "history of trip-1: user > agent > user > agent > user > agent\n",
        "history of trip-2: user > agent > user > agent > user > agent\n",
        "notes saved as artifacts: 6, each saved once: True",
        "every message answered exactly once",
    ],
    "async_quickstart.py": ["; collected 1", "snapshot of task-1: 1 message, context agent:assistant:c-1"],
    "deepagents_files.py": [
        "tool edit_file: Successfully replaced 1 instance(s) of the string in '/notes/plan.md'",
        "- flights booked",
        "agent: The plan is in /notes/plan.md.",
        "in GridFS: deepagents/trip-1/notes/plan.md",
    ],
    "langgraph_chat.py": [
        "first process: 2 messages; assistant: Hello Ada! What shall we plan?",
        "second process resumed thread chat-1: 4 messages",
        "  human: Hi, I am Ada.",
        "  ai: Noted: a trip to Lisbon.",
    ],
    "host_two_nodes.py": [
        "node-a drained; node-b holds",
        "12 messages sent, 12 handled\n",
        "handled more than once: ",
        "after the drain every session runs on node-b: True",
    ],
    "openai_agents_on_host.py": [
        "hung in the model mid-turn: killed it with SIGKILL",
        "history of trip-1: 6 items\n",
        "history of trip-2: 4 items\n",
        "mid-turn; node-",
        " adopted trip-1 (attempt 2, fencing token ",
        "5 messages sent, 5 answered\n",
        "answered more than once: 0\n",
        "drained on SIGTERM with exit code 0",
    ],
    "browse_snapshots.py": ["2 snapshot(s)", "=== task-research-1 ===", "-> tool call list_files", "#0 USER"],
    "two_nodes_inbox.py": [
        "node-b woke up on MESSAGE_ENQUEUED",
        "node-a can take it too? None",
        "collect(max NOW): ['stop, urgent!']",
        "['NEXT: next question', 'LATER: tidy up later']",
        "node-a took over with fencing token ",
    ],
    "vfs_walkthrough.py": ["read back: second draft", "fsck clean: True", "fsspec read: id,value"],
}


def _run(script: Path, mongo_uri: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URI", "AIMON_MONGODB_URI")}
    if mongo_uri is not None:
        env["MONGODB_URI"] = mongo_uri
    return subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_every_example_is_checked() -> None:
    assert sorted(p.name for p in EXAMPLES) == sorted(EXPECTED)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_against_mongodb_uri(script: Path, mongo_uri: str) -> None:
    done = _run(script, mongo_uri)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "MongoDB: MONGODB_URI" in done.stdout
    for text in EXPECTED[script.name]:
        assert text in done.stdout, text


FRAMEWORK_EXAMPLES = {
    "langgraph_chat.py": "langgraph",
    "deepagents_files.py": "deepagents",
    "adk_on_host.py": "adk",
    "openai_agents_on_host.py": "openai-agents",
}
"""The examples that run an agent framework, and the extra that installs it."""


def test_the_framework_examples_say_what_they_need() -> None:
    for script in EXAMPLES:
        opening = script.read_text(encoding="utf-8").split('"""', 2)[1]
        extra = FRAMEWORK_EXAMPLES.get(script.name)
        if extra is not None:
            # the extra named in the install line (the extras test asks it to name every extra it imports)
            assert re.search(rf"pip install 'aimon-mongo\[([a-z-]+,)*{extra}(,[a-z-]+)*\]'", opening), script.name
            assert "Offline" in opening, script.name  # a scripted model: no key, no network


def test_example_starts_its_own_standin_without_a_uri() -> None:
    done = _run(ROOT / "examples" / "browse_snapshots.py", None)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "MongoDB: local stand-in" in done.stdout and "=== task-review-1 ===" in done.stdout

"""``schema_gate check`` encodes a sample with every pure codec and checks it against the declared roots, so a
key renamed in ``aimon_mongo/names.py`` alone is refused by the gate itself (not only by the tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from aimon_mongo.schema_gate import conformance_errors
from aimon_mongo.schema_gate.samples import codec_samples, sample_problems
from tests.schema_gate.conftest import REPO

SAMPLED_ROOTS = {
    "user-input",
    "submit-options",
    "inbox.json-envelope",
    "redis.inbox.stream-entry",
    "mongo.inbox.document",
    "mongo.inbox.payload",
    "redis.idempotency.value",
    "mongo.idempotency.document",
    "redis.signal.message",
    "mongo.signal.document",
    "redis.background-task.value",
    "mongo.background-task.document",
    "snapshot.document.v1",
    "snapshot.document.v2",
    "snapshot.segment-payload",
    "task-result.document",
}


def test_every_pure_codec_writes_a_sample_and_every_sample_conforms() -> None:
    samples = list(codec_samples())
    assert {root for root, _codec, _value in samples} == SAMPLED_ROOTS
    assert sample_problems(conformance_errors) == []


def test_a_drifted_sample_is_a_problem_naming_the_key_and_the_codec() -> None:
    def drifted() -> Iterator[tuple[str, str, object]]:
        yield "submit-options", "submit_options.encode", {"principal": {"type": "USER", "id": "u", "name": "U"}}

    [problem] = sample_problems(conformance_errors, drifted)
    assert problem.code == "codec-drift"
    assert "submit_options.encode" in str(problem)
    assert "$.principal.displayName: required key missing" in str(problem)
    assert "$.principal.name: key not declared" in str(problem)


def test_a_constant_renamed_in_names_alone_is_refused_by_the_gate(tmp_path: Path) -> None:
    copy = tmp_path / "aimon_mongo"
    shutil.copytree(REPO / "aimon_mongo", copy, ignore=shutil.ignore_patterns("__pycache__"))
    names = copy / "names.py"
    text = names.read_text(encoding="utf-8")
    renamed = text.replace('ENV_CONVERSATION_ID: Final = "conversationId"', 'ENV_CONVERSATION_ID: Final = "sessionId"')
    assert renamed != text
    names.write_text(renamed, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "aimon_mongo.schema_gate", "check", "--root", str(REPO)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    report = done.stdout + done.stderr
    assert "inbox.json-envelope" in report
    assert "$.sessionId: key not declared for this object" in report
    assert "$.conversationId: required key missing" in report

"""Snapshot benchmarks: what the codec costs over plain ``json``, printed as ratios and absolute figures.

    python benchmarks/snapshots.py           # a 500-message transcript
    python benchmarks/snapshots.py --smoke   # tiny sizes, a few seconds

Part 1 (here): ``JsonSessionSnapshotCodec`` encode+decode of a transcript vs ``json.dumps``/``json.loads``
of the same document as a plain dict (the floor any JSON codec pays), for version 1 and version 2.
Part 2 (added with the stores): save+load of the same snapshot through the GridFS snapshot store vs a
raw GridFS upload+download of the same bytes; it plugs in as another function returning a
:class:`Result` and is listed in ``PARTS``.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from aimon_mongo.model import TextInput
from aimon_mongo.snapshots import (
    Artifact,
    JsonSessionSnapshotCodec,
    Message,
    ReasoningTrace,
    RewindPoint,
    Role,
    SessionLogFormat,
    SessionSnapshot,
    TextBlock,
    ToolResult,
    ToolUse,
)


@dataclass(frozen=True)
class Result:
    """One comparison: our operation vs its baseline, CPU seconds per round trip."""

    name: str
    ours: float
    baseline: float

    def line(self) -> str:
        ratio = self.ours / self.baseline if self.baseline else float("inf")
        return (
            f"{self.name:<44} ours {self.ours * 1e3:9.3f} ms   baseline {self.baseline * 1e3:9.3f} ms   "
            f"ratio {ratio:6.2f}x"
        )


def transcript(message_count: int) -> SessionSnapshot:
    """A realistic transcript: user turns, assistant turns with tool calls, tool results."""
    messages: list[Message] = []
    for i in range(message_count):
        kind = i % 4
        if kind == 0:
            messages.append(Message.text(Role.USER, f"Please look at file {i} and summarise it. " * 4))
        elif kind == 1:
            messages.append(
                Message(
                    role=Role.ASSISTANT,
                    content=(TextBlock(text="Reading the file now."),),
                    tool_uses=(
                        ToolUse(id=f"tu-{i}", name="read_file", input={"path": f"/w/f{i}.txt", "limit": 200}),
                    ),
                    reasoning=(
                        ReasoningTrace(provider="anthropic", payload="x" * 200, tool_use_id=f"tu-{i}"),
                    ),
                )
            )
        elif kind == 2:
            messages.append(
                Message(
                    role=Role.TOOL,
                    tool_results=(ToolResult(tool_use_id=f"tu-{i - 1}", content="line of text\n" * 40),),
                    artifacts=(Artifact(path=f"/w/f{i}.txt", file_name=f"f{i}.txt", size=480),),
                )
            )
        else:
            messages.append(Message.text(Role.ASSISTANT, "The file says this and that. " * 10))
    point = RewindPoint(seq=message_count - 1, user_input=TextInput(text="again")) if message_count else None
    return SessionSnapshot.of_messages(
        "bench-session", messages, system_prompt="You are helpful.", rewind_point=point
    )


def _per_call(fn: Callable[[], object], rounds: int, repeats: int = 7) -> float:
    """Best CPU seconds per call over ``repeats`` runs of ``rounds`` calls (robust on a busy host)."""
    fn()  # warm up
    best = float("inf")
    gc.disable()  # as timeit does: collector pauses are noise, not cost of either side
    try:
        for _ in range(repeats):
            start = time.process_time()
            for _ in range(rounds):
                fn()
            best = min(best, (time.process_time() - start) / rounds)
    finally:
        gc.enable()
    return best


def codec_round_trip(message_count: int, rounds: int) -> list[Result]:
    """Part 1: codec encode+decode vs json.dumps+json.loads of the same plain dict."""
    snapshot = transcript(message_count)
    results = []
    for fmt in (SessionLogFormat.V1, SessionLogFormat.V2):
        codec = JsonSessionSnapshotCodec(fmt)
        text = codec.encode(snapshot)
        plain = json.loads(text)
        ours = _per_call(lambda codec=codec: codec.decode(codec.encode(snapshot)), rounds)
        base = _per_call(lambda plain=plain: json.loads(json.dumps(plain, separators=(",", ":"))), rounds)
        results.append(
            Result(f"encode+decode v{fmt.wire_version}, {message_count} msgs, {len(text)} chars", ours, base)
        )
    return results


PARTS: list[Callable[[int, int], list[Result]]] = [codec_round_trip]
"""Every benchmark part: ``(message_count, rounds) -> results``. The GridFS part joins here."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (a few seconds)")
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    count, rounds = (20, 3) if args.smoke else (args.messages, args.rounds)
    for part in PARTS:
        for result in part(count, rounds):
            print(result.line())


if __name__ == "__main__":
    main()

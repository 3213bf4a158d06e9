"""The demo's content: the two inbox messages, the agent's files and the transcript it saves (pure)."""

from __future__ import annotations

import base64

from aimon_mongo.model import ImageInput, MultimodalInput, TextInput, UserInput
from aimon_mongo.snapshots import (
    Artifact,
    ImageBlock,
    Message,
    RewindPoint,
    Role,
    SessionSnapshot,
    TextBlock,
    ToolResult,
    ToolUse,
)

SESSION_ID = "c-1"
SUBAGENT = "analyst"
CONTEXT_ID = f"agent:{SUBAGENT}:{SESSION_ID}"
TASK_ID = f"{SESSION_ID}-turn-1"
WORKSPACE = f"workspace/{SESSION_ID}"

# A 1x1 PNG: small, and a real image file for the VFS.
CHART_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGPQqr8CAAJUAX5aQspHAAAAAElFTkSuQmCC"
)
TEXT_REQUEST = "Please keep the report short: three bullet points at most."
CHART_REQUEST = "Summarise the attached chart and write a report."
REPORT = """# Weekly signups

- Signups grew for the third week in a row.
- The chart has a single data point; ask for the full series.
- Next step: compare with last quarter.
"""


def text_input() -> UserInput:
    """node-a's first message: plain text (stored as the frozen ``userInput`` string only)."""
    return TextInput(text=TEXT_REQUEST)


def multimodal_input() -> UserInput:
    """node-a's second message: text plus an image (``userInput`` + ``userInputEncoded``)."""
    return MultimodalInput(inputs=(TextInput(text=CHART_REQUEST), ImageInput(mime_type="image/png", data=CHART_PNG)))


def agent_files() -> dict[str, bytes]:
    """What node-b's agent writes into the filesystem during the turn."""
    return {
        f"{WORKSPACE}/inputs/chart.png": CHART_PNG,
        f"{WORKSPACE}/notes.md": f"# Requests\n\n1. {CHART_REQUEST}\n2. {TEXT_REQUEST}\n".encode(),
        f"{WORKSPACE}/report.md": REPORT.encode(),
    }


def turn_transcript() -> SessionSnapshot:
    """The transcript node-b saves after the turn: user input, a tool call and result, an artifact."""
    report_path = f"{WORKSPACE}/report.md"
    messages = [
        Message(
            role=Role.USER,
            content=(
                TextBlock(text=CHART_REQUEST),
                ImageBlock(mime_type="image/png", data=CHART_PNG),
                TextBlock(text=TEXT_REQUEST),
            ),
        ),
        Message(
            role=Role.ASSISTANT,
            content=(TextBlock(text="I will write the report into the workspace."),),
            tool_uses=(ToolUse(id="call-1", name="write_file", input={"path": report_path}),),
        ),
        Message(
            role=Role.TOOL,
            tool_results=(ToolResult(tool_use_id="call-1", content=f"wrote {len(REPORT.encode())} bytes"),),
        ),
        Message(
            role=Role.ASSISTANT,
            content=(TextBlock(text="The report is ready: three bullet points, as asked."),),
            artifacts=(
                Artifact(
                    path=report_path,
                    file_name="report.md",
                    size=len(REPORT.encode()),
                    mime_type="text/markdown",
                    tool_use_id="call-1",
                ),
            ),
        ),
    ]
    return SessionSnapshot.of_messages(
        SESSION_ID,
        messages,
        system_prompt="You are a careful analyst. Keep reports short.",
        rewind_point=RewindPoint(seq=0, user_input=multimodal_input()),
    )

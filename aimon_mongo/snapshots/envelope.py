"""The snapshot store's envelope (pure): ``{"v":1,"subagentName","contextId"?,"snapshot":{...}}``.

One JSON object per task, compact, keys in this order. ``contextId`` (the frozen name of the agent runtime
id) is written only when the runtime id is known; ``snapshot`` is the codec's document embedded as an
object, not as a string. With the default :class:`~aimon_mongo.snapshots.JsonSessionSnapshotCodec` its
output is spliced in as written (it is already compact JSON in Jackson's spelling), so the stored bytes
are the codec's bytes; any other codec's output is parsed and written back compactly.

Reading is the reference's, step by step; each refusal is an :class:`EnvelopeError` whose
:meth:`~EnvelopeError.warning` is the WARN the store logs (it names the task, never the content).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol, runtime_checkable

from aimon_mongo import names as n
from aimon_mongo.errors import InvalidArgumentError, SnapshotCodecError
from aimon_mongo.model._base import Frozen
from aimon_mongo.snapshots import _fast
from aimon_mongo.snapshots import _json as j
from aimon_mongo.snapshots.codec import JsonSessionSnapshotCodec, from_fast_document
from aimon_mongo.snapshots.layout import validate_task_id
from aimon_mongo.snapshots.model import SessionSnapshot

log = logging.getLogger(__name__)
ENVELOPE_VERSION = n.SNAP_ENV_FORMAT_VERSION
AGENT_RUNTIME_PREFIX = "agent:"


@runtime_checkable
class SessionSnapshotCodec(Protocol):
    """What a snapshot store needs of a codec: text in, text out, stateless and thread-safe."""

    def encode(self, snapshot: SessionSnapshot) -> str: ...

    def decode(self, text: str) -> SessionSnapshot: ...


class ResumableSession(Frozen):
    """A stored transcript ready to resume: which subagent ran it, under which runtime id, and the snapshot."""

    subagent_name: str
    agent_runtime_id: str | None = None
    snapshot: SessionSnapshot


def parse_agent_runtime_id(text: str) -> str | None:
    """``text`` when it is an agent runtime id (``agent:<name>`` or ``agent:<name>:<discriminator>``)."""
    if not text.startswith(AGENT_RUNTIME_PREFIX):
        return None
    name, sep, discriminator = text[len(AGENT_RUNTIME_PREFIX) :].partition(":")
    if not name.strip() or (sep and not discriminator.strip()):
        return None
    return text


def validate_agent_runtime_id(value: object) -> str | None:
    """``None`` or a well-formed agent runtime id; anything else refuses with :class:`InvalidArgumentError`."""
    if value is None:
        return None
    if not isinstance(value, str) or parse_agent_runtime_id(value) is None:
        raise InvalidArgumentError(
            f"agent runtime id must look like 'agent:<name>' or 'agent:<name>:<discriminator>', got {value!r}"
        )
    return value


def build_envelope(
    codec: SessionSnapshotCodec, subagent_name: str, agent_runtime_id: str | None, snapshot: SessionSnapshot
) -> str:
    """The stored text of one snapshot (arguments already validated); raises the codec's error."""
    head: dict[str, Any] = {n.SNAP_ENV_VERSION: ENVELOPE_VERSION, n.SNAP_ENV_SUBAGENT_NAME: subagent_name}
    if agent_runtime_id is not None:
        head[n.SNAP_ENV_CONTEXT_ID] = agent_runtime_id
    if type(codec) is JsonSessionSnapshotCodec:
        body = codec.encode(snapshot)
    else:
        node = j.loads(codec.encode(snapshot))
        if not isinstance(node, dict):
            raise SnapshotCodecError("Encoded snapshot is not a JSON object")
        body = j.dumps(node)
    return f"{j.dumps(head)[:-1]},{j.dumps(n.SNAP_ENV_SNAPSHOT)}:{body}}}"


def listing_attributes(
    codec: SessionSnapshotCodec, subagent_name: str, agent_runtime_id: str | None, snapshot: SessionSnapshot
) -> dict[str, str] | None:
    """What ``list_snapshots`` shows of a saved envelope, as file attributes (text); ``None`` for a codec
    whose document this module does not know (its envelopes are listed by reading them)."""
    if not isinstance(codec, JsonSessionSnapshotCodec):
        return None
    attributes = {n.SNAP_ATTR_SUBAGENT_NAME: subagent_name}
    if agent_runtime_id is not None:
        attributes[n.SNAP_ATTR_CONTEXT_ID] = agent_runtime_id
    attributes[n.SNAP_ATTR_FORMAT_VERSION] = str(codec.write_format.at_least(snapshot.format).wire_version)
    attributes[n.SNAP_ATTR_MESSAGE_COUNT] = str(len(snapshot.entries))
    return attributes


class EnvelopeError(Exception):
    """A stored envelope the store cannot load (it then answers ``None``, like an unknown task)."""

    def __init__(self, template: str, *details: object) -> None:
        """``template`` is a logging format whose first ``%s`` is the task id; ``details`` fill the rest."""
        super().__init__(template)
        self.template = template
        self.details = details

    def warning(self, task_id: str) -> tuple[str, tuple[object, ...]]:
        """The WARN to log: a ``%s`` template and its arguments, the task id first."""
        return self.template, (task_id, *self.details)


class StoredEnvelope(Frozen):
    """An envelope as read, before the snapshot is decoded.

    ``context_id_malformed`` is true when a ``contextId`` was stored but is not an agent runtime id; it
    then reads as absent (the snapshot stays loadable, the scoped store declines it).
    """

    subagent_name: str
    context_id: str | None = None
    context_id_malformed: bool = False
    snapshot_node: dict[str, Any]

    @property
    def format_version(self) -> int | None:
        """The embedded document's ``version`` (1 or 2 for documents the codec reads), ``None`` if unreadable."""
        version = j.as_int(self.snapshot_node.get(n.SNAP_DOC_VERSION), -1)
        return version if version >= 0 else None

    @property
    def message_count(self) -> int:
        """How many messages the document carries (``messages`` in version 1, ``entries`` in version 2)."""
        key = n.SNAP_DOC_ENTRIES if self.format_version == n.SNAP_FORMAT_V2 else n.SNAP_DOC_MESSAGES
        return len(j.array(self.snapshot_node, key))


def read_envelope(data: bytes) -> StoredEnvelope:
    """Parse a stored envelope (the reference's steps 2-4); raises :class:`EnvelopeError`."""
    try:
        root = j.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise EnvelopeError("Failed to load session snapshot for task %s: %s", "content is not UTF-8") from None
    except j.MalformedError as exc:
        raise EnvelopeError("Failed to load session snapshot for task %s: %s", str(exc)) from None
    if not isinstance(root, dict):
        raise EnvelopeError("Malformed session snapshot for task %s: not a JSON object")
    version = j.as_int(root.get(n.SNAP_ENV_VERSION), -1)
    if version != ENVELOPE_VERSION:
        raise EnvelopeError(f"Unsupported session snapshot envelope version {version} for task %s")
    name = root.get(n.SNAP_ENV_SUBAGENT_NAME)
    node = root.get(n.SNAP_ENV_SNAPSHOT)
    if not isinstance(name, str) or not isinstance(node, dict):
        raise EnvelopeError("Malformed session snapshot envelope for task %s")
    context, malformed = _runtime_id(root.get(n.SNAP_ENV_CONTEXT_ID))
    return StoredEnvelope(subagent_name=name, context_id=context, context_id_malformed=malformed, snapshot_node=node)


def _runtime_id(raw: object) -> tuple[str | None, bool]:
    """The stored ``contextId`` as read: the agent runtime id or ``None``, and whether it was malformed."""
    context = parse_agent_runtime_id(raw) if isinstance(raw, str) else None
    return context, isinstance(raw, str) and context is None


def _warn_malformed_context(task_id: str) -> None:
    log.warning("Ignoring a contextId that is not an agent runtime id in the session snapshot for task %s", task_id)


def decode_snapshot(codec: SessionSnapshotCodec, envelope: StoredEnvelope) -> SessionSnapshot:
    """The embedded snapshot through ``codec`` (the default codec reads the parsed object directly)."""
    if type(codec) is JsonSessionSnapshotCodec:
        return codec.decode_object(envelope.snapshot_node)
    return codec.decode(j.dumps(envelope.snapshot_node))


def check_save_arguments(task_id: object, subagent_name: object, agent_runtime_id: object, snapshot: object) -> None:
    """Refuse bad arguments of ``save`` (every snapshot store checks the same way) before any I/O."""
    validate_task_id(task_id)
    if not isinstance(subagent_name, str):
        raise InvalidArgumentError(f"subagent name must be a str, got {type(subagent_name).__name__}")
    validate_agent_runtime_id(agent_runtime_id)
    if not isinstance(snapshot, SessionSnapshot):
        raise InvalidArgumentError(f"snapshot must be a SessionSnapshot, got {type(snapshot).__name__}")


def resume(codec: SessionSnapshotCodec, task_id: str, data: bytes) -> ResumableSession | None:
    """The session stored in ``data``, or ``None`` after one WARN naming the task (never the content)."""
    if type(codec) is JsonSessionSnapshotCodec:
        fast = _resume_fast(task_id, data)
        if fast is not None:
            return fast
    try:
        envelope = read_envelope(data)
    except EnvelopeError as exc:
        template, args = exc.warning(task_id)
        log.warning(template, *args)
        return None
    if envelope.context_id_malformed:
        _warn_malformed_context(task_id)
    try:
        snapshot = decode_snapshot(codec, envelope)
    except Exception as exc:
        log.warning("Failed to load session snapshot for task %s: %s", task_id, failure_text(exc))
        return None
    return ResumableSession(
        subagent_name=envelope.subagent_name, agent_runtime_id=envelope.context_id, snapshot=snapshot
    )


def _resume_fast(task_id: str, data: bytes) -> ResumableSession | None:
    """:func:`resume` for an envelope the fast reader takes whole; ``None``: ask the careful reader."""
    envelope = _fast.read_envelope(data)
    snapshot = None if envelope is None else from_fast_document(envelope[n.SNAP_ENV_SNAPSHOT])
    if envelope is None or snapshot is None:
        return None
    raw_context = envelope.get(n.SNAP_ENV_CONTEXT_ID)
    context = parse_agent_runtime_id(raw_context) if isinstance(raw_context, str) else None
    if isinstance(raw_context, str) and context is None:
        log.warning("Ignoring a contextId that is not an agent runtime id in the session snapshot for task %s", task_id)
    return ResumableSession(
        subagent_name=envelope[n.SNAP_ENV_SUBAGENT_NAME], agent_runtime_id=context, snapshot=snapshot
    )


def failure_text(exc: BaseException) -> str:
    """How a swallowed failure is logged: the error's type and message (ours name ids and paths, never content)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

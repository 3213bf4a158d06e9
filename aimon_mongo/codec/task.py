"""Background tasks, one codec with two thin layouts (MongoDB document §3.6, Redis JSON value §4.6).

Both layouts carry the same keys; optional ones (``endTime``, ``owner``, ``contextId``,
``lastHeartbeat``) are **omitted** when absent. They differ only in:

* the id key: ``_id`` (MongoDB) vs ``taskId`` (JSON);
* instants: BSON dates vs ISO-8601 text; ``outputOffset``: BSON int64 vs a JSON number;
* key order: MongoDB ``_id, subagentName, description, state, startTime, outputOffset, endTime, owner,
  contextId, lastHeartbeat``; JSON ``taskId, subagentName, state, startTime, endTime, outputOffset,
  description, owner, contextId, lastHeartbeat``.

Decoding accepts either instant form; a missing ``outputOffset`` is 0 and a missing ``description`` "".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from bson.int64 import Int64
from pydantic import ValidationError

from aimon_mongo import names as n
from aimon_mongo.codec._fields import stored_texts
from aimon_mongo.codec.instant import format_instant
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.codec.principal import decode_principal, encode_principal
from aimon_mongo.codec.stored_fields import (
    enum_member,
    instant,
    optional_instant,
    optional_int,
    optional_str,
    parse_json_object,
    require_object,
    required_id,
    required_str,
)
from aimon_mongo.errors import CodecError
from aimon_mongo.model.task import BackgroundTask, TaskState
from aimon_mongo.stored.background_task import MongoBackgroundTaskDocument, RedisBackgroundTaskValue

_STATES = {s.value: s for s in TaskState}

_STATE_TEXTS = stored_texts(TaskState)


def task_to_mongo(task: BackgroundTask) -> MongoBackgroundTaskDocument:
    """The ``background_task`` document (``_id`` = task id, ``outputOffset`` as int64), keys in the frozen
    order; absent optional fields are omitted."""
    doc: MongoBackgroundTaskDocument = {
        n.F_ID: task.task_id,
        n.TASK_SUBAGENT_NAME: task.subagent_name,
        n.TASK_DESCRIPTION: task.description,
        n.TASK_STATE: _STATE_TEXTS[task.state],
        n.TASK_START_TIME: task.start_time,
        n.TASK_OUTPUT_OFFSET: Int64(task.output_offset),
    }
    if task.end_time is not None:
        doc[n.TASK_END_TIME] = task.end_time
    if task.owner is not None:
        doc[n.TASK_OWNER] = encode_principal(task.owner)
    if task.agent_runtime_id is not None:
        doc[n.TASK_CONTEXT_ID] = task.agent_runtime_id
    if task.last_heartbeat is not None:
        doc[n.TASK_LAST_HEARTBEAT] = task.last_heartbeat
    return doc


def task_to_json_object(task: BackgroundTask) -> RedisBackgroundTaskValue:
    """The Redis value as an object (instants as ISO-8601 text), keys in the frozen order."""
    out = cast("RedisBackgroundTaskValue", {})  # filled in the frozen key order; mypy checks every key
    out[n.TASK_TASK_ID] = task.task_id
    out[n.TASK_SUBAGENT_NAME] = task.subagent_name
    out[n.TASK_STATE] = _STATE_TEXTS[task.state]
    out[n.TASK_START_TIME] = format_instant(task.start_time)
    if task.end_time is not None:
        out[n.TASK_END_TIME] = format_instant(task.end_time)
    out[n.TASK_OUTPUT_OFFSET] = task.output_offset
    out[n.TASK_DESCRIPTION] = task.description
    if task.owner is not None:
        out[n.TASK_OWNER] = encode_principal(task.owner)
    if task.agent_runtime_id is not None:
        out[n.TASK_CONTEXT_ID] = task.agent_runtime_id
    if task.last_heartbeat is not None:
        out[n.TASK_LAST_HEARTBEAT] = format_instant(task.last_heartbeat)
    return out


def task_to_json(task: BackgroundTask) -> str:
    """Compact JSON text of :func:`task_to_json_object`."""
    return compact_json(task_to_json_object(task))


def task_from_mongo(doc: Mapping[str, Any]) -> BackgroundTask:
    """Read a ``background_task`` document."""
    return decode_task(doc, n.F_ID)


def task_from_json(text: str | bytes) -> BackgroundTask:
    """Read the Redis value text."""
    return decode_task(parse_json_object(text, "background task"), n.TASK_TASK_ID)


def decode_task(obj: object, id_key: str) -> BackgroundTask:
    """Read the fields of either layout (``id_key`` is ``"_id"`` or ``"taskId"``)."""
    doc = require_object(obj, "background task")
    owner = doc.get(n.TASK_OWNER)
    description = optional_str(doc, n.TASK_DESCRIPTION)
    fields: dict[str, Any] = {
        "task_id": required_id(doc, id_key),
        "subagent_name": required_str(doc, n.TASK_SUBAGENT_NAME),
        "description": "" if description is None else description,
        "state": enum_member(doc.get(n.TASK_STATE), _STATES, "task state"),
        "start_time": instant(doc.get(n.TASK_START_TIME), n.TASK_START_TIME),
        "end_time": optional_instant(doc, n.TASK_END_TIME),
        "output_offset": optional_int(doc, n.TASK_OUTPUT_OFFSET, 0),
        "owner": None if owner is None else decode_principal(owner, n.TASK_OWNER),
        "agent_runtime_id": optional_str(doc, n.TASK_CONTEXT_ID),
        "last_heartbeat": optional_instant(doc, n.TASK_LAST_HEARTBEAT),
    }
    try:
        return BackgroundTask(**fields)
    except ValidationError:
        raise CodecError("Cannot reconstruct the background task") from None

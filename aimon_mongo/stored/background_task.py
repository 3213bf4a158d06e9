"""Background sub-agent task records, per backend; ``contextId`` holds the agent runtime id.

MongoDB and Redis omit the optional keys when absent; PostgreSQL flattens the owner into three nullable
columns.
"""

from __future__ import annotations

from typing import Final, NotRequired, TypedDict

from aimon_mongo.model.principal import PrincipalType
from aimon_mongo.model.task import TaskState
from aimon_mongo.stored.declare import BsonDate, Family, Instant, Int64, PgBigint, PgText, PgTimestamptz, root

from ._common import Principal

FORMAT_VERSION: Final = 1
FAMILY: Final = Family("background-task", FORMAT_VERSION)


@root("mongo.background-task.document", FAMILY)
class MongoBackgroundTaskDocument(TypedDict):
    """A document of ``background_task``."""

    _id: str
    subagentName: str
    description: str
    state: TaskState
    startTime: BsonDate
    outputOffset: Int64
    endTime: NotRequired[BsonDate]
    owner: NotRequired[Principal]
    contextId: NotRequired[str]
    lastHeartbeat: NotRequired[BsonDate]


@root("redis.background-task.value", FAMILY)
class RedisBackgroundTaskValue(TypedDict):
    """The JSON string under ``<prefix>:<taskId>`` (ids also in the set ``<prefix>:index``)."""

    taskId: str
    subagentName: str
    state: TaskState
    startTime: Instant
    endTime: NotRequired[Instant]
    outputOffset: int
    description: str
    owner: NotRequired[Principal]
    contextId: NotRequired[str]
    lastHeartbeat: NotRequired[Instant]


@root("postgres.background-task.row", FAMILY)
class PostgresBackgroundTaskRow(TypedDict):
    """A row of ``background_task``."""

    task_id: PgText
    subagent_name: PgText
    description: PgText
    state: TaskState
    start_time: PgTimestamptz
    end_time: PgTimestamptz | None
    output_offset: PgBigint
    owner_type: PrincipalType | None
    owner_id: PgText | None
    owner_display_name: PgText | None
    context_id: PgText | None
    last_heartbeat: PgTimestamptz | None

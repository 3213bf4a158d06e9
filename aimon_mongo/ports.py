"""The session-state contracts, async and sync (see :mod:`aimon_mongo._async.ports` for the text).

``AsyncSessionInbox`` & co. are the async protocols; ``SessionInbox`` & co. their generated sync twins.
"""

from aimon_mongo._async.ports import (
    AsyncBackgroundTaskStore,
    AsyncIdempotencyStore,
    AsyncSessionBackends,
    AsyncSessionInbox,
    AsyncSessionLeaseStore,
    AsyncSessionLogSegmentStore,
    AsyncSessionRecordStore,
    AsyncSessionSignalBus,
    AsyncSubscription,
)
from aimon_mongo._async.ports import SignalHandler as AsyncSignalHandler
from aimon_mongo._sync.ports import (
    BackgroundTaskStore,
    IdempotencyStore,
    SessionBackends,
    SessionInbox,
    SessionLeaseStore,
    SessionLogSegmentStore,
    SessionRecordStore,
    SessionSignalBus,
    SignalHandler,
    Subscription,
)
from aimon_mongo.clock import Clock, system_clock

__all__ = [
    "AsyncBackgroundTaskStore",
    "AsyncIdempotencyStore",
    "AsyncSessionBackends",
    "AsyncSessionInbox",
    "AsyncSessionLeaseStore",
    "AsyncSessionLogSegmentStore",
    "AsyncSessionRecordStore",
    "AsyncSessionSignalBus",
    "AsyncSignalHandler",
    "AsyncSubscription",
    "BackgroundTaskStore",
    "Clock",
    "IdempotencyStore",
    "SessionBackends",
    "SessionInbox",
    "SessionLeaseStore",
    "SessionLogSegmentStore",
    "SessionRecordStore",
    "SessionSignalBus",
    "SignalHandler",
    "Subscription",
    "system_clock",
]

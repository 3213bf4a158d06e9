"""How mongos would route a command, decided from the command alone and the placement (no cluster needed).

:func:`route` applies MongoDB's routing rules to a :class:`~aimon_mongo.mongo.command_log.SeenCommand`
against :mod:`aimon_mongo.mongo.placement`'s recommended keys:

* an unsharded collection lives on one shard: every command on it is **targeted**;
* a filter with an equality on every field of the shard key (``{f: v}``, ``{f: {$eq: v}}``, a one-value
  ``$in``, inside a top-level ``$and`` too) is **targeted**; for a ranged compound key an equality on its
  first field is targeted to that prefix's range;
* a ``$in`` of several values on the key, or a range on a ranged key, is **multi-shard**;
* anything else reads or writes on **every shard** (scatter); a single-document ``update`` / ``delete``
  by ``_id`` without the key is broadcast;
* an upsert or ``findAndModify`` without the whole shard key, or a single-document write with neither the
  key nor ``_id``, is **refused before 7.0** (``ShardKeyNotFound``; 7.0 runs a two-phase write that first
  queries every shard);
* an insert must carry every key field;
* ``getMore`` / ``killCursors`` follow their cursor, DDL, catalogue and transaction commands are not
  routed by a key: **not routed**.

The router check of the test suites (``tests/router_check.py``) fails on any command of the library that
is not targeted, unless it comes from a named, paginated operator scan.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aimon_mongo import names as n
from aimon_mongo.mongo.command_log import SeenCommand
from aimon_mongo.mongo.placement import HASHED, Placement, ShardKey


class Route(enum.Enum):
    TARGETED = "targeted"
    MULTI_SHARD = "multi-shard"
    SCATTER = "scatter"
    REFUSED = "refused before 7.0"
    NOT_ROUTED = "not routed"


@dataclass(frozen=True)
class Routing:
    route: Route
    reason: str


_NOT_ROUTED = Routing(Route.NOT_ROUTED, "not routed by a shard key")
_SINGLE_WRITES = ("findAndModify", "findandmodify")


def route(seen: SeenCommand, placements: Mapping[str, Placement]) -> Routing:
    """How mongos routes ``seen`` when the collections are sharded as ``placements`` (name → placement)
    recommend."""
    command = seen.command
    if seen.collection is None or seen.name in ("getMore", "killCursors"):
        return _NOT_ROUTED
    placement = placements.get(seen.collection)
    if placement is None:
        return Routing(Route.NOT_ROUTED, f"collection {seen.collection!r} has no placement")
    key = placement.key
    statements = _statements(seen.name, command)
    if statements is None:
        return _NOT_ROUTED
    if key is None:
        return Routing(Route.TARGETED, "unsharded collection (one shard)")
    worst = Routing(Route.TARGETED, "equality on the whole shard key")
    for filter_, single, upsert in statements:
        found = _by_key(filter_, key)
        if seen.name == "insert":
            if found.route is not Route.TARGETED or not _has_all(filter_, key):
                return Routing(Route.REFUSED, "insert without every shard key field")
            continue
        if found.route is Route.TARGETED and (not upsert or _has_all(filter_, key)):
            continue
        if upsert or seen.name in _SINGLE_WRITES:
            return Routing(Route.REFUSED, "upsert / findAndModify without the whole shard key")
        if single and found.route is not Route.TARGETED:
            if _equality(filter_, n.F_ID) is None:
                return Routing(Route.REFUSED, "single-document write with neither the shard key nor _id")
            found = Routing(Route.SCATTER, "single-document write by _id without the shard key: broadcast")
        if _rank(found.route) > _rank(worst.route):
            worst = found
    return worst


def _rank(r: Route) -> int:
    return [Route.TARGETED, Route.MULTI_SHARD, Route.SCATTER, Route.REFUSED].index(r)


def _statements(name: str, command: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], bool, bool]] | None:
    """``(filter, single-document write, upsert)`` per statement; ``None`` for a command not routed by key."""
    if name == "find":
        return [(_mapping(command.get("filter")), False, False)]
    if name in ("count", "distinct"):
        return [(_mapping(command.get("query")), False, False)]
    if name in _SINGLE_WRITES:
        return [(_mapping(command.get("query")), True, bool(command.get("upsert")))]
    if name == "update":
        return [(_mapping(s.get("q")), not s.get("multi"), bool(s.get("upsert"))) for s in command.get("updates", [])]
    if name == "delete":
        return [(_mapping(s.get("q")), s.get("limit") == 1, False) for s in command.get("deletes", [])]
    if name == "insert":
        return [(_mapping(doc), True, False) for doc in command.get("documents", [])]
    if name == "aggregate":
        pipeline = command.get("pipeline") or [{}]
        first = pipeline[0] if isinstance(pipeline[0], Mapping) else {}
        if "$changeStream" in first:
            return [({}, False, False)]  # opened on every shard that holds the collection
        return [(_mapping(first.get("$match")), False, False)]
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _conditions(filter_: Mapping[str, Any], field: str) -> list[Any]:
    found = [filter_[field]] if field in filter_ else []
    for part in filter_.get("$and", []) or []:
        if isinstance(part, Mapping):
            found += _conditions(part, field)
    return found


def _equality(filter_: Mapping[str, Any], field: str) -> tuple[Any] | None:
    for condition in _conditions(filter_, field):
        if not isinstance(condition, Mapping) or not any(str(k).startswith("$") for k in condition):
            return (condition,)
        if "$eq" in condition:
            return (condition["$eq"],)
        values = condition.get("$in")
        if isinstance(values, list) and len(values) == 1:
            return (values[0],)
    return None


def _has_all(filter_: Mapping[str, Any], key: ShardKey) -> bool:
    return all(_equality(filter_, field) is not None for field, _ in key)


def _by_key(filter_: Mapping[str, Any], key: ShardKey) -> Routing:
    if _has_all(filter_, key):
        return Routing(Route.TARGETED, "equality on the whole shard key")
    first, how = key[0]
    if how != HASHED and _equality(filter_, first) is not None:
        return Routing(Route.TARGETED, f"equality on the ranged key prefix {first!r}")
    conditions = _conditions(filter_, first)
    if any(isinstance(c, Mapping) and isinstance(c.get("$in"), list) for c in conditions):
        return Routing(Route.MULTI_SHARD, f"$in on the shard key {first!r}")
    if how != HASHED and conditions:
        return Routing(Route.MULTI_SHARD, f"range on the ranged shard key {first!r}")
    return Routing(Route.SCATTER, f"no equality on the shard key {dict(key)}: every shard")

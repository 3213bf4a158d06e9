"""From a Python declaration (TypedDict, pydantic model, annotations) to a raw schema graph."""

from __future__ import annotations

import collections.abc
import enum
import types
import typing
from datetime import datetime
from typing import Annotated, Any, Literal, NotRequired, Required, Union, get_args, get_origin

from bson import ObjectId
from pydantic import BaseModel

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.formats import FORMATS
from aimon_mongo.schema_gate.graph import Graph, Node, canonicalize
from aimon_mongo.stored.declare import BODY_ATTRIBUTE, SCALAR_TYPES, Encoded, Format, Scalar

_PLAIN: dict[object, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    None: "null",
    datetime: "date",
    bytes: "binary",
    ObjectId: "objectId",
}
_SCALAR_BASES: dict[str, tuple[type, ...]] = {
    "int32": (int,),
    "int64": (int,),
    "integer": (int,),
    "pg.smallint": (int,),
    "pg.integer": (int,),
    "pg.bigint": (int,),
    "double": (float,),
    "number": (float, int),
    "date": (datetime,),
    "pg.timestamptz": (datetime,),
    "string": (str,),
    "pg.text": (str,),
    "boolean": (bool,),
    "pg.boolean": (bool,),
    "binary": (bytes,),
    "objectId": (ObjectId,),
}


def build_graph(shape: object, where: str) -> Graph:
    """The canonical graph of a declared shape; ``where`` names the root in error messages."""
    builder = _Builder(where)
    start = builder.build(shape, "$")
    return canonicalize([Node(k, a, tuple(c)) for k, a, c in builder.nodes], start)


class _Builder:
    def __init__(self, where: str) -> None:
        self.where = where
        self.nodes: list[tuple[str, tuple[Any, ...], list[int]]] = []
        self.memo: dict[type, int] = {}

    def fail(self, path: str, reason: str) -> SchemaGateError:
        return SchemaGateError("invalid-declaration", f"{self.where} {path}: {reason}")

    def add(self, kind: str, attrs: tuple[Any, ...] = (), children: list[int] | None = None) -> int:
        self.nodes.append((kind, attrs, children or []))
        return len(self.nodes) - 1

    def build(self, tp: object, path: str) -> int:
        origin = get_origin(tp)
        if origin is Annotated:
            return self._annotated(tp, path)
        if origin in (Required, NotRequired):
            raise self.fail(path, "Required/NotRequired are allowed only on TypedDict keys")
        if origin in (Union, types.UnionType):
            return self.add("union", (), [self.build(m, path) for m in get_args(tp)])
        if origin is Literal:
            return self._literals(list(get_args(tp)), path)
        if origin is tuple or _is_abc(origin, "Sequence"):
            args = get_args(tp)
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                raise self.fail(path, "fixed-length tuples are not a stored shape; use tuple[X, ...] or list[X]")
            return self.add("array", (), [self.build(args[0] if args else Any, path + "[]")])
        if _is_abc(origin, "Mapping"):
            key, value = get_args(tp) or (str, Any)
            if key is not str:
                raise self.fail(path, "map keys must be str")
            return self.add("object", (False, (), True), [self.build(value, path + "{*}")])
        if tp is Any or tp is object:
            return self.add("any")
        if isinstance(tp, typing.Hashable) and tp in _PLAIN:
            return self.add("primitive", (_PLAIN[tp], None))
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self._literals([member.value for member in tp], path)
        if typing.is_typeddict(tp) or (isinstance(tp, type) and issubclass(tp, BaseModel)):
            return self._object(typing.cast(type, tp), path)
        raise self.fail(path, f"{tp!r} is not a declarable stored type")

    def _annotated(self, tp: object, path: str) -> int:
        base, *meta = get_args(tp)
        markers = [m for m in meta if isinstance(m, Scalar | Format | Encoded)]
        if len(markers) > 1:
            raise self.fail(path, "at most one of Scalar / Format / Encoded per type")
        if not markers:
            return self.build(base, path)
        marker = markers[0]
        if isinstance(marker, Encoded):
            if marker.encoding == "json-text" and base is not str:
                raise self.fail(path, "JSON text must annotate str")
            return self.add(
                "encoded", (marker.encoding,), [self.build(marker.shape, path + "<" + marker.encoding + ">")]
            )
        if isinstance(marker, Format):
            if base is not str or marker.name not in FORMATS:
                raise self.fail(path, f"format {marker.name!r} must be a known format on str")
            return self.add("primitive", ("string", marker.name))
        if marker.type not in SCALAR_TYPES or base not in _SCALAR_BASES.get(marker.type, ()):
            raise self.fail(path, f"scalar {marker.type!r} cannot annotate {base!r}")
        return self.add("primitive", (marker.type, None))

    def _literals(self, values: list[object], path: str) -> int:
        ids = []
        for value in values:
            if value is None:
                ids.append(self.add("primitive", ("null", None)))
            elif isinstance(value, str | int):
                ids.append(self.add("literal", (value,)))
            else:
                raise self.fail(path, f"literal values must be str, int or bool, got {type(value).__name__}")
        return ids[0] if len(ids) == 1 else self.add("union", (), ids)

    def _object(self, cls: type, path: str) -> int:
        if cls in self.memo:
            return self.memo[cls]
        index = self.add("object")
        self.memo[cls] = index
        fields = _typeddict_fields(cls) if typing.is_typeddict(cls) else _model_fields(cls)
        props: list[tuple[str, bool, int]] = []
        for key, annotation, required in sorted(fields, key=lambda f: f[0]):
            props.append((key, required, self.build(annotation, f"{path}.{key}")))
        if len({p[0] for p in props}) != len(props):
            raise self.fail(path, "two fields store under the same key")
        body = bool(getattr(cls, BODY_ATTRIBUTE, False))
        attrs = (body, tuple((name, required) for name, required, _ in props), False)
        self.nodes[index] = ("object", attrs, [child for _, _, child in props])
        return index


def _typeddict_fields(cls: type) -> list[tuple[str, object, bool]]:
    if not getattr(cls, "__total__", True):
        raise SchemaGateError(
            "invalid-declaration", f"{cls.__qualname__}: use NotRequired[...] keys instead of total=False"
        )
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except NameError as exc:
        raise SchemaGateError("invalid-declaration", f"{cls.__qualname__}: unresolved name ({exc})") from None
    out = []
    for key, hint in hints.items():
        required = True
        while get_origin(hint) in (Required, NotRequired):
            required = get_origin(hint) is Required
            (hint,) = get_args(hint)
        out.append((key, hint, required))
    return out


def _model_fields(cls: type) -> list[tuple[str, object, bool]]:
    model = typing.cast(type[BaseModel], cls)
    out: list[tuple[str, object, bool]] = []
    for name, field in model.model_fields.items():
        annotation: object = field.annotation
        if field.metadata:
            annotation = Annotated[(annotation, *field.metadata)]
        out.append((field.serialization_alias or field.alias or name, annotation, field.is_required()))
    return out


def _is_abc(origin: object, name: str) -> bool:
    target = getattr(collections.abc, name)
    return isinstance(origin, type) and issubclass(origin, target) and origin not in (str, bytes)

"""How a stored shape is declared: the vocabulary of ``aimon_mongo/stored``, which the schema gate reads.

A declaration describes the *stored* form of a persisted format (what a node of any build reads back),
never the domain model: TypedDicts (or pydantic models) whose field names — or aliases — are the stored
key names. Optional keys are ``NotRequired[...]``; a key that is always present but may hold ``null`` is
``X | None``. Stored scalar types that Python cannot name (BSON int64, a PostgreSQL ``bigint``, an ISO
instant inside a string, JSON text inside a string) are spelled with the ``Annotated`` aliases below.

Each declared root is tagged with its format family, and each family carries that family's integer
format-version constant::

    FAMILY = Family("lease", FORMAT_VERSION)

    @root("mongo.lease.document", FAMILY)
    class _Lease(TypedDict):
        _id: str
        fencingToken: Int64

    @body                       # readers ignore keys they do not know (see docs/schema-gate.md)
    class _Options(TypedDict):
        principal: NotRequired[Principal]

Python class names, declaration order and comments never reach a digest; stored key names, types,
optionality and literal values do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Final, TypeVar

_T = TypeVar("_T")

ROOT_ATTRIBUTE: Final = "__schema_gate_root__"
BODY_ATTRIBUTE: Final = "__schema_gate_body__"

# Stored scalar types, by medium. JSON: null boolean integer number string. BSON adds int32, int64 (a
# plain Python int is written as int32 when it fits, so an int64 field needs bson.Int64), double, date,
# objectId, binary; "integer" in a BSON document means "either width, the driver decides".
# PostgreSQL columns use pg.* names.
SCALAR_TYPES: Final = frozenset(
    {
        "null",
        "boolean",
        "integer",
        "number",
        "string",
        "int32",
        "int64",
        "double",
        "date",
        "objectId",
        "binary",
        "pg.text",
        "pg.smallint",
        "pg.integer",
        "pg.bigint",
        "pg.boolean",
        "pg.timestamptz",
    }
)
ENCODINGS: Final = frozenset({"json-text", "pg.jsonb"})


@dataclass(frozen=True)
class Family:
    """A format family: roots that evolve together under one integer format version."""

    name: str
    version: int

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.strip().lower() or " " in self.name:
            raise ValueError(f"family name must be a lower-case word, got {self.name!r}")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 0:
            raise ValueError(f"family {self.name!r}: version must be a non-negative int, got {self.version!r}")


@dataclass(frozen=True)
class StoredRoot:
    """One declared root: its stable name, its family and the Python declaration of its shape."""

    name: str
    family: Family
    shape: object


@dataclass(frozen=True)
class Scalar:
    """``Annotated`` marker: the stored scalar type (one of :data:`SCALAR_TYPES`)."""

    type: str


@dataclass(frozen=True)
class Format:
    """``Annotated`` marker on ``str``: the text follows a named format (see ``schema_gate.formats``)."""

    name: str


@dataclass(frozen=True)
class Encoded:
    """``Annotated`` marker: the value holds another shape, encoded (JSON text in a string, a JSONB column)."""

    encoding: str
    shape: object


def JsonText(shape: object) -> Encoded:
    """Marker for a string that holds the JSON text of ``shape``: ``Annotated[str, JsonText(X)]``."""
    return Encoded("json-text", shape)


def Jsonb(shape: object) -> Encoded:
    """Marker for a PostgreSQL ``jsonb`` column holding ``shape``: ``Annotated[object, Jsonb(X)]``."""
    return Encoded("pg.jsonb", shape)


def root(name: str, family: Family) -> Callable[[_T], _T]:
    """Class decorator: declare the class as the stored root ``name`` of ``family``."""

    def tag(cls: _T) -> _T:
        setattr(cls, ROOT_ATTRIBUTE, StoredRoot(name, family, cls))
        return cls

    return tag


def body(cls: _T) -> _T:
    """Class decorator: readers of this object ignore keys they do not know.

    Adding an optional key to a body is classified as same-version safe (it still needs a record).
    """
    setattr(cls, BODY_ATTRIBUTE, True)
    return cls


# --- Aliases used by the declarations ---
Int32 = Annotated[int, Scalar("int32")]
Int64 = Annotated[int, Scalar("int64")]
Double = Annotated[float, Scalar("double")]
BsonDate = Annotated[datetime, Scalar("date")]
Instant = Annotated[str, Format("instant")]
"""An instant as Java's ``Instant.toString()`` writes it (UTC, ``Z`` suffix)."""
Base64 = Annotated[str, Format("base64")]
PgText = Annotated[str, Scalar("pg.text")]
PgSmallint = Annotated[int, Scalar("pg.smallint")]
PgInteger = Annotated[int, Scalar("pg.integer")]
PgBigint = Annotated[int, Scalar("pg.bigint")]
PgBoolean = Annotated[bool, Scalar("pg.boolean")]
PgTimestamptz = Annotated[datetime, Scalar("pg.timestamptz")]

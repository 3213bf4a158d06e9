"""The declaration vocabulary, under the name the gate's documentation used first.

The vocabulary lives with the declarations, in :mod:`aimon_mongo.stored.declare`: stored shapes are plain
data that the gate collects, so nothing under ``aimon_mongo/stored`` imports the gate. This module keeps
``from aimon_mongo.schema_gate.declare import ...`` working (older copies of a declarations directory use it).
"""

from aimon_mongo.stored.declare import (
    BODY_ATTRIBUTE,
    ENCODINGS,
    ROOT_ATTRIBUTE,
    SCALAR_TYPES,
    Base64,
    BsonDate,
    Double,
    Encoded,
    Family,
    Format,
    Instant,
    Int32,
    Int64,
    Jsonb,
    JsonText,
    PgBigint,
    PgBoolean,
    PgInteger,
    PgSmallint,
    PgText,
    PgTimestamptz,
    Scalar,
    StoredRoot,
    body,
    root,
)

__all__ = [
    "BODY_ATTRIBUTE",
    "ENCODINGS",
    "ROOT_ATTRIBUTE",
    "SCALAR_TYPES",
    "Base64",
    "BsonDate",
    "Double",
    "Encoded",
    "Family",
    "Format",
    "Instant",
    "Int32",
    "Int64",
    "JsonText",
    "Jsonb",
    "PgBigint",
    "PgBoolean",
    "PgInteger",
    "PgSmallint",
    "PgText",
    "PgTimestamptz",
    "Scalar",
    "StoredRoot",
    "body",
    "root",
]

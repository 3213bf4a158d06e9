"""The declared stored shapes of every persisted format, one module per format family.

These are the *stored* forms (what a node of any build reads back: JSON objects, BSON documents,
PostgreSQL rows), never the domain models. The schema gate (``python -m aimon_mongo.schema_gate``) hashes
them into ``schema/inventory.json`` and refuses any change that has no acknowledgement record; codec
tests check encoded output against them with :func:`aimon_mongo.schema_gate.assert_conforms`.

Modules import each other relatively (``from .user_input import UserInput``) so that a copy of this
directory loads as its own package; the declaration vocabulary is :mod:`aimon_mongo.stored.declare`, imported
absolutely. Nothing here imports the gate: the declarations are plain data the gate collects. See
``docs/schema-gate.md`` before editing a declaration.
"""

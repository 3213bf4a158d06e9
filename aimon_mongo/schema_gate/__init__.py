"""The persisted-schema gate: reader-compatibility versioning for every stored format.

Every persisted format is declared once in its stored form (``aimon_mongo/stored/``). The gate hashes the
declarations into canonical schema graphs (``schema/inventory.json``), compares each root with the tip of
its acknowledgement history (``schema/changes/``), classifies every difference, and refuses any change
without a record that decides "same format version" or "version bump" and explains how readers of older
and newer builds behave. Finalized checkpoints (``schema/finalized/vN.json``) make accepted records
immutable. Workflow: ``docs/schema-gate.md``.
"""

from aimon_mongo.schema_gate.cli import main
from aimon_mongo.schema_gate.conformance import assert_conforms, conformance_errors

__all__ = ["assert_conforms", "conformance_errors", "main"]

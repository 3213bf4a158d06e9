"""Which backend family a reliability test runs on, by the name the counts table shows."""

from __future__ import annotations

import pytest


def family_name(request: pytest.FixtureRequest) -> str:
    """``memory-sync``, ``mongo-async`` ...: the family the ``cluster`` fixture was parametrised with."""
    return str(request.node.callspec.params["cluster"].name)


def is_memory(request: pytest.FixtureRequest) -> bool:
    return family_name(request).startswith("memory-")


def is_mongo(request: pytest.FixtureRequest) -> bool:
    return family_name(request).startswith("mongo-")

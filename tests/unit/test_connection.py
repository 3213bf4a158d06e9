"""The one precedence for a MongoDB connection string: explicit > AIMON_MONGODB_URI > MONGODB_URI."""

from __future__ import annotations

import pytest

from aimon_mongo.connection import resolve_mongodb_uri, uri_source


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AIMON_MONGODB_URI", raising=False)
    monkeypatch.delenv("MONGODB_URI", raising=False)


def test_nothing_configured() -> None:
    assert resolve_mongodb_uri() is None
    assert uri_source() is None


def test_generic_variable_is_last(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MONGODB_URI", "mongodb://generic:1")
    assert resolve_mongodb_uri() == "mongodb://generic:1"
    assert uri_source() == "MONGODB_URI"
    monkeypatch.setenv("AIMON_MONGODB_URI", "mongodb://own:2")
    assert resolve_mongodb_uri() == "mongodb://own:2"
    assert uri_source() == "AIMON_MONGODB_URI"


def test_explicit_wins_and_empty_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMON_MONGODB_URI", "")
    monkeypatch.setenv("MONGODB_URI", "mongodb://generic:1")
    assert resolve_mongodb_uri() == "mongodb://generic:1"
    assert resolve_mongodb_uri("mongodb://explicit:3") == "mongodb://explicit:3"
    assert uri_source("mongodb://explicit:3") == "explicit --uri / uri="

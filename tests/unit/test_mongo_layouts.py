"""Collection-name overrides and the schema built from them (pure)."""

from __future__ import annotations

import pytest

from aimon_mongo.errors import InvalidArgumentError
from aimon_mongo.mongo.collections import MongoCollectionNames
from aimon_mongo.mongo.schema import create_command, session_schema


def test_overrides_are_partial_and_checked() -> None:
    names = MongoCollectionNames.of({"inbox": "my_inbox", "signals": "my_signals"})
    assert (names.inbox, names.signals, names.locks) == ("my_inbox", "my_signals", "conversation_locks")
    assert MongoCollectionNames.of(names) is names
    with pytest.raises(InvalidArgumentError, match=r"unknown roles \['mailbox'\] in collection_names"):
        MongoCollectionNames.of({"mailbox": "x"})
    for bad in ("", "$cmd", "system.js", "a\x00b"):
        with pytest.raises(InvalidArgumentError, match="inbox"):
            MongoCollectionNames.of({"inbox": bad})
    with pytest.raises(InvalidArgumentError):
        MongoCollectionNames.of(["inbox"])  # type: ignore[arg-type]


def test_schema_uses_the_overridden_names() -> None:
    specs = {spec.name: spec for spec in session_schema(MongoCollectionNames.of({"signals": "my_signals"}))}
    assert create_command(specs["my_signals"]) == {"create": "my_signals", "capped": True, "size": 67108864}
    assert create_command(specs["conversation_inbox"]) == {"create": "conversation_inbox"}

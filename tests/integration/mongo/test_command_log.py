"""CommandLog counts what goes to the server, per recording, without handshakes and without values."""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient

from aimon_mongo.mongo.command_log import CommandLog


def test_counts_commands_of_the_block_only_and_keeps_filter_field_names(mongo_uri: str, mongo_db_name: str) -> None:
    log = CommandLog()
    client: MongoClient[Any] = MongoClient(mongo_uri, event_listeners=[log])
    try:
        coll = client[mongo_db_name]["command_log_probe"]
        coll.insert_one({"_id": "before"})  # not recorded: no block open
        with log.recording() as outer:
            coll.insert_many([{"_id": "a"}, {"_id": "b"}])
            with log.recording() as inner:
                coll.find_one_and_delete({"conversationId": "secret-value", "_id": "a"})
            coll.update_one({"_id": "c"}, {"$set": {"x": 1}}, upsert=True)
        assert outer.round_trips == 3 and inner.round_trips == 1
        assert outer.by_name() == {"insert": 1, "findAndModify": 1, "update": 1}
        assert outer.commands[0].updates == 2 and outer.commands[0].collection == "command_log_probe"
        assert inner.commands[0].filter_fields == ("conversationId", "_id")
        assert "secret-value" not in repr(inner.commands[0])
        assert outer.commands[2].upsert and outer.commands[2].filter_fields == ("_id",)
    finally:
        client.drop_database(mongo_db_name)
        client.close()


def test_nested_recordings_that_saw_the_same_commands_close_independently(mongo_uri: str, mongo_db_name: str) -> None:
    log = CommandLog()
    client: MongoClient[Any] = MongoClient(mongo_uri, event_listeners=[log])
    try:
        coll = client[mongo_db_name]["command_log_probe"]
        with log.recording() as outer:
            with log.recording() as inner:
                coll.find_one({"_id": "x"})
            coll.find_one({"_id": "y"})
        assert (inner.round_trips, outer.round_trips) == (1, 2)
    finally:
        client.drop_database(mongo_db_name)
        client.close()


def test_sums_the_bson_size_of_commands_sent_and_replies_received(mongo_uri: str, mongo_db_name: str) -> None:
    log = CommandLog()
    client: MongoClient[Any] = MongoClient(mongo_uri, event_listeners=[log])
    try:
        coll = client[mongo_db_name]["command_log_probe"]
        payload = "p" * 10_000
        with log.recording() as write:
            coll.insert_one({"_id": "big", "payload": payload})
        with log.recording() as read:
            found = coll.find_one({"_id": "big"})
        with log.recording() as nothing:
            coll.find_one({"_id": "absent"})
        with log.recording() as taken:
            coll.find_one_and_delete({"_id": "big"})
        assert found is not None and found["payload"] == payload
        # The document travels once each way: at least its 10,000 bytes, at most some framing more.
        assert 10_000 < write.bytes_sent < 10_400 and write.bytes_received < 200
        assert read.bytes_sent < 300 and 10_000 < read.bytes_received < 10_400 and read.documents == 1
        assert nothing.bytes_received < 200 and nothing.documents == 0
        assert taken.documents == 1 and 10_000 < taken.bytes_received < 10_400
    finally:
        client.drop_database(mongo_db_name)
        client.close()

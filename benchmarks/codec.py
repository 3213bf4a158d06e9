"""Codec benchmark: encode + decode of an inbox message, ours against pydantic's own JSON round trip.

    python benchmarks/codec.py           # full run (about 30 s)
    python benchmarks/codec.py --smoke   # tiny sizes, about a second (benchmarks/run.py --smoke runs it)

For a text and a multimodal :class:`InboundMessage`, it times ``to_json_envelope`` + ``from_json_envelope``
(the Redis/PostgreSQL form) and ``to_mongo_document`` + ``from_mongo_document`` (the MongoDB form, pure:
no BSON), and in the same run pydantic's ``model_dump_json`` + ``model_validate_json`` of the same model.
Cases are interleaved round by round (CPU time), so load from other processes affects all alike.
Printed: messages/s per core (one thread) and the ratio ours / pydantic per round, min / median / max
(higher is better). Targets: ratio >= 1.0 and >= 50,000 text messages/s for the JSON form.

The multimodal message's bytes are printable ASCII: pydantic's default JSON mode writes ``bytes`` as
UTF-8 text and refuses anything else, while our codec writes base64 and takes any bytes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime

import bson
from _timing import Report, Result, main, rounds, times  # benchmarks/_timing.py (run as a script)

from aimon_mongo.codec.inbound import (
    from_json_envelope,
    from_mongo_document,
    to_json_envelope,
    to_mongo_document,
)
from aimon_mongo.model import (
    FileInput,
    ImageInput,
    InboundMessage,
    MultimodalInput,
    Principal,
    Priority,
    TextInput,
)

OBJECT_ID = bson.ObjectId("65f1a2b3c4d5e6f708192a3b")
ENTRY_ID = "1714566896789-0"


def text_message() -> InboundMessage:
    """A typical routed text turn: turn id, idempotency key, one metadata entry."""
    return InboundMessage(
        turn_id="turn-7f3a",
        session_id="conv-2024-05-01-0001",
        agent_ref="support-agent",
        user_input=TextInput(text="Please summarise the attached report and list the open action items."),
        priority=Priority.NEXT,
        idempotency_key="idem-9c1e2d",
        initiator=Principal.user("user-42", "Ada Lovelace"),
        delivered_at=datetime(2024, 5, 1, 12, 34, 56, 789000, tzinfo=UTC),
        metadata={"channel": "web"},
    )


def multimodal_message() -> InboundMessage:
    """Text plus a 1 KiB image and a 2 KiB text file."""
    printable = bytes(range(32, 127))
    image = (printable * 11)[:1024]
    notes = (b"line of notes\n" * 150)[:2048]
    inputs = (
        TextInput(text="What is wrong in this screenshot? My notes are attached."),
        ImageInput(mime_type="image/png", data=image),
        FileInput(mime_type="text/plain", file_name="notes.txt", data=notes),
    )
    return text_message().model_copy(update={"user_input": MultimodalInput(inputs=inputs)})


def ours_json(msg: InboundMessage) -> Callable[[], object]:
    return lambda: from_json_envelope(to_json_envelope(msg), ENTRY_ID)


def ours_mongo(msg: InboundMessage) -> Callable[[], object]:
    return lambda: from_mongo_document(to_mongo_document(msg, OBJECT_ID))


def ours_mongo_bson(msg: InboundMessage) -> Callable[[], object]:
    return lambda: from_mongo_document(bson.decode(bson.encode(to_mongo_document(msg, OBJECT_ID))))


def pydantic_json(msg: InboundMessage) -> Callable[[], object]:
    return lambda: InboundMessage.model_validate_json(msg.model_dump_json())


def check(msg: InboundMessage) -> None:
    """The codecs must be right before they are timed."""
    assert from_json_envelope(to_json_envelope(msg), ENTRY_ID) == msg.with_id(ENTRY_ID)
    assert from_mongo_document(to_mongo_document(msg, OBJECT_ID)) == msg.with_id(str(OBJECT_ID))
    assert InboundMessage.model_validate_json(msg.model_dump_json()) == msg


FORMS = {"json": "JSON envelope", "mongo": "Mongo document", "mongo+bson": "Mongo document + BSON bytes"}
KINDS = ("text", "multimodal")
TITLE = "codec"
CASES = tuple(f"{kind}, {label}" for kind in KINDS for label in FORMS.values())


def measure(args: argparse.Namespace) -> Report:
    """Every form of both messages against pydantic's round trip of the same message, in the same rounds."""
    number = 200 if args.smoke else 5000
    messages = {"text": text_message(), "multimodal": multimodal_message()}
    sides: dict[str, Callable[[], float]] = {}
    for kind, msg in messages.items():
        check(msg)
        sides[f"{kind}/pydantic"] = times(pydantic_json(msg), number)
        sides[f"{kind}/json"] = times(ours_json(msg), number)
        sides[f"{kind}/mongo"] = times(ours_mongo(msg), number)
        sides[f"{kind}/mongo+bson"] = times(ours_mongo_bson(msg), number)
    samples = rounds(sides, args.repeats)
    results = []
    for kind in KINDS:
        for form, label in FORMS.items():
            targets: dict[str, float] = {"target": 1.0, "floor": 50_000} if (kind, form) == ("text", "json") else {}
            ours, pydantic = samples[f"{kind}/{form}"], samples[f"{kind}/pydantic"]
            case = f"{kind}, {label}"
            results.append(Result.timed(TITLE, case, ours, pydantic, clock="cpu", unit="msg/s", **targets))
    size = f"{number:,} encode+decode round trips per round, one thread, CPU time"
    return Report(results, {"codec": size})


if __name__ == "__main__":
    sys.exit(main(__doc__, measure, repeats=25))

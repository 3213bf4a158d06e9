"""Codec benchmark: encode + decode of an inbox message, ours against pydantic's own JSON round trip.

    python benchmarks/codec.py           # full run (about a minute)
    python benchmarks/codec.py --smoke   # tiny sizes, a few seconds, exits 0 (part of the test command)

For a text and a multimodal :class:`InboundMessage`, it times ``to_json_envelope`` + ``from_json_envelope``
(the Redis/PostgreSQL form) and ``to_mongo_document`` + ``from_mongo_document`` (the MongoDB form, pure:
no BSON), and in the same run pydantic's ``model_dump_json`` + ``model_validate_json`` of the same model.
Cases are interleaved round by round and the best round counts, so load from other processes affects
both sides alike. Printed: messages/s per core (one thread) and the ratio ours / pydantic (higher is
better). Targets: ratio >= 1.0 and >= 50,000 text messages/s for the JSON form.

The multimodal message's bytes are printable ASCII: pydantic's default JSON mode writes ``bytes`` as
UTF-8 text and refuses anything else, while our codec writes base64 and takes any bytes.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import bson

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


def best_rates(cases: dict[str, Callable[[], object]], number: int, rounds: int) -> dict[str, float]:
    """Operations per second of each case: best of ``rounds`` interleaved rounds of ``number`` calls."""
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(rounds):
        for name, fn in cases.items():
            start = time.process_time()
            for _ in range(number):
                fn()
            best[name] = min(best[name], time.process_time() - start)
    return {name: number / seconds for name, seconds in best.items()}


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs (nproc), {model}, Python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: a few seconds, exit 0")
    args = parser.parse_args()
    number, rounds = (200, 2) if args.smoke else (5000, 9)

    messages = {"text": text_message(), "multimodal": multimodal_message()}
    cases: dict[str, Callable[[], object]] = {}
    for kind, msg in messages.items():
        check(msg)
        cases[f"{kind}/pydantic"] = pydantic_json(msg)
        cases[f"{kind}/json"] = ours_json(msg)
        cases[f"{kind}/mongo"] = ours_mongo(msg)
        cases[f"{kind}/mongo+bson"] = ours_mongo_bson(msg)
    rates = best_rates(cases, number, rounds)

    print(f"machine: {machine()}")
    print(f"best of {rounds} rounds x {number} encode+decode round trips, one thread\n")
    print(f"| {'message':<10} | {'form':<28} | {'messages/s':>10} | {'pydantic msg/s':>14} | {'ratio':>6} |")
    print(f"|{'-' * 12}|{'-' * 30}|{'-' * 12}|{'-' * 16}|{'-' * 8}|")
    forms = {
        "json": "JSON envelope",
        "mongo": "Mongo document",
        "mongo+bson": "Mongo document + BSON bytes",
    }
    for kind in messages:
        base = rates[f"{kind}/pydantic"]
        for form, label in forms.items():
            rate = rates[f"{kind}/{form}"]
            print(f"| {kind:<10} | {label:<28} | {rate:>10,.0f} | {base:>14,.0f} | {rate / base:>5.2f}x |")
    text_json, text_base = rates["text/json"], rates["text/pydantic"]
    ok = text_json >= 50_000 and text_json >= text_base
    print(
        f"\ntarget (JSON form, text): >= 50,000 msg/s and >= 1.0x pydantic -> "
        f"{text_json:,.0f} msg/s, {text_json / text_base:.2f}x: {'met' if ok else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

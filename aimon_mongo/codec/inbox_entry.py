"""The per-entry decode step of every inbox ``collect``, written once for all backends.

Backends remove an entry from storage before it is decoded, so one bad entry must never fail the whole
batch: each entry decodes in its own guard and a failure becomes an :class:`UnreadableEntry` (with the turn
id and idempotency key recovered leniently, so the caller can fail the right turn) plus one WARN that names
the session and the entry id, never the payload. The replay decoders read a quarantined entry (or its
repaired form) back into the message a replay delivers; they refuse with :class:`CodecError`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bson import ObjectId

from aimon_mongo import names as n
from aimon_mongo.codec._fields import log_name
from aimon_mongo.codec.inbound import from_json_envelope, from_mongo_document, recover_address
from aimon_mongo.codec.json_text import compact_json
from aimon_mongo.errors import CodecError, InvalidArgumentError
from aimon_mongo.model.batch import UnreadableEntry
from aimon_mongo.model.inbound import InboundMessage

log = logging.getLogger(__name__)

UNKNOWN_ENTRY_ID = "unknown"
"""The id of an unreadable entry whose backend id itself could not be read."""


def decode_json_entry(
    entry_id: str | None, text: str | bytes, session_id: str | None = None
) -> InboundMessage | UnreadableEntry:
    """Decode one Redis/PostgreSQL entry (``text`` = the envelope JSON, ``entry_id`` = stream/row id).

    ``session_id`` is the session being collected (named in the WARN of an unreadable entry). A non-str
    ``entry_id`` is the caller's mistake, not the entry's, and raises :class:`InvalidArgumentError`.
    """
    if entry_id is not None and not isinstance(entry_id, str):
        raise InvalidArgumentError(f"entry_id must be a str, got {type(entry_id).__name__}")
    try:
        return from_json_envelope(text, entry_id=entry_id)
    except Exception as exc:  # one entry never fails the batch, whatever went wrong
        return unreadable_entry(entry_id, text, exc, session_id)


def decode_mongo_entry(doc: Mapping[str, Any], session_id: str | None = None) -> InboundMessage | UnreadableEntry:
    """Decode one ``conversation_inbox`` document removed by ``find_one_and_delete``."""
    try:
        return from_mongo_document(doc)
    except Exception as exc:  # one entry never fails the batch, whatever went wrong
        if session_id is None:
            found = _lenient_get(doc, n.F_CONVERSATION_ID)
            session_id = found if isinstance(found, str) else None
        oid = _lenient_get(doc, n.F_ID)
        entry_id = str(oid) if isinstance(oid, ObjectId | str) else None
        return unreadable_entry(entry_id, doc, exc, session_id)


def unreadable_entry(entry_id: str | None, raw: object, exc: BaseException, session_id: str | None) -> UnreadableEntry:
    """The report of an entry that could not be decoded; logs one WARN (session, entry id, reason)."""
    turn_id, key = recover_address(raw)
    reason = f"{type(exc).__name__}: {exc}" if isinstance(exc, CodecError) else type(exc).__name__
    entry = UnreadableEntry(
        id=entry_id if isinstance(entry_id, str) and entry_id else UNKNOWN_ENTRY_ID,
        turn_id=turn_id,
        idempotency_key=key,
        reason=reason,
    )
    log.warning(
        "unreadable inbox entry %s of session %s reported, not delivered: %s",
        log_name(entry.id),
        log_name(session_id),
        reason,
    )
    return entry


def replayed_envelope(stored: str | bytes, repaired: object, quarantine_id: str) -> InboundMessage:
    """Redis/PostgreSQL: ``repaired`` (envelope text, or the envelope object) when given, else the kept
    envelope ``stored``, decoded."""
    del quarantine_id  # the envelope names everything a replay needs
    text = stored if repaired is None else repaired if isinstance(repaired, str) else compact_json(repaired)
    return from_json_envelope(text)


def replayed_document(kept: Mapping[str, Any], repaired: object, quarantine_id: str) -> InboundMessage:
    """MongoDB: ``repaired`` (a document; the kept ``_id`` is added when it has none) when given, else the
    raw document of the quarantine document ``kept``, decoded."""
    stored = kept.get(n.F_RAW_DOCUMENT)
    source = stored if repaired is None else repaired
    if isinstance(source, Mapping) and n.F_ID not in source and isinstance(stored, Mapping):
        source = {n.F_ID: stored.get(n.F_ID), **source}
    if not isinstance(source, Mapping):
        raise CodecError(f"quarantined entry {quarantine_id!r} has no raw document to replay")
    return from_mongo_document(source)


def _lenient_get(doc: object, key: str) -> object:
    try:
        return doc.get(key) if isinstance(doc, Mapping) else None
    except Exception:  # a damaged document may not even behave as a mapping
        return None

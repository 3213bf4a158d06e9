"""The per-entry decode step of every inbox ``collect``, written once for all backends.

Backends remove an entry from storage before it is decoded, so one bad entry must never fail the whole
batch: each entry decodes in its own guard and a failure becomes an :class:`UnreadableEntry` (with the turn
id and idempotency key recovered leniently, so the caller can fail the right turn) plus one WARN that names
the session and the entry id, never the payload.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bson import ObjectId

from aimon_mongo import names as n
from aimon_mongo.codec._fields import log_name
from aimon_mongo.codec.inbound import from_json_envelope, from_mongo_document, recover_address
from aimon_mongo.errors import CodecError
from aimon_mongo.model.batch import UnreadableEntry
from aimon_mongo.model.inbound import InboundMessage

log = logging.getLogger(__name__)

UNKNOWN_ENTRY_ID = "unknown"
"""The id of an unreadable entry whose backend id itself could not be read."""


def decode_json_entry(
    entry_id: str | None, text: str | bytes, session_id: str | None = None
) -> InboundMessage | UnreadableEntry:
    """Decode one Redis/PostgreSQL entry (``text`` = the envelope JSON, ``entry_id`` = stream/row id).

    ``session_id`` is the session being collected (named in the WARN of an unreadable entry).
    """
    try:
        return from_json_envelope(text, entry_id=entry_id)
    except Exception as exc:  # one entry never fails the batch, whatever went wrong
        return unreadable_entry(entry_id, text, exc, session_id)


def decode_mongo_entry(
    doc: Mapping[str, Any], session_id: str | None = None
) -> InboundMessage | UnreadableEntry:
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


def unreadable_entry(
    entry_id: str | None, raw: object, exc: BaseException, session_id: str | None
) -> UnreadableEntry:
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


def _lenient_get(doc: object, key: str) -> object:
    try:
        return doc.get(key) if isinstance(doc, Mapping) else None
    except Exception:  # a damaged document may not even behave as a mapping
        return None

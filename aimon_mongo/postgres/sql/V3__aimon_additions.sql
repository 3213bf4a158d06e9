-- aimon-mongo additions to the reference schema (additive only: older nodes never read these tables).

-- Inbox entries that could not be decoded: moved here by collect in the same transaction that deletes
-- them from conversation_inbox, so nothing is lost; an operator can list, replay or delete them.
CREATE TABLE IF NOT EXISTS conversation_inbox_quarantine (
    id              bigserial   PRIMARY KEY,
    conversation_id text        NOT NULL,
    entry_id        text        NOT NULL,
    priority        smallint,
    raw_payload     text        NOT NULL,
    error           text        NOT NULL,
    quarantined_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS conversation_inbox_quarantine_conv_idx
    ON conversation_inbox_quarantine (conversation_id, id);

-- The highest fencing token accepted per session by fenced session_record / session_log_segment writes;
-- checked and raised in the same transaction as the write it guards.
CREATE TABLE IF NOT EXISTS session_fence (
    session_id    text        PRIMARY KEY,
    highest_token bigint      NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

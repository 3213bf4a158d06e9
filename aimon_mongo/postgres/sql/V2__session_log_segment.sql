-- aimon session state on PostgreSQL, version 2: sealed session-log segments.
-- payload is text, not jsonb, because jsonb refuses NUL characters.

CREATE TABLE IF NOT EXISTS session_log_segment (
    session_id  text        NOT NULL,
    segment_id  text        NOT NULL,
    from_seq    bigint      NOT NULL,
    to_seq      bigint      NOT NULL,
    entry_count integer     NOT NULL,
    payload     text        NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (session_id, segment_id)
);

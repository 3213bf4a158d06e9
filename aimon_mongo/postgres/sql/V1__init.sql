-- aimon session state on PostgreSQL, version 1.
--
-- Apply inside the session schema (aimon_session by default): ensure_schema() runs this file with
-- search_path set to that schema. Every table, column and index name below is read by nodes of older
-- and newer builds; the "conversation" and "context" spellings are frozen (renaming one is a data
-- migration, not a cleanup).

-- The lease ("the lock"): one live holder per session.
CREATE TABLE IF NOT EXISTS conversation_lock (
    conversation_id  text        PRIMARY KEY,
    holder_id        text        NOT NULL,
    fencing_token    bigint      NOT NULL,
    acquired_at      timestamptz NOT NULL,
    lease_expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS conversation_lock_lease_expires_at_idx ON conversation_lock (lease_expires_at);

-- Fencing counter, apart from the lock row so that releasing or expiring a lease never resets it.
CREATE TABLE IF NOT EXISTS conversation_lock_fence (
    conversation_id text   PRIMARY KEY,
    next_token      bigint NOT NULL DEFAULT 1
);

-- Signals between nodes; NOTIFY on conversation_signal_doorbell carries only the row id.
CREATE TABLE IF NOT EXISTS conversation_signal (
    id              bigserial   PRIMARY KEY,
    conversation_id text        NOT NULL,
    kind            text        NOT NULL,
    origin_node_id  text        NOT NULL,
    payload         jsonb       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS conversation_signal_fetch_idx ON conversation_signal (conversation_id, id);
CREATE INDEX IF NOT EXISTS conversation_signal_created_at_idx ON conversation_signal (created_at);

-- The inbox: priority is the tier ordinal (0 NOW, 1 NEXT, 2 LATER), payload the JSON envelope.
CREATE TABLE IF NOT EXISTS conversation_inbox (
    id              bigserial   PRIMARY KEY,
    conversation_id text        NOT NULL,
    agent_ref       text        NOT NULL,
    priority        smallint    NOT NULL,
    payload         jsonb       NOT NULL,
    delivered_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS conversation_inbox_drain_idx ON conversation_inbox (conversation_id, priority, id);

-- Idempotency records; PostgreSQL expires nothing by itself, so a row past expires_at counts as absent.
CREATE TABLE IF NOT EXISTS idempotency_entry (
    key             text        PRIMARY KEY,
    conversation_id text        NOT NULL,
    input_hash      text        NOT NULL,
    status          text        NOT NULL,
    holder_id       text,
    result_blob     jsonb,
    created_at      timestamptz NOT NULL,
    last_touched_at timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_entry_inflight_stale_idx ON idempotency_entry (status, last_touched_at);
CREATE INDEX IF NOT EXISTS idempotency_entry_expires_at_idx ON idempotency_entry (expires_at);

-- Background sub-agent tasks; context_id holds the agent runtime id.
CREATE TABLE IF NOT EXISTS background_task (
    task_id            text        PRIMARY KEY,
    subagent_name      text        NOT NULL,
    description        text        NOT NULL,
    state              text        NOT NULL,
    start_time         timestamptz NOT NULL,
    end_time           timestamptz,
    output_offset      bigint      NOT NULL DEFAULT 0,
    owner_type         text,
    owner_id           text,
    owner_display_name text,
    context_id         text,
    last_heartbeat     timestamptz
);
CREATE INDEX IF NOT EXISTS background_task_state_idx ON background_task (state);
CREATE INDEX IF NOT EXISTS background_task_context_idx ON background_task (context_id);

-- Session records: the transcript is text, not jsonb, because jsonb refuses NUL characters.
CREATE TABLE IF NOT EXISTS session_record (
    session_id               text        PRIMARY KEY,
    transcript               text,
    agent_ref                text,
    compaction_failure_count integer     NOT NULL DEFAULT 0,
    session_totals           jsonb,
    budget_override          jsonb,
    updated_at               timestamptz NOT NULL DEFAULT now()
);

-- aimon-mongo additions, version 4: indexes the hot plans need at scale (additive only: no table, column
-- or existing index changes; older nodes and the reference simply never use them).

-- BackgroundTaskStore.list by owner (owner type + id, oldest start first): a sequential scan without it.
CREATE INDEX IF NOT EXISTS background_task_owner_idx ON background_task (owner_type, owner_id, start_time);

-- SessionLogSegmentStore.scan_sessions (sessions with a segment created before a cutoff, paged by
-- session id): an index-only scan instead of reading every segment row's heap tuple, payload and all.
CREATE INDEX IF NOT EXISTS session_log_segment_scan_idx ON session_log_segment (session_id, created_at);

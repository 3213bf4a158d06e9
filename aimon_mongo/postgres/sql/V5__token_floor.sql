-- aimon-mongo additions, version 5: a floor under the fencing tokens, so that retention may delete the
-- conversation_lock_fence and session_fence rows of sessions with nothing left without a token ever going
-- backwards (additive: one new table, one trigger; the reference's columns and statements are unchanged).

-- The highest token any deleted fence row had issued or accepted (only ever raised, by the sweep).
CREATE TABLE IF NOT EXISTS aimon_token_floor (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    highest_swept bigint  NOT NULL DEFAULT 0
);
INSERT INTO aimon_token_floor (id, highest_swept) VALUES (true, 0) ON CONFLICT (id) DO NOTHING;

-- Every new counter row (a first acquisition, or one after its row was swept) starts above the floor:
-- the token it issues (next_token - 1) is then higher than any token issued before. The shared advisory
-- lock pairs with the sweep's exclusive one for the same session: a sweep never deletes a row an acquire is
-- inserting or raising, and an acquire waiting for a sweep reads the floor that sweep raised.
CREATE OR REPLACE FUNCTION aimon_lock_fence_floor() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtext(TG_TABLE_SCHEMA || '.aimon_token_floor'), hashtext(NEW.conversation_id));
    NEW.next_token := GREATEST(NEW.next_token, (SELECT highest_swept FROM aimon_token_floor) + 2);
    RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS aimon_lock_fence_floor ON conversation_lock_fence;
CREATE TRIGGER aimon_lock_fence_floor BEFORE INSERT ON conversation_lock_fence
    FOR EACH ROW EXECUTE FUNCTION aimon_lock_fence_floor();

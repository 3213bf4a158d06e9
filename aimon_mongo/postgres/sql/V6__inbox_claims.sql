-- aimon-mongo additions, version 6: the claim state of acknowledged delivery on inbox rows (additive: three
-- nullable / defaulted columns; the reference's columns and statements are unchanged, and its collect
-- still deletes claimed rows: a redelivery, never a loss).

-- claim_token: the fencing token of the last claim that handed the row out (NULL: never claimed);
-- claim_attempts: how many claims handed it out; claimed_at: when the last one did.
ALTER TABLE conversation_inbox ADD COLUMN IF NOT EXISTS claim_token bigint;
ALTER TABLE conversation_inbox ADD COLUMN IF NOT EXISTS claim_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE conversation_inbox ADD COLUMN IF NOT EXISTS claimed_at timestamptz;

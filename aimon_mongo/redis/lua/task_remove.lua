-- Remove a background task and its index entry. KEYS[1] task value, KEYS[2] index set; ARGV[1] task id.
-- Returns 1 when the task existed.
local removed = redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return removed

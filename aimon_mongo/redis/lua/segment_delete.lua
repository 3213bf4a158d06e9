--! include _fence
-- Fenced segment delete. KEYS[2] data hash, KEYS[3] created hash; ARGV[2] segment id. Returns 1 if it
-- existed.
local removed = redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
return removed

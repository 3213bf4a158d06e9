--! include _fence
-- Fenced counter increment. KEYS[2] record hash; ARGV[2] counter field, ARGV[3] updated-at field, ARGV[4]
-- its value. Returns the new count, or 0 (nothing written) when the record does not exist.
if redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
local count = redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
return count

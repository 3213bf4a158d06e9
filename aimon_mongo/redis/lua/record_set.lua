--! include _fence
-- Fenced hash write. KEYS[2] record hash; ARGV[2] 'always' or 'existing' (write only when the record
-- exists), ARGV[3] = n, ARGV[4 .. 3+2n] field/value pairs to set, then fields to delete.
-- Returns 1 when written, 0 when skipped because the record does not exist.
if ARGV[2] == 'existing' and redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
local n = tonumber(ARGV[3])
if n > 0 then
  redis.call('HSET', KEYS[2], unpack(ARGV, 4, 3 + 2 * n))
end
if #ARGV > 3 + 2 * n then
  redis.call('HDEL', KEYS[2], unpack(ARGV, 4 + 2 * n))
end
return 1

-- Drop index entries whose task value is gone. KEYS[1] index set, KEYS[2..] task values; ARGV[i] is the id
-- of KEYS[i + 1]. An id whose value exists again (a concurrent put) stays. Returns how many were dropped.
local dropped = 0
for i, id in ipairs(ARGV) do
  if redis.call('EXISTS', KEYS[i + 1]) == 0 then
    dropped = dropped + redis.call('SREM', KEYS[1], id)
  end
end
return dropped

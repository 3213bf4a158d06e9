-- Release a lease. KEYS[1] lock, KEYS[2] fencing counter; ARGV[1] the stamp "<holder>:<token>", ARGV[2]
-- token. The counter is bumped past the released token so a later extend cannot revive it; the counter
-- itself is never deleted. Returns 1 when the lease was released, 0 when a newer one exists.
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('INCR', KEYS[2])
  return 1
end
if not current and redis.call('GET', KEYS[2]) == ARGV[2] then
  redis.call('INCR', KEYS[2])
  return 1
end
return 0

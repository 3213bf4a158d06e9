-- Insert an idempotency entry unless one exists. KEYS[1] entry; ARGV[1] JSON value, ARGV[2] TTL millis.
-- Returns nil when inserted, else the existing value (read in the same atomic step, so it cannot vanish
-- between the refused SET and the read).
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return false
end
return redis.call('GET', KEYS[1])

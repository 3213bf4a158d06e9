--! include _now
-- Take a lease. KEYS[1] lock, KEYS[2] fencing counter; ARGV[1] holder id (no ':'), ARGV[2] lease millis.
-- Only a free lock bumps the counter, so losers burn no tokens; 0 is never a token (INCR starts at 1).
-- Returns {token, expires_at_millis} by the server clock, or nil when a live lease exists.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return {token, now_millis() + tonumber(ARGV[2])}

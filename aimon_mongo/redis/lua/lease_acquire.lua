--! include _now
-- Take a lease. KEYS[1] lock, KEYS[2] fencing counter; ARGV[1] holder id (no ':'), ARGV[2] lease millis.
-- Only a free lock bumps the counter, so losers burn no tokens; 0 is never a token (INCR starts at 1).
-- The expiry is set as an absolute server time (PEXPIREAT) and that same value is returned, so the
-- expiry the holder sees is exactly the one Redis enforces (PX plus a later TIME could report it late).
-- Returns {token, expires_at_millis} by the server clock, or nil when a live lease exists.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local token = redis.call('INCR', KEYS[2])
local expires = now_millis() + tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token)
redis.call('PEXPIREAT', KEYS[1], expires)
return {token, expires}

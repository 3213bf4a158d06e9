--! include _now
-- Extend a lease (a token CAS, not a liveness check). KEYS[1] lock, KEYS[2] fencing counter; ARGV[1] the
-- stamp "<holder>:<token>", ARGV[2] lease millis, ARGV[3] token. A lapsed lock whose token is still the
-- counter's latest (nobody acquired since, and it was not released) is revived, as in the other backends;
-- the holder id of a lapsed lock cannot be checked any more (the key is gone), only its token.
-- The new expiry is set as an absolute server time (PEXPIREAT), exactly the value returned.
-- Returns the new expiry (server clock, epoch millis), or nil when a newer lease exists.
local current = redis.call('GET', KEYS[1])
local expires = now_millis() + tonumber(ARGV[2])
if current == ARGV[1] then
  redis.call('PEXPIREAT', KEYS[1], expires)
  return expires
end
if not current and redis.call('GET', KEYS[2]) == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], expires)
  return expires
end
return false

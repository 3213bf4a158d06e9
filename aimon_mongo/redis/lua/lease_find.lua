--! include _now
-- Find the live lease. KEYS[1] lock. Returns {"<holder>:<token>", expires_at_millis} by the server clock,
-- or nil when there is none. A lock without a TTL is corruption and reads as unheld (as in the reference).
-- The expiry is the key's own (PEXPIRETIME, Redis 7); older servers get TIME + PTTL, which can read up to
-- a millisecond late.
local value = redis.call('GET', KEYS[1])
if not value then
  return false
end
local ok, at = pcall(redis.call, 'PEXPIRETIME', KEYS[1])
if ok then
  if at < 0 then
    return false
  end
  return {value, at}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  return false
end
return {value, now_millis() + ttl}

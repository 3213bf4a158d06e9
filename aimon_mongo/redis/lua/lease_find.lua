--! include _now
-- Find the live lease. KEYS[1] lock. Returns {"<holder>:<token>", expires_at_millis} by the server clock,
-- or nil when there is none. A lock without a TTL is corruption and reads as unheld (as in the reference).
local value = redis.call('GET', KEYS[1])
if not value then
  return false
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  return false
end
return {value, now_millis() + ttl}

--! include _fence
-- Fenced segment insert. KEYS[2] data hash, KEYS[3] created hash; ARGV[2] segment id, ARGV[3] JSON,
-- ARGV[4] created-at epoch millis. A segment id already present is refused (returns 0), never overwritten.
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 0 then
  return 0
end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[4])
return 1

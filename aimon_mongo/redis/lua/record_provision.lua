--! include _fence
-- Fenced provision. KEYS[2] record hash; ARGV[2] sentinel field, ARGV[3] session id, ARGV[4] updated-at
-- field, ARGV[5] its value, ARGV[6] agent-binding field, ARGV[7] agent ref ('' = none). Creates the record
-- if missing and binds the agent only when no binding exists. Returns the record's fields afterwards.
local created = redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3])
local bound = 0
if ARGV[7] ~= '' then
  bound = redis.call('HSETNX', KEYS[2], ARGV[6], ARGV[7])
end
if created == 1 or bound == 1 then
  redis.call('HSET', KEYS[2], ARGV[4], ARGV[5])
end
return redis.call('HGETALL', KEYS[2])

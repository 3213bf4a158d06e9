-- Compare-and-set one String. KEYS[1] key; ARGV[1] the value the caller read, ARGV[2] the new value,
-- ARGV[3] TTL millis ('' = no TTL). Returns 1 when the value was still ARGV[1] and is now replaced, else 0
-- (the caller re-reads and decides again).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1

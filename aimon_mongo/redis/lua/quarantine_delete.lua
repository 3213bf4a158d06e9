-- Remove one quarantined entry. KEYS[1] quarantine stream; ARGV[1] entry id. Returns 1 if it was there.
local removed = redis.call('XDEL', KEYS[1], ARGV[1])
if redis.call('XLEN', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
end
return removed

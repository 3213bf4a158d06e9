-- Move one quarantined entry back into an inbox. KEYS[1] quarantine stream, KEYS[2] target tier stream;
-- ARGV[1] quarantine entry id, ARGV[2] stream field, ARGV[3] envelope text. The entry is removed from
-- quarantine and the envelope appended in one atomic step (two operators replaying it deliver it once).
-- Returns the new inbox entry id, or nil when the quarantine entry is gone.
if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then
  return false
end
if redis.call('XLEN', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
end
return redis.call('XADD', KEYS[2], '*', ARGV[2], ARGV[3])

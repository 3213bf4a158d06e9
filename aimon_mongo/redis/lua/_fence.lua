-- Fenced-write prologue. KEYS[1] is the session's write fence (highest token accepted so far, never
-- expires), ARGV[1] the writer's fencing token. A lower token is refused before anything is written; a
-- higher one becomes the new highest. The rest of the script sees its own KEYS[2..] and ARGV[2..].
local fence_raw = redis.call('GET', KEYS[1])
if fence_raw and tonumber(ARGV[1]) < tonumber(fence_raw) then
  return redis.error_reply('AIMON_STALE_FENCE ' .. fence_raw)
end
if not fence_raw or tonumber(ARGV[1]) > tonumber(fence_raw) then
  redis.call('SET', KEYS[1], ARGV[1])
end

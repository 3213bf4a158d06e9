--! include _now _inbox_tidy
-- Collect an inbox. KEYS are the tier streams in priority order (NOW first), then the session's claims hash;
-- ARGV[1] the most entries one call takes (over all tiers), ARGV[2..] the tier names of the streams. From
-- each tier the oldest entries (stream id order) are read and deleted in one atomic step, so concurrent
-- collectors never get the same entry and an entry delivered meanwhile stays for the next call; the claim
-- state of a taken entry (field "<tier>:<id>" of the claims hash) goes with it. Empty streams are dropped
-- (see _inbox_tidy).
-- Returns one array per tier stream: { {id, {field, value, ...}}, ... }.
local claims = KEYS[#KEYS]
local remaining = tonumber(ARGV[1])
local result = {}
for i = 1, #KEYS - 1 do
  local key = KEYS[i]
  local entries = {}
  if remaining > 0 then
    entries = redis.call('XRANGE', key, '-', '+', 'COUNT', remaining)
  end
  if #entries > 0 then
    local ids = {}
    local fields = {}
    for j, entry in ipairs(entries) do
      ids[j] = entry[1]
      fields[j] = ARGV[i + 1] .. ':' .. entry[1]
    end
    redis.call('XDEL', key, unpack(ids))
    redis.call('HDEL', claims, unpack(fields))
    remaining = remaining - #entries
  end
  drop_if_empty(key)
  result[i] = entries
end
return result

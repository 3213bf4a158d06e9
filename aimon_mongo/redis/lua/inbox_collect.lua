--! include _now _inbox_tidy
-- Collect an inbox. KEYS are the tier streams in priority order (NOW first), ARGV[1] the most entries one
-- call takes (over all tiers). From each tier the oldest entries (stream id order) are read and deleted in
-- one atomic step, so concurrent collectors never get the same entry and an entry delivered meanwhile
-- stays for the next call. Empty streams are dropped (see _inbox_tidy).
-- Returns one array per key: { {id, {field, value, ...}}, ... }.
local remaining = tonumber(ARGV[1])
local result = {}
for i, key in ipairs(KEYS) do
  local entries = {}
  if remaining > 0 then
    entries = redis.call('XRANGE', key, '-', '+', 'COUNT', remaining)
  end
  if #entries > 0 then
    local ids = {}
    for j, entry in ipairs(entries) do
      ids[j] = entry[1]
    end
    redis.call('XDEL', key, unpack(ids))
    remaining = remaining - #entries
  end
  drop_if_empty(key)
  result[i] = entries
end
return result

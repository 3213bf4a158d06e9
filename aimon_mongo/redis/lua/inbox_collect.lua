-- Collect an inbox. KEYS are the tier streams in priority order (NOW first), ARGV[1] the most entries
-- taken from one tier. From each tier the oldest entries (stream id order) are read and deleted in one
-- atomic step, so concurrent collectors never get the same entry and an entry delivered meanwhile stays
-- for the next call. A stream left empty is deleted (an idle session keeps no keys).
-- Returns one array per key: { {id, {field, value, ...}}, ... }.
local count = tonumber(ARGV[1])
local result = {}
for i, key in ipairs(KEYS) do
  local entries = redis.call('XRANGE', key, '-', '+', 'COUNT', count)
  if #entries > 0 then
    local ids = {}
    for j, entry in ipairs(entries) do
      ids[j] = entry[1]
    end
    redis.call('XDEL', key, unpack(ids))
    if redis.call('XLEN', key) == 0 then
      redis.call('DEL', key)
    end
  end
  result[i] = entries
end
return result

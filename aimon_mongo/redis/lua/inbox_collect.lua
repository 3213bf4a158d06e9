--! include _now
-- Collect an inbox. KEYS are the tier streams in priority order (NOW first), ARGV[1] the most entries one
-- call takes (over all tiers). From each tier the oldest entries (stream id order) are read and deleted in
-- one atomic step, so concurrent collectors never get the same entry and an entry delivered meanwhile
-- stays for the next call. An empty stream is deleted (an idle session keeps no keys) once the server clock
-- has passed the millisecond of the stream's newest id: a stream recreated by XADD * numbers from the
-- current millisecond, so deleting it earlier would let the next entry reuse an id already handed out
-- (a stream emptied within that millisecond is deleted by a later collect).
-- Returns one array per key: { {id, {field, value, ...}}, ... }.
local function last_id_millis(key)
  local info = redis.call('XINFO', 'STREAM', key)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      return tonumber(string.match(info[i + 1], '^(%d+)'))
    end
  end
  return nil
end

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
  if redis.call('XLEN', key) == 0 and redis.call('EXISTS', key) == 1 then
    local newest = last_id_millis(key)
    if newest ~= nil and newest < now_millis() then
      redis.call('DEL', key)
    end
  end
  result[i] = entries
end
return result

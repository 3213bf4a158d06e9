-- Conditionally rewrite or delete an idempotency entry by matching its stored JSON text.
-- KEYS[1] entry. ARGV[1] 'set' or 'del'. ARGV[2] the new TTL: digits (millis), or a member prefix such as
-- '"ttlMillis":' whose stored number is the TTL. ARGV[3] = k, ARGV[4 .. 3+k] substrings that must all be
-- present (e.g. '"status":"IN_FLIGHT"', '"holderId":"node-a/1"'); then pairs (member prefix, new JSON
-- value) to substitute. Matching plain substrings is safe because JSON escapes every '"' inside a string
-- value, so a needle that starts with '"' can only match a real member; holder ids containing '"' or
-- '\' are refused by the client for the same reason. Returns 1 when the entry matched, else 0.
local value = redis.call('GET', KEYS[1])
if not value then
  return 0
end
local k = tonumber(ARGV[3])
for i = 4, 3 + k do
  if not string.find(value, ARGV[i], 1, true) then
    return 0
  end
end
if ARGV[1] == 'del' then
  redis.call('DEL', KEYS[1])
  return 1
end

-- The end position of the JSON value starting at 'from' (a string, or a bare literal / number).
local function value_end(text, from)
  if string.sub(text, from, from) == '"' then
    local j = from + 1
    while j <= #text do
      local c = string.sub(text, j, j)
      if c == '\\' then
        j = j + 2
      elseif c == '"' then
        return j
      else
        j = j + 1
      end
    end
    return #text
  end
  local _, stop = string.find(text, '^[-+%w%.]+', from)
  return stop or from - 1
end

local function member_value(text, prefix)
  local _, stop = string.find(text, prefix, 1, true)
  if not stop then
    return nil
  end
  return stop + 1, value_end(text, stop + 1)
end

local px = ARGV[2]
if string.sub(px, 1, 1) == '"' then
  local first, last = member_value(value, px)
  px = first and string.sub(value, first, last) or nil
  if px and not string.find(px, '^%d+$') then
    px = nil
  end
end
for i = 4 + k, #ARGV - 1, 2 do
  local first, last = member_value(value, ARGV[i])
  if not first then
    return redis.error_reply('AIMON_MISSING_MEMBER ' .. ARGV[i])
  end
  value = string.sub(value, 1, first - 1) .. ARGV[i + 1] .. string.sub(value, last + 1)
end
if px then
  redis.call('SET', KEYS[1], value, 'PX', px)
else
  redis.call('SET', KEYS[1], value, 'KEEPTTL')
end
return 1

-- A page of a session's segments by id. KEYS[1] the created hash (segment id -> created-at epoch millis);
-- ARGV[1] the id the page starts after ('' for the first page: ids are never empty), ARGV[2] the page size.
-- Returns {id, millis, id, millis, ...} for the first ARGV[2] ids above ARGV[1] in byte order.
-- The hash keeps no order: its field names are read here, on the server, and only the page is sent back.
-- Ids are compared byte by byte: Lua's '<' on strings follows the server's locale (strcoll).
local byte, min = string.byte, math.min
local function below(a, b) -- four bytes per step; a string that ended reads as -1, below every byte
  local i, n = 1, min(#a, #b)
  while i <= n do
    local a1, a2, a3, a4 = byte(a, i, i + 3)
    local b1, b2, b3, b4 = byte(b, i, i + 3)
    if a1 ~= b1 then
      return a1 < b1
    end
    if a2 ~= b2 then
      return (a2 or -1) < (b2 or -1)
    end
    if a3 ~= b3 then
      return (a3 or -1) < (b3 or -1)
    end
    if a4 ~= b4 then
      return (a4 or -1) < (b4 or -1)
    end
    i = i + 4
  end
  return #a < #b
end
local after, limit = ARGV[1], tonumber(ARGV[2])
local above = {}
for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
  if after == '' or below(after, id) then
    above[#above + 1] = id
  end
end
local page = {}
if #above <= limit then
  table.sort(above, below)
  page = above
else  -- keep the lowest `limit` ids, in order: most ids are dropped after one comparison with the highest kept
  for _, id in ipairs(above) do
    if #page < limit or below(id, page[#page]) then
      local low, high = 1, #page + 1 -- the first kept id above this one
      while low < high do
        local middle = math.floor((low + high) / 2)
        if below(id, page[middle]) then
          high = middle
        else
          low = middle + 1
        end
      end
      table.insert(page, low, id)
      if #page > limit then
        page[#page] = nil
      end
    end
  end
end
local reply = {}
for first = 1, #page, 1000 do
  local last = math.min(first + 999, #page)
  local millis = redis.call('HMGET', KEYS[1], unpack(page, first, last))
  for i = first, last do
    reply[#reply + 1] = page[i]
    reply[#reply + 1] = millis[i - first + 1]
  end
end
return reply

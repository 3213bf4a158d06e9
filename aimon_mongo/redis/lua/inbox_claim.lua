--! include _now _inbox_tidy
-- Claim a batch of an inbox under a fencing token (acknowledged delivery). KEYS[1] the session's claims hash,
-- KEYS[2] its quarantine stream, KEYS[3..5] the tier streams NOW, NEXT, LATER. ARGV[1] the token,
-- ARGV[2] the most entries examined, ARGV[3] max attempts, ARGV[4] how many tiers (from NOW) to read,
-- ARGV[5] the stream field, ARGV[6] / ARGV[7] the quarantine's entry id and error fields, ARGV[8] / ARGV[9]
-- the text before and after the count in the reason of an entry handed out too often.
-- The claims hash keeps, per claimed entry, field "<tier>:<stream id>" = "<token>:<attempts>". In priority,
-- then stream id order, an entry unclaimed or claimed under a token <= ARGV[1] is examined: one handed out
-- max attempts times already is moved to the quarantine (appended there, deleted from its stream); any
-- other gets the token and one more attempt recorded and is handed out, still stored. Entries claimed
-- under a higher token are skipped (not counted).
-- Returns { { {id, {field, value, ...}, attempts}, ... }, { moved id, ... } }.
local claims, quarantine = KEYS[1], KEYS[2]
local token = ARGV[1]
local remaining = tonumber(ARGV[2])
local most = tonumber(ARGV[3])
local tiers = { 'NOW', 'NEXT', 'LATER' }
local handed, moved = {}, {}
for t = 1, tonumber(ARGV[4]) do
  local key = KEYS[t + 2]
  local start = '-'
  while remaining > 0 do
    local entries = redis.call('XRANGE', key, start, '+', 'COUNT', remaining)
    if #entries == 0 then
      break
    end
    for _, entry in ipairs(entries) do
      if remaining == 0 then
        break
      end
      local id = entry[1]
      local field = tiers[t] .. ':' .. id
      local state = redis.call('HGET', claims, field)
      local held, attempts = nil, 0
      if state then
        local a, b = string.match(state, '^(%d+):(%d+)$')
        held, attempts = a, tonumber(b) or 0
      end
      if held == nil or token_le(held, token) then
        remaining = remaining - 1
        if attempts >= most then
          local raw = raw_of(entry[2], ARGV[5])
          redis.call('XADD', quarantine, '*', ARGV[5], raw, ARGV[6], id, ARGV[7], ARGV[8] .. attempts .. ARGV[9])
          redis.call('XDEL', key, id)
          redis.call('HDEL', claims, field)
          moved[#moved + 1] = id
        else
          redis.call('HSET', claims, field, ARGV[1] .. ':' .. (attempts + 1))
          handed[#handed + 1] = { id, entry[2], attempts + 1 }
        end
      end
      start = '(' .. id
    end
  end
  drop_if_empty(key)
end
forget_claims(claims, { KEYS[3], KEYS[4], KEYS[5] })
return { handed, moved }

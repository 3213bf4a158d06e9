--! include _now _inbox_tidy
-- Move stored entries (claimed or not) to the quarantine. KEYS[1] the session's claims hash, KEYS[2] its
-- quarantine stream, KEYS[3..5] the tier streams NOW, NEXT, LATER; ARGV[1] the stream field, ARGV[2] /
-- ARGV[3] the quarantine's entry id and error fields, then pairs of (stream id, reason). Each entry found is
-- appended to the quarantine with its raw field and reason and deleted from its stream and the claims hash.
-- Returns the ids moved.
local claims, quarantine = KEYS[1], KEYS[2]
local tiers = { 'NOW', 'NEXT', 'LATER' }
local moved = {}
for i = 4, #ARGV, 2 do
  local id, reason = ARGV[i], ARGV[i + 1]
  for t = 1, 3 do
    local key = KEYS[t + 2]
    local found = redis.call('XRANGE', key, id, id)
    if #found == 1 then
      local raw = raw_of(found[1][2], ARGV[1])
      redis.call('XADD', quarantine, '*', ARGV[1], raw, ARGV[2], id, ARGV[3], reason)
      redis.call('XDEL', key, id)
      redis.call('HDEL', claims, tiers[t] .. ':' .. id)
      moved[#moved + 1] = id
    end
  end
end
for t = 1, 3 do
  drop_if_empty(KEYS[t + 2])
end
forget_claims(claims, { KEYS[3], KEYS[4], KEYS[5] })
return moved

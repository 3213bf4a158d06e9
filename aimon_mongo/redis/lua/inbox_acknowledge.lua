--! include _now _inbox_tidy
-- Acknowledge claimed entries. KEYS[1] the session's claims hash, KEYS[2..4] the tier streams NOW, NEXT,
-- LATER; ARGV[1] the token, ARGV[2..] the stream ids. An entry is removed (from its stream and the claims
-- hash) only while its claim state names exactly this token. Returns the count removed.
local claims = KEYS[1]
local tiers = { 'NOW', 'NEXT', 'LATER' }
local removed = 0
for i = 2, #ARGV do
  for t = 1, 3 do
    local field = tiers[t] .. ':' .. ARGV[i]
    local state = redis.call('HGET', claims, field)
    if state and string.match(state, '^(%d+):') == ARGV[1] then
      removed = removed + redis.call('XDEL', KEYS[t + 1], ARGV[i])
      redis.call('HDEL', claims, field)
    end
  end
end
for t = 1, 3 do
  drop_if_empty(KEYS[t + 1])
end
forget_claims(claims, { KEYS[2], KEYS[3], KEYS[4] })
return removed

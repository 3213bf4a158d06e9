--! include _now
-- Take a lease. KEYS[1] lock, KEYS[2] fencing counter, KEYS[3] the session's write fence (the highest
-- token its records and segments accept; same slot as the lock in the cluster layout); ARGV[1] holder id
-- (no ':'), ARGV[2] lease millis.
-- Only a free lock, or one held by the same holder id (a re-acquisition: a new token fences its older
-- process), bumps the counter, so losers burn no tokens; 0 is never a token. The write fence is raised to
-- the token in the same script, so no fenced write with a lower token passes once the token is handed out
-- (a fence value that is not a number is left to the fenced scripts, which refuse it).
-- The token is max(counter + 1, server TIME in ms * 1024) (a hybrid token): a promoted replica that
-- never received the old primary's last bumps still issues a higher token than any the old primary
-- acknowledged, as long as its clock is not behind the old primary's (docs/guarantees.md, Redis section).
-- Reference nodes INCR the same counter, which stays strictly increasing. Up to 2^53 (Lua numbers are
-- doubles) this is exact: TIME ms * 1024 reaches 2^53 in the year 2248. A counter that is not a number
-- is left to INCR, which refuses it. The token is kept as decimal text ('%d': a Lua number would
-- print as 1.8e+15).
-- The expiry is set as an absolute server time (PEXPIREAT) and that same value is returned, so the
-- expiry the holder sees is exactly the one Redis enforces (PX plus a later TIME could report it late).
-- Returns {token, expires_at_millis, 1 if the counter existed else 0} by the server clock, or nil when
-- another holder's live lease exists.
local current = redis.call('GET', KEYS[1])
if current then
  local own = ARGV[1] .. ':'
  if string.sub(current, 1, #own) ~= own then
    return false
  end
end
local now = now_millis()
local counter = redis.call('GET', KEYS[2])
local floor = now * 1024
local token
if (not counter or tonumber(counter)) and floor > (tonumber(counter) or 0) then
  token = string.format('%d', floor)
  redis.call('SET', KEYS[2], token)
else
  token = string.format('%d', redis.call('INCR', KEYS[2]))
end
local expires = now + tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token)
redis.call('PEXPIREAT', KEYS[1], expires)
local fence = redis.call('GET', KEYS[3])
if not fence or (tonumber(fence) and tonumber(fence) < tonumber(token)) then
  redis.call('SET', KEYS[3], token)
end
return {tonumber(token), expires, counter and 1 or 0}

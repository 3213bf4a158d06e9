--! include _fence
-- Fenced delete of whole keys: KEYS[2..] are deleted. Returns how many existed.
if #KEYS < 2 then
  return 0
end
return redis.call('DEL', unpack(KEYS, 2))
